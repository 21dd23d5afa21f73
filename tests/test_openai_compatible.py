"""``CADENCE_LLM=openai-compatible:<model>`` against a real OpenAI-compatible server on loopback.

The server is the test's own: a tiny ``http.server`` app speaking ``POST /v1/chat/completions``
(plain JSON and streamed SSE chunks, ``tool_calls`` in the OpenAI format). It decides each
reply from the request's ``tools`` list (which node is asking) and the conversation so far.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cadence.orchestration.engine import Cadence
from cadence.settings import Settings

pytest.importorskip("langchain_openai")

MODEL = "loopback-test-model"
API_KEY = "sk-loopback-test"
ANSWER = "15 * 23 = 345"


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [t.get("function", {}).get("name", "") for t in body.get("tools") or []]


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def decide(body: dict[str, Any]) -> dict[str, Any]:
    """The reply for this request: ``{"content": str, "tool_calls": [(name, args)]}``."""
    tools = _tool_names(body)
    messages = body.get("messages") or []
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    this_turn = messages[last_user + 1 :]  # earlier turns of the thread do not count
    computed = any(m.get("role") == "tool" and "345" in _text(m) for m in this_turn)
    if "goto_math_agent" in tools:  # the coordinator
        return {"content": "", "tool_calls": [("goto_finalize" if computed else "goto_math_agent", {})]}
    if "calculate" in tools:  # the math agent
        if computed:
            return {"content": "", "tool_calls": [("back", {})]} if "back" in tools else {"content": "345"}
        return {"content": "", "tool_calls": [("calculate", {"expression": "15 * 23"})]}
    return {"content": ANSWER if computed else "I could not compute it.", "tool_calls": []}


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        return  # clients dropping keep-alive connections at exit is expected


class FakeOpenAI:
    """A loopback OpenAI-compatible chat completions server; records every request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                outer.requests.append(body)
                outer.headers.append({k.lower(): v for k, v in self.headers.items()})
                reply = decide(body)
                if body.get("stream"):
                    self._stream(body, reply)
                else:
                    self._json(200, outer.completion(body, reply))

            def _json(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict[str, Any], reply: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in outer.chunks(body, reply):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    # -- payloads ------------------------------------------------------------------------
    @staticmethod
    def _usage(body: dict[str, Any], reply: dict[str, Any]) -> dict[str, int]:
        prompt = sum(len(_text(m).split()) for m in body.get("messages") or []) + 1
        completion = len(reply["content"].split()) + 5 * len(reply["tool_calls"]) + 1
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def completion(self, body: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        calls = [
            {
                "id": f"call_{uuid.uuid4().hex[:10]}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for name, args in reply["tool_calls"]
        ]
        message: dict[str, Any] = {"role": "assistant", "content": reply["content"] or None}
        if calls:
            message["tool_calls"] = calls
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:10]}",
            "object": "chat.completion",
            "created": 1700000000,
            "model": body.get("model", MODEL),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": self._usage(body, reply),
        }

    def chunks(self, body: dict[str, Any], reply: dict[str, Any]) -> Iterator[dict[str, Any]]:
        base = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:10]}",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": body.get("model", MODEL),
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        yield chunk({"role": "assistant", "content": ""})
        words = reply["content"].split(" ") if reply["content"] else []
        for i, word in enumerate(words):
            yield chunk({"content": word if i == 0 else " " + word})
        for index, (name, args) in enumerate(reply["tool_calls"]):
            arguments = json.dumps(args)
            half = len(arguments) // 2
            yield chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": f"call_{uuid.uuid4().hex[:10]}",
                            "type": "function",
                            "function": {"name": name, "arguments": arguments[:half]},
                        }
                    ]
                }
            )
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments[half:]}}]})
        yield chunk({}, "tool_calls" if reply["tool_calls"] else "stop")
        if (body.get("stream_options") or {}).get("include_usage"):
            yield {**base, "choices": [], "usage": self._usage(body, reply)}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    with FakeOpenAI() as fake:
        yield fake


def _settings(server: FakeOpenAI) -> Settings:
    return Settings(
        llm=f"openai-compatible:{MODEL}",
        llm_base_url=server.base_url,
        llm_api_key=API_KEY,
        builtin_plugins=["math"],
        entry_points_enabled=False,
        database_url="memory://",
        model_max_retries=0,
        turn_timeout=60,
    )


