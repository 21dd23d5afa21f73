"""The single-agent mode (seed 003): START → agent ⇄ tools → END, the fewest model calls."""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from tests.conftest import call, make_settings

from cadence.errors import ConfigurationError, ValidationError
from cadence.orchestration.engine import Cadence
from cadence.orchestration.modes import ENTRY_NODES, MODES, check_mode
from cadence.orchestration.modes.single import after_tools
from cadence.orchestration.tones import ResponseTone
from cadence.orchestration.turn import TurnContext
from cadence.testing import ScriptedChatModel
from test_cli import assert_one_error_line, cli_env, run, use_script  # noqa: F401  (cli_env is a fixture)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "agents"


def nodes(model: ScriptedChatModel) -> list[str]:
    return [r.node for r in model.records]


def test_single_is_a_registered_mode() -> None:
    assert "single" in MODES and check_mode(" Single ") == "single"
    assert ENTRY_NODES["single"].format(agent="math") == "math_agent"


def test_graph_nodes_and_edges() -> None:
    engine = Cadence(
        make_settings(builtin_plugins=["math"], mode="single"), model=ScriptedChatModel.from_items([])
    )
    g = engine.graph.get_graph()
    assert set(g.nodes) == {"__start__", "__end__", "math_agent", "math_tools", "forward", "suspend"}
    assert {(e.source, e.target, e.conditional) for e in g.edges} == {
        ("__start__", "math_agent", True),
        ("math_agent", "math_tools", True),  # should_continue: tools
        ("math_agent", "forward", True),  # should_continue: end (the answer)
        ("math_tools", "math_agent", True),  # back to the agent
        ("math_tools", "suspend", True),  # a guard fired
        ("forward", "__end__", True),  # the answer
        ("forward", "math_agent", True),  # validation: correct sends a failing answer back once
        ("suspend", "__end__", False),
    }


def test_graph_with_several_agents_starts_at_the_turns_agent() -> None:
    engine = Cadence(
        make_settings(builtin_plugins=["math", "info"], mode="single", agent="info"),
        model=ScriptedChatModel.from_items([]),
    )
    edges = {(e.source, e.target) for e in engine.graph.get_graph().edges}
    assert {("__start__", "math_agent"), ("__start__", "info_agent")} <= edges
    assert not {"coordinator", "supervisor", "synthesizer", "control_tools"} & set(engine.graph.nodes)


