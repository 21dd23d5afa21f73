"""Human approval of tool calls: how a plugin declares that a tool needs a human's yes.

A tool that changes something (writes a file, sends a message, spends money) can ask
for approval before it runs. The turn then pauses with one pending approval per call;
a human approves, rejects (the agent sees the rejection message as the tool's result)
or edits the arguments, and the same turn continues.

Three ways to ask, from the most specific:

- per tool, statically::

      @requires_approval(reason="writes a file into the docs folder")
      @tool
      def write_note(title: str, text: str) -> str: ...

- per tool, by a policy over the call's arguments (``True`` or a reason string: ask;
  ``False``/``None``: run without asking; any other verdict asks when truthy)::

      requires_approval(transfer, when=lambda args: args.get("amount", 0) > 100 and "over 100")

- per plugin: ``PluginMetadata(requires_approval=True, ...)`` asks for every tool of the plugin.

Operators can force it for any tool without touching its code: ``CADENCE_APPROVAL_TOOLS``
(comma-separated tool names, ``*`` for every tool). The declaration lives in the tool's
``metadata`` (:data:`APPROVAL_METADATA_KEY`), so it travels with the tool object.

This module imports nothing of Cadence outside the SDK.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar, overload

from langchain_core.tools import BaseTool

APPROVAL_METADATA_KEY = "cadence_approval"
"""``tool.metadata[APPROVAL_METADATA_KEY]``: ``True`` (always ask) or an :data:`ApprovalPolicy`."""
APPROVAL_REASON_KEY = "cadence_approval_reason"
"""``tool.metadata[APPROVAL_REASON_KEY]``: why the tool needs approval (shown to the human)."""

ApprovalPolicy = Callable[[Mapping[str, Any]], bool | str | None]
"""``policy(arguments)`` → ``True`` or a reason string to ask a human; ``False``/``None`` to run (any
other verdict asks when truthy: a count, numpy's bool)."""

T = TypeVar("T", bound=BaseTool)


@overload
def requires_approval(tool: T, *, when: ApprovalPolicy | None = None, reason: str | None = None) -> T: ...


@overload
def requires_approval(
    tool: None = None, *, when: ApprovalPolicy | None = None, reason: str | None = None
) -> Callable[[T], T]: ...


def requires_approval(
    tool: T | None = None, *, when: ApprovalPolicy | None = None, reason: str | None = None
) -> T | Callable[[T], T]:
    """Mark ``tool`` as needing a human's approval before it runs (usable as a decorator).

    ``when``: a policy over the call's arguments (default: always ask). ``reason``: what the
    human is told about why (default: the policy's string, or "changes something").
    Returns the same tool object, its ``metadata`` extended.
    """

    def mark(target: T) -> T:
        if not isinstance(target, BaseTool):
            raise TypeError(
                f"requires_approval expects a LangChain tool (apply it above @tool), got {target!r}"
            )
        if when is not None and not callable(when):
            raise TypeError("requires_approval(when=...) must be a callable over the call's arguments")
        metadata = dict(target.metadata or {})
        metadata[APPROVAL_METADATA_KEY] = when if when is not None else True
        if reason:
            metadata[APPROVAL_REASON_KEY] = reason
        target.metadata = metadata
        return target

    return mark(tool) if tool is not None else mark


def approval_declaration(tool: BaseTool) -> tuple[bool | ApprovalPolicy, str | None]:
    """What ``tool`` declares: ``(False, None)``, ``(True, reason)`` or ``(policy, reason)``."""
    metadata = tool.metadata or {}
    declared = metadata.get(APPROVAL_METADATA_KEY, False)
    reason = metadata.get(APPROVAL_REASON_KEY)
    if callable(declared):
        return declared, reason
    return bool(declared), reason


__all__ = [
    "APPROVAL_METADATA_KEY",
    "APPROVAL_REASON_KEY",
    "ApprovalPolicy",
    "approval_declaration",
    "requires_approval",
]
