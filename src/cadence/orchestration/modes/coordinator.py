"""The coordinator mode (seeds 000/001): a coordinator routes, one agent step at a time.

coordinator → control_tools → ``{name}_agent`` → ``{name}_tools`` → coordinator … → synthesizer.
Every agent step goes back to the coordinator, which decides again. The builder is
:func:`cadence.orchestration.graph.build_graph` (its six phases are documented there).
"""

from __future__ import annotations

from cadence.orchestration.graph import build_graph

NAME = "coordinator"
"""The mode's name (``CADENCE_MODE``, the API's ``mode``, ``cadence chat --mode``)."""

build_coordinator_graph = build_graph
"""Build and compile the coordinator graph (see :func:`cadence.orchestration.graph.build_graph`)."""

__all__ = ["NAME", "build_coordinator_graph"]
