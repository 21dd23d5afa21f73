"""contain_tools (cadence.plugins.containment): the contained copies behave as the plugin's tools."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Generator
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool, tool
from langchain_core.tools.base import _get_runnable_config_param
from tests.conftest import FINALIZE, call, goto, make_settings, tool_plugin

from cadence.errors import ToolExecutionError
from cadence.orchestration.engine import Cadence, thread_key
from cadence.orchestration.tool_logging import logged_tool_call, tool_error_message
from cadence.plugins.containment import (
    ContainedTool,
    PluginThreadPool,
    ToolCrashedError,
    _CollectionClock,
    contain_tools,
    run_tool_in_pool,
)
from cadence.sdk import INLINE_METADATA_KEY, inline, is_inline


@pytest.fixture
def pool() -> PluginThreadPool:
    return PluginThreadPool("demo", max_threads=2)


@tool
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return f"{a + b} on {threading.current_thread().name}"


@tool
def tagged(x: str, config: RunnableConfig) -> str:
    """Echo with the run's tags."""
    return f"{x} {sorted(config.get('tags') or [])}"


class CustomTool(StructuredTool):
    """A plugin's own StructuredTool subclass."""


def test_a_plain_tool_becomes_a_contained_tool_with_the_same_fields(pool: PluginThreadPool) -> None:
    add.metadata = {"cadence_approval": {"reason": "test"}}
    try:
        (contained,) = contain_tools([add], plugin="demo", pool=pool)
    finally:
        add.metadata = None
    assert isinstance(contained, ContainedTool)
    assert (contained.name, contained.description) == (add.name, add.description)
    assert contained.args == add.args
    assert contained.metadata == {"cadence_approval": {"reason": "test"}}
    assert contained.func is add.func and contained.coroutine is not None
    assert contained.invoke({"a": 2, "b": 3}).startswith("5 on ")  # the synchronous path is LangChain's


async def test_a_contained_call_runs_in_the_plugins_pool(pool: PluginThreadPool) -> None:
    (contained,) = contain_tools([add], plugin="demo", pool=pool)
    out = await contained.ainvoke({"a": 2, "b": 3})
    assert out.startswith("5 on ") and threading.current_thread().name not in out
    message = await contained.ainvoke(
        {"name": "add", "args": {"a": 1, "b": 1}, "id": "c1", "type": "tool_call"}
    )
    assert message.tool_call_id == "c1" and message.content.startswith("2 on ")


class _Described:
    """A return value whose text is made by ``__str__`` (noting the thread that made it)."""

    made_on: ClassVar[list[str]] = []

    def __str__(self) -> str:
        self.made_on.append(threading.current_thread().name)
        return "described"


@tool
def describes() -> Any:
    """Return an object that is not text."""
    return _Described()


@tool
def listing() -> Any:
    """Return a list of numbers."""
    return [1, 2, 3]


@tool(response_format="content_and_artifact")
def with_artifact() -> tuple[str, dict[str, int]]:
    """Return content and an artifact."""
    return "content", {"n": 1}


async def test_a_results_text_is_made_in_the_plugins_thread(pool: PluginThreadPool) -> None:
    """Not on the event loop: a slow ``__str__`` or a long list would stall every conversation."""
    described, listed, artifact = contain_tools([describes, listing, with_artifact], plugin="demo", pool=pool)
    _Described.made_on.clear()
    message = await described.ainvoke({"name": "describes", "args": {}, "id": "c1", "type": "tool_call"})
    assert message.content == "described"
    assert _Described.made_on and threading.current_thread().name not in _Described.made_on
    # as LangChain makes it: JSON where it can
    listed_message = await listed.ainvoke({"name": "listing", "args": {}, "id": "c2", "type": "tool_call"})
    assert listed_message.content == "[1, 2, 3]"
    out = await artifact.ainvoke({"name": "with_artifact", "args": {}, "id": "c3", "type": "tool_call"})
    assert (out.content, out.artifact) == ("content", {"n": 1})


class _Complaint(Exception):
    """An exception whose text is made by ``__str__`` (noting the thread that made it)."""

    made_on: ClassVar[list[str]] = []

    def __str__(self) -> str:
        self.made_on.append(threading.current_thread().name)
        return "complained"


@tool
def complains() -> str:
    """Raise an exception that is slow to describe."""
    raise _Complaint


