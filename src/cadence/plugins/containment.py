"""Fault containment for plugin code: bounded threads per plugin and no escaping ``BaseException``.

A plugin's tools are someone else's code running inside the server. Two things
must never happen because of them:

- **Process-level exceptions escaping.** ``SystemExit``, ``KeyboardInterrupt`` and
  other ``BaseException`` subclasses raised by a tool would otherwise stop the
  event loop (asyncio re-raises ``SystemExit``/``KeyboardInterrupt`` out of the
  task that raised them). :func:`contain_tools` wraps every ``@tool`` so such an
  exception becomes a :class:`~cadence.errors.ToolExecutionError` inside the tool's
  own task; :func:`plugin_fault` is the one conversion. Task cancellation
  (``asyncio.CancelledError`` while the task is being cancelled) and the closing of the
  awaiting coroutine (:func:`is_real_close`) are never caught; a ``GeneratorExit`` the tool
  raises itself is a fault like the others.
- **Hung synchronous tools starving everyone.** Synchronous tools run in their
  plugin's :class:`PluginThreadPool` (``CADENCE_PLUGIN_MAX_THREADS`` daemon threads),
  never in the event loop's shared default executor. A tool that never returns
  holds one of its own plugin's threads; when the tool timeout abandons it, the
  thread is counted as *stuck*. Once every thread of a plugin is stuck, its calls
  fail at once with a clear error and ``/ready`` reports the plugin as degraded;
  other plugins, the models and the server are unaffected. Daemon threads never
  keep the process from exiting. A tool declared quick (:func:`cadence.sdk.inline`)
  skips the thread hand-over and runs on the event loop, until two of its calls
  take longer than ``CADENCE_INLINE_TOOL_MAX_MS``; then it runs in the threads too.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import gc
import inspect
import json
import logging
import queue
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_type_hints

import pydantic
from langchain_core.callbacks import AsyncCallbackManagerForToolRun
from langchain_core.messages.tool import ToolOutputMixin
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool, Tool, ToolException
from langgraph.errors import GraphBubbleUp

from cadence.errors import TOOL_ERROR_PREFIX, CadenceError, ToolExecutionError
from cadence.sdk.quick import is_inline

logger = logging.getLogger(__name__)


def is_real_cancellation(exc: BaseException) -> bool:
    """Whether ``exc`` is the cancellation of the running task (which must propagate).

    A ``CancelledError`` that a tool raised by itself, with nobody cancelling the
    current task, is a fault of the tool like any other.
    """
    if not isinstance(exc, asyncio.CancelledError):
        return False
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return True
    return task is None or task.cancelling() > 0


def is_real_close(exc: BaseException) -> bool:
    """Whether ``exc`` is the ``GeneratorExit`` of the awaiting coroutine being closed (which must propagate).

    ``close()`` first closes the coroutine being awaited, then raises a new ``GeneratorExit`` at the
    awaiting frame's ``await``: its traceback is that one frame. A ``GeneratorExit`` a tool raised comes
    up through the tool's frames (a synchronous tool's, through its thread's future), so it is a fault
    of the tool. Call this in the frame that awaited the tool.
    """
    if not isinstance(exc, GeneratorExit):
        return False
    return exc.__traceback__ is None or exc.__traceback__.tb_next is None


class ToolCrashedError(ToolExecutionError, RuntimeError):
    """A tool raised a process-level exception (``SystemExit``, ``GeneratorExit``, …): its call failed."""

    code = "tool_crashed"


def plugin_fault(exc: BaseException, *, plugin: str, tool: str) -> ToolCrashedError:
    """The error a tool's process-level exception (``SystemExit``, ``KeyboardInterrupt``, …) becomes."""
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    logger.error(
        "plugin tool raised a process-level exception; contained",
        extra={"plugin": plugin, "tool": tool, "error": detail},
    )
    return ToolCrashedError(
        f"Error: the tool {tool} of the {plugin} plugin crashed ({detail}); this is a bug in the plugin. "
        "Try a different approach or answer without this tool."
    )


UNCARRIED: tuple[type[BaseException], ...] = (GeneratorExit, StopIteration)
"""What a synchronous tool may raise that must not reach the awaiting task as it is.

The task receives a future's exception by ``throw()``: a ``GeneratorExit`` would close every coroutine
between the task and the tool (the containment included) instead of rising through them. An asyncio
future refuses a ``StopIteration``: it would never complete and the call would end at the tool timeout.
"""


IDLE_THREAD_SECONDS = 60.0
"""An idle worker thread exits after this long (threads are started again on demand)."""