async def test_one_tool_turn_costs_two_model_calls(engine_factory) -> None:
    engine, model = engine_factory(
        [call("calculate", expression="15 * 23"), {"content": "15 * 23 = 345"}],
        mode="single",
        agent="math",
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    assert result.response == "15 * 23 = 345" and result.error is None
    assert nodes(model) == ["math_agent", "math_agent"]
    trace = result.trace
    assert trace["mode"] == "single" and trace["routing_history"] == ["math"]
    assert (trace["agent_hops"], trace["tool_hops"]) == (1, 1)
    assert [c["node"] for c in trace["model_calls"]] == ["math_agent", "math_agent"]
    assert trace["tools_used"][0]["result"] == "345"
    # the second call saw the tool's result
    assert any(isinstance(m, ToolMessage) and m.content == "345" for m in model.records[1].messages)
    assert model.records[0].tools[0] == "calculate" and "back" not in model.records[0].tools


async def test_a_tool_error_passed_on_as_the_answer_says_what_failed(engine_factory) -> None:
    probe, _ = engine_factory(
        [call("calculate", expression="hello"), {"content": "-"}], mode="single", agent="math"
    )
    await probe.ainvoke("hello", thread_id="e1")
    state = await probe.graph.aget_state({"configurable": {"thread_id": "local::e1"}})
    error = next(
        m.content for m in state.values["messages"] if isinstance(m, ToolMessage) and m.status == "error"
    )
    # the agent hands the tool's error back as written (as the embedded model hands results back)
    engine, _ = engine_factory(
        [call("calculate", expression="hello"), {"content": error}], mode="single", agent="math"
    )
    result = await engine.ainvoke("hello", thread_id="e2")
    assert result.response.startswith("I couldn't find the answer: the calculate tool failed")
    assert "Error:" not in result.response and result.error is None
    assert any("was a tool error" in note for note in result.trace["notes"])
    # an answer of the agent's own about the failure stands
    engine, _ = engine_factory(
        [call("calculate", expression="hello"), {"content": "I can only calculate."}],
        mode="single",
        agent="math",
    )
    assert (await engine.ainvoke("hello", thread_id="e3")).response == "I can only calculate."


async def test_direct_answer_is_one_call_and_the_thread_stays_valid(engine_factory) -> None:
    engine, model = engine_factory(
        [{"content": "Hello! Ask me a calculation."}, {"content": "Still here."}],
        mode="single",
        agent="math",
    )
    first = await engine.ainvoke("hi", thread_id="t1")
    assert first.response == "Hello! Ask me a calculation." and nodes(model) == ["math_agent"]
    second = await engine.ainvoke("still there?", thread_id="t1")
    assert second.response == "Still here."
    # the second turn's agent saw the first exchange (persistence), without control bookkeeping
    seen = model.records[1].messages
    assert [type(m) for m in seen] == [SystemMessage, HumanMessage, AIMessage, HumanMessage]
    state = await engine.graph.aget_state({"configurable": {"thread_id": "local::t1"}})
    final = state.values["messages"][-1]
    assert final.name == "forward" and final.response_metadata["cadence_forwarded"] == "math"


async def test_markdown_agent_in_single_mode_with_summarize_text(engine_factory) -> None:
    notes = "The team decided to ship on Friday. Ben writes the notes. Lunch was good."
    engine, model = engine_factory(
        [call("summarize_text", text=notes, max_sentences=1), {"content": "Decision: ship on Friday."}],
        mode="single",
        agent="meeting_notes",
        agents_dir=[EXAMPLES],
    )
    result = await engine.ainvoke(f"Summarize: {notes}", tone="concise")
    assert result.response == "Decision: ship on Friday."
    assert nodes(model) == ["meeting_notes_agent", "meeting_notes_agent"]
    prompt = str(model.records[0].messages[0].content)
    # the file's body, then the tone and the response suggestion (its answer is the final answer)
    assert prompt.startswith("You are a meeting-notes assistant.")
    assert ResponseTone.CONCISE.description in prompt
    assert "Start with a one-line summary" in prompt
    assert result.trace["tools_used"][0]["name"] == "summarize_text"


async def test_tone_reaches_the_agent(engine_factory) -> None:
    engine, model = engine_factory([{"content": "4"}], mode="single", agent="math")
    await engine.ainvoke("2+2?", tone="formal")
    assert ResponseTone.FORMAL.description in str(model.records[0].messages[0].content)


async def test_the_agents_answer_gets_the_tones_traits(engine_factory) -> None:
    """A learning-tone question in the single mode was answered "The mean is 13." with no steps: the
    agent's answer is final here, so the tone's traits are given to it as to the synthesizer's."""
    script = [call("calculate", expression="(6 + 11 + 15 + 20) / 4"), {"content": "The mean is 13."}]
    engine, _ = engine_factory(script * 2, mode="single", agent="math")
    learning = await engine.ainvoke("How do I find the mean of 6, 11, 15 and 20?", tone="learning")
    assert learning.response.startswith("1. ") and "(6 + 11 + 15 + 20) / 4 = 13" in learning.response
    assert any("shaped to the turn's tone" in n for n in learning.trace["notes"])
    natural = await engine.ainvoke("How do I find the mean of 6, 11, 15 and 20?", tone="natural")
    assert natural.response == "The mean is 13."


async def test_tool_hops_guard_suspends(engine_factory) -> None:
    script = [
        *[call("calculate", expression=f"{i} + 1") for i in range(2)],
        {"content": "Stopped early: 1 + 1 = 2."},
    ]
    engine, model = engine_factory(script, mode="single", agent="math", max_tool_hops=2)
    result = await engine.ainvoke("count up")
    assert result.trace["suspended"] and result.trace["suspend_reason"] == "max_tool_hops"
    assert result.trace["tool_hops"] == 2
    assert nodes(model) == ["math_agent", "math_agent", "suspend"]
    assert result.response == "Stopped early: 1 + 1 = 2."


def test_the_deadline_ends_the_loop(engine_factory) -> None:
    engine, _ = engine_factory([], mode="single", agent="math")
    next_node = after_tools(engine.plugin_manager.bundles["math"])
    state = {"messages": [AIMessage(content="", tool_calls=[{"name": "calculate", "args": {}, "id": "c1"}])]}

    def runtime(deadline: float) -> SimpleNamespace:
        return SimpleNamespace(context=TurnContext(settings=engine.settings, deadline=deadline))

    update: dict = {"tool_hops": 1, "plugin_context": {}}
    assert next_node(state, update, runtime(time.monotonic() + 3600)) == "math_agent"
    assert next_node(state, update, runtime(time.monotonic() - 1)) == "suspend"
    assert update["plugin_context"]["suspend_reason"]["code"] == "deadline"


async def test_model_failure_gives_the_fallback_answer_and_an_error(engine_factory) -> None:
    engine, model = engine_factory(
        [{"raise": {"type": "error", "message": "provider down"}}], mode="single", agent="math"
    )
    result = await engine.ainvoke("2+2?")
    assert result.error is not None and result.error["code"] == "model_error"
    assert result.response.startswith("Sorry, I couldn't finish this answer")
    assert nodes(model) == ["math_agent"]


async def test_an_answer_of_reasoning_only_is_no_answer(engine_factory) -> None:
    engine, _ = engine_factory(
        [{"content": "<think>just thinking</think>"}, {"content": "<think>4 it is</think> 2+2 is 4."}],
        mode="single",
        agent="math",
    )
    empty = await engine.ainvoke("2+2?", thread_id="t1")
    assert empty.error is not None and empty.error["code"] == "empty_answer"
    assert "<think>" not in empty.response and "just thinking" not in empty.response
    answered = await engine.ainvoke("2+2?", thread_id="t1")
    assert answered.error is None and answered.response == "2+2 is 4."  # the reasoning is not shown


async def test_streamed_events(engine_factory) -> None:
    engine, _ = engine_factory(
        [call("calculate", expression="1 + 1"), {"content": "2"}], mode="single", agent="math"
    )
    events = [e async for e in engine.astream("1 + 1?")]
    assert events[0] == {"type": "node", "node": "math_agent"}
    kinds = [e["type"] for e in events if e["type"] != "node"]
    assert kinds == ["agent_start", "tool_start", "tool_end", "agent_end", "final"]
    assert events[-1]["response"] == "2"
    # each node event names the node that works next: the agent's answer goes to forward, not to its tools
    assert [e["node"] for e in events if e["type"] == "node"] == [
        "math_agent",
        "math_tools",
        "math_agent",
        "forward",
    ]


# -- which agent -------------------------------------------------------------------------------------------
async def test_agent_per_turn_and_its_checks(engine_factory) -> None:
    engine, model = engine_factory([{"content": "It is noon."}], builtin_plugins=["math", "info"])
    assert engine.mode == "coordinator"
    result = await engine.ainvoke("time?", agent="info")  # naming an agent implies the single mode
    assert result.trace["mode"] == "single" and nodes(model) == ["info_agent"]
    with pytest.raises(ValidationError) as unknown:
        engine.turn_input("hi", mode="single", agent="weather")
    assert unknown.value.code == "unknown_agent" and "info, math" in unknown.value.message
    with pytest.raises(ValidationError) as required:
        engine.turn_input("hi", mode="single")
    assert required.value.code == "agent_required" and "CADENCE_AGENT" in required.value.message
    with pytest.raises(ValidationError) as wrong_mode:
        engine.turn_input("hi", mode="supervisor", agent="info")
    assert wrong_mode.value.code == "agent_needs_single_mode"


def test_the_only_agent_needs_no_name() -> None:
    engine = Cadence(
        make_settings(builtin_plugins=["math"], mode="single"), model=ScriptedChatModel.from_items([])
    )
    assert engine.turn_input("hi").agent == "math"


def test_unknown_configured_agent_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError) as info:
        Cadence(make_settings(mode="single", agent="nobody"), model=ScriptedChatModel.from_items([]))
    assert "CADENCE_AGENT" in info.value.message and "math" in info.value.message


