"""One persistence spec, run against every backend: memory://, sqlite:///file and postgresql://.

The PostgreSQL cases run against a private server started by ``pg_support.postgres_server_url``
(skipped, with the reason, when the server binaries or the ``postgres`` extra are missing);
each test gets a fresh, empty database on it.

- the checkpointer, through the engine: history persists across turns, survives a restart
  (a new engine on the same URL), is private to each user and can be deleted;
- the thread store: idempotent setup, ownership, activity, listing order and pages, delete, ping.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from cadence.errors import ConfigurationError, NotFoundError
from cadence.orchestration.engine import Cadence, thread_key
from cadence.persistence import open_checkpointer
from cadence.persistence.threads import ThreadStore, open_thread_store
from cadence.testing import ScriptedChatModel
from conftest import FINALIZE, make_settings
from pg_support import fresh_database, postgres_server_url

__all__ = ["postgres_server_url"]  # the session fixture, re-exported so pytest finds it here

BACKENDS = ["memory", "sqlite", "postgres"]


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database of each kind."""
    if request.param == "memory":
        return "memory://"
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'conformance.db'}"
    return fresh_database(request.getfixturevalue("postgres_server_url"))


def is_memory(url: str) -> bool:
    return url.startswith("memory")


def turn(answer: str) -> list[dict[str, Any]]:
    """One scripted turn: the coordinator finalizes, the synthesizer answers."""
    return [FINALIZE, {"content": answer}]


@contextlib.asynccontextmanager
async def engine_on(url: str, script: Sequence[dict[str, Any]]) -> AsyncIterator[tuple[Cadence, Any]]:
    """An engine over the checkpointer of ``url`` (opened and closed like a server process would)."""
    async with open_checkpointer(url) as saver:
        model = ScriptedChatModel.from_items(list(script))
        engine = Cadence(make_settings(database_url=url, builtin_plugins=[]), model=model, checkpointer=saver)
        yield engine, saver


def seen_by(engine: Cadence, call_index: int) -> str:
    """Everything the model received in one call, as text."""
    model: ScriptedChatModel = engine._models("coordinator", None)  # type: ignore[assignment]
    return "\n".join(str(m.content) for m in model.records[call_index].messages)


async def history(engine: Cadence, user: str, thread: str) -> list[str]:
    """The conversation stored for the user's thread: questions and final answers (no routing/tool steps)."""
    state = await engine.graph.aget_state({"configurable": {"thread_id": thread_key(user, thread)}})
    return [
        str(m.content)
        for m in state.values.get("messages", [])
        if m.type == "human" or (m.type == "ai" and not getattr(m, "tool_calls", None) and m.content)
    ]


# -- checkpointer, through the engine -------------------------------------------------------
async def test_two_turns_share_history(database_url: str) -> None:
    async with engine_on(database_url, [*turn("Noted: zebra"), *turn("You said zebra")]) as (engine, _):
        first = await engine.ainvoke("Remember the word zebra", thread_id="t1", user_id="alice")
        assert first.response == "Noted: zebra" and first.thread_id == "t1"
        second = await engine.ainvoke("Which word?", thread_id="t1", user_id="alice")
        assert second.response == "You said zebra"
        # both model calls of the second turn saw the first turn's question and answer
        for call_index in (2, 3):
            seen = seen_by(engine, call_index)
            assert "Remember the word zebra" in seen and "Noted: zebra" in seen and "Which word?" in seen
        assert await history(engine, "alice", "t1") == [
            "Remember the word zebra",
            "Noted: zebra",
            "Which word?",
            "You said zebra",
        ]


async def test_a_new_engine_continues_the_thread(database_url: str) -> None:
    if is_memory(database_url):
        pytest.skip("memory:// does not outlive its process")
    async with engine_on(database_url, turn("Noted: zebra")) as (engine, _):
        await engine.ainvoke("Remember the word zebra", thread_id="t1", user_id="alice")
    async with engine_on(database_url, turn("You said zebra")) as (engine, _):  # "restart"
        assert await history(engine, "alice", "t1") == ["Remember the word zebra", "Noted: zebra"]
        again = await engine.ainvoke("Which word?", thread_id="t1", user_id="alice")
        assert again.response == "You said zebra"
        assert "Remember the word zebra" in seen_by(engine, 0)
        assert "Noted: zebra" in seen_by(engine, 1)
        assert len(await history(engine, "alice", "t1")) == 4


