"""Quick tools: how a plugin declares that a synchronous tool may run on the event loop.

A plain ``def`` tool runs in its plugin's own threads (docs/plugins.md, "Faults are contained"),
so a call that blocks or hangs holds one of those threads and nothing else. The price is a
hand-over to a thread and back on every call, about a quarter of a millisecond: more than a
small computation itself costs. A tool that only computes, quickly and in bounded time, with
no I/O, no sleeping and no locks (arithmetic, unit conversion, parsing a string), can declare
so and run on the event loop, like an ``async def`` tool::

    @inline
    @tool
    def percent_of(percent: float, value: float) -> str: ...

or, without a decorator, ``inline(percent_of)``. The declaration lives in the tool's
``metadata`` (:data:`INLINE_METADATA_KEY`), so it travels with the tool object, like
:func:`cadence.sdk.requires_approval`; Cadence never decides by a tool's name.

Cadence checks the promise: once two calls have taken longer than ``CADENCE_INLINE_TOOL_MAX_MS``
(garbage collection not counted), a warning is logged and the tool's later calls run in the
plugin's threads again. ``CADENCE_INLINE_TOOL_MAX_MS=0``
runs every synchronous tool in the threads. Errors are contained either way.

This module imports nothing of Cadence outside the SDK.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, overload

from langchain_core.tools import BaseTool

INLINE_METADATA_KEY = "cadence_inline"
"""``tool.metadata[INLINE_METADATA_KEY]``: True when a synchronous tool may run on the event loop."""

T = TypeVar("T", bound=BaseTool)


@overload
def inline(tool: T) -> T: ...


@overload
def inline(tool: None = None) -> Callable[[T], T]: ...


def inline(tool: T | None = None) -> T | Callable[[T], T]:
    """Declare ``tool`` quick: bounded computation, no I/O, so it may run on the event loop (a decorator too).

    Returns the same tool object, its ``metadata`` extended. An ``async def`` tool runs on the
    event loop anyway; the declaration matters for plain ``def`` tools.
    """

    def mark(target: T) -> T:
        if not isinstance(target, BaseTool):
            raise TypeError(f"inline expects a LangChain tool (apply it above @tool), got {target!r}")
        target.metadata = {**(target.metadata or {}), INLINE_METADATA_KEY: True}
        return target

    return mark(tool) if tool is not None else mark


def is_inline(tool: BaseTool) -> bool:
    """Whether ``tool`` declares itself quick enough to run on the event loop (see :func:`inline`)."""
    return bool((tool.metadata or {}).get(INLINE_METADATA_KEY, False))


__all__ = ["INLINE_METADATA_KEY", "inline", "is_inline"]
