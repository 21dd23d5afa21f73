"""Message compaction for the synthesizer (and the suspend node).

The history is split at the last human message. What comes before is earlier
conversation (kept as user/assistant text); what comes after is this turn's
work: agent messages, tool calls and tool results. Modes:

- ``tool``: the work is folded into one tool call/result pair after the question;
- ``system``: the work is appended to the system prompt;
- ``none``: every (safe) message is sent as it is.

Compacted work longer than the max-characters setting is cut with an explicit
``… (truncated)`` marker; the user's question is never dropped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from cadence.conventions import (
    FINAL_NODES,
    GraphNodeNames,
    answer_text,
    is_control_tool,
    message_text,
    split_at_last_human,
)
from cadence.orchestration.safety import safe_messages

COMPACTION_HEADER = "The agents' results for this question:"
TRUNCATION_MARK = "… (truncated)"
WORK_TOOL_NAME = "agent_results"
WORK_CALL_ID = "call_work"
"""The id of the folded work's call: it only has to be unique within the one model call it is sent with."""


@dataclass(frozen=True)
class CompactedMessages:
    """The messages to send after the system prompt, and text to append to that prompt."""

    messages: list[BaseMessage]
    system_suffix: str = ""
    work_text: str = ""


def earlier_conversation(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Earlier turns as plain user questions and final answers."""
    out: list[BaseMessage] = []
    for msg in messages:
        if isinstance(msg, HumanMessage):
            out.append(msg)
        elif isinstance(msg, AIMessage) and msg.name in FINAL_NODES and message_text(msg).strip():
            out.append(AIMessage(content=message_text(msg), name=msg.name))
    return out


def _fmt_args(args: dict[str, object]) -> str:
    try:
        return json.dumps(args, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return str(args)


def describe_work(messages: Sequence[BaseMessage]) -> str:
    """One line per agent statement and per tool call with its result (routing bookkeeping omitted).

    A call and its result share a line, ``[agent] tool({args}) result: ...`` (``error:`` for a
    failure); a call left without a result keeps its own line, ``[agent] called tool({args})``.
    """
    lines: list[str] = []
    calls: dict[str, tuple[str, str, int]] = {}
    for msg in messages:
        if isinstance(msg, AIMessage):
            who = msg.name or "agent"
            if who in (GraphNodeNames.COORDINATOR, GraphNodeNames.SUPERVISOR):  # routing decisions, not work
                continue
            text = answer_text(msg)  # what it said, not its reasoning
            if text:
                lines.append(f"[{who}] said: {text}")
            for call in msg.tool_calls or []:
                if is_control_tool(call.get("name")):
                    continue
                signature = f"{call['name']}({_fmt_args(call.get('args') or {})})"
                calls[call.get("id") or ""] = (who, signature, len(lines))
                lines.append(f"[{who}] called {signature}")
        elif isinstance(msg, ToolMessage):
            if msg.tool_call_id not in calls:
                continue
            who, signature, index = calls.pop(msg.tool_call_id)
            status = "error" if getattr(msg, "status", "success") == "error" else "result"
            lines[index] = f"[{who}] {signature} {status}: {message_text(msg).strip()}"
    return "\n".join(lines)


def truncate(text: str, max_chars: int) -> str:
    """Cut ``text`` to ``max_chars`` with an explicit marker."""
    if len(text) <= max_chars:
        return text
    keep = max(0, max_chars - len(TRUNCATION_MARK) - 1)
    return text[:keep].rstrip() + "\n" + TRUNCATION_MARK


def compact_messages(messages: Sequence[BaseMessage], mode: str, max_chars: int) -> CompactedMessages:
    """Prepare the synthesizer's conversation according to ``mode`` (tool | system | none)."""
    if mode == "none":
        return CompactedMessages(messages=safe_messages(messages))
    before, question, after = split_at_last_human(messages)
    history = earlier_conversation(before)
    work = describe_work(safe_messages(after))
    body = truncate(work, max_chars)
    work_text = f"{COMPACTION_HEADER}\n{body}"
    convo = [*history, *([question] if question is not None else [])]
    if not work:
        # nothing was gathered this turn: no results block at all (the prompt forbids inventing)
        return CompactedMessages(messages=convo)
    if mode == "system":
        return CompactedMessages(messages=convo, system_suffix="\n\n" + work_text, work_text=work_text)
    call_id = WORK_CALL_ID
    folded = [
        AIMessage(
            content="", tool_calls=[{"name": WORK_TOOL_NAME, "args": {}, "id": call_id, "type": "tool_call"}]
        ),
        ToolMessage(content=work_text, tool_call_id=call_id, name=WORK_TOOL_NAME),
    ]
    return CompactedMessages(messages=[*convo, *folded], work_text=work_text)


def with_system(prompt: str, compacted: CompactedMessages) -> list[BaseMessage]:
    """The full message list: the system prompt (plus any suffix), then the compacted conversation."""
    return [SystemMessage(content=prompt + compacted.system_suffix), *compacted.messages]
