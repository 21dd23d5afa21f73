"""What every ``cadence`` command shares: settings loading, one-line errors, consoles, JSON output."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

import pydantic
import typer
from rich.console import Console
from rich.text import Text

from cadence.cli.logs import configure_logging
from cadence.errors import CadenceError, ConfigurationError
from cadence.orchestration.inputs import validate_thread_id, validate_user_id
from cadence.settings import Settings, get_settings

logger = logging.getLogger("cadence.cli")

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

EXIT_ERROR = 1
EXIT_USAGE = 2
"""A usage error: what click exits with for a bad option, and a thread or user id the API would refuse."""
EXIT_INTERRUPTED = 130


def out_console() -> Console:
    """Standard output: text as it is (no highlighting, no ``:code:`` emoji: ``a[1:100:2]`` stays)."""
    return Console(highlight=False, emoji=False)


def err_console() -> Console:
    """Standard error, as :func:`out_console`."""
    return Console(stderr=True, highlight=False, emoji=False)


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def print_error(message: str) -> None:
    """Print ``error: message`` as one line on stderr."""
    typer.echo(f"error: {one_line(message)}", err=True)


def fail(message: str, code: int = EXIT_ERROR) -> typer.Exit:
    """Print ``error: message`` as one line on stderr; returns the ``Exit`` to raise."""
    print_error(message)
    return typer.Exit(code)


def checked_user(settings: Settings, user: str | None) -> str:
    """The user a command acts as (``--user``, else ``CADENCE_DEFAULT_USER``), checked as the HTTP API
    checks user ids; one ``error:`` line and exit code 2 otherwise."""
    who = (user or settings.default_user).strip() or settings.default_user
    _usage_checked(lambda: validate_user_id(who, settings))
    return who


def check_thread_id(settings: Settings, thread: str | None) -> None:
    """Exit 2 with one ``error:`` line for a thread id the HTTP API would refuse (None: a new thread)."""
    if thread is not None:
        _usage_checked(lambda: validate_thread_id(thread, settings))


def _usage_checked(check: Callable[[], None]) -> None:
    try:
        check()
    except CadenceError as exc:
        raise fail(exc.message, EXIT_USAGE) from None


def _settings_error_text(exc: pydantic.ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ()) if p != "__root__"]
        name = f"CADENCE_{loc[0].upper()}" if loc else "settings"
        msg = str(err.get("msg", "invalid value"))
        secret = any(word in name for word in ("KEY", "DATABASE_URL", "PASSWORD", "TOKEN"))
        value = err.get("input")
        shown = "" if secret or value is None or isinstance(value, dict) else f" (got {str(value)[:60]!r})"
        parts.append(f"{name}: {msg}{shown}")
    return "Invalid Cadence settings: " + "; ".join(parts)


def load_settings() -> Settings:
    """Read the settings afresh (environment and ``.env``) and configure logging from them."""
    get_settings.cache_clear()
    try:
        settings = get_settings()
    except ConfigurationError as exc:
        cause = exc.__cause__
        if isinstance(cause, pydantic.ValidationError):
            raise ConfigurationError(_settings_error_text(cause)) from cause
        raise
    configure_logging(settings.log_level)
    return settings


def missing_database(settings: Settings) -> str | None:
    """The SQLite file ``CADENCE_DATABASE_URL`` names when it does not exist (nothing was stored
    there), else None.

    The commands that only read threads say so instead of opening it: opening creates an empty
    database (and its folder), which a mistyped URL or data directory left behind.
    """
    from pathlib import Path

    url = settings.resolved_database_url.strip()  # read as persistence's parse_database_url reads it
    if not url.startswith("sqlite://"):
        return None
    target = url[len("sqlite:///") :] if url.startswith("sqlite:///") else url[len("sqlite://") :]
    if not target.strip() or target == ":memory:":  # no file (the engine says what is wrong)
        return None
    path = Path(target).expanduser()
    return None if path.exists() else str(path.absolute())


def no_database(path: str, thread: str) -> typer.Exit:
    """The one-line error of a command about ``thread`` when the database file does not exist."""
    return fail(
        f"No thread {thread!r}: there is no database at {path} (nothing was stored there); "
        "check CADENCE_DATABASE_URL (or CADENCE_DATA_DIR)."
    )


def failure_text(exc: Exception) -> str:
    """The one-line message of a command's (or a chat turn's) failure ``exc``."""
    if isinstance(exc, CadenceError):
        logger.debug("command failed", exc_info=exc)
        return exc.message
    if isinstance(exc, pydantic.ValidationError):
        return _settings_error_text(exc)
    if isinstance(exc, sqlite3.Error):
        return f"Database problem: {exc}. Check CADENCE_DATABASE_URL / CADENCE_DATA_DIR."
    if isinstance(exc, OSError):
        return f"{exc}"
    logger.debug("unexpected failure", exc_info=exc)
    return f"Unexpected {type(exc).__name__}: {exc} (set CADENCE_LOG_LEVEL=DEBUG for the traceback)"


def guarded(fn: F) -> F:
    """Turn every expected failure of a command into one ``error:`` line and a non-zero exit."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except Exception as exc:
            raise fail(failure_text(exc)) from None

    return wrapper  # type: ignore[return-value]


