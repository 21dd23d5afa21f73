"""Fault plugins: whatever a plugin's code raises or however long it blocks, the server keeps serving.

Faults covered: ``SystemExit``, ``KeyboardInterrupt`` and other ``BaseException``
subclasses at import, at load and in sync and async tools; tools raising
``CancelledError`` by themselves; async tools that hang; sync tools that never
return their thread. Real cancellation of a turn must still propagate.
"""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated, Any

import httpx
import pytest
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.prebuilt import InjectedState
from tests.conftest import FINALIZE, assert_no_unanswered_calls, call, goto, make_settings, tool_plugin
from tests.test_server_support import live_server

from cadence.orchestration.engine import Cadence, emit, thread_key
from cadence.orchestration.synthesizer import is_fallback
from cadence.plugins.containment import PluginThreadPool
from cadence.plugins.manager import PluginManager
from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, tool
from cadence.server import create_app
from cadence.testing import ScriptedChatModel


class PluginBoom(BaseException):
    """A BaseException that is neither SystemExit nor KeyboardInterrupt."""


FAULTS: dict[str, type[BaseException]] = {
    "system_exit": SystemExit,
    "keyboard_interrupt": KeyboardInterrupt,
    "base_exception": PluginBoom,
    "cancelled_by_itself": asyncio.CancelledError,
}


def _raise(kind: str) -> None:
    raise FAULTS[kind](3) if FAULTS[kind] is SystemExit else FAULTS[kind]("raised by the plugin")


@tool
def crash_sync(kind: str) -> str:
    """Raise the named fault from a synchronous tool."""
    _raise(kind)
    return "unreachable"


@tool
async def crash_async(kind: str) -> str:
    """Raise the named fault from an asynchronous tool."""
    await asyncio.sleep(0)
    _raise(kind)
    return "unreachable"


RELEASE = threading.Event()
"""Set at teardown so the hung threads of these tests end."""
STARTED = threading.Semaphore(0)


@tool
def block() -> str:
    """Never return (until the test releases it)."""
    STARTED.release()
    RELEASE.wait()
    return "released"


@tool
async def sleep_forever() -> str:
    """An async tool that never finishes by itself."""
    await asyncio.sleep(3600)
    return "woke"


@tool
def broken_text(where: str) -> str:
    """Return text holding a lone surrogate (what slicing a UTF-16 string or a JSON escape can give)."""
    return f"bad \ud800 text from {where}"


CrashPlugin = tool_plugin("crash", [crash_sync, crash_async, broken_text])
HangPlugin = tool_plugin("hang", [block, sleep_forever])


@pytest.fixture(autouse=True)
def _release_hung_threads() -> Any:
    RELEASE.clear()
    while STARTED.acquire(blocking=False):  # no permits left over from another test
        pass
    yield
    RELEASE.set()


def _engine(script: list[dict[str, Any]], **overrides: Any) -> tuple[Cadence, ScriptedChatModel]:
    model = ScriptedChatModel.from_items(script)
    settings = make_settings(builtin_plugins=["math"], **overrides)
    return Cadence(settings, model=model, plugins=[CrashPlugin, HangPlugin]), model


@pytest.mark.parametrize("kind", list(FAULTS))
@pytest.mark.parametrize("tool_name", ["crash_sync", "crash_async"])
async def test_tool_faults_become_error_results(tool_name: str, kind: str) -> None:
    engine, _ = _engine(
        [goto("crash"), call(tool_name, kind=kind), FINALIZE, {"content": "The tool failed, sorry."}]
    )
    result = await engine.ainvoke("Crash, please.")
    assert result.response == "The tool failed, sorry."
    [used] = result.trace["tools_used"]
    assert used["name"] == tool_name and used["result"] is None
    assert FAULTS[kind].__name__ in used["error"]
    # the engine still serves the next turn on the same event loop
    engine2, _ = _engine([FINALIZE, {"content": "still here"}])
    assert (await engine2.ainvoke("Hello?")).response == "still here"


