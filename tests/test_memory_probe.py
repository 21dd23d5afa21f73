"""Probes of long-term memory a user hits: corrections, contradicting facts, memory off, isolation."""

from __future__ import annotations

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool
from langgraph.store.memory import InMemoryStore

from cadence.memory import MemoryService
from cadence.memory.ingest import about_user, only_statements, stated_facts
from cadence.orchestration.engine import Cadence
from cadence.testing import ScriptedChatModel
from conftest import FINALIZE, call, goto, make_settings, tool_plugin


@pytest.mark.parametrize(
    ("older", "correction", "kept"),
    [
        ("I live in Paris.", "Actually I live in Rome.", "I live in Rome."),
        ("I live in Paris.", "No, I live in Rome.", "I live in Rome."),
        ("I live in Paris.", "Correction: I live in Rome.", "I live in Rome."),
        ("I live in Paris.", "Oh wait, I live in Rome.", "I live in Rome."),
        ("I live in Paris.", "I now live in Rome.", "I now live in Rome."),
        ("I live in Paris.", "My mistake, I live in Rome.", "I live in Rome."),
        ("I live in Paris.", "Sorry for the confusion, I live in Rome.", "I live in Rome."),
        ("My name is Ada.", "Sorry, my name is Bea.", "My name is Bea."),
        ("My name is Ada.", "Actually, my name's Bea.", "My name's Bea."),
        ("My name's Ada.", "My name is actually Bea.", "My name is actually Bea."),
    ],
)
async def test_a_correction_replaces_the_older_fact(older: str, correction: str, kept: str) -> None:
    """'Actually I live in Rome.' was no fact at all (nor 'No, …', 'Sorry, …'): 'I live in Paris' stayed
    the only answer; "My name's Bea" had no topic, so both names were kept."""
    memory = MemoryService(InMemoryStore(), make_settings())
    await memory.ingest_turn("alice", older, "Noted.", thread_id="t1", now=1000.0)
    await memory.ingest_turn("alice", correction, "Noted.", thread_id="t2", now=2000.0)
    assert [m.text for m in await memory.list("alice")] == [kept]
    assert only_statements(correction)


def test_an_addition_or_another_thing_is_no_correction() -> None:
    """What opens a correction is not part of the fact; 'also' adds, and a request stays a request."""
    [paris], [also] = stated_facts("I work at Apple."), stated_facts("I also work at Google.")
    assert also.topic != paris.topic
    [job], [sick] = stated_facts("My wife's job is teaching."), stated_facts("My wife's sick.")
    assert job.topic != sick.topic
    for request in ("No, I don't know.", "Sorry, I need help with my code.", "Nope, what is my name"):
        assert stated_facts(request) == []


async def test_a_corrected_fact_is_what_a_later_thread_is_told() -> None:
    model = ScriptedChatModel.from_items(
        [FINALIZE, {"content": "Noted."}, FINALIZE, {"content": "Noted."}, FINALIZE, {"content": "Rome."}]
    )
    engine = Cadence(make_settings(), model=model)
    await engine.ainvoke("I live in Paris.", thread_id="t1", user_id="alice")
    await engine.ainvoke("Actually, I live in Rome.", thread_id="t2", user_id="alice")
    asked = await engine.ainvoke("Where do I live?", thread_id="t3", user_id="alice")
    assert [i["statement"] for i in asked.trace["memory"]["items"]] == ["You live in Rome."]


async def test_a_very_long_fact_is_clipped_like_a_result() -> None:
    """A 30,000-character 'I work on …' clause was kept whole and given back in every later turn."""
    memory = MemoryService(InMemoryStore(), make_settings(memory_max_item_chars=200))
    said = "I work on " + " ".join(f"project{n}" for n in range(3000)) + "."
    [fact] = await memory.ingest_turn("alice", said, "Noted.")
    assert len(fact.text) <= 200 and len(fact.statement) <= 200
    assert fact.text.startswith("I work on project0") and fact.statement.startswith("You work on project0")
    recall = await memory.recall("alice", "What do I work on?")
    assert [len(i.statement) <= 200 for i in recall.items] == [True]
    await memory.ingest_turn("alice", said, "Noted.")  # the same words again: still one memory
    assert len(await memory.list("alice")) == 1


@tool
def record(text: str) -> str:
    """Record a text."""
    return f"recorded {text}"


