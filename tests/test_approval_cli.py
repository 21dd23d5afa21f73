"""``cadence chat`` asks inline when a turn pauses; ``cadence threads list|show|history|fork``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage

from cadence.cli.approvals import parse_reply
from test_cli import cli_env, run, thread_messages, use_script  # noqa: F401  (fixture)

PAUSE: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "goto_math_agent", "args": {}}]},
    {"tool_calls": [{"name": "calculate", "args": {"expression": "2 + 2"}}]},
]
FINISH: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "goto_finalize", "args": {}}]},
    {"content": "2 + 2 = 4."},
]


@pytest.fixture
def approvals(cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:  # noqa: F811
    monkeypatch.setenv("CADENCE_APPROVAL_TOOLS", "calculate")
    return cli_env


def _results(env: dict[str, str], thread: str) -> list[ToolMessage]:
    return [
        m
        for m in thread_messages(env, "local", thread)
        if isinstance(m, ToolMessage) and m.name == "calculate"
    ]


def test_replies() -> None:
    assert parse_reply("a") == parse_reply(" Yes ") == "approve"
    assert parse_reply("r too risky") == {"decision": "reject", "message": "too risky"}
    assert parse_reply('e {"expression": "1"}') == {"decision": "edit", "arguments": {"expression": "1"}}
    for bad in ("maybe", "e [1]", "e {oops", "a and more"):
        with pytest.raises(ValueError):
            parse_reply(bad)


def test_chat_asks_inline_and_approve_runs_the_tool(approvals, tmp_path: Path, monkeypatch) -> None:
    use_script(monkeypatch, tmp_path, [*PAUSE, *FINISH], "approve")
    result = run("chat", "--thread", "c1", "What is 2 + 2?", input="maybe\na\n")
    assert result.exit_code == 0, result.output
    assert "approval needed: math.calculate" in result.stderr
    assert "error: answer a (approve)" in result.stderr  # an unclear reply is asked again
    assert "2 + 2 = 4." in result.stdout
    assert [m.content for m in _results(approvals, "c1")] == ["4"]


def test_reject_and_edit_inline(approvals, tmp_path: Path, monkeypatch) -> None:
    use_script(monkeypatch, tmp_path, [*PAUSE, *FINISH], "reject")
    result = run("chat", "--thread", "c2", "2 + 2?", input="r not today\n")
    assert result.exit_code == 0, result.output
    [rejected] = _results(approvals, "c2")
    assert rejected.status == "error" and "not today" in str(rejected.content)

    use_script(monkeypatch, tmp_path, [*PAUSE, *FINISH], "edit")
    result = run("chat", "--thread", "c3", "2 + 2?", input='e {"expression": "3 + 3"}\n')
    assert result.exit_code == 0, result.output
    assert [m.content for m in _results(approvals, "c3")] == ["6"]

    use_script(monkeypatch, tmp_path, [*PAUSE, *FINISH], "edit-json")  # the same reply with --json
    result = run("chat", "--json", "--thread", "c6", "2 + 2?", input='e {"expression": "4 + 4"}\n')
    assert result.exit_code == 0, result.output
    assert [m.content for m in _results(approvals, "c6")] == ["8"]  # it was dropped: the turn stayed paused


def test_end_of_input_leaves_it_paused_and_the_next_chat_decides_first(
    approvals, tmp_path: Path, monkeypatch
) -> None:
    use_script(monkeypatch, tmp_path, PAUSE, "pause")
    result = run("chat", "--json", "--thread", "c4", "2 + 2?", input="")
    assert result.exit_code == 0, result.output
    paused = json.loads(result.stdout.splitlines()[0])
    assert paused["interrupted"] is True and paused["approvals"][0]["tool"] == "calculate"
    assert "stays paused" in result.stderr
    listed = json.loads(run("threads", "list", "--json").stdout)["threads"]
    assert [(t["thread_id"], t["paused"]) for t in listed] == [("c4", True)]
    shown = run("threads", "show", "c4")
    assert "waits for approval" in shown.stdout

    # a later session: the pause is decided before the new message runs
    use_script(monkeypatch, tmp_path, [*FINISH, *FINISH], "later")
    result = run("chat", "--json", "--thread", "c4", "and now?", input="approve\n")
    assert result.exit_code == 0, result.output
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [a["response"] for a in answers] == ["2 + 2 = 4.", "2 + 2 = 4."]
    assert [m.content for m in _results(approvals, "c4")] == ["4"]


def test_an_interactive_session_on_a_paused_thread_decides_it_before_the_first_message(
    approvals, tmp_path: Path, monkeypatch
) -> None:
    """The first line typed is the decision, not a message lost to the pause."""
    use_script(monkeypatch, tmp_path, PAUSE, "pause")
    assert run("chat", "--json", "--thread", "c7", "2 + 2?", input="").exit_code == 0
    use_script(monkeypatch, tmp_path, [*FINISH, *FINISH], "session")
    result = run("chat", "--thread", "c7", input="a\nand now?\n")  # interactive: no message argument
    assert result.exit_code == 0, result.output
    assert "thread c7 is paused" in result.stderr
    assert [m.content for m in _results(approvals, "c7")] == ["4"]
    questions = [m.content for m in thread_messages(approvals, "local", "c7") if m.type == "human"]
    assert questions == ["2 + 2?", "and now?"]


def test_threads_history_and_fork(cli_env, tmp_path: Path, monkeypatch) -> None:  # noqa: F811
    monkeypatch.setenv("CADENCE_CHECKPOINT_DURABILITY", "sync")
    use_script(monkeypatch, tmp_path, [*PAUSE[:1], PAUSE[1], *FINISH], "run")
    assert run("chat", "--thread", "c5", "2 + 2?").exit_code == 0
    history = json.loads(run("threads", "history", "c5", "--json").stdout)["checkpoints"]
    tools = next(c for c in history if c["node"] == "math_tools")
    call_id = tools["messages"][0]["tool_call_id"]
    table = run("threads", "history", "c5")
    assert tools["checkpoint_id"] in table.stdout and "calculate" in table.stdout

    use_script(
        monkeypatch,
        tmp_path,
        [{"tool_calls": [{"name": "goto_finalize", "args": {}}]}, {"content": "2 + 2 = 5."}],
        "fork",
    )
    forked = run("threads", "fork", "c5", tools["checkpoint_id"], "--tool-result", f"{call_id}=5", "--json")
    assert forked.exit_code == 0, forked.output
    assert json.loads(forked.stdout)["response"] == "2 + 2 = 5."
    bad = run("threads", "fork", "c5", tools["checkpoint_id"], "--tool-result", "nonsense")
    assert bad.exit_code == 1 and bad.stderr.startswith("error: --tool-result")
    missing = run("threads", "history", "nope")
    assert missing.exit_code == 1 and "No thread 'nope'" in missing.stderr


def test_an_undecidable_reply_is_asked_again(approvals, tmp_path: Path, monkeypatch) -> None:
    """An edit the thread cannot store (an integer beyond 64 bits) failed the resumed turn with a
    serializer error; it is refused and asked again, like an unclear reply."""
    use_script(monkeypatch, tmp_path, [*PAUSE, *FINISH], "unstorable")
    reply = 'e {"expression": 123456789012345678901234567890}\na\n'
    result = run("chat", "--thread", "c7", "2 + 2?", input=reply)
    assert result.exit_code == 0, result.output
    assert "cannot be stored" in result.stderr and "2 + 2 = 4." in result.stdout
    assert [m.content for m in _results(approvals, "c7")] == ["4"]


def test_an_edit_that_does_not_fit_the_tool_is_asked_again(approvals, tmp_path: Path, monkeypatch) -> None:
    use_script(monkeypatch, tmp_path, [*PAUSE, *FINISH], "misspelt")
    reply = 'e {"expresion": "3 + 3"}\ne {"expression": "3 + 3"}\n'
    result = run("chat", "--thread", "c8", "2 + 2?", input=reply)
    assert result.exit_code == 0, result.output
    assert "unknown argument 'expresion' (it takes expression)" in result.stderr
    assert [m.content for m in _results(approvals, "c8")] == ["6"]