async def test_hung_async_tool_is_cancelled_at_the_tool_timeout(caplog: pytest.LogCaptureFixture) -> None:
    engine, _ = _engine(
        [goto("hang"), call("sleep_forever"), FINALIZE, {"content": "It took too long."}], tool_timeout=0.2
    )
    with caplog.at_level(logging.INFO, logger="cadence.orchestration.tool_logging"):
        result = await engine.ainvoke("Sleep.")
    assert result.response == "It took too long."
    assert "did not finish within" in result.trace["tools_used"][0]["error"]
    ends = [r for r in caplog.records if r.getMessage() == "tool end"]
    assert [r.levelno for r in ends] == [logging.WARNING]  # a hung tool is the operator's concern


async def test_an_error_a_tool_returns_is_logged_as_information(
    engine_factory, caplog: pytest.LogCaptureFixture
) -> None:
    engine, _ = engine_factory(
        [goto("math"), call("calculate", expression="2 +* 2"), FINALIZE, {"content": "?"}]
    )
    with caplog.at_level(logging.INFO, logger="cadence.orchestration.tool_logging"):
        result = await engine.ainvoke("What is 2 +* 2?")
    assert result.trace["tools_used"][0]["error"]
    ends = [r for r in caplog.records if r.getMessage() == "tool end"]
    assert [r.levelno for r in ends] == [logging.INFO]  # part of the conversation: the model reads it


async def test_cancelling_a_turn_still_cancels_its_tool() -> None:
    seen: list[str] = []
    started = asyncio.Event()

    @tool
    async def wait_here() -> str:
        """Wait until cancelled."""
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        return "woke"

    model = ScriptedChatModel.from_items([goto("waiter"), call("wait_here")])
    engine = Cadence(
        make_settings(builtin_plugins=[]), model=model, plugins=[tool_plugin("waiter", [wait_here])]
    )
    turn = asyncio.create_task(engine.ainvoke("Wait."))
    await asyncio.wait_for(started.wait(), timeout=30)
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert seen == ["cancelled"]


def test_faults_at_import_and_load_skip_only_thattool_plugin(tmp_path: Path) -> None:
    good = textwrap.dedent(
        """
        from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata

        class A(BaseAgent):
            def get_tools(self):
                return []
            def get_system_prompt(self):
                return "ok"

        class P(BasePlugin):
            @classmethod
            def get_metadata(cls):
                return PluginMetadata(name="{name}", version="1.0.0", description="A plugin for the tests.")
            @classmethod
            def create_agent(cls):
                {create}
        """
    )
    ok = "return A(cls.get_metadata())"
    (tmp_path / "fine.py").write_text(good.format(name="fine", create=ok))
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(3)\n")
    (tmp_path / "interrupts.py").write_text("raise KeyboardInterrupt\n")
    (tmp_path / "boom.py").write_text("class Boom(BaseException):\n    pass\nraise Boom('at import')\n")
    (tmp_path / "exits_late.py").write_text(good.format(name="late", create="raise SystemExit(4)"))
    manager = PluginManager(make_settings(plugins_dir=[tmp_path], builtin_plugins=["math"]))
    statuses = {Path(s.location).name: s for s in manager.load() if s.source == "directory"}
    assert set(manager.bundles) == {"fine", "math"}
    for name, exc in [
        ("exits.py", "SystemExit"),
        ("interrupts.py", "KeyboardInterrupt"),
        ("boom.py", "Boom"),
        ("exits_late.py", "SystemExit"),
    ]:
        assert statuses[name].status == "failed"
        assert exc in (statuses[name].reason or "")


def test_what_a_plugin_changed_before_its_import_failed_stays(tmp_path: Path, monkeypatch) -> None:
    """Not containable, and documented as such (docs/plugins.md): the process's state is shared."""
    monkeypatch.delenv("CADENCE_TEST_SET_BY_PLUGIN", raising=False)  # undone after the test
    (tmp_path / "leaky.py").write_text(
        "import os\nos.environ['CADENCE_TEST_SET_BY_PLUGIN'] = 'yes'\nraise RuntimeError('then fails')\n"
    )
    manager = PluginManager(make_settings(plugins_dir=[tmp_path], builtin_plugins=[]))
    [status] = [s for s in manager.load() if s.source == "directory"]
    assert status.status == "failed" and "then fails" in (status.reason or "")
    assert os.environ["CADENCE_TEST_SET_BY_PLUGIN"] == "yes"