async def test_users_with_the_same_thread_id_do_not_share_history(database_url: str) -> None:
    script = [*turn("alice one"), *turn("bob one"), *turn("bob two")]
    async with engine_on(database_url, script) as (engine, _):
        await engine.ainvoke("alice secret: kiwi", thread_id="shared", user_id="alice")
        await engine.ainvoke("bob secret: plum", thread_id="shared", user_id="bob")
        await engine.ainvoke("what did I say?", thread_id="shared", user_id="bob")
        for call_index in (2, 3, 4, 5):
            assert "kiwi" not in seen_by(engine, call_index) and "alice one" not in seen_by(
                engine, call_index
            )
        assert "plum" in seen_by(engine, 4)
        assert await history(engine, "alice", "shared") == ["alice secret: kiwi", "alice one"]
        assert await history(engine, "bob", "shared") == [
            "bob secret: plum",
            "bob one",
            "what did I say?",
            "bob two",
        ]


async def test_deleting_a_thread_removes_only_that_thread(database_url: str) -> None:
    script = [*turn("alice one"), *turn("bob one"), *turn("fresh start")]
    async with engine_on(database_url, script) as (engine, saver):
        await engine.ainvoke("alice secret: kiwi", thread_id="t1", user_id="alice")
        await engine.ainvoke("bob secret: plum", thread_id="t1", user_id="bob")
        key = thread_key("alice", "t1")
        assert await saver.aget_tuple({"configurable": {"thread_id": key}}) is not None
        await saver.adelete_thread(key)
        assert await saver.aget_tuple({"configurable": {"thread_id": key}}) is None
        assert [c async for c in saver.alist({"configurable": {"thread_id": key}})] == []
        assert await history(engine, "alice", "t1") == []
        assert await history(engine, "bob", "t1") == ["bob secret: plum", "bob one"]
        # the thread id can be reused and starts empty
        await engine.ainvoke("hello again", thread_id="t1", user_id="alice")
        assert "kiwi" not in seen_by(engine, 4) and "kiwi" not in seen_by(engine, 5)
        assert await history(engine, "alice", "t1") == ["hello again", "fresh start"]
    if not is_memory(database_url):  # the deletion is durable
        async with engine_on(database_url, []) as (engine, _):
            assert await history(engine, "alice", "t1") == ["hello again", "fresh start"]
            assert await history(engine, "bob", "t1") == ["bob secret: plum", "bob one"]


async def test_opening_the_checkpointer_twice_is_harmless(database_url: str) -> None:
    """``setup()`` runs on every open: migrations must be idempotent."""
    for _ in range(2):
        async with engine_on(database_url, turn("ok")) as (engine, _):
            assert (await engine.ainvoke("hi", thread_id="t", user_id="u")).response == "ok"


# -- thread store ------------------------------------------------------------------------------
@contextlib.asynccontextmanager
async def store_on(url: str) -> AsyncIterator[ThreadStore]:
    async with open_thread_store(url) as store:
        yield store


async def test_store_setup_is_idempotent_and_ping_works(database_url: str) -> None:
    async with store_on(database_url) as store:
        assert isinstance(store, ThreadStore)
        await store.setup()
        await store.setup()
        await store.ping()
        await store.claim("alice", "t1", title="kept")
        await store.setup()  # does not wipe data
        assert (await store.get("t1")) is not None
    if not is_memory(database_url):  # reopening (setup again) keeps the data
        async with store_on(database_url) as store:
            await store.ping()
            row = await store.get("t1")
            assert row is not None and row.user_id == "alice" and row.title == "kept"


async def test_store_claim_and_ownership(database_url: str) -> None:
    async with store_on(database_url) as store:
        assert await store.get("t1") is None
        row = await store.claim(
            "alice", "t1", title="first   question\nwith lines", org_id="o1", project_id="p1"
        )
        assert (row.thread_id, row.user_id, row.title, row.turns) == (
            "t1",
            "alice",
            "first question with lines",
            0,
        )
        assert (row.org_id, row.project_id) == ("o1", "p1")
        assert row.created_at == row.updated_at and row.created_at.tzinfo is not None
        again = await store.claim("alice", "t1", title="ignored")  # claiming your own thread: a no-op
        assert again == row
        with pytest.raises(NotFoundError) as caught:
            await store.claim("bob", "t1", title="steal")
        assert caught.value.code == "thread_not_found"
        assert await store.get("t1") == row  # unchanged by bob's attempt
        long = await store.claim("alice", "t2", title="x" * 200)
        assert len(long.title) == 80 and long.title.endswith("…")


async def test_store_claim_race_has_one_winner(database_url: str) -> None:
    async with store_on(database_url) as store:
        results = await asyncio.gather(
            *(store.claim(f"user{i}", "contested", title=f"by {i}") for i in range(6)), return_exceptions=True
        )
        winners = [r for r in results if not isinstance(r, BaseException)]
        assert len(winners) == 1, results
        assert all(isinstance(r, NotFoundError) for r in results if r is not winners[0])
        assert (await store.get("contested")).user_id == winners[0].user_id  # type: ignore[union-attr]


