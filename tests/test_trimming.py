"""``trimming``: the per-message token counts agree with LangChain's approximate counter."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

from cadence.orchestration.trimming import approx_tokens, clip_results, message_tokens, trim_history


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


def test_a_long_history_is_counted_only_as_far_as_the_budget_reaches(monkeypatch) -> None:
    """Each model call trims; counting the whole history each time made a long thread's turns grow with it."""
    import cadence.orchestration.trimming as trimming

    counted: list[int] = []

    def counting(messages):
        counted.append(len(messages))
        return count_tokens_approximately(messages)

    monkeypatch.setattr(trimming, "count_tokens_approximately", counting)
    history = []
    for i in range(2000):
        history += [HumanMessage(content=f"question {i}"), AIMessage(content=f"answer {i}")]
    current = [HumanMessage(content="and now?")]
    budget = approx_tokens(current) + approx_tokens(history[-20:])  # the last ten turns fit
    counted.clear()
    trimmed = trim_history([*history, *current], budget)
    assert trimmed == [*history[-20:], *current]  # the same result as trimming the whole list
    assert len(counted) < 60  # the messages that can fit (and a few past them), not 4,001
    # the same list again: nothing counted twice
    counted.clear()
    assert trim_history([*history, *current], budget) == trimmed
    assert counted == []


def test_clip_results_cuts_long_tool_results_once_and_leaves_the_rest() -> None:
    long = ToolMessage("passage " * 100, tool_call_id="c1", name="search_docs")
    short = ToolMessage("8", tool_call_id="c2", name="calculate")
    history = [HumanMessage("q"), AIMessage("a"), long, short]
    first = clip_results(history, 50)
    assert first[:2] == history[:2] and first[3] is short
    assert first[2] is not long and first[2].tool_call_id == "c1" and first[2].name == "search_docs"
    assert first[2].content.startswith("passage passage") and first[2].content.endswith("more characters)")
    assert f"{800 - len(first[2].content.split('…')[0]):,} more characters" in first[2].content
    assert long.content == "passage " * 100  # the history is not changed
    assert clip_results(history, 50)[2] is first[2]  # clipped once per message
    assert clip_results(history, 60)[2].content != first[2].content  # per limit
    assert clip_results(history, 0) == history