class PluginSaturatedError(ToolExecutionError):
    """Every thread of a plugin is held by a tool call that timed out and never returned."""

    code = "plugin_saturated"


@dataclass(frozen=True)
class PoolStats:
    """A snapshot of a plugin's thread pool."""

    max_threads: int
    busy: int
    stuck: int
    queued: int

    @property
    def saturated(self) -> bool:
        """All threads are held by calls abandoned after their timeout: new calls fail at once."""
        return self.stuck >= self.max_threads

    def describe(self) -> str:
        """One line for ``/ready``."""
        return (
            f"{self.busy}/{self.max_threads} threads busy, {self.stuck} held by tool calls "
            "that timed out and never returned"
        )


class PluginThreadPool:
    """A bounded pool of daemon threads for one plugin's synchronous tools.

    Unlike ``concurrent.futures.ThreadPoolExecutor`` its threads are daemons, so a
    tool that never returns cannot hold up the process at exit; idle threads exit
    after :data:`IDLE_THREAD_SECONDS`.
    """

    def __init__(self, plugin: str, max_threads: int) -> None:
        if max_threads < 1:
            raise ValueError("max_threads must be at least 1")
        self.plugin = plugin
        self.max_threads = max_threads
        self._queue: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any], str]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0
        self._running: set[Future[Any]] = set()
        self._queued = 0
        self._stuck: set[Future[Any]] = set()

    def stats(self) -> PoolStats:
        """Current load of the pool."""
        with self._lock:
            return PoolStats(self.max_threads, len(self._running), len(self._stuck), self._queued)

    def submit(self, fn: Callable[[], Any], *, tool: str = "?") -> Future[Any]:
        """Queue ``fn`` (no arguments) and return its future; starts a thread if none is free for it.

        What ``fn`` raises is the future's exception, except :data:`UNCARRIED` ones, which become a
        :class:`ToolCrashedError` naming ``tool``.
        """
        future: Future[Any] = Future()
        with self._lock:
            self._queued += 1
            self._queue.put((future, fn, tool))
            if self._queued > self._idle and self._threads < self.max_threads:
                self._threads += 1
                threading.Thread(
                    target=self._worker, name=f"cadence-plugin-{self.plugin}-{self._threads}", daemon=True
                ).start()
        return future

    def _worker(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            try:
                future, fn, tool = self._queue.get(timeout=IDLE_THREAD_SECONDS)
            except queue.Empty:
                with self._lock:
                    self._idle -= 1
                    if self._queue.empty():
                        self._threads -= 1
                        return
                continue
            with self._lock:
                self._idle -= 1
                self._queued -= 1
                if not future.set_running_or_notify_cancel():
                    continue
                self._running.add(future)
            error: BaseException | None = None
            result: Any = None
            try:
                result = fn()
            except UNCARRIED as exc:
                error = plugin_fault(exc, plugin=self.plugin, tool=tool)
                error.__cause__ = exc
            except BaseException as exc:  # handed to the awaiting task, which contains it
                error = exc
            with self._lock:  # the counts are right before the awaiting task resumes
                self._running.discard(future)
                self._stuck.discard(future)
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)
            del future, fn, error

    async def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run ``fn(*args, **kwargs)`` in a pool thread (with the caller's context) and await it.

        If the awaiting task is cancelled (tool timeout, turn deadline) while the call
        runs, the thread is abandoned and counted as stuck until it returns.
        Raises :class:`PluginSaturatedError` at once when every thread is stuck.
        """
        stats = self.stats()
        if stats.saturated:
            raise PluginSaturatedError(
                f"Error: the {self.plugin} plugin is saturated: all {self.max_threads} of its threads are "
                "held by earlier tool calls that timed out and never returned. Answer without this plugin's "
                "tools; the operator should fix the plugin or raise CADENCE_PLUGIN_MAX_THREADS.",
            )
        context = contextvars.copy_context()
        owner = getattr(fn, "__self__", None)  # a BaseTool's invoke (_PoolBoundTool)
        tool = owner.name if isinstance(owner, BaseTool) else getattr(fn, "__name__", "?")
        future = self.submit(functools.partial(context.run, fn, *args, **kwargs), tool=tool)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            if not future.cancel():  # already running: the thread cannot be stopped
                with self._lock:
                    if future in self._running:
                        self._stuck.add(future)
            raise


def runs_in_thread(tool: BaseTool) -> bool:
    """Whether LangChain would run ``tool`` in a worker thread (it has no coroutine of its own)."""
    if isinstance(tool, StructuredTool | Tool):
        return tool.coroutine is None and tool.func is not None
    return type(tool)._arun is BaseTool._arun


def _resolve_annotations(wrapper: Callable[..., Any], wrapped: Callable[..., Any]) -> None:
    """Give ``wrapper`` the evaluated annotations of ``wrapped`` (once, at wrap time).

    LangChain reads a tool coroutine's type hints on every call; string annotations (``from
    __future__ import annotations``) would be compiled and evaluated each time. Unresolvable ones
    stay as they are.
    """
    try:
        wrapper.__annotations__ = get_type_hints(wrapped, include_extras=True)
    except Exception:  # a forward reference LangChain cannot resolve either
        return


_TOOL_TASKS: contextvars.ContextVar[list[asyncio.Task[Any]] | None] = contextvars.ContextVar(
    "cadence_tool_tasks", default=None
)
"""Where the tasks running a plugin's tool coroutine are noted (:func:`noting_tool_tasks`)."""


