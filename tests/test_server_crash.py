"""No lost question: ``kill -9`` of a real ``cadence serve`` mid-turn (default durability ``exit``)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

SRC = Path(__file__).resolve().parents[1] / "src"


@contextlib.contextmanager
def cadence_serve(
    tmp_path: Path, script: list[dict[str, Any]], name: str
) -> Iterator[tuple[str, subprocess.Popen]]:
    """``cadence serve --port 0`` on a SQLite file; yields the URL it prints when ready, and the process."""
    script_file = tmp_path / f"{name}.json"
    script_file.write_text(json.dumps(script), encoding="utf-8")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CADENCE_")},
        "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "CADENCE_LLM": f"scripted:{script_file}",
        "CADENCE_DATABASE_URL": f"sqlite:///{tmp_path / 'serve.db'}",
        "CADENCE_BUILTIN_PLUGINS": "",
        "CADENCE_ENTRY_POINTS_ENABLED": "false",
    }
    log_path = tmp_path / f"{name}.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cadence.cli", "serve", "--host", "127.0.0.1", "--port", "0"],
            env=env,
            cwd=tmp_path,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            while not (found := re.search(r"serving on (http://127\.0\.0\.1:\d+)", log_path.read_text())):
                assert proc.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, "cadence serve did not print its URL"
                time.sleep(0.05)
            url = found.group(1)
            assert httpx.get(f"{url}/ready", timeout=10).status_code == 200  # ready when it says so
            yield url, proc
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def _messages(url: str, thread: str) -> list[dict[str, Any]]:
    resp = httpx.get(f"{url}/api/v1/threads/{thread}", timeout=10)
    return resp.json()["messages"] if resp.status_code == 200 else []


def test_kill_9_mid_turn_keeps_the_question(tmp_path: Path) -> None:
    thread = "crash-test"
    question = "Will this question survive a crash?"
    # the coordinator's model call hangs: the turn is mid-way when the process is killed
    with cadence_serve(tmp_path, [{"content": "x", "delay_s": 300}], "first") as (url, proc):
        outcome: dict[str, Any] = {}

        def ask() -> None:
            try:
                outcome["resp"] = httpx.post(
                    f"{url}/api/v1/chat", json={"message": question, "thread_id": thread}, timeout=120
                )
            except httpx.HTTPError as exc:
                outcome["error"] = exc

        asker = threading.Thread(target=ask, daemon=True)
        asker.start()
        deadline = time.monotonic() + 30
        while not (messages := _messages(url, thread)):
            assert time.monotonic() < deadline, "the question never reached the thread"
            time.sleep(0.05)
        assert messages == [
            {**messages[0], "role": "user", "content": question, "interrupted": False}  # running, not lost
        ]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        asker.join(timeout=30)
        assert "resp" not in outcome  # the turn never answered

    script = [{"content": "x"}, {"content": "Here is the second answer"}]
    with cadence_serve(tmp_path, script, "second") as (url, _):
        listed = httpx.get(f"{url}/api/v1/threads", timeout=10).json()["threads"]
        assert [(t["thread_id"], t["title"]) for t in listed] == [(thread, question)]
        (kept,) = _messages(url, thread)
        assert (kept["role"], kept["content"], kept["interrupted"]) == ("user", question, True)

        resp = httpx.post(
            f"{url}/api/v1/chat", json={"message": "Are you back?", "thread_id": thread}, timeout=60
        )
        assert resp.status_code == 200, resp.text
        assert resp.json()["response"] == "Here is the second answer"
        after = _messages(url, thread)
        assert [(m["content"], m["interrupted"]) for m in after] == [
            (question, True),
            ("Are you back?", False),
            ("Here is the second answer", False),
        ]
