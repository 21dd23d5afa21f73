"""The planner mode (seed 002) on the scripted model: routes, plan fallbacks, the researcher's loop,
the validator, root's planned tools and ``<think>`` split, memory, guards, the graph."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from cadence.orchestration.engine import Cadence
from cadence.orchestration.planner import Plan, Researcher, catalogue, check_plan, check_results, extract_plan
from cadence.testing import ScriptedChatModel
from conftest import make_settings

ADA = "My name is Ada and I work on compilers."


def plan(delegate: str | None = None, tools: list[dict[str, Any]] | None = None, thought: str = "t") -> dict:
    """A scripted planner reply calling make_plan."""
    args: dict[str, Any] = {"thought": thought}
    if delegate is not None:
        args["delegate_to"] = delegate
    if tools is not None:
        args["tools"] = tools
    return {"tool_calls": [{"name": "make_plan", "args": args}]}


def calc(expression: str) -> dict[str, Any]:
    return {"name": "calculate", "args": {"expression": expression}}


def planner_engine(script: list[dict[str, Any]], **overrides: Any) -> tuple[Cadence, ScriptedChatModel]:
    model = ScriptedChatModel.from_items(script)
    return Cadence(make_settings(mode="planner", **overrides), model=model), model


def seen(model: ScriptedChatModel, index: int) -> str:
    return "\n".join(str(m.content) for m in model.records[index].messages)


# -- routes ---------------------------------------------------------------------------------------
async def test_planner_routes_to_researcher() -> None:
    engine, model = planner_engine([plan("researcher", [calc("15 * 23")]), {"content": "15 * 23 = 345"}])
    out = await engine.ainvoke("Calculate 15 * 23", user_id="u")
    assert out.response == "15 * 23 = 345" and out.trace["mode"] == "planner"
    assert out.trace["route"] == "researcher"
    assert out.trace["planned_tools"] == [calc("15 * 23")]
    assert [(r["name"], r["content"], r["by"]) for r in out.trace["tool_results"]] == [
        ("calculate", "345", "researcher")
    ]
    assert [t["name"] for t in out.trace["tools_used"]] == ["calculate"] and out.trace["tool_hops"] == 1
    assert "researcher: 1 useful result(s)" in out.trace["scratchpad"]
    assert [r.node for r in model.records] == ["planner", "root"]


async def test_planner_routes_to_validator_which_checks_the_results() -> None:
    engine, _ = planner_engine([plan("validator", [calc("2 + 2")]), {"content": "2 + 2 = 4"}])
    out = await engine.ainvoke("What is 2 + 2?", user_id="u")
    assert out.trace["route"] == "validator" and out.response == "2 + 2 = 4"
    assert out.trace["tool_results"][0]["by"] == "validator"
    assert "validator: results consistent" in out.trace["scratchpad"]


async def test_the_validator_reports_a_failed_tool() -> None:
    engine, _ = planner_engine([plan("validator", [calc("2 +* 2")]), {"content": "I could not compute it."}])
    out = await engine.ainvoke("What is 2 +* 2?", user_id="u")
    assert "validator: tool_failed: calculate" in out.trace["scratchpad"]
    assert any(n.startswith("validator: tool_failed") for n in out.trace["notes"])


async def test_planner_routes_to_end() -> None:
    engine, model = planner_engine([plan("end", []), {"content": "Hello! How can I help?"}])
    out = await engine.ainvoke("Hello there", user_id="u")
    assert out.trace["route"] == "end" and out.trace["tools_used"] == []
    assert out.response == "Hello! How can I help?" and len(model.records) == 2


# -- plan parsing fallbacks --------------------------------------------------------------------------
def test_plan_extraction_from_tags_json_and_nothing() -> None:
    tagged = AIMessage(content='Sure. <plan>{"delegate_to": "end", "thought": "easy"}</plan>')
    assert extract_plan(tagged) == ({"delegate_to": "end", "thought": "easy"}, "tags")
    bare = AIMessage(content='I think {"delegate_to": "researcher", "tools": []} is best.')
    assert extract_plan(bare) == ({"delegate_to": "researcher", "tools": []}, "json")
    assert extract_plan(AIMessage(content="no idea")) == (None, "none")
    broken = AIMessage(content='<plan>{"delegate_to": "end",}</plan> {"delegate_to": "validator"}')
    assert extract_plan(broken)[0] == {"delegate_to": "validator"}


def test_invalid_route_ends_and_bad_tool_entries_are_skipped() -> None:
    tools = {"calculate": object(), "current_time": object()}
    default = Plan("researcher", [{"name": "calculate", "args": None}], "lexical")
    checked = check_plan(
        {"delegate_to": "banana", "tools": [{"name": "nope"}, {"name": "calculate", "args": "x"}, "junk",
                                            calc("2+2"), {"name": "current_time"}]},
        tools, default,
    )  # fmt: skip
    assert checked.delegate_to == "end"
    assert checked.tools == [calc("2+2"), {"name": "current_time", "args": None}]
    assert len(checked.notes) == 4 and checked.thought == "lexical"
    missing = check_plan({"thought": "hm"}, tools, default)
    assert missing.delegate_to == "researcher" and missing.tools == default.tools and missing.thought == "hm"
    assert check_plan(None, tools, default).delegate_to == "researcher"


async def test_a_text_plan_and_an_invalid_route_in_a_turn() -> None:
    engine, _ = planner_engine(
        [{"content": '<plan>{"delegate_to": "somewhere", "tools": [{"name": "nope"}], "thought": "x"}</plan>'},
         {"content": "Hi!"}]
    )  # fmt: skip
    out = await engine.ainvoke("Hello", user_id="u")
    assert out.trace["route"] == "end" and out.trace["planned_tools"] == []
    pad = out.trace["scratchpad"]
    assert "read from the reply's text (tags)" in pad and "invalid delegate_to 'somewhere'" in pad
    assert "names no tool of the catalogue" in pad


async def test_no_plan_falls_back_to_the_lexical_plan_and_the_researcher_fills_arguments() -> None:
    engine, model = planner_engine(
        [{"content": "Let me think about it."},  # planner: no plan at all
         {"tool_calls": [calc("15 * 23")]},  # researcher: the arguments of the planned tool
         {"content": "15 * 23 = 345"}]
    )  # fmt: skip
    out = await engine.ainvoke("Calculate 15 * 23", user_id="u")
    assert out.trace["route"] == "researcher"
    assert out.trace["planned_tools"] == [{"name": "calculate", "args": None}]
    assert "no plan found" in out.trace["scratchpad"] and out.response == "15 * 23 = 345"
    assert model.records[1].node == "researcher"
    assert list(model.records[1].tools) == ["calculate"]


async def test_a_question_no_tool_names_is_planned_for_the_plugin_its_capabilities_fit() -> None:
    """No tool's own words fit "How do I install Cadence?": the docs plugin's capabilities do, and of
    its tools the one reading the question (search_docs) is planned, as the coordinator routes it."""
    engine, _ = planner_engine(
        [{"content": "Let me think about it."},  # planner: no plan at all
         {"tool_calls": [{"name": "search_docs", "args": {"query": "install Cadence"}}]},
         {"content": "Install it with pip."}]
    )  # fmt: skip
    out = await engine.ainvoke("How do I install Cadence?", user_id="u")
    assert out.trace["planned_tools"] == [{"name": "search_docs", "args": None}]
    assert out.trace["route"] == "researcher" and "pip install" in out.response


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("What does the planner mode do?", "search_docs"),  # the docs plugin's, though statistics says "mode"
        ("Decrease 860 by 15%", "calculate"),  # no percent_change(860, 15): the reader takes the roles
        ("Which setting lists plugins that are never loaded?", "search_docs"),  # not list_docs()
        ("What tones are available?", "search_docs"),  # "available" alone is no list of documents
        ("What documents are available?", "list_docs"),
        ("Be brief: what's 2 to the 10th?", "calculate"),  # no list of numbers: the calculator reads it
        ("When is Easter?", "date_calculator"),  # no tool's words: the tool that reads it
        ("What's the difference between 95 and 38?", "calculate"),  # the world clock's word, the calculator's
        ("What time is it in Lima?", "current_time"),  # the simplest reading
    ],
)
async def test_the_lexical_plan_picks_the_plugin_then_its_tool(question: str, tool: str) -> None:
    engine, _ = planner_engine([{"content": "no plan"}, {"content": "no call"}, {"content": "Done."}])
    out = await engine.ainvoke(question, user_id="u")
    assert out.trace["planned_tools"][0]["name"] == tool


@pytest.mark.parametrize(
    "question", ["Explain what a neural network is in one sentence", "My lucky number is 7", "What is 1990?"]
)
async def test_the_lexical_plan_calls_no_tool_that_cannot_read_the_question(question: str) -> None:
    """ "one sentence" was statistics([1, 1, 1, ...]): a plugin none of whose tools may read it is no fit."""
    engine, _ = planner_engine([{"content": "no plan"}, {"content": "An answer."}])
    out = await engine.ainvoke(question, user_id="u")
    assert out.trace["planned_tools"] == []


async def test_a_follow_up_naming_no_tools_word_runs_the_previous_turns_tool_again() -> None:
    toronto = {"name": "current_time", "args": {"location": "Toronto"}}
    engine, _ = planner_engine(
        [plan("researcher", [toronto]), {"content": "ok"}, *[{"content": "no plan"}] * 4]
    )
    first = await engine.ainvoke("What time is it in Toronto?", user_id="u")
    assert first.trace["planned_tools"] == [toronto]
    out = await engine.ainvoke("And in Vancouver?", user_id="u", thread_id=first.thread_id)
    assert [t["name"] for t in out.trace["planned_tools"]] == ["current_time"]


async def test_a_follow_up_asking_the_previous_question_another_way_is_planned_written_out() -> None:
    """ "Now descending" after a sort: "now" alone had planned the world clock; the calculator is given the
    sort written out."""
    sort = {"name": "calculate", "args": {"expression": "Sort 5, 2, 8"}}
    engine, _ = planner_engine(
        [plan("researcher", [sort]), {"content": "2, 5, 8"}, *[{"content": "no plan"}] * 4]
    )
    first = await engine.ainvoke("Sort 5, 2, 8", user_id="u")
    out = await engine.ainvoke("Now descending", user_id="u", thread_id=first.thread_id)
    assert out.trace["planned_tools"] == [
        {"name": "calculate", "args": {"expression": "Sort 5, 2, 8 in descending order?"}}
    ]


async def test_a_question_about_how_the_previous_answer_was_found_plans_its_question_again() -> None:
    """ "Show your work" after a discount had planned the docs search (its word "work")."""
    engine, _ = planner_engine([{"content": "no plan"}, {"content": "no call"}, {"content": "$64"}] * 2)
    first = await engine.ainvoke("What's 20% off $80?", user_id="u")
    assert [t["name"] for t in first.trace["planned_tools"]] == ["calculate"]
    out = await engine.ainvoke("Show your work", user_id="u", thread_id=first.thread_id)
    assert [t["name"] for t in out.trace["planned_tools"]] == ["calculate"]
    assert out.trace["tone"] == "learning"


async def test_a_question_leaning_on_the_statement_before_it_is_planned_with_it() -> None:
    """ "How much does each person pay?" after "We are 4 people and the bill is $180." had been left to the
    135M model; the calculator is given the two together."""
    engine, _ = planner_engine([*[{"content": "no plan"}, {"content": "ok"}] * 2])
    told = "We are 4 people and the bill is $180."
    first = await engine.ainvoke(told, user_id="u")
    out = await engine.ainvoke("How much does each person pay?", user_id="u", thread_id=first.thread_id)
    assert out.trace["planned_tools"] == [
        {"name": "calculate", "args": {"expression": f"{told} How much does each person pay?"}}
    ]


async def test_a_question_about_what_the_user_told_is_read_with_it() -> None:
    """ "How old am I?" after "I was born on 12 May 1990.": no tool's word; with the told fact before it,
    the date calculator reads it (the coordinator's and the supervisor's embedded model did already)."""
    engine, _ = planner_engine([*[{"content": "no plan"}, {"content": "ok"}] * 2])
    await engine.ainvoke("I was born on 12 May 1990.", user_id="u")
    out = await engine.ainvoke("How old am I?", user_id="u")
    assert [t["name"] for t in out.trace["planned_tools"]] == ["date_calculator"]
    other = await engine.ainvoke("How old am I?", user_id="someone else")  # told nothing
    assert other.trace["planned_tools"] == []


async def test_the_told_place_is_read_before_the_questions_own_words() -> None:
    """ "When is sunrise where I live?" after "I live in Madrid.": "live" alone is the geography's word; read
    with what was told, the world clock's reader takes it (the sunrise in Madrid)."""
    engine, _ = planner_engine(
        [*[{"content": "no plan"}, {"content": "ok"}] * 2], builtin_plugins=["math", "info", "geo"]
    )
    await engine.ainvoke("I live in Madrid.", user_id="u")
    out = await engine.ainvoke("When is sunrise where I live?", user_id="u")
    assert [t["name"] for t in out.trace["planned_tools"]] == ["current_time"]


