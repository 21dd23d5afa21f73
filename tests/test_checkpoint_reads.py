"""``checkpoint_reads``: the pause check's read of a thread is handed to the turn's run, once, and never
outlives a write to the thread."""

from __future__ import annotations

import time
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from tests.conftest import FINALIZE, make_settings

import cadence.persistence.checkpoint_reads as checkpoint_reads
from cadence.orchestration.engine import Cadence
from cadence.persistence.checkpoint_reads import ReadAheadSaver
from cadence.testing import ScriptedChatModel


class CountingMemorySaver(InMemorySaver):
    """Counts the reads of a thread's latest checkpoint that reach the storage."""

    def __init__(self) -> None:
        super().__init__()
        self.latest_reads = 0

    async def aget_tuple(self, config: Any) -> Any:
        if not (config.get("configurable") or {}).get("checkpoint_id"):
            self.latest_reads += 1
        return await super().aget_tuple(config)


class Saver(ReadAheadSaver, CountingMemorySaver):
    """The read-ahead mixin over the counting saver."""


def _config(thread: str, **extra: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread, "checkpoint_ns": "", **extra}}


async def test_a_handed_read_answers_the_next_read_once() -> None:
    saver = Saver()
    handed = object()
    saver.hand_over("t", handed)
    assert await saver.aget_tuple(_config("t", checkpoint_id="c1")) is None  # a given checkpoint: not it
    assert await saver.aget_tuple(_config("other")) is None  # another thread: not it
    reads = saver.latest_reads
    assert await saver.aget_tuple(_config("t")) is handed
    assert saver.latest_reads == reads
    assert await saver.aget_tuple(_config("t")) is None  # once: the next read is the storage's
    assert saver.latest_reads == reads + 1


async def test_a_write_or_a_withdrawal_or_time_ends_a_handed_read(monkeypatch) -> None:
    saver = Saver()
    script = [FINALIZE, {"content": "hi"}]
    saver_engine = Cadence(
        make_settings(), model=ScriptedChatModel.from_items(script, loop=True), checkpointer=saver
    )
    await saver_engine.ainvoke("hello", thread_id="t", user_id="u")  # the thread has a checkpoint now
    key = "u::t"
    stale = object()
    current = await saver.aget_tuple(_config(key))
    saver.hand_over(key, stale)
    await saver.aput_writes(current.config, [("messages", [])], "task-1")  # a write to the thread
    assert await saver.aget_tuple(_config(key)) is not stale
    saver.hand_over(key, stale)
    await saver_engine.ainvoke("hello", thread_id="t", user_id="u")  # a turn: its check reads afresh
    assert await saver.aget_tuple(_config(key)) is not stale
    saver.hand_over(key, stale)
    saver.withdraw(key)
    assert await saver.aget_tuple(_config(key)) is not stale
    saver.hand_over(key, stale)
    now = time.monotonic()
    monkeypatch.setattr(checkpoint_reads.time, "monotonic", lambda: now + checkpoint_reads.HANDED_TTL_S + 1)
    assert await saver.aget_tuple(_config(key)) is not stale


async def test_a_turn_on_an_existing_thread_reads_its_checkpoint_once() -> None:
    """The pause check reads the latest checkpoint and the run starts from that read (it used to read
    the whole state again: a fifth of a turn on a long thread)."""
    saver = Saver()
    script = [FINALIZE, {"content": "first"}, FINALIZE, {"content": "second"}]
    engine = Cadence(make_settings(), model=ScriptedChatModel.from_items(script), checkpointer=saver)
    await engine.ainvoke("one", thread_id="t", user_id="u")
    saver.latest_reads = 0
    out = await engine.ainvoke("two", thread_id="t", user_id="u")
    assert out.response == "second" and out.error is None
    assert saver.latest_reads == 1
    history = (await engine.graph.aget_state(_config("u::t"))).values["messages"]
    assert [m.content for m in history if m.type in ("human",)] == ["one", "two"]  # nothing lost
    assert saver._handed() == {}  # nothing left behind


async def test_a_turn_on_a_thread_made_for_it_reads_no_checkpoint() -> None:
    """A thread id generated for the turn names no checkpoint: neither the pause check nor the run
    asks the storage for one (on PostgreSQL the turn's only read of the checkpoint tables)."""
    saver = Saver()
    script = [FINALIZE, {"content": "first"}, FINALIZE, {"content": "second"}]
    engine = Cadence(make_settings(), model=ScriptedChatModel.from_items(script), checkpointer=saver)
    out = await engine.ainvoke("one", user_id="u")
    assert out.response == "first" and out.error is None and saver.latest_reads == 0
    assert saver._handed() == {}
    again = await engine.ainvoke("two", thread_id=out.thread_id, user_id="u")  # the thread now exists
    assert again.response == "second" and saver.latest_reads == 1
    history = (await engine.graph.aget_state(_config(f"u::{out.thread_id}"))).values["messages"]
    assert [m.content for m in history if m.type == "human"] == ["one", "two"]


async def test_a_new_thread_of_a_durable_checkpointer_keeps_its_question_first() -> None:
    """On a durable checkpointer the question is checkpointed before the run: that write ends the
    hand-over, so the run reads the thread it just wrote."""
    saver = Saver()
    script = [FINALIZE, {"content": "first"}]
    engine = Cadence(make_settings(), model=ScriptedChatModel.from_items(script), checkpointer=saver)
    engine._durable = True
    out = await engine.ainvoke("one", user_id="u")
    assert out.response == "first" and saver.latest_reads == 1
    history = (await engine.graph.aget_state(_config(f"u::{out.thread_id}"))).values["messages"]
    assert [m.content for m in history if m.type == "human"] == ["one"]  # once, no longer pending
    assert not history[0].response_metadata and history[-1].content == "first"
