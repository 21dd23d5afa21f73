"""Supervisor mode: agents as subgraphs (output_mode on the shared history), the direct answer,
pre-model trimming, validation and citations — asserted on the scripted model's recorded calls."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from tests.conftest import FINALIZE, call, make_settings, transfer

from cadence.cli.render import route_line
from cadence.orchestration.engine import Cadence
from cadence.orchestration.modes.supervisor import HANDBACK_KEY, agent_subgraph
from cadence.orchestration.trimming import replace_history, trim_history
from cadence.testing import ScriptedChatModel


def forward(agent: str) -> dict[str, Any]:
    """A scripted supervisor decision passing ``agent``'s answer on verbatim."""
    return {"tool_calls": [{"name": "forward_message", "args": {"from_agent": agent}}]}


def nodes(model) -> list[str]:
    return [r.node for r in model.records]


def texts(messages) -> list[str]:
    return [str(m.content) for m in messages if str(m.content)]


def work_results(messages, tool: str) -> list[str]:
    return [str(m.content) for m in messages if isinstance(m, ToolMessage) and m.name == tool]


async def state_of(engine, thread: str) -> dict[str, Any]:
    graph = engine.graph_for("supervisor")
    return (await graph.aget_state({"configurable": {"thread_id": f"local::{thread}"}})).values


# -- the direct answer ----------------------------------------------------------------------------
async def test_an_answer_that_stands_reaches_the_user_in_three_calls(engine_factory) -> None:
    engine, model = engine_factory(
        [transfer("math"), call("calculate", expression="15 * 23"), {"content": "15 * 23 = 345"}],
        mode="supervisor",
    )
    result = await engine.ainvoke("Calculate 15 * 23", thread_id="d")
    assert nodes(model) == ["supervisor", "math_agent", "math_agent"]  # no second supervisor call
    assert result.response == "15 * 23 = 345"
    assert len(result.trace["model_calls"]) == 3
    assert any("direct answer" in n for n in result.trace["notes"])
    final = (await state_of(engine, "d"))["messages"][-1]
    assert isinstance(final, AIMessage) and final.name == "forward"
    # the trace names the node that wrote the answer, and the CLI's route line shows it
    assert result.trace["answered_by"] == "forward"
    assert route_line(result.trace).startswith("route: math → forward · 1 tool")


@pytest.mark.parametrize(
    ("question", "script", "why"),
    [
        # the agent only copied its result: the supervisor decides (and the synthesizer writes)
        ("Calculate 15 * 23", [{"content": "345"}], "copied result"),
        # the answer does not cover the question: another agent may be needed
        (
            "How many years since Python 3.7 came out?",
            [{"content": "2026 - 2018 = 8"}],
            "question not covered",
        ),
        # an invented number fails validation
        ("Calculate 15 * 23", [{"content": "15 * 23 = 350"}], "not grounded"),
    ],
)
async def test_an_answer_that_cannot_stand_goes_back_to_the_supervisor(
    engine_factory, question, script, why
) -> None:
    expression = "2026 - 2018" if "Python" in question else "15 * 23"
    engine, model = engine_factory(
        [transfer("math"), call("calculate", expression=expression), *script, FINALIZE, {"content": "Done."}],
        mode="supervisor",
    )
    result = await engine.ainvoke(question)
    assert nodes(model) == ["supervisor", "math_agent", "math_agent", "supervisor", "synthesizer"], why
    assert not any("direct answer" in n for n in result.trace["notes"])
    assert result.trace["answered_by"] == "synthesizer"


async def test_the_direct_answer_can_be_switched_off(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="15 * 23"),
            {"content": "15 * 23 = 345"},
            forward("math"),
        ],
        mode="supervisor",
        supervisor_direct_answer=False,
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    assert nodes(model) == ["supervisor", "math_agent", "math_agent", "supervisor"]
    assert result.response == "15 * 23 = 345"


# -- output_mode: what the shared history, and so every agent and the supervisor, see ------------
TWO_AGENTS = [
    transfer("math"),
    call("calculate", expression="2026 - 2018"),
    {"content": "It has been 8 years."},
    transfer("info"),
    {"content": "Python 3.7 came out in 2018."},
    FINALIZE,
    {"content": "Python 3.7 came out in 2018, 8 years ago."},
]


