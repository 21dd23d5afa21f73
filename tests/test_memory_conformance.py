"""One memory spec, run against every store backend: memory://, sqlite:///file and postgresql://.

The PostgreSQL cases run against the private server of ``pg_support.postgres_server_url``
(skipped, with the reason, when the server binaries or the ``postgres`` extra are missing);
each test gets a fresh, empty database on it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from cadence.memory import MemoryKind, MemoryService, open_memory_store
from cadence.memory.store import memory_sqlite_path
from conftest import make_settings
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


@contextlib.asynccontextmanager
async def memory_on(url: str, **overrides: object) -> AsyncIterator[MemoryService]:
    settings = make_settings(database_url=url, **overrides)
    async with open_memory_store(settings) as store:
        yield MemoryService(store, settings)


async def test_remember_and_recall_by_words(database_url: str) -> None:
    async with memory_on(database_url) as memory:
        await memory.remember("alice", "I work on compilers.", statement="You work on compilers.")
        await memory.remember("alice", "My name is Alice.", statement="Your name is Alice.", topic="my name")
        recall = await memory.recall("alice", "What do I work on?")
        assert [i.statement for i in recall.items] == ["You work on compilers."]
        assert recall.adequacy == 1.0 and 0 < recall.items[0].score <= 1  # type: ignore[operator]
        nothing = await memory.recall("alice", "What is the weather in Oslo?")
        assert nothing.items == [] and nothing.adequacy == 0.0


async def test_users_never_see_each_others_memories(database_url: str) -> None:
    async with memory_on(database_url) as memory:
        await memory.remember("alice", "I work on compilers.")
        await memory.remember("alice.smith", "I work on databases.")  # '.' in an id, and a prefix of ids
        await memory.remember("alice2", "I work on gardens.")
        assert [i.text for i in (await memory.recall("alice", "work")).items] == ["I work on compilers."]
        assert [i.text for i in await memory.list("alice.smith")] == ["I work on databases."]
        assert [i.user_id for i in await memory.list("alice.smith")] == ["alice.smith"]
        assert (await memory.recall("bob", "What do I work on?")).items == []
        assert await memory.list("bob") == []
        alice_id = (await memory.list("alice"))[0].id
        assert not await memory.forget("bob", alice_id)  # not bob's: nothing happens
        assert len(await memory.list("alice")) == 1


async def test_projects_are_separate_namespaces(database_url: str) -> None:
    async with memory_on(database_url) as memory:
        await memory.remember("alice", "The build uses Bazel.", project_id="p1")
        await memory.remember("alice", "The build uses Make.", project_id="p.2")
        await memory.remember("alice", "The build uses nothing.")
        assert [i.text for i in (await memory.recall("alice", "build", project_id="p1")).items] == [
            "The build uses Bazel."
        ]
        assert [i.text for i in (await memory.recall("alice", "build")).items] == ["The build uses nothing."]
        everything = await memory.list("alice")
        assert sorted(i.project_id or "-" for i in everything) == ["-", "p.2", "p1"]
        assert [i.project_id for i in await memory.list("alice", project_id="p.2")] == ["p.2"]
        assert await memory.forget_all("alice", project_id="p1") == 1
        assert len(await memory.list("alice")) == 2


async def test_same_words_refresh_and_same_topic_replaces(database_url: str) -> None:
    async with memory_on(database_url) as memory:
        first = await memory.remember("alice", "I live in Paris.", topic="i live in", now=1000.0)
        again = await memory.remember("alice", "i live in paris", topic="i live in", now=2000.0)
        assert again.id == first.id and len(await memory.list("alice")) == 1
        moved = await memory.remember("alice", "I live in Rome.", topic="i live in", now=3000.0)
        items = await memory.list("alice")
        assert [i.text for i in items] == ["I live in Rome."] and items[0].id == moved.id


async def test_list_order_and_pages(database_url: str) -> None:
    async with memory_on(database_url) as memory:
        for n in range(5):
            await memory.remember("alice", f"Fact number {n} about owls.", now=1000.0 + n)
        texts = [i.text for i in await memory.list("alice")]
        assert texts == [f"Fact number {n} about owls." for n in (4, 3, 2, 1, 0)]
        pages = [[i.text[12] for i in await memory.list("alice", limit=2, offset=o)] for o in (0, 2, 4)]
        assert pages == [["4", "3"], ["2", "1"], ["0"]]


async def test_forget_really_deletes_also_from_recall(database_url: str) -> None:
    async with memory_on(database_url) as memory:
        kept = await memory.remember("alice", "My cat is called Tom.", project_id="home")
        gone = await memory.remember("alice", "My dog is called Rex.", project_id="home")
        assert await memory.forget("alice", gone.id)
        assert not await memory.forget("alice", gone.id)  # already gone
        assert [i.id for i in await memory.list("alice")] == [kept.id]
        assert [i.id for i in (await memory.recall("alice", "dog called", project_id="home")).items] != [
            gone.id
        ]
        assert await memory.forget_all("alice") == 1
        assert await memory.list("alice") == []
        assert (await memory.recall("alice", "cat called Tom", project_id="home")).items == []


async def test_memories_outlive_the_process(database_url: str) -> None:
    if database_url.startswith("memory"):
        pytest.skip("memory:// does not outlive its process")
    async with memory_on(database_url) as memory:
        await memory.remember("alice", "I work on compilers.", source_thread="t1")
    async with memory_on(database_url) as memory:  # "restart"
        items = (await memory.recall("alice", "What do I work on?")).items
        assert [(i.text, i.source_thread) for i in items] == [("I work on compilers.", "t1")]


async def test_consolidation_merges_supersedes_summarises_and_trims(database_url: str) -> None:
    day = 86_400.0
    now = time.time()
    async with memory_on(database_url, memory_max_items=10, memory_summarize_after_days=30) as memory:
        store = memory.store
        ns = memory.namespace("alice")
        # duplicates written behind the service's back (e.g. two workers at once)
        for key in ("d1", "d2"):
            await store.aput(ns, key, {"text": "I like tea.", "kind": "fact", "updated_at": now - 5})
        await store.aput(ns, "old_fact", {"text": "I live in Paris.", "kind": "fact", "topic": "i live in",
                                         "updated_at": now - 100})  # fmt: skip
        await store.aput(
            ns,
            "new_fact",
            {"text": "I live in Rome.", "kind": "fact", "topic": "i live in", "updated_at": now},
        )
        for n in range(3):
            await memory.remember(
                "alice",
                f"Result {n}: the tide is {n} metres.",
                kind=MemoryKind.RESULT,
                now=now - 40 * day + n,
            )
        await memory.remember("alice", "A fresh result about tides.", kind=MemoryKind.RESULT, now=now)
        report = await memory.consolidate("alice", now=now)
        assert (report.merged, report.superseded, report.summarised, report.trimmed) == (1, 1, 3, 0)
        items = await memory.list("alice")
        kinds = sorted(i.kind for i in items)
        assert kinds == ["fact", "fact", "result", "summary"]
        summary = next(i for i in items if i.kind == "summary")
        assert "Result 0" in summary.text and "Result 2" in summary.text
        assert "tide" in (await memory.recall("alice", "tide metres")).items[0].text.lower()
        again = await memory.consolidate("alice", now=now)
        assert again.changed == 0  # idempotent
    async with memory_on(database_url, memory_max_items=10) as memory:
        for n in range(12):
            await memory.remember("bob", f"Result about item {n} value.", kind=MemoryKind.RESULT, now=now + n)
        await memory.remember("bob", "My name is Bob.", topic="my name", now=now - 10)
        report = await memory.consolidate_all(now=now + 100)
        assert report.trimmed == 3
        left = await memory.list("bob", limit=100)
        assert len(left) == 10 and any(i.text == "My name is Bob." for i in left)  # facts go last


def test_sqlite_memory_lives_beside_the_checkpoints(tmp_path: Path) -> None:
    assert memory_sqlite_path(tmp_path / "cadence.db") == tmp_path / "cadence.memory.db"


async def test_facts_in_other_scripts_are_not_merged_as_the_same(database_url: str) -> None:
    """Words were read as [a-z0-9] only: 'I like 寿司' and 'I like ラーメン' were both just 'like'."""
    async with memory_on(database_url) as memory:
        for i, text in enumerate(["I like 寿司.", "I like ラーメン.", "I like 🍕.", "Я люблю чай."]):
            await memory.remember("alice", text, now=1000.0 + i)
        report = await memory.consolidate("alice", now=2000.0)
        assert report.merged == 0
        assert len(await memory.list("alice")) == 4
        recalled = await memory.recall("alice", "Что я люблю? чай")
        assert any("чай" in item.text for item in recalled.items)


async def test_what_was_kept_stays_manageable_with_memory_off(database_url: str) -> None:
    """``open_kept_memory_store`` (memory off): the memories kept while it was on are listed and forgotten."""
    from cadence.memory import open_kept_memory_store

    off = make_settings(database_url=database_url, memory=False)
    async with open_kept_memory_store(off) as store:
        assert await MemoryService(store, off).list("alice") == []  # nothing yet
    if database_url.startswith("sqlite:///"):
        assert not memory_sqlite_path(database_url.removeprefix("sqlite:///")).exists()  # nor created
    async with memory_on(database_url) as memory:
        await memory.remember("alice", "I work on compilers.")
        await memory.remember("alice", "I live in Oslo.", project_id="p1")
    async with open_kept_memory_store(off) as store:
        kept = MemoryService(store, off)
        listed = await kept.list("alice")
        expected = [] if database_url == "memory://" else ["I live in Oslo.", "I work on compilers."]
        assert sorted(i.text for i in listed) == expected  # memory:// is per store: nothing was kept
        if listed:
            assert await kept.forget("alice", listed[0].id)
            assert await kept.forget_all("alice") == 1
            assert await kept.list("alice") == []
