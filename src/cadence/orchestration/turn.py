"""Per-turn runtime context and trace.

:class:`TurnContext` is the LangGraph run context (``context_schema``) of one turn:
its deadline, the settings, who is asking, and the :class:`TurnTrace` that every
node, model call and tool writes into. It is created by the engine for each turn
and reaches nodes as ``runtime.context``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, TypedDict

from cadence.settings import Settings


@dataclass
class ModelCallRecord:
    """One model call: which node made it, with which model, tokens and duration."""

    node: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    duration_ms: float = 0.0
    attempts: int = 1
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the trace."""
        return {
            "node": self.node,
            "model": self.model,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "duration_ms": round(self.duration_ms, 2),
            "attempts": self.attempts,
            "error": self.error,
        }


@dataclass
class TurnTrace:
    """What happened during one turn, beyond what the graph state records."""

    model_calls: list[ModelCallRecord] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    structured: dict[str, Any] | None = None
    validation: list[Any] = field(default_factory=list)
    """:class:`~cadence.orchestration.validation.ValidationRecord` of each validated final answer."""

    def usage(self) -> dict[str, int]:
        """Tokens summed over the turn's model calls."""
        inp = sum(c.input_tokens for c in self.model_calls)
        out = sum(c.output_tokens for c in self.model_calls)
        return {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out}


class TraceRecord(TypedDict):
    """The trace of one turn as the API, the CLI and ``TurnResult.trace`` carry it (JSON-ready)."""

    routing_history: list[str]
    """The agents routed to, in order."""
    agent_hops: int
    """Routes to agents in this turn."""
    tool_hops: int
    """Work tools run in this turn (control tools: ``goto_*``, ``transfer_to_*``, ``back`` never count)."""
    tools_used: list[dict[str, Any]]
    """One record per tool call: agent, tool, args, result (clipped), error, duration."""
    suspended: bool
    """Whether a guard stopped the turn."""
    suspend_reason: str | None
    """The suspend reason's code (a :class:`~cadence.orchestration.guards.SuspendCode`), or None."""
    suspend_details: dict[str, Any] | None
    """The suspend reason's JSON form (code, current, maximum, and agent for consecutive routes)."""
    model_calls: list[dict[str, Any]]
    """One :meth:`ModelCallRecord.to_dict` per model call."""
    usage: dict[str, int]
    """Tokens summed over the turn's model calls (input, output, total)."""
    duration_ms: float
    """Wall time of the turn."""
    tone: str
    """The tone the answer was written in."""
    mode: str
    """The orchestration mode the turn ran in (``coordinator``, ``supervisor``)."""
    structured: dict[str, Any] | None
    """The structured answer, when one was requested and produced."""
    errors: list[dict[str, Any]]
    """What went wrong along the way: ``{"node", "code", "message"}`` each."""
    notes: list[str]
    """Remarks of the nodes (e.g. a coordinator timeout, an answer rewritten by the check)."""
    validation: list[dict[str, Any]]
    """One ``ValidationRecord.to_dict()`` per validated final answer (``CADENCE_VALIDATION``)."""
    answered_by: str | None
    """The node that wrote the final answer: ``synthesizer``, ``forward``, ``suspend`` or ``root``."""


@dataclass
class TurnContext:
    """Run context of one turn (LangGraph ``context_schema``)."""

    settings: Settings
    deadline: float | None = None
    user_id: str | None = None
    thread_id: str | None = None
    mode: str = "coordinator"
    """The orchestration mode of the turn."""
    project_id: str | None = None
    """The project whose long-term memory the turn uses (None: the user's memory without a project)."""
    memory: Any = None
    """The engine's :class:`~cadence.memory.MemoryService` (None when ``CADENCE_MEMORY`` is off)."""
    volatile_tools: frozenset[str] = frozenset()
    """Tools whose results memory never keeps (declared with :func:`cadence.sdk.volatile`)."""
    memory_read: list[Any] | None = None
    """The memory namespace's items as the turn's recall read them (its ingestion reuses them
    instead of reading the namespace again); None when nothing was read."""
    agent: str | None = None
    """The agent a ``single``-mode turn talks to (None in the other modes)."""
    paused_approvals: list[dict[str, Any]] = field(default_factory=list)
    """A resumed turn: the approvals its pause asked about (as the human saw them). The approval step
    applies the human's decisions to exactly these calls, whatever the tools' rules say now."""
    trace: TurnTrace = field(default_factory=TurnTrace)
    started: float = field(default_factory=time.monotonic)

    def record_model_call(
        self,
        node: str,
        model: str,
        *,
        duration_ms: float,
        input_tokens: int = 0,
        output_tokens: int = 0,
        error: str | None = None,
    ) -> None:
        """Add a model call made outside the model-call path (a tool's own call) to the trace.

        Plugins reach it duck-typed (``langgraph.runtime.get_runtime().context``), without importing
        the orchestration.
        """
        self.trace.model_calls.append(
            ModelCallRecord(
                node=node,
                model=model,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                duration_ms=duration_ms,
                error=error,
            )
        )

    def remaining(self) -> float | None:
        """Seconds left before the turn's deadline (None when there is none)."""
        if self.deadline is None:
            return None
        return self.deadline - time.monotonic()

    @property
    def final_reserve(self) -> float:
        """Seconds kept back for the final answer: work stops this long before the deadline."""
        return min(5.0, 0.25 * self.settings.turn_timeout)

    def expired(self, *, keep_reserve: bool = False) -> bool:
        """Whether the deadline (or, with ``keep_reserve``, the work part of the turn) has passed."""
        rem = self.remaining()
        if rem is None:
            return False
        return rem <= (self.final_reserve if keep_reserve else 0)

    def budget(self, limit: float | None, *, keep_reserve: bool = False) -> float | None:
        """The smaller of ``limit`` and the time left (minus the final reserve for work steps)."""
        rem = self.remaining()
        if rem is None:
            return limit
        if keep_reserve:
            rem -= self.final_reserve
        rem = max(rem, 0.001)
        return rem if limit is None else min(limit, rem)