async def test_the_single_modes_agent_gets_the_users_memory() -> None:
    """The single mode recalled and kept memories, but its agent — whose answer is the final one —
    never saw them: 'What do I work on?' in a new thread was answered without 'compilers'."""
    model = ScriptedChatModel.from_items([{"content": "Nice to meet you."}, {"content": "Compilers."}])
    engine = Cadence(
        make_settings(mode="single", agent="counter"), model=model, plugins=[tool_plugin("counter", [record])]
    )
    await engine.ainvoke("My name is Ada and I work on compilers.", thread_id="t1", user_id="alice")
    out = await engine.ainvoke("What do I work on?", thread_id="t2", user_id="alice")
    assert out.trace["memory"]["adequacy"] == 1.0
    seen = model.records[1].messages
    recalled = [m for m in seen if isinstance(m, ToolMessage) and m.name == "recall_memory"]
    assert [m.content for m in recalled] == ["You work on compilers."]
    assert "compilers" not in str(model.records[1].messages[0].content)  # given once, as the result
    other = await engine.ainvoke("What do I work on?", thread_id="t3", user_id="bob")
    assert other.trace["memory"]["items"] == []


async def test_a_general_question_is_not_answered_from_the_users_facts() -> None:
    """'What is a compiler?' after 'I work on compilers.': the fact held the question's every word, so it
    was adequate, and the model's right answer was rewritten into 'You work on compilers.'."""
    model = ScriptedChatModel.from_items(
        [FINALIZE, {"content": "Noted."}, FINALIZE, {"content": "A compiler translates source code."},
         FINALIZE, {"content": "You work on compilers."}]
    )  # fmt: skip
    engine = Cadence(make_settings(), model=model)
    await engine.ainvoke("I work on compilers.", thread_id="t1", user_id="alice")
    general = await engine.ainvoke("What is a compiler?", thread_id="t2", user_id="alice")
    assert general.response == "A compiler translates source code."
    assert general.trace["memory"]["routing_adequacy"] == 0.0
    assert "recall_memory" not in [m.name for m in model.records[2].messages]  # routing was not told
    personal = await engine.ainvoke("What do I work on?", thread_id="t3", user_id="alice")
    assert personal.trace["memory"]["routing_adequacy"] == 1.0
    assert personal.response == "You work on compilers."


async def test_facts_whose_numbers_work_out_the_answer_do_not_answer_it_alone() -> None:
    """'How many hours do I work in a week?' after 'I work 8 hours a day, 5 days a week.': the fact held
    every word of the question, so it answered alone, and the embedded model said it again."""
    model = ScriptedChatModel.from_items(
        [FINALIZE, {"content": "Noted."}, FINALIZE, {"content": "40 hours."},
         FINALIZE, {"content": "You have 3 kids."}]
    )  # fmt: skip
    engine = Cadence(make_settings(), model=model)
    await engine.ainvoke("I work 8 hours a day, 5 days a week. I have 3 kids.", thread_id="t1", user_id="al")
    worked = await engine.ainvoke("How many hours do I work in a week?", thread_id="t2", user_id="al")
    assert worked.trace["memory"]["adequacy"] == 1.0  # the words are all there ...
    assert worked.trace["memory"]["routing_adequacy"] == 0.0  # ... the answer is not
    said = await engine.ainvoke("How many kids do I have?", thread_id="t3", user_id="al")
    assert said.trace["memory"]["routing_adequacy"] == 1.0  # one number, said as it was


@pytest.mark.parametrize(
    ("question", "about"),
    [("What do I work on?", True), ("What's my name?", True), ("Remind me where I'm from", True),
     ("What is a compiler?", False), ("Tell me about Rome.", False), ("Is iOS a Unix?", False),
     # a fact stated before the question is no question about the user: asked again, the calculator
     # answers it, not the remembered fact ("You paid $45 for a shirt ...")
     ("I paid $45 for a shirt that was 25% off. What was the original price?", False),
     ("I live in Rome. What time is it where I live?", True)],
)  # fmt: skip
def test_a_question_about_the_user_says_so(question: str, about: bool) -> None:
    assert about_user(question) is about


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}."


@pytest.mark.parametrize("mode", ["coordinator", "supervisor"])
async def test_an_agent_acting_for_the_user_gets_their_facts(mode: str) -> None:
    """'What's the weather where I live?' after 'I live in Rome.': the weather agent never saw 'Rome' (only
    the final answer did, after the work), so no model could call the tool for Rome."""
    if mode == "coordinator":
        work = [goto("weather"), call("weather", city="Rome"), FINALIZE]
    else:  # the agent answers, then the supervisor finalizes
        work = [call("transfer_to_weather"), call("weather", city="Rome"), {"content": "Sunny."}, FINALIZE]
    script = [FINALIZE, {"content": "Noted."}, *work, {"content": "Sunny in Rome."}]
    model = ScriptedChatModel.from_items(script)
    engine = Cadence(make_settings(mode=mode), model=model, plugins=[tool_plugin("weather", [weather])])
    await engine.ainvoke("I live in Rome.", thread_id="t1", user_id="alice")
    out = await engine.ainvoke("What's the weather where I live?", thread_id="t2", user_id="alice")
    agent = next(r for r in model.records[2:] if r.node == "weather_agent")
    assert "You live in Rome." in str(agent.messages[0].content)  # in its system prompt
    assert out.response == "Sunny in Rome."
    bob = await engine.ainvoke("What's the weather where I live?", thread_id="t3", user_id="bob")
    assert bob.trace["memory"]["items"] == []


