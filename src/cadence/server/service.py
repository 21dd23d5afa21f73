"""The server's chat service: ownership checks, per-thread locks and turns run as tasks.

Every endpoint goes through :class:`ChatService`, so ownership (404 for another user's
thread) and locking (409 after the wait) behave the same for JSON, SSE, WebSocket and
the OpenAI-compatible API. A turn runs in its own task feeding an event queue: if the
client goes away mid-stream, the turn still finishes and the thread stays consistent.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from cadence.conventions import FINAL_NODES, GraphNodeNames, is_control_tool, message_text
from cadence.errors import CadenceError, NotFoundError
from cadence.orchestration.engine import (
    PENDING_QUESTION_KEY,
    Cadence,
    TurnInput,
    answer_writer,
    recorded_question,
    thread_key,
    validate_message,
)
from cadence.orchestration.tones import ResponseTone
from cadence.persistence.locks import DatabaseLocks
from cadence.persistence.threads import ThreadRecord, ThreadStore
from cadence.server.locks import ThreadLocks
from cadence.server.validation import (
    check_text,
    validate_label,
    validate_metadata,
    validate_thread_id,
    validate_user_id,
)
from cadence.settings import Settings

logger = logging.getLogger(__name__)

ADOPT_SCAN_LIMIT = 10_000
"""A thread adopted from its checkpoints is dated by at most this many of them (newest first)."""


@dataclass
class TurnRequest:
    """A validated request for one turn."""

    message: str
    user_id: str
    thread_id: str | None = None
    tone: str | None = None
    mode: str | None = None
    """The orchestration mode (None: ``CADENCE_MODE``); 422 ``unknown_mode`` if it is none."""
    agent: str | None = None
    """The single mode's agent (naming one implies the single mode); 422 ``unknown_agent``."""
    metadata: dict[str, Any] | None = None
    org_id: str | None = None
    project_id: str | None = None
    history: Sequence[BaseMessage] = ()
    """Earlier messages to seed a *new* thread with (OpenAI-style stateless requests)."""


@dataclass
class Turn:
    """A running turn: read its engine events with :meth:`events` or wait with :meth:`result`."""

    thread_id: str
    user_id: str
    queue: asyncio.Queue[dict[str, Any] | None] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        """The engine's events; the last one has ``type == "final"``."""
        while True:
            event = await self.queue.get()
            if event is None:
                return
            yield event

    async def events_or_idle(self, interval: float) -> AsyncIterator[dict[str, Any] | None]:
        """The engine's events, and ``None`` when ``interval`` seconds passed without one (a stream's
        keep-alive: a proxy closes a response that sends nothing for a while, e.g. nginx after 60 s).

        One timer per stream checks for silence (a timeout per event cost as much as the event's delivery).
        """
        loop = asyncio.get_running_loop()
        last = loop.time()
        handle: asyncio.TimerHandle | None = None

        def check() -> None:
            nonlocal handle
            if self.task is not None and self.task.done():
                return  # what is left is in the queue, its end included
            now = loop.time()
            if now - last >= interval:
                self.queue.put_nowait(_IDLE)
                due = now + interval
            else:
                due = last + interval  # silent for interval seconds from the last event
            handle = loop.call_at(due, check)

        handle = loop.call_later(interval, check)
        try:
            while True:
                event = await self.queue.get()
                if event is None:
                    return
                if event is _IDLE:
                    last = loop.time()
                    yield None
                    continue
                last = loop.time()
                yield event
        finally:
            handle.cancel()

    async def result(self) -> dict[str, Any]:
        """The final event (response, thread_id, trace, error)."""
        final: dict[str, Any] | None = None
        async for event in self.events():
            if event.get("type") == "final":  # a plugin's own events may have no type
                final = event
        assert final is not None, "a turn always ends with a final event"
        return final


_IDLE: dict[str, Any] = {"type": "idle"}
"""Put in a turn's queue by :meth:`Turn.events_or_idle` when its stream has been silent (never sent)."""


SHUTTING_DOWN = {
    "code": "shutting_down",
    "message": "The server stopped before this turn finished; its thread is kept: send the message again.",
}
"""The error of a turn stopped because the server stops (HTTP 503)."""


def _failed_final(turn: Turn, error: dict[str, Any]) -> dict[str, Any]:
    """The ``final`` event of a turn that ended with ``error`` outside the engine."""
    return {"type": "final", "response": "", "thread_id": turn.thread_id, "trace": {}, "error": error}