async def test_an_exceptions_text_is_made_in_the_plugins_thread(pool: PluginThreadPool) -> None:
    """What a synchronous tool raises is described where it ran, not on the event loop."""
    (contained,) = contain_tools([complains], plugin="demo", pool=pool)
    _Complaint.made_on.clear()
    with pytest.raises(ToolExecutionError) as caught:
        await contained.ainvoke({})
    assert caught.value.message.startswith("Error: _Complaint: complained.")
    assert isinstance(caught.value.__cause__, _Complaint)
    assert _Complaint.made_on and threading.current_thread().name not in _Complaint.made_on
    assert tool_error_message(caught.value) == caught.value.message


async def test_langchain_still_hands_the_run_config_over(pool: PluginThreadPool) -> None:
    (contained,) = contain_tools([tagged], plugin="demo", pool=pool)
    assert _get_runnable_config_param(contained._arun) == "config"
    assert await contained.ainvoke({"x": "hi"}, {"tags": ["t1"]}) == "hi ['t1']"


def test_a_subclass_keeps_its_class(pool: PluginThreadPool) -> None:
    custom = CustomTool.from_function(add.func, name="custom_add", description="Add.")
    (contained,) = contain_tools([custom], plugin="demo", pool=pool)
    assert type(contained) is CustomTool and contained.coroutine is not None


# -- quick tools (cadence.sdk.inline) -----------------------------------------------------------
def _quick(delay: float = 0.0, name: str = "where") -> StructuredTool:
    def where(x: int) -> str:
        """Say which thread ran the call."""
        if delay:
            time.sleep(delay)
        return f"{x} on {threading.current_thread().name}"

    return inline(StructuredTool.from_function(where, name=name))


def test_inline_marks_the_tool_in_its_metadata() -> None:
    marked = _quick()
    assert is_inline(marked) and marked.metadata == {INLINE_METADATA_KEY: True}
    assert not is_inline(add)
    with pytest.raises(TypeError, match="above @tool"):
        inline(lambda: None)  # type: ignore[arg-type]


async def test_a_quick_tool_runs_on_the_event_loop(pool: PluginThreadPool) -> None:
    (contained,) = contain_tools([_quick()], plugin="demo", pool=pool, inline_max_seconds=0.005)
    assert await contained.ainvoke({"x": 1}) == f"1 on {threading.current_thread().name}"
    assert pool.stats().busy == 0


async def test_without_a_time_limit_quick_tools_run_in_the_pool(pool: PluginThreadPool) -> None:
    (contained,) = contain_tools([_quick()], plugin="demo", pool=pool)  # CADENCE_INLINE_TOOL_MAX_MS=0
    out = await contained.ainvoke({"x": 1})
    assert out.startswith("1 on cadence-plugin-demo-")


async def test_a_quick_tool_that_is_slow_twice_moves_to_the_pool(
    pool: PluginThreadPool, caplog: pytest.LogCaptureFixture
) -> None:
    (contained,) = contain_tools([_quick(delay=0.02)], plugin="demo", pool=pool, inline_max_seconds=0.005)
    loop_thread = threading.current_thread().name
    with caplog.at_level(logging.INFO, logger="cadence.plugins.containment"):
        assert await contained.ainvoke({"x": 1}) == f"1 on {loop_thread}"  # one strike is forgiven
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert await contained.ainvoke({"x": 2}) == f"2 on {loop_thread}"
        warned = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warned) == 1 and warned[0].tool == "where" and warned[0].took_ms >= 20
        assert "plugin's threads" in warned[0].getMessage()
        for x in (3, 4):
            assert (await contained.ainvoke({"x": x})).startswith(f"{x} on cadence-plugin-demo-")
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1


async def test_garbage_collection_is_not_held_against_a_quick_tool(pool: PluginThreadPool) -> None:
    def collects(x: int) -> str:
        """Pause in a collection."""
        _CollectionClock._on_collection("start", {})
        time.sleep(0.02)  # as long as a full collection of a large heap
        _CollectionClock._on_collection("stop", {})
        return threading.current_thread().name

    quick = inline(StructuredTool.from_function(collects, name="collects"))
    (contained,) = contain_tools([quick], plugin="demo", pool=pool, inline_max_seconds=0.005)
    for x in range(3):
        assert await contained.ainvoke({"x": x}) == threading.current_thread().name


