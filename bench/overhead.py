"""Sections 1 and 2: orchestration overhead per turn, model calls and input tokens.

Each (checkpointer, conversation) pair gets fresh subjects; both run the same
conversation with a zero-delay scripted model, each turn on a new thread. Turns are
interleaved in blocks (Cadence, peer, Cadence, …) so drift affects both alike.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.conversations import CONVERSATIONS, ONE_AGENT, Conversation, cadence_script, peer_script
from bench.frameworks import CadenceSubject, PeerSubject, Subject, open_subjects
from bench.stats import median, percentile
from bench.tokens import CallTokens, call_tokens

BACKENDS: tuple[str, ...] = ("memory", "sqlite")
BLOCK = 10


@dataclass
class OverheadRow:
    """Per-turn latency of one framework on one conversation and checkpointer."""

    framework: str
    conversation: str
    backend: str
    turns: int
    median_ms: float
    p95_ms: float
    mean_ms: float
    supersteps: int = 0
    """Supersteps of Cadence's turn, the floor's chain length (section 1's floor)."""


@dataclass
class TokenRow:
    """Model calls and input tokens of one turn."""

    framework: str
    conversation: str
    model_calls: int
    input_tokens: int
    message_tokens: int
    tool_schema_tokens: int
    calls: list[dict[str, Any]]
    answer_as_scripted: bool = True
    """Whether the final answer was the scripted one (else the synthesizer rewrote it)."""


def _peer_label(tools: list[str]) -> str:
    if any(t.startswith("transfer_to_") for t in tools):
        return "supervisor"
    return "agent"


def _cadence_label(node: str | None) -> str:
    return node or "?"


async def _timed_turns(
    subject: Subject, message: str, prefix: str, n: int, *, one_thread: bool = False
) -> list[float]:
    """Milliseconds of ``n`` turns, each on a new thread (or all on thread ``prefix``: ``one_thread``)."""
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        await subject.turn(message, prefix if one_thread else f"{prefix}-{i}")
        out.append((time.perf_counter() - t0) * 1000)
        subject.model.records.clear()  # the model's own log would grow with the turns
    return out


async def measure_overhead(
    conv: Conversation, backend: str, workdir: Path, turns: int, warmup: int
) -> tuple[list[OverheadRow], dict[str, list[float]]]:
    """Median and p95 per-turn time of both frameworks on ``conv`` with ``backend``."""
    from bench.floor import FloorSubject, NativeSubject, cadence_supersteps
    from cadence.persistence import open_checkpointer

    samples: dict[str, list[float]] = {}
    floor_url = (
        "memory://" if backend == "memory" else f"sqlite:///{workdir / f'floor-{conv.key}-{backend}.db'}"
    )
    async with (
        open_subjects(backend, cadence_script(conv), peer_script(conv), workdir) as pair,
        open_checkpointer(floor_url) as floor_saver,
        open_checkpointer(floor_url.replace("floor-", "native-")) as native_saver,
    ):
        cadence = pair[0]
        steps = await cadence_supersteps(cadence, conv.message, f"floor-probe-{conv.key}")
        durability = cadence.engine.settings.checkpoint_durability
        floor = FloorSubject(steps, floor_saver, durability)
        tools = [t for b in cadence.engine.plugin_manager.bundles.values() for t in b.agent.get_tools()]
        used = {step.tool for step in conv.steps}
        native = NativeSubject(
            cadence_script(conv), [t for t in tools if t.name in used], native_saver, durability
        )
        if native.steps != steps:  # the same supersteps as Cadence's turn, or the comparison is off
            raise RuntimeError(f"native chain has {native.steps} supersteps, Cadence's turn {steps}")
        subjects = (*pair, floor, native)
        for subject in subjects:
            await _timed_turns(subject, conv.message, f"warm-{subject.name}", warmup)
            samples[subject.name] = []
        gc.collect()
        done = 0
        while done < turns:
            n = min(BLOCK, turns - done)
            for subject in subjects:
                samples[subject.name] += await _timed_turns(
                    subject, conv.message, f"{subject.name}-{done}", n
                )
            done += n
    rows = [
        OverheadRow(
            framework=name,
            conversation=conv.key,
            backend=backend,
            turns=len(values),
            median_ms=round(median(values), 3),
            p95_ms=round(percentile(values, 95), 3),
            mean_ms=round(sum(values) / len(values), 3),
            supersteps=steps,
        )
        for name, values in samples.items()
    ]
    return rows, samples


async def measure_tokens(conv: Conversation, workdir: Path) -> list[TokenRow]:
    """Count each framework's model calls and input tokens for one turn of ``conv``."""
    rows = []
    async with open_subjects("memory", cadence_script(conv), peer_script(conv), workdir) as subjects:
        for subject in subjects:
            answer = await subject.turn(conv.message, "tokens")
            # an answer drawn on documents ends with the line citing them (Cadence's `with_citations`)
            if answer.split("\n\nSources: ")[0] != conv.answer:  # counted all the same, and flagged
                print(f"  warning: {subject.name} answered {answer[:80]!r}…, expected {conv.answer!r}")
            counted: list[CallTokens] = []
            for record in subject.model.records:
                label = (
                    _cadence_label(record.node)
                    if isinstance(subject, CadenceSubject)
                    else _peer_label(record.tools)
                )
                counted.append(call_tokens(record, label))
            rows.append(
                TokenRow(
                    framework=subject.name,
                    conversation=conv.key,
                    model_calls=len(counted),
                    input_tokens=sum(c.total for c in counted),
                    message_tokens=sum(c.messages for c in counted),
                    tool_schema_tokens=sum(c.tools for c in counted),
                    calls=[{**asdict(c), "total": c.total} for c in counted],
                    answer_as_scripted=answer == conv.answer,
                )
            )
    return rows


async def tool_cost_ms(workdir: Path, repeats: int = 50) -> dict[str, float]:
    """Median time of each conversation's tool calls alone (part of both frameworks' turns)."""
    out: dict[str, float] = {}
    async with open_subjects("memory", [], [], workdir) as (cadence, _peer):
        tools = {
            t.name: t for b in cadence.engine.plugin_manager.bundles.values() for t in b.agent.get_tools()
        }
        for conv in CONVERSATIONS:
            values = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                for step in conv.steps:
                    await tools[step.tool].ainvoke(step.args)
                values.append((time.perf_counter() - t0) * 1000)
            out[conv.key] = round(median(values), 3)
    return out


async def model_call_ms(repeats: int = 300) -> float:
    """Median time of one bare ``ainvoke`` of the scripted chat model (LangChain's per-call machinery).

    Both frameworks pay it on every model call (callback managers, generation bookkeeping); a
    turn's model calls times this, plus its tools (:func:`tool_cost_ms`), plus the floor is what a
    LangChain-native turn cannot go below.
    """
    from langchain_core.messages import HumanMessage

    from cadence.testing import ScriptedChatModel

    model = ScriptedChatModel.from_items(
        [{"tool_calls": [{"name": "calculate", "args": {"expression": "15 * 23"}}]}], loop=True
    )
    messages = [HumanMessage(content="Calculate 15 * 23")]
    for _ in range(30):
        await model.ainvoke(messages)
    values = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        await model.ainvoke(messages)
        values.append((time.perf_counter() - t0) * 1000)
    return round(median(values), 4)


async def model_call_in_node_ms(repeats: int = 1000) -> dict[str, float]:
    """Median time of one scripted model call made inside a LangGraph node, as a turn's calls are.

    A call in a node inherits the run's callback manager and metadata (LangGraph's ``langgraph_*``
    keys), which a bare :func:`model_call_ms` does not; ``plain`` is the model as it is, ``tools``
    with one tool bound (the deciding and the agents' calls carry their tools' schemas). The graph
    has one node and runs in the stream modes a turn uses (``updates`` and ``custom``).
    """
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool
    from langgraph.graph import END, START, MessagesState, StateGraph

    from cadence.testing import ScriptedChatModel

    @tool
    def calculate(expression: str) -> str:
        """Evaluate an arithmetic expression."""
        return expression

    model = ScriptedChatModel.from_items(
        [{"tool_calls": [{"name": "calculate", "args": {"expression": "15 * 23"}}]}], loop=True
    )
    messages = [HumanMessage(content="Calculate 15 * 23")]
    out: dict[str, float] = {}
    for label, runnable in (("plain", model), ("tools", model.bind_tools([calculate]))):
        values: list[float] = []

        async def node(state: MessagesState, runnable: Any = runnable, values: list[float] = values) -> dict:
            t0 = time.perf_counter()
            await runnable.ainvoke(messages)
            values.append((time.perf_counter() - t0) * 1000)
            return {"messages": [AIMessage(content="done")]}

        builder = StateGraph(MessagesState)
        builder.add_node("call", node)
        builder.add_edge(START, "call")
        builder.add_edge("call", END)
        graph = builder.compile()
        for i in range(repeats + 50):
            await graph.ainvoke({"messages": messages}, stream_mode=["updates", "custom"])
            if i % 100 == 0:
                model.records.clear()
        out[label] = round(median(values[50:]), 4)
    return out


async def end_of_turn_read_ms(workdir: Path, repeats: int = 100) -> dict[str, float]:
    """Median cost of the ``graph.aget_state`` that ``Cadence.astream`` does after every turn."""
    from bench.conversations import ONE_AGENT

    out: dict[str, float] = {}
    for backend in BACKENDS:
        async with open_subjects(backend, cadence_script(ONE_AGENT), [], workdir) as (cadence, _peer):
            result = await cadence.engine.ainvoke(ONE_AGENT.message, thread_id="read")
            config = {
                "configurable": {"thread_id": f"{cadence.engine.settings.default_user}::{result.thread_id}"}
            }
            values = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                await cadence.engine.graph.aget_state(config)
                values.append((time.perf_counter() - t0) * 1000)
            out[backend] = round(median(values), 3)
    return out


async def executor_hops(workdir: Path, turns: int = 20) -> dict[str, dict[str, float]]:
    """Thread-pool hops (``loop.run_in_executor``) per turn: sync tools and callbacks leave the event loop."""
    loop = asyncio.get_running_loop()
    original = loop.run_in_executor
    counter = [0]

    def counting(executor: Any, func: Any, *args: Any) -> Any:
        counter[0] += 1
        return original(executor, func, *args)

    out: dict[str, dict[str, float]] = {}
    for conv in CONVERSATIONS:
        async with open_subjects("memory", cadence_script(conv), peer_script(conv), workdir) as subjects:
            for subject in subjects:
                await subject.turn(conv.message, "hops-warm")
                counter[0] = 0
                loop.run_in_executor = counting  # type: ignore[method-assign]
                try:
                    for i in range(turns):
                        await subject.turn(conv.message, f"hops-{i}")
                finally:
                    loop.run_in_executor = original  # type: ignore[method-assign]
                out.setdefault(conv.key, {})[subject.name] = counter[0] / turns
    return out


GROWTH_AT: tuple[int, ...] = (1, 50, 100, 200)
"""Thread lengths (turns already on the thread) at which :func:`measure_growth` reads a turn's time."""
GROWTH_WINDOW = 10
"""Turns whose median is read at each length."""


async def measure_growth(
    conv: Conversation, workdir: Path, at: Sequence[int] = GROWTH_AT, window: int = GROWTH_WINDOW
) -> list[dict[str, Any]]:
    """A turn's time as one thread grows: the median of ``window`` turns after each length of ``at``
    (in memory, each framework on a thread of its own, the same turn asked again and again)."""
    out = []
    async with open_subjects("memory", cadence_script(conv), peer_script(conv), workdir) as pair:
        for subject in pair:
            medians: list[float] = []
            done = 0
            for length in at:
                while done < length - 1:  # grow the thread to ``length - 1`` turns, untimed
                    await subject.turn(conv.message, "growing")
                    subject.model.records.clear()  # the model's own log would grow with the thread too
                    done += 1
                values = await _timed_turns(subject, conv.message, "growing", window, one_thread=True)
                done += window
                medians.append(round(median(values), 2))
            out.append(
                {"framework": subject.name, "conversation": conv.key, "at": list(at), "median_ms": medians}
            )
    return out


async def run_overhead(workdir: Path, turns: int, warmup: int) -> dict[str, Any]:
    """Sections 1 and 2 for every conversation and checkpointer."""
    rows: list[OverheadRow] = []
    for backend in BACKENDS:
        for conv in CONVERSATIONS:
            got, _ = await measure_overhead(conv, backend, workdir, turns, warmup)
            rows += got
            print(
                f"  overhead {backend:6} {conv.key}: "
                + ", ".join(f"{r.framework} {r.median_ms:.2f} ms" for r in got)
            )
    tokens: list[TokenRow] = []
    for conv in CONVERSATIONS:
        tokens += await measure_tokens(conv, workdir)
    return {
        "overhead": [asdict(r) for r in rows],
        "tokens": [asdict(t) for t in tokens],
        "tool_ms": await tool_cost_ms(workdir),
        "model_call_ms": await model_call_ms(),
        "model_call_in_node_ms": await model_call_in_node_ms(),
        "aget_state_ms": await end_of_turn_read_ms(workdir),
        "executor_hops": await executor_hops(workdir),
        "growth": await measure_growth(ONE_AGENT, workdir),
    }


async def profile_cadence(
    workdir: Path, conv: Conversation, backend: str, turns: int, html: Path | None = None
) -> dict[str, Any]:
    """pyinstrument over ``turns`` Cadence turns of ``conv``; where the time goes."""
    from bench.profiling import profile_async

    async with open_subjects(backend, cadence_script(conv), peer_script(conv), workdir) as (cadence, peer):
        results = {}
        for subject in (cadence, peer):
            for i in range(10):
                await subject.turn(conv.message, f"pwarm-{i}")

            async def run(subject: Subject = subject) -> None:
                for i in range(turns):
                    await subject.turn(conv.message, f"prof-{i}")

            target = html if subject is cadence else None
            summary = await profile_async(run, target)
            results[subject.name] = {
                "per_turn_ms": round(summary.total_s / turns * 1000, 3),
                "by_package": summary.by_package,
                "our_functions": summary.our_functions,
                "hot_functions": summary.hot_functions,
            }
    return {"conversation": conv.key, "backend": backend, "turns": turns, **results}


__all__ = ["BACKENDS", "PeerSubject", "profile_cadence", "run_overhead"]

if __name__ == "__main__":  # pragma: no cover - manual use
    import json
    import tempfile

    async def _main() -> None:
        with tempfile.TemporaryDirectory() as d:
            print(json.dumps(await run_overhead(Path(d), 30, 5), indent=1)[:3000])

    asyncio.run(_main())