def _check_math_trace(trace: dict[str, Any]) -> None:
    assert trace["routing_history"] == ["math"]
    assert trace["tools_used"][0]["name"] == "calculate"
    assert trace["tools_used"][0]["result"] == "345"
    assert trace["suspended"] is False
    assert [c["node"] for c in trace["model_calls"]] == [
        "coordinator",
        "math_agent",
        "coordinator",
        "synthesizer",
    ]
    assert all(c["model"] == MODEL for c in trace["model_calls"])
    assert trace["usage"]  # the provider's token counts reached the trace


async def test_conversation_with_tool_calls(server: FakeOpenAI) -> None:
    engine = Cadence(_settings(server))
    result = await engine.ainvoke("Calculate 15 * 23", thread_id="t1")
    assert result.error is None, result.error
    assert ANSWER in result.response
    _check_math_trace(result.trace)
    assert len(server.requests) == 4
    assert all(r["model"] == MODEL for r in server.requests)
    assert all(h.get("authorization") == f"Bearer {API_KEY}" for h in server.headers)
    coordinator_tools = _tool_names(server.requests[0])
    assert {"goto_math_agent", "goto_finalize"} <= set(coordinator_tools)
    assert "calculate" in _tool_names(server.requests[1])
    # the second coordinator call saw the calculate result as an OpenAI "tool" message
    assert any(m.get("role") == "tool" and "345" in _text(m) for m in server.requests[2]["messages"])

    # The thread continues: the next turn's coordinator sees the first question.
    second = await engine.ainvoke("And again, please: 15 * 23?", thread_id="t1")
    assert second.error is None and ANSWER in second.response
    contents = [_text(m) for m in server.requests[4]["messages"] if m.get("role") == "user"]
    assert any("Calculate 15 * 23" in c for c in contents)


async def test_streamed_conversation_with_tool_calls(server: FakeOpenAI) -> None:
    engine = Cadence(_settings(server))
    events = [e async for e in engine.astream("Calculate 15 * 23", thread_id="s1")]
    final = events[-1]
    assert final["type"] == "final" and final["error"] is None
    assert ANSWER in final["response"]
    _check_math_trace(final["trace"])
    assert any(r.get("stream") for r in server.requests), "the streamed turn should stream from the server"
    tokens = "".join(e["text"] for e in events if e["type"] == "token")
    assert ANSWER in tokens
    kinds = [e["type"] for e in events]
    assert "agent_start" in kinds and "tool_end" in kinds
    tool_end = next(e for e in events if e["type"] == "tool_end")
    assert tool_end["name"] == "calculate" and tool_end["result"] == "345"


def test_cli_chat_against_the_server(
    server: FakeOpenAI, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cadence.cli.main import app

    monkeypatch.setenv("CADENCE_LLM", f"openai-compatible:{MODEL}")
    monkeypatch.setenv("CADENCE_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("CADENCE_LLM_API_KEY", API_KEY)
    monkeypatch.setenv("CADENCE_BUILTIN_PLUGINS", "math")
    monkeypatch.setenv("CADENCE_ENTRY_POINTS_ENABLED", "false")
    monkeypatch.setenv("CADENCE_DATABASE_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    runner = CliRunner()
    result = runner.invoke(app, ["chat", "--json", "Calculate 15 * 23"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert ANSWER in payload["response"]
    _check_math_trace(payload["trace"])

    # The plain (streaming) CLI continues the thread, in a process of its own as a user would run it.
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    plain = subprocess.run(
        [
            sys.executable,
            "-m",
            "cadence.cli",
            "chat",
            "--thread",
            payload["thread_id"],
            "Calculate 15 * 23 again",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert plain.returncode == 0, plain.stderr
    assert ANSWER in plain.stdout
    assert "route: math → synthesizer · 1 tool" in plain.stderr
    assert any(r.get("stream") for r in server.requests)  # the plain CLI streams the answer
    user_turns = [_text(m) for m in server.requests[-1]["messages"] if m.get("role") == "user"]
    assert any(t == "Calculate 15 * 23" for t in user_turns)  # the first turn came from the database


def test_sync_invoke_twice(server: FakeOpenAI) -> None:
    engine = Cadence(_settings(server))
    first = engine.invoke("Calculate 15 * 23", thread_id="sync")
    assert first.error is None and ANSWER in first.response
    second = engine.invoke("Calculate 15 * 23 again", thread_id="sync")
    assert second.trace["routing_history"] == ["math"], second.trace["errors"]