@pytest.mark.parametrize("output_mode", ["last_message", "full_history"])
async def test_output_mode_decides_what_each_agent_and_the_supervisor_see(
    engine_factory, output_mode
) -> None:
    engine, model = engine_factory(TWO_AGENTS, mode="supervisor", supervisor_output_mode=output_mode)
    result = await engine.ainvoke("How many years since Python 3.7 came out?", thread_id="o")
    assert nodes(model) == [
        "supervisor",
        "math_agent",
        "math_agent",
        "supervisor",
        "info_agent",
        "supervisor",
        "synthesizer",
    ]
    math_second, supervisor_second, info, supervisor_last = (model.records[i].messages for i in (2, 3, 4, 5))
    # the agent itself always sees its own work
    assert work_results(math_second, "calculate") == ["8"]
    for seen in (supervisor_second, info, supervisor_last):
        assert "It has been 8 years." in texts(seen)
    shared = (await state_of(engine, "o"))["messages"]
    if output_mode == "last_message":
        # the other agent, the supervisor and the shared history get the math agent's answer only
        for seen in (supervisor_second, info, supervisor_last, shared):
            assert work_results(seen, "calculate") == []
        assert not any(
            c["name"] == "calculate" for m in shared if isinstance(m, AIMessage) for c in m.tool_calls
        )
    else:
        for seen in (info, shared):
            assert work_results(seen, "calculate") == ["8"]
    assert result.trace["tools_used"][0]["result"] == "8"  # the trace keeps the work either way


# -- pre-model trimming ---------------------------------------------------------------------------
def test_trim_history_keeps_the_current_turn_and_drops_the_oldest_turns() -> None:
    long = "word " * 200
    history = [
        HumanMessage(long, id="h1"),
        AIMessage(long, id="a1"),
        HumanMessage("short", id="h2"),
        AIMessage("short answer", id="a2"),
        HumanMessage("now?", id="h3"),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {}, "id": "c"}], id="a3"),
        ToolMessage("1", tool_call_id="c", id="t3"),
    ]
    assert [m.id for m in trim_history(history, 100)] == ["h2", "a2", "h3", "a3", "t3"]
    assert [m.id for m in trim_history(history, 5)] == ["h3", "a3", "t3"]  # the turn alone exceeds it
    assert trim_history(history, 0) == history and trim_history(history, 10_000) == history
    update = replace_history(history[-3:])
    assert isinstance(update[0], RemoveMessage) and update[0].id == REMOVE_ALL_MESSAGES


async def test_trimming_bounds_what_the_agent_and_the_supervisor_receive(engine_factory) -> None:
    old_question = "Tell me everything about plugins. " + "More detail please. " * 60
    old_answer = "Plugins are described here. " + "Lots of words. " * 80
    engine, model = engine_factory(
        [
            transfer("info"),
            {"content": old_answer},
            FINALIZE,
            {"content": old_answer},
            transfer("math"),
            call("calculate", expression="2 + 2"),
            {"content": "2 + 2 = 4"},
        ],
        mode="supervisor",
        model_input_max_tokens=120,
    )
    await engine.ainvoke(old_question, thread_id="t")
    model.records.clear()
    result = await engine.ainvoke("What is 2 + 2?", thread_id="t")
    assert result.response == "2 + 2 = 4"
    for record in model.records:  # supervisor, math_agent, math_agent
        seen = [m for m in record.messages if m.type != "system"]
        assert seen[0].content == "What is 2 + 2?", record.node
        assert old_answer not in texts(record.messages)
    # the shared history is not trimmed: the checkpoint keeps the first turn
    shared = (await state_of(engine, "t"))["messages"]
    assert shared[0].content == old_question and old_answer in texts(shared)


