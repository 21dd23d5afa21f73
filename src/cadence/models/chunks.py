"""Streaming helpers shared by Cadence's own chat models (embedded and scripted)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from langchain_core.messages import ToolCall, ToolCallChunk


def tool_call_chunks(calls: Sequence[ToolCall]) -> list[ToolCallChunk]:
    """Complete tool calls as the chunks a streaming chat model emits (arguments as JSON text)."""
    return [
        ToolCallChunk(name=c["name"], args=json.dumps(c["args"]), id=c["id"], index=i, type="tool_call_chunk")
        for i, c in enumerate(calls)
    ]