async def test_store_touch_updates_activity(database_url: str) -> None:
    async with store_on(database_url) as store:
        created = await store.claim("alice", "t1", title="hi")
        await asyncio.sleep(0.01)
        await store.touch("alice", "t1")
        await store.touch("alice", "t1")
        row = await store.get("t1")
        assert row is not None and row.turns == 2
        assert row.updated_at > created.updated_at and row.created_at == created.created_at
        await store.touch("bob", "t1")  # not bob's: ignored
        await store.touch("alice", "missing")  # unknown: ignored
        assert await store.get("t1") == row
        assert await store.get("missing") is None
        await asyncio.sleep(0.01)
        await store.touch("alice", "t1", turn=False)  # activity that continues a turn (a decided pause)
        later = await store.get("t1")
        assert later is not None and later.turns == 2 and later.updated_at > row.updated_at


async def test_store_start_turn_claims_and_counts_in_one_call(database_url: str) -> None:
    async with store_on(database_url) as store:
        first = await store.start_turn("alice", "t1", title="first  question", org_id="o1", project_id="p1")
        assert (first.user_id, first.title, first.turns, first.org_id, first.project_id) == (
            "alice", "first question", 1, "o1", "p1",
        )  # fmt: skip
        await asyncio.sleep(0.01)
        second = await store.start_turn("alice", "t1", title="ignored", org_id="o2")
        assert second.turns == 2 and second.title == "first question" and second.org_id == "o1"
        assert second.updated_at > first.updated_at and second.created_at == first.created_at
        with pytest.raises(NotFoundError):
            await store.start_turn("bob", "t1", title="steal")
        assert await store.get("t1") == second  # another user's attempt changed nothing
        claimed = await store.claim("carol", "t2", title="claimed first")  # claim, then a turn
        assert claimed.turns == 0
        assert (await store.start_turn("carol", "t2", title="x")).turns == 1


async def test_store_start_turn_keeps_the_turns_question(database_url: str) -> None:
    async with store_on(database_url) as store:
        claimed = await store.claim("alice", "t1", title="hi")
        assert (claimed.question_id, claimed.question) == (None, None)
        first = await store.start_turn("alice", "t1", title="hi", question_id="q1", question="What is 2+2?")
        assert (first.question_id, first.question) == ("q1", "What is 2+2?")
        second = await store.start_turn("alice", "t1", title="hi", question_id="q2", question="And 3+3?")
        assert await store.get("t1") == second and (second.question_id, second.question) == ("q2", "And 3+3?")
        with pytest.raises(NotFoundError):
            await store.start_turn("bob", "t1", title="x", question_id="q3", question="steal")
        assert (await store.get("t1")) == second  # another user's question is not kept
        await store.settle_question("bob", "t1")  # not bob's: ignored
        assert (await store.get("t1")) == second
        await store.settle_question("alice", "t1")
        settled = await store.get("t1")
        assert settled is not None and (settled.question_id, settled.question, settled.turns) == (
            None,
            None,
            2,
        )


async def test_store_adds_the_question_columns_to_an_older_table(database_url: str) -> None:
    """A table created before the question columns existed gets them at setup (several processes
    may start at once), rows kept."""
    if is_memory(database_url):
        pytest.skip("memory:// has no table")
    old = (
        "CREATE TABLE cadence_threads (thread_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, org_id TEXT, "
        "project_id TEXT, title TEXT NOT NULL DEFAULT '', created_at REAL NOT NULL, "
        "updated_at REAL NOT NULL, turns INTEGER NOT NULL DEFAULT 0)"
    )
    row = "INSERT INTO cadence_threads VALUES ('t0', 'alice', NULL, NULL, 'old', 1.0, 2.0, 3)"
    if database_url.startswith("sqlite"):
        import sqlite3

        with contextlib.closing(sqlite3.connect(database_url.removeprefix("sqlite:///"))) as conn:
            conn.execute(old)
            conn.execute(row)
            conn.commit()
    else:
        import psycopg

        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute(old)
            conn.execute(row)

    async def start() -> None:  # several processes upgrading at once: each adds what is missing
        async with store_on(database_url) as store:
            await store.ping()

    results = await asyncio.gather(*(start() for _ in range(4)), return_exceptions=True)
    assert [r for r in results if r is not None] == []
    async with store_on(database_url) as store:
        kept = await store.get("t0")
        assert kept is not None and (kept.title, kept.turns, kept.question_id) == ("old", 3, None)
        now = await store.start_turn("alice", "t0", title="x", question_id="q", question="Still here?")
        assert (now.turns, now.question_id, now.question) == (4, "q", "Still here?")


