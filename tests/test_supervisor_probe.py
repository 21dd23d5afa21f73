"""Supervisor mode (seed 004): probed edge cases of forward_message, failed agents, the trace's notes, streaming."""

from __future__ import annotations

import io
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.types import Command
from rich.console import Console
from tests.conftest import FINALIZE, call, tool_plugin, transfer

from cadence.cli.render import TurnView
from cadence.orchestration.modes.supervisor import supervisor_view, without_forwarded_copies
from cadence.orchestration.tones import ResponseTone
from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata


def forward(agent: Any) -> dict[str, Any]:
    """A scripted supervisor decision passing ``agent``'s answer on verbatim."""
    return {"tool_calls": [{"name": "forward_message", "args": {"from_agent": agent}}]}


def nodes(model) -> list[str]:
    return [r.node for r in model.records]


# -- forward_message names the agent as the model sees it -----------------------------------------------
@pytest.mark.parametrize("name", ["math", "math_agent", "Math Agent", "transfer_to_math", " MATH "])
async def test_forward_message_accepts_the_agents_node_and_handoff_names(engine_factory, name) -> None:
    # the history names the agent's messages "math_agent" (langgraph-supervisor's agents are named so)
    engine, model = engine_factory(
        [transfer("math"), {"content": "It is 4."}, forward(name)],
        mode="supervisor",
    )
    result = await engine.ainvoke("What is 2+2?")
    assert nodes(model) == ["supervisor", "math_agent", "supervisor"]  # no synthesizer call
    assert result.response == "It is 4." and result.trace["answered_by"] == "forward"
    assert not any("no answer of agent" in n for n in result.trace["notes"])


async def test_forward_message_of_an_unknown_agent_is_still_synthesized(engine_factory) -> None:
    engine, model = engine_factory(
        [transfer("math"), {"content": "It is 4."}, forward("planner_agent"), {"content": "4."}],
        mode="supervisor",
    )
    result = await engine.ainvoke("What is 2+2?")
    assert nodes(model)[-1] == "synthesizer" and result.response == "4."
    assert any("no answer of agent 'planner_agent'" in n for n in result.trace["notes"])


# -- an agent's failed step is not its answer ------------------------------------------------------------
BOOM = {"raise": {"type": "error", "message": "provider down"}}


async def test_a_failed_agent_step_is_not_forwarded_as_the_answer(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="2 + 2"),
            BOOM,
            forward("math"),
            {"content": "2 + 2 = 4."},
        ],
        mode="supervisor",
        model_max_retries=0,
    )
    result = await engine.ainvoke("What is 2 + 2?")
    # the explanation of the agent's error is no answer to pass on: the synthesizer answers from the result
    assert nodes(model) == ["supervisor", "math_agent", "math_agent", "supervisor", "synthesizer"]
    assert result.response == "2 + 2 = 4." and "could not answer" not in result.response
    assert any("the math agent failed (model_error); synthesized instead" in n for n in result.trace["notes"])
    assert [e["code"] for e in result.trace["errors"]] == ["model_error"]


async def test_a_failed_correction_leaves_the_agents_first_answer(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="2 + 2"),
            {"content": "2 + 2 is 5."},  # an invented number: one correction round
            forward("math"),
            BOOM,  # the correction fails
        ],
        mode="supervisor",
        validation="correct",
        model_max_retries=0,
    )
    result = await engine.ainvoke("What is 2 + 2?")
    assert nodes(model) == ["supervisor", "math_agent", "math_agent", "supervisor", "math_agent"]
    assert result.response == "2 + 2 is 5." and "could not answer" not in result.response
    assert any("correction failed; its first answer stands" in n for n in result.trace["notes"])
    [record] = result.trace["validation"]
    assert record["draft_problems"] == ["invented_number"] and not record["verdict"]["ok"]


# -- the trace's notes say what happened ------------------------------------------------------------------
async def test_a_corrected_forwarded_answer_is_not_noted_as_a_direct_answer(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="2 + 2"),
            {"content": "2 + 2 is 5."},
            forward("math"),
            {"content": "2 + 2 is 4."},
        ],
        mode="supervisor",
        validation="correct",
    )
    result = await engine.ainvoke("What is 2 + 2?")
    assert nodes(model) == ["supervisor", "math_agent", "math_agent", "supervisor", "math_agent"]
    assert result.response == "2 + 2 is 4." and result.trace["validation"][0]["corrected"]
    # the supervisor forwarded it (then it was corrected): it did not stand as it was
    assert not any("direct answer" in n for n in result.trace["notes"])


