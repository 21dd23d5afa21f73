"""The supervisor's handoff tools, ``transfer_to_{name}`` (langgraph-supervisor's naming), beside the
coordinator's ``goto_{name}_agent``: both built by ``make_routing_tools``, both routing by ``Command``,
and recognised by name in either form (a history keeps only names)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.types import Command
from tests.conftest import FINALIZE, call, goto, make_settings, transfer

from cadence.conventions import (
    CONTROL_METADATA_KEY,
    FINALIZE_TOOL,
    HANDOFF_PREFIX,
    ROUTE_TEXT_METADATA_KEY,
    agent_from_route,
    handoff_tool_name,
    is_control_tool,
    is_reserved_tool_name,
    is_route_tool,
    route_core,
    route_tool_name,
)
from cadence.models.preroute import PreRouter
from cadence.orchestration.control_tools import is_control_tool_object, make_routing_tools
from cadence.orchestration.coordinator import RoutingCoordinator
from cadence.orchestration.modes.supervisor import Supervisor, supervisor_view
from cadence.orchestration.safety import strip_control_messages
from cadence.plugins.bundle import PluginBundle, PluginSource
from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, tool
from cadence.testing import ScriptedChatModel

MATH = PluginMetadata(
    name="math",
    version="1",
    description="Calculator for numbers and percentages",
    capabilities=["arithmetic", "percentages"],
)
INFO = PluginMetadata(name="info", version="1", description="Clock and facts about the Cadence framework")


def forward(agent: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "forward_message", "args": {"from_agent": agent}}]}


# -- naming and recognisers ---------------------------------------------------------------------------
def test_the_handoff_naming_beside_the_routing_naming() -> None:
    assert HANDOFF_PREFIX == "transfer_to_"
    assert handoff_tool_name("math") == "transfer_to_math" == route_tool_name("math", "transfer")
    assert route_tool_name("math") == "goto_math_agent" == route_tool_name("math", "goto")
    with pytest.raises(ValueError, match="naming"):
        route_tool_name("math", "swarm")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["goto_math_agent", "transfer_to_math"])
def test_the_recognisers_accept_both_forms(name: str) -> None:
    assert is_route_tool(name) and is_control_tool(name) and is_reserved_tool_name(name)
    assert route_core(name) == "math"
    assert agent_from_route(name, ["math", "info"]) == "math"
    assert agent_from_route(name, ["info"]) is None  # an agent that is not there


def test_the_recognisers_keep_finalize_and_reject_other_names() -> None:
    assert is_route_tool(FINALIZE_TOOL) and route_core(FINALIZE_TOOL) == "finalize"
    assert agent_from_route(FINALIZE_TOOL, ["finalize"]) is None
    assert route_core("transfer_to_meeting_notes") == "meeting_notes"
    for name in ("transfer_to_", "goto__agent", "calculate", "transfer", "math_agent", "", None):
        assert agent_from_route(name, ["math", ""]) is None
    for name in ("calculate", "transfer", "to_math", None):
        assert not is_route_tool(name) and not is_control_tool(name)
    assert route_core("calculate") == "calculate"
    assert is_control_tool("back") and is_control_tool("forward_message")


def test_a_plugin_tool_may_not_take_a_handoff_name() -> None:
    @tool
    def transfer_to_bank(amount: int) -> str:
        """Moves money (a work tool whose name would read as a handoff)."""
        return str(amount)

    class BankAgent(BaseAgent):
        def get_tools(self) -> list[Any]:
            return [transfer_to_bank]

        def get_system_prompt(self) -> str:
            return "You move money."

    class BankPlugin(BasePlugin):
        @classmethod
        def get_metadata(cls) -> PluginMetadata:
            return PluginMetadata(name="bank", version="1", description="Moves money between accounts.")

        @classmethod
        def create_agent(cls) -> BaseAgent:
            return BankAgent(cls.get_metadata())

    with pytest.raises(ValueError, match="transfer_to_"):
        PluginBundle(BankPlugin, BankPlugin.get_metadata(), PluginSource("registered", "test"))


# -- the tools --------------------------------------------------------------------------------------
async def test_handoff_tools_route_by_command_and_are_control_tools() -> None:
    handoff, finalize = make_routing_tools([MATH], naming="transfer")
    assert (handoff.name, finalize.name) == ("transfer_to_math", "goto_finalize")
    assert all(is_control_tool_object(t) for t in (handoff, finalize))
    assert handoff.metadata[CONTROL_METADATA_KEY] is True
    route_text = handoff.metadata[ROUTE_TEXT_METADATA_KEY]
    assert "Calculator for numbers" in route_text and "percentages" in route_text
    command = await handoff.ainvoke({"name": handoff.name, "args": {}, "id": "call_1", "type": "tool_call"})
    assert isinstance(command, Command) and command.goto == "math_agent"
    [message] = command.update["messages"]
    assert isinstance(message, ToolMessage)
    assert (message.content, message.name, message.tool_call_id) == ("math", "transfer_to_math", "call_1")
    # the coordinator's naming is the default, built by the same code
    goto_route, _ = make_routing_tools([MATH])
    assert goto_route.name == "goto_math_agent"
    assert goto_route.metadata[ROUTE_TEXT_METADATA_KEY] == route_text


def test_the_supervisor_binds_handoff_tools_and_the_coordinator_routing_tools() -> None:
    settings = make_settings()
    model = ScriptedChatModel.from_items([])
    supervisor = Supervisor(model, [MATH, INFO], settings)
    assert [t.name for t in supervisor.tools] == [
        "transfer_to_math",
        "transfer_to_info",
        "goto_finalize",
        "forward_message",
    ]
    assert all(is_control_tool_object(t) for t in supervisor.tools)
    assert all(ROUTE_TEXT_METADATA_KEY in t.metadata for t in supervisor.tools[:2])
    assert (
        "transfer_to_math | transfer_to_info" in supervisor.prompt
        and "goto_math_agent" not in supervisor.prompt
    )
    coordinator = RoutingCoordinator(model, [MATH, INFO], settings)
    assert [t.name for t in coordinator.tools] == ["goto_math_agent", "goto_info_agent", "goto_finalize"]
    assert "goto_math_agent" in coordinator.prompt and "transfer_to_" not in coordinator.prompt


def test_the_prerouter_names_candidates_as_bound() -> None:
    assert PreRouter.from_metadata([MATH]).rank("15% of 80")[0].name == "goto_math_agent"
    assert PreRouter.from_metadata([MATH], naming="transfer").rank("15% of 80")[0].name == "transfer_to_math"


# -- in a turn --------------------------------------------------------------------------------------
async def test_a_handoff_by_transfer_to_math_runs_the_math_agent_and_comes_back(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="15 * 23"),
            {"content": "It is 345."},
            FINALIZE,
            {"content": "15 * 23 = 345."},
        ],
        mode="supervisor",
        supervisor_direct_answer=False,
    )
    result = await engine.ainvoke("Calculate 15 * 23", thread_id="h1")
    assert result.response == "15 * 23 = 345."
    assert [r.node for r in model.records] == [
        "supervisor",
        "math_agent",
        "math_agent",
        "supervisor",
        "synthesizer",
    ]
    assert result.trace["routing_history"] == ["math"] and result.trace["agent_hops"] == 1
    assert [t["result"] for t in result.trace["tools_used"]] == ["345"]
    # the supervisor was given its handoff tools, and saw its own handoff when the agent came back
    assert set(model.records[0].tools) == {"transfer_to_math", "transfer_to_info", "transfer_to_docs",
                                           "goto_finalize", "forward_message"}  # fmt: skip
    back = model.records[3]
    assert any(isinstance(m, ToolMessage) and m.name == "transfer_to_math" for m in back.messages)
    assert any(isinstance(m, AIMessage) and m.content == "It is 345." for m in back.messages)
    # the agent never sees the handoff (a control tool) in its own history
    agent_seen = model.records[1].messages
    assert not any(c["name"] == "transfer_to_math" for m in agent_seen for c in getattr(m, "tool_calls", []))
    state = await engine.graph.aget_state({"configurable": {"thread_id": "local::h1"}})
    routed = [(m.name, m.content) for m in state.values["messages"] if isinstance(m, ToolMessage)]
    assert routed[0] == ("transfer_to_math", "math") and routed[-1] == ("goto_finalize", "finalize")


async def test_the_supervisor_does_not_route_by_the_coordinators_naming(engine_factory) -> None:
    # goto_math_agent is not a tool the supervisor was given: answered with an error, then finalized
    engine, model = engine_factory([goto("math"), {"content": "No agent ran."}], mode="supervisor")
    result = await engine.ainvoke("Calculate 15 * 23", thread_id="h2")
    assert result.response == "No agent ran." and result.trace["routing_history"] == []
    assert [r.node for r in model.records] == ["supervisor", "synthesizer"]
    state = await engine.graph.aget_state({"configurable": {"thread_id": "local::h2"}})
    [error] = [m for m in state.values["messages"] if isinstance(m, ToolMessage)]
    assert error.status == "error" and "goto_math_agent is not a valid tool" in str(error.content)
    assert "transfer_to_math" in str(error.content)


async def test_the_coordinator_keeps_its_naming(engine_factory) -> None:
    engine, model = engine_factory([transfer("math"), {"content": "No agent ran."}])
    result = await engine.ainvoke("Calculate 15 * 23", thread_id="h3")
    assert result.trace["mode"] == "coordinator" and result.trace["routing_history"] == []
    assert "goto_math_agent" in model.records[0].tools
    assert not any(t.startswith("transfer_to_") for t in model.records[0].tools)


def test_views_of_a_history_drop_handoffs_of_either_naming() -> None:
    history = [
        HumanMessage("2+2?"),
        AIMessage("", tool_calls=[{"name": "goto_math_agent", "args": {}, "id": "g"}], name="coordinator"),
        ToolMessage("math", tool_call_id="g", name="goto_math_agent"),
        AIMessage("4", name="math_agent"),
        HumanMessage("3+3?"),
        AIMessage("", tool_calls=[{"name": "transfer_to_math", "args": {}, "id": "t"}], name="supervisor"),
        ToolMessage("math", tool_call_id="t", name="transfer_to_math"),
        AIMessage(
            "",
            tool_calls=[{"name": "calculate", "args": {"expression": "3+3"}, "id": "c"}],
            name="math_agent",
        ),
        ToolMessage("6", tool_call_id="c", name="calculate"),
        AIMessage("6", name="math_agent"),
    ]
    stripped = strip_control_messages(history)
    assert not any(isinstance(m, ToolMessage) and is_route_tool(m.name) for m in stripped)
    assert [m.content for m in stripped if isinstance(m, ToolMessage)] == ["6"]
    # last_message: the agent's intermediate step goes, the handoffs (control tools) stay
    view = supervisor_view(history, "last_message", handoff_messages=True)
    assert [m.name for m in view if isinstance(m, ToolMessage)] == ["goto_math_agent", "transfer_to_math"]
    bare = supervisor_view(history, "last_message", handoff_messages=False)
    assert not any(isinstance(m, ToolMessage) or getattr(m, "tool_calls", None) for m in bare)
    assert [m.content for m in bare] == ["2+2?", "4", "3+3?", "6"]
