"""The coordinator mode's turn path: routing by Command, edges on the event loop, a turn without events.

The coordinator answers its own routing call and goes on in the same step (no ``control_tools``
step); the agents' ``should_continue`` edge is a coroutine; ``Cadence.ainvoke`` runs without the
event streams; the synthesizer reads the turn's evidence once.
"""

from __future__ import annotations

import inspect
from dataclasses import asdict
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from tests.conftest import FINALIZE, call, goto, make_settings

from cadence.orchestration import plugin_nodes
from cadence.orchestration.coordinator import work_tool_owners
from cadence.orchestration.engine import Cadence
from cadence.orchestration.validation import (
    TurnEvidence,
    ValidationRecord,
    turn_evidence,
    validate_answer,
    validate_state,
)
from cadence.testing import ScriptedChatModel


async def test_the_coordinator_routes_in_its_own_step(engine_factory) -> None:
    engine, _ = engine_factory(
        [goto("math"), call("calculate", expression="2 + 2"), FINALIZE, {"content": "4"}],
        checkpoint_durability="sync",
    )
    result = await engine.ainvoke("2 + 2?", thread_id="r")
    assert result.response == "4" and result.trace["routing_history"] == ["math"]
    nodes = [e["node"] for e in await engine.history(thread_id="r")]
    assert "control_tools" not in nodes
    assert nodes.count("coordinator") == 2
    # the history is the one the routing step wrote: each decision answered by its result
    state = await engine.graph.aget_state({"configurable": {"thread_id": "local::r"}})
    routed = [(m.name, m.content) for m in state.values["messages"] if isinstance(m, ToolMessage)]
    assert routed == [("goto_math_agent", "math"), ("calculate", "4"), ("goto_finalize", "finalize")]


async def test_an_unknown_route_is_answered_with_an_error_and_finalizes(engine_factory) -> None:
    engine, model = engine_factory([goto("nobody"), {"content": "No agent for that."}])
    result = await engine.ainvoke("Do something odd")
    assert result.response == "No agent for that."
    assert result.trace["routing_history"] == [] and result.trace["agent_hops"] == 0
    assert result.trace["notes"] == [
        "coordinator: unknown route 'goto_nobody_agent' (not one of its tools); finalized"
    ]
    synth = model.records[-1]
    assert synth.node == "synthesizer"
    state = await engine.graph.aget_state({"configurable": {"thread_id": f"local::{result.thread_id}"}})
    [error] = [m for m in state.values["messages"] if isinstance(m, ToolMessage)]
    assert error.status == "error" and "goto_nobody_agent is not a valid tool" in str(error.content)


async def test_a_coordinator_calling_an_agents_tool_is_routed_to_that_agent(engine_factory) -> None:
    # a model that did the agent's work itself: the agent it meant runs and calls its tool
    script = [call("calculate", expression="15 * 23"), call("calculate", expression="15 * 23"), FINALIZE]
    engine, model = engine_factory([*script, {"content": "15 * 23 = 345"}])
    result = await engine.ainvoke("Calculate 15 * 23")
    assert result.response == "15 * 23 = 345" and result.trace["routing_history"] == ["math"]
    assert [t["result"] for t in result.trace["tools_used"]] == ["345"]
    assert "coordinator: called 'calculate', a tool of math; routed to math" in result.trace["notes"]
    assert [r.node for r in model.records] == ["coordinator", "math_agent", "coordinator", "synthesizer"]


async def test_a_tool_no_agent_or_several_agents_have_is_still_an_unknown_route(engine_factory) -> None:
    engine, _ = engine_factory([call("fly_to_mars"), {"content": "No agent for that."}])
    result = await engine.ainvoke("Fly me to Mars")
    assert result.trace["routing_history"] == [] and "unknown route 'fly_to_mars'" in result.trace["notes"][0]
    assert work_tool_owners({"a": [_named("shared"), _named("own")], "b": [_named("shared")]}) == {"own": "a"}


def _named(name: str) -> Any:
    @tool(name)
    def work(text: str) -> str:
        """Do some work."""
        return text

    return work


def test_no_edge_function_runs_in_the_thread_pool() -> None:
    engine = Cadence(make_settings(builtin_plugins=["math"]), model=ScriptedChatModel.from_items([]))
    branches = engine.graph.builder.branches
    assert not branches.get("coordinator")  # it routes by Command
    for spec in branches["math_agent"].values():
        assert spec.path.afunc is not None and inspect.iscoroutinefunction(spec.path.afunc)
    bundle = engine.plugin_manager.bundles["math"]
    should_continue = plugin_nodes.async_should_continue(bundle)
    assert inspect.iscoroutinefunction(should_continue)


async def test_async_should_continue_decides_as_the_bundle() -> None:
    engine = Cadence(make_settings(builtin_plugins=["math"]), model=ScriptedChatModel.from_items([]))
    bundle = engine.plugin_manager.bundles["math"]
    decide = plugin_nodes.async_should_continue(bundle)
    pending = {
        "messages": [AIMessage(content="", tool_calls=[{"name": "calculate", "args": {}, "id": "c1"}])]
    }
    answered = {"messages": [AIMessage(content="It is 4.")]}
    for state in (pending, answered):
        assert await decide(state) == bundle.should_continue(state)


