"""The single-agent mode (seed 003, the bpm-agent graph): one agent and its tools, nothing else.

START → ``{name}_agent`` ⇄ ``{name}_tools`` → forward → END

- No coordinator, no synthesizer: the agent's own answer is the final answer, so a turn that
  uses one tool costs two model calls (the tool call, then the answer) and a direct answer one.
- The agent is a plugin or a Markdown agent, chosen per turn: the request's ``agent`` (API field
  ``agent``, ``cadence chat --agent``), else ``CADENCE_AGENT``, else the only loaded plugin.
  The graph holds every loaded agent; its entry edge goes to the turn's agent.
- ``should_continue`` of the seed: an agent step with work-tool calls goes to its tools node;
  an answer (no work-tool call; the ``back`` call every direct answer gets is answered by the
  forward node) goes to ``forward``, which writes it verbatim as the final answer (an answer that
  is only a tool's error, passed on as written, becomes a sentence saying what failed, as in the
  supervisor's forward: :func:`~cadence.orchestration.answer_check.failure_answer`).
- The tools step is the plugins' own (:func:`cadence.orchestration.plugin_nodes.tools_node`:
  contained, logged, bounded, tool approvals included); after it the guards of every mode are
  checked (tool hops, the turn's deadline), and a fired guard ends the turn in ``suspend``,
  which explains why, in the turn's tone.
- The tone and the agent's response suggestion are added to the agent's system prompt, since its
  answer is the one the user reads.
- If the agent's model fails, the final answer is the model-free fallback of every mode
  (flagged, with the error in the trace and the turn's ``error``).
- Validation (``CADENCE_VALIDATION``, the shared :mod:`cadence.orchestration.validation`): the
  forward node validates the agent's answer (citing the retrieved documents first, as every
  final-answer node does); ``flag`` records the verdict in the trace, ``correct`` sends a failing
  answer back to the agent once with the verdict's feedback as the last message it sees, then
  forwards the corrected answer (or the draft, if the correction fails).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command

from cadence.conventions import (
    BACK_TOOL_NAME,
    FINAL_REPLY_NOTICE,
    GraphNodeNames,
    agent_node_name,
    answer_text,
    has_answer,
    split_at_last_human,
)
from cadence.errors import ConfigurationError, ValidationError
from cadence.orchestration import plugin_nodes
from cadence.orchestration.agent_node import agent_node_of, run_agent
from cadence.orchestration.answer_check import conform_to_tone
from cadence.orchestration.events import AgentStartEvent, emit_events, node_event
from cadence.orchestration.graph import ModelResolver
from cadence.orchestration.guards import BEFORE_DECISION, GuardView
from cadence.orchestration.prompts import capabilities_prompt
from cadence.orchestration.recall import answering_items, facts_prompt, memory_prompt, with_memory
from cadence.orchestration.state import AgentState, plugin_context
from cadence.orchestration.state import PluginContextFields as F
from cadence.orchestration.suspend import SuspendNode
from cadence.orchestration.synthesizer import FALLBACK_KEY, fallback_answer
from cadence.orchestration.tones import ResponseTone
from cadence.orchestration.turn import TurnContext
from cadence.orchestration.validation import (
    TurnEvidence,
    correct_or_record,
    explained_error,
    with_citations,
)
from cadence.plugins.bundle import PluginBundle
from cadence.sdk.metadata import PluginMetadata, normalize_name
from cadence.settings import Settings

logger = logging.getLogger(__name__)

NAME = "single"
"""The mode's name (``CADENCE_MODE``, the API's ``mode``, ``cadence chat --mode``)."""

ANSWER_NODE = GraphNodeNames.FORWARD
"""The node that passes the agent's answer on as the final answer (a final node of every mode)."""
FORWARDED_KEY = "cadence_forwarded"
"""``response_metadata`` of the final answer: the agent whose answer it is (as in the supervisor mode)."""

