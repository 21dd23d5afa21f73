"""Orchestration modes, side by side: each is a graph builder over the same plugin bundles.

- ``coordinator`` (:mod:`.coordinator`): a coordinator routes one agent step at a time;
- ``supervisor`` (:mod:`.supervisor`): a supervisor hands off, each agent loops over its tools
  until it answers, then hands back.
- ``single`` (:mod:`.single`): one agent ⇄ its tools, its answer is the final answer (no coordinator).
- ``planner`` (:mod:`.planner`): a planner decides first (researcher | validator | end), root answers.

The engine compiles one graph per mode when a turn first asks for it; ``CADENCE_MODE`` is the
default, a request may name another (API ``mode``, ``cadence chat --mode``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.graph.state import CompiledStateGraph

from cadence.conventions import GOTO_NAMING, GraphNodeNames, RouteNaming
from cadence.errors import ValidationError
from cadence.orchestration.graph import ModelResolver
from cadence.orchestration.modes import coordinator, planner, single, supervisor
from cadence.plugins.bundle import PluginBundle
from cadence.settings import Settings

GraphBuilder = Callable[[dict[str, PluginBundle], Settings, ModelResolver, Any], CompiledStateGraph]
"""``build(bundles, settings, models, checkpointer)`` → the mode's compiled graph."""

MODES: dict[str, GraphBuilder] = {
    coordinator.NAME: coordinator.build_coordinator_graph,
    supervisor.NAME: supervisor.build_supervisor_graph,
    planner.NAME: planner.build_planner_graph,
    single.NAME: single.build_single_graph,
}
"""The registry: mode name → graph builder."""

ENTRY_NODES: dict[str, str] = {
    coordinator.NAME: GraphNodeNames.COORDINATOR,
    supervisor.NAME: GraphNodeNames.SUPERVISOR,
    planner.NAME: GraphNodeNames.PLANNER,
    single.NAME: "{agent}_agent",
}
"""Each mode's first node (the stream's first ``node`` event); ``{agent}`` is the turn's agent."""

ROUTE_NAMINGS: dict[str, RouteNaming] = {
    coordinator.NAME: GOTO_NAMING,
    supervisor.NAME: supervisor.Supervisor.route_naming,
}
"""How each routing mode's deciding node names its routing tools: ``goto_{name}_agent`` (coordinator),
``transfer_to_{name}`` (supervisor); a route forced in a fork calls the decider's own tool."""

DEFAULT_MODE = coordinator.NAME
"""The mode of ``CADENCE_MODE``'s default."""


def mode_names() -> list[str]:
    """The modes' names, in registry order."""
    return list(MODES)


def check_mode(name: str) -> str:
    """``name`` trimmed and in lower case if it is a mode; else ValidationError ``unknown_mode``."""
    normalised = str(name).strip().lower()
    if normalised not in MODES:
        raise ValidationError(
            f"Unknown mode {str(name)[:40]!r}; use one of: {', '.join(MODES)}.", code="unknown_mode"
        )
    return normalised


def graph_builder(name: str) -> GraphBuilder:
    """The builder of mode ``name`` (checked with :func:`check_mode`)."""
    return MODES[check_mode(name)]


__all__ = [
    "DEFAULT_MODE",
    "ENTRY_NODES",
    "MODES",
    "ROUTE_NAMINGS",
    "GraphBuilder",
    "check_mode",
    "graph_builder",
    "mode_names",
]
