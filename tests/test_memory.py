"""Long-term memory: the formulas (BM25, relevance, adequacy), fact extraction, and memory in turns.

The store backends share one spec in ``test_memory_conformance.py``; here memory runs in process.
"""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any

import pytest
from langgraph.store.base import PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

from cadence.memory import MemoryService
from cadence.memory.ingest import addressed, only_statements, stated_facts
from cadence.memory.recall import (
    NAME_TERM,
    PLACE_TERM,
    adequacy,
    bm25,
    idf,
    owned_terms,
    relevance,
    score,
    terms,
    worked_out,
)
from cadence.orchestration.engine import Cadence
from cadence.testing import ScriptedChatModel
from conftest import FINALIZE, call, goto, make_settings

ADA = "My name is Ada and I work on compilers."


# -- formulas ---------------------------------------------------------------------------------
def test_terms_drop_stopwords_and_plurals() -> None:
    assert terms("What do I work on?") == ["work"]
    assert terms("I work on compilers.") == ["work", "compiler"]
    assert terms("Hi there!") == []


@pytest.mark.parametrize(
    ("fact", "question"),
    [
        ("I'm based in Lisbon.", "What time is it at home?"),
        ("I live in Oslo.", "What's the time here?"),
        ("I come from Lima.", "How far ahead of my hometown is Tokyo?"),
        ("I am currently staying in Rome.", "What time is it where I am?"),
        ("I'm currently living in Osaka.", "How many hours ahead of London am I?"),
        ("I work from Kuala Lumpur.", "If I have a 9 am meeting where I am, what time is that in London?"),
    ],
)
def test_every_way_of_saying_where_the_user_is_shares_one_term(fact: str, question: str) -> None:
    assert relevance(terms(question), [terms(fact), terms("My cat is called Tom.")])[0] > 0
    assert PLACE_TERM not in terms("Here is my question about Tokyo.")  # "here" ends a question only


def test_a_name_asked_as_called_and_an_amount_earned_share_terms() -> None:
    dog = terms("Your dog's name is Biscuit.")
    assert (
        relevance(terms("what's my dog called again?"), [dog])[0]
        > relevance(terms("what's my dog like?"), [dog])[0]
    )
    pay = terms("You make $28 an hour.")
    assert "earn" in pay and "earn" in terms("How much do I earn in a 40-hour week?")
    assert "earn" in terms("What's my salary?")
    assert "earn" not in terms("Can you make a cake for 8 people?")  # "make" without an amount


def test_the_user_as_a_place_and_the_users_own_things() -> None:
    assert PLACE_TERM in terms("what time is it for me right now?")
    assert PLACE_TERM in terms("What's the time difference between me and Tokyo?")
    assert PLACE_TERM in terms("How far ahead of me is London?") and PLACE_TERM in terms(
        "Is Tokyo behind me?"
    )
    assert PLACE_TERM not in terms("can you work this out for me: 2 + 2")
    assert PLACE_TERM in terms("I just moved to Halifax for a new job.")
    assert relevance(terms("what's my job again?"), [terms("I work as a nurse.")])[0] > 0
    assert owned_terms("Your weekly grocery bill is $140.") == {"week", "grocery", "bill"}
    assert owned_terms("You live in Rome.") == set()


async def test_a_question_about_the_users_own_thing_recalls_it_whatever_its_score() -> None:
    """ "how much rent do I pay in a year?" shares one word of four with "My monthly rent is 1,250 euros.":
    it scored 0.094, under CADENCE_MEMORY_MIN_SCORE, and was not recalled."""
    memory = MemoryService(InMemoryStore(), make_settings())
    await memory.remember("u", "Your monthly rent is 1,250 euros.")
    asked = await memory.recall("u", "how much rent do I pay in a year?")
    assert [i.text for i in asked.items] == ["Your monthly rent is 1,250 euros."]
    general = await memory.recall("u", "is rent cheaper in Lisbon or in Porto?")  # not about the user
    assert general.items == []


def test_bm25_matches_the_documented_formula() -> None:
    docs = [["work", "compiler"], ["cat", "tom"], ["work", "garden", "garden"]]
    scores = bm25(["work", "compiler"], docs)
    avgdl = 7 / 3
    norm = 1.2 * (1 - 0.75 + 0.75 * 2 / avgdl)
    expected = idf(2, 3) * 2.2 / (1 + norm) + idf(1, 3) * 2.2 / (1 + norm)
    assert math.isclose(scores[0], expected) and scores[1] == 0.0
    assert idf(1, 3) == pytest.approx(math.log(1 + 2.5 / 1.5))
    assert scores[0] > scores[2] > 0


def test_relevance_and_adequacy_order() -> None:
    docs = [terms("I work on compilers."), terms("My cat is called Tom."), terms("I like green tea.")]
    rel = relevance(terms("What do I work on?"), docs)
    assert rel[0] > 0 and rel[1] == rel[2] == 0.0 and all(0 <= r <= 1 for r in rel)
    full = adequacy(terms("What do I work on?"), [docs[0]], docs)
    partial = adequacy(terms("Do I work on weekends?"), [docs[0]], docs)
    none = adequacy(terms("What is the capital of Peru?"), [], docs)
    assert full == 1.0 > partial > none == 0.0
    assert adequacy([], [docs[0]], docs) == 0.0


