"""PluginBundle: a loaded plugin's agent, tools and the graph nodes and edges it contributes."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.prebuilt import ToolNode
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.runtime import Runtime
from langgraph.types import Command

from cadence.orchestration.state import PluginContextFields as F
from cadence.orchestration.state import plugin_context
from cadence.orchestration.tool_logging import (
    is_real_cancellation,
    logged_tool_call,
    tool_error_message,
    tool_records,
)
from cadence.plugins.containment import PluginThreadPool, contain_tools, run_tool_in_pool
from cadence.sdk.agent import AgentNode, BaseAgent
from cadence.sdk.metadata import PluginMetadata
from cadence.sdk.plugin import BasePlugin
from cadence.sdk.tools import make_back_tool
from cadence.settings import Settings

logger = logging.getLogger(__name__)

DEFAULT_PLUGIN_MAX_THREADS: int = Settings.model_fields["plugin_max_threads"].default
"""Threads per plugin for synchronous tools when none are given (``CADENCE_PLUGIN_MAX_THREADS``)."""


@dataclass(frozen=True)
class PluginSource:
    """Where a plugin came from: ``builtin``, ``entry_point``, ``directory`` or ``registered``."""

    kind: str
    location: str


class PluginBundle:
    """One plugin ready for the graph: ``{name}_agent`` and ``{name}_tools`` with their edges.

    Every bundle gets the automatic ``back`` tool. The agent's conditional edge uses
    ``should_continue`` (continue → tools, back → coordinator); tools always return
    to the coordinator. The tools node runs the plugin's tools contained (see
    :mod:`cadence.plugins.containment`): synchronous ones in the bundle's own
    ``thread_pool``, and nothing they raise escapes as anything but an error result.
    """

    def __init__(
        self,
        plugin: type[BasePlugin],
        metadata: PluginMetadata,
        source: PluginSource,
        *,
        max_threads: int = DEFAULT_PLUGIN_MAX_THREADS,
    ) -> None:
        self.plugin = plugin
        self.metadata = metadata
        self.source = source
        self.agent: BaseAgent = plugin.create_agent()
        if not isinstance(self.agent, BaseAgent):
            raise TypeError(
                f"{plugin.__name__}.create_agent() must return a BaseAgent, got {type(self.agent).__name__}"
            )
        tools = list(self.agent.get_tools())
        for t in tools:
            if not isinstance(t, BaseTool):
                raise TypeError(f"get_tools() must return LangChain tools (use @tool); got {t!r}")
        names = [t.name for t in tools]
        if "back" in names or any(n.startswith("goto_") for n in names):
            raise ValueError("tool names 'back' and 'goto_*' are reserved for routing")
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate tool names: {names}")
        self.tools: list[BaseTool] = [*tools, make_back_tool()]
        self.thread_pool = PluginThreadPool(metadata.normalized_name, max_threads)
        self.tool_node = ToolNode(
            contain_tools(self.tools, plugin=metadata.normalized_name, pool=self.thread_pool),
            name=self.tools_node_name,
            handle_tool_errors=tool_error_message,
            awrap_tool_call=self._wrap_tool_call,
        )

    async def _wrap_tool_call(
        self,
        request: ToolCallRequest,
        execute: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command]],
    ) -> ToolMessage | Command:
        """Every execution: synchronous tools in the plugin's pool, logged, bounded, contained."""
        if request.tool is not None:
            tool = run_tool_in_pool(request.tool, self.thread_pool)
            if tool is not request.tool:
                request = request.override(tool=tool)
        return await logged_tool_call(request, execute, plugin=self.name)

    @property
    def name(self) -> str:
        """The normalised plugin name."""
        return self.metadata.normalized_name

    @property
    def agent_node_name(self) -> str:
        """``{name}_agent``."""
        return f"{self.name}_agent"

    @property
    def tools_node_name(self) -> str:
        """``{name}_tools``."""
        return f"{self.name}_tools"

    def bind_model(self, model: BaseChatModel) -> None:
        """Bind the plugin's model with its tools plus ``back``."""
        self.agent.bind_model(model, self.tools)

    def create_tools_node(self) -> Callable[..., Any]:
        """The tools node: runs the ToolNode, counts tool hops, records tools used."""
        tool_node = self.tool_node
        agent_name = self.name

        async def tools_node(
            state: dict[str, Any], config: RunnableConfig, runtime: Runtime[Any]
        ) -> dict[str, Any]:
            result = await tool_node.ainvoke(state, config)
            new_messages = list(result.get("messages", [])) if isinstance(result, dict) else list(result)
            last_ai = next(
                (m for m in reversed(state.get("messages") or []) if isinstance(m, AIMessage)), None
            )
            hops, records = tool_records(agent_name, [*([last_ai] if last_ai else []), *new_messages])
            ctx = plugin_context(state)
            ctx[F.TOOLS_USED].extend(records)
            return {
                "messages": new_messages,
                "tool_hops": int(state.get("tool_hops") or 0) + hops,
                "plugin_context": ctx,
            }

        tools_node.__name__ = self.tools_node_name
        return tools_node

    def get_graph_nodes(self) -> dict[str, AgentNode | Callable[..., Any]]:
        """The bundle's nodes by name."""
        return {
            self.agent_node_name: self.agent.create_agent_node(),
            self.tools_node_name: self.create_tools_node(),
        }

    def should_continue(self, state: dict[str, Any]) -> str:
        """The agent's ``should_continue``, contained; pending tool calls always go to the tools node.

        A ``back`` while the agent's last message still has tool calls would leave them
        unanswered in the thread, so it becomes ``continue`` (the tools node answers every
        call, ``back`` included). A failing ``should_continue`` counts as ``continue``.
        """
        messages = state.get("messages") or []
        pending = bool(messages and getattr(messages[-1], "tool_calls", None))
        try:
            decision = self.agent.should_continue(state)
        except Exception as exc:
            decision = "continue"
            logger.warning("should_continue failed", extra={"plugin": self.name, "error": str(exc)})
        except BaseException as exc:
            if isinstance(exc, GeneratorExit) or is_real_cancellation(exc):
                raise
            decision = "continue"
            logger.error(
                "should_continue raised %s; contained", type(exc).__name__, extra={"plugin": self.name}
            )
        if (decision == "continue") != pending:
            logger.debug("should_continue overridden", extra={"plugin": self.name, "decision": decision})
        return "continue" if pending else "back"

    def get_graph_edges(self) -> dict[str, Any]:
        """Conditional edge on ``should_continue`` and the direct edge tools → coordinator."""
        return {
            "conditional_edges": {
                self.agent_node_name: {
                    "condition": self.should_continue,
                    "mapping": {"continue": self.tools_node_name, "back": "coordinator"},
                }
            },
            "direct_edges": [(self.tools_node_name, "coordinator")],
        }
