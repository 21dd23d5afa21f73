"""Names of the graph's core nodes (plugin nodes are ``{name}_agent`` and ``{name}_tools``)."""

from __future__ import annotations


class GraphNodeNames:
    """Names of the core nodes."""

    COORDINATOR = "coordinator"
    CONTROL_TOOLS = "control_tools"
    SUSPEND = "suspend"
    SYNTHESIZER = "synthesizer"


FINAL_NODES: frozenset[str] = frozenset({GraphNodeNames.SYNTHESIZER, GraphNodeNames.SUSPEND})
"""Nodes that write the turn's final answer."""