TOOLS = "tools"
"""The agent's edge label: work-tool calls go to its tools node."""
ANSWER = "answer"
"""The agent's edge label: it answered; the forward node writes the final answer."""

SINGLE_INSTRUCTIONS = (
    FINAL_REPLY_NOTICE + " RESPONSE STYLE: {tone} When you have what you need, answer the question directly."
)
"""Added to the agent's system prompt in this mode: the tone (and the response suggestion)."""


# -- which agent --------------------------------------------------------------------------------
def not_loaded(statuses: Iterable[Any]) -> dict[str, str]:
    """Why each plugin or agent that is not loaded is not, by name: its status, reason and file.

    ``statuses`` are the plugin manager's :class:`~cadence.plugins.manager.PluginStatus` records.
    """
    reasons: dict[str, str] = {}
    for status in statuses:
        if status.status == "loaded" or not status.name:
            continue
        reason = str(status.reason or "no reason given")
        if status.status not in reason:  # "disabled by CADENCE_DISABLED_PLUGINS" says it already
            reason = f"{status.status}: {reason}"
        where = f" ({status.location})" if status.location else ""
        reasons.setdefault(normalize_name(str(status.name)), reason + where)
    return reasons


def resolve_agent(
    name: str | None,
    bundles: Mapping[str, PluginBundle],
    default: str | None = None,
    skipped: Mapping[str, str] | None = None,
) -> str:
    """The loaded agent a single-mode turn talks to: ``name``, else ``default``, else the only one.

    Raises :class:`ValidationError` ``unknown_agent`` (listing the agents; for an agent that was
    found but not loaded, the reason from ``skipped``, see :func:`not_loaded`) or ``agent_required``.
    """
    wanted = name if name and str(name).strip() else default
    if wanted and str(wanted).strip():
        key = normalize_name(str(wanted))
        if key not in bundles:
            available = ", ".join(bundles) or "none loaded"
            reason = (skipped or {}).get(key)
            problem = (
                f"The agent {str(wanted)[:60]!r} is not loaded ({reason})"
                if reason
                else f"Unknown agent {str(wanted)[:60]!r} for the single mode"
            )
            raise ValidationError(f"{problem}; use one of: {available}.", code="unknown_agent")
        return key
    if len(bundles) == 1:
        return next(iter(bundles))
    raise ValidationError(
        "The single mode talks to one agent: name it (API 'agent', cadence chat --agent NAME, or "
        f"CADENCE_AGENT); agents: {', '.join(bundles) or 'none loaded'}.",
        code="agent_required",
    )


def check_configured_agent(
    settings: Settings, bundles: Mapping[str, PluginBundle], skipped: Mapping[str, str] | None = None
) -> str | None:
    """``CADENCE_AGENT`` checked against the loaded agents when it is set; ConfigurationError if unknown.

    ``skipped`` (:func:`not_loaded`) tells why an agent that was found is not loaded.
    """
    if not settings.agent:
        return None
    try:
        return resolve_agent(settings.agent, bundles, skipped=skipped)
    except ValidationError as exc:
        raise ConfigurationError(f"CADENCE_AGENT (or --agent): {exc.message}") from None


def turn_agent(runtime: Runtime[Any] | None) -> str | None:
    """The agent of the running turn (``TurnContext.agent``)."""
    context = runtime.context if runtime is not None else None
    return getattr(context, "agent", None) if context is not None else None


# -- the agent step -------------------------------------------------------------------------------
def single_instructions(state: Mapping[str, Any], metadata: PluginMetadata) -> str:
    """The tone of the turn and the agent's response suggestion, as instructions for its prompt."""
    raw = state.get("tone") or (state.get("metadata") or {}).get("tone")
    tone = ResponseTone.get_description(raw)
    text = SINGLE_INSTRUCTIONS.format(tone=tone) + capabilities_prompt([metadata.description])
    if metadata.response_suggestion:
        text += f"\nPresentation: {metadata.response_suggestion}"
    return text


