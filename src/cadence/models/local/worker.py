"""Crash isolation of the embedded model: llama.cpp runs in a worker process.

One :class:`ModelWorker` per loaded model file (path, context size, threads):
a child process running :mod:`cadence.models.local.worker_main`, which loads the
model once and answers generation requests over JSON lines on its stdin/stdout.
Requests to one worker are serialized (one llama context is not reentrant).

The parent talks to the worker from plain threads (a reader thread per process
and the calling thread), never from an event loop, so it works under any
asyncio loop (the server's, ``Cadence.invoke``'s, one per test) and from
synchronous code alike.

- A worker that dies during a call (native crash, OOM kill, SIGKILL) fails that
  call with :class:`~cadence.errors.ModelWorkerCrashedError` naming the signal;
  it is restarted before the error is raised, so the next call works.
- A worker found dead between calls is restarted silently.
- A cancelled call (the turn's deadline, a disconnected client) is stopped
  cooperatively at the next token; a worker that does not stop within the grace
  period (a native hang) is killed and restarted.
- The worker ends with its parent: it exits on end of its stdin (the parent
  closed the pipe or died) and when its parent pid changes;
  :func:`shutdown_workers` (engine shutdown, ``atexit``) stops all workers.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from cadence.errors import ModelCallError, ModelConfigurationError, ModelWorkerCrashedError

logger = logging.getLogger(__name__)

WORKER_SCRIPT = Path(__file__).with_name("worker_main.py")
POLL_S = 0.05
"""How often a waiting call checks for cancellation and the worker's liveness."""
WORKER_ENV = {"GOMP_SPINCOUNT": "1000", "KMP_BLOCKTIME": "1"}
"""Environment defaults of the worker process; the operator's own environment wins.

llama.cpp runs on OpenMP, whose threads busy-wait after every parallel step (GNU libgomp spins
300,000 rounds by default, LLVM's libomp 200 ms). On cores shared with anything else (a second
worker's model, the server's event loop, another process) the spinning takes the cores the work
needs. Measured on 2 cores, 5 short answers of the bundled model, one llama thread: alone 0.67 s;
two model processes at once 25.8 s each by default, 1.2 s with ``GOMP_SPINCOUNT=1000`` (which
costs nothing measurable alone: 0.70 s), 1.0 s with ``OMP_WAIT_POLICY=PASSIVE`` (0.88 s alone).
``KMP_BLOCKTIME`` is the same knob for LLVM's OpenMP (milliseconds), for bindings built with it.
"""


class GenerationCancelled(Exception):
    """A call was cancelled by its caller (raised into the calling thread only)."""


