"""The supervisor mode (seed 004): a supervisor hands off; each agent loops over its tools until it answers.

supervisor → control_tools → ``{name}_agent`` ⇄ ``{name}_tools`` → supervisor … → synthesizer
(or → forward, which passes an agent's answer through verbatim).

- The supervisor is the coordinator node with other tools and another view of the
  conversation (:class:`Supervisor`): its handoff tools are the project's routing tools
  (``goto_{name}_agent``, each answering with ``Command(goto="{name}_agent")``), plus
  ``forward_message`` and ``goto_finalize``. The same guards apply at its visits (tool hops,
  deadline) and at every handoff (agent hops, consecutive handoffs to one agent).
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
from collections.abc import Sequence
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool, InjectedToolCallId, StructuredTool
from langgraph.graph import END, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command

from cadence.conventions import BACK as BACK_EDGE
from cadence.conventions import (
    BACK_TOOL_NAME,
    CONTINUE,
    CONTROL_METADATA_KEY,
    FINALIZE_TOOL,
    FORWARD_TOOL,
    GraphNodeNames,
    agent_node_name,
    has_text,
    is_control_tool,
    message_text,
    plugin_of_node,
    route_tool_name,
    split_at_last_human,
)
from cadence.orchestration import plugin_nodes
from cadence.orchestration.control_tools import RoutingDecision
from cadence.orchestration.coordinator import Coordinator, bind_routes, build_plugin_descriptions
from cadence.orchestration.coordinator import coordinator_routing_logic as supervisor_routing_logic
from cadence.orchestration.graph import ModelResolver, add_decision_nodes
from cadence.orchestration.guards import BEFORE_DECISION, GuardView
from cadence.orchestration.prompts import SUPERVISOR_INSTRUCTIONS
from cadence.orchestration.safety import strip_control_messages
from cadence.orchestration.state import AgentState, plugin_context
from cadence.orchestration.state import PluginContextFields as F
from cadence.orchestration.turn import TurnContext
from cadence.plugins.bundle import PluginBundle
from cadence.sdk.metadata import PluginMetadata
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


def supervisor_view(
    messages: Sequence[BaseMessage], output_mode: str = "last_message", handoff_messages: bool = True
) -> list[BaseMessage]:
    """The conversation as the supervisor's model sees it.

    ``last_message``: of each agent's work only its final answer remains (its intermediate
    steps, their tool calls and their results are left out); ``full_history``: everything.
    Without ``handoff_messages`` the handoff and hand-back calls (and their results) are left
    out too, keeping any text.
    """
    if output_mode not in OUTPUT_MODES:
        raise ValueError(f"unknown output mode {output_mode!r}; use one of {', '.join(OUTPUT_MODES)}")
    out = list(messages)
    if output_mode == "last_message":
        work_ids: set[str] = set()
        kept: list[BaseMessage] = []
        for msg in out:
            if _is_agent_message(msg):
                work = [c for c in msg.tool_calls if not is_control_tool(c.get("name"))]  # type: ignore[attr-defined]
                if work:  # an intermediate step: its calls and their results stay with the agent
                    work_ids.update(c["id"] for c in work if c.get("id"))
                    continue
            if isinstance(msg, ToolMessage) and msg.tool_call_id in work_ids:
                continue
            kept.append(msg)
        out = kept
    if not handoff_messages:
        out = strip_control_messages(out)
    return out


# -- the supervisor node --------------------------------------------------------------------
def make_forward_tool(plugin_names: Sequence[str]) -> BaseTool:
    """``forward_message(from_agent)``: pass that agent's last answer to the user verbatim.

    It answers its call with the agent's name and goes to the ``forward`` node
    (``Command(goto="forward")``), which writes the answer (or, with no answer to pass on,
    leaves the final answer to the synthesizer).
    """
    names = ", ".join(plugin_names) or "(none)"

    def command(from_agent: str, tool_call_id: str) -> Command:
        agent = str(from_agent or "").strip().lower()
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
        description=(
            "Pass an agent's last answer to the user verbatim, when it answers the question as it stands. "
            f"from_agent: the agent's name ({names})."
        ),
        metadata={CONTROL_METADATA_KEY: True},
    )


class Supervisor(Coordinator):
    """The supervisor node: the coordinator's decision step with handoff tools and its own view.

    Guards, the one-call-per-decision rule, the routing history, the consecutive-route
    counters and the events are the coordinator's (inherited); the supervisor adds
    ``forward_message`` and sees the conversation through :func:`supervisor_view`.
    """

    node_name = GraphNodeNames.SUPERVISOR
    finishing_tools = frozenset({FINALIZE_TOOL, FORWARD_TOOL})

    def __init__(self, model: BaseChatModel, plugins: Sequence[PluginMetadata], settings: Settings) -> None:
        super().__init__(model, plugins, settings)
        self.tools = [*self.tools, make_forward_tool(self.plugin_names)]
        self.bound_model = bind_routes(model, self.tools)
        self.prompt = SUPERVISOR_INSTRUCTIONS.format(
            plugin_descriptions=build_plugin_descriptions(self.plugins),
            tool_options=" | ".join(route_tool_name(n) for n in self.plugin_names) or "(none)",
        )
        self.output_mode = settings.supervisor_output_mode
        self.handoff_messages = settings.supervisor_handoff_messages

    def model_input(self, state: dict[str, Any]) -> list[Any]:
        """The conversation through :func:`supervisor_view` (output mode, handoff breadcrumbs)."""
        return supervisor_view(state.get("messages") or [], self.output_mode, self.handoff_messages)


# -- forward ----------------------------------------------------------------------------------
async def forward_node(state: dict[str, Any]) -> Command:
    """Write the forwarded agent's last answer of this turn as the final answer, verbatim.

    The agent is the ``forward_message`` call's result; without an answer of that agent in
    this turn, the synthesizer writes the final answer instead (noted in the trace).
    """
    _, _, after = split_at_last_human(state.get("messages") or [])
    agent = next(
        (
            message_text(m).strip()
            for m in reversed(after)
            if isinstance(m, ToolMessage) and m.name == FORWARD_TOOL
        ),
        "",
    )
    answer = next(
        (
            m
            for m in reversed(after)
            if isinstance(m, AIMessage) and m.name == agent_node_name(agent) and has_text(m)
        ),
        None,
    )
    if answer is None:
        ctx = plugin_context(state)
        ctx[F.NOTES].append(f"forward_message: no answer of agent {agent!r} to forward; synthesized instead")
        logger.warning("nothing to forward; synthesizing", extra={"agent": agent})
        return Command(goto=GraphNodeNames.SYNTHESIZER, update={"plugin_context": ctx})
    final = AIMessage(
        content=message_text(answer),
        name=GraphNodeNames.FORWARD,
        response_metadata={FORWARDED_KEY: agent},
    )
    return Command(goto=END, update={"messages": [final]})


# -- the agents' loops ----------------------------------------------------------------------------
def agent_loop(bundle: PluginBundle) -> plugin_nodes.NextNode:
    """Where ``{name}_tools`` goes: back to its agent, or to the supervisor (answer given, or a guard)."""

    def next_node(state: dict[str, Any], update: dict[str, Any], runtime: Runtime[Any]) -> str:
        last_ai = next((m for m in reversed(state.get("messages") or []) if isinstance(m, AIMessage)), None)
        calls = list(getattr(last_ai, "tool_calls", None) or [])
        if not calls or any(c.get("name") == BACK_TOOL_NAME for c in calls):
            return GraphNodeNames.SUPERVISOR
        context = runtime.context if runtime is not None else None
        settings = context.settings if isinstance(context, TurnContext) else None
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


# -- the graph ------------------------------------------------------------------------------------
def build_supervisor_graph(
    bundles: dict[str, PluginBundle],
    settings: Settings,
    models: ModelResolver,
    checkpointer: Any = None,
) -> CompiledStateGraph:
    """Build and compile the supervisor graph for ``bundles``."""
    graph: StateGraph = StateGraph(AgentState, context_schema=TurnContext)
    metadata = [b.metadata for b in bundles.values()]

    # the supervisor decides with the coordinator's model (the deciding role)
    supervisor = Supervisor(models(GraphNodeNames.COORDINATOR, None), metadata, settings)
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
        destinations={END: "forwarded", GraphNodeNames.SYNTHESIZER: "nothing to forward"},
    )

    for bundle in bundles.values():
        bundle.bind_model(models("agent", bundle.metadata))
        graph.add_node(bundle.agent_node_name, plugin_nodes.agent_node(bundle))
        graph.add_node(
            bundle.tools_node_name,
            plugin_nodes.tools_node(bundle, agent_loop(bundle)),
            destinations={bundle.agent_node_name: "loop", GraphNodeNames.SUPERVISOR: "hand back"},
        )
        graph.add_conditional_edges(
            bundle.agent_node_name,
            bundle.should_continue,
            {CONTINUE: bundle.tools_node_name, BACK_EDGE: GraphNodeNames.SUPERVISOR},
        )

    graph.add_conditional_edges(
        GraphNodeNames.SUPERVISOR,
        supervisor_routing_logic,
        {
            RoutingDecision.CONTINUE: GraphNodeNames.CONTROL_TOOLS,
            RoutingDecision.SUSPEND: GraphNodeNames.SUSPEND,
            RoutingDecision.DONE: GraphNodeNames.SYNTHESIZER,
        },
    )
    graph.add_edge(GraphNodeNames.SUSPEND, END)
    graph.add_edge(GraphNodeNames.SYNTHESIZER, END)
    graph.set_entry_point(GraphNodeNames.SUPERVISOR)
    compiled = graph.compile(checkpointer=checkpointer, name="cadence")
    logger.debug("supervisor graph built", extra={"nodes": list(compiled.get_graph().nodes)})
    return compiled


__all__ = [
    "FORWARDED_KEY",
    "NAME",
    "OUTPUT_MODES",
    "Supervisor",
    "agent_loop",
    "build_supervisor_graph",
    "forward_node",
    "make_forward_tool",
    "supervisor_view",
]