def test_one_pass_scoring_equals_the_formulas_term_for_term() -> None:
    # score() looks closely only at the memories holding a question term; on random namespaces it
    # must give exactly what BM25 over every memory and the adequacy over every memory give
    rng = random.Random(7)
    words = [f"w{i}" for i in range(40)]
    for _ in range(200):
        docs = [rng.choices(words, k=rng.randint(0, 8)) for _ in range(rng.randint(0, 30))]
        query = rng.choices([*words, "absent"], k=rng.randint(0, 5))
        unique = list(dict.fromkeys(query))
        scored = score(query, docs)
        if unique and docs:
            ceiling = sum(idf(sum(1 for d in docs if t in d), len(docs)) for t in unique)
            expected = [min(1.0, s / ceiling) for s in bm25(unique, docs)]
        else:
            expected = [0.0] * len(docs)
        assert scored.relevance == expected
        recalled = [d for d in docs if rng.random() < 0.3]
        weights = {t: idf(sum(1 for d in docs if t in d), max(len(docs), 1)) for t in unique}
        whole = sum(weights.values())
        held = {t for d in recalled for t in d}
        covered = sum(w for t, w in weights.items() if t in held)
        assert scored.adequacy(recalled) == (round(covered / whole, 4) if whole > 0 else 0.0)
        assert adequacy(query, recalled, docs) == scored.adequacy(recalled)


# -- facts -----------------------------------------------------------------------------------------
def test_stated_facts_are_first_person_statements() -> None:
    facts = stated_facts(ADA)
    assert [(f.text, f.statement, f.topic) for f in facts] == [
        ("My name is Ada.", "Your name is Ada.", "my name"),
        ("I work on compilers.", "You work on compilers.", "i work on"),
    ]
    assert stated_facts("What do I work on?") == []
    assert stated_facts("I want to know the time in Tokyo.") == []
    assert stated_facts("Calculate 15 * 23") == []
    assert [f.statement for f in stated_facts("Hi, I'm Bo. What time is it?")] == ["You're Bo."]
    assert addressed("I am a teacher and my dog likes me") == "You are a teacher and your dog likes you."
    # only the speaker's own verb turns: "a shirt that was 25% off" had become "that were"
    assert (
        addressed("I paid $45 for a shirt that was 25% off") == "You paid $45 for a shirt that was 25% off."
    )
    assert (
        addressed("I was born in 1990 and my dog was sick") == "You were born in 1990 and your dog was sick."
    )


@pytest.mark.parametrize(
    ("message", "statement"),
    [
        ("Remember that my favorite color is green.", "Your favorite color is green."),
        ("Please remember my favourite food is sushi", "Your favourite food is sushi."),
        ("Note: I am allergic to peanuts", "You are allergic to peanuts."),
        ("Keep in mind that I live in Oslo", "You live in Oslo."),
    ],
)
def test_a_fact_asked_to_be_remembered_is_a_fact(message: str, statement: str) -> None:
    assert [f.statement for f in stated_facts(message)] == [statement]
    assert only_statements(message)


def test_remember_with_no_fact_of_the_user_is_none() -> None:
    assert stated_facts("Remember the milk") == [] and stated_facts("remember that?") == []


def test_a_message_of_statements_only() -> None:
    assert only_statements(ADA) and only_statements("Hi! I'm Bo.")
    # a pleasantry beside the statement is a greeting too (the 135M model answered "I'm Alex here to help")
    assert only_statements("Hi, I'm Alex. Nice to meet you!") and only_statements(
        "Good morning! My name is Sam."
    )
    assert not only_statements("I work on compilers, what is 2+2?")
    assert not only_statements("I live in Paris. Calculate 2+2")
    assert not only_statements("Hello")
    # a question after a comma, without a question mark, is still asked (and not part of the fact)
    lima = "my friend lives in Lima, whats the time there now"
    assert not only_statements(lima)
    assert [f.text for f in stated_facts(lima)] == ["My friend lives in Lima."]
    assert not only_statements("I'm in Oslo, tell me the time")


async def test_a_statement_is_answered_from_itself_without_tools() -> None:
    """The facts a message states answer it: routing sees them (and may finalize), the answer carries them."""
    engine, model = engine_with([FINALIZE, {"content": "Nice to meet you!"}])
    out = await engine.ainvoke(ADA, user_id="erin")
    assert out.trace["memory"]["adequacy"] == 1.0
    assert "You work on compilers." in seen(model, 0)  # the coordinator's input
    assert "compilers" in out.response and "Ada" in out.response  # rewritten from what was stated