async def test_without_a_budget_the_whole_history_is_sent(engine_factory) -> None:
    engine, model = engine_factory(
        [
            *[transfer("math"), {"content": "4"}, FINALIZE, {"content": "4."}],
            *[transfer("math"), {"content": "6"}, FINALIZE, {"content": "6."}],
        ],
        mode="supervisor",
        model_input_max_tokens=0,
    )
    await engine.ainvoke("What is 2 + 2?", thread_id="w")
    model.records.clear()
    await engine.ainvoke("And 3 + 3?", thread_id="w")
    assert "What is 2 + 2?" in texts(model.records[0].messages)
    assert "What is 2 + 2?" in texts(model.records[1].messages)


# -- validation and citations in this mode ------------------------------------------------------
async def test_flag_records_the_forwarded_answers_verdict(engine_factory) -> None:
    engine, model = engine_factory(
        [transfer("math"), call("calculate", expression="15 * 23"), {"content": "15 * 23 = 345"}],
        mode="supervisor",
        validation="flag",
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    [record] = result.trace["validation"]
    assert record["node"] == "forward" and record["verdict"]["ok"] and not record["corrected"]


async def test_correct_sends_a_forwarded_answer_back_to_its_agent_once(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="15 * 23"),
            {"content": "It is 350."},  # invented: cannot stand, the supervisor forwards it anyway
            forward("math"),
            {"content": "15 * 23 = 345"},  # the correction round
        ],
        mode="supervisor",
        validation="correct",
    )
    result = await engine.ainvoke("Calculate 15 * 23")
    assert nodes(model) == ["supervisor", "math_agent", "math_agent", "supervisor", "math_agent"]
    correction = model.records[-1].messages
    assert isinstance(correction[-1], HumanMessage) and "350" in str(correction[-1].content)
    assert result.response == "15 * 23 = 345"
    [record] = result.trace["validation"]
    assert record["corrected"] and "invented_number" in record["draft_problems"] and record["verdict"]["ok"]


async def test_a_forwarded_document_answer_cites_its_sources(engine_factory) -> None:
    engine, _ = engine_factory(
        [
            transfer("docs"),
            call("search_docs", query="plugin metadata"),
            {"content": "A plugin's metadata has a description, shown to the coordinator, and capabilities."},
            forward("docs"),
        ],
        mode="supervisor",
    )
    result = await engine.ainvoke("What is in a plugin's metadata?")
    assert "[plugins.md]" in result.response
    [record] = result.trace["validation"]
    assert record["verdict"]["citations"] and set(record["verdict"]["citations"]) <= set(
        record["verdict"]["sources"]
    )


# -- the supervisor's own answer and its compact handoff tools -------------------------------------
async def test_the_supervisor_writes_a_combined_answer_itself(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="2026 - 2018"),
            {"content": "It has been 8 years."},
            transfer("info"),
            {"content": "Python 3.7 came out in 2018."},
            {"content": "Python 3.7 came out in 2018, 8 years ago."},  # text, no tool call
        ],
        mode="supervisor",
    )
    result = await engine.ainvoke("How many years since Python 3.7 came out?", thread_id="s")
    assert nodes(model)[-1] == "supervisor" and "synthesizer" not in nodes(model)
    assert result.response == "Python 3.7 came out in 2018, 8 years ago."
    final = (await state_of(engine, "s"))["messages"][-1]
    assert final.name == "forward" and final.response_metadata["cadence_forwarded"] == "supervisor"


async def test_a_text_reply_before_any_agent_work_still_goes_to_the_synthesizer(engine_factory) -> None:
    engine, model = engine_factory(
        [{"content": "Let me think."}, {"content": "Hello! How can I help?"}], mode="supervisor"
    )
    result = await engine.ainvoke("Hello")
    assert nodes(model) == ["supervisor", "synthesizer"] and result.response == "Hello! How can I help?"


async def test_the_supervisors_handoff_tools_carry_the_capabilities_only(engine_factory) -> None:
    engine, model = engine_factory([transfer("math"), {"content": "4"}, forward("math")], mode="supervisor")
    await engine.ainvoke("What is 2+2?")
    schemas = {s["function"]["name"]: s["function"]["description"] for s in model.records[0].tool_schemas}
    math = engine.plugin_manager.bundles["math"].metadata
    assert schemas["transfer_to_math"].startswith("Hand the conversation to the math agent: ")
    assert all(c in schemas["transfer_to_math"] for c in math.capabilities)
    assert math.description not in schemas["transfer_to_math"]
    assert set(schemas) == {
        "transfer_to_math",
        "transfer_to_info",
        "transfer_to_docs",
        "goto_finalize",
        "forward_message",
    }


