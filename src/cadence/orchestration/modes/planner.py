"""The planner mode (seed 002): a planner decides first, sub-agents gather and check, root answers.

planner → researcher | validator | root; researcher ⇄ ``{plugin}_tools`` (rounds) → root;
validator ⇄ ``{plugin}_tools`` → root; root ⇄ ``{plugin}_tools`` (planned tools not run yet) → END.

The nodes are in :mod:`cadence.orchestration.planner`. What every mode shares is reused: the
plugins' tools steps (containment, logging, approval, hop counting), the guards, the
final-answer node (root is the synthesizer's class: tone, memory, answer check, validation),
the suspend-free partial answers, events, the trace and persistence.
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.graph import END, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from cadence.conventions import GraphNodeNames
from cadence.orchestration import plugin_nodes
from cadence.orchestration.graph import ModelResolver
from cadence.orchestration.planner import Planner, Researcher, Root, ToolRunner, Validator, catalogue
from cadence.orchestration.state import PlannerState
from cadence.orchestration.turn import TurnContext
from cadence.plugins.bundle import PluginBundle
from cadence.settings import Settings

logger = logging.getLogger(__name__)

NAME = "planner"
"""The mode's name (``CADENCE_MODE``, the API's ``mode``, ``cadence chat --mode``)."""

TOOL_USERS = (GraphNodeNames.RESEARCHER, GraphNodeNames.VALIDATOR, GraphNodeNames.ROOT)
"""The nodes that run tools; a tools step goes back to the one that asked."""


def back_to_caller(state: dict[str, Any], update: dict[str, Any], runtime: Runtime[Any]) -> str:
    """Where a tools step goes: the node whose calls it ran (researcher, validator or root)."""
    from langchain_core.messages import AIMessage

    last_ai = next((m for m in reversed(state.get("messages") or []) if isinstance(m, AIMessage)), None)
    caller = getattr(last_ai, "name", None)
    return caller if caller in TOOL_USERS else GraphNodeNames.ROOT


def build_planner_graph(
    bundles: dict[str, PluginBundle],
    settings: Settings,
    models: ModelResolver,
    checkpointer: Any = None,
) -> CompiledStateGraph:
    """Build and compile the planner graph for ``bundles``."""
    graph: StateGraph = StateGraph(PlannerState, context_schema=TurnContext)
    tools = catalogue(bundles)
    deciding = models(
        GraphNodeNames.COORDINATOR, None
    )  # the planner and researcher decide: the deciding role
    by_name = {b.name: b.metadata for b in bundles.values()}
    tools_nodes = {b.tools_node_name: f"{b.name} tools" for b in bundles.values()}

    graph.add_node(
        GraphNodeNames.PLANNER,
        Planner(deciding, tools, settings),
        destinations={
            GraphNodeNames.RESEARCHER: "researcher",
            GraphNodeNames.VALIDATOR: "validator",
            GraphNodeNames.ROOT: "end",
        },
    )
    graph.add_node(
        GraphNodeNames.RESEARCHER,
        Researcher(deciding, tools, settings),
        destinations={**tools_nodes, GraphNodeNames.ROOT: "done"},
    )
    graph.add_node(
        GraphNodeNames.VALIDATOR,
        Validator(deciding, tools, settings),
        destinations={**tools_nodes, GraphNodeNames.ROOT: "checked"},
    )
    graph.add_node(
        GraphNodeNames.ROOT,
        Root(
            models(GraphNodeNames.SYNTHESIZER, None),
            by_name,
            settings,
            ToolRunner(deciding, tools, settings),
        ),
        destinations={**tools_nodes, END: "answer"},
    )
    for bundle in bundles.values():
        graph.add_node(
            bundle.tools_node_name,
            plugin_nodes.tools_node(bundle, back_to_caller),
            destinations={node: "results" for node in TOOL_USERS},
        )
    graph.set_entry_point(GraphNodeNames.PLANNER)
    compiled = graph.compile(checkpointer=checkpointer, name="cadence")
    logger.debug("planner graph built", extra={"nodes": list(compiled.get_graph().nodes)})
    return compiled


__all__ = ["NAME", "TOOL_USERS", "back_to_caller", "build_planner_graph"]
