"""The supervisor mode (seed 004), driven by the scripted model; modes chosen per turn."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from tests.conftest import FINALIZE, call, goto, make_settings, transfer

from cadence.conventions import TONE_NOTICE
from cadence.errors import ConfigurationError, ValidationError
from cadence.orchestration.engine import Cadence
from cadence.orchestration.modes import check_mode, mode_names
from cadence.orchestration.modes.supervisor import FORWARDED_KEY, agent_loop, supervisor_view
from cadence.orchestration.tones import ResponseTone
from cadence.orchestration.turn import TurnContext
from cadence.testing import ScriptedChatModel


def forward(agent: str) -> dict:
    """A scripted supervisor decision passing ``agent``'s answer on verbatim."""
    return {"tool_calls": [{"name": "forward_message", "args": {"from_agent": agent}}]}


def nodes(model: ScriptedChatModel) -> list[str]:
    return [r.node for r in model.records]


async def test_one_agent_turn_loops_over_its_tools_then_hands_back(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="15 * 23"),
            {"content": "15 * 23 = 345"},
            FINALIZE,
            {"content": "15 * 23 is 345."},
        ],
        mode="supervisor",
        supervisor_direct_answer=False,
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    # the agent ran its own loop (two steps) without the supervisor deciding in between
    assert nodes(model) == ["supervisor", "math_agent", "math_agent", "supervisor", "synthesizer"]
    assert result.response == "15 * 23 is 345."
    assert result.trace["mode"] == "supervisor"
    assert result.trace["routing_history"] == ["math"]
    assert result.trace["agent_hops"] == 1 and result.trace["tool_hops"] == 1
    assert [t["name"] for t in result.trace["tools_used"]] == ["calculate"]
    # the agent's second step saw its tool's result
    assert any(isinstance(m, ToolMessage) and m.content == "345" for m in model.records[2].messages)


async def test_two_agent_turn(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="2026 - 2018"),
            {"content": "2026 - 2018 = 8"},
            transfer("info"),
            {"content": "Python 3.7 came out in 2018."},
            FINALIZE,
            {"content": "Python 3.7 came out in 2018, 8 years ago."},
        ],
        mode="supervisor",
    )
    result = await engine.ainvoke("How many years since Python 3.7 came out?")
    assert nodes(model) == [
        "supervisor",
        "math_agent",
        "math_agent",
        "supervisor",
        "info_agent",
        "supervisor",
        "synthesizer",
    ]
    assert result.trace["routing_history"] == ["math", "info"]
    assert result.trace["agent_hops"] == 2
    synthesizer_saw = " ".join(str(m.content) for m in model.records[-1].messages)
    assert "2026 - 2018 = 8" in synthesizer_saw and "came out in 2018" in synthesizer_saw


async def test_a_forwarded_tool_error_is_explained_not_passed_on_raw(engine_factory) -> None:
    error = "Error: CalculationError: Malformed expression '2 +* 2': invalid syntax."
    engine, _ = engine_factory(
        [transfer("math"), call("calculate", expression="2 +* 2"), {"content": error}, forward("math")],
        mode="supervisor",
    )
    result = await engine.ainvoke("What is 2 +* 2?")
    assert result.error is None
    assert result.response.startswith("I couldn't find the answer: the calculate tool failed: Malformed")
    assert "Error:" not in result.response
    assert any("was a tool error; explained" in n for n in result.trace["notes"])


async def test_a_forwarded_raw_search_result_is_answered_from_not_passed_on(engine_factory) -> None:
    """An agent that hands back its long tool result as it is gets an answer written from it."""
    probe, _ = engine_factory([], mode="supervisor")  # the real docs search, for a real raw result
    search = next(
        t for t in probe.plugin_manager.bundles["docs"].agent.get_tools() if t.name == "search_docs"
    )
    query = "checkpoint retention keep last"
    raw = await search.ainvoke({"query": query})
    assert len(raw) > 400
    engine, _ = engine_factory(
        [transfer("docs"), call("search_docs", query=query), {"content": raw}, forward("docs")],
        mode="supervisor",
    )
    result = await engine.ainvoke("How do I keep only the last checkpoints? check the docs")
    assert result.error is None
    assert " ".join(result.response.split()) != " ".join(raw.split())
    assert "passage(s) for" not in result.response and "[" in result.response  # cited
    assert any("was a raw tool result; answered from it" in n for n in result.trace["notes"])


