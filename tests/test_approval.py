"""Human approval of tool calls: the pause, approve / reject / edit, several calls, both modes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from tests.conftest import FINALIZE, call, goto, transfer

from cadence.errors import ConflictError, ValidationError
from cadence.orchestration.approval import (
    REJECTION_KEY,
    ApprovalRule,
    CallDecision,
    Decision,
    approval_prompt,
    approval_rules,
    parse_decisions,
)
from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, requires_approval
from cadence.sdk.approval import APPROVAL_METADATA_KEY
from cadence.settings import Settings

WRITTEN: list[dict[str, Any]] = []


def _send(to: str, amount: int = 0) -> str:
    """Send money to someone."""
    WRITTEN.append({"to": to, "amount": amount})
    return f"sent {amount} to {to}"


def _lookup(name: str) -> str:
    """Look up a person."""
    return f"{name} is a friend"


def bank_tools() -> list[BaseTool]:
    send = requires_approval(
        StructuredTool.from_function(_send, name="send_money"),
        when=lambda args: "more than 100" if int(args.get("amount") or 0) > 100 else None,
    )
    return [send, StructuredTool.from_function(_lookup, name="lookup")]


class BankAgent(BaseAgent):
    def get_tools(self) -> list[BaseTool]:
        return bank_tools()

    def get_system_prompt(self) -> str:
        return "You move money."


class BankPlugin(BasePlugin):
    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        return PluginMetadata(name="bank", version="1.0.0", description="Moves money between people.")

    @classmethod
    def create_agent(cls) -> BaseAgent:
        return BankAgent(cls.get_metadata())


@pytest.fixture(autouse=True)
def _clear() -> None:
    WRITTEN.clear()


# -- declarations -------------------------------------------------------------------------------
def test_declarations_static_policy_plugin_and_setting() -> None:
    send, lookup = bank_tools()
    assert callable(send.metadata[APPROVAL_METADATA_KEY])
    rules = approval_rules([send, lookup], Settings())
    assert set(rules) == {"send_money"}
    assert rules["send_money"].check({"amount": 500}) == "more than 100"
    assert rules["send_money"].check({"amount": 5}) is None
    # the plugin asks for every tool; the setting forces named tools or all ('*'); back never asks
    assert set(approval_rules([send, lookup], Settings(), plugin_requires=True)) == {"send_money", "lookup"}
    forced = approval_rules([lookup], Settings(approval_tools="lookup"))
    assert forced["lookup"].check({}) and "CADENCE_APPROVAL_TOOLS" in forced["lookup"].check({})
    assert set(approval_rules([send, lookup], Settings(approval_tools="*"))) == {"send_money", "lookup"}
    with pytest.raises(TypeError):
        requires_approval(_send)  # type: ignore[type-var]


def test_a_failing_policy_asks_a_human() -> None:
    rule = ApprovalRule(policy=lambda args: 1 / 0)
    assert "policy failed" in (rule.check({}) or "")


def test_a_truthy_policy_verdict_asks_a_human() -> None:
    """Any truthy verdict asks (a count, numpy's bool from ``amount > 100`` on numpy numbers): only
    ``True`` did, and the call ran without asking."""
    import numpy

    for verdict in (1, ["bob"], numpy.float64(500) > 100, "  "):
        rule = ApprovalRule(policy=lambda args, v=verdict: v, reason="big")
        assert rule.check({}) == "big", verdict
    for verdict in (0, [], None, False, "", numpy.float64(5) > 100):
        assert ApprovalRule(policy=lambda args, v=verdict: v).check({}) is None, verdict


def test_decisions_are_checked() -> None:
    pending = [{"id": "a"}, {"id": "b"}]
    assert {k: v.decision for k, v in parse_decisions("approve", pending).items()} == {
        "a": Decision.APPROVE,
        "b": Decision.APPROVE,
    }
    both = parse_decisions({"a": "approve", "b": {"decision": "reject", "message": "no"}}, pending)
    assert both["b"] == CallDecision(Decision.REJECT, "no")
    for bad, word in (
        ({"a": "approve"}, "missing: b"),
        ({"a": "approve", "b": "approve", "c": "approve"}, "No pending call 'c'"),
        ({"a": "maybe", "b": "approve"}, "use approve, reject or edit"),
        ({"a": {"decision": "edit"}, "b": "approve"}, "needs 'arguments'"),
        ({"decision": "edit", "arguments": {}}, "decide each pending call"),
    ):
        with pytest.raises(ValidationError, match=word):
            parse_decisions(bad, pending)


def test_a_decision_with_fields_it_does_not_have_is_refused_not_guessed() -> None:
    """Per-call decisions mixed into a decision for all were dropped (the reject of 'b' ignored, 'b'
    approved), and 'arguments' on an approve ran the call with its own arguments."""
    pending = [{"id": "a"}, {"id": "b"}]
    for bad, word in (
        ({"decision": "approve", "b": "reject"}, "unknown field 'b'"),
        ({"a": {"decision": "reject", "mesage": "no"}, "b": "approve"}, "unknown field 'mesage'"),
        ({"a": {"decision": "approve", "arguments": {"x": 1}}, "b": "approve"}, "go with 'edit'"),
    ):
        with pytest.raises(ValidationError, match=word) as caught:
            parse_decisions(bad, pending)
        assert caught.value.code == "invalid_decision"


# -- the engine ---------------------------------------------------------------------------------
async def test_approve_runs_the_call_and_continues_the_same_turn(engine_factory) -> None:
    engine, model = engine_factory(
        [
            goto("math"),
            call("calculate", expression="2 + 2"),
            FINALIZE,
            {"content": "2 + 2 is 4."},
        ],
        approval_tools=["calculate"],
    )
    paused = await engine.ainvoke("What is 2 + 2?", thread_id="t1")
    assert paused.interrupted and paused.error is None
    [pending] = paused.approvals
    assert pending["tool"] == "calculate" and pending["agent"] == "math" and pending["thread"] == "t1"
    assert pending["arguments"] == {"expression": "2 + 2"} and "CADENCE_APPROVAL_TOOLS" in pending["reason"]
    assert "calculate" in paused.response and "approve" in paused.response
    assert paused.trace["interrupted"] and paused.trace["tools_used"] == []
    assert await engine.pending(thread_id="t1") == paused.approvals
    # a new message must wait for the decision
    with pytest.raises(ConflictError) as info:
        await engine.ainvoke("something else", thread_id="t1")
    assert info.value.code == "approval_pending"

    result = await engine.aresume({pending["id"]: "approve"}, thread_id="t1")
    assert not result.interrupted and result.response == "2 + 2 is 4."
    # the trace covers the whole turn: the route before the pause, the tool after it, both decisions
    assert result.trace["routing_history"] == ["math"]
    assert [t["result"] for t in result.trace["tools_used"]] == ["4"]
    assert [(a["tool"], a["decision"]) for a in result.trace["approvals"]] == [("calculate", "approve")]
    assert [c["node"] for c in result.trace["model_calls"]] == [
        "coordinator",
        "math_agent",
        "coordinator",
        "synthesizer",
    ]
    assert result.trace["tool_hops"] == 1
    assert await engine.pending(thread_id="t1") == []
    with pytest.raises(ConflictError) as info:
        await engine.aresume("approve", thread_id="t1")
    assert info.value.code == "not_paused"


async def test_reject_gives_the_agent_the_message_as_the_result(engine_factory) -> None:
    engine, model = engine_factory(
        [
            goto("bank"),
            call("send_money", to="bob", amount=500),
            FINALIZE,
            {"content": "I did not send the money."},
        ],
        plugins=[BankPlugin],
    )
    paused = await engine.ainvoke("Send bob 500", thread_id="t2")
    assert [a["reason"] for a in paused.approvals] == ["more than 100"]
    result = await engine.aresume(
        {"decision": "reject", "message": "too much, ask me tomorrow"}, thread_id="t2"
    )
    assert WRITTEN == []  # the tool never ran
    assert result.response == "I did not send the money."
    coordinator = [r for r in model.records if r.node == "coordinator"][-1]
    rejected = [m for m in coordinator.messages if isinstance(m, ToolMessage) and m.name == "send_money"]
    assert len(rejected) == 1 and "too much, ask me tomorrow" in str(rejected[0].content)
    assert rejected[0].status == "error" and rejected[0].response_metadata.get(REJECTION_KEY)
    [decision] = result.trace["approvals"]
    assert decision["decision"] == "reject" and decision["message"] == "too much, ask me tomorrow"


async def test_an_answer_that_says_nothing_after_a_rejection_says_what_the_reviewer_decided(
    engine_factory,
) -> None:
    engine, _ = engine_factory(
        [goto("bank"), call("send_money", to="bob", amount=500), FINALIZE, {"content": "The answer is:"}],
        plugins=[BankPlugin],
    )
    await engine.ainvoke("Send bob 500", thread_id="t3")
    result = await engine.aresume({"decision": "reject", "message": "not today"}, thread_id="t3")
    assert WRITTEN == []
    assert result.response == (
        "I couldn't find the answer: the send_money call was not run: a reviewer rejected it (not today)."
    )
    assert any("(unfinished)" in note for note in result.trace["notes"])


async def test_small_amounts_need_no_approval(engine_factory) -> None:
    engine, _ = engine_factory(
        [goto("bank"), call("send_money", to="bob", amount=5), FINALIZE, {"content": "Sent."}],
        plugins=[BankPlugin],
    )
    result = await engine.ainvoke("Send bob 5")
    assert not result.interrupted and WRITTEN == [{"to": "bob", "amount": 5}]


async def test_edit_runs_the_call_with_the_new_arguments(engine_factory) -> None:
    engine, model = engine_factory(
        [
            goto("bank"),
            call("send_money", to="bob", amount=500),
            FINALIZE,
            {"content": "Sent 50 to bob."},
        ],
        plugins=[BankPlugin],
    )
    paused = await engine.ainvoke("Send bob 500", thread_id="t3")
    cid = paused.approvals[0]["id"]
    result = await engine.aresume(
        {cid: {"decision": "edit", "arguments": {"to": "bob", "amount": 50}}}, thread_id="t3"
    )
    assert WRITTEN == [{"to": "bob", "amount": 50}]
    assert result.trace["tools_used"][0]["args"] == {"to": "bob", "amount": 50}
    assert result.trace["approvals"][0]["edited_arguments"] == {"to": "bob", "amount": 50}
    # the thread shows the arguments that ran, answered by their result
    state = await engine.graph.aget_state({"configurable": {"thread_id": "local::t3"}})
    agent_msg = next(
        m for m in state.values["messages"] if isinstance(m, AIMessage) and m.name == "bank_agent"
    )
    assert agent_msg.tool_calls[0]["args"] == {"to": "bob", "amount": 50}


async def test_two_pending_calls_in_one_step_are_decided_together(engine_factory) -> None:
    two_calls = {
        "tool_calls": [
            {"name": "send_money", "args": {"to": "ann", "amount": 300}},
            {"name": "lookup", "args": {"name": "ann"}},
            {"name": "send_money", "args": {"to": "bob", "amount": 400}},
        ]
    }
    engine, model = engine_factory(
        [goto("bank"), two_calls, FINALIZE, {"content": "Sent to ann only."}],
        plugins=[BankPlugin],
    )
    paused = await engine.ainvoke("Pay ann 300 and bob 400", thread_id="t4")
    assert [a["arguments"]["to"] for a in paused.approvals] == ["ann", "bob"]
    ann, bob = (a["id"] for a in paused.approvals)
    with pytest.raises(ValidationError, match="missing"):
        await engine.aresume({ann: "approve"}, thread_id="t4")
    result = await engine.aresume(
        {ann: "approve", bob: {"decision": "reject", "message": "not bob"}}, thread_id="t4"
    )
    assert WRITTEN == [{"to": "ann", "amount": 300}]
    # every call answered, in the agent's order (the lookup needed no approval and ran)
    coordinator = [r for r in model.records if r.node == "coordinator"][-1]
    results = [m for m in coordinator.messages if isinstance(m, ToolMessage) and m.name != "goto_bank_agent"]
    assert [m.name for m in results][-3:] == ["send_money", "lookup", "send_money"]
    assert result.trace["tool_hops"] == 2  # the rejected call never ran


async def test_approval_in_supervisor_mode(engine_factory) -> None:
    # the agent runs as a subgraph: its pause surfaces in the parent turn and resumes there
    engine, model = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="6 * 7"),
            {"content": "6 * 7 = 42"},
            FINALIZE,
            {"content": "It is 42."},
        ],
        mode="supervisor",
        approval_tools=["*"],
    )
    paused = await engine.ainvoke("6 * 7?", thread_id="t5")
    assert paused.interrupted and paused.approvals[0]["tool"] == "calculate"
    assert paused.approvals[0]["agent"] == "math" and paused.approvals[0]["thread"] == "t5"
    assert await engine.pending(thread_id="t5") == paused.approvals
    result = await engine.aresume("approve", thread_id="t5")
    assert not result.interrupted and "42" in result.response and result.trace["mode"] == "supervisor"
    assert [t["result"] for t in result.trace["tools_used"]] == ["42"]
    assert [a["decision"] for a in result.trace["approvals"]] == ["approve"]


async def test_the_stream_reports_the_pause(engine_factory) -> None:
    engine, _ = engine_factory(
        [goto("math"), call("calculate", expression="1 + 1"), FINALIZE, {"content": "2"}],
        approval_tools=["calculate"],
    )
    events = [e async for e in engine.astream("1 + 1?", thread_id="t6")]
    kinds = [e["type"] for e in events]
    assert kinds[-2:] == ["interrupt", "final"]
    assert events[-1]["interrupted"] is True and events[-1]["approvals"] == events[-2]["approvals"]
    resumed = [e async for e in engine.resume_stream("approve", thread_id="t6")]
    assert resumed[0] == {"type": "node", "node": "math_tools"}
    assert any(e["type"] == "tool_end" and e["result"] == "2" for e in resumed)
    assert resumed[-1]["type"] == "final" and resumed[-1]["response"] == "2"


async def test_waiting_does_not_count_against_the_deadline(engine_factory) -> None:
    engine, _ = engine_factory(
        [goto("math"), call("calculate", expression="3 + 3"), FINALIZE, {"content": "6"}],
        approval_tools=["calculate"],
        turn_timeout=2.0,
    )
    paused = await engine.ainvoke("3 + 3?", thread_id="t7")
    assert paused.interrupted
    # the human takes longer than the whole turn may run: the resumed turn still has its time
    await asyncio.sleep(2.5)
    result = await engine.aresume("approve", thread_id="t7")
    assert not result.trace["suspended"] and result.response == "6"
    assert result.trace["duration_ms"] < 2000  # running time only, the wait excluded


def test_prompt_lists_every_call() -> None:
    text = approval_prompt(
        [
            {
                "id": "c1",
                "agent": "docs",
                "tool": "write_note",
                "arguments": {"title": "x"},
                "reason": "writes",
            },
        ]
    )
    assert "docs.write_note(title='x')" in text and "[id c1]" in text


async def test_a_turn_in_another_mode_pauses_and_resumes_in_its_mode(engine_factory) -> None:
    engine, _ = engine_factory(
        [
            transfer("math"),
            call("calculate", expression="6 * 7"),
            {"content": "6 * 7 = 42"},
            FINALIZE,
            {"content": "42"},
        ],
        approval_tools=["calculate"],
    )
    assert engine.mode == "coordinator"
    paused = await engine.ainvoke("6 * 7?", thread_id="m1", mode="supervisor")
    assert [a["tool"] for a in await engine.pending(thread_id="m1")] == ["calculate"]
    result = await engine.aresume({paused.approvals[0]["id"]: "approve"}, thread_id="m1")
    assert result.trace["mode"] == "supervisor" and [t["result"] for t in result.trace["tools_used"]] == [
        "42"
    ]


async def test_approval_in_single_mode(engine_factory) -> None:
    # the single mode's tools step is the plugins' own: the same approval step pauses it
    engine, model = engine_factory(
        [call("calculate", expression="6 * 7"), {"content": "6 * 7 = 42"}], approval_tools=["calculate"]
    )
    paused = await engine.ainvoke("6 * 7?", thread_id="s1", agent="math")
    assert paused.interrupted and [a["tool"] for a in paused.approvals] == ["calculate"]
    result = await engine.aresume("approve", thread_id="s1")
    assert result.response == "6 * 7 = 42" and result.trace["mode"] == "single"
    assert [r.node for r in model.records] == ["math_agent", "math_agent"]


async def test_two_resumes_at_once_run_the_approved_call_once(engine_factory) -> None:
    engine, _ = engine_factory(
        [
            goto("bank"),
            call("send_money", to="bob", amount=500),
            FINALIZE,
            {"content": "Sent.", "delay_s": 0.2},
        ],
        plugins=[BankPlugin],
    )
    paused = await engine.ainvoke("Send bob 500.", thread_id="t1")
    assert paused.interrupted
    results = await asyncio.gather(
        engine.aresume("approve", thread_id="t1"),
        engine.aresume("approve", thread_id="t1"),
        return_exceptions=True,
    )
    busy = [r for r in results if isinstance(r, ConflictError)]
    assert len(busy) == 1 and busy[0].code == "thread_busy"
    assert WRITTEN == [{"to": "bob", "amount": 500}]  # the money went once
    with pytest.raises(ConflictError) as later:  # and once finished, the pause is gone
        await engine.aresume("approve", thread_id="t1")
    assert later.value.code == "not_paused"


LIMIT = {"max": 100}


class CappedBankPlugin(BasePlugin):
    """A bank whose approval limit is read when a call is checked (an operator may change it)."""

    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        return PluginMetadata(name="bank", version="1.0.0", description="Moves money between people.")

    @classmethod
    def create_agent(cls) -> BaseAgent:
        send = requires_approval(
            StructuredTool.from_function(_send, name="send_money"),
            when=lambda args: "over the limit" if int(args.get("amount") or 0) > LIMIT["max"] else None,
        )

        class Agent(BankAgent):
            def get_tools(self) -> list[BaseTool]:
                return [send]

        return Agent(cls.get_metadata())


@pytest.mark.parametrize(
    ("decision", "sent"),
    [
        ({"decision": "reject", "message": "no"}, []),
        ({"decision": "edit", "arguments": {"to": "bob", "amount": 50}}, [{"to": "bob", "amount": 50}]),
    ],
)
async def test_the_decision_applies_even_if_the_rule_changed_since_the_pause(
    engine_factory, decision: dict[str, Any], sent: list[dict[str, Any]]
) -> None:
    """The human decided the calls the pause showed: a rule that no longer asks (a raised limit, a
    restart with another CADENCE_APPROVAL_TOOLS) must not let a rejected or edited call run as made."""
    engine, _ = engine_factory(
        [goto("bank"), call("send_money", to="bob", amount=500), FINALIZE, {"content": "Done."}],
        plugins=[CappedBankPlugin],
    )
    LIMIT["max"] = 100
    try:
        paused = await engine.ainvoke("Send bob 500", thread_id="t1")
        [pending] = paused.approvals
        LIMIT["max"] = 1000  # 500 needs no approval any more
        result = await engine.aresume({pending["id"]: decision}, thread_id="t1")
    finally:
        LIMIT["max"] = 100
    assert sent == WRITTEN
    assert [d["decision"] for d in result.trace["approvals"]] == [decision["decision"]]


async def test_a_call_reusing_a_decided_id_later_in_the_turn_is_not_taken_for_it(engine_factory) -> None:
    """Some model servers number calls per message (the same id again later): a later call is checked
    by the rules, not taken for the decided one (which would pause again with the old arguments)."""
    again = {"tool_calls": [{"name": "send_money", "args": {"to": "bob", "amount": 50}, "id": "call_0"}]}
    engine, _ = engine_factory(
        [goto("bank"),
         {"tool_calls": [{"name": "send_money", "args": {"to": "bob", "amount": 500}, "id": "call_0"}]},
         goto("bank"), again, FINALIZE, {"content": "Sent 50 instead."}],
        plugins=[BankPlugin],
    )  # fmt: skip
    paused = await engine.ainvoke("Send bob 500", thread_id="t1")
    assert [a["id"] for a in paused.approvals] == ["call_0"]
    result = await engine.aresume({"decision": "reject", "message": "at most 50"}, thread_id="t1")
    assert not result.interrupted and result.response == "Sent 50 instead."
    assert WRITTEN == [{"to": "bob", "amount": 50}]


async def test_an_unstorable_edit_is_refused_before_anything_resumes(engine_factory) -> None:
    """Edit arguments the checkpoint cannot store (an integer beyond 64 bits) failed the whole resumed
    turn after the step ran; they are refused first and the pause is kept."""
    engine, _ = engine_factory(
        [goto("bank"), call("send_money", to="bob", amount=500), FINALIZE, {"content": "Sent."}],
        plugins=[BankPlugin],
    )
    paused = await engine.ainvoke("Send bob 500", thread_id="t1")
    [pending] = paused.approvals
    edit = {"decision": "edit", "arguments": {"to": "bob", "amount": 10**30}}
    with pytest.raises(ValidationError) as caught:
        await engine.aresume({pending["id"]: edit}, thread_id="t1")
    assert caught.value.code == "invalid_decision" and "cannot be stored" in caught.value.message
    assert WRITTEN == [] and await engine.pending(thread_id="t1") == paused.approvals
    done = await engine.aresume("approve", thread_id="t1")
    assert done.response == "Sent." and WRITTEN == [{"to": "bob", "amount": 500}]


def test_a_misspelt_approval_tool_is_a_warning(engine_factory, caplog: pytest.LogCaptureFixture) -> None:
    """CADENCE_APPROVAL_TOOLS=calculat protected nothing, silently: calculate ran without asking."""
    with caplog.at_level("WARNING", logger="cadence.orchestration.approval"):
        engine_factory([], approval_tools=["calculat", "calculate", "*"])
    [record] = [r for r in caplog.records if "CADENCE_APPROVAL_TOOLS" in r.getMessage()]
    assert record.unknown == ["calculat"]  # type: ignore[attr-defined]


async def test_an_edit_that_does_not_fit_the_tool_is_refused_before_anything_resumes(engine_factory) -> None:
    """An edit with a misspelt argument ran the call only to fail ('amount: Field required'): the human's
    correction was lost to a tool error. It is refused, named, and the pause kept."""
    engine, _ = engine_factory(
        [goto("bank"), call("send_money", to="bob", amount=500), FINALIZE, {"content": "Sent 50."}],
        plugins=[BankPlugin],
    )
    paused = await engine.ainvoke("Send bob 500", thread_id="t1")
    [pending] = paused.approvals
    edit = {"decision": "edit", "arguments": {"to": "bob", "amout": 50}}
    with pytest.raises(ValidationError) as caught:
        await engine.aresume({pending["id"]: edit}, thread_id="t1")
    assert (
        caught.value.code == "invalid_decision"
        and "unknown argument 'amout' (it takes to, amount)" in caught.value.message
    )
    assert await engine.pending(thread_id="t1") == paused.approvals
    fixed = {"decision": "edit", "arguments": {"to": "bob", "amount": 50}}
    done = await engine.aresume({pending["id"]: fixed}, thread_id="t1")
    assert done.response == "Sent 50." and WRITTEN == [{"to": "bob", "amount": 50}]


@pytest.mark.parametrize("mode", ["coordinator", "supervisor"])
async def test_a_resumed_stream_starts_the_calls_it_ends(engine_factory, mode: str) -> None:
    """The resume stream sent tool_end events whose tool_start went in the paused stream (and, after an
    edit, a tool_end named after the agent for its rewritten message)."""
    two = {
        "tool_calls": [
            {"name": "calculate", "args": {"expression": "2 + 2"}},
            {"name": "percent_of", "args": {"percent": 10, "value": 50}},
        ]
    }
    script = (
        [goto("math"), two, FINALIZE, {"content": "done"}]
        if mode == "coordinator"
        else [transfer("math"), two, {"content": "math done"}, {"content": "done"}]
    )
    engine, _ = engine_factory(script, builtin_plugins=["math"], approval_tools=["calculate"], mode=mode)
    paused = [e async for e in engine.astream("q", thread_id="t")]
    [pending] = paused[-1]["approvals"]
    edit = {pending["id"]: {"decision": "edit", "arguments": {"expression": "3 + 3"}}}
    events = [e async for e in engine.resume_stream(edit, thread_id="t")]
    tools = [(e["type"], e["name"], e.get("args"), e.get("result")) for e in events if "tool" in e["type"]]
    assert tools == [
        ("tool_start", "calculate", {"expression": "3 + 3"}, None),  # the arguments that run
        ("tool_start", "percent_of", {"percent": 10, "value": 50}, None),
        ("tool_end", "calculate", None, "6"),
        ("tool_end", "percent_of", None, "10% of 50 is 5"),
    ]
    assert all(e["agent"] == "math" for e in events if "tool" in e["type"])
