"""Persistence: conversations survive a server restart; the thread stores behave alike."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from cadence.errors import NotFoundError
from cadence.orchestration.engine import thread_key
from cadence.persistence.threads import (
    MemoryThreadStore,
    SqliteThreadStore,
    ThreadStore,
    make_title,
    open_thread_store,
)
from cadence.server import create_app
from test_server_support import ANSWER, live_server, scripted, settings


def test_conversation_survives_restart(tmp_path: Path) -> None:
    cfg = settings(database_url=f"sqlite:///{tmp_path / 'cadence.db'}")
    model = scripted()
    with live_server(create_app(cfg, engine_kwargs={"model": model})) as url:
        first = httpx.post(f"{url}/api/v1/chat", json={"message": "Remember the word zebra", "user_id": "u1"})
        assert first.status_code == 200
        thread = first.json()["thread_id"]

    model2 = scripted(text="You said zebra")
    with live_server(create_app(cfg, engine_kwargs={"model": model2})) as url:
        listed = httpx.get(f"{url}/api/v1/threads", params={"user_id": "u1"}).json()["threads"]
        assert [(t["thread_id"], t["title"]) for t in listed] == [(thread, "Remember the word zebra")]
        again = httpx.post(
            f"{url}/api/v1/chat", json={"message": "Which word?", "user_id": "u1", "thread_id": thread}
        )
        assert again.status_code == 200 and again.json()["response"] == "You said zebra"
        # the new server's model saw the previous turn's history
        assert any("Remember the word zebra" in str(m.content) for m in model2.records[0].messages)
        messages = httpx.get(f"{url}/api/v1/threads/{thread}", params={"user_id": "u1"}).json()["messages"]
        assert [m["content"] for m in messages] == [
            "Remember the word zebra",
            ANSWER,
            "Which word?",
            "You said zebra",
        ]
        # still not visible to another user after the restart
        assert httpx.get(f"{url}/api/v1/threads/{thread}", params={"user_id": "u2"}).status_code == 404


def _turn(url: str, message: str, thread: str | None = None) -> dict[str, Any]:
    body = {"message": message, "user_id": "u1", **({"thread_id": thread} if thread else {})}
    resp = httpx.post(f"{url}/api/v1/chat", json=body, timeout=30)
    assert resp.status_code == 200, resp.text
    return resp.json()


def _shown(url: str, thread: str) -> list[tuple[str, bool]]:
    body = httpx.get(f"{url}/api/v1/threads/{thread}", params={"user_id": "u1"}, timeout=30).json()
    return [(m["content"], m["interrupted"]) for m in body["messages"]]


def test_a_served_turn_writes_one_checkpoint(tmp_path: Path) -> None:
    """The question is kept by the thread record's write at the turn's start, not by a checkpoint
    of its own: a turn leaves one checkpoint (the one LangGraph writes when it ends)."""
    db = tmp_path / "cadence.db"
    with live_server(
        create_app(settings(database_url=f"sqlite:///{db}"), engine_kwargs={"model": scripted()})
    ) as url:
        thread = _turn(url, "First?")["thread_id"]
        _turn(url, "Second?", thread)
        assert _shown(url, thread) == [
            ("First?", False),
            (ANSWER, False),
            ("Second?", False),
            (ANSWER, False),
        ]
    with contextlib.closing(sqlite3.connect(db)) as conn:
        (count,) = conn.execute(
            "SELECT COUNT(*) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''",
            (thread_key("u1", thread),),
        ).fetchone()
    assert count == 2


def test_a_question_whose_turn_never_finished_keeps_its_place(tmp_path: Path) -> None:
    """A server stopped mid-turn left the question in the thread record only: it is shown
    interrupted, and the next turn checkpoints it (still flagged) before its own question."""
    url_db = f"sqlite:///{tmp_path / 'cadence.db'}"
    cfg = settings(database_url=url_db)
    with live_server(create_app(cfg, engine_kwargs={"model": scripted()})) as url:
        thread = _turn(url, "First?")["thread_id"]

    async def stopped_mid_turn() -> None:  # what start_turn wrote before the server died
        async with open_thread_store(url_db) as store:
            await store.start_turn("u1", thread, title="x", question_id="lost-id", question="Lost question?")

    asyncio.run(stopped_mid_turn())
    model = scripted(text="Back again")
    with live_server(create_app(cfg, engine_kwargs={"model": model})) as url:
        assert _shown(url, thread) == [("First?", False), (ANSWER, False), ("Lost question?", True)]
        assert _turn(url, "Third?", thread)["response"] == "Back again"
        assert _shown(url, thread) == [
            ("First?", False),
            (ANSWER, False),
            ("Lost question?", True),
            ("Third?", False),
            ("Back again", False),
        ]
        assert any("Lost question?" in str(m.content) for m in model.records[0].messages)


async def _exercise(store: ThreadStore) -> None:
    await store.setup()
    await store.ping()
    a = await store.claim("alice", "t1", title="first   question\nwith lines", org_id="o1")
    assert a.title == "first question with lines" and a.org_id == "o1" and a.turns == 0
    await store.claim("alice", "t2", title="second")
    await store.claim("bob", "t3", title="bob's")
    with pytest.raises(NotFoundError):
        await store.claim("bob", "t1", title="steal")
    await store.touch("alice", "t1")
    await store.touch("bob", "t1")  # not bob's: ignored
    rows = await store.list("alice")
    assert [r.thread_id for r in rows] == ["t1", "t2"] and rows[0].turns == 1
    assert [r.thread_id for r in await store.list("alice", org_id="o1")] == ["t1"]
    assert [r.thread_id for r in await store.list("alice", limit=1, offset=1)] == ["t2"]
    again = await store.claim("alice", "t1", title="ignored")
    assert again.title == "first question with lines"
    assert not await store.delete("bob", "t1")
    assert await store.delete("alice", "t1")
    assert await store.get("t1") is None
    assert [r.thread_id for r in await store.list("alice")] == ["t2"]
    # a thread adopted from its checkpoints starts with its turns and times
    created, updated = datetime(2026, 1, 2, tzinfo=UTC), datetime(2026, 1, 3, tzinfo=UTC)
    adopted = await store.claim("alice", "t4", title="old", turns=3, created_at=created, updated_at=updated)
    assert (adopted.turns, adopted.created_at, adopted.updated_at) == (3, created, updated)
    # start_turn: one write creates the thread with one turn, or counts one more on the owner's
    first = await store.start_turn("carol", "t5", title="hello", question_id="q1", question="hello")
    assert (first.turns, first.question_id, first.title) == (1, "q1", "hello")
    second = await store.start_turn("carol", "t5", title="ignored", question_id="q2", question="again")
    assert (second.turns, second.question, second.title, second.created_at) == (
        2,
        "again",
        "hello",
        first.created_at,
    )
    with pytest.raises(NotFoundError):
        await store.start_turn("dave", "t5", title="steal")
    assert (await store.get("t5")).turns == 2  # type: ignore[union-attr]


async def test_memory_thread_store() -> None:
    await _exercise(MemoryThreadStore())


async def test_sqlite_thread_store(tmp_path: Path) -> None:
    async with SqliteThreadStore.open(tmp_path / "threads.db") as store:
        await _exercise(store)


def test_make_title_truncates() -> None:
    assert make_title("x" * 200).endswith("…") and len(make_title("x" * 200)) == 80
    assert make_title("  short  ") == "short"


def test_a_thread_only_in_the_checkpoints_is_adopted_with_its_turns_and_times() -> None:
    """A thread the server has no record of (an engine with a store of its own wrote it) was adopted
    with no turns and the time of the read as its creation."""
    from cadence.orchestration.engine import Cadence

    cfg = settings()
    engine = Cadence(cfg, model=scripted())  # its thread records are its own, not the server's
    try:
        engine.invoke("First?", thread_id="old", user_id="u1")
        engine.invoke("Second?", thread_id="old", user_id="u1")
        with live_server(create_app(cfg, engine)) as url:
            read_at = datetime.now(UTC)
            thread = httpx.get(f"{url}/api/v1/threads/old", params={"user_id": "u1"}).json()
            assert thread["turns"] == 2 and thread["title"] == "First?"
            created, updated = (datetime.fromisoformat(thread[k]) for k in ("created_at", "updated_at"))
            assert created < updated < read_at  # the first and the last checkpoint, not the read
    finally:
        engine.close()