async def test_one_tool_for_several_parts_is_planned_once_per_part() -> None:
    engine, _ = planner_engine([{"content": "no plan"}, *[{"content": "ok"}] * 4])
    out = await engine.ainvoke("What is 10% of 50 and what's the square root of 81?", user_id="u")
    assert out.trace["planned_tools"] == [
        {"name": "calculate", "args": {"expression": "What is 10% of 50"}},
        {"name": "calculate", "args": {"expression": "what's the square root of 81?"}},
    ]


async def test_there_in_a_later_part_is_the_place_named_before() -> None:
    """ "... and how many people live there?" had not been planned (no place to read): the answer gave the
    population alone, the capital was never asked."""
    engine, _ = planner_engine(
        [{"content": "no plan"}, *[{"content": "ok"}] * 4], builtin_plugins=["math", "info", "geo"]
    )
    out = await engine.ainvoke("What is the capital of Italy and how many people live there?", user_id="u")
    assert out.trace["planned_tools"] == [
        {"name": "place_facts", "args": {"question": "What is the capital of Italy"}},
        {"name": "place_facts", "args": {"question": "how many people live in Italy?"}},
    ]


async def test_the_researcher_works_on_a_value_a_result_found() -> None:
    """ "What's 10% of the population of Canada?" had been answered with the population alone: the plan
    picks one tool per part, and nothing worked on the value it found."""
    asked = "What's 10% of the population of Canada?"
    engine, model = planner_engine(
        [plan("researcher", [{"name": "place_facts", "args": {"question": asked}}]), {"content": "done"}],
        builtin_plugins=["math", "geo"],
    )
    out = await engine.ainvoke(asked, user_id="u")
    assert [(t["name"], t["args"]) for t in out.trace["tools_used"]] == [
        ("place_facts", {"question": asked}),
        ("calculate", {"expression": "What's 10% of 37058856?"}),
    ]
    assert "3705885.6" in out.trace["tool_results"][1]["content"]
    assert "researcher: the calculate tool works on the value found" in out.trace["scratchpad"]
    alone, _ = planner_engine(
        [plan("researcher", [{"name": "place_facts", "args": {"question": "Population of Canada?"}}]),
         {"content": "done"}],
        builtin_plugins=["math", "geo"],
    )  # fmt: skip
    out = await alone.ainvoke("What is the population of Canada?", user_id="u")
    assert [t["name"] for t in out.trace["tools_used"]] == ["place_facts"]  # nothing asked of the value


