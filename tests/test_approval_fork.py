"""Inspection and time travel: a thread's history, forks that force a route or replace a tool result."""

from __future__ import annotations

import pytest
from langchain_core.messages import ToolMessage
from tests.conftest import FINALIZE, call, goto, transfer

from cadence.errors import NotFoundError, ValidationError


def _results(record, name: str) -> list[str]:
    return [str(m.content) for m in record.messages if isinstance(m, ToolMessage) and m.name == name]


async def test_history_lists_every_step_with_calls_and_results(engine_factory) -> None:
    engine, _ = engine_factory(
        [goto("math"), call("calculate", expression="2 + 2"), FINALIZE, {"content": "4"}],
        checkpoint_durability="sync",
    )
    await engine.ainvoke("2 + 2?", thread_id="h")
    entries = await engine.history(thread_id="h")
    # the coordinator answers its routing call in its own step (no control_tools step)
    assert [e["node"] for e in entries][:6] == [
        "synthesizer",
        "coordinator",
        "math_tools",
        "math_agent",
        "coordinator",
        "__start__",
    ]
    tools = next(e for e in entries if e["node"] == "math_tools")
    assert tools["next"] == ["coordinator"]
    [result] = tools["messages"]
    assert result["role"] == "tool" and result["content"] == "4" and result["tool_call_id"]
    agent = next(e for e in entries if e["node"] == "math_agent")
    assert agent["messages"][0]["tool_calls"][0] == {
        "id": result["tool_call_id"],
        "name": "calculate",
        "args": {"expression": "2 + 2"},
    }
    assert len(await engine.history(thread_id="h", limit=3)) == 3
    with pytest.raises(NotFoundError):
        await engine.history(thread_id="nobody")


async def test_fork_replaces_a_tool_result(engine_factory) -> None:
    engine, model = engine_factory(
        [
            goto("math"),
            call("calculate", expression="2 + 2"),
            FINALIZE,
            {"content": "It is 4."},
            FINALIZE,  # the branch: the coordinator decides again on the replaced result
            {"content": "It is 5."},
        ],
        checkpoint_durability="sync",
    )
    await engine.ainvoke("2 + 2?", thread_id="f1")
    tools = next(e for e in await engine.history(thread_id="f1") if e["node"] == "math_tools")
    call_id = tools["messages"][0]["tool_call_id"]
    with pytest.raises(ValidationError, match="No tool result"):
        await engine.afork(tools["checkpoint_id"], thread_id="f1", tool_results={"other": "5"})
    branch = await engine.afork(tools["checkpoint_id"], thread_id="f1", tool_results={call_id: "5"})
    assert branch.response == "It is 5."
    assert _results(model.records[-2], "calculate") == ["5"]  # the coordinator saw the new result
    assert any("replaced by a reviewer" in n for n in branch.trace["notes"])
    # the thread goes on from the branch
    state = await engine.graph.aget_state({"configurable": {"thread_id": "local::f1"}})
    assert str(state.values["messages"][-1].content) == "It is 5."


async def test_fork_forces_a_route_in_supervisor_mode(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="2 + 2"),
            {"content": "2 + 2 = 4"},
            FINALIZE,
            {"content": "It is 4."},
            {"content": "Cadence is a framework."},  # the branch: info answers
            FINALIZE,
            {"content": "From info."},
        ],
        checkpoint_durability="sync",
        mode="supervisor",
    )
    await engine.ainvoke("2 + 2?", thread_id="f2")
    first = [e for e in await engine.history(thread_id="f2") if e["next"] == ["supervisor"]][-1]
    branch = await engine.afork(first["checkpoint_id"], thread_id="f2", route="info")
    assert branch.trace["mode"] == "supervisor" and branch.trace["routing_history"] == ["info"]
    assert "info_agent" in [r.node for r in model.records][3:]
    # the forced route calls the supervisor's own handoff tool
    forced = [
        c["name"]
        for e in await engine.history(thread_id="f2")
        for m in e["messages"]
        for c in m.get("tool_calls") or []
        if "info" in c["name"]
    ]
    assert forced and set(forced) == {"transfer_to_info"}


