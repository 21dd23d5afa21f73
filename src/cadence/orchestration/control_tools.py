"""Control tools: the routing tools, which route by LangGraph ``Command``.

The coordinator's ``goto_{name}_agent`` (or, named for the supervisor, its handoff tool
``transfer_to_{name}``: :func:`make_routing_tools`'s ``naming``) answers with the plugin's
normalised name and returns ``Command(goto="{name}_agent")``; ``goto_finalize`` answers
``"finalize"`` and goes to the synthesizer; anything else (a tool the coordinator does not have, an error)
goes to the synthesizer with a warning (:func:`route_or_finalize`). Control tools
are marked by metadata (``CONTROL_METADATA_KEY``); in a conversation's history,
where only names remain, :func:`cadence.conventions.is_control_tool` recognises them.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Annotated, Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, InjectedToolCallId, StructuredTool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from cadence.conventions import (
    CONTROL_METADATA_KEY,
    FINALIZE,
    FINALIZE_TOOL,
    GOTO_NAMING,
    ROUTE_DESCRIPTION_PREFIX,
    ROUTE_TEXT_METADATA_KEY,
    GraphNodeNames,
    RouteNaming,
    agent_from_route,
    agent_node_name,
    is_control_tool_object,
    route_tool_name,
)
from cadence.sdk.metadata import PluginMetadata
from cadence.sdk.routing import READS_METADATA_KEY, Reader

logger = logging.getLogger(__name__)

__all__ = [
    "CONTROL_METADATA_KEY",
    "FINALIZE",
    "FINALIZE_TOOL",
    "ROUTE_DESCRIPTION_PREFIX",
    "RoutingDecision",
    "agent_from_route",
    "determine_plugin_route",
    "is_control_tool_object",
    "make_routing_tools",
    "route_or_finalize",
    "route_tool_name",
]


class RoutingDecision:
    """Outcomes of the coordinator's routing logic."""

    CONTINUE = "continue"
    SUSPEND = "suspend"
    DONE = "done"


def _router(route: str, tool_name: str, target: str) -> tuple[Any, Any]:
    """Sync and async routing functions: answer the call with ``route`` and go to ``target``.

    They return a LangGraph ``Command``: the tool result (the route's name, as the
    history has always shown it) and the next node, so the route is decided once, here.
    """

    def command(tool_call_id: str) -> Command:
        message = ToolMessage(content=route, name=tool_name, tool_call_id=tool_call_id)
        return Command(goto=target, update={"messages": [message]})

    def run(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        return command(tool_call_id)

    async def arun(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        return command(tool_call_id)

    return run, arun


def make_routing_tools(
    plugins: Sequence[PluginMetadata],
    naming: RouteNaming = GOTO_NAMING,
    readers: Mapping[str, Reader | None] | None = None,
) -> list[BaseTool]:
    """One routing tool per plugin plus ``goto_finalize``.

    ``naming`` (:data:`~cadence.conventions.RouteNaming`): ``"goto"`` names them ``goto_{name}_agent``
    (the coordinator's), ``"transfer"`` ``transfer_to_{name}`` (the supervisor's handoff tools); they
    work the same either way. ``readers``: per plugin (normalized name), the reader of its agent's tools
    (:func:`cadence.sdk.may_read`), kept in its routing tool's metadata for the embedded model.
    """
    tools: list[BaseTool] = []
    for meta in plugins:
        name = meta.normalized_name
        caps = f" Capabilities: {', '.join(meta.capabilities)}." if meta.capabilities else ""
        tool_name = route_tool_name(name, naming)
        route_text = f"{ROUTE_DESCRIPTION_PREFIX}{name} agent. {meta.description}{caps}"
        func, coroutine = _router(name, tool_name, agent_node_name(name))
        tools.append(
            StructuredTool.from_function(
                func=func,
                coroutine=coroutine,
                name=tool_name,
                # short for providers (the coordinator's prompt describes each agent); the full
                # routing text rides in the metadata for the embedded model's lexical pre-router
                description=f"{ROUTE_DESCRIPTION_PREFIX}{name} agent.",
                metadata={CONTROL_METADATA_KEY: True, ROUTE_TEXT_METADATA_KEY: route_text}
                | ({READS_METADATA_KEY: reader} if (reader := (readers or {}).get(name)) else {}),
            )
        )

    func, coroutine = _router(FINALIZE, FINALIZE_TOOL, GraphNodeNames.SYNTHESIZER)
    tools.append(
        StructuredTool.from_function(
            func=func,
            coroutine=coroutine,
            name=FINALIZE_TOOL,
            description="Finish: the answer is ready, or no agent fits.",
            metadata={CONTROL_METADATA_KEY: True},
        )
    )
    return tools


async def route_or_finalize(
    request: ToolCallRequest,
    execute: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command]],
) -> ToolMessage | Command:
    """``control_tools``' wrapper: a call that does not route (unknown tool, error) goes to the synthesizer.

    Routing tools answer with a ``Command``; anything else (a tool the coordinator does not
    have, a failure) keeps its error result and finalizes, as an unknown route always has.
    """
    result = await execute(request)
    if isinstance(result, Command):
        return result
    logger.warning(
        "unknown routing result; routing to the synthesizer",
        extra={"route": request.tool_call.get("name"), "route_result": str(result.content)[:200]},
    )
    return Command(goto=GraphNodeNames.SYNTHESIZER, update={"messages": [result]})


def determine_plugin_route(state: dict[str, Any], plugin_names: Iterable[str]) -> str:
    """The route a ``control_tools`` result names: a plugin name, or ``finalize``.

    For reading a history; the graph itself routes by the routing tools' ``Command``.
    """
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
