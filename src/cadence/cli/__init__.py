"""The ``cadence`` command line: chat, plugins, graph, config and serve (see :mod:`cadence.cli.main`)."""

from __future__ import annotations

from typing import Any

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from cadence.cli import main as _main

        return getattr(_main, name)
    raise AttributeError(name)
