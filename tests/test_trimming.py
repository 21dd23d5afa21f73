"""``trimming``: the per-message token counts agree with LangChain's approximate counter."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

from cadence.orchestration.trimming import approx_tokens, message_tokens, trim_history


def _history() -> list:
    return [
        SystemMessage(content="You are helpful."),
        HumanMessage(content="What is 15 * 23?"),
        AIMessage(
            content="", tool_calls=[{"name": "calculate", "args": {"expression": "15*23"}, "id": "c1"}]
        ),
        ToolMessage(content="345", tool_call_id="c1", name="calculate"),
        AIMessage(content="15 * 23 = 345.", name="math_agent"),
        HumanMessage(content=[{"type": "text", "text": "and twice that?"}]),
    ]


def test_approx_tokens_is_langchains_count() -> None:
    history = _history()
    assert approx_tokens(history) == count_tokens_approximately(history)
    assert approx_tokens(history) == count_tokens_approximately(history)  # remembered: the same again
    assert [message_tokens(m) for m in history] == [count_tokens_approximately([m]) for m in history]


def test_a_message_whose_text_changed_is_counted_again() -> None:
    message = AIMessage(content="short")
    before = message_tokens(message)
    message.content = "a much longer answer than before, " * 10
    assert message_tokens(message) == count_tokens_approximately([message]) > before


def test_trim_history_keeps_the_current_turn_and_drops_the_oldest() -> None:
    old = [HumanMessage(content=f"old question {i} " * 20) for i in range(5)]
    current = [HumanMessage(content="now?"), AIMessage(content="yes")]
    trimmed = trim_history([*old, *current], approx_tokens(current) + approx_tokens(old[-1:]))
    assert trimmed == [old[-1], *current]
    assert trim_history([*old, *current], 0) == [*old, *current]
