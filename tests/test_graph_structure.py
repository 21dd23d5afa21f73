"""The compiled graph's nodes and edges are those the seeds draw."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tests.conftest import FINALIZE, call, goto, make_settings, transfer

from cadence.orchestration.engine import Cadence
from cadence.orchestration.modes import MODES
from cadence.orchestration.state import AgentState, PlannerState
from cadence.testing import ScriptedChatModel


def test_nodes_and_edges_match_the_seeds() -> None:
    engine = Cadence(make_settings(builtin_plugins=["math", "info"]), model=ScriptedChatModel.from_items([]))
    g = engine.graph.get_graph()
    assert set(g.nodes) == {
        "__start__", "__end__", "coordinator", "control_tools", "suspend", "synthesizer",
        "math_agent", "math_tools", "info_agent", "info_tools",
    }  # fmt: skip
    edges = {(e.source, e.target, e.conditional) for e in g.edges}
    expected = {
        ("__start__", "coordinator", False),
        ("coordinator", "control_tools", True),
        ("coordinator", "suspend", True),
        ("coordinator", "synthesizer", True),
        ("control_tools", "math_agent", True),
        ("control_tools", "info_agent", True),
        ("control_tools", "synthesizer", True),
        ("math_agent", "math_tools", True),
        ("math_agent", "coordinator", True),
        ("info_agent", "info_tools", True),
        ("info_agent", "coordinator", True),
        ("math_tools", "coordinator", False),
        ("info_tools", "coordinator", False),
        ("suspend", "__end__", False),
        ("synthesizer", "__end__", False),
    }
    assert edges == expected
    # no tools -> agent edge (the circular routing the seeds removed)
    assert ("math_tools", "math_agent") not in {(s, t) for s, t, _ in edges}


def test_mermaid_drawing() -> None:
    engine = Cadence(make_settings(builtin_plugins=["math"]), model=ScriptedChatModel.from_items([]))
    diagram = engine.draw_mermaid()
    assert diagram.lstrip().startswith("---") or "graph TD" in diagram
    for node in ("coordinator", "control_tools", "suspend", "synthesizer", "math_agent", "math_tools"):
        assert node in diagram


def test_coordinator_prompt_lists_plugins_and_routes() -> None:
    model = ScriptedChatModel.from_items(
        [{"tool_calls": [{"name": "goto_finalize", "args": {}}]}, {"content": "ok"}]
    )
    engine = Cadence(make_settings(builtin_plugins=["math", "info"]), model=model)
    engine.invoke("hello")
    coord = model.records[0]
    prompt = str(coord.messages[0].content)
    assert "goto_math_agent" in prompt and "goto_info_agent" in prompt and "goto_finalize" in prompt
    assert engine.plugin_manager.bundles["math"].metadata.description in prompt
    assert sorted(coord.tools) == ["goto_finalize", "goto_info_agent", "goto_math_agent"]


# -- every step runs on the event loop -----------------------------------------------------------
PLAN = {"tool_calls": [{"name": "make_plan", "args": {"thought": "t", "delegate_to": "researcher", "tools": [
    {"name": "calculate", "args": {"expression": "15 * 23"}}
]}}]}  # fmt: skip
TOOL_TURNS: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {
    "coordinator": (
        {},
        [goto("math"), call("calculate", expression="15 * 23"), FINALIZE, {"content": "345"}],
    ),
    "supervisor": (
        {},
        [transfer("math"), call("calculate", expression="15 * 23"), {"content": "15 * 23 = 345"}],
    ),
    "planner": ({}, [PLAN, {"content": "15 * 23 = 345"}]),
    "single": ({"agent": "math"}, [call("calculate", expression="15 * 23"), {"content": "15 * 23 = 345"}]),
}


@pytest.mark.parametrize("mode", sorted(MODES))
async def test_a_tool_turn_never_leaves_the_event_loop_for_the_graph(mode: str) -> None:
    """Edges and nodes are coroutines: LangGraph runs a sync one in the default thread pool.

    The plugin's synchronous tool runs in its plugin's own pool (``containment``), which is not
    ``loop.run_in_executor``; so a turn in any mode makes no default-executor hop at all.
    """
    overrides, script = TOOL_TURNS[mode]
    engine = Cadence(make_settings(mode=mode, **overrides), model=ScriptedChatModel.from_items(script))
    loop = asyncio.get_running_loop()
    hops: list[Any] = []
    original = loop.run_in_executor

    def counting(executor: Any, func: Any, *args: Any) -> Any:
        hops.append(func)
        return original(executor, func, *args)

    loop.run_in_executor = counting  # type: ignore[method-assign]
    try:
        result = await engine.ainvoke("Calculate 15 * 23")
    finally:
        loop.run_in_executor = original  # type: ignore[method-assign]
    assert result.error is None and "345" in result.response
    assert result.trace["tool_hops"] >= 1
    assert hops == []


def test_only_the_planner_mode_carries_the_planners_state_channels() -> None:
    engine = Cadence(make_settings(builtin_plugins=["math"]), model=ScriptedChatModel.from_items([]))
    shared = set(AgentState.__annotations__)
    planner_only = set(PlannerState.__annotations__) - shared
    assert len(shared) == 8 and "messages" in shared and "plugin_context" in shared
    assert planner_only == {
        "thought",
        "scratchpad",
        "route",
        "planned_tools",
        "tool_results",
        "research_iterations",
    }
    for mode in MODES:
        channels = {c for c in engine.graph_for(mode).channels if not c.startswith(("__", "branch:"))}
        assert channels == (shared | planner_only if mode == "planner" else shared), mode