async def test_forward_message_passes_the_answer_through_without_a_final_model_call(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="15 * 23"),
            {"content": "15 * 23 = 345"},
            forward("math"),
        ],
        mode="supervisor",
        supervisor_direct_answer=False,
    )
    result = await engine.ainvoke("Calculate 15 * 23", thread_id="f1")
    assert result.response == "15 * 23 = 345"
    assert nodes(model) == ["supervisor", "math_agent", "math_agent", "supervisor"]  # no synthesizer call
    state = (
        await engine.graph_for("supervisor").aget_state({"configurable": {"thread_id": "local::f1"}})
    ).values
    final = state["messages"][-1]
    assert isinstance(final, AIMessage) and final.name == "forward"
    assert final.response_metadata[FORWARDED_KEY] == "math"
    # the history stays usable: a second turn in the same thread sees the forwarded answer
    model.reset([transfer("math"), {"content": "345 + 5 = 350"}, forward("math")])
    second = await engine.ainvoke("and plus 5?", thread_id="f1", mode="supervisor")
    assert second.response == "345 + 5 = 350"
    assert any(m.content == "15 * 23 = 345" for m in model.records[0].messages)


async def test_forward_without_an_answer_of_that_agent_is_synthesized(engine_factory) -> None:
    engine, model = engine_factory(
        [transfer("math"), {"content": "4"}, forward("docs"), {"content": "2 + 2 is 4."}], mode="supervisor"
    )
    result = await engine.ainvoke("What is 2+2?")
    assert nodes(model)[-1] == "synthesizer"
    assert result.response == "2 + 2 is 4."
    assert any("forward_message" in note for note in result.trace["notes"])


async def test_a_forwarded_answer_shows_no_reasoning_and_reasoning_alone_is_not_forwarded(
    engine_factory,
) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="15 * 23"),
            {"content": "<think>the tool said 345</think>15 * 23 = 345"},
            forward("math"),
        ],
        mode="supervisor",
        supervisor_direct_answer=False,
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    assert result.response == "15 * 23 = 345"
    model.reset([transfer("math"), {"content": "<think>no idea</think>"}, forward("math"), {"content": "4."}])
    second = await engine.ainvoke("What is 2+2?", mode="supervisor")
    assert nodes(model)[-1] == "synthesizer" and second.response == "4."  # nothing to forward: synthesized


@pytest.mark.parametrize("output_mode", ["last_message", "full_history"])
async def test_output_mode_decides_what_the_supervisor_sees(engine_factory, output_mode) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="15 * 23"),
            {"content": "It is 345."},
            forward("math"),
        ],
        mode="supervisor",
        supervisor_direct_answer=False,
        supervisor_output_mode=output_mode,
    )
    await engine.ainvoke("Calculate 15 * 23")
    seen = model.records[3]
    assert seen.node == "supervisor"
    work_calls = [
        c["name"]
        for m in seen.messages
        if isinstance(m, AIMessage)
        for c in m.tool_calls
        if c["name"] == "calculate"
    ]
    work_results = [m for m in seen.messages if isinstance(m, ToolMessage) and m.name == "calculate"]
    assert any(isinstance(m, AIMessage) and m.content == "It is 345." for m in seen.messages)
    if output_mode == "last_message":
        assert work_calls == [] and work_results == []
    else:
        assert work_calls == ["calculate"] and [m.content for m in work_results] == ["345"]


@pytest.mark.parametrize("breadcrumbs", [True, False])
async def test_handoff_messages_setting(engine_factory, breadcrumbs) -> None:
    engine, model = engine_factory(
        [transfer("math"), {"content": "It is 4."}, forward("math")],
        mode="supervisor",
        supervisor_handoff_messages=breadcrumbs,
    )
    await engine.ainvoke("What is 2+2?")
    seen = model.records[2].messages
    calls = [c["name"] for m in seen if isinstance(m, AIMessage) for c in m.tool_calls]
    results = [m.name for m in seen if isinstance(m, ToolMessage)]
    if breadcrumbs:
        assert calls == ["transfer_to_math", "back"] and results == ["transfer_to_math", "back"]
    else:
        assert calls == [] and results == []
    assert any(isinstance(m, AIMessage) and m.content == "It is 4." for m in seen)


