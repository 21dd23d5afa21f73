"""BaseAgent: the model-backed agent a plugin contributes to the graph."""

from __future__ import annotations

import logging
import uuid
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Self

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime

from cadence.sdk.abstract import missing_methods, warn_misspelt_hooks
from cadence.sdk.metadata import PluginMetadata
from cadence.sdk.tools import BACK_TOOL_NAME, UNREADABLE_ARGUMENTS_KEY

logger = logging.getLogger(__name__)

AgentNode = Callable[..., Awaitable[dict[str, Any]]]
"""A graph node: ``(state, config, runtime)`` → the state update."""
AgentRunner = Callable[
    ["BaseAgent", str, dict[str, Any], RunnableConfig, "Runtime[Any] | None"], Awaitable[dict[str, Any]]
]
"""One agent step: ``(agent, node_name, state, config, runtime)`` → the state update."""


def with_back_call(response: AIMessage) -> AIMessage:
    """Give a direct answer a synthesized ``back`` call so the flow is always agent → tools → coordinator.

    An invalid tool call (arguments that are not a JSON object) becomes a call whose ``args`` say why
    (:data:`~cadence.sdk.tools.UNREADABLE_ARGUMENTS_KEY`): the tools step answers it with that error,
    so the model can call again. A call without an id, or with the id of an earlier call of the
    message, gets a fresh one, so the history stays valid (one result each).
    """
    update: dict[str, Any] = {}
    unreadable = [unreadable_call(c) for c in response.invalid_tool_calls]
    if unreadable:
        names = ", ".join(c["name"] for c in unreadable)
        logger.warning("agent emitted tool calls with unreadable arguments", extra={"tools": names})
        update["invalid_tool_calls"] = []
    seen: set[str] = set()
    calls = []
    for call in [*response.tool_calls, *unreadable]:
        if not call.get("id") or call["id"] in seen:
            call = {**call, "id": f"call_{uuid.uuid4().hex[:12]}"}
        seen.add(call["id"])
        calls.append(call)
    if unreadable or any(a is not b for a, b in zip(calls, response.tool_calls, strict=True)):
        if not unreadable:
            logger.warning("agent emitted tool calls without distinct ids; renumbered")
        update["tool_calls"] = calls
    if not calls:
        update["tool_calls"] = [
            {
                "name": BACK_TOOL_NAME,
                "args": {},
                "id": f"call_back_{uuid.uuid4().hex[:12]}",
                "type": "tool_call",
            }
        ]
    return response.model_copy(update=update) if update else response


def unreadable_call(invalid: Mapping[str, Any]) -> dict[str, Any]:
    """The tool call standing for an invalid one (LangChain's ``InvalidToolCall``): same name and id,
    ``args`` holding only why its arguments could not be read."""
    raw = invalid.get("args")
    shown = raw if len(str(raw)) <= 200 else f"{str(raw)[:200]}…"
    why = str(invalid.get("error") or "").strip() or "they are not a JSON object"
    return {
        "name": str(invalid.get("name") or "").strip() or "unnamed",
        "args": {UNREADABLE_ARGUMENTS_KEY: f"{why} (the model wrote: {shown!r})"},
        "id": invalid.get("id"),
        "type": "tool_call",
    }


_AGENT_HOOKS = (
    "get_tools",
    "get_system_prompt",
    "bind_model",
    "should_continue",
    "build_messages",
    "create_agent_node",
)
"""The methods of :class:`BaseAgent` an agent implements or overrides."""


class BaseAgent(ABC):
    """A plugin's agent: its tools, its system prompt and how it runs as a graph node.

    Subclasses implement :meth:`get_tools` and :meth:`get_system_prompt`; the rest
    has working defaults. The bundle calls :meth:`bind_model` with the model chosen
    for this plugin and the agent's tools plus the automatic ``back`` tool.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Warn about a method whose name looks like a misspelt hook (``build_message``): never called."""
        super().__init_subclass__(**kwargs)
        warn_misspelt_hooks(cls, _AGENT_HOOKS)

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        """Refuse an agent class with a method left abstract, naming it (and a misspelling of it); give a new
        agent what :meth:`__init__` sets, in case a subclass's own ``__init__`` does not call it."""
        missing = missing_methods(cls)
        if missing:
            raise TypeError(f"{missing}; a BaseAgent implements get_tools and get_system_prompt")
        agent = super().__new__(cls)
        # what BaseAgent.__init__ sets, for a subclass whose __init__ does not call it (the turn failed
        # with "'WeatherAgent' object has no attribute 'metadata'" on its first step)
        agent.model = None
        agent.bound_model = None
        metadata = kwargs.get("metadata", args[0] if args else None)
        if isinstance(metadata, PluginMetadata):
            agent.metadata = metadata
        return agent

    def __init__(self, metadata: PluginMetadata) -> None:
        self.metadata = metadata
        self.model: BaseChatModel | None = None
        self.bound_model: Runnable[Any, Any] | None = None

    @abstractmethod
    def get_tools(self) -> list[BaseTool]:
        """The LangChain tools this agent may call."""

    @abstractmethod
    def get_system_prompt(self) -> str:
        """The agent's system prompt."""

    def bind_model(self, model: BaseChatModel, tools: Sequence[BaseTool] | None = None) -> None:
        """Bind ``model`` with ``tools`` (default: :meth:`get_tools`) for this agent's calls."""
        self.model = model
        self.bound_model = model.bind_tools(list(tools if tools is not None else self.get_tools()))

    @staticmethod
    def should_continue(state: dict[str, Any]) -> str:
        """``continue`` (to the tools node) when the last message has tool calls, else ``back``."""
        messages = state.get("messages") or []
        if not messages:
            return "back"
        return "continue" if getattr(messages[-1], "tool_calls", None) else "back"

    def build_messages(self, state: dict[str, Any]) -> list[BaseMessage]:
        """The messages sent to the model: the system prompt, then the conversation.

        Raises ``TypeError`` when :meth:`get_system_prompt` returns anything but text (a forgotten
        ``return`` gives ``None``, which LangChain reports as two validation errors of ``SystemMessage``).
        """
        prompt = self.get_system_prompt()
        if not isinstance(prompt, str):
            raise TypeError(
                f"{type(self).__name__}.get_system_prompt() must return the prompt as text, "
                f"got {type(prompt).__name__}"
            )
        return [SystemMessage(content=prompt), *list(state.get("messages") or [])]

    def create_agent_node(self, run: AgentRunner, node_name: str) -> AgentNode:
        """The graph node ``node_name``: each step is ``run(agent, node_name, state, config, runtime)``.

        The orchestration passes its runner (which calls the model, synthesizes ``back`` for
        direct answers, names the message and contains failures); override to wrap it.
        """
        agent = self

        async def agent_node(
            state: dict[str, Any], config: RunnableConfig, runtime: Runtime[Any]
        ) -> dict[str, Any]:
            return await run(agent, node_name, state, config, runtime)

        agent_node.__name__ = node_name
        return agent_node
