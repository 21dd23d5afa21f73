"""PluginBundle: a loaded plugin's agent, tools and the graph nodes and edges it contributes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.prebuilt import ToolNode
from langgraph.runtime import Runtime

from cadence.orchestration.state import PluginContextFields as F
from cadence.orchestration.state import plugin_context
from cadence.orchestration.tool_logging import logged_tool_call, tool_error_message, tool_records
from cadence.sdk.agent import AgentNode, BaseAgent
from cadence.sdk.metadata import PluginMetadata
from cadence.sdk.plugin import BasePlugin
from cadence.sdk.tools import make_back_tool


@dataclass(frozen=True)
class PluginSource:
    """Where a plugin came from: ``builtin``, ``entry_point``, ``directory`` or ``registered``."""

    kind: str
    location: str


class PluginBundle:
    """One plugin ready for the graph: ``{name}_agent`` and ``{name}_tools`` with their edges.

    Every bundle gets the automatic ``back`` tool. The agent's conditional edge uses
    ``should_continue`` (continue → tools, back → coordinator); tools always return
    to the coordinator.
    """

    def __init__(self, plugin: type[BasePlugin], metadata: PluginMetadata, source: PluginSource) -> None:
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
        self.tool_node = ToolNode(
            self.tools,
            name=self.tools_node_name,
            handle_tool_errors=tool_error_message,
            awrap_tool_call=logged_tool_call,
        )

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

    def get_graph_edges(self) -> dict[str, Any]:
        """Conditional edge on ``should_continue`` and the direct edge tools → coordinator."""
        return {
            "conditional_edges": {
                self.agent_node_name: {
                    "condition": self.agent.should_continue,
                    "mapping": {"continue": self.tools_node_name, "back": "coordinator"},
                }
            },
            "direct_edges": [(self.tools_node_name, "coordinator")],
        }
