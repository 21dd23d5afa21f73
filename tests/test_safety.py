"""Message safety: no model ever gets an AI tool call without its result."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from cadence.orchestration.safety import safe_messages, strip_control_messages, unanswered_tool_calls


def _call(name: str, cid: str) -> dict:
    return {"name": name, "args": {}, "id": cid, "type": "tool_call"}


def test_unanswered_call_is_removed_but_text_kept() -> None:
    msgs = [HumanMessage("q"), AIMessage("thinking", tool_calls=[_call("calc", "a")])]
    out = safe_messages(msgs)
    assert unanswered_tool_calls(out) == []
    assert out[-1].content == "thinking" and not out[-1].tool_calls


def test_partially_answered_parallel_calls_are_dropped_with_their_results() -> None:
    msgs = [
        HumanMessage("q"),
        AIMessage("", tool_calls=[_call("a", "1"), _call("b", "2")]),
        ToolMessage("r1", tool_call_id="1"),
        HumanMessage("next"),
    ]
    out = safe_messages(msgs)
    assert [type(m).__name__ for m in out] == ["HumanMessage", "HumanMessage"]


def test_orphan_tool_message_is_dropped_and_complete_chains_kept() -> None:
    msgs = [
        HumanMessage("q"),
        ToolMessage("orphan", tool_call_id="x"),
        AIMessage("", tool_calls=[_call("a", "1")]),
        ToolMessage("r1", tool_call_id="1"),
    ]
    out = safe_messages(msgs)
    assert [m.content for m in out] == ["q", "", "r1"]


def test_invalid_tool_calls_are_removed() -> None:
    bad = AIMessage(
        "text",
        invalid_tool_calls=[
            {"name": "x", "args": "{oops", "id": "z", "error": "bad json", "type": "invalid_tool_call"}
        ],
    )
    out = safe_messages([HumanMessage("q"), bad])
    assert unanswered_tool_calls(out) == [] and out[-1].content == "text"


def test_control_messages_are_stripped_for_agents() -> None:
    msgs = [
        HumanMessage("q"),
        AIMessage("", tool_calls=[_call("goto_math_agent", "g")]),
        ToolMessage("math", tool_call_id="g"),
        AIMessage("4", tool_calls=[_call("back", "b")]),
        ToolMessage("back", tool_call_id="b"),
    ]
    out = strip_control_messages(msgs)
    assert [m.content for m in out] == ["q", "4"]
    assert unanswered_tool_calls(out) == []
