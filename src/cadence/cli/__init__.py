"""The ``cadence`` command line: chat, plugins, graph, config and serve."""

from cadence.cli.main import app, main

__all__ = ["app", "main"]
