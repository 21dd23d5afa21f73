"""The seeds' examples and the guards, driven by the scripted model."""

from __future__ import annotations

from langchain_core.messages import AIMessage, ToolMessage
from tests.conftest import FINALIZE, call, goto


async def test_agent_answers_directly_gets_synthesized_back_call(engine_factory) -> None:
    engine, model = engine_factory([goto("math"), {"content": "2+2=4"}, FINALIZE, {"content": "2 + 2 is 4."}])
    result = await engine.ainvoke("What is 2+2?", thread_id="t1")
    assert result.response == "2 + 2 is 4."
    assert [r.node for r in model.records] == ["coordinator", "math_agent", "coordinator", "synthesizer"]
    state = (await engine.graph.aget_state({"configurable": {"thread_id": "local::t1"}})).values
    agent_msg = next(m for m in state["messages"] if isinstance(m, AIMessage) and m.name == "math_agent")
    assert agent_msg.content == "2+2=4"
    assert [c["name"] for c in agent_msg.tool_calls] == ["back"]
    back_result = next(m for m in state["messages"] if isinstance(m, ToolMessage) and m.content == "back")
    assert back_result.tool_call_id == agent_msg.tool_calls[0]["id"]
    assert result.trace["routing_history"] == ["math"]
    assert result.trace["agent_hops"] == 1
    assert result.trace["tool_hops"] == 0
    assert result.trace["suspended"] is False


async def test_calculate_uses_math_tool(engine_factory) -> None:
    engine, model = engine_factory(
        [goto("math"), call("calculate", expression="15 * 23"), FINALIZE, {"content": "15 * 23 = 345"}]
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    assert result.response == "15 * 23 = 345"
    [used] = result.trace["tools_used"]
    assert used["name"] == "calculate" and used["result"] == "345" and used["agent"] == "math"
    assert used["error"] is None and used["duration_ms"] is not None
    assert result.trace["tool_hops"] == 1
    # the synthesizer saw the tool result
    synth = model.records[-1]
    assert synth.node == "synthesizer"
    assert any("345" in str(m.content) for m in synth.messages)


async def test_two_agent_example(engine_factory, tmp_path, monkeypatch) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "python.md").write_text(
        "# Python 3.7\n\nPython 3.7 was released in 2018 and made async and await reserved keywords.\n"
    )
    monkeypatch.setenv("CADENCE_DOCS_DIR", str(corpus))
    engine, model = engine_factory(
        [
            goto("docs"),
            call("search_docs", query="Python async programming"),
            goto("math"),
            call("calculate", expression="2026 - 2018"),
            FINALIZE,
            {"content": "Python 3.7 (2018) made async/await keywords; that was 8 years ago."},
        ],
    )
    result = await engine.ainvoke(
        "Search for Python async programming info and calculate years since Python 3.7 release"
    )
    assert result.trace["routing_history"] == ["docs", "math"]
    assert result.trace["agent_hops"] == 2
    assert result.trace["tool_hops"] == 2
    names = [t["name"] for t in result.trace["tools_used"]]
    assert names == ["search_docs", "calculate"]
    assert "2018" in result.trace["tools_used"][0]["result"]
    assert result.trace["tools_used"][1]["result"] == "8"
    assert "8 years" in result.response


async def test_hop_limit_example_suspends(engine_factory) -> None:
    engine, model = engine_factory(
        [
            goto("math"),
            {"content": "partial 1"},
            goto("info"),
            {"content": "partial 2"},
            goto("docs"),
            {"content": "partial 3"},
            goto("math"),
            {"content": "I could only get partway: partial results 1-3."},
        ],
        max_agent_hops=3,
    )
    result = await engine.ainvoke("I need a very detailed analysis that requires multiple agents")
    assert result.trace["suspended"] is True
    assert result.trace["suspend_reason"] == "max_agent_hops"
    assert result.trace["agent_hops"] == 3
    assert result.trace["routing_history"] == ["math", "info", "docs"]
    assert model.records[-1].node == "suspend"
    assert result.response.startswith("I could only get partway")


async def test_agent_hop_limit_triggers_exactly_at_limit(engine_factory) -> None:
    within, _ = engine_factory(
        [goto("math"), {"content": "a"}, goto("info"), {"content": "b"}, FINALIZE, {"content": "ok"}],
        max_agent_hops=2,
    )
    r1 = await within.ainvoke("q")
    assert r1.trace["suspended"] is False and r1.trace["agent_hops"] == 2
    over, model = engine_factory(
        [
            goto("math"),
            {"content": "a"},
            goto("info"),
            {"content": "b"},
            goto("docs"),
            {"content": "stopped"},
        ],
        max_agent_hops=2,
    )
    r2 = await over.ainvoke("q")
    assert r2.trace["suspended"] is True and r2.trace["suspend_reason"] == "max_agent_hops"
    assert r2.trace["agent_hops"] == 2
    assert [r.node for r in model.records][-1] == "suspend"


