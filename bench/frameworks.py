"""The two systems under test, built on the same plugins and the same scripted model.

- :class:`CadenceSubject`: ``Cadence(settings, model=ScriptedChatModel, checkpointer=...)``.
- :class:`PeerSubject`: ``langgraph_supervisor.create_supervisor`` over two
  ``create_react_agent`` agents holding the very same tool objects and system prompts as
  Cadence's ``math`` and ``docs`` plugins.

Both expose ``await subject.turn(message, thread_id)`` and ``subject.model`` (the
:class:`ScriptedChatModel`, whose ``records`` hold every call's messages and tools).
"""

from __future__ import annotations

import contextlib
import tempfile
import warnings
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from langchain_core.messages import HumanMessage

from bench.conversations import AGENTS
from cadence.orchestration.engine import Cadence
from cadence.persistence import open_checkpointer
from cadence.settings import Settings
from cadence.testing import ScriptedChatModel


class Subject(Protocol):
    """A framework under test."""

    name: str
    model: ScriptedChatModel

    async def turn(self, message: str, thread_id: str) -> str:
        """Run one turn on ``thread_id`` and return the answer."""
        ...


def bench_settings(data_dir: Path, **overrides: Any) -> Settings:
    """Settings isolated from the environment: two built-in plugins, no entry points."""
    values: dict[str, Any] = {
        "data_dir": data_dir,
        "database_url": "memory://",
        "entry_points_enabled": False,
        "builtin_plugins": list(AGENTS),
        "log_level": "WARNING",
    }
    values.update(overrides)
    return Settings(**values)


class CadenceSubject:
    """Cadence's engine around a scripted model."""

    name = "Cadence"

    def __init__(self, settings: Settings, model: ScriptedChatModel, checkpointer: Any) -> None:
        self.model = model
        self.engine = Cadence(settings, model=model, checkpointer=checkpointer)

    async def turn(self, message: str, thread_id: str) -> str:
        """One ``Cadence.ainvoke`` turn."""
        result = await self.engine.ainvoke(message, thread_id=thread_id)
        if result.error:
            raise RuntimeError(f"Cadence turn failed: {result.error}")
        return result.response


def supervisor_prompt(engine: Cadence) -> str:
    """The peer supervisor's prompt: the same agent descriptions Cadence's coordinator gets."""
    lines = [f"- {b.name}_agent: {b.metadata.description}" for b in engine.plugin_manager.bundles.values()]
    return (
        "You are a team supervisor managing these agents:\n"
        + "\n".join(lines)
        + "\nAssign work to one agent at a time by transferring to it; do not do the work yourself. "
        "When the agents' results answer the user's question, reply with the final answer."
    )


class PeerSubject:
    """``langgraph-supervisor`` with two react agents sharing Cadence's tools and prompts."""

    name = "langgraph-supervisor"

    def __init__(self, engine: Cadence, model: ScriptedChatModel, checkpointer: Any) -> None:
        from langgraph.prebuilt import create_react_agent
        from langgraph_supervisor import create_supervisor

        self.model = model
        agents = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # create_react_agent is deprecated in favour of langchain's
            for bundle in engine.plugin_manager.bundles.values():
                agents.append(
                    create_react_agent(
                        model=model,
                        tools=list(bundle.agent.get_tools()),
                        prompt=bundle.agent.get_system_prompt(),
                        name=f"{bundle.name}_agent",
                    )
                )
            workflow = create_supervisor(agents, model=model, prompt=supervisor_prompt(engine))
        self.graph = workflow.compile(checkpointer=checkpointer)

    async def turn(self, message: str, thread_id: str) -> str:
        """One ``graph.ainvoke`` turn."""
        out = await self.graph.ainvoke(
            {"messages": [HumanMessage(content=message)]}, {"configurable": {"thread_id": thread_id}}
        )
        return str(out["messages"][-1].content)


@contextlib.asynccontextmanager
async def open_subjects(
    backend: str, cadence_items: Sequence[dict[str, Any]], peer_items: Sequence[dict[str, Any]], workdir: Path
) -> AsyncIterator[tuple[CadenceSubject, PeerSubject]]:
    """Both subjects on fresh checkpointers of kind ``backend`` (``memory`` or ``sqlite``)."""
    settings = bench_settings(workdir / "data")
    async with contextlib.AsyncExitStack() as stack:
        savers = []
        for who in ("cadence", "peer"):
            url = "memory://" if backend == "memory" else f"sqlite:///{workdir / f'{who}-{backend}.db'}"
            savers.append(await stack.enter_async_context(open_checkpointer(url)))
        cadence = CadenceSubject(settings, ScriptedChatModel.from_items(cadence_items, loop=True), savers[0])
        peer = PeerSubject(cadence.engine, ScriptedChatModel.from_items(peer_items, loop=True), savers[1])
        yield cadence, peer


def temp_workdir() -> tempfile.TemporaryDirectory[str]:
    """A scratch directory for databases and the docs index."""
    return tempfile.TemporaryDirectory(prefix="cadence-bench-")
