"""Tool execution logging: every tool start and end, with args, duration and error.

:func:`logged_tool_call` wraps each execution in a plugin's ``ToolNode``
(``awrap_tool_call``): it logs, bounds the call by the tool timeout and the
turn's deadline, turns a timeout into an error tool result, and stamps the
duration on the result. Whatever the tool raises, including ``SystemExit``,
``KeyboardInterrupt``, ``GeneratorExit`` and other ``BaseException`` subclasses, ends as an
error tool result; only the cancellation of the turn itself and the closing of this coroutine
propagate. :func:`tool_records` turns a step's calls and results into trace records and the tool-hop count
(control tools: ``goto_*``, ``transfer_to_*``, ``back`` never count).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph.errors import GraphBubbleUp
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from cadence.conventions import is_control_tool, message_text
from cadence.errors import ToolExecutionError
from cadence.plugins.containment import (
    is_real_cancellation,
    is_real_close,
    noting_tool_tasks,
    plugin_fault,
    stop_tasks,
)
from cadence.text import valid_unicode

logger = logging.getLogger(__name__)

MAX_RESULT_CHARS_IN_TRACE = 2000

__all__ = [
    "clipped_result",
    "is_real_cancellation",
    "logged_tool_call",
    "plugin_fault",
    "tool_error_message",
    "tool_records",
]


def tool_error_message(exc: Exception) -> str:
    """The content of an error tool result: what failed, so the agent can react."""
    if isinstance(exc, ToolExecutionError):
        return exc.message
    return ToolExecutionError.describing(exc).message


async def logged_tool_call(
    request: ToolCallRequest,
    execute: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command]],
    *,
    plugin: str = "?",
) -> ToolMessage | Command:
    """Log and time one tool execution, bounded by the tool timeout and the turn deadline.

    The call runs in a task of its own (:func:`_bounded`) that hands back whatever it raised, so an
    exception of any kind raised by the tool is raised again here and becomes an error result, and a
    tool that ignores its cancellation is stopped at the timeout rather than waited on forever.
    """
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
        result = await _bounded(lambda: execute(request), budget, name)
    except TimeoutError:
        error = f"the tool did not finish within {budget:.1f}s"
        result = _error_result(call, f"Error: {error}. Try a simpler request.")
    except GraphBubbleUp:  # interrupt() and friends steer the graph: not a failure
        raise
    except Exception as exc:  # an interceptor or the ToolNode itself failed
        result = _error_result(call, tool_error_message(exc))
    except BaseException as exc:  # SystemExit, KeyboardInterrupt, ... from plugin code
        if is_real_close(exc) or is_real_cancellation(exc):
            raise
        result = _error_result(call, plugin_fault(exc, plugin=plugin, tool=name).message)
    duration_ms = (time.monotonic() - started) * 1000
    # a tool that hung is the operator's concern; an error the tool returned (bad arguments, nothing
    # found) is part of the conversation: the model reads it and the trace records it
    hung = error is not None
    if isinstance(result, ToolMessage):
        if call.get("id") and result.tool_call_id != call["id"]:
            # a tool's own ToolMessage answering another call (or none): it answers this one, else the
            # call would stay unanswered in the thread beside an orphan result
            logger.warning(
                "tool result answered another call id; set to the call's",
                extra={"tool": name, "given_id": result.tool_call_id, "call_id": call["id"]},
            )
            result.tool_call_id = call["id"]
        result.name = result.name or name
        result.content = _valid_content(result.content)  # lone surrogates would break every encoder
        cap = getattr(settings, "max_tool_result_chars", None)
        if cap is not None and isinstance(result.content, str) and len(result.content) > cap:
            result.content = clipped_result(result.content, cap)
            logger.warning("tool result cut", extra={"tool": name, "limit": cap})
        if result.status == "error" and error is None:
            error = message_text(result)[:500]
        result.response_metadata = {**(result.response_metadata or {}), "duration_ms": round(duration_ms, 2)}
    log = logger.warning if hung else logger.info
    log("tool end", extra={"tool": name, "duration_ms": round(duration_ms, 2), "error": error})
    return result


CANCEL_GRACE_S = 1.0
"""Seconds a tool past its time is given to stop once cancelled; one that ignores its cancellation (an
``except CancelledError: pass`` in a loop) is stopped by closing its coroutine after them."""
_abandoned: set[asyncio.Task[Any]] = set()
"""Tools that ignored their cancellation, kept referenced until they end (or the process does)."""


async def _captured(start: Callable[[], Awaitable[Any]], tasks: list[asyncio.Task[Any]]) -> tuple[bool, Any]:
    """``(True, result)`` of what ``start`` returns, or ``(False, exception)`` of whatever it raised: a task
    must not raise ``SystemExit`` or ``KeyboardInterrupt`` (asyncio hands them to the event loop, which
    stops). The tasks running the tool's coroutine are noted in ``tasks``."""
    noting_tool_tasks(tasks)
    try:
        return True, await start()
    except BaseException as exc:  # handed back to the caller's task, raised there
        return False, exc


