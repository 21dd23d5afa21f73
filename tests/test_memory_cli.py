"""``cadence memory list|forget|consolidate`` on the configured SQLite store (no model is started)."""

from __future__ import annotations

import asyncio
import json

import pytest
from typer.testing import CliRunner

from cadence.cli.main import app
from cadence.memory import MemoryKind, MemoryService, open_memory_store
from cadence.settings import Settings


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def seed() -> None:
    async def go() -> None:
        settings = Settings()
        async with open_memory_store(settings) as store:
            memory = MemoryService(store, settings)
            await memory.remember("alice", "I work on compilers.", topic="i work on", source_thread="t1")
            await memory.remember("alice", "The build uses Bazel.", project_id="p1")
            await memory.remember("bob", "I like tea.")
            for key in ("d1", "d2"):
                await store.aput(
                    memory.namespace("bob"), key, {"text": "I like coffee.", "kind": MemoryKind.FACT}
                )

    asyncio.run(go())


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CADENCE_LLM", "nope:x")  # memory commands contact no model
    monkeypatch.setenv("CADENCE_DEFAULT_USER", "alice")


def test_list_forget_and_consolidate() -> None:
    seed()
    listed = run("memory", "list", "--json")
    assert listed.exit_code == 0, listed.output
    body = json.loads(listed.stdout)
    assert body["user_id"] == "alice"
    assert sorted(m["text"] for m in body["memories"]) == ["I work on compilers.", "The build uses Bazel."]
    project = json.loads(run("memory", "list", "--project", "p1", "--json").stdout)
    assert [m["text"] for m in project["memories"]] == ["The build uses Bazel."]
    table = run("memory", "list", "--user", "bob")
    assert table.exit_code == 0 and "I like tea." in table.stdout

    one = next(m["id"] for m in body["memories"] if m["text"] == "I work on compilers.")
    assert run("memory", "forget", one, "--user", "bob").exit_code == 1  # not bob's
    forgot = run("memory", "forget", one)
    assert forgot.exit_code == 0 and "forgot 1 memory" in forgot.stdout

    report = json.loads(run("memory", "consolidate", "--json").stdout)
    assert report["merged"] == 1  # bob's duplicate coffee
    assert len(json.loads(run("memory", "list", "--user", "bob", "--json").stdout)["memories"]) == 2

    everything = run("memory", "forget", "--all", "--json")
    assert json.loads(everything.stdout) == {"user_id": "alice", "deleted": 1}
    assert "No memories" in run("memory", "list").stdout


def test_mistakes_are_one_error_line(monkeypatch: pytest.MonkeyPatch) -> None:
    both = run("memory", "forget")
    assert both.exit_code == 1 and both.output.count("error:") == 1
    missing = run("memory", "forget", "nope")
    assert missing.exit_code == 1 and "No memory 'nope'" in missing.output
    assert run("memory", "consolidate", "--project", "p1").exit_code == 1


def test_memory_off_still_lists_and_forgets_what_was_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """With CADENCE_MEMORY=off the commands failed: a user could not see nor delete what was kept."""
    monkeypatch.setenv("CADENCE_MEMORY", "off")
    nothing = run("memory", "list", "--json")
    assert nothing.exit_code == 0, nothing.output
    assert json.loads(nothing.stdout) == {"user_id": "alice", "enabled": False, "memories": []}
    assert not list(Settings().data_dir.glob("*.memory.db"))  # nothing created to list nothing
    monkeypatch.setenv("CADENCE_MEMORY", "on")
    seed()
    monkeypatch.setenv("CADENCE_MEMORY", "off")
    table = run("memory", "list")
    assert table.exit_code == 0 and "I work on compilers." in table.stdout
    assert "CADENCE_MEMORY=off" in table.output  # said, on stderr
    listed = json.loads(run("memory", "list", "--json").stdout)["memories"]
    one = next(m["id"] for m in listed if m["text"] == "I work on compilers.")
    assert run("memory", "forget", one).exit_code == 0
    assert json.loads(run("memory", "forget", "--all", "--json").stdout)["deleted"] == 1
    assert json.loads(run("memory", "list", "--user", "bob", "--json").stdout)["memories"]


def test_an_empty_project_is_refused_not_every_project_forgotten() -> None:
    """'cadence memory forget --all --project ""' forgot all of the user's memories (the API refuses it)."""
    seed()
    for command in (["forget", "--all"], ["list"], ["consolidate", "--user", "alice"]):
        refused = run("memory", *command, "--project", " ")
        assert refused.exit_code == 1 and "--project is empty" in refused.output
    assert len(json.loads(run("memory", "list", "--json").stdout)["memories"]) == 2
