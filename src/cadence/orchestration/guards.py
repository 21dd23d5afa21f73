"""The guards that guarantee a turn ends, behind one small interface.

A guard looks at where the turn stands (:class:`GuardView`) and answers with a
:class:`SuspendReason` (stop here, and why) or ``None`` (carry on); guards are
composed in order and the first reason wins, like AutoGen's termination
conditions. The coordinator checks two chains:

- :data:`BEFORE_DECISION`, at every visit before any model call: the tool hops
  (``max_tool_hops``), then the turn's deadline (the work part of it, see
  :meth:`TurnContext.expired`);
- :data:`ON_ROUTE`, when the coordinator routes to an agent: the agent hops
  (``max_agent_hops``), then consecutive routes to the same agent
  (``coordinator_consecutive_agent_route_limit``).

A reason is stored in the plugin context as its JSON form (:meth:`SuspendReason.to_dict`),
which is also what the trace's ``suspend_details`` and the ``suspend`` stream event carry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Protocol

from cadence.orchestration.state import PluginContextFields as F
from cadence.orchestration.turn import TurnContext
from cadence.settings import Settings


class SuspendCode(StrEnum):
    """Why a turn was suspended (the ``code`` of a suspend reason)."""

    MAX_AGENT_HOPS = "max_agent_hops"
    """The next route would exceed ``CADENCE_MAX_AGENT_HOPS``."""
    MAX_TOOL_HOPS = "max_tool_hops"
    """The turn has run ``CADENCE_MAX_TOOL_HOPS`` work tools."""
    CONSECUTIVE_AGENT_ROUTES = "consecutive_agent_routes"
    """The next route would exceed ``CADENCE_COORDINATOR_CONSECUTIVE_AGENT_ROUTE_LIMIT`` routes in a row."""
    DEADLINE = "deadline"
    """The work part of the turn's time (``CADENCE_TURN_TIMEOUT`` minus the final reserve) is spent."""


@dataclass(frozen=True)
class SuspendReason:
    """A guard's verdict: the turn stops here and the suspend node explains why."""

    code: SuspendCode
    """Which guard fired."""
    current: int
    """The count that reached the limit (0 for the deadline)."""
    maximum: int
    """The limit (0 for the deadline)."""
    agent: str | None = None
    """The agent routed to in a row (consecutive routes only)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form kept in the plugin context, the trace and the ``suspend`` event."""
        out: dict[str, Any] = {"code": str(self.code), "current": self.current, "maximum": self.maximum}
        if self.agent is not None:
            out["agent"] = self.agent
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> SuspendReason | None:
        """The record back from its JSON form (None for no reason or an unknown code)."""
        if not data:
            return None
        try:
            code = SuspendCode(data.get("code"))
        except ValueError:
            return None
        return cls(
            code=code,
            current=_int(data.get("current")),
            maximum=_int(data.get("maximum")),
            agent=data.get("agent"),
        )


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


@dataclass(frozen=True)
class GuardView:
    """Where the turn stands when the coordinator consults its guards."""

    settings: Settings
    """The turn's settings (the limits)."""
    agent_hops: int
    """Routes to agents so far in this turn."""
    tool_hops: int
    """Work tools run so far in this turn."""
    plugin_context: Mapping[str, Any]
    """The turn's plugin context (the consecutive-route counters)."""
    context: TurnContext | None = None
    """The run context (the deadline); None outside a run."""
    route: str | None = None
    """The agent about to be routed to (route guards only)."""

    def routing_to(self, agent: str) -> GuardView:
        """The same view, about a route to ``agent``."""
        return replace(self, route=agent)


class Guard(Protocol):
    """One guard: a suspend reason, or None to carry on."""

    def check(self, view: GuardView) -> SuspendReason | None:
        """The reason to suspend now, or None."""
        ...


class ToolHopGuard:
    """Suspends once the turn has run ``max_tool_hops`` work tools.

    Control tools (``goto_*``, ``transfer_to_*``, ``back``) never count.
    """

    def check(self, view: GuardView) -> SuspendReason | None:
        """``max_tool_hops`` when the tool hops reached the limit."""
        if view.tool_hops >= view.settings.max_tool_hops:
            return SuspendReason(SuspendCode.MAX_TOOL_HOPS, view.tool_hops, view.settings.max_tool_hops)
        return None


class DeadlineGuard:
    """Suspends when the work part of the turn's time is spent (the final answer keeps its reserve)."""

    def check(self, view: GuardView) -> SuspendReason | None:
        """``deadline`` when the turn's work time has run out."""
        if view.context is not None and view.context.expired(keep_reserve=True):
            return SuspendReason(SuspendCode.DEADLINE, 0, 0)
        return None


class AgentHopGuard:
    """Suspends instead of the route that would exceed ``max_agent_hops``."""

    def check(self, view: GuardView) -> SuspendReason | None:
        """``max_agent_hops`` when one more route is one too many."""
        if view.route is None:
            return None
        if view.agent_hops + 1 > view.settings.max_agent_hops:
            return SuspendReason(SuspendCode.MAX_AGENT_HOPS, view.agent_hops, view.settings.max_agent_hops)
        return None


class ConsecutiveRouteGuard:
    """Suspends instead of a route that repeats the same agent more than the limit allows in a row."""

    def check(self, view: GuardView) -> SuspendReason | None:
        """``consecutive_agent_routes`` when this route would be one too many in a row."""
        if view.route is None:
            return None
        ctx = view.plugin_context
        same = ctx.get(F.LAST_ROUTED_AGENT) == view.route
        consecutive = (int(ctx.get(F.SAME_AGENT_CONSECUTIVE_ROUTES) or 0) if same else 0) + 1
        limit = view.settings.coordinator_consecutive_agent_route_limit
        if consecutive > limit:
            return SuspendReason(SuspendCode.CONSECUTIVE_AGENT_ROUTES, consecutive, limit, agent=view.route)
        return None


@dataclass(frozen=True)
class FirstOf:
    """Guards composed in order: the first reason wins."""

    guards: tuple[Guard, ...]
    """The guards, in the order they are checked."""

    def check(self, view: GuardView) -> SuspendReason | None:
        """The first guard's reason, or None when every guard lets the turn carry on."""
        return first_reason(self.guards, view)


def first_reason(guards: Iterable[Guard], view: GuardView) -> SuspendReason | None:
    """The first reason any of ``guards`` gives for ``view``, checked in order."""
    for guard in guards:
        reason = guard.check(view)
        if reason is not None:
            return reason
    return None


BEFORE_DECISION = FirstOf((ToolHopGuard(), DeadlineGuard()))
"""Checked at every coordinator visit before its model call."""
ON_ROUTE = FirstOf((AgentHopGuard(), ConsecutiveRouteGuard()))
"""Checked when the coordinator routes to an agent."""


def suspend_reason(plugin_context: Mapping[str, Any] | None) -> SuspendReason | None:
    """The turn's suspend reason from its plugin context (None when the turn was not suspended)."""
    return SuspendReason.from_dict((plugin_context or {}).get(F.SUSPEND_REASON))


__all__ = [
    "BEFORE_DECISION",
    "ON_ROUTE",
    "AgentHopGuard",
    "ConsecutiveRouteGuard",
    "DeadlineGuard",
    "FirstOf",
    "Guard",
    "GuardView",
    "SuspendCode",
    "SuspendReason",
    "ToolHopGuard",
    "first_reason",
    "suspend_reason",
]