async def test_a_turn_without_events_yields_only_the_final_event(engine_factory) -> None:
    engine, _ = engine_factory(
        [goto("math"), call("calculate", expression="2 + 2"), FINALIZE, {"content": "4"}]
    )
    events = [e async for e in engine.astream("2 + 2?", events=False)]
    assert [e["type"] for e in events] == ["final"]
    assert events[0]["response"] == "4" and events[0]["trace"]["tools_used"][0]["result"] == "4"


async def test_the_streamed_turn_keeps_its_events(engine_factory) -> None:
    engine, _ = engine_factory(
        [goto("math"), call("calculate", expression="2 + 2"), FINALIZE, {"content": "4"}]
    )
    kinds = [e["type"] for e in [e async for e in engine.astream("2 + 2?")]]
    for kind in ("node", "agent_start", "tool_start", "tool_end", "agent_end", "token", "final"):
        assert kind in kinds


async def test_the_pending_question_is_written_only_where_it_outlives_a_crash(tmp_path) -> None:
    from cadence.persistence import open_checkpointer

    script = [FINALIZE, {"content": "Hello."}]
    memory = Cadence(
        make_settings(), model=ScriptedChatModel.from_items(script), checkpointer=InMemorySaver()
    )
    await memory.ainvoke("Hi", thread_id="m")
    saved = [t async for t in memory.checkpointer.alist({"configurable": {"thread_id": "local::m"}})]
    assert len(saved) == 1  # the turn's own checkpoint only
    async with open_checkpointer(f"sqlite:///{tmp_path / 'c.db'}") as saver:
        durable = Cadence(make_settings(), model=ScriptedChatModel.from_items(script), checkpointer=saver)
        await durable.ainvoke("Hi", thread_id="s")
        saved = [t async for t in saver.alist({"configurable": {"thread_id": "local::s"}})]
        assert len(saved) == 2  # the pending question, then the turn


def test_turn_evidence_is_read_once_and_says_what_the_helpers_say() -> None:
    messages = [
        HumanMessage(content="What is 15 * 23?"),
        AIMessage(
            content="", tool_calls=[{"name": "calculate", "args": {"expression": "15 * 23"}, "id": "c"}]
        ),
        ToolMessage(content="345", tool_call_id="c", name="calculate"),
    ]
    state = {"messages": messages, "plugin_context": {}}
    evidence = TurnEvidence.of(state)
    assert (evidence.question, evidence.results) == turn_evidence(state)
    for answer in ("15 * 23 = 345", "It is 346.", ""):
        assert evidence.validate(answer) == validate_state(state, answer)
    # the supervisor's last_message view: the results come from the tools_used records
    records = {"tools_used": [{"name": "calculate", "args": {}, "result": "345", "error": None}]}
    view = {"messages": messages[:1], "plugin_context": records}
    assert TurnEvidence.of(view).results == turn_evidence(view)[1]
    assert TurnEvidence.of(view).message_results == []


def test_validation_records_serialise_every_field() -> None:
    verdict = validate_answer("What is 2 + 2?", "It is 5.")
    assert verdict.to_dict() == asdict(verdict)
    record = ValidationRecord(
        node="synthesizer", mode="flag", verdict=verdict.to_dict(), draft_problems=["x"]
    )
    assert record.to_dict() == asdict(record)


async def test_a_route_after_a_call_of_a_tool_it_lacks_is_taken(engine_factory) -> None:
    # the coordinator did the agent's work itself and routed: the route counts, the stray call goes
    both = {
        "tool_calls": [{"name": "calculate", "args": {"expression": "2 + 2"}}, goto("math")["tool_calls"][0]]
    }
    engine, model = engine_factory(
        [both, call("calculate", expression="2 + 2"), FINALIZE, {"content": "It is 4."}]
    )
    result = await engine.ainvoke("What is 2 + 2?")
    assert result.trace["routing_history"] == ["math"] and result.response == "It is 4."
    assert [r.node for r in model.records] == ["coordinator", "math_agent", "coordinator", "synthesizer"]


def test_the_coordinator_sees_recalled_facts_that_do_not_answer_alone() -> None:
    """ "How old am I?": the birthday recalled is in the deciding prompt (the route depends on it); facts that
    answer the question alone come as a recall_memory result instead."""
    from cadence.conventions import TOLD_FACTS_HEADER
    from cadence.orchestration.coordinator import Coordinator
    from cadence.testing import ScriptedChatModel
    from conftest import make_settings

    coordinator = Coordinator(ScriptedChatModel.from_items([]), [], make_settings())
    fact = {"id": "m1", "kind": "fact", "text": "I was born on 3 March 1995.",
            "statement": "You were born on 3 March 1995.", "score": 0.2}  # fmt: skip
    partial = {"memory": {"items": [fact], "adequacy": 0.2, "routing_adequacy": 0.2}}
    assert f"{TOLD_FACTS_HEADER}" in coordinator.system_prompt(partial)
    assert "You were born on 3 March 1995." in coordinator.system_prompt(partial)
    whole = {"memory": {"items": [fact], "adequacy": 1.0, "routing_adequacy": 1.0}}
    assert coordinator.system_prompt(whole) == coordinator.prompt
    assert coordinator.system_prompt({}) == coordinator.prompt