# -- in turns -----------------------------------------------------------------------------------------
class RecordingStore(InMemoryStore):
    """An in-memory store that records the operations it runs (``searches``, ``puts``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ops: list[Any] = []

    async def abatch(self, ops: Any) -> Any:
        ops = list(ops)
        self.ops.extend(ops)
        return await super().abatch(ops)

    @property
    def searches(self) -> list[SearchOp]:
        """The searches run so far."""
        return [op for op in self.ops if isinstance(op, SearchOp)]

    @property
    def puts(self) -> list[PutOp]:
        """The writes asked for so far."""
        return [op for op in self.ops if isinstance(op, PutOp)]


def engine_with(script: list[dict[str, Any]], **overrides: Any) -> tuple[Cadence, ScriptedChatModel]:
    model = ScriptedChatModel.from_items(script)
    return Cadence(make_settings(**overrides), model=model), model


def seen(model: ScriptedChatModel, index: int) -> str:
    return "\n".join(str(m.content) for m in model.records[index].messages)


async def test_memory_is_recalled_in_a_new_thread_of_the_same_user_only() -> None:
    engine, model = engine_with(
        [FINALIZE, {"content": "Nice to meet you, Ada."},  # alice, thread 1
         FINALIZE, {"content": "You work on compilers."},  # alice, thread 2
         FINALIZE, {"content": "I don't know what you work on."}]  # bob
    )  # fmt: skip
    first = await engine.ainvoke(ADA, thread_id="t1", user_id="alice")
    assert first.trace["memory"]["ingested"] == 2
    second = await engine.ainvoke("What do I work on?", thread_id="t2", user_id="alice")
    assert second.response == "You work on compilers."
    memory = second.trace["memory"]
    assert memory["adequacy"] == 1.0 and memory["items"][0]["statement"] == "You work on compilers."
    assert memory["items"][0]["source_thread"] == "t1"
    assert "You work on compilers." in seen(model, 2)  # the coordinator saw it (and could finalize)
    assert "You work on compilers." in seen(model, 3)  # so did the synthesizer
    third = await engine.ainvoke("What do I work on?", thread_id="t3", user_id="bob")
    assert third.trace["memory"]["items"] == [] and "compilers" not in seen(model, 4) + seen(model, 5)
    assert "compilers" not in third.response


async def test_an_answer_that_ignores_adequate_memory_is_rewritten_from_it() -> None:
    engine, _ = engine_with([FINALIZE, {"content": "Hello!"}, FINALIZE, {"content": "I am not sure."}])
    await engine.ainvoke(ADA, thread_id="t1", user_id="alice")
    out = await engine.ainvoke("What do I work on?", thread_id="t2", user_id="alice")
    assert "compilers" in out.response
    assert any("rewritten" in n for n in out.trace["notes"])


async def test_memory_counts_as_grounded_evidence() -> None:
    """A relevant but not adequate memory may be used by the answer without it being 'invented'."""
    engine, _ = engine_with(
        [FINALIZE, {"content": "Noted."},
         goto("math"), call("calculate", expression="7 * 6"), FINALIZE,
         {"content": "7 * 6 = 42, and your cat is 3 years old."}]
    )  # fmt: skip
    await engine.ainvoke("My cat is 3 years old.", thread_id="t1", user_id="alice")
    out = await engine.ainvoke("What is 7 * 6 and how old is my cat?", thread_id="t2", user_id="alice")
    assert out.trace["memory"]["items"] and out.trace["memory"]["adequacy"] < 0.6, out.trace["memory"]
    assert not any("invented_number" in n for n in out.trace["notes"])
    assert out.response == "7 * 6 = 42, and your cat is 3 years old."


async def test_a_question_about_where_the_user_is_recalls_where_they_said_they_are() -> None:
    engine, _ = engine_with([FINALIZE, {"content": "Noted."}, FINALIZE, {"content": "It is noon in Lisbon."}])
    await engine.ainvoke("I'm based in Lisbon. My cat is called Tom.", thread_id="t1", user_id="alice")
    out = await engine.ainvoke("What time is it at home?", thread_id="t2", user_id="alice")
    assert [i["statement"] for i in out.trace["memory"]["items"]] == ["You're based in Lisbon."]


async def test_a_question_about_the_users_name_recalls_the_name_they_gave() -> None:
    engine, _ = engine_with([FINALIZE, {"content": "Nice to meet you."}, FINALIZE, {"content": "Ingrid."}])
    await engine.ainvoke(
        "Hi! I'm Ingrid, nice to meet you. My cat is called Tom.", thread_id="t1", user_id="u"
    )
    out = await engine.ainvoke("sorry, what's my name again?", thread_id="t2", user_id="u")
    assert [i["statement"] for i in out.trace["memory"]["items"]][:1] == ["You're Ingrid, nice to meet you."]
    assert NAME_TERM not in terms("I'm tired")  # no name: the case tells


@pytest.mark.parametrize(
    "question", ["What do you know about me?", "Who am I?", "What have I told you so far?"]
)
async def test_a_question_about_the_user_as_a_whole_recalls_every_fact_newest_first(question: str) -> None:
    """It shares no word with any fact ("who", "am", "I" are stopwords): every fact answers it together."""
    service = MemoryService(InMemoryStore(), make_settings())
    for i, told in enumerate(["I live in Lisbon.", "My name is Dana.", "I have two cats."]):
        await service.ingest_turn("u", told, "Noted.", thread_id=f"t{i}", now=1000.0 + i)
    await service.ingest_turn(
        "u",
        "What is 2 + 2?",
        "4",
        thread_id="t9",
        results=[("calculate", {"expression": "2+2"}, "4")],
        now=1009.0,
    )
    recall = await service.recall("u", question)
    assert [i.statement for i in recall.items] == [
        "You have two cats.",
        "Your name is Dana.",
        "You live in Lisbon.",
    ]
    assert recall.adequacy == 1.0 and recall.adequacy_of(["fact"]) == 1.0
    assert (await service.recall("nobody", question)).items == []


async def test_what_is_known_of_the_user_answers_from_memory_in_another_thread() -> None:
    engine, model = engine_with(
        [FINALIZE, {"content": "Noted."}, {"content": "You live in Lisbon and have a cat."}]
    )
    await engine.ainvoke("I live in Lisbon and I have a cat.", thread_id="t1", user_id="u")
    out = await engine.ainvoke("What do you know about me?", thread_id="t2", user_id="u")
    assert out.trace["memory"]["routing_adequacy"] == 1.0
    assert {i["statement"] for i in out.trace["memory"]["items"]} == {
        "You live in Lisbon.",
        "You have a cat.",
    }
    assert out.trace["routing_history"] == []  # memory answers: no agent


async def test_forgetting_removes_memory_from_recall() -> None:
    engine, model = engine_with([FINALIZE, {"content": "Hi Ada."}, FINALIZE, {"content": "No idea."}])
    await engine.ainvoke(ADA, thread_id="t1", user_id="alice")
    assert await engine.memory.forget_all("alice") == 2
    out = await engine.ainvoke("What do I work on?", thread_id="t2", user_id="alice")
    assert out.trace["memory"]["items"] == [] and "compilers" not in seen(model, 2) + seen(model, 3)


async def test_tool_results_and_answers_are_ingested_with_their_thread() -> None:
    engine, _ = engine_with(
        [goto("math"), call("calculate", expression="15 * 23"), FINALIZE, {"content": "15 * 23 = 345"}]
    )  # fmt: skip
    await engine.ainvoke("Calculate 15 * 23", thread_id="t9", user_id="carol")
    items = await engine.memory.list("carol")
    assert sorted(i.kind for i in items) == ["answer", "result"]
    assert all(i.source_thread == "t9" for i in items)
    assert any("345" in i.text for i in items if i.kind == "result")


async def test_a_turn_reads_its_memory_namespace_once() -> None:
    """The recall's read of the namespace serves the ingestion at the turn's end: one read per turn,
    however many memories the user has (each read costs in proportion to them)."""
    store = RecordingStore()
    script = [goto("math"), call("calculate", expression="15 * 23"), FINALIZE, {"content": "15 * 23 = 345"}]
    engine = Cadence(
        make_settings(memory_refresh_s=0), model=ScriptedChatModel.from_items(script * 2), memory_store=store
    )
    await engine.ainvoke("Calculate 15 * 23", thread_id="t1", user_id="carol")
    assert len(store.searches) == 1
    await engine.ainvoke("Calculate 15 * 23", thread_id="t2", user_id="carol")  # memories exist now
    assert len(store.searches) == 2
    items = await engine.memory.list("carol")  # refreshed in place, not written twice
    assert sorted(i.kind for i in items) == ["answer", "result"] and {i.source_thread for i in items} == {
        "t2"
    }


async def test_a_memory_learnt_again_soon_is_not_written_again() -> None:
    """The same result and answer learnt again within CADENCE_MEMORY_REFRESH_S: no write at all (its
    time and thread stay); after it, a refresh (new time and thread, same key); other words: written."""
    store = RecordingStore()
    memory = MemoryService(store, make_settings(memory_refresh_s=60))
    work = [("calculate", {"expression": "15 * 23"}, "345")]

    async def learn(thread: str, now: float, answer: str = "15 * 23 = 345") -> None:
        read = await memory._scan(memory.namespace("carol"))
        await memory.ingest_turn(
            "carol", "Calculate 15 * 23", answer, thread_id=thread, results=work, now=now, existing=read
        )

    await learn("t1", now=1000.0)
    assert len(store.puts) == 2
    await learn("t2", now=1030.0)  # within the window, word for word
    assert len(store.puts) == 2
    items = await memory.list("carol")
    assert {i.source_thread for i in items} == {"t1"} and {i.updated_at.timestamp() for i in items} == {
        1000.0
    }
    await learn("t3", now=1061.0)  # past the window: refreshed in place
    items = await memory.list("carol")
    assert len(store.puts) == 4 and len(items) == 2
    assert {i.source_thread for i in items} == {"t3"} and {i.updated_at.timestamp() for i in items} == {
        1061.0
    }
    await learn("t4", now=1062.0, answer="It is 345.")  # a new answer: written; the same result is not
    assert [p.value["kind"] for p in store.puts[4:]] == ["answer"]
    assert sorted(i.kind for i in await memory.list("carol")) == ["answer", "answer", "result"]


async def test_a_memory_refresh_window_of_zero_rewrites_every_time() -> None:
    store = RecordingStore()
    memory = MemoryService(store, make_settings(memory_refresh_s=0))
    for now in (1000.0, 1000.5):
        await memory.remember("dave", "I live in Lisbon.", now=now)
    assert len(store.puts) == 2 and [i.updated_at.timestamp() for i in await memory.list("dave")] == [1000.5]


async def test_a_fact_said_again_soon_is_not_written_again_but_a_changed_one_is() -> None:
    store = RecordingStore()
    memory = MemoryService(store, make_settings(memory_refresh_s=60))
    first = await memory.remember("erin", "I live in Lisbon.", topic="home", now=1000.0)
    again = await memory.remember("erin", "I live in Lisbon.", topic="home", now=1010.0)
    assert len(store.puts) == 1 and again.id == first.id and again.updated_at.timestamp() == 1000.0
    moved = await memory.remember("erin", "I live in Porto.", topic="home", now=1020.0)
    assert len(store.puts) == 2 and moved.id == first.id
    assert [i.text for i in await memory.list("erin")] == ["I live in Porto."]


async def test_a_memory_written_twice_by_concurrent_turns_is_merged() -> None:
    """Two turns of one user that both learn the same thing, each having read the namespace before
    the other wrote, keep it twice; consolidation merges the pair."""

    from cadence.memory import MemoryService

    memory = MemoryService(InMemoryStore(), make_settings())
    stale = (await memory.recall("carol", "Calculate 15 * 23")).read
    for thread in ("t1", "t2"):
        await memory.ingest_turn(
            "carol", "Calculate 15 * 23", "345", thread_id=thread,
            results=[("calculate", {"expression": "15 * 23"}, "345")], existing=stale,
        )  # fmt: skip
    assert len(await memory.list("carol")) == 4
    assert (await memory.consolidate("carol")).merged == 2
    assert sorted(i.kind for i in await memory.list("carol")) == ["answer", "result"]


async def test_projects_keep_memories_apart() -> None:
    engine, model = engine_with([FINALIZE, {"content": "ok"}, FINALIZE, {"content": "?"}])
    turn = dataclasses.replace(engine.turn_input(ADA, user_id="alice"), project_id="p1")
    async for _ in engine.astream(turn, tokens=False):
        pass
    assert [i.project_id for i in await engine.memory.list("alice")] == ["p1", "p1"]
    out = await engine.ainvoke("What do I work on?", user_id="alice")  # no project: other namespace
    assert out.trace["memory"]["items"] == []


async def test_memory_off() -> None:
    engine, model = engine_with([FINALIZE, {"content": "Hi"}, FINALIZE, {"content": "?"}], memory=False)
    assert engine.memory is None
    await engine.ainvoke(ADA, user_id="alice")
    out = await engine.ainvoke("What do I work on?", user_id="alice")
    assert "memory" not in out.trace and "compilers" not in seen(model, 2) + seen(model, 3)


async def test_with_memory_off_a_statement_is_still_answered_from_itself() -> None:
    """Told now, the facts answer this turn (the 135M model had answered "I live in Lisbon." with
    invented words); nothing is kept for the next turn."""
    engine, model = engine_with(
        [FINALIZE, {"content": "Nice to meet you!"}, FINALIZE, {"content": "?"}], memory=False
    )
    out = await engine.ainvoke(ADA, user_id="erin")
    assert "You work on compilers." in seen(model, 0)
    assert "compilers" in out.response and "Ada" in out.response
    await engine.ainvoke("What do I work on?", user_id="erin")
    assert "compilers" not in seen(model, 2)


async def test_think_blocks_never_reach_the_answer() -> None:
    engine, _ = engine_with([FINALIZE, {"content": "<think>The user greets me.</think>Hello there!"}])
    out = await engine.ainvoke("Hello", user_id="dave")
    assert out.response == "Hello there!"
    state = await engine.graph.aget_state({"configurable": {"thread_id": f"dave::{out.thread_id}"}})
    assert state.values["messages"][-1].response_metadata["thought"] == "The user greets me."


async def test_the_supervisor_mode_gets_memory_too() -> None:
    engine, model = engine_with(
        [FINALIZE, {"content": "Hello Ada."}, FINALIZE, {"content": "You work on compilers."}],
        mode="supervisor",
    )
    await engine.ainvoke(ADA, thread_id="t1", user_id="alice")
    out = await engine.ainvoke("What do I work on?", thread_id="t2", user_id="alice")
    assert out.trace["mode"] == "supervisor" and out.response == "You work on compilers."
    assert model.records[2].node == "supervisor" and "You work on compilers." in seen(model, 2)
    assert "You work on compilers." in seen(model, 3)


async def test_recall_with_an_embedding_index() -> None:
    """With a vector index a memory's score is the larger of its lexical relevance and its similarity."""
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from cadence.memory import MemoryService, open_memory_store

    settings = make_settings(memory_min_score=0.99)
    index = {"dims": 32, "embed": DeterministicFakeEmbedding(size=32), "fields": ["text"]}
    async with open_memory_store(settings, index=index) as store:
        memory = MemoryService(store, settings)
        assert memory.semantic
        await memory.remember("alice", "Tabs versus spaces: spaces.")
        await memory.remember("alice", "I work on compilers.")
        # the fake embedding gives identical texts identical vectors: similarity 1, words or not
        same = await memory.recall("alice", "Tabs versus spaces: spaces.")
        assert [i.text for i in same.items] == ["Tabs versus spaces: spaces."] and same.adequacy == 1.0
        lexical = await memory.recall("alice", "What do I work on?")
        assert [i.text for i in lexical.items] == ["I work on compilers."]


