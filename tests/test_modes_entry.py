"""The mode chosen per request: the HTTP API (chat, stream, WebSocket) and the CLI (chat, graph)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from test_cli import assert_one_error_line, cli_env, run, use_script  # noqa: F401  (cli_env is a fixture)
from test_server_api import ws_turn, ws_url
from test_server_support import ANSWER, parse_sse, serve

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SUPERVISOR_SCRIPT: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "transfer_to_math", "args": {}}]},
    {"tool_calls": [{"name": "calculate", "args": {"expression": "15 * 23"}}]},
    {"content": "15 * 23 = 345"},
    {"tool_calls": [{"name": "forward_message", "args": {"from_agent": "math"}}]},
]


def test_api_mode_per_request() -> None:
    with serve() as url, httpx.Client(base_url=url, timeout=30) as client:
        default = client.post("/api/v1/chat", json={"message": "hi"})
        assert default.status_code == 200, default.text
        assert default.json()["trace"]["mode"] == "coordinator"
        chosen = client.post("/api/v1/chat", json={"message": "hi", "mode": "supervisor"})
        assert chosen.status_code == 200, chosen.text
        assert chosen.json()["response"] == ANSWER and chosen.json()["trace"]["mode"] == "supervisor"

        stream = client.post("/api/v1/chat/stream", json={"message": "hi", "mode": "supervisor"})
        events = parse_sse(stream.text)
        assert events[0][1] == {"type": "node", "node": "supervisor"}
        assert events[-1][1]["trace"]["mode"] == "supervisor"

        bad = client.post("/api/v1/chat", json={"message": "hi", "mode": "swarm"})
        assert bad.status_code == 422, bad.text
        error = bad.json()["error"]
        assert error["code"] == "unknown_mode" and "coordinator, supervisor" in error["message"]


def test_api_mode_over_websocket() -> None:
    with serve() as url, connect(ws_url(url)) as ws:
        events = ws_turn(ws, {"message": "hi", "mode": "supervisor"})
        assert events[-1]["type"] == "final" and events[-1]["trace"]["mode"] == "supervisor"
        rejected = ws_turn(ws, {"message": "hi", "mode": "swarm"})
        assert rejected[-1]["status"] == 422 and rejected[-1]["error"]["code"] == "unknown_mode"


def test_api_default_mode_from_settings() -> None:
    with serve(mode="supervisor") as url, httpx.Client(base_url=url, timeout=30) as client:
        body = client.post("/api/v1/chat", json={"message": "hi"}).json()
        assert body["trace"]["mode"] == "supervisor"
        other = client.post("/api/v1/chat", json={"message": "hi", "mode": "coordinator"}).json()
        assert other["trace"]["mode"] == "coordinator"


def test_cli_chat_mode(cli_env: dict[str, str], tmp_path: Path, monkeypatch) -> None:  # noqa: F811
    use_script(monkeypatch, tmp_path, SUPERVISOR_SCRIPT, "supervisor")
    result = run("chat", "--mode", "supervisor", "--json", "Calculate 15 * 23")
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["response"] == "15 * 23 = 345"
    assert body["trace"]["mode"] == "supervisor" and body["trace"]["routing_history"] == ["math"]


def test_cli_unknown_mode_is_one_error_line(cli_env: dict[str, str], monkeypatch) -> None:  # noqa: F811
    assert_one_error_line(run("chat", "--mode", "swarm", "hi"), "coordinator, supervisor")
    assert_one_error_line(run("graph", "--mode", "swarm"), "Unknown mode 'swarm'")
    monkeypatch.setenv("CADENCE_MODE", "swarm")
    assert_one_error_line(run("graph"), "coordinator, supervisor")


def test_cli_graph_per_mode(cli_env: dict[str, str], monkeypatch) -> None:  # noqa: F811
    monkeypatch.setenv("CADENCE_LLM", "nope:x")  # drawing a graph contacts no model
    supervisor = run("graph", "--mode", "supervisor")
    assert supervisor.exit_code == 0, supervisor.output
    for node in ("supervisor", "control_tools", "forward", "math_agent", "math_tools", "synthesizer"):
        assert node in supervisor.stdout
    assert "coordinator" not in supervisor.stdout
    coordinator = run("graph", "--mode", "coordinator")
    assert coordinator.exit_code == 0 and "coordinator" in coordinator.stdout
