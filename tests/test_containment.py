"""contain_tools (cadence.plugins.containment): the contained copies behave as the plugin's tools."""

from __future__ import annotations

import threading

import pytest
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import StructuredTool, tool
from langchain_core.tools.base import _get_runnable_config_param

from cadence.plugins.containment import ContainedTool, PluginThreadPool, contain_tools


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
