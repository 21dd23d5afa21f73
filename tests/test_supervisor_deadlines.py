"""Supervisor mode (seed 004): the decision timeout, and the turn's deadline carried into nested calls.

``CADENCE_COORDINATOR_TIMEOUT`` bounds every mode's deciding call, the supervisor's included: a slow
decision finalizes with what the turn has (recorded in the trace). The agents' subgraphs and their tools
are bounded by the turn's remaining time (``TurnContext.budget``), not by the decision timeout.
"""

from __future__ import annotations

import asyncio
import re
import time

from tests.conftest import call, transfer

from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, tool

RESERVE = 0.25
"""The final answer's reserve as a share of a short turn (``TurnContext.final_reserve``)."""
SLACK = 0.6
"""Seconds allowed on top of a computed bound (a shared, loaded machine)."""


def nodes(model) -> list[str]:
    return [r.node for r in model.records]


def model_call(result, node: str) -> dict:
    return next(c for c in result.trace["model_calls"] if c["node"] == node)


# -- the supervisor's decision ------------------------------------------------------------------------------
async def test_a_slow_supervisor_decision_times_out_and_the_turn_still_answers(engine_factory) -> None:
    engine, model = engine_factory(
        [{**transfer("math"), "delay_s": 5}, {"content": "I could not get to it in time."}],
        mode="supervisor",
        coordinator_timeout=0.3,
    )
    started = time.monotonic()
    result = await engine.ainvoke("Calculate 15 * 23")
    assert time.monotonic() - started < 0.3 + 2.0  # not the 5 s the decision would have taken
    # the fallback of the coordinator: finalize with what there is (nothing yet), the synthesizer answers
    assert nodes(model) == ["supervisor", "synthesizer"]
    assert result.response == "I could not get to it in time." and result.error is None
    assert result.trace["routing_history"] == [] and result.trace["mode"] == "supervisor"
    [error] = [e for e in result.trace["errors"] if e["code"] == "coordinator_timeout"]
    assert error["node"] == "supervisor" and "supervisor's decision timed out after 0.3s" in error["message"]
    assert any("supervisor's decision timed out" in note for note in result.trace["notes"])
    # the cut call is in the trace's model calls too (with how long it ran), before the synthesizer's
    cut = model_call(result, "supervisor")
    assert cut["error"].startswith("cancelled") and 250 <= cut["duration_ms"] < 2300
    assert [c["node"] for c in result.trace["model_calls"]] == ["supervisor", "synthesizer"]


async def test_a_slow_decision_after_agent_work_finalizes_with_what_the_agent_found(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="15 * 23"),
            {"content": "15 * 23 = 345"},
            {"tool_calls": [{"name": "forward_message", "args": {"from_agent": "math"}}], "delay_s": 5},
            {"content": "15 * 23 is 345."},
        ],
        mode="supervisor",
        coordinator_timeout=0.5,
        supervisor_direct_answer=False,  # the answer goes back to the supervisor, which is slow
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    assert nodes(model) == ["supervisor", "math_agent", "math_agent", "supervisor", "synthesizer"]
    assert result.response == "15 * 23 is 345." and result.error is None
    assert result.trace["routing_history"] == ["math"]
    assert result.trace["tools_used"][0]["result"] == "345"
    assert [e["node"] for e in result.trace["errors"] if e["code"] == "coordinator_timeout"] == ["supervisor"]
    # the synthesizer wrote the answer from the agent's work
    synth = model.records[-1].messages
    assert any("345" in str(m.content) for m in synth[1:])


async def test_the_decision_timeout_is_bounded_by_the_turns_deadline(engine_factory) -> None:
    turn = 2.0
    engine, model = engine_factory(
        [{**transfer("math"), "delay_s": 60}, {"content": "Out of time."}],
        mode="supervisor",
        coordinator_timeout=30,
        model_timeout=60,
        turn_timeout=turn,
    )
    started = time.monotonic()
    result = await engine.ainvoke("Calculate 15 * 23")
    elapsed = time.monotonic() - started
    assert elapsed < turn * (1 - RESERVE) + SLACK  # the decision stopped where the turn's work time ends
    assert nodes(model) == ["supervisor", "synthesizer"] and result.response == "Out of time."
    assert any(e["node"] == "supervisor" for e in result.trace["errors"])