class ChatService:
    """Runs turns for users on their own threads."""

    def __init__(
        self, engine: Cadence, store: ThreadStore, settings: Settings, db_locks: DatabaseLocks | None = None
    ) -> None:
        self.engine = engine
        self.store = store
        self.settings = settings
        self.locks = ThreadLocks(db_locks)  # db_locks: per-thread serialization across processes
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping: asyncio.Task[None] | None = None

    # -- validation & ownership ----------------------------------------------------------
    def validate_message(self, message: str) -> None:
        """422 for an empty or oversized message (checked before the thread is locked)."""
        validate_message(message, self.settings.max_message_chars)
        check_text("message", message)

    def validate(self, req: TurnRequest) -> None:
        """422 for anything in ``req`` that cannot be stored: checked before a thread is claimed."""
        s = self.settings
        self.validate_message(req.message)
        validate_user_id(req.user_id, s)
        if req.thread_id is not None:
            validate_thread_id(req.thread_id, s)
        validate_label("org_id", req.org_id, s)
        validate_label("project_id", req.project_id, s)
        validate_metadata(req.metadata, s)
        for msg in req.history:
            check_text("messages", message_text(msg))

    @staticmethod
    def validate_tone(
        tone: str | None, metadata: dict[str, Any] | None = None, message: str | None = None
    ) -> str:
        """The tone's value (``tone``, else the metadata's, else one the message asks for in words); 422
        ``invalid_tone`` if unknown."""
        return ResponseTone.requested(tone, metadata, message).value

    def _config(self, user_id: str, thread_id: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": thread_key(user_id, thread_id)}}

    async def _has_checkpoint(self, user_id: str, thread_id: str) -> bool:
        config = self._config(user_id, thread_id)
        config["configurable"]["checkpoint_ns"] = ""
        return await self.engine.checkpointer.aget_tuple(config) is not None

    async def owned(self, user_id: str, thread_id: str) -> ThreadRecord:
        """The user's thread, or 404 (missing or another user's).

        A thread that exists only in the checkpointer (started with ``cadence chat`` before the
        engine wrote thread records) is adopted: its key already names the user; its record
        counts the questions in its history as turns and dates it by its checkpoints.
        """
        record = await self.store.get(thread_id)
        if record is not None:
            if record.user_id != user_id:
                raise NotFoundError(f"No thread {thread_id!r} for this user.", code="thread_not_found")
            return record
        if await self._has_checkpoint(user_id, thread_id):
            questions = [m for m in await self._messages(user_id, thread_id) if isinstance(m, HumanMessage)]
            title = message_text(questions[0]) if questions else thread_id
            created, updated = await self._checkpoint_times(user_id, thread_id)
            return await self.store.claim(
                user_id, thread_id, title=title, turns=len(questions), created_at=created, updated_at=updated
            )
        raise NotFoundError(f"No thread {thread_id!r} for this user.", code="thread_not_found")

    async def _checkpoint_times(
        self, user_id: str, thread_id: str, limit: int = ADOPT_SCAN_LIMIT
    ) -> tuple[datetime | None, datetime | None]:
        """The times of the thread's oldest and newest checkpoints (of the newest ``limit``)."""
        config = self._config(user_id, thread_id)
        config["configurable"]["checkpoint_ns"] = ""
        stamps: list[datetime] = []
        async for saved in self.engine.checkpointer.alist(config, limit=limit):
            try:
                stamps.append(datetime.fromisoformat(str(saved.checkpoint.get("ts"))))
            except ValueError:
                continue
        return (min(stamps), max(stamps)) if stamps else (None, None)

    async def _reject_foreign(self, user_id: str, thread_id: str) -> None:
        record = await self.store.get(thread_id)
        if record is not None and record.user_id != user_id:
            raise NotFoundError(f"No thread {thread_id!r} for this user.", code="thread_not_found")

    # -- turns ---------------------------------------------------------------------------
    async def start(self, req: TurnRequest, *, tokens: bool = True, events: bool = True) -> Turn:
        """Check, lock and start a turn; raises 404/409/422 before anything runs.

        ``events=False``: the turn's ``final`` event only (a JSON answer; the engine then runs the
        graph without its event streams, :meth:`Cadence.astream`).
        """
        # the server's checks are a superset of the engine's (message, tone, ids): the engine
        # runs the TurnInput made here without checking it again
        self.validate(req)
        tone = self.validate_tone(req.tone, req.metadata, req.message)
        thread = req.thread_id or uuid.uuid4().hex
        mode, agent = self.engine.mode_and_agent(req.mode, req.agent)  # 422 unknown mode or agent
        turn_input = TurnInput(
            message=req.message,
            tone=tone,
            user_id=req.user_id,
            thread_id=thread,
            metadata=req.metadata,
            mode=mode,
            agent=agent,
            project_id=req.project_id,
            pause_checked=req.thread_id is None,  # an id generated here names no checkpoint yet
            new_thread=req.thread_id is None and not req.history,  # (the history is checkpointed first)
            # the question is kept in the thread record's write below, durable before the turn runs:
            # the engine does not checkpoint it first (a read and a write of a checkpoint saved)
            recorded_question_id=str(uuid.uuid4()),
        )
        if req.thread_id:
            await self._reject_foreign(req.user_id, thread)  # 404 before waiting on someone else's lock
        lease = await self.locks.acquire(thread, self.settings.thread_lock_timeout)
        try:
            record: ThreadRecord | None = None
            if req.thread_id is not None:  # a paused turn is decided (resume) before a new message
                record = await self.store.get(thread)
                # and the question of a turn that never finished (the server stopped) is kept
                await self.engine.ensure_not_paused(req.user_id, thread, asked=_asked(record))
                turn_input = replace(turn_input, pause_checked=True)  # checked under the lock
                if req.project_id is None and record is not None and record.project_id:
                    # a turn of a project's thread is the project's (its memories too) unless it says
                    turn_input = replace(turn_input, project_id=record.project_id)
            # a freshly generated id is new by construction: skip the lookups
            is_new = req.thread_id is None or (
                record is None and not await self._has_checkpoint(req.user_id, thread)
            )
            # the thread is claimed, the turn counted and its question kept in one write (none at
            # the turn's end)
            await self.store.start_turn(
                req.user_id, thread, title=_title(req), org_id=req.org_id, project_id=req.project_id,
                question_id=turn_input.recorded_question_id, question=req.message,
            )  # fmt: skip
            if is_new and req.history:
                await self._seed(req.user_id, thread, list(req.history))
        except BaseException:
            self.engine.withdraw_read(req.user_id, thread)  # no run takes the check's read
            await lease.arelease()
            raise
        turn = Turn(thread_id=thread, user_id=req.user_id)
        task = asyncio.create_task(
            self._run(turn, req, turn_input, tokens, lease.arelease, events),
            name=f"cadence-turn-{thread}",
        )
        turn.task = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return turn

    async def _run(
        self,
        turn: Turn,
        req: TurnRequest,
        turn_input: TurnInput,
        tokens: bool,
        release: Any,
        events: bool = True,
    ) -> None:
        final: dict[str, Any] | None = None
        try:
            async for event in self.engine.astream(turn_input, tokens=tokens, events=events):
                if event.get("type") == "final":
                    final = event
                else:
                    turn.queue.put_nowait(event)
        except Exception as exc:
            logger.exception("turn on thread %s failed outside the engine", turn.thread_id)
            error = {
                "code": exc.code if isinstance(exc, CadenceError) else "internal_error",
                "message": exc.message if isinstance(exc, CadenceError) else f"{type(exc).__name__}: {exc}",
            }
            turn.queue.put_nowait({"type": "error", "error": error})
            final = _failed_final(turn, error)
        except asyncio.CancelledError:  # the server stops: the engine closed the turn; say so, then stop
            turn.queue.put_nowait({"type": "error", "error": SHUTTING_DOWN})
            final = _failed_final(turn, SHUTTING_DOWN)
            raise
        finally:
            self.engine.withdraw_read(turn.user_id, turn.thread_id)  # a turn stopped before its run read it
            await release()
            if final is not None:
                if final.get("error"):
                    logger.warning("turn on thread %s ended with error: %s", turn.thread_id, final["error"])
                turn.queue.put_nowait(final)
            turn.queue.put_nowait(None)

    async def _seed(self, user_id: str, thread_id: str, history: list[BaseMessage]) -> None:
        """Record earlier messages as the thread's history (as if answered by the synthesizer)."""
        fixed: list[BaseMessage] = [
            AIMessage(content=m.content, name=GraphNodeNames.SYNTHESIZER) if isinstance(m, AIMessage) else m
            for m in history
        ]
        await self.engine.graph.aupdate_state(
            self._config(user_id, thread_id), {"messages": fixed}, as_node=answer_writer(self.engine.graph)
        )

    def begin_shutdown(self) -> None:
        """The server is stopping: give running turns ``CADENCE_SHUTDOWN_GRACE`` seconds, then stop
        what is left (each such turn's client gets a 503 ``shutting_down``; its thread is kept).

        Called when the stop signal arrives, while the requests still wait for their turns, so they
        get an answer or that error rather than being cut off. Calling it again changes nothing.
        """
        if self._stopping is None:
            self._stopping = asyncio.get_running_loop().create_task(
                self.drain(self.settings.shutdown_grace), name="cadence-shutdown"
            )

    async def drain(self, timeout: float) -> None:
        """Wait (bounded) for running turns, then cancel what is left (server shutdown)."""
        if self._stopping is not None and asyncio.current_task() is not self._stopping:
            await asyncio.shield(self._stopping)  # begun at the stop signal
            return
        if not self._tasks:
            return
        _, pending = await asyncio.wait(set(self._tasks), timeout=timeout)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=5)
        await self.locks.wait_released()

    # -- reading and deleting ------------------------------------------------------------
    async def _messages(self, user_id: str, thread_id: str) -> list[BaseMessage]:
        snapshot = await self.engine.graph.aget_state(self._config(user_id, thread_id))
        return list((snapshot.values or {}).get("messages") or [])

    async def messages(
        self,
        user_id: str,
        thread_id: str,
        *,
        include_internal: bool = False,
        record: ThreadRecord | None = None,
    ) -> list[dict[str, Any]]:
        """The thread's messages; internal work (routing, agent steps, tools) only if asked, marked.

        ``record``: the thread's record; its latest question is shown last while its turn runs, or
        marked interrupted if the turn never finished (neither is in the checkpoint yet).
        """
        running = self.locks.busy(thread_id)
        messages = await self._messages(user_id, thread_id)
        asked = _asked(record)
        if asked is not None and all(m.id != asked.id for m in messages):
            messages.append(asked.model_copy(update={"response_metadata": {PENDING_QUESTION_KEY: True}}))
        out = [message_view(m) for m in messages]
        flagged = [(m.response_metadata or {}).get(PENDING_QUESTION_KEY) for m in messages]
        if any(flagged) and not running:  # a turn another worker runs is not an interrupted one
            running = await self.locks.held_elsewhere(thread_id)
        for i, pending in enumerate(flagged):
            # still flagged pending: its turn never finished, unless it is the turn running now
            if pending and not (running and i == len(messages) - 1):
                out[i]["interrupted"] = True
        return out if include_internal else [m for m in out if not m["internal"]]

    async def delete(self, user_id: str, thread_id: str) -> None:
        """Delete the user's thread (checkpoints and record); waits for a running turn, else 409."""
        await self.owned(user_id, thread_id)
        lease = await self.locks.acquire(thread_id, self.settings.thread_lock_timeout)
        try:
            deleter = getattr(self.engine.checkpointer, "adelete_thread", None)
            if deleter is not None:
                await deleter(thread_key(user_id, thread_id))
            await self.store.delete(user_id, thread_id)
        finally:
            await lease.arelease()


