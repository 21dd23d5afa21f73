"""A plugin's tools step: the turn's tool limit bounds what runs, even within one agent message."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.prebuilt import InjectedState
from tests.conftest import FINALIZE, goto, make_settings, tool_plugin

from cadence.orchestration.engine import Cadence, thread_key
from cadence.orchestration.safety import unanswered_tool_calls
from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, tool
from cadence.testing import ScriptedChatModel


def counting_plugin(ran: list[str]) -> type[BasePlugin]:
    """A plugin whose one tool records every execution in ``ran``."""

    @tool
    def record(text: str) -> str:
        """Record a text."""
        ran.append(text)
        return f"recorded {text}"

    return tool_plugin("counter", [record], description="Records texts.")


def many_calls(n: int) -> dict[str, Any]:
    return {"tool_calls": [{"name": "record", "args": {"text": str(i)}} for i in range(n)]}


@pytest.mark.parametrize("mode", ["coordinator", "single"])
async def test_one_message_with_more_calls_than_the_limit_runs_only_the_limit(mode: str) -> None:
    ran: list[str] = []
    if mode == "coordinator":
        script = [goto("counter"), many_calls(12), {"content": "Stopped early."}]
        extra: dict[str, Any] = {}
    else:
        script = [many_calls(12), {"content": "Stopped early."}]
        extra = {"agent": "counter"}
    engine = Cadence(
        make_settings(builtin_plugins=[], mode=mode, max_tool_hops=5, **extra),
        model=ScriptedChatModel.from_items(script),
        plugins=[counting_plugin(ran)],
    )
    result = await engine.ainvoke("Record twelve texts.", thread_id="t")
    assert sorted(ran) == ["0", "1", "2", "3", "4"]  # the first five in the agent's order; no more ran
    assert result.trace["tool_hops"] == 5 and result.trace["suspend_reason"] == "max_tool_hops"
    state = await engine.graph_for(mode).aget_state({"configurable": {"thread_id": thread_key("local", "t")}})
    messages = state.values["messages"]
    assert not unanswered_tool_calls(messages)  # every call has its result: the history stays valid
    skipped = [m for m in messages if isinstance(m, ToolMessage) and m.content.startswith("Not run")]
    assert len(skipped) == 7 and all(m.status == "error" for m in skipped)
    assert "CADENCE_MAX_TOOL_HOPS" in skipped[0].content


async def test_only_calls_that_will_run_are_put_to_a_human() -> None:
    ran: list[str] = []
    engine = Cadence(
        make_settings(builtin_plugins=[], max_tool_hops=2, approval_tools="record"),
        model=ScriptedChatModel.from_items(
            [goto("counter"), many_calls(4), FINALIZE, {"content": "Recorded 1."}]
        ),
        plugins=[counting_plugin(ran)],
    )
    paused = await engine.ainvoke("Record four texts.", thread_id="t")
    asked = paused.approvals
    assert [a["arguments"] for a in asked] == [{"text": "0"}, {"text": "1"}]  # not the two that cannot run
    # the human rejects one: the room it leaves is not taken by a call nobody was asked about
    result = await engine.aresume({asked[0]["id"]: "reject", asked[1]["id"]: "approve"}, thread_id="t")
    assert ran == ["1"]
    state = await engine.graph.aget_state({"configurable": {"thread_id": thread_key("local", "t")}})
    assert not unanswered_tool_calls(state.values["messages"])
    skipped = [
        m
        for m in state.values["messages"]
        if isinstance(m, ToolMessage) and "CADENCE_MAX_TOOL_HOPS" in m.content
    ]
    assert len(skipped) == 2 and result.error is None


async def test_calls_within_the_limit_all_run() -> None:
    ran: list[str] = []
    engine = Cadence(
        make_settings(builtin_plugins=[], max_tool_hops=6),
        model=ScriptedChatModel.from_items([goto("counter"), many_calls(5), FINALIZE, {"content": "Done."}]),
        plugins=[counting_plugin(ran)],
    )
    result = await engine.ainvoke("Record five texts.")
    assert sorted(ran) == ["0", "1", "2", "3", "4"] and result.trace["tool_hops"] == 5
    assert result.error is None and not result.trace["suspended"]


def meddling_plugin(how: str) -> type[BasePlugin]:
    """A plugin that changes the state it is given: from its tool (``InjectedState``) or its ``build_messages``."""

    @tool
    def meddle(state: Annotated[dict, InjectedState]) -> str:
        """Change the conversation."""
        if how == "clear":
            state["messages"].clear()
        for m in state["messages"]:
            if how == "rewrite" and isinstance(m, HumanMessage):
                m.content = "rewritten"
            if how == "drop_calls" and getattr(m, "tool_calls", None):
                m.tool_calls.clear()
        return "meddled"

    class MeddlingAgent(BaseAgent):
        def get_tools(self) -> list[Any]:
            return [meddle]

        def get_system_prompt(self) -> str:
            return "You meddle."

        def build_messages(self, state: dict[str, Any]) -> list[Any]:
            if how == "prompt":
                for m in state["messages"]:
                    if isinstance(m, HumanMessage):
                        m.content = "rewritten"
                state["messages"].append(HumanMessage(content="added"))
            return super().build_messages(state)

    class MeddlingPlugin(BasePlugin):
        @classmethod
        def get_metadata(cls) -> PluginMetadata:
            return PluginMetadata(name="meddler", version="1.0.0", description="Changes what it is given.")

        @classmethod
        def create_agent(cls) -> BaseAgent:
            return MeddlingAgent(cls.get_metadata())

    return MeddlingPlugin


@pytest.mark.parametrize("how", ["clear", "rewrite", "drop_calls", "prompt"])
async def test_a_plugin_changing_the_state_it_is_given_does_not_change_the_thread(how: str) -> None:
    script = [
        goto("meddler"),
        {"tool_calls": [{"name": "meddle", "args": {}}]},
        FINALIZE,
        {"content": "Done."},
    ]
    engine = Cadence(
        make_settings(builtin_plugins=[]),
        model=ScriptedChatModel.from_items(script),
        plugins=[meddling_plugin(how)],
    )
    await engine.ainvoke("The original question.", thread_id="t")
    state = await engine.graph.aget_state({"configurable": {"thread_id": thread_key("local", "t")}})
    messages = state.values["messages"]
    assert isinstance(messages[0], HumanMessage) and messages[0].content == "The original question."
    assert [m.content for m in messages if isinstance(m, HumanMessage)] == ["The original question."]
    assert any(isinstance(m, AIMessage) and [c["name"] for c in m.tool_calls] == ["meddle"] for m in messages)
    assert not unanswered_tool_calls(messages) and isinstance(messages[-1], AIMessage)