def without_forwarded_copies(messages: list[Any]) -> list[Any]:
    """The conversation without the final answers that only repeat an agent's answer (forwarded).

    The agent's own answer stays in the history; its forwarded copy would show it twice.
    """
    return [
        m
        for m in messages
        if not (
            isinstance(m, AIMessage)
            and m.name == ANSWER_NODE
            and (m.response_metadata or {}).get(FORWARDED_KEY)
            and not (m.response_metadata or {}).get(FALLBACK_KEY)
        )
    ]


def agent_step(bundle: PluginBundle) -> Any:
    """``{name}_agent``: the plugin's own agent node, with the mode's instructions; counts the one hop."""

    async def runner(
        agent: Any, node_name: str, state: dict[str, Any], config: RunnableConfig, runtime: Any
    ) -> dict[str, Any]:
        messages = without_forwarded_copies(state.get("messages") or [])
        instructions = single_instructions(state, bundle.metadata)
        settings = getattr(getattr(runtime, "context", None), "settings", None)
        if isinstance(settings, Settings):  # its answer is the final answer: it gets the turn's memory
            messages = with_memory(messages, state, settings)
            # the user's facts as every agent gets them ("ahead of London am I?" needs "You live in
            # Istanbul."), then the rest of what is remembered
            told = "" if answering_items(state, settings) else facts_prompt(state)
            instructions += (f"\n\n{told}" if told else "") + memory_prompt(state, settings, facts=False)
        feedback = (state.get("plugin_context") or {}).get(F.VALIDATION_FEEDBACK)
        if feedback:  # the validation correction round: what to fix comes last
            messages = [*messages, HumanMessage(content=feedback)]
        view = {**state, "messages": messages}
        return await run_agent(
            agent,
            node_name,
            view,
            config,
            runtime,
            instructions=instructions,
            next_node=lambda update: (
                bundle.tools_node_name if should_continue(update) == TOOLS else ANSWER_NODE
            ),
        )

    inner = agent_node_of(bundle.agent, runner, bundle.agent_node_name)

    async def single_agent_node(
        state: dict[str, Any], config: RunnableConfig, runtime: Runtime[Any]
    ) -> dict[str, Any]:
        first = not int(state.get("agent_hops") or 0)
        if first:
            emit_events([AgentStartEvent(type="agent_start", agent=bundle.name, hop=1)])
        update = dict(await inner(state, config, runtime))
        if first:
            ctx = plugin_context(state)
            ctx[F.ROUTING_HISTORY].append(bundle.name)
            ctx[F.LAST_ROUTED_AGENT] = bundle.name
            ctx[F.SAME_AGENT_CONSECUTIVE_ROUTES] = 1
            update["agent_hops"] = 1
            update["plugin_context"] = ctx
        return update

    single_agent_node.__name__ = bundle.agent_node_name
    return single_agent_node


def should_continue(state: dict[str, Any]) -> str:
    """The seed's ``should_continue``: ``tools`` when the agent called a work tool, else ``answer``."""
    messages = state.get("messages") or []
    last = messages[-1] if messages else None
    calls = list(getattr(last, "tool_calls", None) or []) if isinstance(last, AIMessage) else []
    return TOOLS if any(c.get("name") != BACK_TOOL_NAME for c in calls) else ANSWER


async def continue_edge(state: dict[str, Any]) -> str:
    """:func:`should_continue` as the graph's edge, a coroutine.

    LangGraph runs a synchronous edge function in the default thread pool; this one runs on the loop.
    """
    return should_continue(state)