def test_supervisor_view_rejects_an_unknown_output_mode() -> None:
    with pytest.raises(ValueError, match="full_history"):
        supervisor_view([], "structured")


async def test_agent_hops_bound_a_looping_supervisor(engine_factory) -> None:
    script = [
        transfer("math"),
        {"content": "4"},
        transfer("info"),
        {"content": "x"},
        transfer("math"),
        {"content": "Stopped."},
    ]
    engine, model = engine_factory(script, mode="supervisor", max_agent_hops=2)
    result = await engine.ainvoke("loop forever")
    assert result.trace["suspended"] and result.trace["suspend_reason"] == "max_agent_hops"
    assert result.trace["routing_history"] == ["math", "info"]
    assert nodes(model)[-1] == "suspend" and result.response == "Stopped."


async def test_consecutive_handoffs_bound_a_looping_supervisor(engine_factory) -> None:
    script = [transfer("math"), {"content": "4"}] * 3 + [{"content": "Stopped."}]
    engine, model = engine_factory(script, mode="supervisor", coordinator_consecutive_agent_route_limit=2)
    result = await engine.ainvoke("again and again")
    assert result.trace["suspend_reason"] == "consecutive_agent_routes"
    assert result.trace["routing_history"] == ["math", "math"]
    assert nodes(model)[-1] == "suspend"


async def test_tool_hops_end_an_agent_looping_over_its_tools(engine_factory) -> None:
    script = [
        transfer("math"),
        *[call("calculate", expression=f"{i} + 1") for i in range(5)],
        {"content": "Stopped."},
    ]
    engine, model = engine_factory(script, mode="supervisor", max_tool_hops=2)
    result = await engine.ainvoke("count up")
    assert result.trace["suspend_reason"] == "max_tool_hops"
    assert result.trace["tool_hops"] == 2
    # the agent stopped at the limit and the supervisor suspended without a model call
    assert nodes(model) == ["supervisor", "math_agent", "math_agent", "suspend"]


async def test_at_their_limits_the_route_guards_let_the_turn_finish(engine_factory) -> None:
    # exactly max_agent_hops handoffs: no suspend; the supervisor writes the combined answer itself
    script = [
        transfer("math"),
        {"content": "4"},
        transfer("info"),
        {"content": "It is noon."},
        {"content": "4, at noon."},
    ]
    engine, model = engine_factory(script, mode="supervisor", max_agent_hops=2)
    result = await engine.ainvoke("2 + 2, and the time?")
    assert not result.trace["suspended"] and result.trace["agent_hops"] == 2
    assert result.response == "4, at noon." and "suspend" not in nodes(model)
    # exactly the consecutive-route limit: no suspend either
    script = [
        transfer("math"),
        {"content": "4"},
        transfer("math"),
        {"content": "Still 4."},
        FINALIZE,
        {"content": "4."},
    ]
    engine, model = engine_factory(script, mode="supervisor", coordinator_consecutive_agent_route_limit=2)
    result = await engine.ainvoke("2 + 2, twice")
    assert not result.trace["suspended"] and result.trace["routing_history"] == ["math", "math"]
    assert result.response == "4." and "suspend" not in nodes(model)


GUARDS = {
    "max_agent_hops": (
        [transfer("math"), {"content": "4"}, transfer("info"), {"content": "x"}, transfer("math")],
        {"max_agent_hops": 2},
        "it needed more steps (2/2) than one answer may take",
    ),
    "max_tool_hops": (
        [transfer("math"), *[call("calculate", expression=f"{i} + 1") for i in range(2)]],
        {"max_tool_hops": 2},
        "it ran as many lookups and calculations (2/2) as one answer may use",
    ),
    "consecutive_agent_routes": (
        [transfer("math"), {"content": "4"}] * 2 + [transfer("math")],
        {"coordinator_consecutive_agent_route_limit": 2},
        "it kept asking the same helper (3 times in a row) without progress",
    ),
}