async def test_tool_hop_limit_triggers_exactly_at_limit(engine_factory) -> None:
    two_calls = {
        "tool_calls": [
            {"name": "calculate", "args": {"expression": "1+1"}},
            {"name": "calculate", "args": {"expression": "2+2"}},
        ]
    }
    under, _ = engine_factory([goto("math"), two_calls, FINALIZE, {"content": "2 and 4"}], max_tool_hops=3)
    r1 = await under.ainvoke("q")
    assert r1.trace["suspended"] is False and r1.trace["tool_hops"] == 2
    at, model = engine_factory([goto("math"), two_calls, {"content": "2 and 4 (stopped)"}], max_tool_hops=2)
    r2 = await at.ainvoke("q")
    assert r2.trace["suspended"] is True and r2.trace["suspend_reason"] == "max_tool_hops"
    assert r2.trace["tool_hops"] == 2
    # the coordinator did not spend a model call once the limit was reached
    assert [r.node for r in model.records] == ["coordinator", "math_agent", "suspend"]


async def test_consecutive_same_agent_guard(engine_factory) -> None:
    script = [
        goto("math"),
        {"content": "1"},
        goto("math"),
        {"content": "2"},
        goto("math"),
        {"content": "stop"},
    ]
    engine, model = engine_factory(script, coordinator_consecutive_agent_route_limit=2)
    result = await engine.ainvoke("q")
    assert result.trace["suspended"] is True
    assert result.trace["suspend_reason"] == "consecutive_agent_routes"
    assert result.trace["routing_history"] == ["math", "math"]
    at_limit, _ = engine_factory(
        [goto("math"), {"content": "1"}, goto("math"), {"content": "2"}, FINALIZE, {"content": "done"}],
        coordinator_consecutive_agent_route_limit=2,
    )
    ok = await at_limit.ainvoke("q")
    assert ok.trace["suspended"] is False


async def test_consecutive_counter_resets_on_change_of_agent(engine_factory) -> None:
    script = [
        goto("math"), {"content": "1"},
        goto("math"), {"content": "2"},
        goto("info"), {"content": "3"},
        goto("math"), {"content": "4"},
        goto("math"), {"content": "5"},
        FINALIZE, {"content": "done"},
    ]  # fmt: skip
    engine, _ = engine_factory(script, coordinator_consecutive_agent_route_limit=2)
    result = await engine.ainvoke("q")
    assert result.trace["suspended"] is False
    assert result.trace["routing_history"] == ["math", "math", "info", "math", "math"]


async def test_unknown_route_ends_in_synthesizer(engine_factory) -> None:
    engine, model = engine_factory([goto("weather"), {"content": "I can't check the weather."}])
    result = await engine.ainvoke("Weather in Paris?")
    assert result.response == "I can't check the weather."
    assert [r.node for r in model.records] == ["coordinator", "synthesizer"]
    assert result.trace["agent_hops"] == 0


async def test_malformed_route_ends_in_synthesizer(engine_factory) -> None:
    engine, model = engine_factory(
        [{"tool_calls": [{"name": "!!not a tool", "args": {"x": 1}}]}, {"content": "fallback"}]
    )
    result = await engine.ainvoke("q")
    assert result.response == "fallback"
    assert model.records[-1].node == "synthesizer"


async def test_reply_without_tool_call_becomes_finalize(engine_factory) -> None:
    engine, model = engine_factory([{"content": "Hello there"}, {"content": "Hi! How can I help?"}])
    result = await engine.ainvoke("hi")
    assert result.response == "Hi! How can I help?"
    state = (
        await engine.graph.aget_state({"configurable": {"thread_id": f"local::{result.thread_id}"}})
    ).values
    coord = [m for m in state["messages"] if isinstance(m, AIMessage) and m.name == "coordinator"]
    assert coord[0].tool_calls[0]["name"] == "goto_finalize"
    assert coord[0].content == ""


async def test_only_one_route_per_turn(engine_factory) -> None:
    parallel = {
        "tool_calls": [{"name": "goto_math_agent", "args": {}}, {"name": "goto_info_agent", "args": {}}]
    }
    engine, model = engine_factory([parallel, {"content": "4"}, FINALIZE, {"content": "4"}])
    result = await engine.ainvoke("q")
    assert result.trace["routing_history"] == ["math"]


async def test_conversation_continues_on_the_same_thread(engine_factory) -> None:
    engine, model = engine_factory(
        [goto("math"), call("calculate", expression="2+2"), FINALIZE, {"content": "4"},
         goto("math"), call("calculate", expression="4*10"), FINALIZE, {"content": "40"}]
    )  # fmt: skip
    first = await engine.ainvoke("What is 2+2?", thread_id="conv")
    second = await engine.ainvoke("Times ten?", thread_id="conv")
    assert (first.response, second.response) == ("4", "40")
    # counters are per turn
    assert second.trace["agent_hops"] == 1 and second.trace["tool_hops"] == 1
    # the second coordinator call saw the first turn's question and answer
    second_coord = [r for r in model.records if r.node == "coordinator"][2]
    texts = [str(m.content) for m in second_coord.messages]
    assert "What is 2+2?" in texts and "Times ten?" in texts


async def test_recursion_limit_is_set_from_settings(engine_factory) -> None:
    engine, _ = engine_factory([FINALIZE, {"content": "x"}], max_agent_hops=7)
    assert engine.settings.graph_recursion_limit == 4 * 7 + 2 * 50 + 10
    _, config, *_ = engine._prepare("q", None, None, None, None)
    assert config["recursion_limit"] == 138