def _title(req: TurnRequest) -> str:
    """A new thread's title: its first user message (of the seeded history, if any), as the list shows."""
    first = next((m for m in req.history if isinstance(m, HumanMessage) and message_text(m).strip()), None)
    return message_text(first) if first is not None else req.message


def _asked(record: ThreadRecord | None) -> HumanMessage | None:
    """The latest question kept in a thread's record (None if it has none)."""
    return recorded_question(record)


def message_view(msg: BaseMessage) -> dict[str, Any]:
    """A message as the API shows it: role, content, name, and whether it is internal work."""
    base: dict[str, Any] = {"content": message_text(msg), "name": msg.name}
    if isinstance(msg, HumanMessage):
        return {**base, "role": "user", "kind": "message", "internal": False}
    if isinstance(msg, AIMessage):
        calls = [{"id": c.get("id"), "name": c["name"], "args": c.get("args") or {}} for c in msg.tool_calls]
        if msg.name in FINAL_NODES and not calls:
            return {**base, "role": "assistant", "kind": "message", "internal": False}
        routing = (
            bool(calls) and all(is_control_tool(c["name"]) for c in calls) and not base["content"].strip()
        )
        return {
            **base,
            "role": "assistant",
            "kind": "routing" if routing or msg.name == GraphNodeNames.COORDINATOR else "agent",
            "internal": True,
            "tool_calls": calls or None,
        }
    if isinstance(msg, ToolMessage):
        kind = "routing" if is_control_tool(msg.name) else "tool"
        return {**base, "role": "tool", "kind": kind, "internal": True, "tool_call_id": msg.tool_call_id}
    if isinstance(msg, SystemMessage):
        return {**base, "role": "system", "kind": "agent", "internal": True}
    return {**base, "role": "assistant", "kind": "agent", "internal": True}
