"""Supervisor mode (seed 004): probed edge cases of forward_message, failed agents and the trace's notes."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import transfer


def forward(agent: Any) -> dict[str, Any]:
    """A scripted supervisor decision passing ``agent``'s answer on verbatim."""
    return {"tool_calls": [{"name": "forward_message", "args": {"from_agent": agent}}]}


def nodes(model) -> list[str]:
    return [r.node for r in model.records]


# -- forward_message names the agent as the model sees it -----------------------------------------------
@pytest.mark.parametrize("name", ["math", "math_agent", "Math Agent", "transfer_to_math", " MATH "])
async def test_forward_message_accepts_the_agents_node_and_handoff_names(engine_factory, name) -> None:
    # the history names the agent's messages "math_agent" (langgraph-supervisor's agents are named so)
    engine, model = engine_factory(
        [transfer("math"), {"content": "It is 4."}, forward(name)],
        mode="supervisor",
    )
    result = await engine.ainvoke("What is 2+2?")
    assert nodes(model) == ["supervisor", "math_agent", "supervisor"]  # no synthesizer call
    assert result.response == "It is 4." and result.trace["answered_by"] == "forward"
    assert not any("no answer of agent" in n for n in result.trace["notes"])


async def test_forward_message_of_an_unknown_agent_is_still_synthesized(engine_factory) -> None:
    engine, model = engine_factory(
        [transfer("math"), {"content": "It is 4."}, forward("planner_agent"), {"content": "4."}],
        mode="supervisor",
    )
    result = await engine.ainvoke("What is 2+2?")
    assert nodes(model)[-1] == "synthesizer" and result.response == "4."
    assert any("no answer of agent 'planner_agent'" in n for n in result.trace["notes"])