def test_server_starts_with_a_plugin_that_exits_at_import(tmp_path: Path) -> None:
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(3)\n")
    settings = make_settings(plugins_dir=[tmp_path], builtin_plugins=["math"])
    app = create_app(settings, engine_kwargs={"model": ScriptedChatModel.from_items([], loop=True)})
    with live_server(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        assert client.get("/ready").json()["status"] == "ready"
        plugins = {p["name"]: p for p in client.get("/api/v1/plugins").json()["plugins"]}
        assert plugins["math"]["status"] == "loaded"
        assert any("SystemExit" in (p["reason"] or "") for p in plugins.values())


HUNG = 20


def test_hung_sync_tools_only_saturate_their_owntool_plugin() -> None:
    """20 hung sync tools outstanding: /ready says degraded, a math turn on another thread still works."""
    # Phase 1: every model call of the 20 concurrent turns gets the same item, so their order
    # does not matter: the coordinator keeps the first call (route to hang), the agent runs both
    # (the route is not its tool: error result; block hangs), suspend gets a tool-only reply.
    item = {"tool_calls": [{"name": "goto_hang_agent", "args": {}}, {"name": "block", "args": {}}]}
    per_turn = 4  # coordinator, agent, coordinator (hop limit → suspend), suspend
    phase2 = [goto("math"), call("calculate", expression="2+2"), FINALIZE, {"content": "2+2 is 4."}]
    model = ScriptedChatModel.from_items([item] * (HUNG * per_turn) + phase2)
    settings = make_settings(
        builtin_plugins=["math"], max_agent_hops=1, tool_timeout=1.5, plugin_max_threads=HUNG
    )
    app = create_app(settings, engine_kwargs={"model": model, "plugins": [HangPlugin]})
    with live_server(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        assert client.get("/ready").json()["status"] == "ready"

        def hung_turn(i: int) -> dict[str, Any]:
            with httpx.Client(base_url=url, timeout=60) as c:
                return c.post("/api/v1/chat", json={"message": f"Block {i}."}).json()

        with ThreadPoolExecutor(HUNG) as pool:
            answers = list(pool.map(hung_turn, range(HUNG)))
        for answer in answers:
            assert answer["response"].strip()
            assert "did not finish within" in answer["trace"]["tools_used"][0]["error"]
        assert model.remaining == len(phase2)
        for _ in range(HUNG):  # every hung call really started in its own thread
            assert STARTED.acquire(timeout=30)

        ready = client.get("/ready")
        assert ready.status_code == 200
        body = ready.json()
        assert body["status"] == "degraded"
        assert body["checks"]["plugin:hang"].startswith(f"degraded: {HUNG}/{HUNG} threads busy")
        assert "math" not in " ".join(body["checks"])

        started = time.monotonic()
        answer = client.post("/api/v1/chat", json={"message": "What is 2+2?"}).json()
        assert answer["response"] == "2+2 is 4."
        [used] = answer["trace"]["tools_used"]
        assert (used["name"], used["result"], used["error"]) == ("calculate", "4", None)
        assert time.monotonic() - started < 20  # generous: it must not wait for the hung threads

        RELEASE.set()
        deadline = time.monotonic() + 30
        while client.get("/ready").json()["status"] != "ready":
            assert time.monotonic() < deadline, "the plugin did not recover after its threads returned"
            time.sleep(0.05)


async def test_saturated_plugin_fails_fast_with_a_clear_error() -> None:
    engine, _ = _engine(
        [
            goto("hang"),
            call("block"),
            goto("hang"),
            call("block"),
            FINALIZE,
            {"content": "The hang plugin is stuck."},
        ],
        tool_timeout=1.0,  # roomy: the first call must have started (and hung) before it times out
        plugin_max_threads=1,
    )
    result = await engine.ainvoke("Block twice.")
    first, second = result.trace["tools_used"]
    assert "did not finish within" in first["error"]
    # the saturation error comes only from the fail-fast path (a waited call would report its timeout)
    assert "saturated" in second["error"] and "CADENCE_PLUGIN_MAX_THREADS" in second["error"]
    assert result.response == "The hang plugin is stuck."


def test_threads_that_never_return_do_not_block_process_exit() -> None:
    code = textwrap.dedent(
        """
        import asyncio, threading
        from cadence.plugins.containment import PluginThreadPool

        started = threading.Event()

        def hang():
            started.set()
            threading.Event().wait()

        async def main():
            pool = PluginThreadPool("stuck", 2)
            call = asyncio.ensure_future(pool.run(hang))
            await asyncio.to_thread(started.wait)
            call.cancel()
            try:
                await call
            except asyncio.CancelledError:
                pass
            assert pool.stats().stuck == 1
            print("done", flush=True)

        asyncio.run(main())
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "done"


async def test_pool_bounds_threads_and_passes_context() -> None:
    pool = PluginThreadPool("bounded", 2)
    names: set[str] = set()
    lock = threading.Lock()

    def work() -> int:
        with lock:
            names.add(threading.current_thread().name)
        time.sleep(0.01)
        return 1

    assert sum(await asyncio.gather(*[pool.run(work) for _ in range(20)])) == 20
    assert 1 <= len(names) <= 2 and all(n.startswith("cadence-plugin-bounded") for n in names)
    assert pool.stats().busy == 0 and pool.stats().stuck == 0


async def test_plugin_agent_code_faults_are_contained() -> None:
    class BadPromptAgent(BaseAgent):
        def get_tools(self) -> list[Any]:
            return []

        def get_system_prompt(self) -> str:
            raise SystemExit("prompt")

    class BadPromptPlugin(BasePlugin):
        @classmethod
        def get_metadata(cls) -> PluginMetadata:
            return PluginMetadata(name="badprompt", version="1.0.0", description="Fails in its prompt.")

        @classmethod
        def create_agent(cls) -> BaseAgent:
            return BadPromptAgent(cls.get_metadata())

    model = ScriptedChatModel.from_items([goto("badprompt"), FINALIZE, {"content": "That agent is broken."}])
    engine = Cadence(make_settings(builtin_plugins=[]), model=model, plugins=[BadPromptPlugin])
    result = await engine.ainvoke("Use the broken agent.")
    assert result.response == "That agent is broken."
    assert any(e["code"] == "agent_error" and "SystemExit" in e["message"] for e in result.trace["errors"])


async def test_empty_and_tool_only_final_replies_fall_back() -> None:
    for reply in (
        {"content": ""},
        {"content": "  "},
        {"content": "\u200b\u2060\ufeff \x00"},  # zero-width, byte-order mark, NUL: nothing shows
        {"content": "<think>The user wants 4.</think>"},  # only reasoning, no answer
        {"content": "<think>unclosed"},
        {"tool_calls": [{"name": "goto_finalize", "args": {}}]},
        # punctuation alone says nothing (each had come back as a success)
        {"content": "."},
        {"content": '""'},
        {"content": "```\n```"},
    ):
        engine, _ = _engine([FINALIZE, reply])
        result = await engine.ainvoke("What is 2+2?")
        assert result.response.strip()
        assert any(e["code"] == "empty_answer" for e in result.trace["errors"])
        assert result.error is not None and result.error["code"] == "empty_answer"  # not a success
        key = thread_key(engine.settings.default_user, result.thread_id)
        state = await engine.graph.aget_state({"configurable": {"thread_id": key}})
        assert is_fallback(state.values["messages"][-1])


def test_server_keeps_serving_after_tools_exit() -> None:
    script: list[dict[str, Any]] = []
    for name in ("crash_async", "crash_sync"):
        for kind in ("system_exit", "keyboard_interrupt"):
            script += [goto("crash"), call(name, kind=kind), FINALIZE, {"content": f"{name} {kind} failed."}]
    model = ScriptedChatModel.from_items(script)
    app = create_app(
        make_settings(builtin_plugins=[]), engine_kwargs={"model": model, "plugins": [CrashPlugin]}
    )
    with live_server(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        for name in ("crash_async", "crash_sync"):
            for kind in ("system_exit", "keyboard_interrupt"):
                resp = client.post("/api/v1/chat", json={"message": "Crash."})
                assert resp.status_code == 200
                assert resp.json()["response"] == f"{name} {kind} failed."
                assert "crashed" in resp.json()["trace"]["tools_used"][0]["error"]
                assert client.get("/health").status_code == 200


def test_a_lone_surrogate_in_a_tool_result_is_replaced_everywhere() -> None:
    """A tool's unencodable text (a lone surrogate) becomes U+FFFD: JSON, SSE, history and trace encode."""
    script: list[dict[str, Any]] = []
    for where in ("json", "sse"):
        script += [goto("crash"), call("broken_text", where=where), FINALIZE, {"content": f"done {where}"}]
    model = ScriptedChatModel.from_items(script)
    app = create_app(
        make_settings(builtin_plugins=[]), engine_kwargs={"model": model, "plugins": [CrashPlugin]}
    )
    with live_server(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        resp = client.post("/api/v1/chat", json={"message": "Broken text, please."})
        assert resp.status_code == 200, resp.text
        assert resp.json()["trace"]["tools_used"][0]["result"] == "bad \ufffd text from json"
        thread = resp.json()["thread_id"]
        with client.stream(
            "POST", "/api/v1/chat/stream", json={"message": "Again.", "thread_id": thread}
        ) as r:
            body = "".join(r.iter_text())
        assert r.status_code == 200 and "event: final" in body and "bad \ufffd text from sse" in body
        history = client.get(f"/api/v1/threads/{thread}").json()
        assert "bad \ufffd text from json" in str(history)
        assert client.get("/health").status_code == 200


HANGING_PLUGIN = '''
import threading
from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, tool

@tool
def block() -> str:
    """Never return."""
    threading.Event().wait()
    return "never"

class HangAgent(BaseAgent):
    def get_tools(self):
        return [block]
    def get_system_prompt(self):
        return "You block."

class HangPlugin(BasePlugin):
    @classmethod
    def get_metadata(cls):
        return PluginMetadata(name="hang", version="1.0.0", description="A tool that never returns.")
    @classmethod
    def create_agent(cls):
        return HangAgent(cls.get_metadata())
'''


def test_sigterm_stops_a_server_whose_tool_never_returns(tmp_path: Path) -> None:
    """A real ``cadence serve`` process exits on SIGTERM although a tool thread never returns."""
    import json
    import os
    import signal
    import socket

    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "hang.py").write_text(HANGING_PLUGIN)
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps([goto("hang"), call("block"), FINALIZE, {"content": "It hung."}]), encoding="utf-8"
    )
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CADENCE_")},
        "CADENCE_LLM": f"scripted:{script}",
        "CADENCE_PLUGINS_DIR": str(plugins),
        "CADENCE_BUILTIN_PLUGINS": "",
        "CADENCE_ENTRY_POINTS_ENABLED": "false",
        "CADENCE_DATA_DIR": str(tmp_path / "data"),
        "CADENCE_DATABASE_URL": "memory://",
        "CADENCE_TOOL_TIMEOUT": "0.5",
        "CADENCE_LOG_LEVEL": "WARNING",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from cadence.cli.main import main; main()",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        answer = httpx.post(f"{url}/api/v1/chat", json={"message": "Block."}, timeout=60).json()
        assert answer["response"] == "It hung."
        assert "did not finish within" in answer["trace"]["tools_used"][0]["error"]
        proc.send_signal(signal.SIGTERM)
        # generous bound; uvicorn shuts down gracefully, then re-raises the signal it caught
        assert proc.wait(timeout=30) in (0, -signal.SIGTERM)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@tool
def sync_state(state: Annotated[dict, InjectedState], config: RunnableConfig) -> str:
    """Count the messages (injected state) and see the run config, from a pool thread."""
    emit({"type": "progress", "tool": "sync_state"})
    return f"sync {len(state['messages'])} {bool(config.get('configurable'))}"


@tool
async def async_state(state: Annotated[dict, InjectedState], config: RunnableConfig) -> str:
    """Count the messages (injected state) and see the run config, in a contained coroutine."""
    emit({"type": "progress", "tool": "async_state"})
    return f"async {len(state['messages'])} {bool(config.get('configurable'))}"


async def test_contained_tools_keep_injection_config_and_progress_events() -> None:
    model = ScriptedChatModel.from_items(
        [
            goto("inject"),
            {"tool_calls": [{"name": "sync_state", "args": {}}, {"name": "async_state", "args": {}}]},
            FINALIZE,
            {"content": "ok"},
        ]
    )
    engine = Cadence(
        make_settings(builtin_plugins=[]),
        model=model,
        plugins=[tool_plugin("inject", [sync_state, async_state])],
    )
    events = [event async for event in engine.astream("Count.")]
    assert sorted(e["tool"] for e in events if e["type"] == "progress") == ["async_state", "sync_state"]
    used = {u["name"]: (u["result"], u["error"]) for u in events[-1]["trace"]["tools_used"]}
    assert used == {"sync_state": ("sync 4 True", None), "async_state": ("async 4 True", None)}


@pytest.mark.parametrize("behaviour", ["raises", "says_back"])
async def test_should_continue_cannot_strand_tool_calls(behaviour: str) -> None:
    @tool
    def shout(text: str) -> str:
        """Upper-case the text."""
        return text.upper()

    class OddAgent(BaseAgent):
        def get_tools(self) -> list[Any]:
            return [shout]

        def get_system_prompt(self) -> str:
            return "You shout."

        @staticmethod
        def should_continue(state: dict[str, Any]) -> str:
            if behaviour == "raises":
                raise SystemExit("should_continue")
            return "back"

    class OddPlugin(BasePlugin):
        @classmethod
        def get_metadata(cls) -> PluginMetadata:
            return PluginMetadata(name="odd", version="1.0.0", description="Routes its own way.")

        @classmethod
        def create_agent(cls) -> BaseAgent:
            return OddAgent(cls.get_metadata())

    model = ScriptedChatModel.from_items([goto("odd"), call("shout", text="hi"), FINALIZE, {"content": "HI"}])
    engine = Cadence(make_settings(builtin_plugins=[]), model=model, plugins=[OddPlugin])
    result = await engine.ainvoke("Shout hi.")
    assert "HI" in result.response
    assert [(u["name"], u["result"]) for u in result.trace["tools_used"]] == [("shout", "HI")]
    assert_no_unanswered_calls(model)


class ThreadNameTool(BaseTool):
    """A hand-written synchronous BaseTool subclass (no ``_arun``)."""

    name: str = "thread_name"
    description: str = "The name of the thread the tool runs in; exits when asked to."

    def _run(self, exit_code: int = 0) -> str:
        if exit_code:
            raise SystemExit(exit_code)
        return threading.current_thread().name


async def test_hand_written_sync_tools_run_in_the_plugin_pool_and_are_contained() -> None:
    model = ScriptedChatModel.from_items(
        [
            goto("custom"),
            {
                "tool_calls": [
                    {"name": "thread_name", "args": {"exit_code": 0}},
                    {"name": "thread_name", "args": {"exit_code": 2}},
                ]
            },
            FINALIZE,
            {"content": "Done."},
        ]
    )
    engine = Cadence(
        make_settings(builtin_plugins=[]), model=model, plugins=[tool_plugin("custom", [ThreadNameTool()])]
    )
    result = await engine.ainvoke("Which thread?")
    ok, crashed = result.trace["tools_used"]
    assert ok["result"].startswith("cadence-plugin-custom-")
    assert crashed["result"] is None and "SystemExit: 2" in crashed["error"]


async def test_contained_tools_carry_evaluated_annotations_and_still_get_their_config() -> None:
    """Wrapping resolves a tool's string annotations once (LangChain reads them on every call)."""
    from langchain_core.tools import tool

    from cadence.plugins.containment import contain_tools

    seen: list[Any] = []

    @tool
    def stamp(text: str, config: RunnableConfig) -> str:
        """Echo ``text`` and note the run's config."""
        seen.append(config)
        return text.upper()

    pool = PluginThreadPool("stamp", 2)
    (contained,) = contain_tools([stamp], plugin="stamp", pool=pool)
    hints = contained.coroutine.__annotations__  # type: ignore[union-attr]
    assert hints["text"] is str and hints["config"] is RunnableConfig  # objects, not strings
    out = await contained.ainvoke({"text": "hi"}, config={"tags": ["probe"]})
    assert out == "HI"
    assert seen and "probe" in (seen[0].get("tags") or [])
