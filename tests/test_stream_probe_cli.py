"""``cadence chat`` around a streamed turn: Ctrl-C at an approval prompt, lines piped on stdin."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import sys
from pathlib import Path

import pytest

from test_cli import HELLO_SCRIPT, MATH_SCRIPT, cli_env, run, use_script  # noqa: F401  (cli_env is a fixture)


async def test_a_reply_given_up_on_by_ctrl_c_goes_to_the_next_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C at ``approve? …`` cancelled the turn but not the thread blocked reading stdin: it took the
    next line the user typed at ``you ›`` (lost), and the session read the line after that instead."""
    from cadence.cli import approvals

    read_end, write_end = os.pipe()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.FileIO(read_end, "rb"), encoding="utf-8"))
    try:
        asking = asyncio.create_task(approvals._read_line("approve? ", None))
        await asyncio.sleep(0.1)
        asking.cancel()  # Ctrl-C: the turn is cancelled while its prompt waits
        with contextlib.suppress(asyncio.CancelledError):
            await asking
        os.write(write_end, b"hello\n")
        assert await asyncio.wait_for(approvals._read_line("", None), 5) == "hello"
        os.write(write_end, b"a\n")
        assert await asyncio.wait_for(approvals._read_line("", None), 5) == "a"
    finally:
        os.close(write_end)  # end of input: no read stays blocked


@pytest.mark.usefixtures("cli_env")
def test_piped_lines_get_the_answers_without_prompts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``printf 'q1\\nq2\\n' | cadence chat > answers.txt`` wrote ``you › `` before every answer and at
    the end: the prompt is for someone typing at a terminal."""
    use_script(monkeypatch, tmp_path, [*MATH_SCRIPT, *HELLO_SCRIPT], "two")
    result = run("chat", input="Calculate 15 * 23\nhello\n")
    assert result.exit_code == 0, result.output
    assert result.stdout == "15 * 23 = 345\nHello again!\n"
    assert result.stderr.count("route: ") == 2


@pytest.mark.usefixtures("cli_env")
def test_a_turn_failing_outside_the_engine_does_not_end_the_session(tmp_path: Path, monkeypatch) -> None:
    """An unexpected failure of one turn (here the database, locked by a server writing the same file)
    ended the interactive session: the lines after it were never read."""
    import sqlite3

    from cadence.cli import approvals

    real = approvals.run_turn
    calls = {"n": 0}

    async def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise sqlite3.OperationalError("database is locked")
        return await real(*args, **kwargs)

    monkeypatch.setattr(approvals, "run_turn", flaky)
    use_script(monkeypatch, tmp_path, HELLO_SCRIPT, "hello")
    result = run("chat", input="first\nsecond\n")
    assert result.exit_code == 0, result.output
    assert result.stdout == "Hello again!\n"
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [
        "error: Database problem: database is locked. Check CADENCE_DATABASE_URL / CADENCE_DATA_DIR."
    ]


@pytest.mark.usefixtures("cli_env")
def test_the_answer_is_printed_as_written_not_with_emoji(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rich replaced ``:code:`` names in answers: ``a[1:100:2]`` printed as ``a[1💯2]``, ``12:x:3`` as ``12❌3``."""
    answer = "a[1:100:2] takes every 2nd item; 12:x:3 and :fire: stay"
    use_script(monkeypatch, tmp_path, [HELLO_SCRIPT[0], {"content": answer}], "emoji")
    result = run("chat", "slice?")
    assert result.exit_code == 0, result.output
    assert result.stdout == answer + "\n"