async def test_a_quick_tool_cannot_stop_the_loop_with_system_exit(pool: PluginThreadPool) -> None:
    def leave(x: int) -> str:
        """Exit the process."""
        raise SystemExit(3)

    quick = inline(StructuredTool.from_function(leave, name="leave"))
    (contained,) = contain_tools([quick], plugin="demo", pool=pool, inline_max_seconds=0.005)
    with pytest.raises(ToolExecutionError, match="crashed"):
        await contained.ainvoke({"x": 1})


def test_the_builtin_calculator_is_quick_and_statistics_is_not() -> None:
    from cadence.builtins.math import MATH_TOOLS

    assert {t.name for t in MATH_TOOLS if is_inline(t)} == {
        "calculate",
        "percentage",
        "percent_of",
        "percent_change",
    }


# -- GeneratorExit: the tool's own is a fault, the closing of the awaiting coroutine is not ---------------
@tool
def exits_generator_sync() -> str:
    """Raise GeneratorExit from a synchronous tool."""
    raise GeneratorExit("g")


@tool
async def exits_generator_async() -> str:
    """Raise GeneratorExit from an asynchronous tool."""
    await asyncio.sleep(0)
    raise GeneratorExit("g")


class _Suspend:
    """An awaitable that suspends once (no event loop needed), so a test can close the coroutine there."""

    def __await__(self) -> Generator[None, None, None]:
        yield


@tool
async def waits() -> str:
    """Suspend once, then answer."""
    await _Suspend()
    return "done"


@pytest.mark.parametrize("raiser", [exits_generator_sync, exits_generator_async])
async def test_a_tool_raising_generator_exit_is_contained(pool: PluginThreadPool, raiser: Any) -> None:
    (contained,) = contain_tools([raiser], plugin="demo", pool=pool)
    with pytest.raises(ToolCrashedError, match=r"tool \w+ of the demo plugin crashed \(GeneratorExit: g\)"):
        await contained.ainvoke({})
    assert await contain_tools([add], plugin="demo", pool=pool)[0].ainvoke({"a": 1, "b": 1})


@tool
def stops_iteration() -> str:
    """Raise StopIteration from a synchronous tool (next() on an empty iterator)."""
    return next(iter([]))


async def test_a_sync_tool_raising_stop_iteration_fails_at_once(pool: PluginThreadPool) -> None:
    """An asyncio future cannot hold a StopIteration: handed over as it is, the call never completed."""
    (contained,) = contain_tools([stops_iteration], plugin="demo", pool=pool)
    with pytest.raises(
        ToolCrashedError, match=r"tool stops_iteration of the demo plugin crashed \(StopIteration\)"
    ):
        await asyncio.wait_for(contained.ainvoke({}), 5)
    assert isinstance(ToolCrashedError("x"), RuntimeError)


class ExitsGenerator(BaseTool):
    """A plugin's own synchronous BaseTool subclass (run in the pool by run_tool_in_pool)."""

    name: str = "exits_generator_custom"
    description: str = "Raise GeneratorExit."

    def _run(self) -> str:
        raise GeneratorExit


async def test_a_base_tool_subclass_raising_generator_exit_is_contained(pool: PluginThreadPool) -> None:
    with pytest.raises(ToolCrashedError, match="tool exits_generator_custom of the demo plugin crashed"):
        await run_tool_in_pool(ExitsGenerator(), pool).ainvoke({})


def test_closing_a_contained_call_still_closes_it(pool: PluginThreadPool) -> None:
    (contained,) = contain_tools([waits], plugin="demo", pool=pool)
    coroutine = contained.coroutine()
    coroutine.send(None)
    coroutine.close()  # a GeneratorExit turned into an error would raise "coroutine ignored GeneratorExit"
    assert coroutine.cr_frame is None


def _request(name: str) -> Any:
    return SimpleNamespace(tool_call={"name": name, "args": {}, "id": "c1"}, runtime=None)


async def test_a_generator_exit_reaching_the_tool_call_wrapper_is_an_error_result() -> None:
    async def execute(request: Any) -> ToolMessage:
        raise GeneratorExit("from an uncontained tool")

    result = await logged_tool_call(_request("raw"), execute, plugin="demo")
    assert isinstance(result, ToolMessage) and result.status == "error"
    assert "crashed (GeneratorExit: from an uncontained tool)" in result.content