def noting_tool_tasks(tasks: list[asyncio.Task[Any]]) -> None:
    """Note in ``tasks`` every task that runs a contained tool coroutine from now on, in this context and
    the tasks it starts (LangChain runs a tool's coroutine in a task of its own): what
    :func:`stop_tasks` stops when the tool ignores its cancellation."""
    _TOOL_TASKS.set(tasks)


def stop_tasks(tasks: list[asyncio.Task[Any]]) -> None:
    """Stop ``tasks`` (innermost last) that ignored their cancellation: each one's coroutine is closed where
    it waits (``GeneratorExit``, which ``except CancelledError: pass`` does not catch), then the task is
    cancelled, so it ends at the event loop's next step and nothing (a loop's shutdown) waits on it for
    ever. A coroutine that ignores ``GeneratorExit`` too is left as it is."""
    for task in reversed(tasks):
        if task.done():
            continue
        with contextlib.suppress(RuntimeError):  # "coroutine ignored GeneratorExit"
            task.get_coro().close()
        task.cancel()
        task.add_done_callback(_outcome_read)


def _outcome_read(task: asyncio.Task[Any]) -> None:
    """Read a stopped task's outcome, so asyncio logs no "exception was never retrieved"."""
    if not task.cancelled():
        task.exception()


def _contained(
    coroutine: Callable[..., Awaitable[Any]], *, plugin: str, tool: str
) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(coroutine)
    async def contained(*args: Any, **kwargs: Any) -> Any:
        noted = _TOOL_TASKS.get()
        if noted is not None:
            with contextlib.suppress(RuntimeError):  # driven outside an event loop: nothing to note
                running = asyncio.current_task()
                if running is not None:
                    noted.append(running)
        try:
            result = await coroutine(*args, **kwargs)
        except Exception:
            raise
        except BaseException as exc:
            if is_real_close(exc) or is_real_cancellation(exc):
                raise
            raise plugin_fault(exc, plugin=plugin, tool=tool) from None
        if result is None or isinstance(result, dict | set | frozenset | bytes | bytearray):
            return message_content(result)  # nothing: an error; data: JSON without any object's repr
        return result

    _resolve_annotations(contained, coroutine)
    with contextlib.suppress(ValueError, TypeError):  # LangChain reads it on every call
        contained.__signature__ = inspect.signature(coroutine)  # type: ignore[attr-defined]
    return contained


def message_content(result: Any) -> Any:
    """A tool's return value as LangChain puts it in the tool's message: text, content blocks or a message.

    Computed where the tool ran (its plugin's thread, within its timeout), not on the event loop: a
    value whose ``__str__`` is slow, or a very long list, would otherwise stall every conversation
    while LangChain turns it into text. Text, messages and lists of content blocks are returned as they
    are; anything else becomes JSON, or its ``str()``, as LangChain would make it.
    """
    if isinstance(result, str | ToolOutputMixin):
        return result
    if result is None:  # a tool that forgot its return: an error the agent can report, not "null"
        raise ToolExecutionError(
            f"{TOOL_ERROR_PREFIX}the tool returned nothing (None); a tool returns its result as text or data."
        )
    if isinstance(result, list | tuple) and all(
        isinstance(item, str | ToolOutputMixin) or (isinstance(item, dict) and "type" in item)
        for item in result
    ):
        return result
    if not isinstance(result, dict | list | tuple | set | frozenset | bytes | bytearray | int | float):
        return _text_of(result)
    try:
        return json.dumps(result, ensure_ascii=False, default=_as_data)
    except Exception:  # a value that refers to itself
        return str(result)


def _as_data(value: Any) -> Any:
    """What JSON cannot hold, as data: bytes as text, a set as a sorted list, anything else as its text
    (:func:`_text_of`)."""
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    return _text_of(value)


