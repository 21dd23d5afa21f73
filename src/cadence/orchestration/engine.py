"""The Cadence engine: plugins, models, graph and checkpointer behind one small API.

>>> engine = Cadence(model=ScriptedChatModel.from_items([...]))
>>> result = await engine.ainvoke("What is 2+2?")
>>> result.response, result.trace["routing_history"]

``astream`` yields the same turn as events (agent/tool start and end, suspend,
answer tokens, and a final event carrying the trace); the CLI and the HTTP API
are thin layers over these two calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from cadence.conventions import BACK_TOOL_NAME, FINAL_NODES, GraphNodeNames, message_text
from cadence.errors import (
    CadenceError,
    ConfigurationError,
    ConflictError,
    ModelConfigurationError,
    ModelWorkerCrashedError,
    NotFoundError,
    ValidationError,
)
from cadence.orchestration.approval import (
    Decision,
    InterruptEvent,
    PendingApproval,
    approval_interrupts,
    approval_prompt,
    check_edits,
    check_storable,
    parse_decisions,
    pending_approvals,
    unknown_forced_tools,
)
from cadence.orchestration.events import (
    ThinkFilter,
    ToolStartEvent,
    ToolStartPairing,
    error_event,
    events_from_chunk,
    final_event,
    node_event,
    tool_start_event,
)
from cadence.orchestration.graph import ModelResolver
from cadence.orchestration.inputs import validate_thread_id, validate_user_id
from cadence.orchestration.inspection import history_entries, list_threads, plan_fork
from cadence.orchestration.modes import ENTRY_NODES, check_mode, graph_builder, mode_names
from cadence.orchestration.recall import EngineMemory, open_engine_memory
from cadence.orchestration.state import PluginContextFields as F
from cadence.orchestration.state import new_plugin_context
from cadence.orchestration.synthesizer import FALLBACK_KEY, answer_pending_calls, fallback_answer, is_fallback
from cadence.orchestration.tones import ResponseTone
from cadence.orchestration.turn import ModelCallRecord, TraceRecord, TurnContext
from cadence.persistence.checkpoint_reads import ReadAheadMemorySaver, ReadAheadSaver
from cadence.persistence.threads import MemoryThreadStore, ThreadRecord, ThreadStore
from cadence.plugins.manager import PluginManager, PluginStatus
from cadence.sdk.events import emit
from cadence.sdk.metadata import PluginMetadata
from cadence.sdk.plugin import BasePlugin
from cadence.settings import Settings, get_settings
from cadence.text import valid_unicode, visible

logger = logging.getLogger(__name__)

DEADLINE_GRACE_S = 2.0
TURN_FAILURES = frozenset({"model_error", "turn_timeout", "empty_answer", "agent_error"})
"""Trace error codes that make a turn answered by the fallback a failed turn (``error`` set: HTTP 502/504)."""


@dataclass
class TurnResult:
    """The outcome of one turn: the answer, the thread and the trace."""

    response: str
    thread_id: str
    trace: dict[str, Any]
    error: dict[str, Any] | None = None
    structured: dict[str, Any] | None = field(default=None)
    interrupted: bool = False
    """The turn paused: ``approvals`` wait for a human (resume with :meth:`Cadence.aresume`)."""
    approvals: list[dict[str, Any]] = field(default_factory=list)
    """The pending approvals of a paused turn (id, thread, agent, tool, arguments, reason)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape shared by ``cadence chat --json`` and ``POST /api/v1/chat``."""
        out: dict[str, Any] = {"response": self.response, "thread_id": self.thread_id, "trace": self.trace}
        if self.error:
            out["error"] = self.error
        if self.interrupted:
            out["interrupted"] = True
            out["approvals"] = self.approvals
        return out

    @classmethod
    def from_final(cls, final: dict[str, Any]) -> TurnResult:
        """The result a ``final`` event stands for."""
        return cls(
            response=final["response"],
            thread_id=final["thread_id"],
            trace=final["trace"],
            error=final.get("error"),
            structured=(final.get("trace") or {}).get("structured"),
            interrupted=bool(final.get("interrupted")),
            approvals=list(final.get("approvals") or []),
        )


def validate_message(message: str, max_chars: int) -> None:
    """Raise ValidationError (``empty_message``, ``message_too_long``, ``invalid_text``) for an unusable
    user message: the one check of the engine, the HTTP API (JSON, SSE, WebSocket, OpenAI-compatible)
    and the CLI. A message with nothing visible (spaces, zero-width spaces, a byte-order mark, other
    format or control characters) is empty: it ran a whole turn on nothing."""
    if not isinstance(message, str) or not visible(message):
        raise ValidationError(
            "The message is empty (nothing visible in it); send the question as text.", code="empty_message"
        )
    if len(message) > max_chars:
        raise ValidationError(
            f"The message has {len(message)} characters; the limit is {max_chars}.", code="message_too_long"
        )
    if valid_unicode(message) is not message:  # e.g. bytes that were not UTF-8, read by a terminal
        raise ValidationError(
            "The message contains invalid Unicode (a lone surrogate, such as a byte that is not UTF-8); "
            "send it as UTF-8 text (check the terminal's encoding).",
            code="invalid_text",
        )


def check_async_checkpointer(checkpointer: Any) -> None:
    """Raise ConfigurationError for LangGraph's synchronous savers: the engine is async end to end,
    and their async methods only raise (the first turn failed with a raw NotImplementedError)."""
    swaps = []
    with contextlib.suppress(ImportError):
        from langgraph.checkpoint.sqlite import SqliteSaver

        swaps.append((SqliteSaver, "langgraph.checkpoint.sqlite.aio.AsyncSqliteSaver"))
    with contextlib.suppress(ImportError):
        from langgraph.checkpoint.postgres import PostgresSaver

        swaps.append((PostgresSaver, "langgraph.checkpoint.postgres.aio.AsyncPostgresSaver"))
    for sync, use in swaps:
        if isinstance(checkpointer, sync):
            raise ConfigurationError(
                f"{sync.__name__} is synchronous and Cadence runs async: pass a {use}, or let "
                "Cadence.open() open CADENCE_DATABASE_URL."
            )


def check_metadata(metadata: Any) -> None:
    """Raise ValidationError (``invalid_metadata``) unless ``metadata`` is None or a JSON object
    (text keys; text, finite numbers, booleans, null, lists and objects): the thread stores it."""
    if metadata is None:
        return
    problem = None if isinstance(metadata, Mapping) else f"an object (a dict), not {type(metadata).__name__}"
    if problem is None:
        try:
            json.dumps(metadata, allow_nan=False)
        except (TypeError, ValueError) as exc:
            problem = f"JSON (text keys, finite numbers): {exc}"
    if problem is not None:
        raise ValidationError(f"metadata must be {problem}.", code="invalid_metadata")


THREAD_KEY_SEPARATOR = "::"

PENDING_QUESTION_KEY = "cadence_pending"
"""``response_metadata`` flag of a question checkpointed before its turn ran (see ``_record_question``);
still set after the turn means the turn never finished (the process stopped mid-turn)."""


def thread_key(user_id: str, thread_id: str) -> str:
    """The checkpointer thread id: user and thread together, so users never share a thread."""
    return f"{user_id}{THREAD_KEY_SEPARATOR}{thread_id}"


@dataclass(frozen=True)
class TurnInput:
    """One turn's input, checked once by :meth:`Cadence.turn_input`."""

    message: str
    """The user's message (non-empty, at most ``CADENCE_MAX_MESSAGE_CHARS``)."""
    tone: str
    """The tone's value (``natural``, ``explanatory``, …)."""
    user_id: str
    """Who asks (``CADENCE_DEFAULT_USER`` when none was given)."""
    thread_id: str
    """The conversation (a new id when none was given)."""
    metadata: dict[str, Any] | None = None
    """Caller's metadata, kept in the state with the tone and user id."""
    mode: str | None = None
    """The orchestration mode of this turn (None: ``CADENCE_MODE``)."""
    project_id: str | None = None
    """The project whose long-term memory the turn uses (None: the user's memory without a project)."""
    agent: str | None = None
    """The agent of a ``single``-mode turn (checked; None in the other modes)."""
    pause_checked: bool = False
    """Set by a caller that holds the thread and knows it waits for no approval (a thread it just
    created, or :meth:`Cadence.ensure_not_paused` checked under its lock): the turn skips that check."""
    recorded_question_id: str | None = None
    """Set by a caller that kept the question durably itself before the turn (the server, in its
    thread record): the message's id. The turn then does not checkpoint the question before it
    runs (:meth:`Cadence.ensure_not_paused` recovers it if the turn never finishes), and writes no
    thread record of its own (the caller's write claimed the thread and counted the turn)."""
    new_thread: bool = False
    """Set when the thread id was made for this turn and nothing was written to it yet (no record or
    checkpoint can exist): the turn reads neither."""