async def _bounded(start: Callable[[], Awaitable[Any]], budget: float | None, name: str) -> Any:
    """The result of what ``start`` returns within ``budget`` seconds (``TimeoutError`` after them), run in
    a task of its own: cancelled at the timeout, its coroutine closed if it ignores that for
    :data:`CANCEL_GRACE_S`; when the caller itself is cancelled (the turn stopped), the tool is cancelled
    and never waited on."""
    inner: list[asyncio.Task[Any]] = []
    task = asyncio.ensure_future(_captured(start, inner))
    try:
        done, _ = await asyncio.wait({task}, timeout=budget)
    except BaseException:
        task.cancel()
        _leave_behind(task)
        # stopped (GeneratorExit) if it still runs after the grace: it ignored the cancellation
        asyncio.get_running_loop().call_later(CANCEL_GRACE_S, stop_tasks, [task, *inner])
        raise
    if not done:
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=CANCEL_GRACE_S)
        if not done:
            # it swallows CancelledError: its coroutine is closed where it waits (GeneratorExit), so the
            # task ends at the next cancellation, and nothing (the event loop's shutdown) waits on it forever
            logger.error("tool ignored its cancellation and was stopped", extra={"tool": name})
            stop_tasks([task, *inner])
            _leave_behind(task)
        raise TimeoutError
    ok, value = task.result()
    if not ok:
        raise value
    return value


def _leave_behind(task: asyncio.Task[Any]) -> None:
    """Keep a reference to a tool task no one waits for any more, until it ends."""
    if not task.done():
        _abandoned.add(task)
        task.add_done_callback(_abandoned.discard)


def clipped_result(text: str, cap: int) -> str:
    """``text`` cut to ``cap`` characters, ending with a note of what was cut (the model and the
    trace see a result that says it is incomplete, not a silently shorter one)."""
    note = (
        f"\n… [cut: the tool returned {len(text):,} characters, more than CADENCE_MAX_TOOL_RESULT_CHARS "
        f"({cap:,}); ask for less, e.g. a narrower query]"
    )
    return text[: max(cap - len(note), 0)] + note


def _valid_content(content: Any) -> Any:
    """A tool message's content with :func:`~cadence.text.valid_unicode` text (blocks' ``text`` too)."""
    if isinstance(content, str):
        return valid_unicode(content)
    if isinstance(content, list):
        return [_valid_content(b) if isinstance(b, str) else _valid_block(b) for b in content]
    return content


def _valid_block(block: Any) -> Any:
    if isinstance(block, dict) and isinstance(block.get("text"), str):
        return {**block, "text": valid_unicode(block["text"])}
    return block


def _error_result(call: dict[str, Any] | Any, content: str) -> ToolMessage:
    return ToolMessage(
        content=content, tool_call_id=call.get("id") or "", name=call.get("name", "?"), status="error"
    )


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