# -- nested calls: the agents' model calls and tools get the turn's remaining time -----------------------------
async def test_the_decision_timeout_does_not_bound_the_agents_calls(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            {**call("calculate", expression="15 * 23"), "delay_s": 0.8},  # longer than the decision timeout
            {"content": "15 * 23 = 345"},
        ],
        mode="supervisor",
        coordinator_timeout=0.3,
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    assert result.response == "15 * 23 = 345" and result.trace["errors"] == []
    assert nodes(model) == ["supervisor", "math_agent", "math_agent"]


async def test_a_nested_agent_call_near_the_deadline_gets_only_the_remaining_time(engine_factory) -> None:
    turn, decision = 3.0, 1.0
    engine, model = engine_factory(
        [
            # within the decision timeout; spends a third of the turn
            {**transfer("math"), "delay_s": decision},
            {**call("calculate", expression="15 * 23"), "delay_s": 30},  # the agent's model hangs
            {"content": "I ran out of time before the calculation."},
        ],
        mode="supervisor",
        model_timeout=60,  # so only the turn's deadline can cut the agent's call
        turn_timeout=turn,
    )
    started = time.monotonic()
    result = await engine.ainvoke("Calculate 15 * 23")
    elapsed = time.monotonic() - started
    assert elapsed < turn + SLACK
    agent_call = model_call(result, "math_agent")
    # what was left of the turn's work time after the decision, not the 60 s model timeout
    spent = model_call(result, "supervisor")["duration_ms"] / 1000
    assert spent >= decision
    remaining = turn * (1 - RESERVE) - spent
    assert agent_call["error"] and agent_call["duration_ms"] / 1000 <= remaining + 0.3
    assert agent_call["duration_ms"] / 1000 >= remaining - SLACK
    assert any(e["node"] == "math_agent" and e["code"] == "turn_timeout" for e in result.trace["errors"])
    # the supervisor suspended at its visit without another model call; the turn still answers
    assert nodes(model) == ["supervisor", "math_agent", "suspend"]
    assert result.trace["suspend_reason"] == "deadline"
    assert result.response.startswith("I ran out of time before the calculation.")


@tool
async def wait(seconds: float) -> str:
    """Wait for a number of seconds."""
    await asyncio.sleep(seconds)
    return "done waiting"


class _SlowAgent(BaseAgent):
    def get_tools(self):
        return [wait]

    def get_system_prompt(self) -> str:
        return "slow agent"


class SlowPlugin(BasePlugin):
    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        return PluginMetadata(name="slow", version="1.0", description="A tool that takes long.")

    @classmethod
    def create_agent(cls) -> BaseAgent:
        return _SlowAgent(cls.get_metadata())


async def test_a_nested_tool_call_gets_only_the_remaining_time(engine_factory) -> None:
    turn = 2.0
    engine, model = engine_factory(
        [transfer("slow"), call("wait", seconds=30), {"content": "The wait did not finish in time."}],
        plugins=[SlowPlugin],
        builtin_plugins=[],
        mode="supervisor",
        tool_timeout=30,  # so only the turn's deadline can cut the tool
        turn_timeout=turn,
    )
    started = time.monotonic()
    result = await engine.ainvoke("Wait for a while")
    assert time.monotonic() - started < turn + SLACK
    [used] = result.trace["tools_used"]
    budget = float(re.search(r"did not finish within ([\d.]+)s", used["error"]).group(1))
    assert budget <= turn * (1 - RESERVE)  # the turn's remaining work time, not the 30 s tool timeout
    # the agent's loop ended at the deadline; the supervisor suspended without a model call
    assert nodes(model) == ["supervisor", "slow_agent", "suspend"]
    assert result.trace["suspend_reason"] == "deadline"
    assert result.response.startswith("The wait did not finish in time.")