async def test_reading_memories_never_refreshes_a_ttl() -> None:
    """Recall, ingestion and listing read without a TTL refresh (on PostgreSQL a refreshing read is
    an UPDATE joined to the search: a write per read, for memories that carry no TTL)."""
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from cadence.memory import MemoryService

    index = {"dims": 32, "embed": DeterministicFakeEmbedding(size=32), "fields": ["text"]}
    store = RecordingStore(index=index)  # type: ignore[arg-type]
    memory = MemoryService(store, make_settings())
    await memory.remember("alice", "I work on compilers.")
    await memory.ingest_turn(
        "alice", "Calculate 2+2", "4", results=[("calculate", {"expression": "2+2"}, "4")]
    )
    await memory.recall("alice", "What do I work on?")
    await memory.list("alice")
    searches = store.searches
    assert len(searches) >= 4 and not any(op.refresh_ttl for op in searches)


def test_an_embedding_model_needs_langchain() -> None:
    import importlib.util

    from cadence.errors import ConfigurationError
    from cadence.memory.store import embedding_index

    if importlib.util.find_spec("langchain") is not None:
        pytest.skip("langchain is installed")
    with pytest.raises(ConfigurationError, match="pip install langchain"):
        embedding_index(make_settings(memory_embeddings="openai:text-embedding-3-small"))
    assert embedding_index(make_settings()) is None