async def test_correct_sends_the_supervisors_own_answer_back_to_it_once(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="2026 - 2018"),
            {"content": "It has been 8 years."},
            transfer("info"),
            {"content": "Python 3.7 came out in 2018."},
            {"content": "Python 3.7 came out 9 years ago."},  # an invented number
            {"content": "Python 3.7 came out 8 years ago."},  # the correction round
        ],
        mode="supervisor",
        validation="correct",
    )
    result = await engine.ainvoke("How many years since Python 3.7 came out?")
    assert nodes(model)[-2:] == ["supervisor", "supervisor"] and "synthesizer" not in nodes(model)
    feedback = model.records[-1].messages[-1]
    assert isinstance(feedback, HumanMessage) and "9" in str(feedback.content)
    assert result.response == "Python 3.7 came out 8 years ago."
    [record] = result.trace["validation"]
    assert record["corrected"] and "invented_number" in record["draft_problems"] and record["verdict"]["ok"]


async def test_the_turn_deadline_ends_an_agent_subgraph_looping_over_its_tools(engine_factory) -> None:
    # the agent would call its tool 30 times (0.3 s per model call); the work part of a 1 s turn ends first
    script = [
        transfer("math"),
        *[{**call("calculate", expression=f"{i} + 1"), "delay_s": 0.3} for i in range(30)],
        {"content": "Stopped: out of time."},
    ]
    engine, model = engine_factory(script, mode="supervisor", turn_timeout=1.0)
    result = await engine.ainvoke("count up forever")
    assert result.trace["suspended"] and result.trace["suspend_reason"] == "deadline"
    assert nodes(model)[-1] == "suspend" and nodes(model).count("supervisor") == 1
    assert 1 <= result.trace["tool_hops"] < 30


# -- how a visit ends -----------------------------------------------------------------------------
class CountingSaver(InMemorySaver):
    """An in-memory checkpointer that counts the checkpoints saved per namespace."""

    def __init__(self) -> None:
        super().__init__()
        self.saved: Counter[str] = Counter()

    async def aput(self, config, checkpoint, metadata, new_versions):  # type: ignore[no-untyped-def]
        self.saved[config["configurable"].get("checkpoint_ns", "")] += 1
        return await super().aput(config, checkpoint, metadata, new_versions)


async def test_an_agent_visit_ends_with_its_handback_and_saves_no_subgraph_checkpoint() -> None:
    model = ScriptedChatModel.from_items(
        [
            transfer("math"),
            call("calculate", expression="15 * 23"),
            {"content": "15 * 23 = 345"},
            transfer("math"),
            call("calculate", expression="2026 - 2018"),
            {"content": "2026 - 2018 = 8"},
            {"content": "15 * 23 = 345, and 8 years."},
        ]
    )
    saver = CountingSaver()
    engine = Cadence(
        make_settings(mode="supervisor", supervisor_direct_answer=False), model=model, checkpointer=saver
    )
    result = await engine.ainvoke("Calculate 15 * 23 and then 2026 - 2018", thread_id="h")
    assert result.response == "15 * 23 = 345, and 8 years."
    assert [r.node for r in model.records] == ["supervisor", *["math_agent"] * 2] * 2 + ["supervisor"]
    # the two visits ended by their handbacks: no checkpoint in the agents' namespaces (durability "exit")
    assert set(saver.saved) == {""}
    # what each visit handed back reached the shared history: each answer with its back breadcrumb
    messages = (await state_of(engine, "h"))["messages"]
    assert texts(messages).count("15 * 23 = 345") == 1 and "2026 - 2018 = 8" in texts(messages)
    bundle = engine.plugin_manager.bundles["math"]
    subgraph = agent_subgraph(bundle, engine.settings)
    assert subgraph.output_channels in (
        HANDBACK_KEY,
        [HANDBACK_KEY],
    )  # the subgraph returns its handback alone