def test_an_agent_that_failed_to_load_says_why(tmp_path: Path) -> None:
    # the docs' walk-through: a file with a mistake, then --agent NAME; it was only 'Unknown agent'
    (tmp_path / "packing-list.md").write_text(
        "---\nname: packing_list\ndescription: Writes a packing list for a trip.\ntools: [calculator]\n---\nHi\n"
    )
    (tmp_path / "notes.md").write_text("---\nname: notes\ndescription: Takes notes of a meeting.\n---\nHi\n")
    settings = make_settings(agents_dir=[tmp_path], disabled_plugins=["notes"])
    engine = Cadence(settings, model=ScriptedChatModel.from_items([]))
    with pytest.raises(ValidationError) as failed:
        engine.turn_input("hi", agent="Packing List")
    message = failed.value.message
    assert failed.value.code == "unknown_agent" and "'Packing List' is not loaded (failed: line 4:" in message
    assert "unknown tool 'calculator'" in message and "packing-list.md" in message and "math" in message
    with pytest.raises(ValidationError) as disabled:
        engine.turn_input("hi", agent="notes")
    assert "'notes' is not loaded (disabled by CADENCE_DISABLED_PLUGINS" in disabled.value.message
    with pytest.raises(ConfigurationError) as configured:  # CADENCE_AGENT / cadence chat --agent
        Cadence(
            settings.model_copy(update={"mode": "single", "agent": "packing_list"}),
            model=engine._models("", None),
        )
    assert (
        "CADENCE_AGENT" in configured.value.message
        and "unknown tool 'calculator'" in configured.value.message
    )


