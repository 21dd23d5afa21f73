"""Parallel tool calls of one agent step, bounded by CADENCE_MAX_PARALLEL_TOOLS (every mode)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from tests.conftest import FINALIZE, goto, transfer

from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, tool


class Gauge:
    """Counts the tool executions running at the same time (async and threaded)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.peak = 0

    def enter(self) -> None:
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)

    def leave(self) -> None:
        with self.lock:
            self.running -= 1


GAUGE = Gauge()


@tool
async def slow_async(n: int) -> str:
    """Wait a little (async) and echo n."""
    GAUGE.enter()
    try:
        await asyncio.sleep(0.05)
    finally:
        GAUGE.leave()
    return f"a{n}"


@tool
def slow_sync(n: int) -> str:
    """Wait a little (in a thread) and echo n."""
    GAUGE.enter()
    try:
        time.sleep(0.05)
    finally:
        GAUGE.leave()
    return f"s{n}"


class WideAgent(BaseAgent):
    """An agent whose tools report how many of them run at once."""

    def get_tools(self) -> list[Any]:
        """The two slow tools."""
        return [slow_async, slow_sync]

    def get_system_prompt(self) -> str:
        """A one-line prompt."""
        return "You are the wide agent."


class WidePlugin(BasePlugin):
    """Test plugin ``wide``."""

    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        """Metadata."""
        return PluginMetadata(name="wide", version="1.0.0", description="Runs slow tools for the tests.")

    @classmethod
    def create_agent(cls) -> BaseAgent:
        """A new agent."""
        return WideAgent(cls.get_metadata())


def many_calls(count: int) -> dict[str, Any]:
    """One agent step calling ``count`` slow tools at once (alternating async and sync)."""
    return {
        "tool_calls": [
            {"name": "slow_async" if i % 2 else "slow_sync", "args": {"n": i}} for i in range(count)
        ]
    }


@pytest.mark.parametrize(("mode", "bound"), [("coordinator", 2), ("supervisor", 3), ("supervisor", 1)])
async def test_parallel_tool_calls_never_exceed_the_bound(engine_factory, mode, bound) -> None:
    GAUGE.peak = 0
    if mode == "coordinator":
        script = [goto("wide"), many_calls(7), FINALIZE, {"content": "done"}]
    else:
        script = [transfer("wide"), many_calls(7), {"content": "done"}, FINALIZE, {"content": "done"}]
    engine, model = engine_factory(script, plugins=[WidePlugin], mode=mode, max_parallel_tools=bound)
    result = await engine.ainvoke("run them all")
    assert result.trace["tool_hops"] == 7
    assert sorted(t["result"] for t in result.trace["tools_used"]) == sorted(
        [f"s{i}" for i in range(0, 7, 2)] + [f"a{i}" for i in range(1, 7, 2)]
    )
    # never more than the bound at once, and the bound is reached (the calls do run in parallel)
    assert GAUGE.peak == bound
    assert GAUGE.running == 0