# -- streaming: the agents' tokens are not the answer ----------------------------------------------------
async def test_the_cli_prints_the_answer_once_not_the_agents_answers_first(engine_factory) -> None:
    engine, _ = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="2026 - 2018"),
            {"content": "It has been 8 years."},
            transfer("info"),
            {"content": "Python 3.7 came out in 2018."},
            {"tool_calls": [{"name": "goto_finalize", "args": {}}]},
            {"content": "Python 3.7 came out in 2018, 8 years ago."},
        ],
        mode="supervisor",
    )
    out, err = io.StringIO(), io.StringIO()
    view = TurnView(Console(file=out, width=200), Console(file=err, width=200), live=False, stream=True)
    async for event in engine.astream("How many years since Python 3.7 came out?"):
        view.handle(event)
    view.finish()
    # the agents' tokens are in the stream (naming their nodes), but the printed answer is the turn's alone
    assert out.getvalue() == "Python 3.7 came out in 2018, 8 years ago.\n"
    assert "corrected answer" not in err.getvalue()


# -- validation: the supervisor's own correction round ---------------------------------------------------
async def test_a_supervisor_correcting_its_answer_by_a_handoff_still_writes_the_answer(
    engine_factory,
) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="2 + 2"),
            {"content": "2 + 2 = 4"},
            transfer("info"),
            {"content": "It is noon."},
            {"content": "2 + 2 is 5, at noon."},  # its own answer invents a number: one correction round
            transfer("math"),  # the round: it asks the math agent again
            {"content": "2 + 2 = 4"},
            {"content": "2 + 2 is 4, and it is noon."},
        ],
        mode="supervisor",
        validation="correct",
        supervisor_direct_answer=False,
    )
    result = await engine.ainvoke("What is 2 + 2, and what time is it?")
    # the math agent's answer went back to the supervisor (not straight out as the corrected answer,
    # dropping the time), and the agent was not asked to correct an answer it never wrote
    assert nodes(model)[-3:] == ["supervisor", "math_agent", "supervisor"]
    assert result.response == "2 + 2 is 4, and it is noon."
    agent_saw = " ".join(str(m.content) for m in model.records[-2].messages)
    assert "did not pass validation" not in agent_saw
    [record] = result.trace["validation"]
    assert record["corrected"] and "invented_number" in record["draft_problems"] and record["verdict"]["ok"]


# -- a plugin's own agent node that writes no reply -------------------------------------------------------
def node_plugin(name: str, reply: Any) -> type[BasePlugin]:
    """A plugin whose own agent node (``create_agent_node``) writes ``reply()`` as its update."""

    class Agent(BaseAgent):
        def get_tools(self) -> list[Any]:
            return []

        def get_system_prompt(self) -> str:
            return f"You are the {name} agent."

        def create_agent_node(self, run: Any, node_name: str) -> Any:
            async def node(state: dict[str, Any], config: Any, runtime: Any) -> dict[str, Any]:
                return reply(node_name)

            return node

    class Plugin(BasePlugin):
        @classmethod
        def get_metadata(cls) -> PluginMetadata:
            return PluginMetadata(name=name, version="1.0.0", description=f"The {name} plugin for tests.")

        @classmethod
        def create_agent(cls) -> BaseAgent:
            return Agent(cls.get_metadata())

    return Plugin


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        (lambda node: {}, None),  # nothing written
        (
            lambda node: {"messages": [AIMessage(content="Hello there.", name=node)]},
            "Hello there.",
        ),  # no back
    ],
)
async def test_an_agent_node_without_a_reply_or_back_call_hands_back(engine_factory, reply, answer) -> None:
    engine, model = engine_factory(
        [transfer("quiet"), forward("quiet"), {"content": "Synthesized."}],
        plugins=[node_plugin("quiet", reply)],
        builtin_plugins=[],
        mode="supervisor",
    )
    result = await engine.ainvoke("hello?")
    # the visit ended at once (not an agent ⇄ tools loop up to the recursion limit: a 500)
    assert result.error is None
    assert nodes(model)[:2] == ["supervisor", "supervisor"]
    assert result.response == (answer or "Synthesized.")


# -- the direct answer: a question with a part no agent touched yet is not cut short --------------------
async def test_an_answer_to_half_of_a_two_part_question_does_not_stand(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="2 + 2"),
            {"content": "2 + 2 = 4"},  # covers "2", not "time": half of the question's terms
            transfer("info"),
            {"content": "It is noon."},
            {"content": "2 + 2 is 4, and it is noon."},
        ],
        mode="supervisor",
    )
    result = await engine.ainvoke("What is 2 + 2, and what time is it?")
    assert nodes(model)[3] == "supervisor"  # the supervisor decided after the math agent
    assert result.response == "2 + 2 is 4, and it is noon."
    assert not any("direct answer" in n for n in result.trace["notes"])


