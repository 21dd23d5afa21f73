"""contain_tools (cadence.plugins.containment): the contained copies behave as the plugin's tools."""

from __future__ import annotations

import logging
import threading
import time

import pytest
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import StructuredTool, tool
from langchain_core.tools.base import _get_runnable_config_param

from cadence.errors import ToolExecutionError
from cadence.plugins.containment import ContainedTool, PluginThreadPool, _CollectionClock, contain_tools
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