# -- CLI -----------------------------------------------------------------------------------------------------
def test_cli_chat_agent(cli_env: dict[str, str], tmp_path: Path, monkeypatch) -> None:  # noqa: F811
    use_script(monkeypatch, tmp_path, [call("calculate", expression="6 * 7"), {"content": "42"}], "single")
    result = run("chat", "--agent", "math", "--json", "6 * 7?")
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["response"] == "42" and body["trace"]["mode"] == "single"
    assert [c["node"] for c in body["trace"]["model_calls"]] == ["math_agent", "math_agent"]


def test_cli_agent_errors(cli_env: dict[str, str], tmp_path: Path, monkeypatch) -> None:  # noqa: F811
    use_script(monkeypatch, tmp_path, [], "none")
    assert_one_error_line(run("chat", "--agent", "weather", "hi"), "Unknown agent 'weather'")
    assert_one_error_line(run("chat", "--agent", "math", "--mode", "supervisor", "hi"), "--agent")


def test_cli_interactive_single_mode_without_an_agent_fails_at_once(
    cli_env: dict[str, str],  # noqa: F811
    tmp_path: Path,
    monkeypatch,
) -> None:
    use_script(monkeypatch, tmp_path, [], "none")
    monkeypatch.setenv("CADENCE_BUILTIN_PLUGINS", "math,info")
    result = run("chat", "--mode", "single", input="hi\nand again\n")
    assert_one_error_line(result, "The single mode talks to one agent")
    assert "you ›" not in result.output  # no prompt: it failed before the first question


def test_cli_graph_single(cli_env: dict[str, str], monkeypatch) -> None:  # noqa: F811
    monkeypatch.setenv("CADENCE_LLM", "nope:x")
    result = run("graph", "--mode", "single")
    assert result.exit_code == 0, result.output
    for node in ("math_agent", "math_tools", "forward", "suspend"):
        assert node in result.stdout
    assert "coordinator" not in result.stdout and "synthesizer" not in result.stdout