async def test_an_answer_to_one_part_does_not_stand_however_many_words_it_covers(engine_factory) -> None:
    """ "Tell me the time in Denver, and also how much is 1,750 / 25?": the math answer covered "much",
    "also" and both numbers (4 of the 6 terms), stood, and the time in Denver was never asked."""
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="also how much is 1,750 / 25?"),
            {"content": "The answer is 70."},
            transfer("info"),
            {"content": "It is 07:50 in Denver."},
            {"content": "It is 07:50 in Denver, and 1,750 / 25 is 70."},
        ],
        mode="supervisor",
    )
    result = await engine.ainvoke("Tell me the time in Denver, and also how much is 1,750 / 25?")
    assert nodes(model)[3] == "supervisor"
    assert result.response == "It is 07:50 in Denver, and 1,750 / 25 is 70."


# -- a forwarded answer is not read twice in later turns ---------------------------------------------------
async def test_later_turns_do_not_read_a_forwarded_answer_twice(engine_factory) -> None:
    engine, model = engine_factory(
        [transfer("math"), {"content": "It is 4."}, forward("math")], mode="supervisor"
    )
    await engine.ainvoke("What is 2+2?", thread_id="twice")
    model.reset([transfer("math"), {"content": "It is 5."}, forward("math")])
    second = await engine.ainvoke("And 2+3?", thread_id="twice")
    assert second.response == "It is 5."
    # the history keeps the agent's answer and the forwarded copy; each model reads the answer once
    for record in model.records:
        assert [str(m.content) for m in record.messages].count("It is 4.") == 1, record.node
    # an answer the forward step changed (its sources added) is not a copy: it stays
    docs = [
        AIMessage(content="It is 4.", name="math_agent"),
        AIMessage(
            content="It is 4.\\n\\nSources: [a.md]",
            name="forward",
            response_metadata={"cadence_forwarded": "math"},
        ),
    ]
    assert without_forwarded_copies(docs) == docs


# -- an agent that tries to hand off itself -----------------------------------------------------------------
async def test_an_agent_calling_a_handoff_tool_hands_back_instead_of_looping(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            {"content": "That is for the info agent.", **call("transfer_to_info")},  # a tool it has not got
            transfer("info"),
            {"content": "It is noon."},
            forward("info"),
        ],
        mode="supervisor",
    )
    result = await engine.ainvoke("What time is it?")
    # answered with an error, the call is no work to loop on: the agent's step hands back at once
    assert nodes(model) == ["supervisor", "math_agent", "supervisor", "info_agent", "supervisor"]
    assert result.response == "It is noon." and result.error is None
    assert result.trace["tool_hops"] == 0


async def test_an_agent_repeating_a_handoff_call_is_bounded(engine_factory) -> None:
    # every model call asks for the handoff: the route guard ends the turn (before: agent ⇄ tools up to
    # the recursion limit, a 500)
    engine, _ = engine_factory(
        [*[call("transfer_to_info")] * 7, {"content": "Stopped."}],
        mode="supervisor",
        coordinator_consecutive_agent_route_limit=3,
    )
    result = await engine.ainvoke("What time is it?")
    assert result.error is None and result.trace["suspend_reason"] == "consecutive_agent_routes"
    assert result.response == "Stopped."


# -- the turn's tone reaches the agents whose answers may be the final one -------------------------------
@pytest.mark.parametrize("tone", ["formal", "concise", "natural"])
async def test_the_agents_write_in_the_turns_tone(engine_factory, tone) -> None:
    engine, model = engine_factory(
        [transfer("math"), call("calculate", expression="15 * 23"), {"content": "15 * 23 = 345"}],
        mode="supervisor",
    )
    result = await engine.ainvoke("Calculate 15 * 23", tone=tone)
    assert result.trace["answered_by"] == "forward"  # the agent's answer stood: nobody rewrote it
    for record in model.records[1:]:
        prompt = str(record.messages[0].content)
        assert record.node == "math_agent"
        # a chosen tone is in the prompt of the agent whose answer may reach the user as it is; the natural
        # voice is the agent's own prompt's
        assert (ResponseTone(tone).description in prompt) == (tone != "natural")


