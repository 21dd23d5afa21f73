"""Built-in plugins shipped with Cadence, all working offline.

- ``math``: a safe calculator (``ast``-based, never ``eval``), percentages, statistics.
- ``info``: current time, time differences and time conversion between places.
- ``docs``: SQLite FTS5 search over a folder of Markdown/text files (bundled docs by default).
- ``geo``: facts about countries and cities (capital, population, currency, languages...) from the
  bundled GeoNames data.
- ``text``: ``summarize_text`` (extractive offline, abstractive with the model when asked) of a text
  given in the message ("Summarize this: ..."), and ``text_facts`` (counts and spellings of a given
  text: "How many r's are in strawberry?"); its tools are available by name to Markdown agents.

``Settings.builtin_plugins`` chooses which of :data:`BUILTIN_PLUGINS` are loaded.
"""

from __future__ import annotations

from cadence.builtins.docs import DocsPlugin
from cadence.builtins.geo import GeoPlugin
from cadence.builtins.info import InfoPlugin
from cadence.builtins.math import MathPlugin
from cadence.builtins.text import TextPlugin
from cadence.sdk import BasePlugin

BUILTIN_PLUGINS: dict[str, type[BasePlugin]] = {
    "math": MathPlugin,
    "info": InfoPlugin,
    "docs": DocsPlugin,
    "geo": GeoPlugin,
    "text": TextPlugin,
}
"""Built-in plugin classes by name (the names used in ``CADENCE_BUILTIN_PLUGINS``)."""

__all__ = ["BUILTIN_PLUGINS", "DocsPlugin", "GeoPlugin", "InfoPlugin", "MathPlugin", "TextPlugin"]