# -- HTTP API ------------------------------------------------------------------------------------------------
def test_api_agent_field() -> None:
    import httpx

    from test_server_support import ANSWER, parse_sse, serve

    with serve(builtin_plugins=["math", "info"]) as url, httpx.Client(base_url=url, timeout=30) as client:
        body = client.post("/api/v1/chat", json={"message": "hi", "agent": "math"})
        assert body.status_code == 200, body.text
        trace = body.json()["trace"]
        assert body.json()["response"] == ANSWER and trace["mode"] == "single"
        assert trace["routing_history"] == ["math"] and [c["node"] for c in trace["model_calls"]] == [
            "math_agent"
        ]

        stream = client.post("/api/v1/chat/stream", json={"message": "hi", "mode": "single", "agent": "info"})
        events = parse_sse(stream.text)
        assert events[0][1] == {"type": "node", "node": "info_agent"}
        assert events[-1][1]["trace"]["routing_history"] == ["info"]

        unknown = client.post("/api/v1/chat", json={"message": "hi", "agent": "weather"})
        assert unknown.status_code == 422 and unknown.json()["error"]["code"] == "unknown_agent"
        assert "info, math" in unknown.json()["error"]["message"]
        missing = client.post("/api/v1/chat", json={"message": "hi", "mode": "single"})
        assert missing.status_code == 422 and missing.json()["error"]["code"] == "agent_required"
        wrong = client.post("/api/v1/chat", json={"message": "hi", "mode": "supervisor", "agent": "math"})
        assert wrong.status_code == 422 and wrong.json()["error"]["code"] == "agent_needs_single_mode"


# -- human approval (the plugins' own tools step, so approvals apply here too) --------------------------------
async def test_tool_approval_pauses_and_resumes_in_single_mode(engine_factory) -> None:
    engine, model = engine_factory(
        [call("calculate", expression="2 + 2"), {"content": "2 + 2 is 4."}],
        mode="single",
        agent="math",
        approval_tools=["calculate"],
    )
    paused = await engine.ainvoke("What is 2 + 2?", thread_id="a1")
    assert paused.interrupted and paused.error is None
    [pending] = paused.approvals
    assert (pending["tool"], pending["agent"]) == ("calculate", "math")
    assert paused.trace["mode"] == "single" and paused.trace["tools_used"] == []
    result = await engine.aresume({pending["id"]: "approve"}, thread_id="a1")
    assert not result.interrupted and result.response == "2 + 2 is 4."
    assert result.trace["mode"] == "single" and result.trace["tools_used"][0]["result"] == "4"
    assert nodes(model) == ["math_agent", "math_agent"]


def test_openai_endpoint_agent() -> None:
    from test_server_openai import client_for
    from test_server_support import ANSWER, serve

    model = ScriptedChatModel.from_items([{"content": ANSWER}], loop=True)
    with serve(model, builtin_plugins=["math", "info"]) as url:
        completion = client_for(url).chat.completions.create(
            model="cadence",
            messages=[
                {"role": "user", "content": "My name is Ada."},
                {"role": "assistant", "content": "Nice to meet you, Ada."},
                {"role": "user", "content": "What is my name?"},
            ],
            extra_body={"agent": "info"},
        )
        assert completion.choices[0].message.content == ANSWER
        assert nodes(model) == ["info_agent"]  # the agent alone, one call
        # the stateless history was seeded into the new thread and the agent saw it
        assert any("My name is Ada." in str(m.content) for m in model.records[0].messages)


# -- validation (CADENCE_VALIDATION, the shared validation role) ----------------------------------------------
async def test_flag_records_the_agents_verdict_and_changes_nothing(engine_factory) -> None:
    engine, model = engine_factory(
        [call("calculate", expression="12 * 12"), {"content": "It is 150."}],
        mode="single",
        agent="math",
        validation="flag",
    )
    result = await engine.ainvoke("What is 12 * 12?")
    assert result.response == "It is 150."  # flag records, it never rewrites
    assert nodes(model) == ["math_agent", "math_agent"]  # and never calls a model
    [record] = result.trace["validation"]
    assert (record["node"], record["mode"], record["corrected"]) == ("forward", "flag", False)
    assert not record["verdict"]["ok"] and record["verdict"]["problems"] == ["invented_number"]
    assert record["draft_problems"] == ["invented_number"]


