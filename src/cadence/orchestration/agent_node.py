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

import copy
import logging
from collections.abc import Callable
from typing import Any

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
from cadence.plugins.containment import is_real_close
from cadence.sdk.agent import AgentNode, AgentRunner, BaseAgent, with_back_call

logger = logging.getLogger(__name__)

FAILED_STEP_KEY = "cadence_agent_failed"
"""``response_metadata`` of an agent's reply written for its failed step (the trace error's code): an
explanation, not the agent's answer (the supervisor mode does not forward it as one)."""


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
        if type(agent).build_messages is not BaseAgent.build_messages:  # the plugin's own code reads them:
            conversation = copy.deepcopy(conversation)  # it may change its copies, not the thread's history
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
        response = _plugin_fault(exc, context, node_name, plugin)
    return _step_update(response, node_name, plugin, next_node)


def agent_node_of(agent: BaseAgent, runner: AgentRunner, node_name: str) -> AgentNode:
    """The graph node ``node_name`` of ``agent``: :meth:`BaseAgent.create_agent_node` over ``runner``.

    A plugin that overrides ``create_agent_node`` runs code of its own around the runner; its node
    is contained like the runner contains the agent's prompt and messages: any exception it raises,
    ``SystemExit`` and ``KeyboardInterrupt`` included, becomes the agent's failed step (an
    ``agent_error`` in the trace and an explanation handed back), never the turn's or the server's end.
    """
    node = agent.create_agent_node(runner, node_name)
    if type(agent).create_agent_node is BaseAgent.create_agent_node:
        return node  # Cadence's own node: the runner contains everything the plugin supplies
    plugin = agent.metadata.normalized_name

    async def contained_agent_node(
        state: dict[str, Any], config: RunnableConfig, runtime: Runtime[Any]
    ) -> dict[str, Any]:
        try:
            return await node(state, config, runtime)
        except BaseException as exc:
            context = runtime.context if runtime is not None else None
            return _step_update(_plugin_fault(exc, context, node_name, plugin), node_name, plugin, None)

    contained_agent_node.__name__ = node_name
    return contained_agent_node


def _plugin_fault(exc: BaseException, context: Any, node_name: str, plugin: str) -> AIMessage:
    """The failed step's reply for an exception of the plugin's own code (LangGraph's control flow, a real
    cancellation and the real close of the awaiting coroutine propagate; call it in the awaiting frame)."""
    if isinstance(exc, GraphBubbleUp) or is_real_close(exc) or is_real_cancellation(exc):
        raise exc
    logger.error("agent step failed", extra={"node": node_name, "error": f"{type(exc).__name__}: {exc}"})
    return _failed(context, node_name, plugin, "agent_error", f"{type(exc).__name__}: {exc}")


def _step_update(
    response: AIMessage, node_name: str, plugin: str, next_node: Callable[[dict[str, Any]], str] | None
) -> dict[str, Any]:
    """The agent step's state update (its reply, named, a ``back`` call added to an answer); emits events."""
    response = with_back_call(response).model_copy(update={"name": node_name})
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
    return AIMessage(
        content=f"(The {plugin} agent could not answer: {message})", response_metadata={FAILED_STEP_KEY: code}
    )
