"""Progress events a plugin's tools can send to a streamed turn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.config import get_stream_writer

ENGINE_EVENT_TYPES = frozenset({"token", "final", "error", "interrupt"})
"""Event types only the engine sends: the answer's text, the turn's end, its failure and its pause.
Clients act on them (the OpenAI-compatible stream sends a ``token`` as the answer's content, a
``final`` ends the turn), so a plugin's event cannot be one of them."""


def emit(event: Mapping[str, Any]) -> None:
    """Emit a custom stream event from inside a node or tool (no-op outside a streamed run).

    The event reaches ``Cadence.astream`` callers (and the server's SSE/WebSocket clients)
    as it is, e.g. ``emit({"type": "progress", "tool": "crawl", "done": 3, "total": 10})``.
    Raises ``TypeError`` when ``event`` is not a dict, ``ValueError`` when its ``type`` is one of
    the engine's own (:data:`ENGINE_EVENT_TYPES`): neither could reach a client as meant.
    """
    if not isinstance(event, Mapping):
        kind = type(event).__name__
        raise TypeError(f"emit() takes a dict such as {{'type': 'progress', ...}}, got {kind}")
    if event.get("type") in ENGINE_EVENT_TYPES:
        raise ValueError(
            f"emit(): events of type {event['type']!r} are the engine's own; give yours a type of its own "
            "(e.g. 'progress')"
        )
    try:
        get_stream_writer()(dict(event))
    except Exception:
        return


__all__ = ["ENGINE_EVENT_TYPES", "emit"]