# -- volatile tools ------------------------------------------------------------------------------------
def test_a_tool_declares_its_results_volatile() -> None:
    from langchain_core.tools import tool

    from cadence.builtins.info import INFO_TOOLS
    from cadence.sdk import VOLATILE_METADATA_KEY, is_volatile, volatile

    @volatile(reason="a price changes")
    @tool
    def price(item: str) -> str:
        """Today's price of an item."""
        return "3 EUR"

    @tool
    def double(x: int) -> int:
        """Twice x."""
        return 2 * x

    assert is_volatile(price) and price.metadata[VOLATILE_METADATA_KEY] is True
    assert not is_volatile(double) and is_volatile(volatile(double)) and double.name == "double"
    assert all(is_volatile(t) for t in INFO_TOOLS)  # the clock tools: current time, differences, conversion
    with pytest.raises(TypeError, match="LangChain tool"):
        volatile(lambda: None)  # type: ignore[type-var]


async def test_volatile_tool_results_and_their_answers_are_not_kept() -> None:
    """A clock time is true for a minute: neither the result nor the answer stating it is remembered."""
    engine, _ = engine_with(
        [goto("info"), call("current_time", location="Tokyo"), FINALIZE, {"content": "It is 15:51 in Tokyo."},
         goto("math"), call("calculate", expression="15 * 23"), FINALIZE, {"content": "15 * 23 = 345"}]
    )  # fmt: skip
    assert "current_time" in engine.volatile_tools() and "calculate" not in engine.volatile_tools()
    clock = await engine.ainvoke("What time is it in Tokyo?", thread_id="t1", user_id="carol")
    assert clock.trace["memory"]["ingested"] == 0 and await engine.memory.list("carol") == []
    await engine.ainvoke("Calculate 15 * 23", thread_id="t2", user_id="carol")
    assert sorted(i.kind for i in await engine.memory.list("carol")) == ["answer", "result"]


