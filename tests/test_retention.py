"""Checkpoint retention on SQLite and PostgreSQL: bounded rows, the latest checkpoint always kept.

Each backend gets a fresh database (PostgreSQL: a private server from ``pg_support``, skipped
with the reason when unavailable). Threads are written by the real engine (scripted model) or,
for a paused thread, by a tiny LangGraph graph that stops on ``interrupt()``.
"""

from __future__ import annotations

import operator
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from cadence.orchestration.engine import thread_key
from cadence.persistence import open_checkpointer
from cadence.persistence.retention import RetentionPolicy, apply_retention, checkpoint_id_at
from cadence.testing import ScriptedChatModel
from conftest import FINALIZE, make_settings
from pg_support import fresh_database, postgres_server_url

__all__ = ["postgres_server_url"]

TURNS = 6
USER = "u"


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database of each kind that has retention."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'retention.db'}"
    return fresh_database(request.getfixturevalue("postgres_server_url"))


async def checkpoint_ids(saver: Any, key: str) -> list[str]:
    """The thread's checkpoint ids, newest first."""
    config = {"configurable": {"thread_id": key, "checkpoint_ns": ""}}
    return [t.config["configurable"]["checkpoint_id"] async for t in saver.alist(config)]


async def fill(url: str, threads: list[str], turns: int = TURNS) -> None:
    """``turns`` engine turns on each thread (two checkpoints per turn)."""
    from cadence.orchestration.engine import Cadence

    async with open_checkpointer(url) as saver:
        model = ScriptedChatModel.from_items([FINALIZE, {"content": "answer"}], loop=True)
        engine = Cadence(make_settings(database_url=url, builtin_plugins=[]), model=model, checkpointer=saver)
        for thread in threads:
            for i in range(turns):
                result = await engine.ainvoke(f"question {i}", thread_id=thread, user_id=USER)
                assert not result.error


async def questions(url: str, thread: str) -> list[str]:
    """The user messages of the thread's latest state."""
    from cadence.orchestration.engine import Cadence

    async with open_checkpointer(url) as saver:
        engine = Cadence(make_settings(database_url=url, builtin_plugins=[]),
                         model=ScriptedChatModel.from_items([]), checkpointer=saver)  # fmt: skip
        state = await engine.graph.aget_state({"configurable": {"thread_id": thread_key(USER, thread)}})
        return [str(m.content) for m in state.values.get("messages", []) if m.type == "human"]


async def test_keep_last_bounds_every_thread_and_keeps_the_latest(database_url: str) -> None:
    threads = ["a", "b", "c"]
    await fill(database_url, threads)
    async with open_checkpointer(database_url) as saver:
        before = {t: await checkpoint_ids(saver, thread_key(USER, t)) for t in threads}
    assert all(len(ids) >= 2 * TURNS for ids in before.values())

    report = await apply_retention(database_url, RetentionPolicy(keep_last=3))

    async with open_checkpointer(database_url) as saver:
        after = {t: await checkpoint_ids(saver, thread_key(USER, t)) for t in threads}
    for t in threads:
        assert after[t] == before[t][:3]  # the newest three, the latest first
    assert report.threads == 3
    assert report.checkpoints == sum(len(ids) - 3 for ids in before.values())
    # the conversation itself is whole (the latest checkpoint holds it) and goes on
    assert await questions(database_url, "a") == [f"question {i}" for i in range(TURNS)]
    await fill(database_url, ["a"], turns=1)
    assert await questions(database_url, "a") == [f"question {i}" for i in range(TURNS)] + ["question 0"]
    # a second pass right away finds only what the new turn added
    again = await apply_retention(database_url, RetentionPolicy(keep_last=3))
    assert again.threads == 1


