"""Names of the graph's core nodes (re-exported from :mod:`cadence.conventions`, their one home)."""

from __future__ import annotations

from cadence.conventions import FINAL_NODES, GraphNodeNames

__all__ = ["FINAL_NODES", "GraphNodeNames"]
