"""Long-term memory and tools: how a plugin declares that a tool's results must not be remembered.

After every turn Cadence keeps the user's stated facts, the successful results of work tools and
the answers built on them in the user's long-term memory (docs/memory.md), and recalls them in
later threads of the same user. Some results are only true the moment they are computed: a clock
time, today's date, a stock price, the free disk space. Mark such a tool **volatile** and its
results are never kept (nor the answers that rest on them)::

    @volatile(reason="the current time changes every minute")
    @tool
    def current_time(location: str) -> str: ...

or, without a decorator, ``volatile(current_time)``. The declaration lives in the tool's
``metadata`` (:data:`VOLATILE_METADATA_KEY`), so it travels with the tool object, like
:func:`cadence.sdk.requires_approval`; Cadence never decides by a tool's name.

This module imports nothing of Cadence outside the SDK.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, overload

from langchain_core.tools import BaseTool

VOLATILE_METADATA_KEY = "cadence_volatile"
"""``tool.metadata[VOLATILE_METADATA_KEY]``: True when the tool's results must not be kept in memory."""
VOLATILE_REASON_KEY = "cadence_volatile_reason"
"""``tool.metadata[VOLATILE_REASON_KEY]``: why the results are volatile (documentation, logs)."""

T = TypeVar("T", bound=BaseTool)


@overload
def volatile(tool: T, *, reason: str | None = None) -> T: ...


@overload
def volatile(tool: None = None, *, reason: str | None = None) -> Callable[[T], T]: ...


def volatile(tool: T | None = None, *, reason: str | None = None) -> T | Callable[[T], T]:
    """Mark ``tool``'s results as volatile: never kept in long-term memory (usable as a decorator).

    ``reason``: why (e.g. "the current time changes every minute"). Returns the same tool object,
    its ``metadata`` extended.
    """

    def mark(target: T) -> T:
        if not isinstance(target, BaseTool):
            raise TypeError(f"volatile expects a LangChain tool (apply it above @tool), got {target!r}")
        metadata = dict(target.metadata or {})
        metadata[VOLATILE_METADATA_KEY] = True
        if reason:
            metadata[VOLATILE_REASON_KEY] = reason
        target.metadata = metadata
        return target

    return mark(tool) if tool is not None else mark


def is_volatile(tool: BaseTool) -> bool:
    """Whether ``tool`` declares its results volatile (see :func:`volatile`)."""
    return bool((tool.metadata or {}).get(VOLATILE_METADATA_KEY, False))


__all__ = ["VOLATILE_METADATA_KEY", "VOLATILE_REASON_KEY", "is_volatile", "volatile"]