async def test_store_list_order_filters_and_pages(database_url: str) -> None:
    async with store_on(database_url) as store:
        assert await store.list("alice") == []
        for i in range(5):
            await store.claim("alice", f"t{i}", title=f"thread {i}", org_id="o1" if i % 2 else None)
            await asyncio.sleep(0.005)
        await store.claim("bob", "b0", title="bob's")
        await asyncio.sleep(0.005)
        await store.touch("alice", "t1")  # most recent activity first
        ids = [r.thread_id for r in await store.list("alice")]
        assert ids == ["t1", "t4", "t3", "t2", "t0"]
        assert [r.thread_id for r in await store.list("bob")] == ["b0"]
        assert [r.thread_id for r in await store.list("alice", org_id="o1")] == ["t1", "t3"]
        assert [r.thread_id for r in await store.list("alice", project_id="nope")] == []
        pages = [
            [r.thread_id for r in await store.list("alice", limit=2, offset=offset)]
            for offset in (0, 2, 4, 6)
        ]
        assert pages == [["t1", "t4"], ["t3", "t2"], ["t0"], []]
        assert [r.thread_id for r in await store.list("alice", limit=0)] == []


async def test_store_list_ties_are_stable(database_url: str) -> None:
    """Pagination never repeats or skips a thread, even when activity times are equal."""
    async with store_on(database_url) as store:
        for i in range(6):
            await store.claim("alice", f"t{i}", title="same")
        everything = [r.thread_id for r in await store.list("alice")]
        paged = [
            r.thread_id
            for offset in range(0, 6, 2)
            for r in await store.list("alice", limit=2, offset=offset)
        ]
        assert sorted(everything) == [f"t{i}" for i in range(6)]
        assert paged == everything


async def test_store_delete(database_url: str) -> None:
    async with store_on(database_url) as store:
        await store.claim("alice", "t1", title="one")
        await store.claim("alice", "t2", title="two")
        assert not await store.delete("bob", "t1")  # not bob's
        assert not await store.delete("alice", "missing")
        assert await store.delete("alice", "t1")
        assert not await store.delete("alice", "t1")  # already gone
        assert await store.get("t1") is None
        assert [r.thread_id for r in await store.list("alice")] == ["t2"]
        reclaimed = await store.claim("bob", "t1", title="now bob's")  # the id is free again
        assert reclaimed.user_id == "bob" and reclaimed.turns == 0


# -- operations ---------------------------------------------------------------------------------
async def test_servers_starting_together_on_a_fresh_database(
    database_url: str, request: pytest.FixtureRequest
) -> None:
    """Several processes (replicas, workers) opening a fresh database at once all succeed."""
    if is_memory(database_url):
        pytest.skip("memory:// is private to its process")

    async def start() -> None:
        async with open_thread_store(database_url) as store, engine_on(database_url, []):
            await store.ping()

    results = await asyncio.gather(*(start() for _ in range(4)), return_exceptions=True)
    assert [r for r in results if r is not None] == []


def _drop_connections(url: str) -> int:
    """Terminate every other session on the database (what a database restart or failover does)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)


async def test_postgres_survives_dropped_connections(database_url: str) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("PostgreSQL only")
    script = [*turn("Noted: zebra"), *turn("You said zebra")]
    async with open_thread_store(database_url) as store, engine_on(database_url, script) as (engine, _):
        await store.claim("alice", "t1", title="zebra")
        await engine.ainvoke("Remember the word zebra", thread_id="t1", user_id="alice")
        assert _drop_connections(database_url) >= 2  # the store's and the checkpointer's
        await asyncio.sleep(0.1)
        await store.ping()
        await store.touch("alice", "t1")
        assert [r.turns for r in await store.list("alice")] == [1]
        again = await engine.ainvoke("Which word?", thread_id="t1", user_id="alice")
        assert again.response == "You said zebra" and "Noted: zebra" in seen_by(engine, 3)


async def test_unreachable_postgres_is_a_configuration_error(unused_tcp_port: int) -> None:
    pytest.importorskip("psycopg")
    url = f"postgresql://nobody:secret@127.0.0.1:{unused_tcp_port}/cadence"
    for opener in (open_checkpointer, open_thread_store):
        with pytest.raises(ConfigurationError, match="Cannot connect to PostgreSQL") as caught:
            async with opener(url):
                pass
        assert "secret" not in str(caught.value)
