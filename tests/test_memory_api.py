"""The memory API (list, forget one, forget all; owner-checked) and the idle consolidation of the server."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from langgraph.store.memory import InMemoryStore

from cadence.memory import MemoryKind, MemoryService
from cadence.server.memories import IdleConsolidation
from conftest import make_settings
from test_server_support import serve

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ADA = "My name is Ada and I work on compilers."


def test_list_and_forget_memories_over_the_api() -> None:
    with serve() as url, httpx.Client(base_url=url, timeout=30) as client:
        assert client.post("/api/v1/chat", json={"message": ADA, "user_id": "alice"}).status_code == 200
        body = {"message": "I live in Oslo.", "user_id": "alice", "project_id": "p1"}
        assert client.post("/api/v1/chat", json=body).status_code == 200
        listed = client.get("/api/v1/memories", params={"user_id": "alice"}).json()
        assert sorted(m["text"] for m in listed["memories"]) == [
            "I live in Oslo.", "I work on compilers.", "My name is Ada."
        ]  # fmt: skip
        assert all(m["kind"] == "fact" and m["source_thread"] for m in listed["memories"])
        p1 = client.get("/api/v1/memories", params={"user_id": "alice", "project_id": "p1"}).json()
        assert [m["text"] for m in p1["memories"]] == ["I live in Oslo."]
        assert client.get("/api/v1/memories", params={"user_id": "bob"}).json()["memories"] == []
        page = client.get("/api/v1/memories", params={"user_id": "alice", "limit": 1, "offset": 1}).json()
        assert len(page["memories"]) == 1 and page["offset"] == 1

        target = next(m["id"] for m in listed["memories"] if m["text"] == "My name is Ada.")
        foreign = client.delete(f"/api/v1/memories/{target}", params={"user_id": "bob"})
        assert foreign.status_code == 404 and foreign.json()["error"]["code"] == "memory_not_found"
        gone = client.delete(f"/api/v1/memories/{target}", params={"user_id": "alice"})
        assert gone.status_code == 200 and gone.json() == {"deleted": 1, "memory_id": target}
        assert client.delete(f"/api/v1/memories/{target}", params={"user_id": "alice"}).status_code == 404
        everything = client.delete("/api/v1/memories", params={"user_id": "alice", "project_id": "p1"})
        assert everything.json()["deleted"] == 1
        assert client.delete("/api/v1/memories", params={"user_id": "alice"}).json()["deleted"] == 1
        assert client.get("/api/v1/memories", params={"user_id": "alice"}).json()["memories"] == []


def test_memory_routes_are_owner_checked_with_bound_keys() -> None:
    with serve(api_keys="k1:alice,k2:bob") as url, httpx.Client(base_url=url, timeout=30) as client:
        alice = {"Authorization": "Bearer k1"}
        bob = {"Authorization": "Bearer k2"}
        assert client.post("/api/v1/chat", json={"message": ADA}, headers=alice).status_code == 200
        assert len(client.get("/api/v1/memories", headers=alice).json()["memories"]) == 2
        assert client.get("/api/v1/memories", headers=bob).json()["memories"] == []
        denied = client.get("/api/v1/memories", params={"user_id": "alice"}, headers=bob)
        assert denied.status_code == 403
        assert client.delete("/api/v1/memories", headers=bob).json()["deleted"] == 0
        assert len(client.get("/api/v1/memories", headers=alice).json()["memories"]) == 2
        assert client.get("/api/v1/memories").status_code == 401


def test_memory_off_still_lists_and_forgets_what_was_kept(tmp_path: Path) -> None:
    """With CADENCE_MEMORY=off the routes were a 404: a user could not see nor delete what was kept."""
    database = f"sqlite:///{tmp_path / 'cadence.db'}"
    with serve(memory=False, database_url=database) as url, httpx.Client(base_url=url, timeout=30) as client:
        empty = client.get("/api/v1/memories", params={"user_id": "alice"})
        assert (
            empty.status_code == 200 and empty.json()["memories"] == [] and empty.json()["enabled"] is False
        )
        assert not (tmp_path / "cadence.memory.db").exists()  # nothing created to list nothing
        assert client.delete("/api/v1/memories", params={"user_id": "alice"}).json() == {
            "deleted": 0, "memory_id": None
        }  # fmt: skip
    with serve(database_url=database) as url, httpx.Client(base_url=url, timeout=30) as client:
        assert client.post("/api/v1/chat", json={"message": ADA, "user_id": "alice"}).status_code == 200
        assert client.get("/api/v1/memories", params={"user_id": "alice"}).json()["enabled"] is True
    with serve(memory=False, database_url=database) as url, httpx.Client(base_url=url, timeout=30) as client:
        assert client.post("/api/v1/chat", json={"message": "I live in Oslo.", "user_id": "alice"}).is_success
        listed = client.get("/api/v1/memories", params={"user_id": "alice"}).json()
        assert sorted(m["text"] for m in listed["memories"]) == ["I work on compilers.", "My name is Ada."]
        assert client.get("/api/v1/memories", params={"user_id": "bob"}).json()["memories"] == []
        one = listed["memories"][0]["id"]
        assert client.delete(f"/api/v1/memories/{one}", params={"user_id": "bob"}).status_code == 404
        assert client.delete(f"/api/v1/memories/{one}", params={"user_id": "alice"}).json()["deleted"] == 1
        assert client.delete(f"/api/v1/memories/{one}", params={"user_id": "alice"}).status_code == 404
        assert client.delete("/api/v1/memories", params={"user_id": "alice"}).json()["deleted"] == 1
        assert client.get("/api/v1/memories", params={"user_id": "alice"}).json()["memories"] == []


async def test_idle_consolidation_runs_once_after_activity() -> None:
    settings = make_settings(memory_consolidate_idle_s=0.05)
    memory = MemoryService(InMemoryStore(), settings)
    for key in ("a", "b"):  # duplicates written behind the service's back (two workers at once)
        await memory.store.aput(
            memory.namespace("alice"), key, {"text": "I like tea.", "kind": MemoryKind.FACT}
        )
    service = SimpleNamespace(engine=SimpleNamespace(memory=memory), _tasks={"a turn"})
    job = IdleConsolidation(service, settings)  # type: ignore[arg-type]
    await job()  # a turn is running: not idle
    assert job.runs == 0
    service._tasks = set()
    await job()  # idle, but not long enough yet (generous: the bound is 0.05 s)
    started = time.monotonic()
    while job.runs == 0 and time.monotonic() - started < 10:
        await asyncio.sleep(0.06)
        await job()
    assert job.runs == 1 and len(await memory.list("alice")) == 1
    await asyncio.sleep(0.06)
    await job()  # nothing happened since: no second run
    assert job.runs == 1


def test_a_later_turn_of_a_projects_thread_keeps_its_memories_in_the_project() -> None:
    """The follow-up turn without project_id stored its facts outside the thread's project."""
    with serve() as url, httpx.Client(base_url=url, timeout=30) as client:
        first = {"message": "My name is Ada.", "user_id": "alice", "project_id": "p1", "thread_id": "pt"}
        assert client.post("/api/v1/chat", json=first).status_code == 200
        later = {"message": "I live in Oslo.", "user_id": "alice", "thread_id": "pt"}
        assert client.post("/api/v1/chat", json=later).status_code == 200
        p1 = client.get("/api/v1/memories", params={"user_id": "alice", "project_id": "p1"}).json()
        assert sorted(m["text"] for m in p1["memories"]) == ["I live in Oslo.", "My name is Ada."]


def test_an_empty_project_or_an_overlong_id_is_refused_not_everything_deleted() -> None:
    """``DELETE /memories?project_id=`` deleted every project's memories; a 5,000-character id was a 404."""
    with serve() as url, httpx.Client(base_url=url, timeout=30) as client:
        body = {"message": "I live in Oslo.", "user_id": "alice", "project_id": "p1"}
        assert client.post("/api/v1/chat", json=body).status_code == 200
        empty = client.delete("/api/v1/memories", params={"user_id": "alice", "project_id": ""})
        assert empty.status_code == 422 and empty.json()["error"]["code"] == "invalid_value"
        assert len(client.get("/api/v1/memories", params={"user_id": "alice"}).json()["memories"]) == 1
        long = client.delete(f"/api/v1/memories/{'x' * 5000}", params={"user_id": "alice"})
        assert long.status_code == 422 and long.json()["error"]["code"] == "id_too_long"