async def test_the_service_skips_volatile_results() -> None:
    from langgraph.store.memory import InMemoryStore

    from cadence.memory import MemoryService

    memory = MemoryService(InMemoryStore(), make_settings())
    results = [("current_time", {"location": "Paris"}, "07:51 in Paris"), ("calculate", {}, "42")]
    stored = await memory.ingest_turn(
        "u", "What time is it in Paris, and 6 * 7?", "07:51 and 42", results=results,
        volatile_tools={"current_time"},
    )  # fmt: skip
    assert [(i.kind, i.text) for i in stored] == [("result", "42")]  # no answer: it states the time


# -- results and answers of other threads are supporting evidence only ---------------------------------
async def test_an_unrelated_earlier_result_is_not_offered_as_memory() -> None:
    """'And add 6 to it' is about this thread's 144, not about an earlier thread's 6 * 7 = 42."""
    engine, model = engine_with(
        [goto("math"), call("calculate", expression="6 * 7"), FINALIZE, {"content": "6 * 7 = 42"},
         goto("math"), call("calculate", expression="12 * 12"), FINALIZE, {"content": "12 * 12 = 144"},
         goto("math"), call("calculate", expression="144 + 6"), FINALIZE, {"content": "The answer is 42"}]
    )  # fmt: skip
    await engine.ainvoke("Multiply 6 by 7", thread_id="t1", user_id="ann")
    await engine.ainvoke("What is 12 * 12?", thread_id="t2", user_id="ann")
    out = await engine.ainvoke("And add 6 to it", thread_id="t2", user_id="ann")
    assert out.trace["memory"]["items"] == [], out.trace["memory"]
    assert "recall_memory" not in str(model.records[-1].messages) and "42" not in seen(model, 11)
    assert "150" in out.response and any("rewritten" in n for n in out.trace["notes"])


async def test_a_relevant_earlier_answer_supports_but_never_answers() -> None:
    """A remembered answer to a like question may be listed, but it is not required material: the
    answer must carry this turn's result (16), and one that repeats the old 12 is rewritten."""
    engine, model = engine_with(
        [goto("math"), call("calculate", expression="sqrt(144)"), FINALIZE, {"content": "The square root of 144 is 12."},
         goto("math"), call("calculate", expression="2 ** 8"), FINALIZE, {"content": "2 ** 8 = 256"},
         goto("math"), call("calculate", expression="sqrt(256)"), FINALIZE, {"content": "The square root is 12."}]
    )  # fmt: skip
    await engine.ainvoke("What is the square root of 144?", thread_id="t1", user_id="ann")
    await engine.ainvoke("What is 2 to the power of 8?", thread_id="t2", user_id="ann")
    out = await engine.ainvoke("What is the square root of that?", thread_id="t2", user_id="ann")
    kinds = {i["kind"] for i in out.trace["memory"]["items"]}
    assert kinds and kinds <= {"answer", "result"}, out.trace["memory"]  # recalled: very relevant words
    synthesizer = model.records[-1].messages
    assert not any(getattr(m, "name", None) == "recall_memory" for m in synthesizer)
    assert "out of date" in str(synthesizer[0].content)  # listed as supporting evidence
    assert "16" in out.response and "12" not in out.response
    assert any("rewritten" in n for n in out.trace["notes"])


async def test_results_need_a_much_stronger_relevance_than_facts() -> None:
    from langgraph.store.memory import InMemoryStore

    from cadence.memory import MemoryKind, MemoryService

    memory = MemoryService(InMemoryStore(), make_settings())
    await memory.remember("u", "I work on compilers.", source_thread="t1")
    await memory.remember("u", "Compiler passes: 12 of them.", kind=MemoryKind.RESULT, source_thread="t1")
    await memory.remember("u", "Work hours: 40.", kind=MemoryKind.ANSWER, source_thread="t2")
    recall = await memory.recall("u", "What compilers do I work on?")
    assert [i.kind for i in recall.items] == ["fact"]  # the results hold only part of the question
    same = await memory.recall("u", "Compiler passes?")
    assert [i.kind for i in same.items] == ["result", "fact"]  # the result holds all of it
    mine = await memory.recall("u", "Compiler passes?", thread_id="t1")
    assert [i.kind for i in mine.items] == ["fact"]  # a result is never recalled into its own thread