def after_tools(bundle: PluginBundle) -> plugin_nodes.NextNode:
    """Where ``{name}_tools`` goes: back to the agent, or to ``suspend`` when a guard fired."""

    def next_node(state: dict[str, Any], update: dict[str, Any], runtime: Runtime[Any]) -> str:
        context = runtime.context if runtime is not None else None
        if isinstance(context, TurnContext):
            ctx = update.get("plugin_context") or plugin_context(state)
            view = GuardView(
                context.settings,
                int(state.get("agent_hops") or 0),
                int(update.get("tool_hops") or 0),
                ctx,
                context,
            )
            reason = BEFORE_DECISION.check(view)
            if reason is not None:
                ctx[F.SUSPEND_REASON] = reason.to_dict()
                update["plugin_context"] = ctx
                logger.info("single mode suspends", extra={"agent": bundle.name, "reason": str(reason.code)})
                return GraphNodeNames.SUSPEND
        return bundle.agent_node_name

    return next_node


# -- the answer -------------------------------------------------------------------------------------
def _draft_answer(messages: list[BaseMessage], agent: str) -> AIMessage | None:
    """The agent's answer this turn that ``forward`` sent back for correction (its ``back`` call answered).

    Only ``forward`` answers an agent's ``back`` call in this mode, and it answers the draft's
    when it sends the correction round; the corrected answer's call is still pending.
    """
    _, _, after = split_at_last_human(messages)
    answered = {m.tool_call_id for m in after if isinstance(m, ToolMessage) and m.name == BACK_TOOL_NAME}
    return next(
        (
            m
            for m in reversed(after)
            if isinstance(m, AIMessage)
            and m.name == agent_node_name(agent)
            and has_answer(m)
            and any(c.get("id") in answered for c in m.tool_calls)
        ),
        None,
    )


async def forward_answer(state: dict[str, Any], config: RunnableConfig, runtime: Runtime[Any]) -> Command:
    """Write the agent's answer as the final answer, verbatim (or the fallback if its model failed; a
    tool's error passed on as the answer becomes a sentence saying what failed).

    The ``back`` call an agent's direct answer carries is answered here (the history stays valid).
    The answer cites the documents the turn retrieved (``[path]``) when it cites none, and is
    validated (``CADENCE_VALIDATION``): ``flag`` records the verdict in the trace; ``correct``
    sends a failing answer back to the agent once, with the verdict's feedback, then writes the
    corrected answer (the draft when the correction fails or is empty).
    """
    messages = list(state.get("messages") or [])
    last = messages[-1] if messages else None
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    pending = [
        ToolMessage(content=BACK_TOOL_NAME, name=c["name"], tool_call_id=c["id"])
        for c in (getattr(last, "tool_calls", None) or [] if isinstance(last, AIMessage) else [])
        if c.get("id") and c["id"] not in answered
    ]
    agent = str(state.get("current_agent") or "")
    context = runtime.context if runtime is not None else None
    turn = context if isinstance(context, TurnContext) else None
    ctx = plugin_context(state)
    failures = [e for e in (turn.trace.errors if turn else []) if e.get("node") == agent_node_name(agent)]
    answer = last if isinstance(last, AIMessage) and last.name == agent_node_name(agent) else None
    draft = ctx.get(F.VALIDATION_DRAFT)  # set: this is the answer of the correction round
    mode = turn.settings.validation if turn is not None else "off"
    metadata: dict[str, Any] = {FORWARDED_KEY: agent}
    if draft is not None and (failures or answer is None or not has_answer(answer)):
        kept = _draft_answer(messages, agent)  # the correction failed: the draft stands
        if kept is not None:
            ctx[F.NOTES].append(f"validation: the {agent} agent's correction failed; its first answer stands")
            answer, failures = kept, []
    if failures or answer is None or not has_answer(answer):
        problem = failures[-1]["message"] if failures else "the agent returned an empty answer"
        if not failures and turn is not None:
            turn.trace.errors.append({"node": ANSWER_NODE, "code": "empty_answer", "message": problem})
        content = fallback_answer([*messages, *pending], problem, state.get("tone"))
        metadata[FALLBACK_KEY] = True
    else:
        evidence = TurnEvidence.of({**state, "messages": [*messages, *pending]})
        content = answer_text(answer)
        explained = explained_error(content, evidence.results, ctx.get(F.TOOLS_USED) or [], state.get("tone"))
        if explained is not None:  # a tool's error passed on as the answer: say what failed
            ctx[F.NOTES].append(f"forward: the {agent} agent's answer was a tool error; explained")
            content = explained
        else:  # the tone's traits a reader notices first, as the synthesizer's answers have them
            content, shaped = conform_to_tone(content, state.get("tone"), evidence.question, evidence.results)
            if shaped:
                ctx[F.NOTES].append(f"forward: the {agent} agent's answer shaped to the turn's tone")
        content = with_citations(content, evidence.sources)
        if mode != "off" and correct_or_record(ctx, turn, ANSWER_NODE, mode, evidence.validate(content)):
            logger.info("the agent's answer fails validation; back to it once", extra={"agent": agent})
            emit_events([node_event(agent_node_name(agent))])
            return Command(goto=agent_node_name(agent), update={"messages": pending, "plugin_context": ctx})
    final = AIMessage(content=content, name=ANSWER_NODE, response_metadata=metadata)
    return Command(goto=END, update={"messages": [*pending, final], "plugin_context": ctx})


