"""Probes of the coordinator graph's finishing: suspend answers, follow-ups, odd model output."""

from __future__ import annotations

import pytest
from tests.conftest import FINALIZE, call, goto, tool_plugin

from cadence.orchestration.answer_check import ANSWER_CHECK_KEY
from cadence.orchestration.engine import thread_key
from cadence.orchestration.prompts import SUSPEND_NOTICE
from cadence.sdk import tool

# a route to math, its calculation, then a route the agent-hop guard refuses: the turn suspends
SUSPENDED = [goto("math"), call("calculate", expression="15 * 23"), goto("math")]


async def test_a_suspend_answer_contradicting_the_results_is_rebuilt_and_still_says_it_stopped(
    engine_factory,
) -> None:
    engine, _ = engine_factory(
        [*SUSPENDED, {"content": "I had to stop early, but the answer is 999."}], max_agent_hops=1
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    assert result.trace["suspend_reason"] == "max_agent_hops"
    assert "999" not in result.response and "345" in result.response
    assert result.response.startswith(SUSPEND_NOTICE)
    assert any(
        "suspend: answer rewritten from the tool results (invented_number)" in n
        for n in result.trace["notes"]
    )
    state = await engine.graph.aget_state(
        {"configurable": {"thread_id": thread_key("local", result.thread_id)}}
    )
    assert state.values["messages"][-1].response_metadata[ANSWER_CHECK_KEY] == "invented_number"
    [record] = result.trace["validation"]
    assert record["node"] == "suspend" and "invented_number" in record["draft_problems"]
    assert record["verdict"]["ok"]


@pytest.mark.parametrize("tone", ["natural", "concise", "learning", "formal"])
async def test_a_faithful_suspend_answer_stands_with_the_limits_counts_in_it(
    engine_factory, tone: str
) -> None:
    text = (
        "I had to stop after 1 of 1 steps, before I could check everything you asked for in this turn. "
        "So far I worked out that 15 * 23 = 345. Please continue the chat so that I can finish the rest."
    )
    engine, model = engine_factory([*SUSPENDED, {"content": text}], max_agent_hops=1)
    result = await engine.ainvoke("Calculate 15 * 23", tone=tone)
    assert model.records[-1].node == "suspend"
    assert result.response == text  # the tone's shaping would drop the explanation (or the partial answer)
    assert result.trace["notes"] == []
    assert [r["verdict"]["problems"] for r in result.trace["validation"]] == [[]]


async def test_a_suspend_answer_gets_no_correction_round(engine_factory) -> None:
    engine, model = engine_factory(
        [*SUSPENDED, {"content": "The answer is 999."}], max_agent_hops=1, validation="correct"
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    assert [r.node for r in model.records].count("suspend") == 1  # the turn is out of steps
    assert result.response.startswith(SUSPEND_NOTICE) and "345" in result.response


@tool
def city_time(city: str) -> str:
    """The time in a city."""
    return {"Tokyo": "It is 22:05 in Tokyo.", "Paris": "It is 14:05 in Paris."}[city]


def clock_turn(city: str, answer: str) -> list[dict]:
    return [goto("clock"), call("city_time", city=city), FINALIZE, {"content": answer}]


@pytest.mark.parametrize(
    ("answer", "stands"),
    [
        ("In Paris it is 14:05, while in Tokyo it is 22:05.", True),  # the last turn's fact
        ("In Paris it is 22:05.", False),  # the last turn's time given as this one's: still a missing result
    ],
)
async def test_a_follow_up_answer_may_restate_an_earlier_turn(
    engine_factory, answer: str, stands: bool
) -> None:
    engine, _ = engine_factory(
        [*clock_turn("Tokyo", "It is 22:05 in Tokyo."), *clock_turn("Paris", answer)],
        plugins=[tool_plugin("clock", [city_time])],
        builtin_plugins=[],
    )
    await engine.ainvoke("What time is it in Tokyo?", thread_id="t")
    result = await engine.ainvoke("And in Paris?", thread_id="t")
    if stands:
        assert result.response == answer and result.trace["notes"] == []
        assert result.trace["validation"][0]["verdict"]["ok"]
    else:
        assert result.response == "It is 14:05 in Paris."
        assert result.trace["notes"] == [
            "synthesizer: answer rewritten from the tool results (missing_result)"
        ]


async def test_structured_data_of_a_rewritten_answer_is_dropped(engine_factory) -> None:
    wrong = {"answer": "15 × 23 = 999", "math": {"expression": "15*23", "result": "999"}}
    engine, _ = engine_factory(
        [*SUSPENDED[:2], FINALIZE, {"tool_calls": [{"name": "FinalResponse", "args": wrong}]}],
        structured_response="model",
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    assert result.response == "15 * 23 = 345."
    assert result.structured is None and result.trace["structured"] is None  # it said 999
    assert "synthesizer: structured data dropped with the rewritten answer" in result.trace["notes"]


async def test_a_server_reusing_response_ids_leaves_the_history_whole(engine_factory, monkeypatch) -> None:
    from langchain_core.messages import AIMessage, ToolMessage

    from cadence.models.scripted import ScriptedChatModel

    made = ScriptedChatModel._message

    def same_id(item: dict, messages: list) -> AIMessage:
        message = made(item, messages)
        message.id = "chatcmpl-123"  # Ollama's OpenAI endpoint draws its ids from 999
        return message

    monkeypatch.setattr(ScriptedChatModel, "_message", staticmethod(same_id))
    turn = [goto("math"), call("calculate", expression="2 + 2"), FINALIZE, {"content": "It is 4."}]
    engine, _ = engine_factory(turn * 2)
    for question in ("What is 2 + 2?", "And 2 + 2 again?"):
        assert (await engine.ainvoke(question, thread_id="t")).response == "It is 4."
    state = await engine.graph.aget_state({"configurable": {"thread_id": thread_key("local", "t")}})
    messages = state.values["messages"]
    calls = [c["name"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls]
    assert calls == ["goto_math_agent", "calculate", "goto_finalize"] * 2  # none replaced by a later one
    assert [m.content for m in messages if isinstance(m, ToolMessage) and m.name == "calculate"] == ["4", "4"]


def test_the_suspend_prompt_does_not_invite_narration() -> None:
    # "suggest the user continue the chat" was echoed as "I suggest the user continue the chat.", which the
    # final-answer check reads as narration about "the user" (the suspend answer was rewritten)
    from cadence.orchestration.answer_check import _narrates
    from cadence.orchestration.prompts import SUSPEND_INSTRUCTIONS

    assert not _narrates(SUSPEND_INSTRUCTIONS, "Calculate 15 * 23")
