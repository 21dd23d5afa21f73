"""The supervisor mode (seed 004): a supervisor hands off; each agent loops over its tools until it answers.

supervisor → ``{name}_agent`` ⇄ ``{name}_tools`` → supervisor … → synthesizer
(or the forward step, which passes an agent's answer through verbatim).

- The supervisor is the coordinator node with other tools and another view of the
  conversation (:class:`Supervisor`): its handoff tools are the project's routing tools named
  as langgraph-supervisor names them (``transfer_to_{name}``, each answering with
  ``Command(goto="{name}_agent")``), plus ``forward_message`` and ``goto_finalize``. The same
  guards apply at its visits (tool hops, deadline) and at every handoff (agent hops, consecutive
  handoffs to one agent).
- Each agent runs its own agent ⇄ tools loop: after a tools step it goes back to its agent,
  unless its last call was ``back`` (its answer; the hand-back breadcrumb) or a guard fired
  (tool hops, deadline), then it hands back to the supervisor.
- ``CADENCE_SUPERVISOR_OUTPUT_MODE``: ``last_message`` shows the supervisor each agent's final
  answer only; ``full_history`` shows the agent's tool calls and results too.
- ``CADENCE_SUPERVISOR_HANDOFF_MESSAGES``: keep (or drop) the handoff and hand-back calls in
  what the supervisor sees.
- What every mode shares is imported, not copied: the synthesizer (final answer), the suspend
  node, the guards, the plugin nodes, events, tones, the trace and persistence.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, ClassVar, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, InjectedToolCallId, StructuredTool
from langgraph.graph import END, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command

from cadence.conventions import (
    BACK_TOOL_NAME,
    CONTROL_METADATA_KEY,
    FINALIZE_TOOL,
    FORWARD_TOOL,
    FORWARDED_REPLY_NOTICE,
    HANDOFF_NAMING,
    ROUTE_DESCRIPTION_PREFIX,
    TONE_NOTICE,
    GraphNodeNames,
    RouteNaming,
    agent_from_route,
    agent_node_name,
    answer_text,
    has_answer,
    is_control_tool,
    message_text,
    plugin_of_node,
    split_at_last_human,
)
from cadence.models.preroute import question_parts
from cadence.orchestration import plugin_nodes
from cadence.orchestration.agent_node import FAILED_STEP_KEY, agent_node_of, run_agent
from cadence.orchestration.answer_check import (
    SHORT_RESULT_CHARS,
    ToolResult,
    facts,
    faithful_answer,
)
from cadence.orchestration.coordinator import (
    Coordinator,
    RoutingCoordinator,
    agent_readers,
    bind_routes,
    build_plugin_descriptions,
)
from cadence.orchestration.events import emit_events, node_event, tools_events
from cadence.orchestration.graph import ModelResolver, add_decision_nodes
from cadence.orchestration.guards import BEFORE_DECISION, GuardView
from cadence.orchestration.prompts import SUPERVISOR_INSTRUCTIONS
from cadence.orchestration.recall import facts_prompt
from cadence.orchestration.safety import strip_control_messages
from cadence.orchestration.state import AgentState, plugin_context
from cadence.orchestration.state import PluginContextFields as F
from cadence.orchestration.tones import ResponseTone
from cadence.orchestration.tool_logging import MAX_RESULT_CHARS_IN_TRACE
from cadence.orchestration.trimming import replace_history, trim_history
from cadence.orchestration.turn import TurnContext
from cadence.orchestration.validation import (
    correct_or_record,
    explained_error,
    results_from_records,
    retrieved_sources,
    turn_evidence,
    validate_answer,
    with_citations,
)
from cadence.plugins.bundle import PluginBundle
from cadence.sdk.agent import with_back_call
from cadence.sdk.metadata import PluginMetadata, normalize_name
from cadence.sdk.routing import Reader
from cadence.settings import Settings

logger = logging.getLogger(__name__)

NAME = "supervisor"
"""The mode's name (``CADENCE_MODE``, the API's ``mode``, ``cadence chat --mode``)."""

FORWARDED_KEY = "cadence_forwarded"
"""``response_metadata`` of a forwarded answer: the agent whose answer it is."""

OUTPUT_MODES = ("last_message", "full_history")
"""The values of ``CADENCE_SUPERVISOR_OUTPUT_MODE``."""


# -- what the supervisor sees ---------------------------------------------------------------
def _is_agent_message(msg: BaseMessage) -> bool:
    node = plugin_of_node(getattr(msg, "name", None) or "")
    return isinstance(msg, AIMessage) and node is not None and node[1] == "agent"


def without_forwarded_copies(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """``messages`` without the final answers that are word for word an agent's answer of their turn.

    ``forward`` passes an agent's answer on verbatim: the history keeps both, and a model would read the
    same answer twice in every later call. The agent's own message stays; a forwarded answer that differs
    (citations added, written from the results, the supervisor's own) stays too.
    """
    out: list[BaseMessage] = []
    answers: set[str] = set()
    for msg in messages:
        if isinstance(msg, HumanMessage):
            answers = set()
        elif _is_agent_message(msg):
            answers.add(answer_text(msg))
        elif (
            isinstance(msg, AIMessage)
            and msg.name == GraphNodeNames.FORWARD
            and (msg.response_metadata or {}).get(FORWARDED_KEY)
            and answer_text(msg) in answers
        ):
            continue
        out.append(msg)
    return out


def supervisor_view(
    messages: Sequence[BaseMessage], output_mode: str = "last_message", handoff_messages: bool = True
) -> list[BaseMessage]:
    """The conversation as the supervisor's model sees it.

    ``last_message``: of each agent's work only its final answer remains (its intermediate
    steps, their tool calls and their results are left out); ``full_history``: everything.
    Without ``handoff_messages`` the handoff and hand-back calls (and their results) are left
    out too, keeping any text. A forwarded answer that only repeats its agent's is left out
    (:func:`without_forwarded_copies`).
    """
    if output_mode not in OUTPUT_MODES:
        raise ValueError(f"unknown output mode {output_mode!r}; use one of {', '.join(OUTPUT_MODES)}")
    out = without_forwarded_copies(messages)
    if output_mode == "last_message":
        work_ids: set[str] = set()
        kept: list[BaseMessage] = []
        for msg in out:
            if _is_agent_message(msg):
                work = [c for c in msg.tool_calls if not is_control_tool(c.get("name"))]  # type: ignore[attr-defined]
                if work:  # an intermediate step: its calls and all their results stay with the agent
                    work_ids.update(c["id"] for c in msg.tool_calls if c.get("id"))  # type: ignore[attr-defined]
                    continue
            if isinstance(msg, ToolMessage) and msg.tool_call_id in work_ids:
                continue
            kept.append(msg)
        out = kept
    if not handoff_messages:
        out = strip_control_messages(out)
    return out


# -- the supervisor node --------------------------------------------------------------------
def forwarded_agent_name(value: Any, plugin_names: Sequence[str]) -> str:
    """The agent a ``forward_message(from_agent)`` call names: the plugin's name when it names one.

    A model names an agent as it sees it: the plugin (``math``), its node, which names its messages in
    the history (``math_agent``, as langgraph-supervisor's agents are named), its handoff tool
    (``transfer_to_math``), in any case and spacing (``Math Agent``). Each of those is the plugin
    ``math``; ``supervisor`` stays; anything else is kept (normalized): it has no answer to forward.
    """
    name = normalize_name(str(value or ""))
    known = list(plugin_names)
    if not name or name in known or name == GraphNodeNames.SUPERVISOR:
        return name
    node = plugin_of_node(name)
    for candidate in (agent_from_route(name, known), node[0] if node is not None else None):
        if candidate is not None and candidate in known:
            return candidate
    return name


def make_forward_tool(plugin_names: Sequence[str]) -> BaseTool:
    """``forward_message(from_agent)``: pass that agent's last answer to the user verbatim.

    It answers its call with the agent's name and goes to the ``forward`` node
    (``Command(goto="forward")``), which writes the answer (or, with no answer to pass on,
    leaves the final answer to the synthesizer).
    """
    names = ", ".join(plugin_names) or "(none)"

    def command(from_agent: str, tool_call_id: str) -> Command:
        agent = forwarded_agent_name(from_agent, plugin_names)
        message = ToolMessage(content=agent, name=FORWARD_TOOL, tool_call_id=tool_call_id)
        return Command(goto=GraphNodeNames.FORWARD, update={"messages": [message]})

    def run(from_agent: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        return command(from_agent, tool_call_id)

    async def arun(from_agent: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        return command(from_agent, tool_call_id)

    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name=FORWARD_TOOL,
        description=f"Pass an agent's last answer to the user verbatim. from_agent: {names}.",
        metadata={CONTROL_METADATA_KEY: True},
    )


def handoff_tools(routing: Sequence[BaseTool], plugins: Sequence[PluginMetadata]) -> list[BaseTool]:
    """The routing tools with compact descriptions: an agent's capabilities (what it is routed by).

    The coordinator's tools carry each plugin's description and capabilities; the supervisor,
    called once per handoff, gets the capabilities only (the same routing words: the embedded
    model's lexical pre-router decides the same way), a third fewer tokens per call. Names,
    metadata (control tool, routing text) and ``Command`` stay as they are, in either naming.
    """
    by_agent = {p.normalized_name: p for p in plugins}
    out: list[BaseTool] = []
    for tool in routing:
        agent = agent_from_route(tool.name, by_agent)
        meta = by_agent.get(agent) if agent is not None else None
        if meta is not None and meta.capabilities:
            text = f"{ROUTE_DESCRIPTION_PREFIX}{meta.normalized_name} agent: {'; '.join(meta.capabilities)}."
            tool = tool.model_copy(update={"description": text})
        out.append(tool)
    return out


def _turn_has_agent_answer(messages: Sequence[BaseMessage]) -> bool:
    _, _, after = split_at_last_human(messages)
    return any(_is_agent_message(m) and has_answer(m) for m in after)


class Supervisor(RoutingCoordinator):
    """The supervisor node: the coordinator's decision step with handoff tools and its own view.

    Guards, the one-call-per-decision rule, the decision timeout (``CADENCE_COORDINATOR_TIMEOUT``,
    bounded by the turn's deadline: a slow decision finalizes with what the turn has, recorded
    in the trace), the routing history, the consecutive-route counters and the events are the
    coordinator's (inherited); the supervisor adds
    ``forward_message``, sees the conversation through :func:`supervisor_view` (trimmed), and
    may answer itself: a reply with text and no tool call once agents have answered in this
    turn is the final answer (written by ``forward``, as the peer's supervisor writes it),
    where the coordinator would hand it to the synthesizer.

    Like the coordinator mode's node it answers its own handoff call and goes on by
    ``Command`` (no ``control_tools`` step per handoff); a ``forward_message`` call is answered
    and the ``forward`` step run in the same visit (:func:`finish`).
    """

    node_name = GraphNodeNames.SUPERVISOR
    finishing_tools = frozenset({FINALIZE_TOOL, FORWARD_TOOL})
    route_naming: RouteNaming = HANDOFF_NAMING
    """Its handoff tools: ``transfer_to_{name}`` (langgraph-supervisor's naming); ``goto_finalize`` stays."""
    destinations: ClassVar[dict[str, str]] = {
        **RoutingCoordinator.destinations,
        GraphNodeNames.FORWARD: FORWARD_TOOL,
        END: "answer written",
    }
    """What ``cadence graph`` draws from the node: the handoff step, forward, suspend, done, written."""

    def __init__(
        self,
        model: BaseChatModel,
        plugins: Sequence[PluginMetadata],
        settings: Settings,
        readers: Mapping[str, Reader | None] | None = None,
    ) -> None:
        super().__init__(model, plugins, settings, readers=readers)
        self.tools = [*handoff_tools(self.tools, self.plugins), make_forward_tool(self.plugin_names)]
        self.bound_model = bind_routes(model, self.tools)
        self.prompt = SUPERVISOR_INSTRUCTIONS.format(
            plugin_descriptions=build_plugin_descriptions(self.plugins, self.route_naming),
            tool_options=" | ".join(self.routes) or "(none)",
        )
        self.output_mode = settings.supervisor_output_mode
        self.handoff_messages = settings.supervisor_handoff_messages

    def system_prompt(self, state: dict[str, Any]) -> str:
        """The supervisor's prompt, with the turn's tone when it is not natural: an agent's answer is
        forwarded only when written that way, else the synthesizer writes the answer in it."""
        prompt = super().system_prompt(state)  # with the recalled facts that do not answer alone
        tone = turn_tone(state)
        if tone == ResponseTone.NATURAL.description:
            return prompt
        return f"{prompt}\n\n{SUPERVISOR_TONE_INSTRUCTIONS.format(tone=tone)}"

    def model_input(self, state: dict[str, Any]) -> list[Any]:
        """The conversation through :func:`supervisor_view`, trimmed to ``CADENCE_MODEL_INPUT_MAX_TOKENS``.

        In a validation correction round of the supervisor's own answer, the feedback comes last.
        """
        view = supervisor_view(state.get("messages") or [], self.output_mode, self.handoff_messages)
        trimmed = trim_history(view, self.settings.model_input_max_tokens)
        ctx = state.get("plugin_context") or {}
        if ctx.get(F.VALIDATION_FEEDBACK) and ctx.get(F.SUPERVISOR_ANSWER):
            trimmed = [*trimmed, HumanMessage(content=ctx[F.VALIDATION_FEEDBACK])]
        return trimmed

    async def __call__(  # type: ignore[override]
        self, state: dict[str, Any], config: RunnableConfig, runtime: Runtime[TurnContext]
    ) -> Command:
        """One decision, answered here: ``Command`` to the agent, the synthesizer, suspend or past forward.

        A handoff is answered as its routing tool would answer it (:meth:`route`); a
        ``forward_message(from_agent)`` call (the supervisor's own answer included) is answered
        with the agent's name and the ``forward`` step run in this visit (:func:`finish`).
        """
        update = await Coordinator.__call__(self, state, config, runtime)
        decision = (update.get("messages") or [None])[-1]
        calls = list(getattr(decision, "tool_calls", None) or [])
        ctx = update.get("plugin_context") or {}
        suspended = ctx.get(F.SUSPEND_REASON)
        if suspended or len(calls) != 1 or calls[0]["name"] != FORWARD_TOOL:
            if ctx.get(F.VALIDATION_FEEDBACK) and ctx.get(F.SUPERVISOR_ANSWER):
                # its correction round ends in another step (a handoff): the feedback was the supervisor's
                # (an agent never wrote that answer) and is used up; the draft stays, so the turn's final
                # answer is recorded as the correction, without a second round
                ctx[F.VALIDATION_FEEDBACK] = None
            return Command(goto=self.route(update), update=update)
        agent = forwarded_agent_name((calls[0].get("args") or {}).get("from_agent"), self.plugin_names)
        result = ToolMessage(content=agent, name=FORWARD_TOOL, tool_call_id=calls[0].get("id") or "")
        view = {**state, **update, "messages": [*(state.get("messages") or []), decision, result]}
        goto, written = finish_within(
            view, runtime.context if runtime is not None else None, update, [decision, result]
        )
        return Command(goto=goto, update=written)

    async def _decide(
        self,
        state: dict[str, Any],
        config: RunnableConfig,
        context: TurnContext | None,
        ctx: dict[str, Any],
    ) -> AIMessage:
        """The coordinator's decision; text after agent work becomes ``forward_message(supervisor)``."""
        response = await super()._decide(state, config, context, ctx)
        text = answer_text(response)
        if text and not response.tool_calls and _turn_has_agent_answer(state.get("messages") or []):
            ctx[F.SUPERVISOR_ANSWER] = text
            call = {
                "name": FORWARD_TOOL,
                "args": {"from_agent": GraphNodeNames.SUPERVISOR},
                "id": f"call_fwd_{uuid.uuid4().hex[:12]}",
                "type": "tool_call",
            }
            return AIMessage(content="", tool_calls=[call], id=response.id)
        return response


# -- forward ----------------------------------------------------------------------------------
def _forwarded_agent(state: dict[str, Any]) -> str:
    """The agent whose answer ``forward`` passes on: the ``forward_message`` call's, else the current one.

    After the latest hand-back (a ``back`` result), a ``forward_message`` result names the agent;
    without one the agent's answer came straight from its loop (the direct answer).
    """
    _, _, after = split_at_last_human(state.get("messages") or [])
    for m in reversed(after):
        if isinstance(m, ToolMessage) and m.name == FORWARD_TOOL:
            return message_text(m).strip().lower()
        if isinstance(m, ToolMessage) and m.name == BACK_TOOL_NAME:
            break
    return str(state.get("current_agent") or "")


def _forward_called(state: dict[str, Any]) -> bool:
    """Whether the supervisor called ``forward_message`` after the latest hand-back."""
    _, _, after = split_at_last_human(state.get("messages") or [])
    for m in reversed(after):
        if isinstance(m, ToolMessage) and m.name in (FORWARD_TOOL, BACK_TOOL_NAME):
            return m.name == FORWARD_TOOL
    return False


def _failed_step(message: BaseMessage) -> bool:
    """Whether ``message`` is an agent's failed step: the explanation of its error, not its answer."""
    return bool((message.response_metadata or {}).get(FAILED_STEP_KEY))


def _agent_answer(state: dict[str, Any], agent: str) -> AIMessage | None:
    """``agent``'s last answer with text in this turn (a failed step's explanation is none)."""
    _, _, after = split_at_last_human(state.get("messages") or [])
    return next(
        (
            m
            for m in reversed(after)
            if isinstance(m, AIMessage)
            and m.name == agent_node_name(agent)
            and has_answer(m)
            and not _failed_step(m)
        ),
        None,
    )


def _agent_failure(state: dict[str, Any], agent: str) -> AIMessage | None:
    """``agent``'s failed step in this turn, if its last step with text was one."""
    _, _, after = split_at_last_human(state.get("messages") or [])
    last = next(
        (
            m
            for m in reversed(after)
            if isinstance(m, AIMessage) and m.name == agent_node_name(agent) and has_answer(m)
        ),
        None,
    )
    return last if last is not None and _failed_step(last) else None


def _latest_step(state: dict[str, Any], agent: str) -> AIMessage | None:
    """``agent``'s latest step in this turn, answer or not."""
    _, _, after = split_at_last_human(state.get("messages") or [])
    name = agent_node_name(agent)
    return next((m for m in reversed(after) if isinstance(m, AIMessage) and m.name == name), None)


async def forward_node(state: dict[str, Any], config: RunnableConfig, runtime: Runtime[Any]) -> Command:
    """Write an agent's last answer of this turn as the final answer, verbatim (plus its citations).

    The agent is the ``forward_message`` call's result, or the agent whose answer could stand
    as it is (:func:`answer_stands`). Without an answer of that agent in this turn, the
    synthesizer writes the final answer instead (noted in the trace). With
    ``CADENCE_VALIDATION`` ``flag`` the verdict is recorded; with ``correct`` a failing answer
    goes back to its agent once, with the verdict's feedback (the answering node corrects it).
    """
    return finish(state, runtime.context if runtime is not None else None)


def finish(state: dict[str, Any], context: Any) -> Command:
    """The ``forward`` step (see :func:`forward_node`) as a function of the state and the turn context.

    An agent whose answer stands runs it at the end of its own loop (:func:`answered`), one
    LangGraph task sooner than a visit of the ``forward`` node.
    """
    ctx = plugin_context(state)
    agent = _forwarded_agent(state)
    own = ctx.get(F.SUPERVISOR_ANSWER) if agent == GraphNodeNames.SUPERVISOR else None
    answer = AIMessage(content=own) if own else _agent_answer(state, agent)
    if answer is None:
        failed = _agent_failure(state, agent)
        ctx[F.NOTES].append(
            f"forward_message: the {agent} agent failed ({failed.response_metadata[FAILED_STEP_KEY]}); "
            "synthesized instead"
            if failed is not None
            else f"forward_message: no answer of agent {agent!r} to forward; synthesized instead"
        )
        logger.warning("nothing to forward; synthesizing", extra={"agent": agent})
        emit_events([node_event(GraphNodeNames.SYNTHESIZER)])
        return Command(goto=GraphNodeNames.SYNTHESIZER, update={"plugin_context": ctx})
    if ctx.get(F.VALIDATION_DRAFT) and not own and _latest_step(state, agent) is not answer:
        # the correction round's step failed or was empty: the draft is the agent's last answer
        ctx[F.NOTES].append(f"validation: the {agent} agent's correction failed; its first answer stands")
    question, results = turn_evidence(state)
    text = answer_text(answer)
    if _is_a_raw_result(text, results):
        # a long tool result passed on as it is (passages, listings): answered from it, as the
        # synthesizer answers from results, rather than forwarded raw
        ctx[F.NOTES].append(
            f"forward_message: the {agent} agent's answer was a raw tool result; answered from it"
        )
        text = faithful_answer(question, results, state.get("tone"))
    text = with_citations(text, retrieved_sources(results))
    explained = explained_error(text, results, ctx.get(F.TOOLS_USED) or [], state.get("tone"))
    if explained is not None:  # a tool's error passed on as the answer: say what failed, in words
        ctx[F.NOTES].append(f"forward_message: the {agent} agent's answer was a tool error; explained")
        text = explained
    settings = context.settings if isinstance(context, TurnContext) else None
    mode = settings.validation if settings is not None else "off"
    if mode != "off":
        verdict = validate_answer(question, text, results)
        if correct_or_record(ctx, context, GraphNodeNames.FORWARD, mode, verdict):
            logger.info("forwarded answer fails validation; back to its agent", extra={"agent": agent})
            target = GraphNodeNames.SUPERVISOR if own else agent_node_name(agent)
            emit_events([node_event(target)])
            return Command(goto=target, update={"plugin_context": ctx})
    if not _forward_called(state) and not own and not ctx.get(F.VALIDATION_DRAFT):  # not a correction
        ctx[F.NOTES].append(f"supervisor: the {agent} agent's answer stood as it was (direct answer)")
    final = AIMessage(content=text, name=GraphNodeNames.FORWARD, response_metadata={FORWARDED_KEY: agent})
    return Command(goto=END, update={"messages": [final], "plugin_context": ctx})


def finish_within(
    view: dict[str, Any], context: Any, update: dict[str, Any], messages: Sequence[BaseMessage]
) -> tuple[str, dict[str, Any]]:
    """:func:`finish` run inside another step: where it goes, and that step's ``update`` with its writes.

    The step's own ``messages`` come first, then the final answer ``finish`` wrote (if any).
    """
    done = finish(view, context)
    written = dict(done.update or {})  # type: ignore[call-overload]
    final = written.pop("messages", [])
    return str(done.goto), {**update, **written, "messages": [*messages, *final]}


def _is_a_raw_result(text: str, results: Sequence[ToolResult]) -> bool:
    """Whether ``text`` is, word for word, one of the (long) ``results`` as the tool returned it (or, for a
    result the trace kept only the first :data:`MAX_RESULT_CHARS_IN_TRACE` characters of, starts with it)."""
    said = " ".join(text.split())

    def copies(result: str) -> bool:
        kept = " ".join(result.split())
        return said == kept or (len(result) >= MAX_RESULT_CHARS_IN_TRACE and said.startswith(kept))

    return bool(said) and any(len(r.content) > SHORT_RESULT_CHARS and copies(r.content) for r in results)


# -- the direct answer --------------------------------------------------------------------------
COVERAGE = 0.5
"""An answer that stands covers more than this share of the question's terms (with its tools' work)."""


def _terms(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]{2,}", text) if w.lower() not in _FILLER} | set(
        facts(text)
    )


_FILLER = frozenset(
    {"the", "and", "for", "are", "was", "what", "which", "who", "whom", "whose", "when", "where", "why",
     "how", "does", "did", "can", "could", "would", "should", "please", "tell", "give", "show", "explain",
     "about", "with", "from", "that", "this", "into", "you", "your", "its", "calculate", "compute"}
)  # fmt: skip


def answer_stands(state: dict[str, Any], update: dict[str, Any], agent: str, answer: AIMessage) -> bool:
    """Whether ``agent``'s answer can reach the user as it is, without another supervisor call.

    The rule (documented in docs/architecture.md), all of:

    1. it is the turn's only handoff so far (routing history ``[agent]``) and no guard fired;
    2. the agent ran at least one work tool in this turn, and none failed;
    3. the answer has text of its own (not merely its tool results copied);
    4. it passes validation (:func:`~cadence.orchestration.validation.validate_answer`: relevant,
       no invented number or name, the results carried, citations of retrieved documents);
    5. the question is covered: more than :data:`COVERAGE` of its terms (content words and numbers)
       appear in the answer, the tools' arguments or their results;
    6. the question asks one thing (:func:`~cadence.models.preroute.question_parts`): another part may be
       another agent's ("Tell me the time in Denver, and also how much is 1,750 / 25?").
    """
    ctx = update.get("plugin_context") or {}
    if list(ctx.get(F.ROUTING_HISTORY) or []) != [agent] or ctx.get(F.SUSPEND_REASON):
        return False
    if any(c.get("name") != BACK_TOOL_NAME for c in answer.tool_calls):  # it also called for more
        return False
    records = list(ctx.get(F.TOOLS_USED) or [])
    if not records or any(r.get("error") for r in records):
        return False
    text = answer_text(answer)
    if _failed_step(answer):  # the explanation of the agent's error is no answer
        return False
    results = results_from_records(records)
    contents = [r.content.strip() for r in results]
    if not text or text in contents or " ".join(text.split()) == " ".join("\n".join(contents).split()):
        return False
    question, _ = turn_evidence(state)
    if len(question_parts(question)) > 1:
        return False
    asked = _terms(question)  # the coverage first: it is cheaper than validation
    if asked:
        seen = _terms(" ".join([text, *contents, *(str(v) for r in results for v in r.args.values())]))
        if len(asked & seen) <= COVERAGE * len(asked):
            return False
    return validate_answer(question, text, results).ok


# -- the agents' loops ----------------------------------------------------------------------------
HANDBACK_KEY = "handback"
"""The agent subgraph's channel (and its only output) that says how a visit ends."""


class Handback(TypedDict):
    """How an agent's visit ends: where the parent graph goes next, and what the visit writes to it."""

    goto: str
    """The parent graph's next node: the supervisor, or where the forward step sends a standing answer."""
    update: dict[str, Any]
    """The visit's writes to the shared state: the messages :func:`handed_back` shares, counters, context."""


class AgentVisitState(AgentState, total=False):
    """The agent subgraph's state: the shared state, and the :class:`Handback` that ends the visit."""

    handback: Handback


class AgentVisitOutput(TypedDict, total=False):
    """What the agent subgraph returns to its visit: the :class:`Handback` alone."""

    handback: Handback


def agent_loop(bundle: PluginBundle) -> plugin_nodes.NextNode:
    """Where ``{name}_tools`` goes: back to its agent, or out of its loop.

    Out of the loop: to ``forward`` when the answer can stand as it is (:func:`answer_stands`,
    with ``CADENCE_SUPERVISOR_DIRECT_ANSWER``) or is a validation correction, else to the
    supervisor (answer given, or a guard fired).
    """

    def next_node(state: dict[str, Any], update: dict[str, Any], runtime: Runtime[Any]) -> str:
        messages = state.get("messages") or []
        last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        calls = list(getattr(last_ai, "tool_calls", None) or [])
        context = runtime.context if runtime is not None else None
        settings = context.settings if isinstance(context, TurnContext) else None
        names = [c.get("name") for c in calls]
        # an answer (``back``), or only control calls the agent has not got (``transfer_to_info``: it
        # would hand off): answered with errors, they are no work to loop on (nor counted as tool hops)
        if BACK_TOOL_NAME in names or all(is_control_tool(n) for n in names):
            ctx = update.get("plugin_context") or {}
            if ctx.get(F.VALIDATION_FEEDBACK):  # the correction round: straight back to forward
                return GraphNodeNames.FORWARD
            direct = settings is not None and settings.supervisor_direct_answer
            if direct and last_ai is not None and answer_stands(state, update, bundle.name, last_ai):
                return GraphNodeNames.FORWARD
            return GraphNodeNames.SUPERVISOR
        if settings is not None:
            view = GuardView(
                settings,
                int(state.get("agent_hops") or 0),
                int(update.get("tool_hops") or 0),
                update.get("plugin_context") or {},
                context,
            )
            if BEFORE_DECISION.check(view) is not None:  # the supervisor suspends at its visit
                return GraphNodeNames.SUPERVISOR
        return bundle.agent_node_name

    return next_node


def handed_back(
    messages: Sequence[BaseMessage], new: Sequence[BaseMessage], output_mode: str
) -> list[BaseMessage]:
    """What an agent's visit adds to the shared history when it hands back.

    ``last_message``: its last message and that message's tool results (the answer, with its
    ``back`` breadcrumb); ``full_history``: everything it did (messages already shared keep their
    ids, so the ``add_messages`` reducer replaces them in place).
    """
    if output_mode == "full_history":
        return [*messages, *new]
    last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    return [*([last_ai] if last_ai is not None else []), *new]


SUPERVISOR_TONE_INSTRUCTIONS = (
    TONE_NOTICE
    + ": {tone} Forward an agent's answer only when it is written that way; otherwise call "
    + FINALIZE_TOOL
    + ", and the answer is written in that tone from the agents' results."
)
"""Added to the supervisor's prompt when the turn asks for a tone other than natural."""
AGENT_REPLY_INSTRUCTIONS = FORWARDED_REPLY_NOTICE + "."
"""Added to an agent's system prompt in this mode: a forwarded answer, or one that stands, is nobody's
rewrite (the agent's own prompt sets the natural voice)."""
AGENT_TONE_INSTRUCTIONS = FORWARDED_REPLY_NOTICE + ", so write it in this RESPONSE STYLE: {tone}"
""":data:`AGENT_REPLY_INSTRUCTIONS` when the turn asks for a tone other than natural."""


def turn_tone(state: Mapping[str, Any]) -> str:
    """The description of the turn's tone (natural when it names none)."""
    return ResponseTone.get_description(state.get("tone") or (state.get("metadata") or {}).get("tone"))


def agent_instructions(state: dict[str, Any]) -> str:
    """The supervisor mode's additions to an agent's prompt: the user's recalled facts, and that its answer
    may reach the user as it is (in the turn's tone)."""
    tone = turn_tone(state)
    parts = [facts_prompt(state)]
    if tone != ResponseTone.NATURAL.description:
        parts.append(AGENT_TONE_INSTRUCTIONS.format(tone=tone))
    else:
        parts.append(AGENT_REPLY_INSTRUCTIONS)
    return "\n\n".join(p for p in parts if p)


async def _run_agent_in_mode(
    agent: Any, node_name: str, state: dict[str, Any], config: RunnableConfig, runtime: Runtime[Any]
) -> dict[str, Any]:
    return await run_agent(
        agent, node_name, state, config, runtime, instructions=agent_instructions(state) or None
    )


def agent_step(bundle: PluginBundle, output_mode: str = "last_message") -> Callable[..., Any]:
    """The agent subgraph's ``{name}_agent`` node: one agent step on a trimmed history.

    Pre-model trimming (``CADENCE_MODEL_INPUT_MAX_TOKENS``): the subgraph's own copy of the
    conversation is replaced by the trimmed one (``RemoveMessage(REMOVE_ALL_MESSAGES)``), so the
    model gets the budget and the shared history stays whole. The prompt gets the user's recalled facts
    and the turn's tone (:func:`agent_instructions`). The model does not see forwarded
    copies of answers (:func:`without_forwarded_copies`). A validation correction round
    adds its feedback as the last message the model sees. An answer (a step whose only call is
    ``back``) hands back at once (:func:`answered`): no tools step just to run ``back``.
    """
    inner = agent_node_of(bundle.agent, _run_agent_in_mode, bundle.agent_node_name)
    loop = agent_loop(bundle)
    tools = bundle.tools_node_name

    async def node(state: dict[str, Any], config: RunnableConfig, runtime: Runtime[Any]) -> Any:
        context = runtime.context if runtime is not None else None
        budget = context.settings.model_input_max_tokens if isinstance(context, TurnContext) else 0
        messages = list(state.get("messages") or [])
        trimmed = trim_history(messages, budget)
        feedback = (state.get("plugin_context") or {}).get(F.VALIDATION_FEEDBACK)
        shown = without_forwarded_copies(trimmed)
        seen = [*shown, HumanMessage(content=feedback)] if feedback else shown
        view = state if len(seen) == len(messages) and not feedback else {**state, "messages": seen}
        update = await inner(view, config, runtime)
        written = list(update.get("messages") or [])
        response = written[-1] if written else None
        if not isinstance(response, AIMessage) or not response.tool_calls:
            # a plugin's own node that wrote no reply, or one without its ``back``: it answered (empty,
            # or as written); without this the loop would read an earlier message's calls, forever
            replied = isinstance(response, AIMessage)
            reply = response if isinstance(response, AIMessage) else AIMessage(content="")
            response = with_back_call(reply).model_copy(update={"name": bundle.agent_node_name})
            written = [*written[:-1], response] if replied else [*written, response]
            update = {**update, "messages": written}
        calls = list(getattr(response, "tool_calls", None) or [])
        if isinstance(response, AIMessage) and calls and all(c.get("name") == BACK_TOOL_NAME for c in calls):
            return answered(bundle, loop, output_mode, state, messages, response, update, runtime)
        if len(trimmed) < len(messages):
            update = {**update, "messages": [*replace_history(trimmed), *update.get("messages", [])]}
        return Command(goto=tools, update=update)

    node.__name__ = bundle.agent_node_name
    return node


def answered(
    bundle: PluginBundle,
    loop: plugin_nodes.NextNode,
    output_mode: str,
    state: dict[str, Any],
    messages: list[BaseMessage],
    response: AIMessage,
    update: dict[str, Any],
    runtime: Runtime[Any],
) -> dict[str, Any]:
    """The agent answered: its ``back`` call is answered here and the answer handed back (:class:`Handback`).

    What the tools step would do for a lone ``back``, one LangGraph task earlier: the breadcrumb
    result, the same events (``agent_end``, the next node), the same destination
    (:func:`agent_loop`: supervisor, or forward for an answer that stands) and the same share
    of the history (:func:`handed_back`).
    """
    back = [
        ToolMessage(content=BACK_TOOL_NAME, name=BACK_TOOL_NAME, tool_call_id=str(c.get("id") or ""))
        for c in response.tool_calls
    ]
    step = {
        **_carried(state),
        "messages": back,
        "tool_hops": int(state.get("tool_hops") or 0),
        "plugin_context": plugin_context(state),
    }
    target = loop({**state, "messages": [*messages, response]}, step, runtime)
    emit_events(tools_events(bundle.name, step, target))
    shared = handed_back([*messages, response], back, output_mode)
    rest = {k: v for k, v in update.items() if k != "messages"}
    if target == GraphNodeNames.FORWARD:  # the answer stands, or was corrected: write it here
        view = {**state, **rest, **step, "messages": [*messages, response, *back]}
        goto, written = finish_within(
            view, runtime.context if runtime is not None else None, {**rest, **step}, shared
        )
        return {HANDBACK_KEY: Handback(goto=goto, update=written)}
    return {HANDBACK_KEY: Handback(goto=target, update={**rest, **step, "messages": shared})}


def _carried(state: dict[str, Any]) -> dict[str, Any]:
    """The visit's earlier writes to shared state a handback carries besides its step's: ``metadata``, which
    a tool may change (``Command(update=...)``) in any step of the agent's loop."""
    return {"metadata": state["metadata"]} if "metadata" in state else {}


def hand_back(bundle: PluginBundle, output_mode: str) -> Callable[..., Any]:
    """The agent subgraph's ``{name}_tools`` node: the plugin's tools step, looping or handing back.

    A step that goes on loops inside the subgraph (a ``Command`` to the agent); one that leaves it
    ends the subgraph with a :class:`Handback` to the parent graph (supervisor or forward) carrying
    what :func:`handed_back` shares, so ``output_mode`` decides what the shared history, and so the
    supervisor and the other agents, see.
    """
    inner = plugin_nodes.tools_node(bundle, agent_loop(bundle))

    async def node(state: dict[str, Any], config: RunnableConfig, runtime: Runtime[Any]) -> Any:
        result = await inner(state, config, runtime)
        if not isinstance(result, Command) or result.goto == bundle.agent_node_name:
            return result
        update = {**_carried(state), **dict(result.update or {})}  # type: ignore[call-overload]
        update["messages"] = handed_back(
            state.get("messages") or [], update.get("messages") or [], output_mode
        )
        return {HANDBACK_KEY: Handback(goto=str(result.goto), update=update)}

    node.__name__ = bundle.tools_node_name
    return node


def agent_subgraph(bundle: PluginBundle, settings: Settings) -> CompiledStateGraph:
    """``{name}_agent`` ⇄ ``{name}_tools`` as a subgraph, looping until the agent hands back.

    Each step routes by ``Command`` (agent → tools, tools → agent) and a step that hands back
    routes nowhere, so the subgraph ends with its :class:`Handback` as its output.
    """
    sub: StateGraph = StateGraph(AgentVisitState, context_schema=TurnContext, output_schema=AgentVisitOutput)
    sub.add_node(
        bundle.agent_node_name,
        agent_step(bundle, settings.supervisor_output_mode),
        destinations={bundle.tools_node_name: "tool calls", END: "answer"},
    )
    sub.add_node(
        bundle.tools_node_name,
        hand_back(bundle, settings.supervisor_output_mode),
        destinations={bundle.agent_node_name: "loop", END: "hand back"},
    )
    sub.set_entry_point(bundle.agent_node_name)
    return sub.compile(name=bundle.agent_node_name)


def agent_visit(bundle: PluginBundle, settings: Settings) -> Callable[..., Any]:
    """The parent graph's ``{name}_agent`` node: one visit of the agent's subgraph, then on by its handback.

    The subgraph runs inside this node and is a LangGraph subgraph all the same (its own
    checkpoint namespace, its interrupts and its streamed events; drawn by ``cadence graph``).
    It ends when the agent hands back, and the visit routes the parent graph with the
    :class:`Handback`'s ``Command``. Ending the subgraph this way rather than by
    ``Command.PARENT`` spares every visit an exception's unwinding and a checkpoint of the
    subgraph.
    """
    subgraph = agent_subgraph(bundle, settings)

    async def visit(state: dict[str, Any], config: RunnableConfig) -> Command:
        back: Handback = (await subgraph.ainvoke(state, config))[HANDBACK_KEY]  # every way out writes it
        return Command(goto=back["goto"], update=back["update"])

    visit.__name__ = bundle.agent_node_name
    return visit


# -- the graph ------------------------------------------------------------------------------------
def build_supervisor_graph(
    bundles: dict[str, PluginBundle],
    settings: Settings,
    models: ModelResolver,
    checkpointer: Any = None,
) -> CompiledStateGraph:
    """Build and compile the supervisor graph for ``bundles``: each agent a subgraph."""
    graph: StateGraph = StateGraph(AgentState, context_schema=TurnContext)
    metadata = [b.metadata for b in bundles.values()]

    # the supervisor decides with the coordinator's model (the deciding role)
    readers = agent_readers({b.name: b.tools for b in bundles.values()})
    supervisor = Supervisor(models(GraphNodeNames.COORDINATOR, None), metadata, settings, readers)
    add_decision_nodes(
        graph,
        GraphNodeNames.SUPERVISOR,
        supervisor,
        bundles,
        models,
        settings,
        extra_destinations={GraphNodeNames.FORWARD: FORWARD_TOOL},
    )
    graph.add_node(
        GraphNodeNames.FORWARD,
        forward_node,
        destinations={
            END: "forwarded",
            GraphNodeNames.SYNTHESIZER: "nothing to forward",
            **{b.agent_node_name: "correct" for b in bundles.values()},
            GraphNodeNames.SUPERVISOR: "correct",
        },
    )

    for bundle in bundles.values():
        bundle.bind_model(models("agent", bundle.metadata))
        graph.add_node(
            bundle.agent_node_name,
            agent_visit(bundle, settings),
            destinations={GraphNodeNames.SUPERVISOR: "hand back", GraphNodeNames.FORWARD: "answer"},
        )

    # the supervisor's edges are its Command destinations (declared with the node)
    graph.add_edge(GraphNodeNames.SUSPEND, END)
    graph.add_edge(GraphNodeNames.SYNTHESIZER, END)
    graph.set_entry_point(GraphNodeNames.SUPERVISOR)
    compiled = graph.compile(checkpointer=checkpointer, name="cadence")
    logger.debug("supervisor graph built", extra={"nodes": list(compiled.get_graph().nodes)})
    return compiled


__all__ = [
    "AGENT_TONE_INSTRUCTIONS",
    "COVERAGE",
    "FORWARDED_KEY",
    "HANDBACK_KEY",
    "NAME",
    "OUTPUT_MODES",
    "AgentVisitOutput",
    "AgentVisitState",
    "Handback",
    "Supervisor",
    "agent_instructions",
    "agent_loop",
    "agent_step",
    "agent_subgraph",
    "agent_visit",
    "answer_stands",
    "answered",
    "build_supervisor_graph",
    "finish",
    "finish_within",
    "forward_node",
    "forwarded_agent_name",
    "hand_back",
    "handed_back",
    "handoff_tools",
    "make_forward_tool",
    "supervisor_view",
    "without_forwarded_copies",
]
