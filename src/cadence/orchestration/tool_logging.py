"""Tool execution logging: every tool start and end, with args, duration and error.

:func:`logged_tool_call` wraps each execution in a plugin's ``ToolNode``
(``awrap_tool_call``): it logs, bounds the call by the tool timeout and the
turn's deadline, turns a timeout into an error tool result, and stamps the
duration on the result. :func:`tool_records` turns a step's calls and results
into trace records and the tool-hop count (``goto_*`` and ``back`` never count).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from cadence.orchestration.safety import is_control_tool, message_text

logger = logging.getLogger(__name__)

MAX_RESULT_CHARS_IN_TRACE = 2000


def tool_error_message(exc: Exception) -> str:
    """The content of an error tool result: what failed, so the agent can react."""
    return f"Error: {type(exc).__name__}: {exc}. Check the arguments or try a different approach."


async def logged_tool_call(
    request: ToolCallRequest,
    execute: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command]],
) -> ToolMessage | Command:
    """Log and time one tool execution, bounded by the tool timeout and the turn deadline."""
    call = request.tool_call
    name = call.get("name", "?")
    context = getattr(request.runtime, "context", None)
    settings = getattr(context, "settings", None)
    limit = getattr(settings, "tool_timeout", None)
    budget = (
        context.budget(limit, keep_reserve=True)
        if context is not None and hasattr(context, "budget")
        else limit
    )
    logger.info(
        "tool start", extra={"tool": name, "tool_args": call.get("args"), "tool_call_id": call.get("id")}
    )
    started = time.monotonic()
    error: str | None = None
    try:
        if budget is None:
            result = await execute(request)
        else:
            result = await asyncio.wait_for(execute(request), timeout=budget)
    except TimeoutError:
        error = f"the tool did not finish within {budget:.1f}s"
        result = ToolMessage(
            content=f"Error: {error}. Try a simpler request.",
            tool_call_id=call.get("id") or "",
            name=name,
            status="error",
        )
    duration_ms = (time.monotonic() - started) * 1000
    if isinstance(result, ToolMessage):
        if result.status == "error" and error is None:
            error = message_text(result)[:500]
        result.response_metadata = {**(result.response_metadata or {}), "duration_ms": round(duration_ms, 2)}
    log = logger.warning if error else logger.info
    log("tool end", extra={"tool": name, "duration_ms": round(duration_ms, 2), "error": error})
    return result


def tool_records(agent: str, messages: Sequence[BaseMessage]) -> tuple[int, list[dict[str, Any]]]:
    """``(tool_hops, records)`` for the work tools answered in ``messages`` (an AI call message + results)."""
    calls: dict[str, dict[str, Any]] = {}
    for msg in messages:
        if isinstance(msg, AIMessage):
            for c in msg.tool_calls or []:
                calls[c.get("id") or ""] = c
    hops = 0
    records: list[dict[str, Any]] = []
    for msg in messages:
        if not isinstance(msg, ToolMessage):
            continue
        call = calls.get(msg.tool_call_id, {})
        name = call.get("name") or msg.name or "?"
        if is_control_tool(name):
            continue
        hops += 1
        text = message_text(msg)
        failed = msg.status == "error"
        records.append(
            {
                "agent": agent,
                "name": name,
                "args": call.get("args", {}),
                "result": None if failed else text[:MAX_RESULT_CHARS_IN_TRACE],
                "error": text[:MAX_RESULT_CHARS_IN_TRACE] if failed else None,
                "duration_ms": (msg.response_metadata or {}).get("duration_ms"),
            }
        )
    return hops, records