async def test_fork_forces_a_different_route(engine_factory) -> None:
    engine, model = engine_factory(
        [
            goto("math"),
            call("calculate", expression="2 + 2"),
            FINALIZE,
            {"content": "4"},
            {"content": "Cadence is a framework."},  # the branch: info answers
            FINALIZE,
            {"content": "From info."},
        ],
        checkpoint_durability="sync",
    )
    await engine.ainvoke("2 + 2?", thread_id="f3")
    entries = await engine.history(thread_id="f3")
    decided = [e for e in entries if e["node"] == "coordinator"][-1]  # right after the first decision
    with pytest.raises(ValidationError, match="Unknown route"):
        await engine.afork(decided["checkpoint_id"], thread_id="f3", route="nobody")
    branch = await engine.afork(decided["checkpoint_id"], thread_id="f3", route="info")
    assert branch.response == "From info."
    assert branch.trace["routing_history"] == ["info"] and branch.trace["agent_hops"] == 1
    assert [r.node for r in model.records][-3:] == ["info_agent", "coordinator", "synthesizer"]
    # a checkpoint where nothing decides next cannot take a route; one that ends a turn runs nothing
    tools = next(e for e in entries if e["node"] == "math_tools")
    agent = next(e for e in entries if e["node"] == "math_agent")
    with pytest.raises(ValidationError, match="decides next"):
        await engine.afork(agent["checkpoint_id"], thread_id="f3", route="info")
    with pytest.raises(ValidationError, match="ends a turn"):
        await engine.afork(entries[0]["checkpoint_id"], thread_id="f3")
    with pytest.raises(NotFoundError) as missing:
        await engine.afork("1f0-no-such-checkpoint", thread_id="f3")
    assert missing.value.code == "checkpoint_not_found"
    # a thread that does not exist is not found as a thread (it said "No checkpoint 'cp1' in this thread")
    with pytest.raises(NotFoundError) as nothing:
        await engine.afork("cp1", thread_id="nope")
    assert (nothing.value.code, nothing.value.message) == (
        "thread_not_found",
        "No thread 'nope' for this user.",
    )
    assert tools["next"] == ["coordinator"]


@pytest.mark.parametrize("mode", ["planner", "single"])
async def test_a_route_cannot_be_forced_in_a_mode_without_routing(engine_factory, mode: str) -> None:
    """The planner plans tools and the single mode has one agent: a forced route is refused, named."""
    extra = {"agent": "math"} if mode == "single" else {}
    script = (
        [
            {"tool_calls": [{"name": "make_plan", "args": {"delegate_to": "end", "tools": []}}]},
            {"content": "Hi."},
        ]
        if mode == "planner"
        else [{"content": "Hi."}]
    )
    engine, _ = engine_factory(script, checkpoint_durability="sync", mode=mode, **extra)
    await engine.ainvoke("hi", thread_id="f")
    history = await engine.history(thread_id="f")
    before = [e for e in history if e["next"]][-1]
    with pytest.raises(ValidationError) as caught:
        await engine.afork(before["checkpoint_id"], thread_id="f", route="math")
    assert caught.value.code == "invalid_fork" and f"in the {mode} mode" in caught.value.message
    assert "{" not in caught.value.message  # no placeholder left unfilled
    state = await engine.graph_for(mode).aget_state({"configurable": {"thread_id": "local::f"}})
    assert state.values["messages"][-1].content == "Hi."  # the thread is as it was


async def test_a_fork_that_runs_a_tools_step_again_starts_its_calls(engine_factory) -> None:
    """A fork from before a tools step streamed the step's tool_end without its tool_start."""
    script = [goto("math"), call("calculate", expression="2 + 2"), FINALIZE, {"content": "4"}]
    engine, _ = engine_factory([*script, FINALIZE, {"content": "4 again"}], checkpoint_durability="sync")
    await engine.ainvoke("2 + 2?", thread_id="f")
    before_tools = next(e for e in await engine.history(thread_id="f") if e["next"] == ["math_tools"])
    events = [e async for e in engine.fork_stream(before_tools["checkpoint_id"], thread_id="f")]
    tools = [(e["type"], e["name"], e.get("args")) for e in events if "tool" in e["type"]]
    assert tools == [("tool_start", "calculate", {"expression": "2 + 2"}), ("tool_end", "calculate", None)]