def test_a_follow_up_giving_another_text_is_planned_as_the_question_it_asks() -> None:
    """'And in "world"?' after 'How many letters in "hello"?' had been planned for the geo tool (its
    capitalised-name reading) and failed three tools."""
    from cadence.orchestration.planner import lexical_plan

    engine, _ = planner_engine([], builtin_plugins=["math", "info", "geo", "text"])
    messages = [
        HumanMessage('How many letters in "hello"?'),
        AIMessage("", tool_calls=[{"name": "text_facts", "args": {"question": "x"}, "id": "t"}]),
        ToolMessage("5", tool_call_id="t", name="text_facts"),
        AIMessage("The word 'hello' has 5 letters."),
        HumanMessage('And in "world"?'),
    ]
    plan = lexical_plan(
        'And in "world"?', {"messages": messages}, catalogue(engine.plugin_manager.bundles), engine.settings
    )
    assert plan.tools == [{"name": "text_facts", "args": {"question": 'How many letters in "world"?'}}]


def test_the_lexical_plan_takes_the_tool_sure_of_the_question() -> None:
    """ "The sum of two numbers is 20 and their difference is 4." had been planned for statistics ("sum")
    and "If 3 workers build a wall in 6 days, ..." for the calendar ("days")."""
    from cadence.orchestration.planner import lexical_plan

    engine, _ = planner_engine([], builtin_plugins=["math", "info", "geo", "text"])
    tools = catalogue(engine.plugin_manager.bundles)
    for asked in [
        "The sum of two numbers is 20 and their difference is 4. What are the numbers?",
        "If 3 workers build a wall in 6 days, how long would 6 workers take?",
    ]:
        plan = lexical_plan(asked, {"messages": [HumanMessage(asked)]}, tools, engine.settings)
        assert [t["name"] for t in plan.tools] == ["calculate"], asked
    listed = "What is the sum of 3, 5 and 9?"
    plan = lexical_plan(listed, {"messages": [HumanMessage(listed)]}, tools, engine.settings)
    assert [t["name"] for t in plan.tools] == ["statistics"]


