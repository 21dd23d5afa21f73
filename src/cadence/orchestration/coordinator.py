"""The coordinator: decides which plugin agent acts next, or finalizes.

Its prompt lists the plugins' descriptions and routing tools. One route per turn
(extra parallel calls are dropped, the first of its own tools kept); a reply without a tool call becomes
``goto_finalize``; only agent routes count as hops; the guards of
:mod:`cadence.orchestration.hops` decide when to suspend.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.prebuilt.tool_node import INVALID_TOOL_NAME_ERROR_TEMPLATE
from langgraph.runtime import Runtime
from langgraph.types import Command

from cadence.conventions import (
    FINALIZE,
    GOTO_NAMING,
    GraphNodeNames,
    RouteNaming,
    agent_node_name,
    is_control_tool_object,
)
from cadence.errors import CadenceError
from cadence.models.invoke import model_endpoint
from cadence.orchestration.control_tools import (
    FINALIZE_TOOL,
    RoutingDecision,
    make_routing_tools,
    route_tool_name,
)
from cadence.orchestration.events import coordinator_events, emit_events
from cadence.orchestration.guards import BEFORE_DECISION, ON_ROUTE, GuardView
from cadence.orchestration.hops import reset_route_counters, update_consecutive_routes
from cadence.orchestration.model_call import call_model
from cadence.orchestration.prompts import COORDINATOR_INSTRUCTIONS
from cadence.orchestration.recall import answering_items, facts_prompt, with_memory
from cadence.orchestration.state import PluginContextFields as F
from cadence.orchestration.state import plugin_context
from cadence.orchestration.trimming import clip_results, trim_history
from cadence.orchestration.turn import TurnContext
from cadence.sdk.metadata import PluginMetadata
from cadence.sdk.routing import Reader, may_read
from cadence.settings import Settings

logger = logging.getLogger(__name__)


def agent_readers(tools_by_plugin: Mapping[str, Sequence[BaseTool]]) -> dict[str, Reader | None]:
    """Per plugin, what its agent's tools may read (:func:`cadence.sdk.may_read`; None: anything)."""
    return {name: may_read(tools) for name, tools in tools_by_plugin.items()}


def work_tool_owners(tools_by_plugin: Mapping[str, Sequence[BaseTool]]) -> dict[str, str]:
    """Each work tool's name -> its plugin, for names exactly one plugin has (control tools left out)."""
    owners: dict[str, set[str]] = {}
    for plugin, tools in tools_by_plugin.items():
        for tool in tools:
            if not is_control_tool_object(tool):
                owners.setdefault(tool.name, set()).add(plugin)
    return {name: next(iter(found)) for name, found in owners.items() if len(found) == 1}


def finalize_call() -> dict[str, Any]:
    """A ``goto_finalize`` tool call."""
    return {"name": FINALIZE_TOOL, "args": {}, "id": f"call_fin_{uuid.uuid4().hex[:12]}", "type": "tool_call"}


def build_plugin_descriptions(plugins: Sequence[PluginMetadata], naming: RouteNaming = GOTO_NAMING) -> str:
    """The agents list of the coordinator prompt: each agent's description and routing tool.

    Descriptions only, once: the routing tools describe themselves in one line, and the
    capabilities (which the embedded model's pre-router ranks) ride in their metadata.
    ``naming``: how the routing tools are named (the supervisor's ``transfer_to_{name}``).
    """
    lines = []
    for meta in plugins:
        route = route_tool_name(meta.normalized_name, naming)
        lines.append(f"- {route}: {meta.description}")
    return "\n".join(lines) if lines else "- (no agents are available)"


