"""Cadence: multi-agent conversations on LangGraph.

A coordinator model routes each user question to plugin agents, control always
returns to the coordinator, guards on hops and repeated routes guarantee the
turn ends, and a synthesizer writes the final answer in the requested tone.
"""

from cadence.errors import CadenceError
from cadence.settings import Settings, get_settings

__all__ = ["CadenceError", "Settings", "__version__", "get_settings"]

__version__ = "0.1.0"