SHUTDOWN_GRACE_S = 2.0
"""Seconds a command's event loop gives the tasks left at its end to stop once cancelled."""


@contextlib.contextmanager
def command_runner() -> Iterator[asyncio.Runner]:
    """An :class:`asyncio.Runner` for one command whose end never waits forever: the tasks left when it
    ends are cancelled and given :data:`SHUTDOWN_GRACE_S`; one that ignores its cancellation (a plugin's
    tool with ``except CancelledError: pass`` in a loop) then has its coroutine closed, so it ends too
    (``asyncio.run`` would wait on it for ever after the answer is printed)."""
    with asyncio.Runner() as runner:
        try:
            yield runner
        finally:
            _stop_left_behind(runner.get_loop())


def run_command(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` in a :func:`command_runner`."""
    with command_runner() as runner:
        return runner.run(main)


def _stop_left_behind(loop: asyncio.AbstractEventLoop) -> None:
    from cadence.plugins.containment import stop_tasks

    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    if not pending:
        return
    for task in pending:
        task.cancel()
    _, still = loop.run_until_complete(asyncio.wait(pending, timeout=SHUTDOWN_GRACE_S))
    if still:
        names = ", ".join(sorted(t.get_name() for t in still))
        logger.warning("tasks ignored their cancellation at exit and were closed", extra={"tasks": names})
        stop_tasks(list(still))
        loop.run_until_complete(asyncio.wait(still, timeout=SHUTDOWN_GRACE_S))


def dump_json(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, default=str)


class LineReader:
    """Reads stdin lines for prompts inside a running turn (approvals) without losing one to Ctrl-C.

    A prompt inside a turn reads in a worker thread (the event loop keeps running); Ctrl-C cancels
    the turn but cannot stop a thread blocked on ``input()``. That read stays pending here, and the
    next prompt (the chat's ``you ›``, another approval) takes its line instead of starting a second
    read that would race it for stdin: the line the user types next goes to the prompt they see.
    """

    def __init__(self) -> None:
        self._pending: concurrent.futures.Future[str | None] | None = None
        self._lock = threading.Lock()

    def _start(self, prompt: str | Text, console: Console | None) -> concurrent.futures.Future[str | None]:
        with self._lock:
            if self._pending is not None:  # a read given up on: its line is this prompt's
                if console is not None and prompt:
                    console.print(prompt, end="")
                return self._pending
            future: concurrent.futures.Future[str | None] = concurrent.futures.Future()
            future.set_running_or_notify_cancel()  # a cancelled waiter never cancels the read itself

            def read() -> None:
                try:
                    line = console.input(prompt) if console is not None else input()
                except EOFError:
                    future.set_result(None)
                except BaseException as exc:  # handed to whoever waits for the line
                    future.set_exception(exc)
                else:
                    future.set_result(line)

            threading.Thread(target=read, name="cadence-stdin", daemon=True).start()
            self._pending = future
            return future

    def _taken(self, future: concurrent.futures.Future[str | None]) -> str | None:
        with self._lock:
            if self._pending is future:
                self._pending = None
        return future.result()

    @property
    def pending(self) -> bool:
        """Whether a read given up on still waits for its line."""
        return self._pending is not None

    async def aread(self, prompt: str | Text = "", console: Console | None = None) -> str | None:
        """The next line (``prompt`` shown on ``console``; None at end of input), read without blocking
        the event loop."""
        future = self._start(prompt, console)
        await asyncio.wrap_future(future)
        return self._taken(future)

    def read(self, prompt: str | Text = "", console: Console | None = None) -> str | None:
        """The next line, blocking (Ctrl-C raises ``KeyboardInterrupt`` and keeps the read pending)."""
        future = self._start(prompt, console)
        concurrent.futures.wait([future])
        return self._taken(future)


stdin_lines = LineReader()
"""The process's one reader of stdin lines for prompts (see :class:`LineReader`)."""