def bind_routes(model: BaseChatModel, tools: Sequence[BaseTool]) -> Runnable[Any, Any]:
    """``model`` bound to the routing tools, with parallel tool calls off where the provider supports it.

    One route per turn step: integrations whose ``bind_tools`` takes ``parallel_tool_calls``
    (OpenAI, Anthropic) are asked for at most one call, when they talk to the provider's own
    API (a self-hosted OpenAI-compatible server may not know the flag). The coordinator keeps
    only the first call anyway.
    """
    try:
        accepts = "parallel_tool_calls" in inspect.signature(model.bind_tools).parameters
    except (TypeError, ValueError):
        accepts = False
    if accepts and model_endpoint(model) is None:
        return model.bind_tools(list(tools), parallel_tool_calls=False)
    return model.bind_tools(list(tools))


class Coordinator:
    """The coordinator node and its routing logic."""

    node_name: str = "coordinator"
    """The node's name (in the model call records, the trace and its routing messages)."""
    finishing_tools: frozenset[str] = frozenset({FINALIZE_TOOL})
    """Calls that end the work (they reset the consecutive-route counters)."""
    route_naming: RouteNaming = GOTO_NAMING
    """How its routing tools are named: ``goto_{name}_agent`` (the supervisor's: ``transfer_to_{name}``)."""

    def __init__(
        self,
        model: BaseChatModel,
        plugins: Sequence[PluginMetadata],
        settings: Settings,
        tool_owners: Mapping[str, str] | None = None,
        readers: Mapping[str, Reader | None] | None = None,
    ) -> None:
        self.plugins = list(plugins)
        self.tool_owners = dict(tool_owners or {})
        """An agent's work tool's name -> the one plugin that has it (:func:`work_tool_owners`)."""
        self.plugin_names = [p.normalized_name for p in self.plugins]
        self.settings = settings
        # an agent's reader (what its tools may read) rides in its routing tool for the embedded model
        self.tools = make_routing_tools(self.plugins, self.route_naming, readers)
        # its routing tools' names -> the plugin each routes to
        self.routes = {route_tool_name(n, self.route_naming): n for n in self.plugin_names}
        self.model = model
        self.bound_model = bind_routes(model, self.tools)
        self.prompt = COORDINATOR_INSTRUCTIONS.format(
            plugin_descriptions=build_plugin_descriptions(self.plugins, self.route_naming),
            tool_options=" | ".join(self.routes) or "(none)",
        )

    def agent_of(self, tool_name: str | None) -> str | None:
        """The plugin a call of one of this node's routing tools routes to; None for any other name.

        Only the names the node binds route (``goto_{name}_agent`` here, ``transfer_to_{name}`` in the
        supervisor): a call of the other naming is a tool the model was not given, as unknown as any other.
        """
        return self.routes.get(tool_name or "")

    async def __call__(
        self, state: dict[str, Any], config: RunnableConfig, runtime: Runtime[TurnContext]
    ) -> dict[str, Any]:
        """Coordinator node: one routing decision per visit."""
        context = runtime.context if runtime is not None else None
        settings = context.settings if context is not None else self.settings
        ctx = plugin_context(state)
        agent_hops = int(state.get("agent_hops") or 0)
        tool_hops = int(state.get("tool_hops") or 0)

        view = GuardView(settings, agent_hops, tool_hops, ctx, context)
        reason = BEFORE_DECISION.check(view)
        if reason is not None:
            ctx[F.SUSPEND_REASON] = reason.to_dict()
            logger.info(
                "guard triggered before the decision",
                extra={"reason": str(reason.code), "tool_hops": tool_hops},
            )
            update: dict[str, Any] = {"plugin_context": ctx}
            emit_events(coordinator_events(update))
            return update

        response = await self._decide(state, config, context, ctx)
        calls = list(response.tool_calls or [])
        if len(calls) > 1:
            logger.warning(
                "coordinator emitted several routes; keeping the first it has",
                extra={"routes": [c["name"] for c in calls]},
            )
            # a call of a tool it does not have (an agent's tool, a made-up name) does not hide a route
            known = [c for c in calls if self.agent_of(c["name"]) or c["name"] in self.finishing_tools]
            calls = (known or calls)[:1]
        if not calls:
            calls = [finalize_call()]
        calls = [self.owner_route(calls[0], context)]
        response = AIMessage(content="", tool_calls=calls, name=self.node_name, id=response.id)
        call = calls[0]
        agent = self.agent_of(call["name"])
        update = {"messages": [response]}
        if agent is not None:
            reason = ON_ROUTE.check(view.routing_to(agent))
            if reason is not None:
                ctx[F.SUSPEND_REASON] = reason.to_dict()
                logger.info("route guard triggered", extra={"reason": str(reason.code), "agent": agent})
            else:
                agent_hops += 1
                update_consecutive_routes(ctx, agent)
                ctx[F.ROUTING_HISTORY].append(agent)
                update["current_agent"] = agent
                update["agent_hops"] = agent_hops
                logger.debug("routing to agent", extra={"agent": agent, "agent_hops": agent_hops})
        elif call["name"] in self.finishing_tools:
            reset_route_counters(ctx)
        else:
            logger.warning("coordinator chose an unknown route", extra={"route": call["name"]})
            if context is not None:  # the turn finalizes without a route: the trace says why
                context.trace.notes.append(
                    f"{self.node_name}: unknown route {call['name']!r} (not one of its tools); finalized"
                )
        update["plugin_context"] = ctx
        emit_events(coordinator_events(update))
        return update

    def owner_route(self, call: dict[str, Any], context: TurnContext | None) -> dict[str, Any]:
        """``call``, or the route to the agent that has the tool it names: a model that did the agent's work
        itself (``calculate(...)`` instead of ``goto_math_agent``) is taken as asking for that agent,
        which then calls its tool; a tool of several agents or of none stays an unknown route."""
        name = call.get("name") or ""
        owner = self.tool_owners.get(name)
        if owner is None or self.agent_of(name) or name in self.finishing_tools:
            return call
        route = route_tool_name(owner, self.route_naming)
        logger.info("coordinator called an agent's tool; routing to the agent", extra={"tool": name})
        if context is not None:
            note = f"{self.node_name}: called {name!r}, a tool of {owner}; routed to {owner}"
            context.trace.notes.append(note)
        return {**call, "name": route, "args": {}}

    def system_prompt(self, state: dict[str, Any]) -> str:
        """The system prompt of a decision: the coordinator's, with the facts the user stated that were
        recalled for this question but do not answer it alone ("How old am I?" after "I was born on 3 March
        1995.": an agent works the answer out of them, and the route depends on them)."""
        if answering_items(state, self.settings):
            return self.prompt  # they answer it: given as a recall_memory result (with_memory)
        told = facts_prompt(state)
        return f"{self.prompt}\n\n{told}" if told else self.prompt

    def model_input(self, state: dict[str, Any]) -> list[Any]:
        """The conversation the model decides on (after its system prompt), within the token budget.

        ``CADENCE_MODEL_INPUT_MAX_TOKENS`` (:func:`~cadence.orchestration.trimming.trim_history`):
        earlier turns dropped oldest first, the current turn whole; tool results longer than
        ``CADENCE_ROUTING_RESULT_MAX_CHARS`` clipped (:func:`~cadence.orchestration.trimming.clip_results`).
        """
        trimmed = trim_history(state.get("messages") or [], self.settings.model_input_max_tokens)
        return clip_results(trimmed, self.settings.routing_result_max_chars)

    async def _decide(
        self,
        state: dict[str, Any],
        config: RunnableConfig,
        context: TurnContext | None,
        ctx: dict[str, Any],
    ) -> AIMessage:
        settings = context.settings if context is not None else self.settings
        # the facts the user stated, when they answer the question alone, let the model finalize
        conversation = with_memory(self.model_input(state), state, settings)
        messages = [SystemMessage(content=self.system_prompt(state)), *conversation]
        budget = (
            context.budget(settings.coordinator_timeout, keep_reserve=True)
            if context is not None
            else settings.coordinator_timeout
        )
        try:
            async with asyncio.timeout(budget):  # in this task (wait_for would start one per decision)
                return await call_model(
                    self.bound_model, messages, node=self.node_name, context=context, config=config
                )
        except (TimeoutError, CadenceError) as exc:
            reason = (
                f"the {self.node_name}'s decision timed out after {budget:.1f}s"
                if isinstance(exc, TimeoutError)
                else str(exc)
            )
            logger.warning("coordinator failed; finalizing with what exists", extra={"error": reason})
            ctx[F.NOTES].append(reason)
            if context is not None:
                code = (
                    "coordinator_timeout" if isinstance(exc, TimeoutError) else getattr(exc, "code", "error")
                )
                context.trace.errors.append({"node": self.node_name, "code": code, "message": reason})
            return AIMessage(content="", tool_calls=[finalize_call()])


