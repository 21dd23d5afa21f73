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

from cadence.sdk.metadata import PluginMetadata

logger = logging.getLogger(__name__)

FINALIZE = "finalize"
FINALIZE_TOOL = "goto_finalize"


class RoutingDecision:
    """Outcomes of the coordinator's routing logic."""

    CONTINUE = "continue"
    SUSPEND = "suspend"
    DONE = "done"


def route_tool_name(plugin_name: str) -> str:
    """The routing tool of a plugin: ``goto_{name}_agent``."""
    return f"goto_{plugin_name}_agent"


def agent_from_route(tool_name: str | None, known: Iterable[str]) -> str | None:
    """The plugin a ``goto_{name}_agent`` call routes to, or None (finalize, unknown or malformed)."""
    if not tool_name or not tool_name.startswith("goto_") or not tool_name.endswith("_agent"):
        return None
    name = tool_name[len("goto_") : -len("_agent")]
    return name if name in set(known) else None


def _router(name: str) -> Any:
    def route() -> str:
        return name

    return route


def make_routing_tools(plugins: Sequence[PluginMetadata]) -> list[BaseTool]:
    """One ``goto_{name}_agent`` tool per plugin plus ``goto_finalize``."""
    tools: list[BaseTool] = []
    for meta in plugins:
        name = meta.normalized_name
        caps = f" Capabilities: {', '.join(meta.capabilities)}." if meta.capabilities else ""
        tools.append(
            StructuredTool.from_function(
                func=_router(name),
                name=route_tool_name(name),
                description=f"Hand the conversation to the {name} agent. {meta.description}{caps}",
            )
        )

    def goto_finalize() -> str:
        """Finish: the answer to the user's latest question is ready, or no agent fits."""
        return FINALIZE

    tools.append(StructuredTool.from_function(goto_finalize, name=FINALIZE_TOOL))
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