async def test_closing_the_tool_call_wrapper_still_closes_it(caplog: pytest.LogCaptureFixture) -> None:
    async def execute(request: Any) -> ToolMessage:
        await _Suspend()
        return ToolMessage(content="ok", tool_call_id="c1")

    coroutine = logged_tool_call(_request("slow"), execute, plugin="demo")
    coroutine.send(None)  # driven by hand, inside this test's task (asyncio.timeout needs one)
    with caplog.at_level(logging.INFO):
        coroutine.close()
    assert coroutine.cr_frame is None
    assert not [r for r in caplog.records if "crash" in r.getMessage() or r.message == "tool end"]


@pytest.mark.parametrize(
    ("name", "raised"),
    [
        ("exits_generator_sync", "GeneratorExit: g"),
        ("exits_generator_async", "GeneratorExit: g"),
        ("stops_iteration", "StopIteration"),
    ],
)
async def test_a_turn_survives_a_tool_raising_generator_exit_or_stop_iteration(
    name: str, raised: str
) -> None:
    from cadence.testing import ScriptedChatModel

    model = ScriptedChatModel.from_items([goto("fault"), call(name), FINALIZE, {"content": "It failed."}])
    plugin = tool_plugin("fault", [exits_generator_sync, exits_generator_async, stops_iteration])
    engine = Cadence(make_settings(builtin_plugins=[], tool_timeout=10.0), model=model, plugins=[plugin])
    started = time.monotonic()
    result = await engine.ainvoke("Run it.", user_id="u", thread_id="t")
    assert time.monotonic() - started < 5  # not held until the tool timeout
    assert result.response == "It failed."
    [used] = result.trace["tools_used"]
    assert f"crashed ({raised})" in used["error"]
    state = await engine.graph.aget_state({"configurable": {"thread_id": thread_key("u", "t")}})
    assert state.values["messages"][0].content == "Run it."


@tool
async def ignores_cancellation() -> str:
    """Wait for ever, swallowing every cancellation."""
    while True:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(1000)


async def test_an_async_tool_ignoring_its_cancellation_ends_at_the_timeout() -> None:
    """It had held the turn past both the tool timeout and the turn's deadline, and the thread with it."""
    from cadence.testing import ScriptedChatModel

    model = ScriptedChatModel.from_items(
        [goto("fault"), call("ignores_cancellation"), FINALIZE, {"content": "It timed out."}]
    )
    plugin = tool_plugin("fault", [ignores_cancellation])
    engine = Cadence(make_settings(builtin_plugins=[], tool_timeout=0.3), model=model, plugins=[plugin])
    result = await asyncio.wait_for(engine.ainvoke("Run it.", user_id="u", thread_id="t"), 20)
    assert result.response == "It timed out."
    [used] = result.trace["tools_used"]
    assert "did not finish within 0.3s" in used["error"]
    # its coroutine was closed: nothing is left running for the event loop's shutdown to wait on
    from cadence.orchestration import tool_logging

    await asyncio.sleep(0.05)
    assert not tool_logging._abandoned


@tool
def returns_nothing() -> str:
    """Forget to return."""


@tool
async def returns_objects() -> dict:
    """Return what JSON cannot hold."""
    return {"a": object(), "b": {2, 1}, "c": b"ok"}


async def test_a_tool_returning_nothing_fails_and_data_is_said_without_reprs() -> None:
    """None had become the answer "null.", and an object's repr (with its memory address) the answer's
    text."""
    from cadence.testing import ScriptedChatModel

    model = ScriptedChatModel.from_items(
        [
            goto("fault"),
            call("returns_nothing"),
            goto("fault"),
            call("returns_objects"),
            FINALIZE,
            {"content": "Done."},
        ]
    )
    plugin = tool_plugin("fault", [returns_nothing, returns_objects])
    engine = Cadence(make_settings(builtin_plugins=[]), model=model, plugins=[plugin])
    result = await engine.ainvoke("Run them.", user_id="u", thread_id="t")
    nothing, data = result.trace["tools_used"]
    assert "the tool returned nothing (None)" in nothing["error"]
    assert data["error"] is None and data["result"] == '{"a": "<object>", "b": [1, 2], "c": "ok"}'
