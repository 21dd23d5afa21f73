"""The guards: one interface, composed in order, typed reasons with the JSON the trace has always had."""

from __future__ import annotations

import time

from tests.conftest import make_settings

from cadence.orchestration.guards import (
    BEFORE_DECISION,
    ON_ROUTE,
    AgentHopGuard,
    ConsecutiveRouteGuard,
    DeadlineGuard,
    FirstOf,
    GuardView,
    SuspendCode,
    SuspendReason,
    ToolHopGuard,
    suspend_reason,
)
from cadence.orchestration.prompts import SUSPEND_REASONS
from cadence.orchestration.state import PluginContextFields as F
from cadence.orchestration.state import new_plugin_context
from cadence.orchestration.suspend import suspend_reason_text
from cadence.orchestration.turn import TurnContext


def view(**kw: object) -> GuardView:
    settings = make_settings(max_agent_hops=3, max_tool_hops=4, coordinator_consecutive_agent_route_limit=2)
    base: dict[str, object] = {
        "settings": settings,
        "agent_hops": 0,
        "tool_hops": 0,
        "plugin_context": new_plugin_context(),
        "context": None,
    }
    base.update(kw)
    return GuardView(**base)  # type: ignore[arg-type]


def test_reasons_serialise_to_the_dicts_the_trace_always_carried() -> None:
    assert SuspendReason(SuspendCode.DEADLINE, 0, 0).to_dict() == {
        "code": "deadline",
        "current": 0,
        "maximum": 0,
    }
    assert SuspendReason(SuspendCode.CONSECUTIVE_AGENT_ROUTES, 3, 2, agent="math").to_dict() == {
        "code": "consecutive_agent_routes",
        "current": 3,
        "maximum": 2,
        "agent": "math",
    }
    for code in SuspendCode:
        reason = SuspendReason(code, 5, 4)
        assert SuspendReason.from_dict(reason.to_dict()) == reason
        assert code in SUSPEND_REASONS
    assert SuspendReason.from_dict({"code": "nonsense"}) is None
    assert SuspendReason.from_dict(None) is None


def test_before_the_decision_tool_hops_come_before_the_deadline() -> None:
    settings = make_settings(max_tool_hops=4, turn_timeout=10)
    expired = TurnContext(settings=settings, deadline=time.monotonic() - 1)
    assert BEFORE_DECISION.check(view(tool_hops=3)) is None
    assert BEFORE_DECISION.check(view(tool_hops=4, context=expired)) == SuspendReason(
        SuspendCode.MAX_TOOL_HOPS, 4, 4
    )
    assert BEFORE_DECISION.check(view(tool_hops=0, context=expired)) == SuspendReason(
        SuspendCode.DEADLINE, 0, 0
    )
    fresh = TurnContext(settings=settings, deadline=time.monotonic() + 3600)
    assert DeadlineGuard().check(view(context=fresh)) is None


def test_route_guards_agent_hops_first_then_consecutive_routes() -> None:
    ctx = new_plugin_context()
    ctx[F.LAST_ROUTED_AGENT] = "math"
    ctx[F.SAME_AGENT_CONSECUTIVE_ROUTES] = 2
    assert ON_ROUTE.check(view(plugin_context=ctx)) is None  # no route: nothing to say
    assert ON_ROUTE.check(view(agent_hops=1, plugin_context=ctx).routing_to("info")) is None
    assert ON_ROUTE.check(view(agent_hops=1, plugin_context=ctx).routing_to("math")) == SuspendReason(
        SuspendCode.CONSECUTIVE_AGENT_ROUTES, 3, 2, agent="math"
    )
    assert ON_ROUTE.check(view(agent_hops=3, plugin_context=ctx).routing_to("math")) == SuspendReason(
        SuspendCode.MAX_AGENT_HOPS, 3, 3
    )


def test_composition_is_ordered_and_the_first_reason_wins() -> None:
    v = view(agent_hops=3, tool_hops=4).routing_to("math")
    assert FirstOf((ToolHopGuard(), AgentHopGuard())).check(v) == SuspendReason(
        SuspendCode.MAX_TOOL_HOPS, 4, 4
    )
    assert FirstOf((AgentHopGuard(), ToolHopGuard())).check(v) == SuspendReason(
        SuspendCode.MAX_AGENT_HOPS, 3, 3
    )
    assert FirstOf((ConsecutiveRouteGuard(),)).check(v) is None


def test_the_suspend_node_reads_the_reason_in_plain_words() -> None:
    state = {"plugin_context": {F.SUSPEND_REASON: SuspendReason(SuspendCode.MAX_TOOL_HOPS, 4, 4).to_dict()}}
    assert suspend_reason(state["plugin_context"]) == SuspendReason(SuspendCode.MAX_TOOL_HOPS, 4, 4)
    assert suspend_reason_text(state) == "it ran as many lookups and calculations (4/4) as one answer may use"
    assert suspend_reason_text({}) == "it needed more steps than one answer may take"