def _text_of(value: Any) -> str:
    """``str(value)``, or its type's name when that is only the default ``repr`` (a memory address says
    nothing to a model or a user: ``<object object at 0x7f…>`` is ``<object>``)."""
    kind = type(value)
    if kind.__str__ is object.__str__ and kind.__repr__ is object.__repr__:
        return f"<{kind.__name__}>"
    return str(value)


def _in_pool(
    func: Callable[..., Any], pool: PluginThreadPool, *, as_content: bool = False
) -> Callable[..., Awaitable[Any]]:
    """``func`` as a coroutine running it in ``pool``; with ``as_content`` its result is made the message's
    content in the thread too (:func:`message_content`), and so is the text of what it raises: an
    exception becomes a :class:`ToolExecutionError` there (Cadence's own errors, LangChain's
    ``ToolException`` and LangGraph's interrupts pass as they are)."""
    target = func
    if as_content:

        @functools.wraps(func)
        def target(*args: Any, **kwargs: Any) -> Any:
            try:
                result = func(*args, **kwargs)
            except (CadenceError, ToolException, GraphBubbleUp, *UNCARRIED):
                raise
            except Exception as exc:
                raise ToolExecutionError.describing(exc) from exc
            return message_content(result)

    @functools.wraps(func)
    async def in_pool(*args: Any, **kwargs: Any) -> Any:
        return await pool.run(target, *args, **kwargs)

    _resolve_annotations(in_pool, func)
    # inspect.signature follows __wrapped__, so LangChain passes config/callbacks exactly as to ``func``
    return in_pool


