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
    with pytest.raises(ValidationError, match="Invalid thread id"):
        await engine.ainvoke("q", thread_id="a::b")
    with pytest.raises(ValidationError, match="may not contain '::'"):
        await engine.ainvoke("q", user_id="a::b")


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


# -- <think> blocks are never answer tokens ------------------------------------------------------------
def test_the_think_filter_drops_blocks_split_across_chunks() -> None:
    from cadence.orchestration.events import ThinkFilter

    def streamed(pieces: list[str]) -> str:
        think = ThinkFilter()
        out = [think.feed("m", p) for p in pieces[:-1]]
        return "".join([*out, think.feed("m", pieces[-1], last=True)])

    assert (
        streamed(["<th", "ink>The user", " greets me.</th", "ink>", "\nHello", " there!"]) == "Hello there!"
    )
    assert streamed(["<", "t", "h", "i", "n", "k", ">", "x", "<", "/", "think", ">", "Hi"]) == "Hi"
    assert streamed(["<THINK>loud</Think>Hi"]) == "Hi"  # case-insensitive, like the final answer's split
    assert streamed(["A ", "<think>b</think>", " c"]) == "A  c"  # a block anywhere
    assert streamed(["Hi <thi", "nking never closes"]) == "Hi <thinking never closes"  # not a tag
    assert streamed(["Hi", " <think>unclosed runs to the end"]) == "Hi "
    assert streamed(["1 < 2", " and 3 <", ""]) == "1 < 2 and 3 <"  # held back, released at the end
    assert streamed([" leading space kept"]) == " leading space kept"  # no block: text as generated


async def test_think_blocks_are_not_streamed_as_tokens(engine_factory) -> None:
    engine, _ = engine_factory([FINALIZE, {"content": "<think>The user greets me.</think> Hello there!"}])
    events = [e async for e in engine.astream("Hello", user_id="dave")]
    tokens = "".join(e["text"] for e in events if e["type"] == "token")
    assert tokens == "Hello there!" and events[-1]["response"] == "Hello there!"


async def test_the_planner_roots_think_block_is_not_streamed() -> None:
    from test_planner_mode import calc, plan, planner_engine

    engine, _ = planner_engine(
        [plan("end", [calc("15 * 23")], thought="one calculation"),
         {"content": "<think>The tool said 345, so I say that.</think>15 * 23 = 345"}]
    )  # fmt: skip
    events = [e async for e in engine.astream("Calculate 15 * 23", user_id="u")]
    tokens = [e for e in events if e["type"] == "token"]
    assert tokens and all(e["node"] == "root" for e in tokens)
    assert "".join(e["text"] for e in tokens) == "15 * 23 = 345"
    final = events[-1]
    assert final["response"] == "15 * 23 = 345" and "The tool said 345" in final["trace"]["thought"]
