"""Route counting: the consecutive-route counters the guards read.

- Agent hops: only routes to agents count (``goto_finalize`` does not); the
  coordinator counts them in the state's ``agent_hops``.
- Tool hops: executions of work tools count (the routing tools, ``goto_*`` and
  ``transfer_to_*``, and ``back`` do not); the plugin's tools node counts them in ``tool_hops``.
- Consecutive routes: routes in a row to the same agent, counted here; the counter
  resets on ``goto_finalize`` or a change of agent.

The limits themselves are checked by the guards in :mod:`cadence.orchestration.guards`.
"""

from __future__ import annotations

from typing import Any

from cadence.orchestration.state import PluginContextFields as F


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
