"""The engine's event stream: node, agent, tool, token and final events."""

from __future__ import annotations

from tests.conftest import FINALIZE, call, goto


async def test_stream_events_for_a_tool_turn(engine_factory) -> None:
    engine, _ = engine_factory(
        [goto("math"), call("calculate", expression="15 * 23"), FINALIZE, {"content": "15 * 23 is 345"}]
    )
    events = [e async for e in engine.astream("Calculate 15 * 23")]
    types = [e["type"] for e in events]
    assert types[0] == "node" and types[-1] == "final"
    assert "agent_start" in types and "agent_end" in types
    start = next(e for e in events if e["type"] == "tool_start")
    assert start["name"] == "calculate" and start["args"] == {"expression": "15 * 23"}
    end = next(e for e in events if e["type"] == "tool_end")
    assert end["result"] == "345" and end["error"] is False
    tokens = "".join(e["text"] for e in events if e["type"] == "token")
    assert tokens == "15 * 23 is 345"
    final = events[-1]
    assert final["response"] == "15 * 23 is 345" and final["trace"]["routing_history"] == ["math"]


async def test_stream_reports_suspend(engine_factory) -> None:
    engine, _ = engine_factory(
        [goto("math"), {"content": "1"}, goto("math"), {"content": "stopped"}], max_agent_hops=1
    )
    events = [e async for e in engine.astream("q")]
    suspend = next(e for e in events if e["type"] == "suspend")
    assert suspend["reason"]["code"] == "max_agent_hops"


async def test_consumer_stopping_early_leaves_a_valid_thread(engine_factory) -> None:
    from cadence.orchestration.safety import unanswered_tool_calls

    engine, _ = engine_factory(
        [goto("math"), {"delay_s": 5, "content": "slow"}, FINALIZE, {"content": "later answer"}]
    )
    stream = engine.astream("q", thread_id="early")
    async for event in stream:
        if event["type"] == "agent_start":
            break
    await stream.aclose()
    state = (await engine.graph.aget_state({"configurable": {"thread_id": "local::early"}})).values
    assert unanswered_tool_calls(state["messages"]) == []
    assert state["messages"][-1].name == "synthesizer"
    assert [m.content for m in state["messages"] if m.type == "human"] == ["q"]


async def test_ids_with_the_key_separator_are_rejected(engine_factory) -> None:
    import pytest

    from cadence.errors import ValidationError

    engine, _ = engine_factory([])
    with pytest.raises(ValidationError, match="may not contain"):
        await engine.ainvoke("q", thread_id="a::b")


async def test_tools_can_emit_progress_events(engine_factory) -> None:
    from cadence.orchestration.engine import emit
    from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, tool

    @tool
    async def crawl(pages: int) -> str:
        """Pretend to crawl pages."""
        for i in range(pages):
            emit({"type": "progress", "tool": "crawl", "done": i + 1, "total": pages})
        return f"crawled {pages}"

    class CrawlAgent(BaseAgent):
        def get_tools(self):
            return [crawl]

        def get_system_prompt(self) -> str:
            return "crawl"

    class CrawlPlugin(BasePlugin):
        @classmethod
        def get_metadata(cls) -> PluginMetadata:
            return PluginMetadata(name="crawler", version="1.0", description="Crawls web pages for text.")

        @classmethod
        def create_agent(cls) -> BaseAgent:
            return CrawlAgent(cls.get_metadata())

    engine, _ = engine_factory(
        [goto("crawler"), call("crawl", pages=3), FINALIZE, {"content": "done"}],
        plugins=[CrawlPlugin],
        builtin_plugins=[],
    )
    events = [e async for e in engine.astream("crawl please")]
    progress = [e for e in events if e["type"] == "progress"]
    assert [e["done"] for e in progress] == [1, 2, 3]
