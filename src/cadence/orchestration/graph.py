"""The six-phase graph builder of the Cadence coordinator graph.

1. initialise a ``StateGraph(AgentState, context_schema=TurnContext)``;
2. register the core nodes ``coordinator``, ``control_tools``, ``suspend``, ``synthesizer``;
3. add each plugin bundle's ``{name}_agent`` and ``{name}_tools`` nodes;
4. add the routing edges (coordinator → continue/suspend/done, drawn from the ``Command``
   destinations the coordinator declares: it answers its routing call itself and goes straight
   to the agent, the synthesizer or suspend (:class:`RoutingCoordinator`); control_tools → agents or
   synthesizer by the routing tools' ``Command``, for forks that force a route; the bundles' own
   edges; suspend/synthesizer → END);
5. set the coordinator as the entry point;
6. compile with the checkpointer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode

from cadence.conventions import FINALIZE, GraphNodeNames
from cadence.orchestration import plugin_nodes
from cadence.orchestration.control_tools import route_or_finalize
from cadence.orchestration.coordinator import RoutingCoordinator, agent_readers, work_tool_owners
from cadence.orchestration.state import AgentState
from cadence.orchestration.suspend import SuspendNode
from cadence.orchestration.synthesizer import Synthesizer
from cadence.orchestration.tool_logging import tool_error_message
from cadence.orchestration.turn import TurnContext
from cadence.plugins.bundle import PluginBundle
from cadence.sdk.metadata import PluginMetadata
from cadence.settings import Settings

logger = logging.getLogger(__name__)

ModelResolver = Callable[[str, PluginMetadata | None], BaseChatModel]
"""``resolve(role, plugin)`` → the model for ``coordinator``, ``synthesizer``, ``suspend`` or ``agent``."""


def build_graph(
    bundles: dict[str, PluginBundle],
    settings: Settings,
    models: ModelResolver,
    checkpointer: Any = None,
) -> CompiledStateGraph:
    """Build and compile the coordinator graph for ``bundles``."""
    # Phase 1: graph initialisation
    graph: StateGraph = StateGraph(AgentState, context_schema=TurnContext)
    metadata = [b.metadata for b in bundles.values()]

    # Phase 2: core nodes
    owners = work_tool_owners({b.name: b.tools for b in bundles.values()})
    readers = agent_readers({b.name: b.tools for b in bundles.values()})
    coordinator = RoutingCoordinator(
        models(GraphNodeNames.COORDINATOR, None), metadata, settings, owners, readers
    )
    add_decision_nodes(graph, GraphNodeNames.COORDINATOR, coordinator, bundles, models, settings)

    # Phase 3: plugin nodes
    for bundle in bundles.values():
        bundle.bind_model(models("agent", bundle.metadata))
        for name, node in plugin_nodes.graph_nodes(bundle).items():
            graph.add_node(name, node)

    # Phase 4: routing edges (the coordinator's are its Command destinations, added with the node)
    for bundle in bundles.values():
        edges = plugin_nodes.graph_edges(bundle)
        for source, spec in edges["conditional_edges"].items():
            graph.add_conditional_edges(source, spec["condition"], spec["mapping"])
        for source, target in edges["direct_edges"]:
            graph.add_edge(source, target)
    graph.add_edge(GraphNodeNames.SUSPEND, END)
    graph.add_edge(GraphNodeNames.SYNTHESIZER, END)

    # Phase 5: entry point
    graph.set_entry_point(GraphNodeNames.COORDINATOR)

    # Phase 6: compilation
    compiled = graph.compile(checkpointer=checkpointer, name="cadence")
    logger.debug("graph built", extra={"nodes": list(compiled.get_graph().nodes)})
    return compiled


def add_decision_nodes(
    graph: StateGraph,
    name: str,
    decider: Any,
    bundles: dict[str, PluginBundle],
    models: ModelResolver,
    settings: Settings,
    extra_destinations: dict[str, str] | None = None,
) -> None:
    """The nodes every mode shares: the deciding node, its routing tools, suspend and synthesizer.

    The routing tools go to the next node themselves (``Command``); ``destinations`` draw those edges.
    A decider that routes by ``Command`` itself declares its own ``destinations`` (drawn likewise).
    """
    by_name = {b.name: b.metadata for b in bundles.values()}
    control_tools = ToolNode(
        decider.tools,
        name=GraphNodeNames.CONTROL_TOOLS,
        handle_tool_errors=tool_error_message,
        awrap_tool_call=route_or_finalize,
    )
    graph.add_node(name, decider, destinations=getattr(decider, "destinations", None))
    graph.add_node(
        GraphNodeNames.CONTROL_TOOLS,
        control_tools,
        destinations={
            **{b.agent_node_name: b.name for b in bundles.values()},
            **(extra_destinations or {}),
            GraphNodeNames.SYNTHESIZER: FINALIZE,
        },
    )
    graph.add_node(
        GraphNodeNames.SUSPEND, SuspendNode(models(GraphNodeNames.SUSPEND, None), by_name, settings)
    )
    graph.add_node(
        GraphNodeNames.SYNTHESIZER, Synthesizer(models(GraphNodeNames.SYNTHESIZER, None), by_name, settings)
    )