class FifoLock:
    """A lock whose waiters get it in the order they asked for it; a waiter can give up (cancel).

    ``threading.Lock`` hands a released lock to any waiter, often a newcomer: with many turns
    waiting for one worker, some calls were passed over again and again until they timed out
    while later ones were served. Here each waiter takes a ticket and the oldest one is next.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._waiting: deque[object] = deque()
        self._held = False

    def acquire(self, cancel: threading.Event | None = None) -> None:
        """Wait for the lock in arrival order; raise :class:`GenerationCancelled` when ``cancel`` is set."""
        ticket = object()
        with self._cond:
            self._waiting.append(ticket)
            try:
                while self._held or self._waiting[0] is not ticket:
                    if cancel is not None and cancel.is_set():
                        raise GenerationCancelled
                    self._cond.wait(POLL_S if cancel is not None else None)
            except BaseException:
                self._waiting.remove(ticket)
                self._cond.notify_all()  # the next in line may be free to go now
                raise
            self._waiting.popleft()
            self._held = True

    def release(self) -> None:
        """Hand the lock to the oldest waiter."""
        with self._cond:
            self._held = False
            self._cond.notify_all()

    def locked(self) -> bool:
        """Whether a call holds the lock."""
        return self._held

    @property
    def waiting(self) -> int:
        """How many calls wait for the lock."""
        return len(self._waiting)

    def __enter__(self) -> FifoLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


@dataclass(frozen=True)
class WorkerKey:
    """What identifies one worker: the model file and how it is loaded."""

    path: str
    n_ctx: int
    n_threads: int | None
    extra_buffers: bool = False


@dataclass(frozen=True)
class WorkerOptions:
    """How a worker is supervised."""

    start_timeout: float = 120.0
    """Seconds a new worker may take to start and load its model."""
    cancel_grace: float = 2.0
    """Seconds a cancelled generation may take to stop before its worker is killed."""


_LLAMA_OVERFLOW = re.compile(r"Requested tokens \((\d+)\) exceed context window of (\d+)")
"""What llama-cpp-python says when a prompt does not fit the context window."""


def request_error(event: dict[str, Any]) -> RuntimeError:
    """The exception of a request the worker answered with an error (the worker itself is fine).

    A prompt longer than the context window says so in words and names the setting, instead of
    llama-cpp-python's ``ValueError: Requested tokens (8391) exceed context window of 4096``.
    """
    message = str(event.get("message"))
    overflow = _LLAMA_OVERFLOW.search(message)
    if overflow is not None:
        return RuntimeError(
            f"the prompt has {overflow[1]} tokens, more than the embedded model's context window of "
            f"{overflow[2]} tokens (CADENCE_LOCAL_MODEL_CONTEXT)"
        )
    return RuntimeError(f"{event.get('type')}: {message}")


def _describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "no exit status"
    if returncode < 0:
        try:
            return f"signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"signal {-returncode}"
    return f"exit code {returncode}"


class _Process:
    """One running worker process and the events read from it."""

    def __init__(self, key: WorkerKey) -> None:
        config = {
            "path": key.path,
            "n_ctx": key.n_ctx,
            "n_threads": key.n_threads,
            "extra_buffers": key.extra_buffers,
            "parent": os.getpid(),
        }
        # -P: the script's folder is not put on sys.path (its module names cannot shadow others)
        self.popen = subprocess.Popen(
            [sys.executable, "-P", str(WORKER_SCRIPT), json.dumps(config)],
            env={**WORKER_ENV, **os.environ},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,  # llama.cpp's own messages go to the parent's stderr
            close_fds=True,
        )
        self.pid = self.popen.pid
        self.stopping = False
        """Set when the worker is being stopped on purpose (shutdown): its end is no crash."""
        self.events: queue.Queue[dict[str, Any] | None] = queue.Queue()
        assert self.popen.stdout is not None
        threading.Thread(
            target=self._read, args=(self.popen.stdout,), name=f"cadence-worker-{self.pid}", daemon=True
        ).start()

    def _read(self, stream: IO[bytes]) -> None:
        for raw in stream:
            try:
                self.events.put(json.loads(raw))
            except ValueError:
                logger.warning("unreadable line from the model worker", extra={"pid": self.pid})
        self.events.put(None)  # end of output: the process is gone

    def send(self, message: dict[str, Any]) -> None:
        """Write one request line (raises ``OSError`` when the process is gone)."""
        assert self.popen.stdin is not None
        self.popen.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
        self.popen.stdin.flush()

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.popen.poll() is None

    def exit_description(self, wait: float = 5.0) -> str:
        """How the process ended ("signal SIGSEGV", "exit code 1")."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=wait)
        return _describe_exit(self.popen.returncode)

    def kill(self) -> None:
        """SIGKILL the process and reap it."""
        with contextlib.suppress(OSError):
            self.popen.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=10)
        self._close_pipes()

    def stop(self, grace: float = 2.0) -> None:
        """Ask the process to exit (end of its stdin), kill it after ``grace`` seconds."""
        self._close_pipes()
        try:
            self.popen.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.kill()

    def _close_pipes(self) -> None:
        with contextlib.suppress(OSError):
            if self.popen.stdin is not None:
                self.popen.stdin.close()