class _CollectionClock:
    """The time this process has spent in garbage collection (``gc.callbacks``), installed on first use.

    A collection can start inside any call that allocates; it is the process's pause, not the
    call's, so it is not held against an inline tool.
    """

    total = 0.0
    _started = 0.0
    _installed = False

    @classmethod
    def install(cls) -> None:
        """Start counting (once per process)."""
        if not cls._installed:
            cls._installed = True
            gc.callbacks.append(cls._on_collection)

    @classmethod
    def _on_collection(cls, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            cls._started = time.perf_counter()
        else:
            cls.total += time.perf_counter() - cls._started


INLINE_STRIKES = 2
"""Calls over ``CADENCE_INLINE_TOOL_MAX_MS`` after which an inline tool runs in its plugin's threads."""


def _on_loop(
    func: Callable[..., Any], pool: PluginThreadPool, *, tool: str, max_seconds: float
) -> Callable[..., Awaitable[Any]]:
    """``func`` (a tool declared :func:`~cadence.sdk.inline`) called on the event loop, no thread hand-over.

    The declaration is checked on every call: once :data:`INLINE_STRIKES` calls have taken longer
    than ``max_seconds`` (``CADENCE_INLINE_TOOL_MAX_MS``; garbage collection during a call is not
    counted), the tool's later calls run in ``pool`` like any other synchronous tool, and a
    warning says which tool and how long it took. One strike is forgiven: the machine may have
    paused the process.
    """
    _CollectionClock.install()
    strikes = 0

    @functools.wraps(func)
    async def on_loop(*args: Any, **kwargs: Any) -> Any:
        nonlocal strikes
        if strikes >= INLINE_STRIKES:
            return await pool.run(func, *args, **kwargs)
        started, collecting = time.perf_counter(), _CollectionClock.total
        try:
            return func(*args, **kwargs)
        finally:
            took = time.perf_counter() - started - (_CollectionClock.total - collecting)
            if took > max_seconds:  # no await since the check above: strikes is still below the limit
                strikes += 1
                moved = strikes == INLINE_STRIKES
                logger.log(
                    logging.WARNING if moved else logging.INFO,
                    "an inline tool held the event loop too long"
                    + ("; its later calls run in its plugin's threads" if moved else ""),
                    extra={
                        "plugin": pool.plugin,
                        "tool": tool,
                        "took_ms": round(took * 1000, 3),
                        "limit_ms": round(max_seconds * 1000, 3),
                        "strikes": strikes,
                    },
                )

    _resolve_annotations(on_loop, func)
    return on_loop


class ContainedTool(StructuredTool):
    """A plugin's ``@tool`` function with its contained coroutine (:func:`contain_tools`).

    LangChain looks at a tool's ``_arun`` on every call (its signature, and its type hints for a
    ``RunnableConfig`` parameter); ``StructuredTool._arun``'s hints are strings it evaluates each
    time. This one's signature and hints are worked out once, when the class is made.
    """

    async def _arun(
        self,
        *args: Any,
        config: RunnableConfig,
        run_manager: AsyncCallbackManagerForToolRun | None = None,
        **kwargs: Any,
    ) -> Any:
        return await super()._arun(*args, config=config, run_manager=run_manager, **kwargs)


ContainedTool._arun.__annotations__ = get_type_hints(ContainedTool._arun)
ContainedTool._arun.__signature__ = inspect.signature(ContainedTool._arun)  # type: ignore[attr-defined]


def contain_tools(
    tools: list[BaseTool], *, plugin: str, pool: PluginThreadPool, inline_max_seconds: float = 0.0
) -> list[BaseTool]:
    """Copies of a plugin's tools that run in its thread pool and cannot raise process-level exceptions.

    ``@tool`` functions (``StructuredTool``/``Tool``) get a coroutine: synchronous ones run
    ``func`` in ``pool``, asynchronous ones keep theirs; either way wrapped by the
    containment. With ``inline_max_seconds`` above 0, a synchronous tool declared
    :func:`~cadence.sdk.inline` runs on the event loop instead, until :data:`INLINE_STRIKES` of its
    calls take longer than that. Other ``BaseTool`` subclasses are returned as they are; the tool-call
    wrapper runs synchronous ones in ``pool`` (see :func:`run_tool_in_pool`).
    """
    out: list[BaseTool] = []
    for t in tools:
        if isinstance(t, StructuredTool | Tool) and (t.coroutine is not None or t.func is not None):
            if t.coroutine is not None:
                base = t.coroutine
            elif inline_max_seconds > 0 and is_inline(t):
                base = _on_loop(t.func, pool, tool=t.name, max_seconds=inline_max_seconds)  # type: ignore[arg-type]
            else:
                # its result becomes text in its thread (a tuple of content and artifact stays a tuple)
                as_content = t.response_format != "content_and_artifact"
                base = _in_pool(t.func, pool, as_content=as_content)  # type: ignore[arg-type]
            if not inspect.iscoroutinefunction(base):
                out.append(t)
                continue
            contained = _contained(base, plugin=plugin, tool=t.name)
            if type(t) is StructuredTool:  # a plain @tool: the same fields, a cheaper call
                fields = {name: getattr(t, name) for name in StructuredTool.model_fields}
                out.append(ContainedTool.model_construct(**{**fields, "coroutine": contained}))
            else:
                out.append(t.model_copy(update={"coroutine": contained}))
        else:
            out.append(t)
    return out


class _PoolBoundTool(BaseTool):
    """Runs a synchronous ``BaseTool`` subclass's ``invoke`` in its plugin's pool (execution only)."""

    inner: BaseTool
    pool: Any

    def _run(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - never called
        raise NotImplementedError

    def get_input_schema(self, config: Any = None) -> Any:
        """The wrapped tool's input schema."""
        return self.inner.get_input_schema(config)

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        """The wrapped tool, in the calling thread."""
        return self.inner.invoke(input, config, **kwargs)

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        """The wrapped tool's ``invoke`` in a pool thread (what LangChain does in the shared pool)."""
        return await self.pool.run(self.inner.invoke, input, config, **kwargs)


def run_tool_in_pool(tool: BaseTool, pool: PluginThreadPool) -> BaseTool:
    """``tool`` itself, or for a synchronous ``BaseTool`` subclass a stand-in executing it in ``pool``."""
    if isinstance(tool, StructuredTool | Tool) or not runs_in_thread(tool):
        return tool
    return _PoolBoundTool(
        name=tool.name, description=tool.description, metadata=tool.metadata, inner=tool, pool=pool
    )


# -- loading --------------------------------------------------------------------------------
def load_fault(exc: BaseException) -> str:
    """One line saying what a plugin raised while it was loaded or checked (a failed plugin's reason)."""
    if isinstance(exc, SyntaxError):
        where = f" ({Path(exc.filename or '?').name}, line {exc.lineno})" if exc.lineno else ""
        return f"SyntaxError: {exc.msg}{where}"
    if isinstance(exc, pydantic.ValidationError):
        parts = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err.get("loc", ())) or "metadata"
            parts.append(f"{loc}: {err.get('msg')}")
        return "invalid metadata: " + "; ".join(parts)
    if not isinstance(exc, Exception):  # SystemExit, KeyboardInterrupt, ...
        return f"{type(exc).__name__}({exc}) raised by the plugin's code; a plugin may not exit the process"
    return f"{type(exc).__name__}: {exc}"


def reraise_cancellation(exc: BaseException) -> None:
    """Plugin code may raise anything (``SystemExit`` included) and is contained; cancellation is not.

    Loading is synchronous: a ``GeneratorExit`` here is the plugin's own, never a coroutine being closed.
    """
    if isinstance(exc, asyncio.CancelledError):
        raise exc
