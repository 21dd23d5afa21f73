"""The floor: a flat LangGraph graph with as many supersteps as a Cadence turn, on the same checkpointer.

No agents, no models, no tools: a chain of nodes that each append one message, compiled with a
checkpointer of the same kind and run with the same durability as Cadence. What one turn costs
there is what LangGraph itself costs for that many supersteps; Cadence's turn minus it is
Cadence's own cost (nodes, prompts, streaming, tracing) plus the tools.

The number of supersteps is measured on the Cadence subject: the node supersteps of one turn on a
fresh thread (its latest checkpoint's ``step``, counted from the checkpoint the turn started from:
the pending question written before the turn, where the checkpointer keeps one; the floor's chain
has as many nodes, its ``step`` ends at the same number).

The *LangChain-native minimum* (:class:`NativeSubject`) is the floor plus the turn's LangChain work:
the same chain, but its nodes make the turn's model calls (the scripted chat model, tools bound)
and run its tools. What one turn costs there is the least any LangChain-native implementation of
that turn pays, before routing, guards, memory or a trace of its own.
"""

from __future__ import annotations

import itertools
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, MessagesState, StateGraph

from cadence.testing import ScriptedChatModel


async def cadence_supersteps(cadence: Any, message: str, thread_id: str = "floor-probe") -> int:
    """Supersteps of one Cadence turn of ``message`` (run on a fresh thread)."""
    await cadence.turn(message, thread_id)
    saver = cadence.engine.checkpointer
    key = f"{cadence.engine.settings.default_user}::{thread_id}"
    steps = [t.metadata.get("step", 0) async for t in saver.alist({"configurable": {"thread_id": key}})]
    if len(steps) == 1:  # the turn's own checkpoint only: input step -1, then one step per superstep
        return max(steps)
    # from the pending question's checkpoint (its own step), minus the run's input step
    return max(steps) - min(steps) - 2


def build_floor(steps: int, checkpointer: Any) -> Any:
    """A chain of ``steps`` nodes, each appending one AI message, compiled with ``checkpointer``."""
    builder = StateGraph(MessagesState)
    names = [f"step_{i}" for i in range(steps)]

    def make(i: int) -> Any:
        async def node(state: MessagesState) -> dict[str, Any]:
            return {"messages": [AIMessage(content=f"step {i}")]}

        return node

    for i, name in enumerate(names):
        builder.add_node(name, make(i))
    return _compile_chain(builder, names, checkpointer)


def _compile_chain(builder: StateGraph, names: list[str], checkpointer: Any) -> Any:
    """``builder``'s nodes ``names`` run one after the other, compiled with ``checkpointer``."""
    builder.add_edge(START, names[0])
    for a, b in itertools.pairwise(names):
        builder.add_edge(a, b)
    builder.add_edge(names[-1], END)
    return builder.compile(checkpointer=checkpointer)


class ChainSubject:
    """A compiled chain as a benchmark subject (``await turn(message, thread_id)``)."""

    name = "chain"

    def __init__(self, graph: Any, model: ScriptedChatModel, durability: str) -> None:
        self.graph = graph
        self.model = model
        self.durability = durability
        self.steps = len(graph.nodes) - 1  # its nodes, without START: one superstep each

    async def turn(self, message: str, thread_id: str) -> str:
        """One ``ainvoke`` of the chain."""
        out = await self.graph.ainvoke(
            {"messages": [HumanMessage(content=message)]},
            {"configurable": {"thread_id": thread_id}},
            durability=self.durability,
        )
        return str(out["messages"][-1].content)


class FloorSubject(ChainSubject):
    """The flat graph (:func:`build_floor`) as a benchmark subject."""

    name = "floor"

    def __init__(self, steps: int, checkpointer: Any, durability: str) -> None:
        # no model calls; the scripted model keeps the Subject shape
        super().__init__(build_floor(steps, checkpointer), ScriptedChatModel.from_items([]), durability)


def build_native(items: list[dict[str, Any]], tools: list[Any], checkpointer: Any) -> tuple[Any, Any]:
    """The floor plus the turn's LangChain work: a chain with one node per scripted model call and one
    per step of tool calls, in the order of Cadence's turn; returns (graph, model).

    A model node calls the scripted chat model (with ``tools`` bound when its item calls a tool, as the
    deciding and agent calls have) and appends its message; the node after an item that calls one of
    ``tools`` runs those calls on the event loop (``tool.invoke``, or ``ainvoke`` for a coroutine tool,
    as Cadence runs an inline tool) and appends their results. Nothing else: no routing, guards,
    trace, memory or answer check.
    """
    model = ScriptedChatModel.from_items(items, loop=True)
    bound = model.bind_tools(tools)
    by_name = {t.name: t for t in tools}
    builder = StateGraph(MessagesState)
    names: list[str] = []

    def model_node(with_tools: bool) -> Any:
        runnable = bound if with_tools else model

        async def node(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
            return {"messages": [await runnable.ainvoke(state["messages"], config)]}

        return node

    async def tool_node(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        out = []
        for call in state["messages"][-1].tool_calls:
            tool = by_name[call["name"]]
            if tool.coroutine is not None:
                out.append(await tool.ainvoke(call, config))
            else:
                out.append(tool.invoke(call, config))
        return {"messages": out}

    for i, item in enumerate(items):
        calls = [c["name"] for c in item.get("tool_calls") or []]
        names.append(f"call_{i}")
        builder.add_node(names[-1], model_node(bool(calls)))
        if any(name in by_name for name in calls):
            names.append(f"tools_{i}")
            builder.add_node(names[-1], tool_node)
    return _compile_chain(builder, names, checkpointer), model


class NativeSubject(ChainSubject):
    """The LangChain-native minimum of a Cadence turn (:func:`build_native`) as a benchmark subject."""

    name = "native"

    def __init__(
        self, items: list[dict[str, Any]], tools: list[Any], checkpointer: Any, durability: str
    ) -> None:
        super().__init__(*build_native(items, tools, checkpointer), durability)
