"""Control tools: the coordinator's ``goto_`` routing tools and how their results route.

``goto_{name}_agent`` returns the plugin's normalised name and routes to
``{name}_agent``; ``goto_finalize`` returns ``"finalize"`` and routes to the
synthesizer; anything else routes to the synthesizer with a warning.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool

from cadence.conventions import (
    FINALIZE,
    FINALIZE_TOOL,
    ROUTE_DESCRIPTION_PREFIX,
    agent_from_route,
    route_tool_name,
)
from cadence.sdk.metadata import PluginMetadata

logger = logging.getLogger(__name__)

__all__ = [
    "FINALIZE",
    "FINALIZE_TOOL",
    "ROUTE_DESCRIPTION_PREFIX",
    "RoutingDecision",
    "agent_from_route",
    "determine_plugin_route",
    "make_routing_tools",
    "route_tool_name",
]


class RoutingDecision:
    """Outcomes of the coordinator's routing logic."""

    CONTINUE = "continue"
    SUSPEND = "suspend"
    DONE = "done"


def _router(name: str) -> tuple[Any, Any]:
    """Sync and async functions returning ``name`` (async keeps routing off the thread pool)."""

    def route() -> str:
        return name

    async def aroute() -> str:
        return name

    return route, aroute


def make_routing_tools(plugins: Sequence[PluginMetadata]) -> list[BaseTool]:
    """One ``goto_{name}_agent`` tool per plugin plus ``goto_finalize``."""
    tools: list[BaseTool] = []
    for meta in plugins:
        name = meta.normalized_name
        caps = f" Capabilities: {', '.join(meta.capabilities)}." if meta.capabilities else ""
        func, coroutine = _router(name)
        tools.append(
            StructuredTool.from_function(
                func=func,
                coroutine=coroutine,
                name=route_tool_name(name),
                description=f"{ROUTE_DESCRIPTION_PREFIX}{name} agent. {meta.description}{caps}",
            )
        )

    func, coroutine = _router(FINALIZE)
    tools.append(
        StructuredTool.from_function(
            func=func,
            coroutine=coroutine,
            name=FINALIZE_TOOL,
            description="Finish: the answer to the user's latest question is ready, or no agent fits.",
        )
    )
    return tools


def determine_plugin_route(state: dict[str, Any], plugin_names: Iterable[str]) -> str:
    """Where control goes after ``control_tools``: a plugin name, or ``finalize``."""
    names = set(plugin_names)
    messages = state.get("messages") or []
    if not messages or not isinstance(messages[-1], ToolMessage):
        logger.warning("no routing tool result found; routing to the synthesizer")
        return FINALIZE
    result = messages[-1].content if isinstance(messages[-1].content, str) else ""
    result = result.strip()
    if result in names:
        return result
    if result == FINALIZE:
        return FINALIZE
    logger.warning("unknown routing result; routing to the synthesizer", extra={"route_result": result[:200]})
    return FINALIZE