async def test_max_age_deletes_old_checkpoints_but_never_the_latest(database_url: str) -> None:
    await fill(database_url, ["old"], turns=3)
    now = time.time()
    nothing = await apply_retention(database_url, RetentionPolicy(keep_last=0, max_age_s=3600), now=now)
    assert nothing.checkpoints == 0
    later = await apply_retention(database_url, RetentionPolicy(keep_last=0, max_age_s=3600), now=now + 7200)
    async with open_checkpointer(database_url) as saver:
        left = await checkpoint_ids(saver, thread_key(USER, "old"))
    assert len(left) == 1 and later.checkpoints == 5
    assert await questions(database_url, "old") == ["question 0", "question 1", "question 2"]


class _Approval(TypedDict):
    log: Annotated[list[str], operator.add]


def _approval_graph(saver: Any) -> Any:
    """start → ask (waits for a human: interrupt) → done."""

    def start(state: _Approval) -> dict[str, Any]:
        return {"log": ["start"]}

    def ask(state: _Approval) -> dict[str, Any]:
        answer = interrupt("approve?")
        return {"log": [f"approved:{answer}"]}

    builder = StateGraph(_Approval)
    builder.add_node("start", start)
    builder.add_node("ask", ask)
    builder.add_edge(START, "start")
    builder.add_edge("start", "ask")
    builder.add_edge("ask", END)
    return builder.compile(checkpointer=saver)


async def test_a_paused_thread_resumes_after_retention(database_url: str) -> None:
    config = {"configurable": {"thread_id": "paused"}}
    async with open_checkpointer(database_url) as saver:
        graph = _approval_graph(saver)
        await graph.ainvoke({"log": []}, config, durability="sync")
        await graph.ainvoke(Command(resume="first"), config, durability="sync")
        await graph.ainvoke({"log": []}, config, durability="sync")  # paused again, waiting
        waiting = await graph.aget_state(config)
        assert waiting.next == ("ask",) and waiting.interrupts
        assert len(await checkpoint_ids(saver, "paused")) > 1

    report = await apply_retention(database_url, RetentionPolicy(keep_last=1))
    assert report.checkpoints > 0

    async with open_checkpointer(database_url) as saver:
        graph = _approval_graph(saver)
        assert len(await checkpoint_ids(saver, "paused")) == 1
        still = await graph.aget_state(config)
        assert still.next == ("ask",) and [i.value for i in still.interrupts] == ["approve?"]
        done = await graph.ainvoke(Command(resume="second"), config, durability="sync")
    assert done["log"] == ["start", "approved:first", "start", "approved:second"]


def test_checkpoint_ids_sort_by_time() -> None:
    from langgraph.checkpoint.base.id import uuid6

    now = time.time()
    fresh = str(uuid6(clock_seq=3))
    assert checkpoint_id_at(now - 60) < fresh < checkpoint_id_at(now + 60)


async def test_memory_and_disabled_policies_do_nothing(tmp_path: Path) -> None:
    assert (await apply_retention("memory://", RetentionPolicy(keep_last=1))).checkpoints == 0
    url = f"sqlite:///{tmp_path / 'off.db'}"
    await fill(url, ["t"], turns=2)
    assert (await apply_retention(url, RetentionPolicy(keep_last=0, max_age_s=0))).checkpoints == 0
    assert (await apply_retention(f"sqlite:///{tmp_path / 'empty.db'}", RetentionPolicy(1))).checkpoints == 0


async def test_the_server_prunes_in_the_background(tmp_path: Path) -> None:
    import asyncio

    import httpx

    from test_server_support import ANSWER, scripted, serve

    url = f"sqlite:///{tmp_path / 'server.db'}"
    overrides = {"database_url": url, "retention_keep_last": 2, "retention_interval_s": 0.05}
    with serve(scripted(), **overrides) as base:
        async with httpx.AsyncClient(base_url=base, timeout=60) as client:
            thread = None
            for i in range(4):
                body = {"message": f"q{i}", "user_id": USER, **({"thread_id": thread} if thread else {})}
                resp = await client.post("/api/v1/chat", json=body)
                assert resp.status_code == 200 and resp.json()["response"] == ANSWER
                thread = resp.json()["thread_id"]
            async with open_checkpointer(url) as saver:
                deadline = time.monotonic() + 30
                while len(await checkpoint_ids(saver, thread_key(USER, thread))) > 2:
                    assert time.monotonic() < deadline, "the background retention never ran"
                    await asyncio.sleep(0.05)
            resp = await client.get(f"/api/v1/threads/{thread}", params={"user_id": USER})
            assert [m["content"] for m in resp.json()["messages"] if m["role"] == "user"] == [
                "q0", "q1", "q2", "q3",
            ]  # fmt: skip


