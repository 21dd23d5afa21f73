"""How a plugin agent runs as a graph node.

The agent sees its system prompt and the conversation without the coordinator's
routing bookkeeping, trimmed to the turn's token budget (``CADENCE_MODEL_INPUT_MAX_TOKENS``,
:func:`cadence.orchestration.trimming.trim_history`: earlier turns dropped oldest first, the
current turn whole); a direct answer gets a synthesized ``back`` call so the flow
is always agent → tools → coordinator; a model failure, or any exception of the
plugin's own code (``SystemExit`` included), becomes a ``back`` with an explanation
instead of an exception.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphBubbleUp
from langgraph.runtime import Runtime

from cadence.errors import CadenceError
from cadence.orchestration.events import agent_events, emit_events
from cadence.orchestration.model_call import call_model
from cadence.orchestration.safety import strip_control_messages
from cadence.orchestration.tool_logging import is_real_cancellation
from cadence.orchestration.trimming import input_budget, trim_history
from cadence.sdk.agent import with_back_call

if TYPE_CHECKING:
    from cadence.sdk.agent import BaseAgent

logger = logging.getLogger(__name__)


async def run_agent(
    agent: BaseAgent,
    node_name: str,
    state: dict[str, Any],
    config: RunnableConfig,
    runtime: Runtime[Any] | None,
    *,
    instructions: str | None = None,
    next_node: Callable[[dict[str, Any]], str] | None = None,
) -> dict[str, Any]:
    """Run one agent step and return the state update.

    ``instructions`` (a mode's own, e.g. the single mode's tone) are appended to the agent's
    system prompt for this step; ``next_node(update)`` names the node the step goes to, for its
    ``node`` event (default: the agent's tools node).
    """
    if agent.bound_model is None:
        raise CadenceError(f"agent {node_name} has no model; the plugin bundle must bind one before use")
    context = runtime.context if runtime is not None else None
    plugin = agent.metadata.normalized_name
    try:
        conversation = trim_history(
            strip_control_messages(state.get("messages") or []), input_budget(context)
        )
        messages = agent.build_messages({**state, "messages": conversation})
        if instructions:
            messages = with_instructions(messages, instructions)
        response = await call_model(
            agent.bound_model, messages, node=node_name, context=context, config=config
        )
    except CadenceError as exc:
        logger.warning("agent model failed", extra={"node": node_name, "error": str(exc)})
        response = _failed(context, node_name, plugin, exc.code, exc.message)
    except BaseException as exc:  # the plugin's own code (prompt, messages) failed, even with SystemExit
        if isinstance(exc, GeneratorExit | GraphBubbleUp) or is_real_cancellation(exc):
            raise
        logger.error("agent step failed", extra={"node": node_name, "error": f"{type(exc).__name__}: {exc}"})
        response = _failed(context, node_name, plugin, "agent_error", f"{type(exc).__name__}: {exc}")
    response = with_back_call(response)
    response = response.model_copy(update={"name": node_name})
    update: dict[str, Any] = {"messages": [response], "current_agent": plugin}
    emit_events(agent_events(plugin, update, next_node(update) if next_node is not None else None))
    return update


def with_instructions(messages: list[Any], instructions: str) -> list[Any]:
    """``messages`` with ``instructions`` appended to the leading system message (or one added first)."""
    if messages and isinstance(messages[0], SystemMessage) and isinstance(messages[0].content, str):
        first = messages[0].model_copy(update={"content": f"{messages[0].content}\n\n{instructions}"})
        return [first, *messages[1:]]
    return [SystemMessage(content=instructions), *messages]


def _failed(context: Any, node_name: str, plugin: str, code: str, message: str) -> AIMessage:
    """The agent's reply when its step failed: an explanation (a ``back`` call is added after)."""
    if context is not None:
        context.trace.errors.append({"node": node_name, "code": code, "message": message})
    return AIMessage(content=f"(The {plugin} agent could not answer: {message})")
