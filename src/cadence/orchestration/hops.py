"""Hop counting and the guards that guarantee a turn ends.

- Agent hops: only routes to agents count (``goto_finalize`` does not). At most
  ``max_agent_hops`` routes run; the next one suspends.
- Tool hops: executions of work tools count (``goto_*`` and ``back`` do not);
  reaching ``max_tool_hops`` suspends.
- Consecutive routes: at most ``coordinator_consecutive_agent_route_limit``
  routes in a row to the same agent; the next one suspends. The counter resets
  on ``goto_finalize`` or a change of agent.
"""

from __future__ import annotations

from typing import Any

from cadence.orchestration.state import PluginContextFields as F
from cadence.settings import Settings


def update_consecutive_routes(ctx: dict[str, Any], agent: str) -> dict[str, Any]:
    """Count a route to ``agent`` in the consecutive-route counters (returns the updated context)."""
    if ctx.get(F.LAST_ROUTED_AGENT) == agent:
        ctx[F.SAME_AGENT_CONSECUTIVE_ROUTES] = int(ctx.get(F.SAME_AGENT_CONSECUTIVE_ROUTES) or 0) + 1
    else:
        ctx[F.LAST_ROUTED_AGENT] = agent
        ctx[F.SAME_AGENT_CONSECUTIVE_ROUTES] = 1
    return ctx


def reset_route_counters(ctx: dict[str, Any]) -> dict[str, Any]:
    """Reset the consecutive-route counters (on finalize)."""
    ctx[F.LAST_ROUTED_AGENT] = None
    ctx[F.SAME_AGENT_CONSECUTIVE_ROUTES] = 0
    return ctx


def tool_hop_limit_reached(tool_hops: int, settings: Settings) -> bool:
    """Whether the turn has used all its tool executions."""
    return tool_hops >= settings.max_tool_hops


def check_route(
    agent: str, agent_hops: int, ctx: dict[str, Any], settings: Settings
) -> tuple[str, dict[str, Any]] | None:
    """The suspend reason a route to ``agent`` would trigger, checked in the seed's order, or None.

    Returns ``(reason, details)`` with reason ``max_agent_hops`` or ``consecutive_agent_routes``.
    """
    if agent_hops + 1 > settings.max_agent_hops:
        return "max_agent_hops", {"current": agent_hops, "maximum": settings.max_agent_hops}
    same = ctx.get(F.LAST_ROUTED_AGENT) == agent
    consecutive = (int(ctx.get(F.SAME_AGENT_CONSECUTIVE_ROUTES) or 0) if same else 0) + 1
    if consecutive > settings.coordinator_consecutive_agent_route_limit:
        return "consecutive_agent_routes", {
            "current": consecutive,
            "maximum": settings.coordinator_consecutive_agent_route_limit,
            "agent": agent,
        }
    return None