class WriteFailingStore(InMemoryStore):
    """An in-memory store whose writes fail (a full disk, a lost database)."""

    async def abatch(self, ops: Any) -> Any:
        from langgraph.store.base import PutOp

        ops = list(ops)
        if any(isinstance(op, PutOp) for op in ops):
            raise OSError("disk full")
        return await super().abatch(ops)


async def test_a_failed_memory_write_is_in_the_turns_trace_errors() -> None:
    """docs/memory.md: ingestion failures are recorded in the trace's errors (``memory_error``); the
    trace was built before the ingestion ran, so they never showed."""
    script = [goto("math"), call("calculate", expression="15 * 23"), FINALIZE, {"content": "15 * 23 = 345"}]
    engine = Cadence(
        make_settings(), model=ScriptedChatModel.from_items(script), memory_store=WriteFailingStore()
    )
    result = await engine.ainvoke("Calculate 15 * 23", user_id="carol")
    assert result.response == "15 * 23 = 345" and result.error is None  # the answer stands
    errors = [e for e in result.trace["errors"] if e["code"] == "memory_error"]
    assert errors and "disk full" in errors[0]["message"]


@pytest.mark.parametrize(
    ("first", "second", "replaces"),
    [
        ("I live in Paris.", "I live in Rome.", True),  # a restatement
        ("My name is Ada.", "My name is Bea.", True),
        ("My favourite colour is blue.", "My favourite colour is green.", True),
        ("I live in Paris.", "I live in a small flat.", False),  # another thing about it: both stay
        ("My wife is a doctor.", "My wife was born in Rome.", False),
        ("My son is Tom.", "My son is sick.", False),
        ("I work on compilers.", "I work on weekends.", False),
    ],
)
def test_a_fact_replaces_only_a_fact_about_the_same(first: str, second: str, replaces: bool) -> None:
    """The topic was the opening words alone: 'I live in a small flat' erased 'I live in Paris'."""
    [a], [b] = stated_facts(first), stated_facts(second)
    assert (a.topic is not None and a.topic == b.topic) is replaces


class RacingStore(InMemoryStore):
    """A store where a turn restates a fact between consolidation's read and its delete."""

    def __init__(self) -> None:
        super().__init__()
        self.race: tuple[tuple[str, ...], str, dict[str, Any]] | None = None

    async def aget(self, namespace: tuple[str, ...], key: str, **kwargs: Any) -> Any:
        if self.race is not None and self.race[1] == key:
            ns, k, value = self.race
            self.race = None
            await self.aput(ns, k, value)  # the turn's write lands first
        return await super().aget(namespace, key, **kwargs)


async def test_consolidation_never_deletes_what_a_turn_wrote_meanwhile() -> None:
    store = RacingStore()
    memory = MemoryService(store, make_settings(memory_max_items=10, memory_summarize_after_days=0))
    await memory.remember("alice", "My name is Ada.", topic="my name", now=1000.0)
    for n in range(10):  # ten newer facts: at the cap of ten, 'Ada' is the one trimmed
        await memory.remember("alice", f"Fact number {n} about things.", now=2000.0 + n)
    [ada] = [i for i in await memory.list("alice", limit=100) if i.text == "My name is Ada."]
    ns = MemoryService.namespace("alice")
    newer = {**(await store.aget(ns, ada.id)).value, "text": "My name is Bea.", "updated_at": 3000.0}
    store.race = (ns, ada.id, newer)  # consolidation trims 'Ada'; the turn's 'Bea' arrives first
    await memory.consolidate("alice", now=4000.0)
    assert "My name is Bea." in [i.text for i in await memory.list("alice", limit=100)]


async def test_folding_old_summaries_keeps_the_cap_and_a_second_run_changes_nothing() -> None:
    store = InMemoryStore()
    memory = MemoryService(store, make_settings(memory_max_items=10, memory_summarize_after_days=30))
    ns = MemoryService.namespace("alice")
    day, now = 86_400, 100 * 86_400.0
    for n in range(2):
        await store.aput(ns, f"s{n}", {"text": f"Earlier (2026-01-0{n + 1} to 2026-01-0{n + 1}): old {n}",
                                       "statement": f"Earlier (x): old {n}", "kind": "summary",
                                       "updated_at": now - 60 * day + n, "created_at": now - 60 * day})  # fmt: skip
    for n in range(10):
        await memory.remember("alice", f"Fact number {n} about things.", topic=None, now=now - n)
    first = await memory.consolidate("alice", now=now)
    assert first.changed > 0 and len(await memory.list("alice", limit=100)) <= 10
    assert (await memory.consolidate("alice", now=now)).changed == 0
    summary = next(i for i in await memory.list("alice", limit=100) if i.kind == "summary")
    assert summary.text.count("Earlier") == 1  # not "Earlier (…): Earlier (…): …"


@pytest.mark.parametrize(
    ("said", "told"),
    [
        ("Call me Ada.", "You asked to be called Ada."),  # was "Call you Ada."
        ("I live in Rome, so I take the bus.", "You live in Rome, so you take the bus."),  # not "so You take"
        ("I am a teacher and my dog likes me", "You are a teacher and your dog likes you."),
    ],
)
def test_a_fact_is_told_back_in_the_second_person(said: str, told: str) -> None:
    assert addressed(said) == told