async def test_a_question_leaning_on_an_earlier_turn_is_not_read_alone() -> None:
    """ "Multiply that by 10" is no arithmetic alone; after a result, the calculator fills it in."""
    engine, _ = planner_engine(
        [plan("researcher", [calc("3 + 4")]), {"content": "7"}, *[{"content": "no plan"}] * 4]
    )
    first = await engine.ainvoke("What is 3 + 4?", user_id="u")
    out = await engine.ainvoke("Multiply that by 10", user_id="u", thread_id=first.thread_id)
    assert [t["name"] for t in out.trace["planned_tools"]] == ["calculate"]
    alone, _ = planner_engine([{"content": "no plan"}, {"content": "ok"}])
    assert (await alone.ainvoke("Multiply that by 10", user_id="u")).trace["planned_tools"] == []


async def test_a_short_question_of_its_own_is_read_by_the_tool_sure_of_it_after_earlier_turns() -> None:
    """ "Tell me about Japan." asked again in a new thread (memory holding the first answer) had been
    planned for no tool: four words read as leaning on what was said, and no tool's word in them."""
    engine, _ = planner_engine(
        [*[{"content": "no plan"}, {"content": "ok"}] * 2], builtin_plugins=["math", "info", "geo"]
    )
    first = await engine.ainvoke("Tell me about Japan.", user_id="u")
    assert [t["name"] for t in first.trace["planned_tools"]] == ["place_facts"]
    again = await engine.ainvoke("Tell me about Japan.", user_id="u", thread_id=first.thread_id)
    assert [t["name"] for t in again.trace["planned_tools"]] == ["place_facts"]


async def test_a_yes_to_a_suggestion_is_planned_as_the_question_it_accepts() -> None:
    """ "yes" after "Did you mean 'France'?" had been planned for no tool: the small model answered."""
    from cadence.orchestration.planner import lexical_plan

    engine, _ = planner_engine([], builtin_plugins=["geo"])
    said = "I couldn't find the answer: no country or city found. Did you mean 'France'?"
    messages = [HumanMessage("What is the capital of Frnace?"), AIMessage(said), HumanMessage("yes")]
    plan = lexical_plan(
        "yes", {"messages": messages}, catalogue(engine.plugin_manager.bundles), engine.settings
    )
    assert [t["name"] for t in plan.tools] == ["place_facts"]


