"""Pre-model trimming in the coordinator mode (issue 12): a token budget per model call.

``CADENCE_MODEL_INPUT_MAX_TOKENS`` bounds the conversation each agent step and each coordinator
decision receives (the supervisor mode shares the same setting and ``orchestration/trimming.py``).
Asserted on the scripted model's recorded calls: what each call saw, that trimming drops earlier
turns oldest first only when the limit is reached, and that the current question and every
tool-call/result pair are never split.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from tests.conftest import FINALIZE, call, goto

from cadence.testing import ModelCallRecord

FILLER = "Plenty of words about arithmetic and its long history. " * 30
"""About 300 approximate tokens: one turn with it does not fit a small budget."""


def math_turn(expression: str, answer: str) -> list[dict[str, Any]]:
    """The scripted calls of a one-agent tool turn: route, tool call, finalize, answer."""
    return [goto("math"), call("calculate", expression=expression), FINALIZE, {"content": answer}]


def conversation(record: ModelCallRecord) -> list[BaseMessage]:
    """A call's messages after its system prompt."""
    return [m for m in record.messages if m.type != "system"]


def texts(messages: Sequence[BaseMessage]) -> str:
    """All the text of ``messages``."""
    return "\n".join(str(m.content) for m in messages)


def assert_pairs_whole(messages: Sequence[BaseMessage]) -> None:
    """Every tool result follows its call, and every call before the last message has its result."""
    called: set[str] = set()
    answered: set[str] = set()
    for m in messages:
        if isinstance(m, AIMessage):
            called.update(str(c["id"]) for c in m.tool_calls)
        elif isinstance(m, ToolMessage):
            assert m.tool_call_id in called, f"tool result without its call: {m.tool_call_id}"
            answered.add(m.tool_call_id)
    pending = called - answered
    last = messages[-1] if messages else None
    last_calls = {str(c["id"]) for c in getattr(last, "tool_calls", None) or []}
    assert pending <= last_calls, f"calls without results: {pending - last_calls}"


def assert_starts_with_question(record: ModelCallRecord, question: str) -> None:
    """The call's conversation starts on the user's current question."""
    seen = conversation(record)
    assert isinstance(seen[0], HumanMessage) and seen[0].content == question, record.node


async def test_at_the_limit_agents_and_the_coordinator_get_the_current_turn(engine_factory) -> None:
    old_question = "What is 2 + 2? " + FILLER
    engine, model = engine_factory(
        [*math_turn("2 + 2", "2 + 2 = 4. " + FILLER), *math_turn("3 + 3", "3 + 3 = 6")],
        model_input_max_tokens=150,
    )
    await engine.ainvoke(old_question, thread_id="t")
    model.records.clear()
    result = await engine.ainvoke("What is 3 + 3?", thread_id="t")
    assert "6" in result.response
    nodes = [r.node for r in model.records]
    assert nodes == ["coordinator", "math_agent", "coordinator", "synthesizer"]
    for record in model.records[:3]:
        seen = conversation(record)
        assert_starts_with_question(record, "What is 3 + 3?")
        assert FILLER not in texts(seen) and "2 + 2" not in texts(seen)
        assert_pairs_whole(seen)
    # the coordinator's second decision saw the current turn's work whole: the call and its result
    after_work = conversation(model.records[2])
    assert any(isinstance(m, ToolMessage) and m.name == "calculate" and m.content == "6" for m in after_work)
    assert any(
        isinstance(m, AIMessage) and [c["name"] for c in m.tool_calls] == ["calculate"] for m in after_work
    )
    # trimming shapes what a call receives, not the thread: the checkpoint keeps the first turn
    state = await engine.graph.aget_state({"configurable": {"thread_id": "local::t"}})
    assert state.values["messages"][0].content == old_question


async def test_earlier_turns_go_oldest_first_and_only_at_the_limit(engine_factory) -> None:
    engine, model = engine_factory(
        [*math_turn("2 + 2", "2 + 2 = 4. " + FILLER), *math_turn("3 + 3", "6"), *math_turn("4 + 4", "8")],
        model_input_max_tokens=250,
    )
    await engine.ainvoke("What is 2 + 2? " + FILLER, thread_id="t")
    await engine.ainvoke("What is 3 + 3?", thread_id="t")
    model.records.clear()
    await engine.ainvoke("What is 4 + 4?", thread_id="t")
    for record in model.records[:3]:  # coordinator, math_agent, coordinator
        seen = conversation(record)
        # the short previous turn fits and is kept, from its question on; the long first turn is dropped
        assert_starts_with_question(record, "What is 3 + 3?")
        assert "What is 4 + 4?" in texts(seen) and FILLER not in texts(seen)
        assert_pairs_whole(seen)


