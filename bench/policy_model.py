"""A stateless scripted model for concurrent conversations.

:class:`~cadence.testing.ScriptedChatModel` hands out its items in global call
order, which is right for one conversation at a time but mixes conversations up
when many run at once. :class:`PolicyChatModel` instead answers from what each call
sees, so every concurrent conversation gets the one-agent tool turn
("Calculate 15 * 23": coordinator → math agent → calculate → coordinator →
finalize → synthesizer), after sleeping ``delay_s`` like a remote model would.
It records nothing, so the server's memory is the framework's own.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool

from cadence.conventions import FINALIZE_TOOL, agent_from_route, is_control_tool, is_route_tool

ANSWER = "15 * 23 = 345"


def _tool_names(kwargs: dict[str, Any]) -> list[str]:
    return [s.get("function", {}).get("name", "") for s in kwargs.get("tools") or []]


def _turn_has_work(messages: Sequence[BaseMessage]) -> bool:
    """A tool result other than routing after the latest user message."""
    for msg in reversed(messages):
        if isinstance(msg, HumanMessage):
            return False
        if isinstance(msg, ToolMessage) and msg.name and not is_control_tool(msg.name):
            return True
    return False


def decide(messages: Sequence[BaseMessage], tools: Sequence[str]) -> AIMessage:
    """The response of the one-agent tool turn for the node that is asking."""

    def call(name: str, args: dict[str, Any]) -> AIMessage:
        tc = {"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:12]}", "type": "tool_call"}
        return AIMessage(content="", tool_calls=[tc])

    routes = [t for t in tools if is_route_tool(t)]
    if routes:  # the deciding node (its routes are goto_math_agent, or the supervisor's transfer_to_math)
        math = next((t for t in routes if agent_from_route(t, ["math"])), FINALIZE_TOOL)
        return call(FINALIZE_TOOL if _turn_has_work(messages) else math, {})
    if "calculate" in tools:
        return call("calculate", {"expression": "15 * 23"})
    return AIMessage(content=ANSWER)


class PolicyChatModel(BaseChatModel):
    """Answers the one-agent tool turn from the call's tools and messages, after ``delay_s``."""

    delay_s: float = 0.1

    @property
    def _llm_type(self) -> str:
        return "bench-policy"

    @property
    def model_label(self) -> str:
        """The name shown in traces."""
        return "bench-policy"

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools in OpenAI format (the policy reads their names)."""
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        time.sleep(self.delay_s)
        return ChatResult(generations=[ChatGeneration(message=decide(messages, _tool_names(kwargs)))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        await asyncio.sleep(self.delay_s)
        return ChatResult(generations=[ChatGeneration(message=decide(messages, _tool_names(kwargs)))])