class Cadence(EngineMemory):
    """The engine. Give it a model (tests) or let the model factory resolve models from settings.

    Built directly, it keeps its threads in memory (or in the ``checkpointer`` given);
    :meth:`Cadence.open` opens ``CADENCE_DATABASE_URL`` (SQLite, PostgreSQL) for it instead.
    Every turn, resume and fork also updates the thread's record in ``thread_store`` (owner, title,
    turns, activity: what ``GET /api/v1/threads`` lists), in memory unless one is given;
    :meth:`Cadence.open` opens the database's, so threads of ``cadence chat`` are the API's too.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        model: BaseChatModel | None = None,
        models: ModelResolver | None = None,
        checkpointer: Any = None,
        plugins: Iterable[type[BasePlugin]] = (),
        memory_store: Any = None,
        thread_store: ThreadStore | None = None,
    ) -> None:
        self.settings = settings or get_settings()
        check_async_checkpointer(checkpointer)
        self.checkpointer = checkpointer if checkpointer is not None else ReadAheadMemorySaver()
        self.thread_store: ThreadStore = thread_store if thread_store is not None else MemoryThreadStore()
        """The thread records (:mod:`cadence.persistence.threads`) every run updates."""
        # a pending question is checkpointed before the turn only where it can outlive a crash
        self._durable = not isinstance(self.checkpointer, InMemorySaver)
        self.memory = self.open_memory(memory_store)  # long-term memory (None when CADENCE_MEMORY is off)
        self._runner: asyncio.Runner | None = None
        self._runner_lock = threading.Lock()
        self._busy: set[str] = set()  # threads a turn, resume or fork runs on in this process
        if model is not None:
            if getattr(type(model), "bind_tools", None) is BaseChatModel.bind_tools:  # NotImplementedError
                raise ModelConfigurationError(
                    f"Cadence(model=...): {type(model).__name__} cannot call tools (it does not implement "
                    "bind_tools); the coordinator and the agents work through tool calls"
                )
            self._models: ModelResolver = lambda role, plugin, _m=model: _m
        elif models is not None:
            self._models = models
        else:
            from cadence.models.factory import ModelFactory

            factory = ModelFactory(self.settings)
            self._models = factory.get
        try:
            self.mode = check_mode(self.settings.mode)
        except ValidationError as exc:
            raise ConfigurationError(f"CADENCE_MODE: {exc.message}") from None
        self._graphs: dict[str, CompiledStateGraph] = {}
        self.plugin_manager = PluginManager(self.settings, extra_plugins=plugins)
        self.plugin_manager.load()
        self._skip_agents_without_their_model()
        unknown_forced_tools(self.settings, self.plugin_manager.bundles)  # a misspelt name: a warning
        if self.mode == "single":  # CADENCE_AGENT: an agent that failed to load says why
            from cadence.orchestration.modes import single

            single.check_configured_agent(
                self.settings, self.plugin_manager.bundles, single.not_loaded(self.plugin_manager.statuses)
            )
        self.graph: CompiledStateGraph = self.graph_for(self.mode)

    # -- lifecycle -------------------------------------------------------------------
    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, settings: Settings | None = None, **kwargs: Any) -> AsyncIterator[Cadence]:
        """Open the configured checkpointer (SQLite, PostgreSQL or memory) and the thread store in the
        same database (``thread_store=`` to share one already open, as the server does), and yield an
        engine."""
        from cadence.persistence import open_checkpointer
        from cadence.persistence.threads import configured_thread_store

        settings = settings or get_settings()
        async with contextlib.AsyncExitStack() as stack:
            saver = await stack.enter_async_context(
                open_checkpointer(
                    settings.resolved_database_url,
                    sqlite_synchronous=settings.sqlite_synchronous,
                    postgres_check_idle_s=settings.postgres_check_idle_s,
                    postgres_pool_size=settings.postgres_pool_size,
                )
            )
            if kwargs.get("thread_store") is None:
                kwargs["thread_store"] = await stack.enter_async_context(configured_thread_store(settings))
            memory_store = await stack.enter_async_context(open_engine_memory(settings, kwargs))
            engine = await asyncio.to_thread(
                lambda: cls(settings, checkpointer=saver, memory_store=memory_store, **kwargs)
            )
            try:
                yield engine
            finally:
                await asyncio.to_thread(stop_model_workers)

    def _skip_agents_without_their_model(self) -> None:
        skip_agents_without_their_model(self.plugin_manager, self._models)

    def _build(self, mode: str | None = None) -> CompiledStateGraph:
        builder = graph_builder(mode or self.mode)
        return builder(self.plugin_manager.bundles, self.settings, self._models, self.checkpointer)

    @property
    def modes(self) -> list[str]:
        """The orchestration modes a turn may ask for."""
        return mode_names()

    def graph_for(self, mode: str | None = None) -> CompiledStateGraph:
        """The compiled graph of ``mode`` (default ``CADENCE_MODE``), built on first use.

        Raises :class:`ValidationError` (``unknown_mode``) for a name that is not a mode.
        """
        name = check_mode(mode) if mode else self.mode
        graph = self._graphs.get(name)
        if graph is None:
            graph = self._graphs[name] = self._build(name)
        return graph

    def reload(self) -> list[PluginStatus]:
        """Rediscover plugins and rebuild the graphs; turns in flight finish on the old graph."""
        statuses = self.plugin_manager.reload()
        self._skip_agents_without_their_model()
        self._graphs = {}
        self.graph = self.graph_for(self.mode)
        return statuses

    @property
    def plugins(self) -> list[PluginMetadata]:
        """Metadata of the loaded plugins."""
        return self.plugin_manager.metadata

    @property
    def plugin_statuses(self) -> list[PluginStatus]:
        """Status of every plugin candidate (loaded, failed with reason, overridden, disabled)."""
        return self.plugin_manager.statuses

    def draw_mermaid(self, mode: str | None = None) -> str:
        """The compiled graph of ``mode`` (default ``CADENCE_MODE``) as Mermaid (subgraphs drawn)."""
        return self.graph_for(mode).get_graph(xray=1).draw_mermaid()

    # -- turns -----------------------------------------------------------------------
    def turn_input(
        self,
        message: str,
        *,
        thread_id: str | None = None,
        user_id: str | None = None,
        tone: str | None = None,
        metadata: dict[str, Any] | None = None,
        mode: str | None = None,
        agent: str | None = None,
    ) -> TurnInput:
        """Check one turn's input once: the message, the tone, the user, the thread (made if none), the mode.

        Raises :class:`ValidationError` (``empty_message``, ``message_too_long``, ``invalid_text``,
        ``invalid_value``, ``invalid_tone``, ``invalid_id``, ``id_too_long``, ``invalid_metadata``,
        ``unknown_mode``), before anything runs: the ids are checked as the HTTP API checks them
        (:mod:`cadence.orchestration.inputs`). Pass the result to :meth:`astream` to run the turn
        without checking again.
        """
        for label, value in (("message", message), ("thread_id", thread_id), ("user_id", user_id),
                             ("tone", tone), ("mode", mode), ("agent", agent)):  # fmt: skip
            if value is not None and not isinstance(value, str):
                raise ValidationError(
                    f"{label} must be text (a str), not {type(value).__name__}.", code="invalid_value"
                )
        validate_message(message, self.settings.max_message_chars)
        check_metadata(metadata)
        mode_name, agent = self.mode_and_agent(mode, agent)
        tone_value = ResponseTone.requested(tone, metadata, message).value
        user = (user_id or self.settings.default_user).strip() or self.settings.default_user
        validate_user_id(user, self.settings)
        if thread_id:
            validate_thread_id(thread_id, self.settings)
        thread = thread_id or uuid.uuid4().hex
        return TurnInput(
            message=message,
            tone=tone_value,
            user_id=user,
            thread_id=thread,
            metadata=metadata,
            mode=mode_name,
            agent=agent,
            new_thread=thread_id is None,
            pause_checked=thread_id is None,  # a thread made here waits for nothing
        )

    def mode_and_agent(self, mode: str | None, agent: str | None) -> tuple[str, str | None]:
        """The turn's mode and, in the single mode, its agent (naming an agent implies the single mode).

        Raises :class:`ValidationError` (``unknown_mode``, ``unknown_agent``, ``agent_required``,
        ``agent_needs_single_mode``).
        """
        from cadence.orchestration.modes import single

        if agent and not mode:
            mode = single.NAME
        mode_name = check_mode(mode) if mode else self.mode
        if mode_name != single.NAME:
            if agent:
                raise ValidationError(
                    f"An agent is named only in the single mode, not {mode_name!r}; drop the agent or "
                    "use the single mode.",
                    code="agent_needs_single_mode",
                )
            return mode_name, None
        return mode_name, single.resolve_agent(
            agent,
            self.plugin_manager.bundles,
            self.settings.agent,
            single.not_loaded(self.plugin_manager.statuses),
        )

    def _prepare(
        self,
        message: str | TurnInput,
        thread_id: str | None = None,
        user_id: str | None = None,
        tone: str | None = None,
        metadata: dict[str, Any] | None = None,
        mode: str | None = None,
        agent: str | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any], TurnContext, str, str, TurnInput]:
        turn = (
            message
            if isinstance(message, TurnInput)
            else self.turn_input(
                message,
                thread_id=thread_id,
                user_id=user_id,
                tone=tone,
                metadata=metadata,
                mode=mode,
                agent=agent,
            )
        )
        message, tone_value, user, thread = turn.message, turn.tone, turn.user_id, turn.thread_id
        metadata = turn.metadata
        context = TurnContext(
            settings=self.settings,
            deadline=time.monotonic() + self.settings.turn_timeout,
            user_id=user,
            thread_id=thread,
            mode=check_mode(turn.mode) if turn.mode else self.mode,
            agent=turn.agent,
        )
        state_in = {
            "messages": [HumanMessage(content=message, id=turn.recorded_question_id or str(uuid.uuid4()))],
            "agent_hops": 0,
            "tool_hops": 0,
            "current_agent": None,
            "tone": tone_value,
            "metadata": {**(metadata or {}), "tone": tone_value, "user_id": user},
            "plugin_context": new_plugin_context(),
        }
        self.attach_memory(context, turn, state_in)
        config = {
            "configurable": {"thread_id": thread_key(user, thread)},
            "recursion_limit": self.settings.graph_recursion_limit,
            "metadata": {"cadence_user": user, "cadence_thread": thread, "cadence_mode": context.mode},
        }
        return state_in, config, context, user, thread, turn

    async def ainvoke(
        self,
        message: str,
        *,
        thread_id: str | None = None,
        user_id: str | None = None,
        tone: str | None = None,
        metadata: dict[str, Any] | None = None,
        mode: str | None = None,
        agent: str | None = None,
    ) -> TurnResult:
        """Run one turn (in ``mode``, default ``CADENCE_MODE``; ``agent`` for the single mode)."""
        final: dict[str, Any] | None = None
        async for event in self.astream(
            message,
            thread_id=thread_id,
            user_id=user_id,
            tone=tone,
            metadata=metadata,
            mode=mode,
            agent=agent,
            tokens=False,
            events=False,
        ):
            if event.get("type") == "final":  # a plugin's own events may have no type
                final = event
        assert final is not None
        return TurnResult.from_final(final)

    def invoke(self, message: str, **kwargs: Any) -> TurnResult:
        """Synchronous :meth:`ainvoke` (not for use inside a running event loop: await :meth:`ainvoke`).

        Successive calls share one event loop, so provider clients that keep
        connections open (e.g. langchain-openai's) stay valid between calls; calls from
        several threads take turns on it. Raises :class:`ConfigurationError` (``use_ainvoke``)
        when called from a running event loop.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise ConfigurationError(
                "Cadence.invoke cannot run inside a running event loop; use 'await engine.ainvoke(...)'.",
                code="use_ainvoke",
            )
        with self._runner_lock:  # one loop, one caller at a time (threads would run it twice at once)
            if self._runner is None:
                self._runner = asyncio.Runner()
            return self._runner.run(self.ainvoke(message, **kwargs))

    def close(self) -> None:
        """Close the event loop used by :meth:`invoke` (if any)."""
        with self._runner_lock:
            if self._runner is not None:
                self._runner.close()
                self._runner = None

    async def astream(
        self,
        message: str | TurnInput,
        *,
        thread_id: str | None = None,
        user_id: str | None = None,
        tone: str | None = None,
        metadata: dict[str, Any] | None = None,
        mode: str | None = None,
        agent: str | None = None,
        tokens: bool = True,
        events: bool = True,
    ) -> AsyncIterator[dict[str, Any]]:
        """Run one turn, yielding events; the last event has ``type == "final"``.

        Stopping early: close the stream (``async with contextlib.aclosing(engine.astream(...))``);
        the turn is then closed at once, the thread keeping the question. A stream merely dropped
        holds its thread until Python collects it (``thread_busy`` meanwhile).

        ``events=False``: only the ``final`` event (and ``error``/``interrupt``), for a caller that
        wants the answer alone (:meth:`ainvoke`, a JSON response): the graph then runs without
        the event and token streams (LangGraph's ``values`` mode only), which costs less per step.

        ``message`` is the user's text, or a :class:`TurnInput` from :meth:`turn_input`
        (already checked; the keyword arguments are then ignored).

        Event types (typed in :mod:`cadence.orchestration.events`): ``node`` (a node
        starts working), ``agent_start``/``agent_end``, ``tool_start``/``tool_end``,
        ``suspend``, ``token`` (answer text as generated), ``interrupt`` (the turn paused for
        approvals), ``error`` and ``final`` (response, thread_id, trace; ``interrupted`` and
        ``approvals`` when paused); plugins' own ``emit`` events pass through.

        Raises :class:`ConflictError` (``approval_pending``) when the thread waits for approvals.
        """
        state_in, config, context, _user, thread, turn = self._prepare(
            message, thread_id, user_id, tone, metadata, mode, agent
        )
        question: HumanMessage = state_in["messages"][0]
        graph = self.graph_for(context.mode)
        recorded = turn.recorded_question_id is not None
        with self._claim(config, thread):
            try:
                if turn.new_thread and isinstance(self.checkpointer, ReadAheadSaver):
                    # a thread id made for this turn names no checkpoint: its first read is answered
                    # without the database (LangGraph's run, or the question's record, reads it)
                    self.checkpointer.hand_over(config["configurable"]["thread_id"], None)
                if not recorded:  # no caller recorded the turn (the server does): the turn records it
                    await self._start_recorded_turn(turn)
                elif not turn.pause_checked:
                    await self.ensure_not_paused(_user, thread)
                await self.recall_memory(state_in, context)
            except BaseException:
                self.withdraw_read(_user, thread)  # no run takes the check's read
                raise
            if self.settings.checkpoint_durability == "exit" and self._durable and not recorded:
                await self._record_question(graph, config, question)
            run = self._drive(
                graph, state_in, config, context, question=question, thread=thread, tokens=tokens,
                first_node=ENTRY_NODES[context.mode].format(agent=context.agent or ""), events=events,
            )  # fmt: skip
            try:
                async with contextlib.aclosing(run):  # a consumer closing the stream early closes the turn
                    async for event in run:
                        yield event
            finally:
                self.withdraw_read(_user, thread)

    async def _start_recorded_turn(self, turn: TurnInput) -> None:
        """Check and record a turn in :attr:`thread_store` as the server does (one read, one write).

        A paused thread is ``approval_pending``; a question the record kept that the checkpoint lacks
        (a server's turn that never finished) is put into the history first. Then one write claims the
        thread and counts the turn (:meth:`ThreadStore.start_turn`); the record keeps no question of
        this turn: the engine checkpoints it itself (:meth:`_record_question`). A thread id whose record
        is another user's is left to its owner: the engine keeps each user's threads apart
        (:func:`thread_key`), but the record, and so the API, names one user per id.
        """
        user, thread = turn.user_id, turn.thread_id
        record = None if turn.new_thread else await self.thread_store.get(thread)
        foreign = record is not None and record.user_id != user
        if not turn.pause_checked:
            await self.ensure_not_paused(user, thread, asked=None if foreign else recorded_question(record))
        if not foreign:
            await self.thread_store.start_turn(user, thread, title=turn.message, project_id=turn.project_id)

    async def _record_run(self, user: str, thread: str, *, new_turn: bool) -> None:
        """Record a resume (``new_turn=False``: it continues the paused turn) or a fork (a new turn) in
        :attr:`thread_store`: its activity time and turn count; the question the record kept is settled
        (the run sets the thread's state). A thread without a record (started before records were
        written outside the server) is left as it is."""
        await self.thread_store.settle_question(user, thread)
        await self.thread_store.touch(user, thread, turn=new_turn)

    def withdraw_read(self, user_id: str, thread_id: str) -> None:
        """Forget the read of the thread :meth:`ensure_not_paused` handed over and no run took
        (:mod:`~cadence.persistence.checkpoint_reads`): the turn ended, or never started."""
        if isinstance(self.checkpointer, ReadAheadSaver):
            self.checkpointer.withdraw(thread_key(user_id, thread_id))

    async def _drive(
        self,
        graph: CompiledStateGraph,
        graph_input: Any,
        config: dict[str, Any],
        context: TurnContext,
        *,
        question: HumanMessage,
        thread: str,
        tokens: bool,
        first_node: str,
        run_config: dict[str, Any] | None = None,
        prior_elapsed_s: float = 0.0,
        events: bool = True,
    ) -> AsyncIterator[dict[str, Any]]:
        """Run the graph on ``graph_input`` (a new turn's state, a resume ``Command``, or None to run
        from the checkpoint of ``run_config``) and yield the turn's events, ending with ``final``.

        ``config`` names the thread (errors close the turn there); ``prior_elapsed_s`` is the
        running time the turn spent before a pause (in the trace's ``duration_ms``); ``events=False``
        yields only the ``final`` event (and ``error``/``interrupt``).
        """
        # the nodes emit their events where they happen ("custom"); "messages" gives the answer's tokens;
        # without events, "values" alone (no stream writer, no callback handler on the model calls)
        tokens = tokens and events
        modes = ["values", "custom", "messages"] if tokens else ["values", "custom"] if events else ["values"]
        final_state: dict[str, Any] = {}
        error: dict[str, Any] | None = None
        started = time.monotonic()
        think = ThinkFilter()  # <think> blocks are never answer tokens, even split across chunks
        # one task: the graph runs in the caller's task, one step per pull; each pull is bounded
        # by the hard limit (a timeout around the pull only, never around a yield)
        stream = graph.astream(
            graph_input,
            run_config or config,
            context=context,
            stream_mode=modes,
            durability=self.settings.checkpoint_durability,
            subgraphs=events,  # a streamed turn shows the agent subgraphs' events (and tokens) too
        )
        remaining = context.remaining()
        hard_limit = (self.settings.turn_timeout if remaining is None else remaining) + DEADLINE_GRACE_S
        finished = False
        try:
            if events:  # in the try: a consumer stopping at this first event closes the turn too
                yield node_event(first_node)
            while True:
                remaining = hard_limit - (time.monotonic() - started)
                scope = asyncio.timeout(max(remaining, 0.01))
                try:
                    async with scope:
                        item = await anext(stream)
                    namespace, mode, chunk = item if len(item) == 3 else ((), *item)
                except StopAsyncIteration:
                    finished = True
                    break
                except Exception as exc:
                    finished = True
                    with contextlib.suppress(BaseException):
                        await stream.aclose()
                    if isinstance(exc, TimeoutError) and scope.expired():
                        error = {
                            "code": "turn_timeout",
                            "message": "The turn exceeded its deadline and was stopped.",
                        }
                        await self._close_turn_after_error(
                            graph, config, "the time allowed for this answer ran out", question=question
                        )
                        break
                    logger.error("turn failed", extra={"error": f"{type(exc).__name__}: {exc}"}, exc_info=exc)
                    error = {
                        "code": getattr(exc, "code", "internal_error"),
                        "message": exc.message
                        if isinstance(exc, CadenceError)
                        else f"{type(exc).__name__}: {exc}",
                    }
                    await self._close_turn_after_error(graph, config, error["message"], question=question)
                    break
                if mode == "values" and isinstance(chunk, dict):
                    if not namespace:  # a subgraph's values are its own state, not the turn's
                        final_state = chunk
                    continue
                for event in events_from_chunk(mode, chunk, subgraph=bool(namespace), think=think):
                    yield event
        finally:
            if not finished:
                # the consumer stopped early: stop the turn and leave the thread with a valid history
                with contextlib.suppress(BaseException):
                    await stream.aclose()
                with contextlib.suppress(BaseException):
                    await asyncio.shield(
                        self._close_turn_after_error(
                            graph, config, "the request was cancelled", question=question
                        )
                    )
        approvals: list[PendingApproval] = []
        if error is None and final_state.get("__interrupt__"):  # the turn paused for approvals
            approvals = pending_approvals(_Paused(final_state["__interrupt__"]), thread)
        if error is not None or not final_state:
            snapshot = await graph.aget_state(config)
            final_state = dict(snapshot.values or {})
        response = approval_prompt(approvals) if approvals else self._final_text(final_state)
        if error is None and context.trace.errors:
            model_errors = [e for e in context.trace.errors if e.get("code") in TURN_FAILURES]
            if model_errors and is_fallback(self._final_message(final_state)):
                error = {"code": model_errors[-1]["code"], "message": model_errors[-1]["message"]}
            crashed = [e for e in context.trace.errors if e.get("code") == ModelWorkerCrashedError.code]
            if error is None and crashed:  # the answer was written without part of the turn's work
                error = {"code": crashed[-1]["code"], "message": crashed[-1]["message"]}
        remembered = await self.memory_after_turn(final_state, context, error, paused=bool(approvals))
        trace = self._trace(final_state, context, started - prior_elapsed_s)  # after memory: its errors too
        trace.update(remembered)  # type: ignore[typeddict-item]
        trace["interrupted"] = bool(approvals)  # type: ignore[typeddict-unknown-key]
        trace["approvals"] = [  # type: ignore[typeddict-unknown-key]
            *((final_state.get("plugin_context") or {}).get(F.APPROVALS) or []),
            *({**a, "decision": "pending"} for a in approvals),
        ]
        if error is not None:
            yield error_event(error)
        if approvals:
            yield InterruptEvent(type="interrupt", approvals=approvals)
            yield {**final_event(response, thread, trace, error), "interrupted": True, "approvals": approvals}
            return
        yield final_event(response, thread, trace, error)

    # -- results -------------------------------------------------------------------------
    @staticmethod
    def _final_message(state: dict[str, Any]) -> AIMessage | None:
        """The latest turn's final answer (None if the turn has none)."""
        for msg in reversed(state.get("messages") or []):
            if isinstance(msg, AIMessage) and msg.name in FINAL_NODES:
                return msg
            if isinstance(msg, HumanMessage):
                break
        return None

    @classmethod
    def _final_text(cls, state: dict[str, Any]) -> str:
        final = cls._final_message(state)
        return message_text(final) if final is not None else ""

    def _trace(self, state: dict[str, Any], context: TurnContext, started: float) -> TraceRecord:
        ctx = state.get("plugin_context") or {}
        reason = ctx.get(F.SUSPEND_REASON)
        return TraceRecord(
            routing_history=list(ctx.get(F.ROUTING_HISTORY) or []),
            agent_hops=int(state.get("agent_hops") or 0),
            tool_hops=int(state.get("tool_hops") or 0),
            tools_used=list(ctx.get(F.TOOLS_USED) or []),
            suspended=bool(reason),
            suspend_reason=(reason or {}).get("code"),
            suspend_details=reason,
            model_calls=[c.to_dict() for c in context.trace.model_calls],
            usage=context.trace.usage(),
            duration_ms=round((time.monotonic() - started) * 1000, 2),
            tone=state.get("tone") or "natural",
            mode=context.mode,
            structured=context.trace.structured,
            errors=list(context.trace.errors),
            notes=[*context.trace.notes, *list(ctx.get(F.NOTES) or [])],
            validation=[r.to_dict() for r in context.trace.validation],
            answered_by=getattr(self._final_message(state), "name", None),
        )

    @staticmethod
    async def _record_question(
        graph: CompiledStateGraph, config: dict[str, Any], question: HumanMessage
    ) -> None:
        """Checkpoint the question, flagged pending, before the turn runs.

        With durability ``exit`` LangGraph writes once, when the turn ends; a crash mid-turn
        would lose the question. Not with an in-memory checkpointer (a crash loses the whole
        thread there; the write would cost a checkpoint per turn for nothing). The turn's own
        input carries the same message id, so the final checkpoint replaces the flagged copy; a
        crash leaves it flagged (interrupted).
        """
        pending = question.model_copy(update={"response_metadata": {PENDING_QUESTION_KEY: True}})
        await graph.aupdate_state(config, {"messages": [pending]}, as_node=answer_writer(graph))

    async def _close_turn_after_error(
        self, graph: CompiledStateGraph, config: dict[str, Any], problem: str, *, question: HumanMessage
    ) -> None:
        """Leave the thread with a valid history, the question and a final answer after an aborted turn."""
        try:
            snapshot = await graph.aget_state(config)
            messages: list[BaseMessage] = list((snapshot.values or {}).get("messages") or [])
            last_human = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
            recorded = last_human is not None and last_human.id == question.id
            if recorded and self._final_text(snapshot.values or {}):
                return
            # a recorded question is replaced in place (same id: no longer pending), else appended
            pending = answer_pending_calls(messages, f"Not executed: {problem}.") if recorded else []
            # results of the step the stop cut short are in the state's view but not yet in the
            # checkpoint (a step's writes land when the step ends): written again, or the update drops them
            ran = _trailing_results(messages) if recorded else []
            answer = AIMessage(
                content=fallback_answer([*messages, *([] if recorded else [question]), *pending], problem),
                name=GraphNodeNames.SYNTHESIZER,
                response_metadata={FALLBACK_KEY: True},
            )
            await graph.aupdate_state(
                config, {"messages": [question, *ran, *pending, answer]}, as_node=answer_writer(graph)
            )
        except Exception:
            logger.exception("could not close the aborted turn")

    # -- human in the loop: pauses, history, time travel ------------------------------------------
    def _thread_config(self, user_id: str | None, thread_id: str) -> tuple[str, dict[str, Any]]:
        """The user and the run config of a thread; ValidationError for ids the API would refuse."""
        user = (user_id or self.settings.default_user).strip() or self.settings.default_user
        validate_user_id(user, self.settings)
        if thread_id:  # "" stands for the user's threads (:meth:`threads`)
            validate_thread_id(thread_id, self.settings)
        return user, {
            "configurable": {"thread_id": thread_key(user, thread_id)},
            "recursion_limit": self.settings.graph_recursion_limit,
            "metadata": {"cadence_user": user, "cadence_thread": thread_id},
        }

    async def thread_graph(self, config: dict[str, Any]) -> CompiledStateGraph:
        """The graph of the mode the thread's latest checkpoint ran in (default mode if unknown):
        its state is read with the nodes that wrote it."""
        saved = await self.checkpointer.aget_tuple(
            {"configurable": {"checkpoint_ns": "", **config["configurable"]}}
        )
        mode = ((saved.metadata or {}) if saved is not None else {}).get("cadence_mode")
        return self.graph_for(mode) if mode in self.modes else self.graph

    async def ensure_not_paused(
        self, user_id: str, thread_id: str, *, asked: HumanMessage | None = None
    ) -> None:
        """Raise :class:`ConflictError` (``approval_pending``) when the thread waits for approvals.

        A paused turn must be decided (resume) before the thread takes a new message: the agent's
        calls are still unanswered. One checkpoint read; the state is read only when the latest
        checkpoint has pending writes (a finished turn's has none). The read is handed over to the
        turn's run, which then does not read the checkpoint again (a checkpointer Cadence opened,
        :mod:`~cadence.persistence.checkpoint_reads`); :meth:`withdraw_read` forgets it.

        ``asked``: the thread's latest question as its caller kept it (the server's thread record,
        :attr:`TurnInput.recorded_question_id`). If the checkpoint lacks it, that turn never
        finished: the question is checkpointed now, flagged pending like :meth:`astream` does, so
        the history keeps it in its place.
        """
        key = thread_key(user_id, thread_id)
        config = {"configurable": {"thread_id": key, "checkpoint_ns": ""}}
        reads_ahead = isinstance(self.checkpointer, ReadAheadSaver)
        if reads_ahead:
            self.checkpointer.withdraw(key)  # this check reads the database itself
        saved = await self.checkpointer.aget_tuple(config)
        if asked is not None and not _holds(saved, asked.id):
            await self._record_question(await self.thread_graph(config), config, asked)
            return  # a turn that never finished left no pause behind
        paused = saved is not None and bool(saved.pending_writes)
        if paused and approval_interrupts(await (await self.thread_graph(config)).aget_state(config)):
            raise ConflictError(
                f"Thread {thread_id!r} is waiting for approval of a tool call; decide it first "
                "(POST /api/v1/threads/{id}/resume, or reply approve / reject in cadence chat).",
                code="approval_pending",
            )
        if reads_ahead:  # the turn's run starts from this checkpoint: it need not read it again
            self.checkpointer.hand_over(key, saved)

    async def pending(self, *, thread_id: str, user_id: str | None = None) -> list[PendingApproval]:
        """The approvals the thread waits for (empty when it is not paused)."""
        _, config = self._thread_config(user_id, thread_id)
        snapshot = await (await self.thread_graph(config)).aget_state(config)
        return pending_approvals(snapshot, thread_id)

    async def resume_stream(
        self,
        decisions: Mapping[str, Any] | str,
        *,
        thread_id: str,
        user_id: str | None = None,
        tokens: bool = True,
        record_thread: bool = True,
    ) -> AsyncIterator[dict[str, Any]]:
        """Continue a paused turn with the human's decisions; yields the turn's events like :meth:`astream`.

        ``decisions``: ``{call_id: "approve" | {"decision": "reject", "message": ...} |
        {"decision": "edit", "arguments": {...}}}`` for every pending call, or one decision for all.
        The continued turn gets what is left of ``CADENCE_TURN_TIMEOUT`` (the time spent waiting
        for the human does not count), at least the final answer's reserve; its trace covers the
        whole turn (model calls, tools and decisions before and after the pause).

        Raises :class:`ConflictError` (``not_paused``) when the thread waits for nothing, and
        :class:`ValidationError` (``invalid_decision``) for missing, unknown or malformed decisions.
        ``record_thread=False``: the caller records the run in its thread store itself (the server).
        """
        user, config = self._thread_config(user_id, thread_id)
        run = self._resume(decisions, user, thread_id, config, tokens, record_thread)
        with self._claim(config, thread_id):  # two resumes at once would both run the approved calls
            async with contextlib.aclosing(run):
                async for event in run:
                    yield event

    @contextlib.contextmanager
    def _claim(self, config: dict[str, Any], thread_id: str) -> Iterator[None]:
        """Hold the thread for one run (a turn, a resume, a fork) in this process; ConflictError
        (``thread_busy``) if one runs on it already: both would write the thread, and one run's
        messages would be lost. (The server serializes runs across processes with its locks.)"""
        key = config["configurable"]["thread_id"]
        if key in self._busy:
            raise ConflictError(
                f"Thread {thread_id!r} is busy with another run; wait for it to finish (close an astream "
                "you stop early with contextlib.aclosing, or it holds the thread until collected).",
                code="thread_busy",
            )
        self._busy.add(key)
        try:
            yield
        finally:
            self._busy.discard(key)

    async def _resume(
        self,
        decisions: Mapping[str, Any] | str,
        user: str,
        thread_id: str,
        config: dict[str, Any],
        tokens: bool,
        record_thread: bool = True,
    ) -> AsyncIterator[dict[str, Any]]:
        snapshot = await (await self.thread_graph(config)).aget_state(config)
        paused = approval_interrupts(snapshot)
        if not paused:
            raise ConflictError(
                f"Thread {thread_id!r} is not waiting for approval; there is nothing to resume.",
                code="not_paused",
            )
        pending = [a for item in paused for a in item.value.get("approvals") or []]
        chosen = parse_decisions(decisions, pending)
        check_storable(chosen, getattr(self.checkpointer, "serde", None))  # before anything resumes
        check_edits(chosen, pending, self.plugin_manager.bundles)
        resume = {
            item.id: {a["id"]: chosen[a["id"]].to_dict() for a in item.value.get("approvals") or []}
            for item in paused
        }
        payload = paused[0].value
        turn = payload.get("turn") or {}
        mode = payload.get("mode") or (snapshot.metadata or {}).get("cadence_mode") or self.mode
        graph = self.graph_for(mode)
        elapsed = float(turn.get("elapsed_s") or 0.0)
        budget = max(self.settings.turn_timeout - elapsed, min(5.0, 0.25 * self.settings.turn_timeout))
        context = TurnContext(
            settings=self.settings,
            deadline=time.monotonic() + budget,
            user_id=user,
            thread_id=thread_id,
            mode=mode,
        )
        context.trace.model_calls.extend(ModelCallRecord(**c) for c in turn.get("model_calls") or [])
        context.trace.errors.extend(turn.get("errors") or [])
        context.trace.notes.extend(turn.get("notes") or [])
        context.paused_approvals.extend(pending)
        config["metadata"]["cadence_mode"] = mode
        if record_thread:
            await self._record_run(user, thread_id, new_turn=False)  # a decided pause continues its turn
        logger.info("resuming a paused turn", extra={"thread": thread_id, "decisions": len(chosen)})
        run = self._drive(
            graph, Command(resume=resume), config, context, question=_last_question(snapshot.values),
            thread=thread_id, tokens=tokens, first_node=(snapshot.next or (ENTRY_NODES[mode],))[0],
            prior_elapsed_s=elapsed,
        )  # fmt: skip
        # the paused step's calls run now: their tool_start went in the paused turn's stream, so this
        # stream sends them again (before the step runs), with the arguments that run
        starts = resumed_tool_starts(
            await self._paused_messages(graph, config, snapshot, pending), pending, chosen
        )
        pairing = ToolStartPairing({str(start["id"]): start for start in starts})
        first = True
        async with contextlib.aclosing(run):
            async for event in run:
                for out in pairing.pair(event):
                    yield out
                if first:
                    first = False
                    for start in pairing.announce(starts):
                        yield start

    @staticmethod
    async def _paused_messages(
        graph: CompiledStateGraph, config: dict[str, Any], snapshot: Any, pending: Sequence[Mapping[str, Any]]
    ) -> list[BaseMessage]:
        """The messages holding the paused calls: the thread's, or those of the agent's subgraph the pause
        is in (the supervisor mode's agents; read only then)."""
        messages = list((snapshot.values or {}).get("messages") or [])
        ids = {str(a.get("id")) for a in pending}
        if any(
            isinstance(m, AIMessage) and any(str(c.get("id")) in ids for c in m.tool_calls) for m in messages
        ):
            return messages
        found: list[BaseMessage] = []
        stack = list((await graph.aget_state(config, subgraphs=True)).tasks or ())
        while stack:
            task = stack.pop()
            state = getattr(task, "state", None)
            if hasattr(state, "values"):
                found.extend((state.values or {}).get("messages") or [])
                stack.extend(getattr(state, "tasks", None) or ())
        return found or messages

    async def aresume(
        self, decisions: Mapping[str, Any] | str, *, thread_id: str, user_id: str | None = None
    ) -> TurnResult:
        """Continue a paused turn (see :meth:`resume_stream`) and return its result."""
        final: dict[str, Any] | None = None
        async for event in self.resume_stream(decisions, thread_id=thread_id, user_id=user_id, tokens=False):
            if event.get("type") == "final":  # a plugin's own events may have no type
                final = event
        assert final is not None
        return TurnResult.from_final(final)

    async def history(
        self, *, thread_id: str, user_id: str | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """The thread's checkpoints, newest first (at most ``limit``, default
        ``CADENCE_HISTORY_MAX_CHECKPOINTS``): see :func:`cadence.orchestration.inspection.history_entries`.

        With ``CADENCE_CHECKPOINT_DURABILITY=exit`` (the default) a thread keeps one checkpoint per
        turn and one per pause; ``async`` or ``sync`` keep one per step (every node).
        Raises :class:`NotFoundError` for a thread without checkpoints.
        """
        _, config = self._thread_config(user_id, thread_id)
        cap = min(limit or self.settings.history_max_checkpoints, self.settings.history_max_checkpoints)
        graph = await self.thread_graph(config)
        snapshots = [s async for s in graph.aget_state_history(config, limit=cap + 1)]
        if not snapshots:
            raise NotFoundError(f"No thread {thread_id!r} for this user.", code="thread_not_found")
        return history_entries(snapshots, cap)

    async def fork_stream(
        self,
        checkpoint_id: str,
        *,
        thread_id: str,
        user_id: str | None = None,
        route: str | None = None,
        tool_results: Mapping[str, str] | None = None,
        tokens: bool = True,
        record_thread: bool = True,
    ) -> AsyncIterator[dict[str, Any]]:
        """Time travel: run the thread again from ``checkpoint_id``, with optional edits; yields events.

        - ``route``: force the next decision: an agent's name, or ``finalize``. The checkpoint must
          be one where the deciding node (coordinator/supervisor) runs next, or the one right after
          its decision (then the decision is replaced). The guards are not asked (a human decided);
          the trace's notes say so.
        - ``tool_results``: ``{tool_call_id: new result text}`` replaces results already in the
          checkpoint (the agent and the synthesizer see the new text).

        The branch continues the same thread (LangGraph's fork: a new checkpoint whose parent is
        ``checkpoint_id``); the thread's current state is the branch's. The run gets a full
        ``CADENCE_TURN_TIMEOUT``. Raises :class:`NotFoundError` (unknown thread or checkpoint),
        :class:`ValidationError` (``invalid_fork``: nothing to run, unknown agent or call id).
        The fork counts as a turn of the thread (``record_thread=False``: the caller records it).
        """
        user, config = self._thread_config(user_id, thread_id)
        run = self._fork(user, config, thread_id, checkpoint_id, route, tool_results, tokens, record_thread)
        with self._claim(config, thread_id):
            async with contextlib.aclosing(run):  # a consumer closing the stream early closes the run
                async for event in run:
                    yield event

    async def _fork(
        self,
        user: str,
        config: dict[str, Any],
        thread_id: str,
        checkpoint_id: str,
        route: str | None,
        tool_results: Mapping[str, str] | None,
        tokens: bool,
        record_thread: bool = True,
    ) -> AsyncIterator[dict[str, Any]]:
        plan = await plan_fork(self, config, checkpoint_id, route=route, tool_results=tool_results)
        if record_thread:
            await self._record_run(user, thread_id, new_turn=True)
        graph = self.graph_for(plan.mode)
        run_config = plan.config
        if plan.update is not None:
            run_config = await graph.aupdate_state(plan.config, plan.update, as_node=plan.as_node)
        context = TurnContext(
            settings=self.settings,
            deadline=time.monotonic() + self.settings.turn_timeout,
            user_id=user,
            thread_id=thread_id,
            mode=plan.mode,
        )
        context.trace.notes.extend(plan.notes)
        run_config = {**config, "configurable": {**config["configurable"], **run_config["configurable"]}}
        run_config["metadata"] = {**config["metadata"], "cadence_mode": plan.mode}
        logger.info("forking a thread", extra={"thread": thread_id, "checkpoint": checkpoint_id})
        run = self._drive(
            graph, None, config, context, question=plan.question, thread=thread_id, tokens=tokens,
            first_node=plan.first_node, run_config=run_config,
        )  # fmt: skip
        pairing = ToolStartPairing(plan.tool_calls)  # a fork from before a tools step runs its calls again
        async with contextlib.aclosing(run):
            async for event in run:
                for out in pairing.pair(event):
                    yield out

    async def threads(self, *, user_id: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """The user's threads, newest first: their records in :attr:`thread_store` and the threads found
        in the checkpoints (see :func:`cadence.orchestration.inspection.list_threads`)."""
        user, _ = self._thread_config(user_id, "")
        return await list_threads(self, user, limit, key_prefix=thread_key(user, ""))

    async def afork(self, checkpoint_id: str, *, thread_id: str, **kwargs: Any) -> TurnResult:
        """Run a fork (see :meth:`fork_stream`) and return the branch's result."""
        final: dict[str, Any] | None = None
        async for event in self.fork_stream(checkpoint_id, thread_id=thread_id, tokens=False, **kwargs):
            if event.get("type") == "final":  # a plugin's own events may have no type
                final = event
        assert final is not None
        return TurnResult.from_final(final)


@dataclass(frozen=True)
class _Paused:
    """The interrupts of a stream's last values, shaped like a ``StateSnapshot`` for the readers."""

    interrupts: Any


def _trailing_results(messages: Sequence[BaseMessage]) -> list[ToolMessage]:
    """The tool results that end ``messages`` (those of the last AI message's calls)."""
    ran: list[ToolMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        ran.append(message)
    return ran[::-1]


def _last_question(values: Mapping[str, Any] | None) -> HumanMessage:
    """The latest user message of a state (the question of the turn a resume or fork continues)."""
    messages = (values or {}).get("messages") or []
    found = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
    return found if found is not None else HumanMessage(content="", id=str(uuid.uuid4()))


def resumed_tool_starts(
    messages: Sequence[BaseMessage], pending: Sequence[Mapping[str, Any]], chosen: Mapping[str, Any]
) -> list[ToolStartEvent]:
    """The ``tool_start`` events of the calls a decided pause runs (or answers, if rejected): every
    call of the paused agent message (the latest of ``messages`` with a pending call) without a result
    yet, with the edited arguments of an edit; the pending calls alone if ``messages`` lack it."""
    by_id = {str(a.get("id")): a for a in pending}
    if not by_id:
        return []
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    paused = next(
        (
            m
            for m in reversed(messages)
            if isinstance(m, AIMessage) and any(str(c.get("id")) in by_id for c in m.tool_calls)
        ),
        None,
    )
    calls: list[Mapping[str, Any]] = (
        list(paused.tool_calls)
        if paused is not None
        else [{"name": a.get("tool"), "args": a.get("arguments") or {}, "id": a.get("id")} for a in pending]
    )
    agent = str(next(iter(by_id.values())).get("agent") or "")
    starts: list[ToolStartEvent] = []
    for call in calls:
        call_id = str(call.get("id") or "")
        if call_id in answered or call.get("name") == BACK_TOOL_NAME:
            continue
        decision = chosen.get(call_id)
        edited = getattr(decision, "decision", None) == Decision.EDIT
        args = decision.arguments if edited else call.get("args")
        owner = str(by_id.get(call_id, {}).get("agent") or agent)
        starts.append(tool_start_event(owner, {**call, "args": args or {}}))
    return starts


def recorded_question(record: ThreadRecord | None) -> HumanMessage | None:
    """The latest question a thread's record kept (:attr:`ThreadRecord.question`), or None."""
    if record is None or record.question_id is None or record.question is None:
        return None
    return HumanMessage(content=record.question, id=record.question_id)


def _holds(saved: Any, message_id: str | None) -> bool:
    """Whether the checkpoint tuple ``saved`` (or None) holds a message with id ``message_id``."""
    if saved is None:
        return False
    messages = (saved.checkpoint.get("channel_values") or {}).get("messages") or []
    return any(getattr(m, "id", None) == message_id for m in messages)


def load_plugins(settings: Settings) -> PluginManager:
    """The plugins loaded as an engine loads them, without building its graphs (``cadence plugins list``):
    an agent whose own model cannot be built is skipped the same way."""
    from cadence.models.factory import ModelFactory

    manager = PluginManager(settings)
    manager.load()
    skip_agents_without_their_model(manager, ModelFactory(settings).get)
    return manager


def skip_agents_without_their_model(manager: PluginManager, models: ModelResolver) -> None:
    """Skip every loaded plugin that names a model of its own (``llm_requirements.model``, a Markdown
    agent's ``model:``) that cannot be built (unknown provider, missing key or package), with the
    reason in its status; the other agents keep working. The configured model's own errors still
    stop the engine, since every agent needs it."""
    for name, bundle in list(manager.bundles.items()):
        wanted = bundle.metadata.llm_requirements
        if wanted is None or not wanted.model:
            continue
        try:
            models("agent", bundle.metadata)
        except CadenceError as exc:
            manager.fail(name, f"its model {wanted.model!r} cannot be used: {exc.message}")


def answer_writer(graph: CompiledStateGraph) -> str:
    """The node the engine writes a final answer as (``synthesizer``; ``root`` in the planner mode;
    ``forward`` in the single mode)."""
    for node in (GraphNodeNames.SYNTHESIZER, GraphNodeNames.ROOT):
        if node in graph.nodes:
            return node
    return GraphNodeNames.FORWARD


def stop_model_workers() -> None:
    """Stop the embedded model's worker processes, if any were started (engine shutdown)."""
    worker = sys.modules.get("cadence.models.local.worker")
    if worker is not None:
        worker.shutdown_workers()


__all__ = [
    "PENDING_QUESTION_KEY",
    "Cadence",
    "TurnInput",
    "TurnResult",
    "emit",
    "thread_key",
    "validate_message",
]
