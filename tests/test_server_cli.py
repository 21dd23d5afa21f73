"""``cadence serve`` in a subprocess (CADENCE_LLM=scripted:<file>): serves, stops, restarts with the history."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

SRC = Path(__file__).resolve().parents[1] / "src"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def cadence_serve(
    tmp_path: Path,
    script: list[dict[str, Any]],
    name: str,
    env_extra: dict[str, str] | None = None,
    procs: list[subprocess.Popen[bytes]] | None = None,
) -> Iterator[str]:
    script_file = tmp_path / f"{name}.json"
    script_file.write_text(json.dumps(script), encoding="utf-8")
    port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CADENCE_")},
        "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "CADENCE_LLM": f"scripted:{script_file}",
        "CADENCE_DATABASE_URL": f"sqlite:///{tmp_path / 'serve.db'}",
        "CADENCE_BUILTIN_PLUGINS": "",
        "CADENCE_ENTRY_POINTS_ENABLED": "false",
        "CADENCE_API_KEYS": "secret-key,alice-key:alice",
        **(env_extra or {}),
    }
    log = (tmp_path / f"{name}.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "cadence.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    if procs is not None:
        procs.append(proc)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / f"{name}.log").read_text()
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, "cadence serve did not become ready"
            time.sleep(0.1)
        yield url
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def test_cadence_serve_restart_keeps_threads(tmp_path: Path) -> None:
    alice = {"Authorization": "Bearer alice-key"}
    with cadence_serve(tmp_path, [{"content": "x"}, {"content": "First answer"}], "one") as url:
        assert httpx.get(f"{url}/health").status_code == 200
        assert httpx.post(f"{url}/api/v1/chat", json={"message": "hi"}).status_code == 401
        resp = httpx.post(
            f"{url}/api/v1/chat", json={"message": "Hello, remember me"}, headers=alice, timeout=30
        )
        assert resp.status_code == 200, resp.text
        assert resp.json()["response"] == "First answer"
        thread = resp.json()["thread_id"]

    with cadence_serve(tmp_path, [{"content": "x"}, {"content": "Second answer"}], "two") as url:
        threads = httpx.get(f"{url}/api/v1/threads", headers=alice).json()["threads"]
        assert [t["thread_id"] for t in threads] == [thread]
        resp = httpx.post(
            f"{url}/api/v1/chat",
            json={"message": "Still there?", "thread_id": thread},
            headers=alice,
            timeout=30,
        )
        assert resp.status_code == 200 and resp.json()["response"] == "Second answer"
        detail = httpx.get(f"{url}/api/v1/threads/{thread}", headers=alice).json()
        assert [m["content"] for m in detail["messages"]] == [
            "Hello, remember me",
            "First answer",
            "Still there?",
            "Second answer",
        ]
        other = httpx.get(f"{url}/api/v1/threads/{thread}", headers={"X-API-Key": "secret-key"})
        assert other.status_code == 404  # the unbound key acts as the default user, not alice


def test_a_websocket_message_over_the_limit_gets_413_under_cadence_serve(tmp_path: Path) -> None:
    """uvicorn's own frame limit was the request limit: it closed the socket (1009) before the app's 413."""
    from websockets.sync.client import connect

    script = [{"tool_calls": [{"name": "goto_finalize", "args": {}}]}, {"content": "Hello."}]
    env = {"CADENCE_MAX_REQUEST_BYTES": "10000"}
    with cadence_serve(tmp_path, script, "ws", env) as url:
        ws_url = url.replace("http://", "ws://") + "/api/v1/ws?api_key=secret-key"
        with connect(ws_url, max_size=None) as ws:
            ws.send(json.dumps({"message": "x" * 12_000}))
            event = json.loads(ws.recv(timeout=30))
            assert event["type"] == "error" and event["status"] == 413, event
            ws.send(json.dumps({"message": "hi"}))  # the socket is still open
            while (event := json.loads(ws.recv(timeout=30)))["type"] != "final":
                pass
            assert event["response"] == "Hello."


def _ask_while_stopping(
    url: str, proc: subprocess.Popen[bytes], after_s: float
) -> tuple[httpx.Response, float]:
    """POST a turn, send SIGTERM ``after_s`` into it; the response and how long the server took to exit."""
    import threading

    box: dict[str, httpx.Response] = {}
    headers = {"Authorization": "Bearer secret-key"}

    def ask() -> None:
        box["resp"] = httpx.post(
            f"{url}/api/v1/chat", json={"message": "hi", "thread_id": "s1"}, headers=headers, timeout=60
        )

    asker = threading.Thread(target=ask)
    asker.start()
    time.sleep(after_s)
    stopped = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    asker.join(60)
    proc.wait(60)
    return box["resp"], time.monotonic() - stopped


def test_a_turn_running_at_sigterm_finishes_and_is_answered(tmp_path: Path) -> None:
    script = [{"tool_calls": [{"name": "goto_finalize", "args": {}}]}, {"content": "Hello.", "delay_s": 2}]
    procs: list[subprocess.Popen[bytes]] = []
    with cadence_serve(tmp_path, script, "grace", procs=procs) as url:
        resp, _ = _ask_while_stopping(url, procs[0], 0.5)
    assert resp.status_code == 200 and resp.json()["response"] == "Hello."


def test_a_turn_longer_than_the_grace_gets_a_503_and_its_thread_is_kept(tmp_path: Path) -> None:
    """uvicorn cut such a request with a plain-text 500 while the turn went on and stored its answer."""
    script = [
        {"tool_calls": [{"name": "goto_finalize", "args": {}}]},
        {"content": "Too late.", "delay_s": 30},
    ]
    procs: list[subprocess.Popen[bytes]] = []
    env = {"CADENCE_SHUTDOWN_GRACE": "1"}
    with cadence_serve(tmp_path, script, "late", env, procs) as url:
        resp, took = _ask_while_stopping(url, procs[0], 0.5)
    assert resp.status_code == 503 and resp.json()["error"]["code"] == "shutting_down"
    assert resp.json()["thread_id"] == "s1" and took < 10
    with cadence_serve(tmp_path, script, "after", env) as url:  # the same database: the thread is kept
        thread = httpx.get(f"{url}/api/v1/threads/s1", headers={"Authorization": "Bearer secret-key"}).json()
    assert [m["role"] for m in thread["messages"]] == ["user", "assistant"]
    assert "Too late." not in thread["messages"][-1]["content"]  # what was stored is what the client was told
