"""PluginBundle: a loaded, validated plugin: its agent, its tools (plus ``back``) and its thread pool.

The graph nodes and edges a bundle contributes (``{name}_agent``, ``{name}_tools``)
are built in one place, :mod:`cadence.orchestration.plugin_nodes`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool

from cadence.conventions import BACK, CONTINUE, agent_node_name, is_reserved_tool_name, tools_node_name
from cadence.plugins.containment import PluginThreadPool, contain_tools, is_real_cancellation
from cadence.sdk.agent import BaseAgent
from cadence.sdk.metadata import PluginMetadata
from cadence.sdk.plugin import BasePlugin
from cadence.sdk.tools import BACK_TOOL_NAME, make_back_tool
from cadence.settings import Settings

logger = logging.getLogger(__name__)

DEFAULT_PLUGIN_MAX_THREADS: int = Settings.model_fields["plugin_max_threads"].default
"""Threads per plugin for synchronous tools when none are given (``CADENCE_PLUGIN_MAX_THREADS``)."""
DEFAULT_INLINE_TOOL_MAX_MS: float = Settings.model_fields["inline_tool_max_ms"].default
"""How long a quick tool's call may hold the event loop if none is given (``CADENCE_INLINE_TOOL_MAX_MS``)."""


TOOL_NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A tool name every function-calling API accepts (OpenAI's and Anthropic's rule)."""


@dataclass(frozen=True)
class PluginSource:
    """Where a plugin came from: ``builtin``, ``entry_point``, ``directory`` or ``registered``."""

    kind: str
    location: str


class PluginBundle:
    """One plugin ready for the graph: its agent, its validated tools plus ``back``, its threads.

    Every bundle gets the automatic ``back`` tool. The agent's conditional edge uses
    :meth:`should_continue` (continue → tools, back → coordinator); tools always return
    to the coordinator (see :mod:`cadence.orchestration.plugin_nodes`). The tools node
    runs the plugin's tools contained (see :mod:`cadence.plugins.containment`):
    synchronous ones in the bundle's own ``thread_pool``, and nothing they raise
    escapes as anything but an error result.
    """

    def __init__(
        self,
        plugin: type[BasePlugin],
        metadata: PluginMetadata,
        source: PluginSource,
        *,
        max_threads: int = DEFAULT_PLUGIN_MAX_THREADS,
        inline_tool_max_ms: float = DEFAULT_INLINE_TOOL_MAX_MS,
    ) -> None:
        self.plugin = plugin
        self.metadata = metadata
        self.source = source
        self.agent: BaseAgent = plugin.create_agent()
        if not isinstance(self.agent, BaseAgent):
            raise TypeError(
                f"{plugin.__name__}.create_agent() must return a BaseAgent, got {type(self.agent).__name__}"
            )
        returned = self.agent.get_tools()
        if isinstance(returned, BaseTool):  # list() of a tool (a pydantic model) gave its fields
            raise TypeError(
                f"get_tools() must return a list of tools: return [{returned.name}], not the tool"
            )
        if isinstance(returned, str | Mapping) or not isinstance(returned, Iterable):
            raise TypeError(f"get_tools() must return a list of LangChain tools, got {returned!r}")
        tools = list(returned)
        for t in tools:
            if not isinstance(t, BaseTool):
                raise TypeError(f"get_tools() must return LangChain tools (use @tool); got {t!r}")
        names = [t.name for t in tools]
        if any(is_reserved_tool_name(n) for n in names):
            raise ValueError(
                "tool names 'back', 'forward_message', 'goto_*' and 'transfer_to_*' are reserved for routing"
            )
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate tool names: {names}")
        unusable = [n for n in names if not TOOL_NAME_RE.fullmatch(n)]
        if unusable:  # providers' function-calling APIs refuse them: the agent would fail at its first call
            raise ValueError(
                f"tool names may use only letters, digits, '_' and '-' (at most 64), as model providers "
                f"require; rename {', '.join(repr(n) for n in unusable)}"
            )
        self.tools: list[BaseTool] = [*tools, make_back_tool()]
        self.thread_pool = PluginThreadPool(metadata.normalized_name, max_threads)
        self.contained_tools: list[BaseTool] = contain_tools(
            self.tools,
            plugin=metadata.normalized_name,
            pool=self.thread_pool,
            inline_max_seconds=inline_tool_max_ms / 1000,
        )
        """The tools as the tools node runs them (see :func:`~cadence.plugins.containment.contain_tools`)."""

    @property
    def name(self) -> str:
        """The normalised plugin name."""
        return self.metadata.normalized_name

    @property
    def agent_node_name(self) -> str:
        """``{name}_agent``."""
        return agent_node_name(self.name)

    @property
    def tools_node_name(self) -> str:
        """``{name}_tools``."""
        return tools_node_name(self.name)

    def bind_model(self, model: BaseChatModel) -> None:
        """Bind the plugin's model with its own tools (``back`` is not sent to the model).

        An answer without a tool call hands back (the agent step gives it a synthesized
        ``back`` call), so a ``back`` schema in every agent call would only cost tokens; the
        tools node still has ``back`` to answer that call.
        """
        self.agent.bind_model(model, [t for t in self.tools if t.name != BACK_TOOL_NAME])

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
            decision = CONTINUE
            logger.warning("should_continue failed", extra={"plugin": self.name, "error": str(exc)})
        except BaseException as exc:  # a GeneratorExit too: a plain call, nothing here is being closed
            if is_real_cancellation(exc):
                raise
            decision = CONTINUE
            logger.error(
                "should_continue raised %s; contained", type(exc).__name__, extra={"plugin": self.name}
            )
        if (decision == CONTINUE) != pending:
            logger.debug("should_continue overridden", extra={"plugin": self.name, "decision": decision})
        return CONTINUE if pending else BACK