async def _subgraph_rows(url: str, key: str) -> int:
    """Checkpoints of the thread's subgraphs (any namespace but '')."""
    if url.startswith("sqlite"):
        import sqlite3

        with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
            query = "SELECT count(*) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns != ''"
            return int(conn.execute(query, (key,)).fetchone()[0])
    import psycopg

    async with await psycopg.AsyncConnection.connect(url) as conn:
        cursor = await conn.execute(
            "SELECT count(*) FROM checkpoints WHERE thread_id = %s AND checkpoint_ns != ''", (key,)
        )
        return int((await cursor.fetchone())[0])


SUPERVISOR_TURN: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "transfer_to_math", "args": {}}]},
    {"tool_calls": [{"name": "calculate", "args": {"expression": "2 + 2"}}]},
    {"content": "2 + 2 = 4"},
    FINALIZE,
    {"content": "It is 4."},
]
"""A supervisor turn whose math agent runs in its own subgraph (a checkpoint namespace per run)."""


def supervisor_engine(database_url: str, saver: Any, **extra: Any) -> Any:
    """A supervisor-mode engine on ``saver`` checkpointing every step (subgraphs included), replaying
    :data:`SUPERVISOR_TURN`."""
    from cadence.orchestration.engine import Cadence

    settings = make_settings(
        database_url=database_url,
        builtin_plugins=["math"],
        mode="supervisor",
        checkpoint_durability="sync",
        **extra,
    )
    return Cadence(
        settings, model=ScriptedChatModel.from_items(SUPERVISOR_TURN, loop=True), checkpointer=saver
    )


async def test_subgraph_checkpoints_are_bounded_too(database_url: str) -> None:
    """Each supervisor agent run checkpoints under a namespace of its own (durability sync): ranked per
    namespace, a few of every run were kept forever, and a thread's rows grew with its length squared."""
    key = thread_key(USER, "s")
    async with open_checkpointer(database_url) as saver:
        engine = supervisor_engine(database_url, saver)
        for _ in range(4):
            assert not (await engine.ainvoke("2 + 2?", thread_id="s", user_id=USER)).error
        assert await _subgraph_rows(database_url, key) > 3
        await apply_retention(database_url, RetentionPolicy(keep_last=3))
        assert await _subgraph_rows(database_url, key) == 3  # the newest three of all its subgraphs
        assert not (await engine.ainvoke("2 + 2?", thread_id="s", user_id=USER)).error  # the thread goes on


async def test_a_turn_paused_in_a_subgraph_resumes_after_retention(database_url: str) -> None:
    """The subgraph's latest checkpoint is what the paused agent run resumes from: never deleted."""
    async with open_checkpointer(database_url) as saver:
        engine = supervisor_engine(
            database_url, saver, approval_tools=["calculate"], supervisor_direct_answer=False
        )
        for _ in range(2):
            paused = await engine.ainvoke("2 + 2?", thread_id="p", user_id=USER)
            assert paused.interrupted
            if _ == 0:
                assert not (await engine.aresume("approve", thread_id="p", user_id=USER)).error
        await apply_retention(database_url, RetentionPolicy(keep_last=1))
        done = await engine.aresume("approve", thread_id="p", user_id=USER)
        assert not done.error and not done.interrupted
        assert [t["result"] for t in done.trace["tools_used"]] == ["4"]