async def test_the_alternatives_are_the_tools_of_the_plugins_that_fit() -> None:
    """After the calculator failed on a shopping question, the docs search is no alternative."""
    engine, model = planner_engine([])
    researcher = Researcher(model, catalogue(engine.plugin_manager.bundles), engine.settings)
    state = {"messages": [HumanMessage("I have 500 dollars and bought a bike. How much money is left?")]}
    alternatives = researcher.alternatives(state, {"calculate"})
    assert (
        "percent_of" in alternatives and "search_docs" not in alternatives and "calculate" not in alternatives
    )


async def test_a_follow_up_of_only_a_number_plans_the_previous_turns_tool_again() -> None:
    engine, _ = planner_engine(
        [{"content": "no plan"}, {"tool_calls": [calc("50 * 1.609")]}, {"content": "80.45"},
         {"content": "no plan"}, {"tool_calls": [calc("80 * 1.609")]}, {"content": "128.72"}]
    )  # fmt: skip
    await engine.ainvoke("convert 50 miles to km", thread_id="t", user_id="u")
    out = await engine.ainvoke("what about 80?", thread_id="t", user_id="u")
    assert out.trace["planned_tools"] == [{"name": "calculate", "args": None}]


async def test_small_talk_is_planned_for_no_tool_whatever_words_it_has() -> None:
    engine, _ = planner_engine(
        [{"content": "Let me think about it."}, {"content": "Hello! Nice to meet you."}]
    )
    out = await engine.ainvoke(
        "Hey! I'm just trying you out for the first time. Nice to meet you.", user_id="u"
    )
    assert out.trace["route"] == "end" and out.trace["planned_tools"] == [] and out.trace["tools_used"] == []


# -- the researcher's loop ---------------------------------------------------------------------------
async def test_researcher_retries_with_alternative_tools_until_the_iteration_limit() -> None:
    engine, model = planner_engine(
        [plan("researcher", [calc("15 * 23")]),
         {"tool_calls": [{"name": "percentage", "args": {"part": 1, "whole": 4}}]},  # round 2: an alternative
         {"content": "15 * 23 = 345"}],
        researcher_min_results=3, researcher_max_iterations=2,
    )  # fmt: skip
    out = await engine.ainvoke("Calculate 15 * 23", user_id="u")
    assert [t["name"] for t in out.trace["tools_used"]] == ["calculate", "percentage"]
    tried = list(model.records[1].tools)
    assert "calculate" not in tried and "percentage" in tried  # alternatives only
    assert "maximum iterations (2) reached" in out.trace["scratchpad"]
    assert out.response == "15 * 23 = 345"  # partial results go on to root


async def test_researcher_retries_after_a_failed_tool_and_stops_when_enough() -> None:
    engine, _ = planner_engine(
        [plan("researcher", [calc("15 +* 23")]),
         {"tool_calls": [{"name": "statistics", "args": {"numbers": [15, 23]}}]},
         {"content": "The mean of 15 and 23 is 19."}],
        researcher_max_iterations=5,
    )  # fmt: skip
    out = await engine.ainvoke("Calculate 15 and 23", user_id="u")
    results = out.trace["tool_results"]
    assert [(r["name"], r["ok"]) for r in results] == [("calculate", False), ("statistics", True)]
    pad = out.trace["scratchpad"]
    assert "researcher: tool calculate failed" in pad and "researcher: 1 useful result(s)" in pad


# -- root -----------------------------------------------------------------------------------------------
async def test_root_executes_planned_tools_not_yet_run() -> None:
    engine, _ = planner_engine([plan("end", [calc("6 * 7")]), {"content": "6 * 7 = 42"}])
    out = await engine.ainvoke("What is 6 * 7?", user_id="u")
    assert out.trace["route"] == "end"
    assert [(r["name"], r["by"]) for r in out.trace["tool_results"]] == [("calculate", "root")]
    assert out.response == "6 * 7 = 42"


async def test_root_splits_think_into_thought() -> None:
    engine, _ = planner_engine(
        [plan("end", [calc("15 * 23")], thought="one calculation"),
         {"content": "<think>The tool said 345, so I say that.</think>15 * 23 = 345"}]
    )  # fmt: skip
    out = await engine.ainvoke("Calculate 15 * 23", user_id="u")
    assert out.response == "15 * 23 = 345" and "<think>" not in out.response
    assert "one calculation" in out.trace["thought"] and "The tool said 345" in out.trace["thought"]


# -- memory and guards -----------------------------------------------------------------------------------
async def test_memory_in_the_planner_mode() -> None:
    engine, model = planner_engine(
        [plan("end", []), {"content": "Nice to meet you, Ada."},
         {"content": "(no plan)"}, {"content": "You work on compilers."}]
    )  # fmt: skip
    first = await engine.ainvoke(ADA, thread_id="t1", user_id="ada")
    assert first.trace["memory"]["ingested"] == 2  # root ingested the stated facts
    second = await engine.ainvoke("What do I work on?", thread_id="t2", user_id="ada")
    assert second.trace["route"] == "end" and "memory answers this" in second.trace["thought"]
    assert "You work on compilers." in seen(model, 2) and "adequacy 1.00" in seen(model, 2)
    assert second.response == "You work on compilers."