def test_a_shared_subject_stays_with_its_fact() -> None:
    """'My brother and I own a shop.' was split and stored as 'I own a shop.'."""
    assert [(f.text, f.statement) for f in stated_facts("My brother and I own a shop.")] == [
        ("My brother and I own a shop.", "Your brother and you own a shop.")
    ]
    assert [f.text for f in stated_facts("My name is Ada and I work on compilers.")] == [
        "My name is Ada.",
        "I work on compilers.",
    ]


def test_a_number_worked_out_of_several_is_not_read_from_memory() -> None:
    week = ["I work 8 hours a day, 5 days a week.", "I have two cats."]
    assert worked_out("How many hours do I work in a week?", week)
    assert worked_out("what's the total I work in hours", ["I work eight hours a day, five days a week."])
    assert not worked_out("How many cats do I have?", week)  # one number of the facts sharing its words
    assert not worked_out("Where do I work?", week)  # no number asked
    assert not worked_out(
        "How many hours is a marathon?", ["I have 3 kids.", "My age is 40."]
    )  # no term shared
    # a year of birth is worked out of a told age (the age had been echoed as the answer)
    assert worked_out("In what year was I born?", ["You're 34 years old."])
    assert not worked_out("In what year was I born?", ["You live in Oslo."])
    # a question giving a number of its own after what it tells (a remembered "You sleep 8 hours a night."
    # had answered it, asked again in another conversation)
    slept = ["You sleep 8 hours a night."]
    assert worked_out("I sleep 8 hours a night. How many hours do I sleep in a week?", slept)
    assert not worked_out("How many hours do I sleep?", slept)


# -- forgetting on request -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("Forget my age.", {"age", "old", "years", "born", "birthday", "birth"}),
        ("Please forget that I live in Berlin", {"live", "berlin"}),
        ("Can you forget my name?", {"name"}),
        ("Delete my favorite color from memory", {"favorite", "color"}),
        ("Forget everything about me", set()),
        ("Forget my age and my name", {"age", "old", "years", "born", "birthday", "birth", "name"}),
        ("forget what I told you", set()),
    ],
)
def test_a_request_to_forget_names_what(message: str, words: set[str]) -> None:
    from cadence.memory.ingest import forget_request

    assert forget_request(message) == frozenset(words)


@pytest.mark.parametrize(
    "message",
    [
        "Forget it",
        "Forget about it.",
        "Delete the file report.txt",
        "What is 2+2?",
        "Forget that, what is 2+2?",
    ],
)
def test_other_messages_ask_nothing_forgotten(message: str) -> None:
    from cadence.memory.ingest import forget_request

    assert forget_request(message) is None


def test_an_age_said_as_a_number_alone_is_kept_as_an_age() -> None:
    """ "My name is Bo and I'm 30." had kept "You're 30.", which "Forget my age." did not name."""
    from cadence.memory.ingest import forget_request, names_fact, stated_facts

    facts = stated_facts("My name is Bo and I'm 30.")
    assert [f.statement for f in facts] == ["Your name is Bo.", "You're 30 years old."]
    assert names_fact(forget_request("Forget my age.") or frozenset(), facts[1].statement)
    assert [f.statement for f in stated_facts("I'm 5 minutes late.")] == ["You're 5 minutes late."]


async def test_forget_deletes_what_it_names_and_says_so() -> None:
    """ "Forget my age." had been sent to the calendar (its error); the memory kept the age."""
    engine, _ = engine_with([FINALIZE, {"content": "ok"}] * 2 + [FINALIZE, {"content": "ok"}] * 2)
    await engine.ainvoke("My name is Alex. I'm 30 years old.", thread_id="t1", user_id="u")
    listed = [m.statement for m in await engine.memory.list("u")]
    assert "You're 30 years old." in listed and "Your name is Alex." in listed
    out = await engine.ainvoke("Forget my age.", thread_id="t2", user_id="u")
    assert out.response == "I've forgotten this: You're 30 years old."
    assert out.trace["memory"]["ingested"] == 0  # the reply restates it: not kept again
    assert [m.statement for m in await engine.memory.list("u")] == ["Your name is Alex."]
    nothing = await engine.ainvoke("Forget my favorite color", thread_id="t3", user_id="u")
    assert nothing.response == "There was nothing to forget: you haven't told me about that."
    everything = await engine.ainvoke("Forget everything about me", thread_id="t4", user_id="u")
    assert everything.response == "I've forgotten everything you told me (1 memory)."
    assert await engine.memory.list("u") == []


async def test_forgetting_says_back_only_what_the_user_told() -> None:
    """A remembered document passage quoting "Forget my age." had been said back in full ("I've forgotten
    this: 1 passage(s) for ..."): what mentions the words but was not told is forgotten and counted."""
    engine, _ = engine_with([FINALIZE, {"content": "ok"}] * 4)
    service = engine.memory
    await service.remember("u", "To forget, say 'Forget my age.' in the chat", kind="answer")
    out = await engine.ainvoke("Forget my age.", thread_id="t1", user_id="u")
    assert (
        out.response
        == "I've forgotten 1 earlier answer that mentioned it; you hadn't told me about it yourself."
    )
    await engine.ainvoke("I'm 30 years old.", thread_id="t2", user_id="u")
    await service.remember("u", "How old am I? — You're 30 years old.", kind="answer")
    both = await engine.ainvoke("Forget my age.", thread_id="t3", user_id="u")
    assert both.response.startswith("I've forgotten this: You're 30 years old.")
    assert both.response.endswith("I've also forgotten 1 earlier answer that mentioned it.")
    assert await service.list("u") == []