@pytest.mark.parametrize("code", sorted(GUARDS))
@pytest.mark.parametrize("tone", ["formal", "concise"])
async def test_a_fired_guard_suspends_with_a_tone_aware_message(engine_factory, code: str, tone: str) -> None:
    script, limits, reason = GUARDS[code]
    engine, model = engine_factory(
        [*script, {"content": "I had to stop early; so far 1 + 1 = 2."}], mode="supervisor", **limits
    )
    result = await engine.ainvoke("keep going", tone=tone)
    assert result.trace["suspended"] and result.trace["suspend_reason"] == code
    assert result.trace["suspend_details"]["code"] == code
    assert nodes(model)[-1] == "suspend" and result.response == "I had to stop early; so far 1 + 1 = 2."
    # the suspend node explains the guard in plain words, in the turn's tone (and only that tone)
    prompt = model.records[-1].messages[0]
    assert isinstance(prompt, SystemMessage) and reason in str(prompt.content)
    assert ResponseTone(tone).description in str(prompt.content)
    for other in ResponseTone:
        if other.value != tone:
            assert other.description not in str(prompt.content)
    assert result.trace["tone"] == tone


async def test_a_suspend_whose_model_fails_answers_from_the_results_in_the_tone(engine_factory) -> None:
    script = [
        transfer("math"),
        call("calculate", expression="12 * 12"),
        {"raise": {"type": "error", "message": "provider down"}},  # the suspend node's model
    ]
    engine, model = engine_factory(script, mode="supervisor", max_tool_hops=1, model_max_retries=0)
    result = await engine.ainvoke("What is 12 * 12?", tone="formal")
    assert result.trace["suspend_reason"] == "max_tool_hops" and nodes(model)[-1] == "suspend"
    assert result.response.startswith("Sorry, I couldn't finish this answer")
    assert "In response to your question" in result.response and "144" in result.response
    assert result.error is not None and result.error["code"] == "model_error"


def test_the_deadline_ends_an_agent_loop(engine_factory) -> None:
    engine, _ = engine_factory([], mode="supervisor")
    bundle = engine.plugin_manager.bundles["math"]
    next_node = agent_loop(bundle)
    working = {
        "messages": [AIMessage(content="", tool_calls=[{"name": "calculate", "args": {}, "id": "c1"}])]
    }
    update = {"tool_hops": 1, "plugin_context": {}}

    def runtime(deadline: float) -> SimpleNamespace:
        return SimpleNamespace(context=TurnContext(settings=engine.settings, deadline=deadline))

    assert next_node(working, update, runtime(time.monotonic() + 3600)) == "math_agent"
    assert next_node(working, update, runtime(time.monotonic() - 1)) == "supervisor"
    answered = {"messages": [AIMessage(content="4", tool_calls=[{"name": "back", "args": {}, "id": "c2"}])]}
    assert next_node(answered, update, runtime(time.monotonic() + 3600)) == "supervisor"


async def test_streamed_events_of_an_agent_loop(engine_factory) -> None:
    engine, _ = engine_factory(
        [transfer("math"), call("calculate", expression="1 + 1"), {"content": "2"}, forward("math")],
        mode="supervisor",
        supervisor_direct_answer=False,
    )
    events = [e async for e in engine.astream("1 + 1?")]
    kinds = [e["type"] for e in events if e["type"] not in ("node", "token")]
    assert kinds == ["agent_start", "tool_start", "tool_end", "agent_end", "final"]
    assert events[0] == {"type": "node", "node": "supervisor"}
    # the sub-agent's tokens are streamed (the agent subgraph streams with subgraphs=True)
    tokens = [e for e in events if e["type"] == "token"]
    assert "".join(e["text"] for e in tokens) == "2" and {e["node"] for e in tokens} == {"math_agent"}
    visited = [e["node"] for e in events if e["type"] == "node"]
    assert visited == [
        "supervisor",
        "math_agent",
        "math_tools",
        "math_agent",
        "math_tools",
        "supervisor",
        "forward",
    ]
    assert events[-1]["response"] == "2" and events[-1]["trace"]["mode"] == "supervisor"


