"""Message safety: never send a model an AI tool call without its tool result.

Providers reject (HTTP 400) a history in which an assistant message requests tool
calls that are not all answered by tool messages, or a tool message that answers
no call. :func:`safe_messages` repairs a history before every model call.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from cadence.conventions import has_text, is_control_tool, message_text

logger = logging.getLogger(__name__)

__all__ = [
    "is_control_tool",
    "message_text",
    "safe_messages",
    "strip_control_messages",
    "unanswered_tool_calls",
]


def safe_messages(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Return a copy of ``messages`` in which every tool call is answered.

    - An AI message whose tool calls are not all answered by the tool messages that
      follow it keeps its text but loses its tool calls (or is dropped if it has no text).
    - Tool messages that answer no preceding call are dropped.
    - Invalid (unparseable) tool calls are removed.
    """
    result: list[BaseMessage] = []
    n = len(messages)
    i = 0
    while i < n:
        msg = messages[i]
        if isinstance(msg, AIMessage):
            calls = [c for c in (msg.tool_calls or []) if c.get("id")]
            # gather the contiguous tool messages that follow
            j = i + 1
            answered: dict[str, ToolMessage] = {}
            while j < n and isinstance(messages[j], ToolMessage):
                tm = messages[j]
                assert isinstance(tm, ToolMessage)
                answered.setdefault(tm.tool_call_id, tm)
                j += 1
            complete = bool(calls) and all(c["id"] in answered for c in calls)
            has_invalid = bool(getattr(msg, "invalid_tool_calls", None))
            if calls and complete:
                fixed = msg
                if has_invalid or len(calls) != len(msg.tool_calls or []):
                    fixed = msg.model_copy(update={"invalid_tool_calls": [], "tool_calls": calls})
                result.append(fixed)
                ids = {c["id"] for c in calls}
                for k in range(i + 1, j):
                    tm = messages[k]
                    if isinstance(tm, ToolMessage) and tm.tool_call_id in ids:
                        result.append(tm)
                        ids.discard(tm.tool_call_id)
                i = j
                continue
            if msg.tool_calls or has_invalid:
                logger.debug("dropping unanswered tool calls", extra={"message_id": msg.id})
                if has_text(msg):
                    result.append(msg.model_copy(update={"tool_calls": [], "invalid_tool_calls": []}))
                i = j  # the partial tool results answer a dropped call: drop them too
                continue
            result.append(msg)
            i += 1
            continue
        if isinstance(msg, ToolMessage):
            logger.debug("dropping orphan tool message", extra={"tool_call_id": msg.tool_call_id})
            i += 1
            continue
        result.append(msg)
        i += 1
    return result


def unanswered_tool_calls(messages: Sequence[BaseMessage]) -> list[str]:
    """Ids of tool calls in ``messages`` that no later tool message answers (for checks and tests)."""
    pending: dict[str, int] = {}
    for msg in messages:
        if isinstance(msg, AIMessage):
            for call in msg.tool_calls or []:
                if call.get("id"):
                    pending[call["id"]] = 1
            for call in getattr(msg, "invalid_tool_calls", None) or []:
                if call.get("id"):
                    pending[call["id"]] = 1
        elif isinstance(msg, ToolMessage):
            pending.pop(msg.tool_call_id, None)
    return list(pending)


def strip_control_messages(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Drop routing chains (``goto_*``/``transfer_to_*``/``back`` calls and their results), keeping any text.

    Agents see the conversation without the coordinator's bookkeeping, so a model is
    never shown calls to tools it was not offered.
    """
    control_ids: set[str] = set()
    out: list[BaseMessage] = []
    for msg in messages:
        if isinstance(msg, AIMessage) and msg.tool_calls:
            keep = [c for c in msg.tool_calls if not is_control_tool(c.get("name"))]
            control_ids.update(
                c["id"] for c in msg.tool_calls if is_control_tool(c.get("name")) and c.get("id")
            )
            if len(keep) != len(msg.tool_calls):
                if keep or has_text(msg):
                    out.append(msg.model_copy(update={"tool_calls": keep}))
                continue
        if isinstance(msg, ToolMessage) and msg.tool_call_id in control_ids:
            continue
        out.append(msg)
    return out
