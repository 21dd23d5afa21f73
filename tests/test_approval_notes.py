"""The docs plugin's write_note: a real tool that changes something, approved by a human first."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import FINALIZE, call, goto

from cadence.builtins.docs import (
    BUNDLED_DOCS_DIR,
    DocsAgent,
    DocsError,
    DocsPlugin,
    make_docs_tools,
    note_file_name,
    write_note_file,
)
from cadence.sdk.approval import APPROVAL_METADATA_KEY
from cadence.settings import get_settings


def test_note_names_cannot_leave_the_folder() -> None:
    assert note_file_name("Meeting: Q3 plan") == "meeting-q3-plan.md"
    assert note_file_name("../../etc/passwd") == "etc-passwd.md"
    assert note_file_name("a/b\\c.md") == "a-b-c-md.md"
    assert len(note_file_name("x" * 500)) == 60 + 3
    for bad in ("", "...", "//", "   "):
        with pytest.raises(DocsError):
            note_file_name(bad)


def test_write_note_file_bounds_and_overwrite(tmp_path: Path) -> None:
    target = write_note_file(tmp_path, "Plan", "first", overwrite=False, max_chars=100)
    assert target == tmp_path / "plan.md" and target.read_text() == "# Plan\n\nfirst\n"
    with pytest.raises(DocsError, match="already exists"):
        write_note_file(tmp_path, "plan", "second", overwrite=False, max_chars=100)
    write_note_file(tmp_path, "plan", "second", overwrite=True, max_chars=100)
    assert "second" in target.read_text()
    with pytest.raises(DocsError, match="CADENCE_NOTE_MAX_CHARS"):
        write_note_file(tmp_path, "long", "x" * 101, overwrite=False, max_chars=100)
    with pytest.raises(DocsError, match="empty"):
        write_note_file(tmp_path, "blank", "  ", overwrite=False, max_chars=100)
    outside = tmp_path.parent / "outside.md"
    (tmp_path / "link.md").symlink_to(outside)
    with pytest.raises(DocsError, match="Refused"):
        write_note_file(tmp_path, "link", "x", overwrite=True, max_chars=100)
    assert not outside.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.md", "plan.md"]  # no temporary left


def test_write_note_needs_approval_and_only_in_a_folder_of_your_own(tmp_path: Path) -> None:
    tools = {t.name: t for t in make_docs_tools(tmp_path, writable=True)}
    assert tools["write_note"].metadata[APPROVAL_METADATA_KEY] is True
    bundled = DocsAgent(DocsPlugin.get_metadata(), folder=BUNDLED_DOCS_DIR).get_tools()
    assert "write_note" not in {t.name for t in bundled}
    own = DocsAgent(DocsPlugin.get_metadata(), folder=tmp_path).get_tools()
    assert "write_note" in {t.name for t in own}


@pytest.fixture
def docs_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "readme.md").write_text("# Readme\n\nNothing about llamas yet.\n")
    monkeypatch.setenv("CADENCE_DOCS_DIR", str(folder))
    get_settings.cache_clear()
    return folder


async def test_write_note_pauses_then_writes_and_reindexes(engine_factory, docs_dir: Path) -> None:
    engine, _ = engine_factory(
        [
            goto("docs"),
            call("write_note", title="Llamas", text="Llamas hum when they are curious."),
            FINALIZE,
            {"content": "Saved the note llamas.md."},
        ],
        docs_dir=docs_dir,
    )
    paused = await engine.ainvoke("Save a note about llamas humming", thread_id="n1")
    [approval] = paused.approvals
    assert approval["tool"] == "write_note" and "documentation folder" in approval["reason"]
    assert not (docs_dir / "llamas.md").exists()  # nothing written before the decision
    result = await engine.aresume("approve", thread_id="n1")
    assert (docs_dir / "llamas.md").read_text().startswith("# Llamas")
    assert "llamas.md" in result.trace["tools_used"][0]["result"]
    search = {t.name: t for t in make_docs_tools(docs_dir)}["search_docs"]
    assert "llamas.md" in search.invoke({"query": "llamas hum curious"})


async def test_rejected_note_is_not_written(engine_factory, docs_dir: Path) -> None:
    engine, _ = engine_factory(
        [
            goto("docs"),
            call("write_note", title="Secret", text="do not keep this"),
            FINALIZE,
            {"content": "I did not save it."},
        ],
        docs_dir=docs_dir,
    )
    await engine.ainvoke("Save a secret note", thread_id="n2")
    await engine.aresume({"decision": "reject", "message": "no secrets in the docs"}, thread_id="n2")
    assert not (docs_dir / "secret.md").exists()