async def test_guards_stop_the_research_with_partial_results() -> None:
    engine, _ = planner_engine(
        [plan("researcher", [calc("1 + 1"), calc("2 + 2"), calc("3 + 3")]), {"content": "1 + 1 = 2"}],
        max_tool_hops=1,
    )  # fmt: skip
    out = await engine.ainvoke("Add 1 + 1, 2 + 2 and 3 + 3", user_id="u")
    assert out.trace["suspended"] and out.trace["suspend_reason"] == "max_tool_hops"
    assert out.trace["tool_hops"] <= 3 and "stopped by a guard" in out.trace["scratchpad"]


async def test_a_planner_model_error_is_visible_and_not_blocking() -> None:
    engine, _ = planner_engine(
        [{"raise": {"type": "error", "message": "boom"}}, {"content": "Hello!"}], model_max_retries=0
    )
    out = await engine.ainvoke("Hello", user_id="u")
    assert out.response == "Hello!" and out.trace["route"] == "end"
    assert "lexical plan used" in out.trace["scratchpad"]
    assert any(e["node"] == "planner" for e in out.trace["errors"])


def test_check_results() -> None:
    ok = check_results("What is 15 * 23?", [{"name": "calculate", "args": {}, "content": "345", "ok": True}])
    assert ok.ok and ok.problems == []
    bad = check_results(
        "What time is it in Tokyo?",
        [{"name": "current_time", "args": {"location": "Tokyo"}, "content": "It is 21:23 in Tokyo.", "ok": True},
         {"name": "current_time", "args": {"location": "Tokyo"}, "content": "It is 09:00 in Tokyo.", "ok": True},
         {"name": "search_docs", "args": {}, "content": "Bananas are yellow.", "ok": True},
         {"name": "calculate", "args": {}, "content": "division by zero", "ok": False}],
    )  # fmt: skip
    kinds = {p.split(":")[0] for p in bad.problems}
    assert not bad.ok and kinds == {"tool_failed", "conflict", "irrelevant_result"}
    remembered = check_results(
        "How tall is the tower?",
        [{"name": "lookup", "args": {}, "content": "The tower is 300 metres tall.", "ok": True}],
        ["The tower is 324 metres tall."],
    )
    assert [p.split(":")[0] for p in remembered.problems] == ["memory_conflict"]


def test_the_planner_graph() -> None:
    engine = Cadence(
        make_settings(mode="planner", builtin_plugins=["math"]), model=ScriptedChatModel.from_items([])
    )
    nodes = set(engine.graph.get_graph().nodes)
    assert {"planner", "researcher", "validator", "root", "math_tools"} <= nodes
    diagram = engine.draw_mermaid("planner")
    assert "planner -.-> researcher" in diagram and "root -. &nbsp;answer&nbsp; .-> __end__" in diagram