async def test_mode_per_turn_on_one_engine(engine_factory) -> None:
    engine, model = engine_factory(
        [
            *[goto("math"), {"content": "4"}, FINALIZE, {"content": "2 + 2 is 4."}],
            *[transfer("math"), {"content": "6"}, forward("math")],
        ]
    )
    first = await engine.ainvoke("What is 2+2?", thread_id="m")
    second = await engine.ainvoke("And 3+3?", thread_id="m", mode="Supervisor")
    assert first.trace["mode"] == "coordinator" and second.trace["mode"] == "supervisor"
    assert second.response == "6"
    assert nodes(model)[:4] == ["coordinator", "math_agent", "coordinator", "synthesizer"]
    assert nodes(model)[4:] == ["supervisor", "math_agent", "supervisor"]
    assert engine.graph is engine.graph_for("coordinator")


async def test_unknown_mode_is_a_validation_error_listing_the_modes(engine_factory) -> None:
    engine, _ = engine_factory([])
    with pytest.raises(ValidationError) as err:
        await engine.ainvoke("hi", mode="swarm")
    assert err.value.code == "unknown_mode"
    assert "coordinator" in err.value.message and "supervisor" in err.value.message
    with pytest.raises(ValidationError):
        engine.turn_input("hi", mode="nope")


def test_unknown_configured_mode_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="CADENCE_MODE"):
        Cadence(make_settings(mode="swarm"), model=ScriptedChatModel.from_items([]))


def test_modes_registry_and_diagrams() -> None:
    assert mode_names()[:2] == ["coordinator", "supervisor"]
    assert check_mode(" SUPERVISOR ") == "supervisor"
    engine = Cadence(make_settings(), model=ScriptedChatModel.from_items([]))
    supervisor = engine.draw_mermaid("supervisor")
    for node in (
        "supervisor",
        "control_tools",
        "forward",
        "math_agent",
        "math_tools",
        "synthesizer",
        "suspend",
    ):
        assert node in supervisor
    assert "coordinator" not in supervisor
    assert "coordinator" in engine.draw_mermaid()


async def test_a_tone_other_than_natural_is_in_the_supervisors_prompt(engine_factory) -> None:
    """Forwarding an agent's answer verbatim skips the tone: the supervisor is told it, and may finalize."""
    script = [transfer("math"), call("calculate", expression="12 * 12"), {"content": "144"}, FINALIZE,
              {"content": "Here is how: 12 * 12 = 144."}]  # fmt: skip
    engine, model = engine_factory(script, mode="supervisor")
    result = await engine.ainvoke("What is 12 * 12?", tone="learning")
    prompts = [str(r.messages[0].content) for r in model.records if r.node == "supervisor"]
    assert prompts and all(TONE_NOTICE in p and ResponseTone("learning").description in p for p in prompts)
    assert "144" in result.response
    natural, model = engine_factory(
        [transfer("math"), call("calculate", expression="12 * 12"), {"content": "144"}, forward("math")],
        mode="supervisor",
    )
    await natural.ainvoke("What is 12 * 12?")
    assert all(TONE_NOTICE not in str(r.messages[0].content) for r in model.records if r.node == "supervisor")


async def test_the_answer_after_one_agent_is_checked_against_its_tool_results(engine_factory) -> None:
    """``last_message``: the agent's tool calls stay out of the supervisor's view, not out of the check."""
    script = [transfer("math"), call("calculate", expression="18% of 275"), {"content": "49.5"}, FINALIZE,
              {"content": "Multiply 18 by 0.18, which equals 27.5."}]  # fmt: skip
    engine, _ = engine_factory(script, mode="supervisor")
    result = await engine.ainvoke("How do I work out 18% of 275?")
    assert "27.5" not in result.response and "49.5" in result.response
    assert any("invented_number" in n for n in result.trace["notes"])


async def test_a_fallback_answer_gives_what_the_agents_found() -> None:
    """The agents keep their tool calls to themselves: with an empty answer from the agent and the final
    answer both, the fallback had said "Nothing was found yet." though the calculator had found 4."""
    model = ScriptedChatModel.from_items(
        [
            transfer("math"),
            call("calculate", expression="2+2"),
            {"content": ""},
            {"content": ""},
            {"content": ""},
        ]
    )
    engine = Cadence(make_settings(mode="supervisor", builtin_plugins=["math"]), model=model)
    result = await engine.ainvoke("What is 2+2?")
    assert result.error is not None and result.error["code"] == "empty_answer"
    assert "Here is what I found so far:" in result.response and "4" in result.response