async def test_the_single_modes_agent_gets_the_users_facts_to_act_on() -> None:
    """'How many hours ahead of London am I?' after 'I live in Istanbul.' in the single mode: the fact was
    listed as a remembered result, not as what the user told, so the agent's arguments never got it."""
    script = [{"content": "Noted."}, call("weather", city="Rome"), {"content": "Sunny in Rome."}]
    model = ScriptedChatModel.from_items(script)
    engine = Cadence(
        make_settings(mode="single", agent="weather"),
        model=model,
        plugins=[tool_plugin("weather", [weather])],
    )
    await engine.ainvoke("I live in Rome.", thread_id="t1", user_id="alice")
    out = await engine.ainvoke("What's the weather where I live?", thread_id="t2", user_id="alice")
    prompt = str(model.records[1].messages[0].content)
    assert "WHAT THE USER TOLD YOU ABOUT THEMSELVES EARLIER" in prompt and "You live in Rome." in prompt
    assert prompt.count("You live in Rome.") == 1  # once, not again among the remembered results
    assert out.response == "Sunny in Rome."


async def test_the_planners_researcher_gets_the_users_facts_for_arguments() -> None:
    """The planner's researcher, asked for a tool's arguments, never saw 'I live in Rome.'."""
    model = ScriptedChatModel.from_items(
        [{"content": '<plan>{"delegate_to": "end"}</plan>'}, {"content": "Noted."},
         {"content": '<plan>{"delegate_to": "researcher", "tools": [{"name": "weather"}]}</plan>'},
         call("weather", city="Rome"), {"content": "Sunny in Rome."}]
    )  # fmt: skip
    engine = Cadence(make_settings(mode="planner"), model=model, plugins=[tool_plugin("weather", [weather])])
    await engine.ainvoke("I live in Rome.", thread_id="t1", user_id="alice")
    out = await engine.ainvoke("What's the weather where I live?", thread_id="t2", user_id="alice")
    researcher = next(r for r in model.records[2:] if r.node == "researcher")
    assert "You live in Rome." in str(researcher.messages[0].content)
    assert [r["args"] for r in out.trace["tool_results"]] == [{"city": "Rome"}]


FAMILY = ["My name is Ada.", "My wife is a doctor.", "I live in Rome.", "I work on compilers."]


@pytest.mark.parametrize(
    ("question", "answers"),
    [
        ("What is my wife's name?", False),  # 'wife' in one fact, 'name' in another: her name is unknown
        ("Where does my wife work?", False),
        ("Where do I work?", True),
        ("Where do I live and what do I work on?", True),  # each part by one fact
        ("What's my name? Where do I live?", True),
    ],
)
async def test_facts_answer_a_question_only_when_one_fact_answers_each_part(
    question: str, answers: bool
) -> None:
    """'What is my wife's name?' was adequate (1.0): 'My wife is a doctor.' held 'wife' and 'My name is Ada.'
    'name', so the answer was rewritten into 'Your wife is a doctor. Your name is Ada.'."""
    settings = make_settings()
    memory = MemoryService(InMemoryStore(), settings)
    for fact in FAMILY:
        await memory.ingest_turn("alice", fact, "Noted.")
    recall = await memory.recall("alice", question)
    assert (recall.adequacy_of(["fact"]) >= settings.memory_adequacy_threshold) is answers


async def test_an_unknown_fact_is_not_answered_from_two_unrelated_ones() -> None:
    model = ScriptedChatModel.from_items(
        [FINALIZE, {"content": "Noted."}, FINALIZE, {"content": "You haven't told me your wife's name."}]
    )
    engine = Cadence(make_settings(), model=model)
    await engine.ainvoke("My name is Ada and my wife is a doctor.", thread_id="t1", user_id="alice")
    out = await engine.ainvoke("What is my wife's name?", thread_id="t2", user_id="alice")
    assert out.response == "You haven't told me your wife's name."  # not rewritten into the two facts
    assert out.trace["memory"]["routing_adequacy"] < 0.6