async def test_flag_records_a_valid_answer(engine_factory) -> None:
    engine, _ = engine_factory(
        [call("calculate", expression="12 * 12"), {"content": "12 * 12 = 144."}], mode="single", agent="math"
    )
    result = await engine.ainvoke("What is 12 * 12?")  # flag is the default
    [record] = result.trace["validation"]
    assert record["verdict"]["ok"] and record["draft_problems"] == [] and not record["corrected"]


async def test_correct_sends_a_failing_answer_back_to_the_agent_once(engine_factory) -> None:
    engine, model = engine_factory(
        [
            call("calculate", expression="12 * 12"),
            {"content": "It is 150."},
            {"content": "12 * 12 is 144."},  # the correction round
            {"content": "Yes, 144."},  # the next turn
        ],
        mode="single",
        agent="math",
        validation="correct",
    )
    result = await engine.ainvoke("What is 12 * 12?", thread_id="v1")
    assert result.response == "12 * 12 is 144." and result.error is None
    assert nodes(model) == ["math_agent", "math_agent", "math_agent"]
    correction = model.records[2].messages
    # the agent sees its draft, then the verdict's feedback last
    assert isinstance(correction[-2], AIMessage) and correction[-2].content == "It is 150."
    assert isinstance(correction[-1], HumanMessage) and "150" in str(correction[-1].content)
    assert "did not pass validation" in str(correction[-1].content)
    [record] = result.trace["validation"]
    assert record["corrected"] and record["draft_problems"] == ["invented_number"] and record["verdict"]["ok"]
    assert result.trace["agent_hops"] == 1  # the correction round is not another hop
    # the thread stays valid (every back call answered; the fixture checks each call) and goes on
    again = await engine.ainvoke("Sure?", thread_id="v1")
    assert again.response == "Yes, 144."
    assert not any("did not pass validation" in str(m.content) for m in model.records[3].messages)


async def test_correct_leaves_a_valid_answer_alone(engine_factory) -> None:
    engine, model = engine_factory(
        [call("calculate", expression="12 * 12"), {"content": "12 * 12 = 144."}],
        mode="single",
        agent="math",
        validation="correct",
    )
    result = await engine.ainvoke("What is 12 * 12?")
    assert nodes(model) == ["math_agent", "math_agent"]
    assert result.trace["validation"][0]["corrected"] is False


async def test_a_failed_correction_keeps_the_draft(engine_factory) -> None:
    engine, model = engine_factory(
        [
            call("calculate", expression="12 * 12"),
            {"content": "It is 150."},
            {"raise": {"type": "error", "message": "provider down"}},
        ],
        mode="single",
        agent="math",
        validation="correct",
        model_max_retries=0,
    )
    result = await engine.ainvoke("What is 12 * 12?")
    assert result.response == "It is 150."  # the draft stands, no second round
    assert nodes(model) == ["math_agent", "math_agent", "math_agent"]
    [record] = result.trace["validation"]
    assert record["corrected"] and not record["verdict"]["ok"]
    assert any("correction failed" in note for note in result.trace["notes"])


async def test_off_validates_nothing(engine_factory) -> None:
    engine, _ = engine_factory(
        [call("calculate", expression="12 * 12"), {"content": "It is 150."}],
        mode="single",
        agent="math",
        validation="off",
    )
    result = await engine.ainvoke("What is 12 * 12?")
    assert result.response == "It is 150." and result.trace["validation"] == []


async def test_a_document_answer_cites_its_sources_in_single_mode(engine_factory) -> None:
    engine, _ = engine_factory(
        [
            call("search_docs", query="plugin description and capabilities"),
            {"content": "A plugin's metadata has a description, shown to the coordinator, and capabilities."},
        ],
        mode="single",
        agent="docs",
        validation="correct",
    )
    result = await engine.ainvoke("What is in a plugin's metadata?")
    assert "[plugins.md]" in result.response
    [record] = result.trace["validation"]
    assert record["verdict"]["ok"] and not record["corrected"]
    assert set(record["verdict"]["citations"]) <= set(record["verdict"]["sources"])