@pytest.mark.parametrize("mode", ["planner"])
def test_cli_graph_planner(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from cadence.cli.main import app

    monkeypatch.setenv("CADENCE_LLM", "nope:x")  # drawing a graph contacts no model
    result = CliRunner().invoke(app, ["graph", "--mode", mode])
    assert result.exit_code == 0, result.output
    assert "planner" in result.stdout and "researcher" in result.stdout


async def test_the_stream_starts_at_the_planner_and_names_the_nodes() -> None:
    engine, _ = planner_engine([plan("researcher", [calc("2 + 2")]), {"content": "2 + 2 = 4"}])
    events = [e async for e in engine.astream("What is 2 + 2?", user_id="u", tokens=False)]
    assert events[0] == {"type": "node", "node": "planner"}
    nodes = [e["node"] for e in events if e["type"] == "node"]
    assert nodes[:2] == ["planner", "researcher"] and "root" in nodes
    assert any(e["type"] == "tool_end" for e in events) and events[-1]["type"] == "final"


def test_the_api_runs_the_planner_mode_per_request() -> None:
    import httpx

    from test_server_support import serve

    with serve() as url, httpx.Client(base_url=url, timeout=30) as client:
        body = client.post("/api/v1/chat", json={"message": "hi", "mode": "planner"}).json()
        assert body["trace"]["mode"] == "planner" and body["trace"]["route"] == "end"
        assert body["response"] and "scratchpad" in body["trace"]


async def test_planned_tools_go_through_the_approval_step() -> None:
    engine, _ = planner_engine(
        [plan("researcher", [calc("2 + 2")]), {"content": "2 + 2 = 4"}], approval_tools=["calculate"]
    )
    paused = await engine.ainvoke("What is 2 + 2?", thread_id="t1", user_id="u")
    assert paused.interrupted and paused.trace["tools_used"] == []
    [pending] = paused.approvals
    assert pending["tool"] == "calculate" and pending["arguments"] == {"expression": "2 + 2"}
    done = await engine.aresume({pending["id"]: "approve"}, thread_id="t1", user_id="u")
    assert not done.interrupted and done.response == "2 + 2 = 4"
    assert [(r["name"], r["content"], r["by"]) for r in done.trace["tool_results"]] == [
        ("calculate", "4", "researcher")
    ]
    assert done.trace["memory"]["ingested"] >= 1  # ingested once the turn finished, not at the pause


@pytest.mark.parametrize("route", ["researcher", "end"])
async def test_a_planned_call_edited_at_its_approval_counts_as_the_planned_call(route: str) -> None:
    engine, _ = planner_engine(
        [plan(route, [calc("2 + 2")]), {"content": "3 + 3 = 6."}], approval_tools=["calculate"]
    )
    paused = await engine.ainvoke("What is 2 + 2?", thread_id="t1", user_id="u")
    [pending] = paused.approvals
    edit = {"decision": "edit", "arguments": {"expression": "3 + 3"}}
    done = await engine.aresume({pending["id"]: edit}, thread_id="t1", user_id="u")
    assert not done.interrupted and done.approvals == []  # not asked again for the planned "2 + 2"
    assert [r["args"] for r in done.trace["tools_used"]] == [{"expression": "3 + 3"}]
    assert done.response == "3 + 3 = 6."


@pytest.mark.parametrize("route", ["researcher", "validator", "end"])
async def test_planned_arguments_that_do_not_fit_the_tool_are_asked_for_instead_of_run(route: str) -> None:
    """A plan naming the right tool with wrong arguments ("expr" for "expression") does not run a call
    that can only fail (and answer "the tool failed"): the node that runs it asks its model for them."""
    engine, model = planner_engine(
        [plan(route, [{"name": "calculate", "args": {"expr": "2 + 2"}}]),
         {"tool_calls": [calc("2 + 2")]},  # the runner's model fills the arguments
         {"content": "2 + 2 = 4."}]
    )  # fmt: skip
    out = await engine.ainvoke("What is 2 + 2?", user_id="u")
    assert out.trace["planned_tools"] == [{"name": "calculate", "args": None}]
    assert "'calculate': unknown argument 'expr' (it takes expression)" in out.trace["scratchpad"]
    assert [(r["args"], r["content"], r["ok"]) for r in out.trace["tool_results"]] == [
        ({"expression": "2 + 2"}, "4", True)
    ]
    assert out.response == "2 + 2 = 4." and list(model.records[1].tools) == ["calculate"]


@pytest.mark.parametrize("route", ["researcher", "end"])
async def test_a_long_plan_asks_approval_only_for_calls_within_the_tool_limit(route: str) -> None:
    """Three planned calls, CADENCE_MAX_TOOL_HOPS=2: the pause shows two (a third approved call would
    not run), both run once approved, and the guard stops the work with partial results."""
    engine, _ = planner_engine(
        [plan(route, [calc("1 + 1"), calc("2 + 2"), calc("3 + 3")]), {"content": "1 + 1 = 2 and 2 + 2 = 4."}],
        approval_tools=["calculate"],
        max_tool_hops=2,
    )
    paused = await engine.ainvoke("Add 1 + 1, 2 + 2 and 3 + 3", thread_id="t1", user_id="u")
    assert [a["arguments"]["expression"] for a in paused.approvals] == ["1 + 1", "2 + 2"]
    done = await engine.aresume("approve", thread_id="t1", user_id="u")
    assert not done.interrupted
    assert [(r["content"], r["ok"]) for r in done.trace["tool_results"]] == [("2", True), ("4", True)]
    assert done.trace["suspend_reason"] == "max_tool_hops"


@pytest.mark.parametrize("route", ["researcher", "validator"])
async def test_a_planned_tool_the_model_gives_no_call_for_is_skipped_for_the_turn(route: str) -> None:
    """'could not be called; skipped' means it: the next research round and root do not ask the model
    for its arguments again (one model call each, for nothing)."""
    engine, model = planner_engine(
        [plan(route, [calc("2 + 2"), {"name": "percentage"}]),
         {"content": "I cannot tell the arguments."},  # the runner: no call for percentage
         {"content": "2 + 2 = 4."}]
    )  # fmt: skip
    out = await engine.ainvoke("What is 2 + 2?", user_id="u")
    assert out.response == "2 + 2 = 4."
    assert [r.node for r in model.records] == ["planner", route, "root"]
    assert out.trace["planned_tools"] == [
        calc("2 + 2"),
        {"name": "percentage", "args": None, "skipped": True},
    ]
    assert out.trace["scratchpad"].count("could not be called; skipped") == 1


async def test_the_same_planned_call_twice_runs_and_asks_once() -> None:
    """A plan listing one call twice ran it twice (two tool hops) and asked the human twice."""
    engine, _ = planner_engine(
        [plan("end", [calc("2 + 2"), calc("2 + 2"), calc("3 + 3")]), {"content": "4 and 6."}],
        approval_tools=["calculate"],
    )
    paused = await engine.ainvoke("What are 2 + 2 and 3 + 3?", thread_id="t1", user_id="u")
    assert [a["arguments"]["expression"] for a in paused.approvals] == ["2 + 2", "3 + 3"]
    assert paused.trace["planned_tools"] == [calc("2 + 2"), calc("3 + 3")]
    done = await engine.aresume("approve", thread_id="t1", user_id="u")
    assert [r["content"] for r in done.trace["tool_results"]] == ["4", "6"] and done.trace["tool_hops"] == 2


def test_a_skipped_entry_after_a_planned_call_keeps_that_call() -> None:
    tools = {"calculate": object(), "current_time": object()}
    checked = check_plan(
        {"tools": [calc("2 + 2"), {"name": "nope"}, calc("2 + 2"), {"name": "current_time"}, "junk"]},
        tools,
        Plan("end"),
    )
    assert checked.tools == [calc("2 + 2"), {"name": "current_time", "args": None}]
    assert [n.split(";")[0] for n in checked.notes][1:] == [
        "plan: tool entry \"{'name': 'nope'}\" names no tool of the catalogue",
        "plan: tool 'calculate' planned twice with the same arguments",
        "plan: tool entry 'junk' names no tool of the catalogue",
    ]


async def test_a_runaway_plan_is_noted_once_not_per_entry() -> None:
    """A plan of thousands of bad or repeated entries wrote (and logged) one note per entry."""
    entries = [calc(f"{i} + 1") for i in range(30)] + [{"name": "nope"}] * 5000 + [calc("0 + 1")] * 100
    engine, _ = planner_engine([plan("end", entries), {"content": "Done."}], max_tool_hops=3)
    out = await engine.ainvoke("Add one to each number up to 29", user_id="u")
    assert len(out.trace["planned_tools"]) == 30 and out.trace["suspend_reason"] == "max_tool_hops"
    pad = out.trace["scratchpad"]
    assert pad.count("names no tool") == 20 and "5080 more tool entries skipped or merged" in pad
    assert "'calculate'] and 10 more" in pad and len(pad) < 4000


async def test_planned_tools_of_two_plugins_ask_for_arguments_once_each() -> None:
    """A round runs one plugin's calls: the arguments of the other plugin's planned tool were asked
    for too, dropped, and asked for again the next round (a model call spent for nothing)."""
    time_call = {"name": "current_time", "args": {"location": "Tokyo"}}
    engine, model = planner_engine(
        [plan("researcher", [{"name": "calculate"}, {"name": "current_time"}]),
         {"tool_calls": [calc("2 + 2")]},  # round 1: calculate's arguments
         {"tool_calls": [time_call]},  # round 2: current_time's
         {"content": "2 + 2 = 4; the time in Tokyo is known."}],
        researcher_min_results=2,
    )  # fmt: skip
    out = await engine.ainvoke("What is 2 + 2 and the time in Tokyo?", user_id="u")
    assert [r.node for r in model.records] == ["planner", "researcher", "researcher", "root"]
    assert [r["name"] for r in out.trace["tool_results"]] == ["calculate", "current_time"]


async def test_the_validator_with_nothing_to_check_says_so() -> None:
    """An empty plan routed to the validator was reported 'results consistent' with no result at all."""
    engine, _ = planner_engine([plan("validator", []), {"content": "Hello!"}])
    out = await engine.ainvoke("Hello", user_id="u")
    assert "validator: no tool results to check" in out.trace["scratchpad"]
    assert "results consistent" not in out.trace["scratchpad"] and out.response == "Hello!"


def test_a_reply_full_of_code_is_searched_for_a_plan_quickly() -> None:
    """A reply of code (braces everywhere) was parsed span by span: seconds of a blocked event loop for
    ten kilobytes, minutes for a long reply."""
    import time

    code = "function f(x) { if (x) { return {a: 1}; } else { return {b: 2}; } }\n" * 300
    started = time.perf_counter()
    assert extract_plan(AIMessage(content=code)) == (None, "none")
    tail = AIMessage(content=code[:2000] + '\n<plan>{"delegate_to": "end"}</plan>')
    assert extract_plan(tail) == ({"delegate_to": "end"}, "tags")
    assert time.perf_counter() - started < 1.0


async def test_a_long_planner_thought_is_clipped_before_root_reads_it() -> None:
    """The plan's thought went whole into root's prompt and every trace (a model writing an essay)."""
    engine, model = planner_engine([plan("end", [], thought="why " * 5000), {"content": "Hi!"}])
    out = await engine.ainvoke("Hello", user_id="u")
    assert len(out.trace["thought"]) <= 2000 and out.trace["thought"].endswith("…")
    assert "the thought had 19999 characters; clipped to 2000" in out.trace["scratchpad"]
    assert len(seen(model, 1)) < 10_000


@pytest.mark.parametrize("route", ["researcher", "validator"])
async def test_a_guard_stop_is_noted_once(route: str) -> None:
    """The sub-agent and then root (planned tools still pending) each noted the same guard stop."""
    engine, _ = planner_engine(
        [plan(route, [calc(f"{i} + 1") for i in range(5)]), {"content": "1 and 2."}], max_tool_hops=2
    )
    out = await engine.ainvoke("Add one to 0, 1, 2, 3 and 4", user_id="u")
    assert out.trace["suspend_reason"] == "max_tool_hops"
    assert [n for n in out.trace["notes"] if "tool work stopped" in n] == [
        "planner mode: tool work stopped (max_tool_hops); answering from partial results"
    ]