# -- the graph ----------------------------------------------------------------------------------------
def build_single_graph(
    bundles: dict[str, PluginBundle],
    settings: Settings,
    models: ModelResolver,
    checkpointer: Any = None,
) -> CompiledStateGraph:
    """Build and compile the single-agent graph over ``bundles`` (each turn runs one of them).

    ``CADENCE_AGENT`` is not checked here: the engine checks it at start (:func:`check_configured_agent`)
    and every turn resolves its agent (:func:`resolve_agent`), so a reload that loses the configured
    agent still builds the graph, and the other agents keep answering.
    """
    graph: StateGraph = StateGraph(AgentState, context_schema=TurnContext)
    by_name = {b.name: b.metadata for b in bundles.values()}
    graph.add_node(
        ANSWER_NODE,
        forward_answer,
        destinations={END: "answer", **{b.agent_node_name: "correct" for b in bundles.values()}},
    )
    graph.add_node(
        GraphNodeNames.SUSPEND, SuspendNode(models(GraphNodeNames.SUSPEND, None), by_name, settings)
    )
    for bundle in bundles.values():
        bundle.bind_model(models("agent", bundle.metadata))
        graph.add_node(bundle.agent_node_name, agent_step(bundle))
        graph.add_node(
            bundle.tools_node_name,
            plugin_nodes.tools_node(bundle, after_tools(bundle)),
            destinations={bundle.agent_node_name: "loop", GraphNodeNames.SUSPEND: "guard"},
        )
        graph.add_conditional_edges(
            bundle.agent_node_name,
            continue_edge,
            {TOOLS: bundle.tools_node_name, ANSWER: ANSWER_NODE},
        )

    default = settings.agent

    async def entry(state: dict[str, Any], runtime: Runtime[Any]) -> str:
        return agent_node_name(resolve_agent(turn_agent(runtime), bundles, default))

    if bundles:
        graph.add_conditional_edges(
            START, entry, {b.agent_node_name: b.agent_node_name for b in bundles.values()}
        )
    else:  # nothing to talk to: the answer node explains (no agent answered)
        graph.add_edge(START, ANSWER_NODE)
    graph.add_edge(GraphNodeNames.SUSPEND, END)
    compiled = graph.compile(checkpointer=checkpointer, name="cadence")
    logger.debug("single graph built", extra={"nodes": list(compiled.get_graph().nodes)})
    return compiled


def entry_node(agent: str) -> str:
    """The first node of a single-mode turn (the stream's first ``node`` event)."""
    return agent_node_name(agent)


__all__ = [
    "ANSWER_NODE",
    "FORWARDED_KEY",
    "NAME",
    "after_tools",
    "agent_step",
    "build_single_graph",
    "check_configured_agent",
    "entry_node",
    "forward_answer",
    "not_loaded",
    "resolve_agent",
    "should_continue",
    "single_instructions",
]