class ModelWorker:
    """The worker process of one model file: start, request, restart, stop."""

    def __init__(self, key: WorkerKey, options: WorkerOptions | None = None) -> None:
        self.key = key
        self.options = options or WorkerOptions()
        self._lock = FifoLock()
        """Serializes requests, served in the order they came (see :class:`FifoLock`)."""
        self._process: _Process | None = None
        self._next_id = 0
        self.restarts = 0
        """How many times the worker was started again after it died or was killed."""
        self.load_seconds: float | None = None
        """How long the current worker took to load its model."""
        self.ready_info: dict[str, Any] = {}
        """What the current worker reported when it was ready (pid, bindings, extra_buffers)."""

    @property
    def pid(self) -> int | None:
        """The pid of the running worker process (None before the first start)."""
        process = self._process
        return process.pid if process is not None and process.alive() else None

    # -- lifecycle ----------------------------------------------------------------------
    def _start(self) -> _Process:
        started = time.monotonic()
        process = _Process(self.key)
        deadline = started + self.options.start_timeout
        while True:
            try:
                event = process.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                process.kill()
                raise ModelConfigurationError(
                    f"The embedded model's worker did not load {Path(self.key.path).name} within "
                    f"{self.options.start_timeout:g} s; raise CADENCE_LOCAL_MODEL_START_TIMEOUT "
                    "or check the model file."
                ) from None
            if event is None:
                cause = process.exit_description()
                process.kill()
                raise ModelWorkerCrashedError(
                    f"The embedded model's worker process crashed while loading the model ({cause}); "
                    "check the model file and llama-cpp-python, then try again."
                )
            if event.get("event") == "fatal":
                process.kill()
                raise ModelConfigurationError(
                    f"The embedded model could not be loaded from {self.key.path}: {event.get('message')}"
                )
            if event.get("event") == "ready":
                break
        self._process = process
        self.ready_info = event
        self.load_seconds = time.monotonic() - started
        logger.info(
            "embedded model worker ready",
            extra={
                "pid": process.pid,
                "model": self.key.path,
                "start_s": round(self.load_seconds, 3),
                "load_s": event.get("load_s"),
                "extra_buffers": event.get("extra_buffers"),
                "bindings": event.get("bindings"),
            },
        )
        return process

    def _ensure(self) -> _Process:
        process = self._process
        if process is not None and process.alive():
            return process
        if process is not None:
            logger.warning(
                "embedded model worker died while idle; restarting",
                extra={"pid": process.pid, "cause": process.exit_description()},
            )
            process.kill()
            self._process = None
            self.restarts += 1
        return self._start()

    def start(self) -> int:
        """Start the worker if it is not running (blocking: loads the model); its pid."""
        with self._lock:
            return self._ensure().pid

    def close(self) -> None:
        """Stop the worker process now (it is started again by the next call).

        Does not wait for a call in flight: that call fails with a one-line
        :class:`~cadence.errors.ModelCallError` saying the worker was stopped.
        """
        process, self._process = self._process, None
        if process is not None:
            process.stopping = True
            process.stop(grace=self.options.cancel_grace)

    def _crashed(self, process: _Process) -> ModelWorkerCrashedError:
        """Reap a worker that died during a call, start a new one and describe what happened."""
        cause = process.exit_description()
        process.kill()
        self._process = None
        self.restarts += 1
        logger.error("embedded model worker crashed", extra={"pid": process.pid, "cause": cause})
        try:
            self._start()
        except Exception as exc:  # the restart failed too: say so, the next call tries again
            return ModelWorkerCrashedError(
                f"The embedded model's worker process crashed ({cause}) and could not be restarted "
                f"({type(exc).__name__}: {exc}); check the model and try again."
            )
        return ModelWorkerCrashedError(
            f"The embedded model's worker process crashed ({cause}); it was restarted — try again."
        )

    # -- requests -----------------------------------------------------------------------
    def stream(self, request: dict[str, Any], cancel: threading.Event | None = None) -> Iterator[Any]:
        """Run ``request`` (see ``worker_main``); yields text pieces (str), then the result (dict).

        Raises :class:`ModelWorkerCrashedError` when the worker dies meanwhile and
        :class:`GenerationCancelled` when ``cancel`` is set (the worker is free again,
        or killed, before it returns). Closing the iterator early cancels the request.
        """
        self._lock.acquire(cancel)
        try:
            process = self._ensure()
            self._next_id += 1
            request_id = self._next_id
            try:
                process.send({"id": request_id, "request": request})
            except OSError:
                raise self._crashed(process) from None
            finished = False
            cancel_sent_at: float | None = None
            try:
                while True:
                    if cancel is not None and cancel.is_set() and cancel_sent_at is None:
                        cancel_sent_at = time.monotonic()
                        with contextlib.suppress(OSError):
                            process.send({"op": "cancel", "id": request_id})
                    if (
                        cancel_sent_at is not None
                        and time.monotonic() - cancel_sent_at > self.options.cancel_grace
                    ):
                        finished = True
                        self._kill_hung(process, request_id)
                        raise GenerationCancelled
                    try:
                        event = process.events.get(timeout=POLL_S)
                    except queue.Empty:
                        continue
                    if event is None:
                        finished = True
                        if cancel_sent_at is not None:
                            self._kill_hung(process, request_id)
                            raise GenerationCancelled
                        if process.stopping:
                            raise ModelCallError(
                                "The embedded model's worker process was stopped (shutdown) during the call; "
                                "try again."
                            )
                        raise self._crashed(process)
                    if event.get("id") != request_id:
                        continue
                    kind = event.get("event")
                    if kind == "token":
                        if cancel_sent_at is None:
                            yield event.get("text", "")
                        continue
                    finished = True
                    if kind == "error":
                        raise request_error(event)
                    if cancel_sent_at is not None:
                        raise GenerationCancelled
                    yield event
                    return
            finally:
                if not finished:  # closed early by the consumer: stop the generation first
                    self._stop_request(process, request_id)
        finally:
            self._lock.release()

    def complete(self, request: dict[str, Any], cancel: threading.Event | None = None) -> dict[str, Any]:
        """Run a non-streamed ``request`` and return its result (text, usage, finish_reason)."""
        result: dict[str, Any] = {}
        for item in self.stream({**request, "stream": False}, cancel):
            if isinstance(item, dict):
                result = item
        return result

    def _stop_request(self, process: _Process, request_id: int) -> None:
        """Cancel ``request_id`` and wait until the worker reports it done (kill it after the grace)."""
        with contextlib.suppress(OSError):
            process.send({"op": "cancel", "id": request_id})
        deadline = time.monotonic() + self.options.cancel_grace
        while time.monotonic() < deadline:
            try:
                event = process.events.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if event is None:
                break
            if event.get("id") == request_id and event.get("event") in ("done", "error"):
                return
        self._kill_hung(process, request_id)

    def _kill_hung(self, process: _Process, request_id: int) -> None:
        logger.warning(
            "embedded model worker did not stop a cancelled generation; killing it",
            extra={"pid": process.pid, "request": request_id, "grace_s": self.options.cancel_grace},
        )
        process.kill()
        if self._process is process:
            self._process = None
            self.restarts += 1


_WORKERS: dict[WorkerKey, ModelWorker] = {}
_WORKERS_LOCK = threading.Lock()


def get_worker(key: WorkerKey, options: WorkerOptions | None = None) -> ModelWorker:
    """The process-wide worker of ``key`` (created on first use; started by its first call)."""
    with _WORKERS_LOCK:
        worker = _WORKERS.get(key)
        if worker is None:
            worker = _WORKERS[key] = ModelWorker(key, options)
        elif options is not None:
            worker.options = options
        return worker


def running_workers() -> list[ModelWorker]:
    """The workers that have a live process."""
    with _WORKERS_LOCK:
        return [w for w in _WORKERS.values() if w.pid is not None]


def shutdown_workers() -> None:
    """Stop every worker process of this process (engine shutdown, interpreter exit)."""
    with _WORKERS_LOCK:
        workers = list(_WORKERS.values())
    for worker in workers:
        try:
            worker.close()
        except Exception:  # shutting down: keep stopping the others
            logger.exception("could not stop an embedded model worker")


atexit.register(shutdown_workers)
