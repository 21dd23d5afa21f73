"""Human in the loop over HTTP: pause, resume (owner-checked, 409 when not paused), a restart
between pause and resume (SQLite and PostgreSQL), history, fork, the OpenAI approve flow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from tests.conftest import FINALIZE, call, goto

from cadence.server import create_app
from cadence.testing import ScriptedChatModel
from pg_support import fresh_database, postgres_server_url  # noqa: F401  (fixture)
from test_server_support import live_server, parse_sse, settings

PAUSE = [goto("math"), call("calculate", expression="2 + 2")]
FINISH = [FINALIZE, {"content": "2 + 2 is 4."}]


def hitl_settings(**overrides: Any) -> Any:
    return settings(builtin_plugins=["math"], approval_tools=["calculate"], **overrides)


def app_with(script: list[dict[str, Any]], **overrides: Any) -> Any:
    model = ScriptedChatModel.from_items(script)
    return create_app(hitl_settings(**overrides), engine_kwargs={"model": model})


def test_pause_resume_owner_and_conflicts() -> None:
    with live_server(app_with([*PAUSE, *FINISH])) as url:
        first = httpx.post(f"{url}/api/v1/chat", json={"message": "What is 2 + 2?", "user_id": "u1"})
        assert first.status_code == 200
        body = first.json()
        thread = body["thread_id"]
        assert body["interrupted"] is True
        [approval] = body["approvals"]
        assert {k: approval[k] for k in ("thread", "agent", "tool", "arguments")} == {
            "thread": thread,
            "agent": "math",
            "tool": "calculate",
            "arguments": {"expression": "2 + 2"},
        }
        assert "approve" in body["response"]
        pending = httpx.get(f"{url}/api/v1/threads/{thread}/approvals", params={"user_id": "u1"}).json()
        assert pending["interrupted"] and pending["approvals"] == body["approvals"]

        # another user can neither see nor decide it
        other = httpx.post(
            f"{url}/api/v1/threads/{thread}/resume", json={"decisions": "approve", "user_id": "u2"}
        )
        assert other.status_code == 404
        assert (
            httpx.get(f"{url}/api/v1/threads/{thread}/history", params={"user_id": "u2"}).status_code == 404
        )
        # a new message waits for the decision
        busy = httpx.post(
            f"{url}/api/v1/chat", json={"message": "never mind", "user_id": "u1", "thread_id": thread}
        )
        assert busy.status_code == 409 and busy.json()["error"]["code"] == "approval_pending"
        # decisions that do not fit are refused before anything runs
        bad = httpx.post(
            f"{url}/api/v1/threads/{thread}/resume", json={"decisions": {"nope": "approve"}, "user_id": "u1"}
        )
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_decision"

        done = httpx.post(
            f"{url}/api/v1/threads/{thread}/resume",
            json={"decisions": {approval["id"]: "approve"}, "user_id": "u1"},
        )
        assert done.status_code == 200, done.text
        assert done.json()["response"] == "2 + 2 is 4." and done.json()["interrupted"] is False
        assert [t["result"] for t in done.json()["trace"]["tools_used"]] == ["4"]
        listed = httpx.get(f"{url}/api/v1/threads", params={"user_id": "u1"}).json()["threads"]
        assert [t["turns"] for t in listed if t["thread_id"] == thread] == [
            1
        ]  # a resume goes on with the turn

        again = httpx.post(
            f"{url}/api/v1/threads/{thread}/resume", json={"decisions": "approve", "user_id": "u1"}
        )
        assert again.status_code == 409 and again.json()["error"]["code"] == "not_paused"
        assert "not waiting for approval" in again.json()["error"]["message"]

        history = httpx.get(f"{url}/api/v1/threads/{thread}/history", params={"user_id": "u1"}).json()
        checkpoints = history["checkpoints"]
        assert checkpoints[0]["next"] == [] and checkpoints[0]["messages"][-1]["content"] == "2 + 2 is 4."
        paused_at = next(c for c in checkpoints if c["next"] == ["math_tools"])
        assert [a["tool"] for a in paused_at["approvals"]] == ["calculate"]  # what was asked there
        calls = [m for m in paused_at["messages"] if m.get("tool_calls")]
        assert calls[-1]["tool_calls"][0]["name"] == "calculate"
        results = [
            m for c in checkpoints for m in c["messages"] if m["role"] == "tool" and m["name"] == "calculate"
        ]
        assert [m["content"] for m in results] == ["4"]


def test_stream_reports_the_pause_and_resume_streams() -> None:
    with live_server(app_with([*PAUSE, *FINISH])) as url:
        raw = httpx.post(f"{url}/api/v1/chat/stream", json={"message": "2 + 2?", "user_id": "u1"})
        events = parse_sse(raw.text)
        assert [name for name, _ in events][-2:] == ["interrupt", "final"]
        final = events[-1][1]
        assert final["interrupted"] is True and final["approvals"][0]["tool"] == "calculate"
        thread = final["thread_id"]
        resumed = httpx.post(
            f"{url}/api/v1/threads/{thread}/resume",
            json={"decisions": "approve", "user_id": "u1", "stream": True},
        )
        names = [name for name, _ in parse_sse(resumed.text)]
        assert "tool_end" in names and names[-1] == "final"
        assert parse_sse(resumed.text)[-1][1]["response"] == "2 + 2 is 4."
        # the resumed call's tool_start is in this stream too, before its tool_end (it was only in the paused one)
        tools = [
            (name, data["id"], data.get("args")) for name, data in parse_sse(resumed.text) if "tool" in name
        ]
        call_id = final["approvals"][0]["id"]
        assert tools == [("tool_start", call_id, {"expression": "2 + 2"}), ("tool_end", call_id, None)]


def _restart_between_pause_and_resume(database_url: str) -> None:
    with live_server(app_with(PAUSE, database_url=database_url)) as url:
        paused = httpx.post(f"{url}/api/v1/chat", json={"message": "What is 2 + 2?", "user_id": "u1"}).json()
        assert paused["interrupted"] is True
        thread, call_id = paused["thread_id"], paused["approvals"][0]["id"]
    # a new process: the pending approval is in the checkpoint
    with live_server(app_with(FINISH, database_url=database_url)) as url:
        pending = httpx.get(f"{url}/api/v1/threads/{thread}/approvals", params={"user_id": "u1"}).json()
        assert [a["id"] for a in pending["approvals"]] == [call_id]
        done = httpx.post(
            f"{url}/api/v1/threads/{thread}/resume",
            json={"decisions": {call_id: "approve"}, "user_id": "u1"},
        )
        assert done.status_code == 200, done.text
        trace = done.json()["trace"]
        assert done.json()["response"] == "2 + 2 is 4."
        assert trace["routing_history"] == ["math"] and [t["result"] for t in trace["tools_used"]] == ["4"]
        # the trace names the model calls made before the restart too
        assert [c["node"] for c in trace["model_calls"]][:2] == ["coordinator", "math_agent"]
        messages = httpx.get(f"{url}/api/v1/threads/{thread}", params={"user_id": "u1"}).json()["messages"]
        assert [m["content"] for m in messages] == ["What is 2 + 2?", "2 + 2 is 4."]


def test_restart_between_pause_and_resume_sqlite(tmp_path: Path) -> None:
    _restart_between_pause_and_resume(f"sqlite:///{tmp_path / 'cadence.db'}")


def test_restart_between_pause_and_resume_postgres(postgres_server_url: str) -> None:  # noqa: F811
    _restart_between_pause_and_resume(fresh_database(postgres_server_url))


def fork_app(script: list[dict[str, Any]]) -> Any:
    """An app whose turns can be forked: math and info agents, a checkpoint after every step."""
    model = ScriptedChatModel.from_items(script)
    return create_app(
        settings(builtin_plugins=["math", "info"], checkpoint_durability="sync"),
        engine_kwargs={"model": model},
    )


def test_fork_forces_another_route_over_http() -> None:
    script = [
        goto("math"),
        call("calculate", expression="2 + 2"),
        FINALIZE,
        {"content": "2 + 2 is 4."},
        # the fork: info answers directly, then the coordinator finishes
        {"content": "Cadence is a framework."},
        FINALIZE,
        {"content": "Cadence is a framework (from info)."},
    ]
    app = fork_app(script)
    with live_server(app) as url:
        first = httpx.post(f"{url}/api/v1/chat", json={"message": "2 + 2?", "user_id": "u1"}).json()
        thread = first["thread_id"]
        checkpoints = httpx.get(f"{url}/api/v1/threads/{thread}/history", params={"user_id": "u1"}).json()[
            "checkpoints"
        ]
        decide = [c for c in checkpoints if c["next"] == ["coordinator"]][-1]  # the turn's first decision
        other = httpx.post(
            f"{url}/api/v1/threads/{thread}/fork",
            json={"checkpoint_id": decide["checkpoint_id"], "route": "info", "user_id": "u2"},
        )
        assert other.status_code == 404
        bad = httpx.post(
            f"{url}/api/v1/threads/{thread}/fork",
            json={"checkpoint_id": decide["checkpoint_id"], "route": "nobody", "user_id": "u1"},
        )
        assert bad.status_code == 422 and "Unknown route" in bad.json()["error"]["message"]
        missing = httpx.post(
            f"{url}/api/v1/threads/{thread}/fork", json={"checkpoint_id": "nope", "user_id": "u1"}
        )
        assert missing.status_code == 404
        forked = httpx.post(
            f"{url}/api/v1/threads/{thread}/fork",
            json={"checkpoint_id": decide["checkpoint_id"], "route": "info", "user_id": "u1"},
        )
        assert forked.status_code == 200, forked.text
        assert forked.json()["response"] == "Cadence is a framework (from info)."
        assert forked.json()["trace"]["routing_history"] == ["info"]
        # the thread now shows the branch
        messages = httpx.get(f"{url}/api/v1/threads/{thread}", params={"user_id": "u1"}).json()["messages"]
        assert [m["content"] for m in messages] == ["2 + 2?", "Cadence is a framework (from info)."]


def test_a_fork_from_an_earlier_turn_does_not_bring_back_the_later_question() -> None:
    """The thread record keeps the latest question; a fork from before it settles that question,
    so it is neither shown as interrupted nor put back into the branch by the next turn."""
    script = [
        FINALIZE,
        {"content": "First answer."},
        FINALIZE,
        {"content": "Second answer."},
        {"content": "Cadence is a framework."},  # the fork: info answers, the coordinator finishes
        FINALIZE,
        {"content": "From info."},
        FINALIZE,
        {"content": "Third answer."},
    ]
    app = fork_app(script)
    with live_server(app) as url:

        def shown() -> list[tuple[str, bool]]:
            body = httpx.get(f"{url}/api/v1/threads/{thread}", params={"user_id": "u1"}).json()
            return [(m["content"], m["interrupted"]) for m in body["messages"]]

        thread = httpx.post(f"{url}/api/v1/chat", json={"message": "First?", "user_id": "u1"}).json()[
            "thread_id"
        ]
        again = {"user_id": "u1", "thread_id": thread}
        httpx.post(f"{url}/api/v1/chat", json={"message": "Second?", **again})
        checkpoints = httpx.get(f"{url}/api/v1/threads/{thread}/history", params={"user_id": "u1"}).json()[
            "checkpoints"
        ]
        first_decision = [c for c in checkpoints if c["next"] == ["coordinator"]][-1]
        forked = httpx.post(
            f"{url}/api/v1/threads/{thread}/fork",
            json={"checkpoint_id": first_decision["checkpoint_id"], "route": "info", "user_id": "u1"},
        )
        assert forked.status_code == 200 and forked.json()["response"] == "From info."
        assert shown() == [("First?", False), ("From info.", False)]
        assert httpx.post(f"{url}/api/v1/chat", json={"message": "Third?", **again}).json()["response"] == (
            "Third answer."
        )
        assert shown() == [
            ("First?", False),
            ("From info.", False),
            ("Third?", False),
            ("Third answer.", False),
        ]


def test_openai_pause_then_approve_and_reject() -> None:
    script = [
        *PAUSE,
        *FINISH,
        goto("math"),
        call("calculate", expression="9 / 3"),
        FINALIZE,
        {"content": "Not run."},
    ]
    with live_server(app_with(script)) as url:
        ask = {"model": "cadence", "user": "u1", "messages": [{"role": "user", "content": "2 + 2?"}]}
        first = httpx.post(f"{url}/v1/chat/completions", json=ask)
        assert first.status_code == 200
        thread = first.json()["thread_id"]
        text = first.json()["choices"][0]["message"]["content"]
        assert "calculate" in text and "approve" in text
        headers = {"X-Cadence-Thread-Id": thread}

        def say(words: str, **extra: Any) -> httpx.Response:
            msg = {
                "model": "cadence",
                "user": "u1",
                "messages": [{"role": "user", "content": words}],
                **extra,
            }
            return httpx.post(f"{url}/v1/chat/completions", json=msg, headers=headers)

        unclear = say("hmm, what?")  # neither approve nor reject: asked again, nothing runs
        assert unclear.status_code == 200 and "approve" in unclear.json()["choices"][0]["message"]["content"]
        done = say("approve")
        assert done.json()["choices"][0]["message"]["content"] == "2 + 2 is 4."
        second = say("9 / 3?")
        assert "calculate" in second.json()["choices"][0]["message"]["content"]
        streamed = say("reject not now", stream=True)
        chunks = [line[6:] for line in streamed.text.splitlines() if line.startswith("data: ")]
        assert chunks[-1] == "[DONE]"
        deltas = [json.loads(c)["choices"][0]["delta"].get("content") or "" for c in chunks[:-1]]
        assert "".join(deltas) == "Not run."
        history = httpx.get(f"{url}/api/v1/threads/{thread}/history", params={"user_id": "u1"}).json()
        rejected = [
            m
            for c in history["checkpoints"]
            for m in c["messages"]
            if m["role"] == "tool" and m["name"] == "calculate" and m["status"] == "error"
        ]
        assert rejected and "not now" in rejected[0]["content"]


def test_websocket_reports_the_pause() -> None:
    from websockets.sync.client import connect

    with live_server(app_with([*PAUSE, *FINISH])) as url:
        with connect(url.replace("http://", "ws://") + "/api/v1/ws") as ws:
            ws.send(json.dumps({"message": "2 + 2?", "user_id": "u1"}))
            events = []
            while not events or events[-1]["type"] != "final":
                events.append(json.loads(ws.recv(timeout=30)))
        assert [e["type"] for e in events][-2:] == ["interrupt", "final"]
        assert events[-1]["interrupted"] is True and events[-1]["approvals"][0]["tool"] == "calculate"


JSON = {"content-type": "application/json"}
BAD_DECISIONS = [
    ({"decision": "reject", "message": "\ud800"}, "invalid_text"),
    ({"decision": "edit", "arguments": {"expression": "\ud800"}}, "invalid_text"),
    ({"decision": "edit", "arguments": {"expression": "2 + 2", "\ud800": 1}}, "invalid_text"),
    ({"decision": "edit", "arguments": {"expression": "2 + 2", "x": 10**26}}, "invalid_decision"),
    ({"decision": "edit", "arguments": {"expression": "2 + 2", "x": float("inf")}}, "invalid_decision"),
]
"""Decisions the checkpoint cannot store (json.dumps writes lone surrogates as ``\\ud800`` escapes)."""


def test_unstorable_decisions_are_422_before_anything_resumes() -> None:
    with live_server(app_with([*PAUSE, *FINISH])) as url:
        first = httpx.post(f"{url}/api/v1/chat", json={"message": "What is 2 + 2?"}).json()
        thread, approvals = first["thread_id"], first["approvals"]
        resume = f"{url}/api/v1/threads/{thread}/resume"
        for decision, code in BAD_DECISIONS:
            for decisions in (decision, {approvals[0]["id"]: decision}):
                resp = httpx.post(resume, content=json.dumps({"decisions": decisions}), headers=JSON)
                assert resp.status_code == 422, (decision, resp.text)
                error = resp.json()["error"]
                assert error["code"] == code and error["message"].startswith("decisions.")
        misspelt = {"decisions": {"decision": "edit", "arguments": {"expresion": "3 + 3"}}}
        resp = httpx.post(resume, json=misspelt)  # an edit that could only fail
        assert resp.status_code == 422 and "unknown argument 'expresion'" in resp.json()["error"]["message"]
        body = '{"decisions": {"decision": "edit", "arguments": {"expression": "2 + 2", "x": 1e400}}}'
        resp = httpx.post(resume, content=body, headers=JSON)
        assert resp.status_code == 422 and resp.json()["error"]["code"] == "invalid_decision"
        # nothing ran: the pause is kept, no fallback answer was recorded, and approving runs the call
        assert httpx.get(f"{url}/api/v1/threads/{thread}/approvals").json()["approvals"] == approvals
        assert httpx.get(f"{url}/api/v1/threads/{thread}").json()["messages"][-1]["role"] == "user"
        done = httpx.post(resume, json={"decisions": "approve"})
        assert done.status_code == 200 and done.json()["response"] == "2 + 2 is 4."


def test_openai_reply_to_a_pause_is_validated_like_any_message() -> None:
    with live_server(app_with([*PAUSE, *FINISH])) as url:
        ask = {"model": "cadence", "messages": [{"role": "user", "content": "What is 2 + 2?"}]}
        thread = httpx.post(f"{url}/v1/chat/completions", json=ask).json()["thread_id"]
        approvals = httpx.get(f"{url}/api/v1/threads/{thread}/approvals").json()["approvals"]
        headers = {**JSON, "X-Cadence-Thread-Id": thread}
        replies = [("reject \ud800", "invalid_text"), ("no " + "x" * 40_000, "message_too_long")]
        for text, code in replies:
            for stream in (False, True):
                body = {"model": "cadence", "stream": stream, "messages": [{"role": "user", "content": text}]}
                resp = httpx.post(f"{url}/v1/chat/completions", content=json.dumps(body), headers=headers)
                assert resp.status_code == 422, (text[:20], resp.text[:200])
                assert resp.json()["error"]["code"] == code
        assert httpx.get(f"{url}/api/v1/threads/{thread}/approvals").json()["approvals"] == approvals
        body = {"model": "cadence", "messages": [{"role": "user", "content": "approve"}]}
        done = httpx.post(f"{url}/v1/chat/completions", json=body, headers=headers)
        assert done.json()["choices"][0]["message"]["content"] == "2 + 2 is 4."


def test_a_fork_refuses_replacement_results_a_tool_could_not_return() -> None:
    """A replacement tool result with a lone surrogate, or longer than CADENCE_MAX_TOOL_RESULT_CHARS,
    was taken as is (and the branch answered from it); it is 422 like any such text."""
    script = [goto("math"), call("calculate", expression="2 + 2"), FINALIZE, {"content": "2 + 2 is 4."}]
    model = ScriptedChatModel.from_items(script)
    app = create_app(
        settings(builtin_plugins=["math"], checkpoint_durability="sync", max_tool_result_chars=1000),
        engine_kwargs={"model": model},
    )
    with live_server(app) as url:
        thread = httpx.post(f"{url}/api/v1/chat", json={"message": "2 + 2?"}).json()["thread_id"]
        checkpoints = httpx.get(f"{url}/api/v1/threads/{thread}/history").json()["checkpoints"]
        ran = [c for c in checkpoints if any(m["role"] == "tool" for m in c["messages"])][-1]
        call_id = next(m["tool_call_id"] for m in ran["messages"] if m["role"] == "tool")
        for text, code in (("\ud800", "invalid_text"), ("5" * 1001, "invalid_fork")):
            body = {"checkpoint_id": ran["checkpoint_id"], "tool_results": {call_id: text}}
            resp = httpx.post(f"{url}/api/v1/threads/{thread}/fork", content=json.dumps(body), headers=JSON)
            assert resp.status_code == 422 and resp.json()["error"]["code"] == code, resp.text[:200]
        messages = httpx.get(f"{url}/api/v1/threads/{thread}").json()["messages"]
        assert [m["content"] for m in messages] == ["2 + 2?", "2 + 2 is 4."]  # nothing ran