async def test_an_empty_correction_leaves_the_agents_first_answer_noted(engine_factory) -> None:
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="2 + 2"),
            {"content": "2 + 2 is 5."},
            forward("math"),
            {"content": ""},  # the correction round's answer is empty
        ],
        mode="supervisor",
        validation="correct",
    )
    result = await engine.ainvoke("What is 2 + 2?")
    assert result.response == "2 + 2 is 5."
    assert any("correction failed; its first answer stands" in n for n in result.trace["notes"])


def test_the_supervisors_view_leaves_no_result_without_its_call() -> None:
    # a step that ran work and also called a tool it has not got (a guard then ended the visit)
    step = AIMessage(
        content="",
        name="math_agent",
        tool_calls=[
            {"name": "calculate", "args": {"expression": "1+1"}, "id": "c1"},
            {"name": "transfer_to_info", "args": {}, "id": "c2"},
        ],
    )
    history = [
        HumanMessage(content="1+1, then the time?"),
        step,
        ToolMessage(content="2", name="calculate", tool_call_id="c1"),
        ToolMessage(content="Error: not a valid tool", name="transfer_to_info", tool_call_id="c2"),
    ]
    view = supervisor_view(history, "last_message")
    assert [type(m).__name__ for m in view] == ["HumanMessage"]


async def test_an_event_stream_without_tokens_still_has_the_agents_events(engine_factory) -> None:
    script = [transfer("math"), call("calculate", expression="1 + 1"), {"content": "2"}, forward("math")]
    kinds: dict[bool, list[str]] = {}
    for tokens in (True, False):
        engine, _ = engine_factory(script, mode="supervisor", supervisor_direct_answer=False)
        events = [e async for e in engine.astream("1 + 1?", tokens=tokens)]
        kinds[tokens] = [e["type"] for e in events if e["type"] != "token"]
    # tokens=False leaves out the token events only (the agents' events come from their subgraphs)
    assert kinds[False] == kinds[True]
    assert [k for k in kinds[False] if k.startswith(("tool", "agent_e"))] == [
        "tool_start",
        "tool_end",
        "agent_end",
    ]


# -- a deciding node that calls a work tool itself ----------------------------------------------------------
async def test_a_work_tool_called_by_the_decider_is_no_failed_tool(engine_factory) -> None:
    # the supervisor saw the agents' calculate calls (full_history) and called it itself: a route it has not
    # got, answered with the routing error; no tool ran, so none failed (the coordinator routes such a call
    # to the agent that has the tool: test_coordinator_routing)
    engine, model = engine_factory(
        [call("calculate", expression="2 + 2"), {"content": "2 + 2 is 4."}], mode="supervisor"
    )
    result = await engine.ainvoke("What is 2 + 2?")
    assert nodes(model)[-1] == "synthesizer"
    assert result.response == "2 + 2 is 4."
    assert "tool failed" not in result.response and "not a valid tool" not in result.response


async def test_the_fallback_answer_does_not_list_the_supervisors_routing_as_work(engine_factory) -> None:
    engine, _ = engine_factory(
        [call("calculate", expression="1/0"), FINALIZE],  # the synthesizer replies with a tool call too
        mode="supervisor",
        model_max_retries=0,
    )
    result = await engine.ainvoke("What is 1/0?")
    assert result.response.startswith("Sorry, I couldn't finish this answer")
    assert "[supervisor]" not in result.response and "not a valid tool" not in result.response


# -- a tool that returns a Command (docs/plugins.md: "Return a Command with an update") -------------------
@tool
def remember(note: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Remember a note."""
    result = ToolMessage(content=f"noted: {note}", tool_call_id=tool_call_id)
    return Command(update={"messages": [result], "metadata": {"note": note}})


@pytest.mark.parametrize("mode", ["supervisor", "coordinator"])
async def test_a_tool_returning_a_command_updates_the_state(engine_factory, mode) -> None:
    route = transfer("notes") if mode == "supervisor" else {"tool_calls": [{"name": "goto_notes_agent"}]}
    script = [route, call("remember", note="milk"), {"content": "Noted: milk."}, forward("notes")]
    if mode == "coordinator":
        script = [route, call("remember", note="milk"), FINALIZE, {"content": "Noted: milk."}]
    engine, _ = engine_factory(
        script, plugins=[tool_plugin("notes", [remember])], builtin_plugins=[], mode=mode
    )
    result = await engine.ainvoke("Remember milk", thread_id="cmd")
    # before: the Command reached the messages and the turn failed (a 500)
    assert result.error is None and result.response == "Noted: milk."
    assert [t["result"] for t in result.trace["tools_used"]] == ["noted: milk"]
    graph = engine.graph_for(mode)
    state = (await graph.aget_state({"configurable": {"thread_id": "local::cmd"}})).values
    assert state["metadata"]["note"] == "milk"