async def test_without_a_budget_every_call_gets_the_whole_history(engine_factory) -> None:
    engine, model = engine_factory(
        [*math_turn("2 + 2", "2 + 2 = 4. " + FILLER), *math_turn("3 + 3", "3 + 3 = 6")],
        model_input_max_tokens=0,
    )
    await engine.ainvoke("What is 2 + 2? " + FILLER, thread_id="t")
    model.records.clear()
    await engine.ainvoke("What is 3 + 3?", thread_id="t")
    for record in model.records[:3]:
        assert_starts_with_question(record, "What is 2 + 2? " + FILLER)
        assert_pairs_whole(conversation(record))


async def test_a_current_turn_over_the_budget_is_kept_whole(engine_factory) -> None:
    big = "What is 3 + 3? " + FILLER
    engine, model = engine_factory(
        [*math_turn("2 + 2", "2 + 2 = 4"), *math_turn("3 + 3", "3 + 3 = 6")],
        model_input_max_tokens=20,
    )
    await engine.ainvoke("What is 2 + 2?", thread_id="t")
    model.records.clear()
    await engine.ainvoke(big, thread_id="t")
    for record in model.records[:3]:
        seen = conversation(record)
        assert_starts_with_question(record, big)  # never cut, though it alone exceeds the budget
        assert "2 + 2" not in texts(seen)
        assert_pairs_whole(seen)
    # the agent's call and its result reached the coordinator's second decision together
    assert [type(m).__name__ for m in conversation(model.records[2])][-2:] == ["AIMessage", "ToolMessage"]


def test_the_budget_is_the_turns_setting() -> None:
    from types import SimpleNamespace

    from tests.conftest import make_settings

    from cadence.orchestration.trimming import input_budget

    own, default = make_settings(model_input_max_tokens=77), make_settings(model_input_max_tokens=5)
    assert input_budget(SimpleNamespace(settings=own)) == 77  # a request's own settings win
    assert input_budget(None, default) == 5
    assert input_budget(SimpleNamespace(settings=None), default) == 5
    assert input_budget(None) == 0  # no settings at all: no trimming


async def test_the_final_answer_gets_earlier_turns_within_the_budget(engine_factory) -> None:
    turns = 12
    script = [item for i in range(turns) for item in (FINALIZE, {"content": f"Answer {i}. {FILLER}"})]
    engine, model = engine_factory([*script, *math_turn("3 + 3", "3 + 3 = 6")], model_input_max_tokens=1000)
    for i in range(turns):
        await engine.ainvoke(f"Question {i}? {FILLER}", thread_id="t")
    model.records.clear()
    await engine.ainvoke("What is 3 + 3?", thread_id="t")
    final = model.records[-1]
    assert final.node == "synthesizer"
    seen = conversation(final)
    # the oldest turns went (the history would be about 7,000 tokens); the latest and the current one stay
    assert "Question 0?" not in texts(seen) and f"Answer {turns - 1}." in texts(seen)
    assert isinstance(seen[0], HumanMessage)
    assert any(isinstance(m, HumanMessage) and m.content == "What is 3 + 3?" for m in seen)
    assert "calculate" in texts(seen) and "result: 6" in texts(seen)
    assert_pairs_whole(seen)


async def test_the_coordinator_sees_long_results_clipped_and_the_answer_sees_them_whole(
    engine_factory,
) -> None:
    numbers = [12.5, 3, 7, 19, 4.25, 11]
    engine, model = engine_factory(
        [goto("math"), call("statistics", numbers=numbers), FINALIZE, {"content": "The mean is 9.458."}],
        routing_result_max_chars=40,
    )
    result = await engine.ainvoke("Summarise 12.5, 3, 7, 19, 4.25 and 11", thread_id="t")
    assert result.response == "The mean is 9.458."
    nodes = [r.node for r in model.records]
    assert nodes == ["coordinator", "math_agent", "coordinator", "synthesizer"]
    seen = [
        m for m in conversation(model.records[2]) if isinstance(m, ToolMessage) and m.name == "statistics"
    ]
    assert len(seen) == 1 and len(seen[0].content) < 80
    assert seen[0].content.startswith("count: 6; sum: 56.75")
    assert seen[0].content.endswith("more characters)")
    assert seen[0].tool_call_id  # still answers its call
    # the final answer is written from the whole result, and the thread keeps it whole
    assert "population standard deviation" in texts(conversation(model.records[3]))
    state = await engine.graph.aget_state({"configurable": {"thread_id": "local::t"}})
    kept = [m for m in state.values["messages"] if isinstance(m, ToolMessage) and m.name == "statistics"]
    assert "population standard deviation" in kept[0].content


async def test_clipping_is_off_at_zero(engine_factory) -> None:
    engine, model = engine_factory(
        [goto("math"), call("statistics", numbers=[1, 2, 3, 4]), FINALIZE, {"content": "Mean 2.5."}],
        routing_result_max_chars=0,
    )
    await engine.ainvoke("Summarise 1, 2, 3 and 4", thread_id="t")
    assert "population standard deviation" in texts(conversation(model.records[2]))
