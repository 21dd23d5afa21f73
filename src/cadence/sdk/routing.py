"""Routing texts: the words a tool is chosen by, kept out of the description providers receive.

A tool's description travels to a hosted model with every call that offers the tool, so it should
say briefly what the tool does and how to call it. The embedded default model chooses among an
agent's tools lexically instead (it ranks the question against each tool's text), and there a
tool that reads many phrasings needs them listed: "split a bill", "convert 5 km to miles", "25%
off". A routing text carries that list without charging hosted models for it::

    @route_text("Arithmetic, in symbols or in words: sums, percent off, tips, unit conversions ...")
    @tool
    def calculate(expression: str) -> str:
        \"\"\"Evaluate an arithmetic expression and return the exact result.\"\"\"

or, without a decorator, ``route_text("...")(calculate)``. The text lives in the tool's
``metadata`` (:data:`ROUTE_TEXT_METADATA_KEY`) and replaces the description only for a model that
routes in-process (``cadence.models.preroute.routing_schema``); write it as a description (it is
shown to that model in place of the docstring), the docstring's content included.

This module imports nothing of Cadence outside the SDK.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from langchain_core.tools import BaseTool

ROUTE_TEXT_METADATA_KEY = "cadence_route_text"
"""``tool.metadata[ROUTE_TEXT_METADATA_KEY]``: the tool's routing text (the words it is chosen by, for a
model that routes lexically in-process); the schema sent to providers keeps the short description."""

T = TypeVar("T", bound=BaseTool)


def route_text(text: str) -> Callable[[T], T]:
    """Give a tool a routing text (a decorator, applied above ``@tool``); returns the same tool object."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("route_text needs a non-empty text: the words the tool is chosen by")

    def mark(target: T) -> T:
        if not isinstance(target, BaseTool):
            raise TypeError(f"route_text expects a LangChain tool (apply it above @tool), got {target!r}")
        target.metadata = {**(target.metadata or {}), ROUTE_TEXT_METADATA_KEY: " ".join(text.split())}
        return target

    return mark


def routing_text(tool: BaseTool) -> str:
    """The text ``tool`` is chosen by: its routing text (:func:`route_text`), else its description."""
    text = (tool.metadata or {}).get(ROUTE_TEXT_METADATA_KEY)
    return text if isinstance(text, str) and text else tool.description


__all__ = ["ROUTE_TEXT_METADATA_KEY", "route_text", "routing_text"]