async def test_a_message_of_many_facts_is_kept_in_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each new memory walked the whole namespace for the one it refreshes: 1,500 facts over 1,500 memories
    held the event loop for seconds (a normalisation per pair); now an index finds it at once."""
    from cadence.memory import service

    memory = MemoryService(InMemoryStore(), make_settings())
    await memory.ingest_turn("alice", " ".join(f"I like thing{n}." for n in range(300)), "Noted.")
    calls = 0
    normal = service._normal

    def counting(text: str) -> str:
        nonlocal calls
        calls += 1
        return normal(text)

    monkeypatch.setattr(service, "_normal", counting)
    said = " ".join(f"I like other{n}. I like thing{n}." for n in range(300))
    stored = await memory.ingest_turn("alice", said, "Noted.")
    assert len(stored) == 600 and len(await memory.list("alice", limit=5000)) == 600
    assert calls < 5_000  # linear: the namespace once, each new memory a few times (was 300 × 600 × 2)


async def test_the_planner_is_shown_the_adequacy_that_lets_memory_answer() -> None:
    """The planner's prompt said 'adequacy 1.00 = how well memory alone answers' for 'What is a compiler?'
    after 'I work on compilers.' (the terms' coverage), inviting an 'end' from memory; it shows the facts'."""
    model = ScriptedChatModel.from_items(
        [{"content": '<plan>{"delegate_to": "end"}</plan>'}, {"content": "Noted."},
         {"content": '<plan>{"delegate_to": "end"}</plan>'}, {"content": "A compiler translates code."}]
    )  # fmt: skip
    engine = Cadence(make_settings(mode="planner"), model=model)
    await engine.ainvoke("I work on compilers.", thread_id="t1", user_id="alice")
    await engine.ainvoke("What is a compiler?", thread_id="t2", user_id="alice")
    planner = next(r for r in model.records[2:] if r.node == "planner")
    assert "adequacy 0.00 of 1" in str(planner.messages[0].content)


@pytest.mark.parametrize(
    "reply",
    ["Ok, I see what you mean.", "I agree with you on that.", "I'll try that tomorrow.",
     "I'm not sure about that.", "I got it, thanks a lot.", "I understand the problem now."],
)  # fmt: skip
def test_a_reply_to_the_conversation_is_no_fact(reply: str) -> None:
    """'I agree with you on that.' was kept for good and told back in later threads as 'You agree with you
    on that.'; a reply to the conversation says nothing lasting about the user."""
    assert stated_facts(reply) == [] and not only_statements(reply)


def test_facts_that_open_like_a_reply_stay_facts() -> None:
    for fact in ("I know Python and Rust.", "I understand French.", "I got a new job.", "I see a therapist."):
        assert [f.text for f in stated_facts(fact)] == [fact]


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("I'm vegan.", "I'm not vegan anymore."),
        ("I live in Paris.", "No, I don't live in Paris anymore."),
        ("I eat meat.", "I never eat meat."),
        ("I'm not vegan anymore.", "I am vegan."),  # and back
    ],
)
async def test_a_fact_denied_later_is_replaced_by_the_denial(older: str, newer: str) -> None:
    """'I'm not vegan anymore.' left 'I'm vegan.' in memory, and both were told back (the older first)."""
    memory = MemoryService(InMemoryStore(), make_settings())
    await memory.ingest_turn("alice", older, "Noted.", now=1000.0)
    await memory.ingest_turn("alice", "I work on compilers.", "Noted.", now=1500.0)
    await memory.ingest_turn("alice", newer, "Noted.", now=2000.0)
    assert sorted(m.text for m in await memory.list("alice")) == sorted(
        ["I work on compilers.", stated_facts(newer)[0].text]
    )


async def test_consolidation_keeps_the_newest_of_a_fact_and_its_denial() -> None:
    """Memories kept before facts replaced their denials (or by two turns at once) stayed contradicting."""
    memory = MemoryService(InMemoryStore(), make_settings())
    await memory.remember("alice", "I'm vegan.", now=1000.0)
    await memory.remember("alice", "I work on compilers.", now=1500.0)
    ns = MemoryService.namespace("alice")
    await memory.store.aput(
        ns, "denial", {"text": "I'm not vegan anymore.", "kind": "fact", "updated_at": 2000.0}
    )
    report = await memory.consolidate("alice", now=3000.0)
    assert report.superseded == 1
    assert sorted(m.text for m in await memory.list("alice")) == [
        "I work on compilers.",
        "I'm not vegan anymore.",
    ]
    assert (await memory.consolidate("alice", now=3000.0)).changed == 0


def test_the_users_age_or_birth_is_one_term_however_said() -> None:
    """ "How old am I?" recalls "I was born on 3 March 1995." (the agent works the age out of it)."""
    from cadence.memory.recall import AGE_TERM, PLACE_TERM, terms

    for text in (
        "How old am I?",
        "I was born on 3 March 1995.",
        "I'm 30 years old.",
        "My birthday is on 14 July.",
    ):
        assert AGE_TERM in terms(text), text
    assert PLACE_TERM not in terms("How old am I?")  # "… am I?" asks no place here
    assert AGE_TERM not in terms("The old town is pretty.")
