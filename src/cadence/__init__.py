"""Cadence: multi-agent conversations on LangGraph.

A coordinator model routes each user question to plugin agents, control always
returns to the coordinator, guards on hops and repeated routes guarantee the
turn ends, and a synthesizer writes the final answer in the requested tone.

The public front::

    from cadence import Cadence, Settings, TurnResult

    result = Cadence(Settings()).invoke("Calculate 15 * 23")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cadence.errors import CadenceError
from cadence.settings import Settings, get_settings

if TYPE_CHECKING:
    from cadence.orchestration.engine import Cadence, TurnResult

__all__ = ["Cadence", "CadenceError", "Settings", "TurnResult", "__version__", "get_settings"]

__version__ = "0.1.0"

_LAZY = {"Cadence": "cadence.orchestration.engine", "TurnResult": "cadence.orchestration.engine"}


def __getattr__(name: str) -> Any:
    """Import the engine on first use, so ``import cadence`` stays light."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'cadence' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the lazily imported ones included (tab completion in a REPL or notebook)."""
    return sorted({*globals(), *_LAZY})
