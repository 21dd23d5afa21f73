"""Probes of the single mode's tool loop: a loop that never ends stops at the configured tool limit."""

from __future__ import annotations

import pytest
from tests.conftest import call, transfer


@pytest.mark.parametrize(
    ("mode", "opening", "limits"),
    [
        ("single", [], {"max_agent_hops": 3}),  # few agent routes: the single mode makes one
        ("single", [], {"max_tool_hops": 80}),  # more tool hops than the agent-hop budget covered
        ("supervisor", [transfer("math")], {"max_agent_hops": 3}),
    ],
)
async def test_an_endless_tool_loop_suspends_at_the_tool_limit(engine_factory, mode, opening, limits) -> None:
    # the model calls a tool forever: the max_tool_hops guard ends the turn (it was a raw
    # GraphRecursionError, an internal_error, since the recursion limit counted agent hops only)
    script = [*opening, *[call("calculate", expression=f"{i} + 1") for i in range(120)]]
    engine, _ = engine_factory([*script, {"content": "Stopped."}], mode=mode, agent="math", **limits)
    result = await engine.ainvoke("count up forever")
    assert (result.error or {}).get("code") != "internal_error", result.error
    assert result.trace["suspend_reason"] == "max_tool_hops"
