"""Progress events a plugin's tools can send to a streamed turn."""

from __future__ import annotations

from typing import Any

from langgraph.config import get_stream_writer


def emit(event: dict[str, Any]) -> None:
    """Emit a custom stream event from inside a node or tool (no-op outside a streamed run).

    The event reaches ``Cadence.astream`` callers (and the server's SSE/WebSocket clients)
    as it is, e.g. ``emit({"type": "progress", "tool": "crawl", "done": 3, "total": 10})``.
    """
    try:
        get_stream_writer()(event)
    except Exception:
        return


__all__ = ["emit"]
