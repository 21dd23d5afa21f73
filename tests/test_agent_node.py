"""An agent's node: a plugin's own node (an override of ``create_agent_node``) is contained like its other code."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage
from tests.conftest import FINALIZE, goto, make_settings, transfer
from tests.test_server_support import live_server

from cadence.orchestration.engine import Cadence, thread_key
from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata
from cadence.server import create_app
from cadence.testing import ScriptedChatModel


class Boom(BaseException):
    """A plugin's own ``BaseException`` subclass."""


FAULTS: dict[str, type[BaseException]] = {
    "exit": SystemExit,
    "interrupt": KeyboardInterrupt,
    "generator_exit": GeneratorExit,  # raised by the plugin: not the close of a coroutine
    "own": Boom,
    "error": RuntimeError,
}


def wrapping_plugin(fault: type[BaseException]) -> type[BasePlugin]:
    """A plugin whose ``create_agent_node`` override raises ``fault`` from its node."""

    class WrappingAgent(BaseAgent):
        def get_tools(self) -> list[Any]:
            return []

        def get_system_prompt(self) -> str:
            return "Wraps the runner."

        def create_agent_node(self, run: Any, node_name: str) -> Any:
            async def node(state: dict[str, Any], config: Any, runtime: Any) -> dict[str, Any]:
                raise fault("from the plugin's node")

            return node

    class WrappingPlugin(BasePlugin):
        @classmethod
        def get_metadata(cls) -> PluginMetadata:
            return PluginMetadata(name="wrap", version="1.0.0", description="Wraps its agent node.")

        @classmethod
        def create_agent(cls) -> BaseAgent:
            return WrappingAgent(cls.get_metadata())

    return WrappingPlugin


SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "coordinator": [goto("wrap"), FINALIZE, {"content": "The agent failed."}],
    "supervisor": [transfer("wrap"), FINALIZE, {"content": "The agent failed."}],
    "single": [],
}


@pytest.mark.parametrize("mode", list(SCRIPTS))
@pytest.mark.parametrize("fault", list(FAULTS))
async def test_a_fault_in_a_plugins_own_node_is_the_agents_failed_step(mode: str, fault: str) -> None:
    model = ScriptedChatModel.from_items(SCRIPTS[mode])
    extra = {"agent": "wrap"} if mode == "single" else {}
    engine = Cadence(
        make_settings(builtin_plugins=[], mode=mode, **extra),
        model=model,
        plugins=[wrapping_plugin(FAULTS[fault])],
    )
    result = await engine.ainvoke("Use the wrapping agent.", thread_id="t")
    errors = [e for e in result.trace["errors"] if e["code"] == "agent_error"]
    assert errors and errors[0]["message"] == f"{FAULTS[fault].__name__}: from the plugin's node"
    if mode == "single":  # the only agent failed: the fallback answer, and the turn is a failed one
        assert result.error is not None and result.error["code"] == "agent_error"
        assert result.response.startswith("Sorry, I couldn't finish this answer")
    else:
        assert result.error is None and result.response == "The agent failed."
    state = await engine.graph_for(mode).aget_state({"configurable": {"thread_id": thread_key("local", "t")}})
    last = state.values["messages"][-1]
    assert isinstance(last, AIMessage) and not last.tool_calls  # the thread ends with an answer


def test_the_server_survives_a_plugins_node_raising_system_exit() -> None:
    model = ScriptedChatModel.from_items([goto("wrap"), FINALIZE, {"content": "The agent failed."}])
    app = create_app(
        make_settings(builtin_plugins=[]),
        engine_kwargs={"model": model, "plugins": [wrapping_plugin(SystemExit)]},
    )
    with live_server(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        resp = client.post("/api/v1/chat", json={"message": "Use the wrapping agent."})
        assert resp.status_code == 200 and resp.json()["response"] == "The agent failed."
        assert client.get("/health").status_code == 200


async def test_calls_sharing_an_id_get_their_own_ids_and_results() -> None:
    """A model giving two calls one id: each gets a result of its own (one was lost in the trace)."""
    same = [{"name": "calculate", "args": {"expression": e}, "id": "same"} for e in ("1 + 1", "2 + 2")]
    model = ScriptedChatModel.from_items(
        [goto("math"), {"tool_calls": same}, FINALIZE, {"content": "2 and 4."}]
    )
    engine = Cadence(make_settings(builtin_plugins=["math"]), model=model)
    result = await engine.ainvoke("1 + 1 and 2 + 2?", thread_id="t")
    assert sorted(r["result"] for r in result.trace["tools_used"]) == ["2", "4"]
    state = await engine.graph.aget_state({"configurable": {"thread_id": thread_key("local", "t")}})
    ids = [c["id"] for m in state.values["messages"] if isinstance(m, AIMessage) for c in m.tool_calls]
    assert len(ids) == len(set(ids))