class RoutingCoordinator(Coordinator):
    """The coordinator mode's node: decides, answers its routing call and goes on, in one step.

    The routing tools' work (answer ``goto_{name}_agent``, the supervisor's ``transfer_to_{name}``, with
    the plugin's name, ``goto_finalize`` with ``finalize``; an unknown tool with the tool node's error
    and the synthesizer) is done here and the node returns ``Command(goto=...)``: no ``control_tools``
    step and no conditional edge per decision. The history is the same as with the routing step (the
    decision, then its result). ``control_tools`` stays in the graph for forks that force a route and
    for checkpoints written before (their ``next`` is ``control_tools``).
    """

    destinations: ClassVar[dict[str, str]] = {
        GraphNodeNames.CONTROL_TOOLS: RoutingDecision.CONTINUE,
        GraphNodeNames.SUSPEND: RoutingDecision.SUSPEND,
        GraphNodeNames.SYNTHESIZER: RoutingDecision.DONE,
    }
    """What ``cadence graph`` draws from the node (the seeds' edges: the routing step, suspend, done)."""

    async def __call__(  # type: ignore[override]
        self, state: dict[str, Any], config: RunnableConfig, runtime: Runtime[TurnContext]
    ) -> Command:
        """One routing decision, answered; ``Command`` to the agent, the synthesizer or suspend."""
        update = await super().__call__(state, config, runtime)
        return Command(goto=self.route(update), update=update)

    def route(self, update: dict[str, Any]) -> str:
        """The next node of a decision ``update``; answers its routing call in ``update`` (in place)."""
        if (update.get("plugin_context") or {}).get(F.SUSPEND_REASON):
            return GraphNodeNames.SUSPEND  # its pending call is answered by the suspend node
        decision = (update.get("messages") or [None])[-1]
        calls = list(getattr(decision, "tool_calls", None) or [])
        if not calls:
            return GraphNodeNames.SYNTHESIZER
        call = calls[0]
        name = call["name"]
        agent = self.agent_of(name)
        call_id = call.get("id") or f"call_{uuid.uuid4().hex[:12]}"
        if agent is not None and update.get("current_agent") == agent:
            update["messages"].append(ToolMessage(content=agent, name=name, tool_call_id=call_id))
            return agent_node_name(agent)
        if name == FINALIZE_TOOL:
            update["messages"].append(ToolMessage(content=FINALIZE, name=name, tool_call_id=call_id))
            return GraphNodeNames.SYNTHESIZER
        logger.warning("unknown routing result; routing to the synthesizer", extra={"route": name})
        error = INVALID_TOOL_NAME_ERROR_TEMPLATE.format(
            requested_tool=name, available_tools=", ".join(t.name for t in self.tools)
        )
        update["messages"].append(ToolMessage(content=error, name=name, tool_call_id=call_id, status="error"))
        return GraphNodeNames.SYNTHESIZER


def coordinator_routing_logic(state: dict[str, Any]) -> str:
    """Safety checks in order: hop or consecutive limit → suspend; tool calls → continue; else done."""
    reason = (state.get("plugin_context") or {}).get(F.SUSPEND_REASON)
    if reason:
        return RoutingDecision.SUSPEND
    messages = state.get("messages") or []
    if messages and isinstance(messages[-1], AIMessage) and messages[-1].tool_calls:
        return RoutingDecision.CONTINUE
    return RoutingDecision.DONE
