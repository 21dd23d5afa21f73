"""Round-2 probes of the HTTP server: what real clients (the official ``openai`` client, curl shapes
from docs/api.md) send and expect."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from cadence.server import create_app
from cadence.testing import ScriptedChatModel
from test_server_support import ANSWER, live_server, parse_sse, scripted, serve, settings


def test_a_failed_turn_is_not_retried_by_the_openai_client() -> None:
    """The client retries 5xx twice by default: a failed turn ran three times (the question three times in
    the thread). The failure says ``x-should-retry: false``; /api/v1/chat's failures too."""
    model = ScriptedChatModel.from_items([{"raise": {"type": "error", "message": "boom"}}], loop=True)
    with serve(model) as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=2, timeout=30)
        with pytest.raises(openai.InternalServerError) as info:
            client.chat.completions.create(
                model="cadence", messages=[{"role": "user", "content": "hi"}], extra_body={"thread_id": "t1"}
            )
        assert info.value.response.headers["x-should-retry"] == "false"
        detail = httpx.get(f"{url}/api/v1/threads/t1").json()
        assert detail["turns"] == 1
        assert [m["content"] for m in detail["messages"] if m["role"] == "user"] == ["hi"]

        failed = httpx.post(f"{url}/api/v1/chat", json={"message": "hi"}, timeout=30)
        assert failed.status_code == 502 and failed.headers["x-should-retry"] == "false"


def test_a_turn_stopped_by_the_server_stopping_may_be_retried() -> None:
    """503 (the server stopping, the database unavailable): the question is kept and sending it again, to
    this server once back or to another, is the remedy, so the client's retry stays allowed."""
    from cadence.server.errors import turn_error_headers, turn_error_status

    assert turn_error_headers(turn_error_status("shutting_down")) == {}
    for code in ("model_error", "turn_timeout", "internal_error"):
        assert turn_error_headers(turn_error_status(code)) == {"x-should-retry": "false"}


def test_the_openai_client_retrieves_a_model() -> None:
    """``client.models.retrieve`` (GET /v1/models/{model}, which frameworks call to check a model) was a 404
    for every model, ``cadence`` included."""
    with serve() as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=30)
        for name in ("cadence", "cadence:formal", "cadence:supervisor", "cadence:supervisor:concise"):
            card = client.models.retrieve(name)
            assert (card.id, card.object, card.owned_by) == (name, "model", "cadence")
        for name in ("gpt-4o", "cadence:chatty"):
            with pytest.raises(openai.NotFoundError) as info:
                client.models.retrieve(name)
            assert info.value.body["code"] == "model_not_found"
            assert info.value.body["type"] == "not_found_error"


def test_the_thread_list_url_of_the_docs_lists_every_thread() -> None:
    """docs/api.md's ``GET /api/v1/threads?user_id=&limit=50&offset=0&org_id=&project_id=`` listed nothing:
    the empty filters matched only threads whose org and project were ''. Empty is no filter (as an empty
    user_id is the default user), and a chat's empty project_id is none: the thread's project stays."""
    with serve() as url, httpx.Client(base_url=url, timeout=30) as client:
        plain = client.post("/api/v1/chat", json={"message": "one"}).json()["thread_id"]
        body = {"message": "two", "org_id": "acme", "project_id": "p1"}
        project = client.post("/api/v1/chat", json=body).json()["thread_id"]
        listed = client.get("/api/v1/threads?user_id=&limit=50&offset=0&org_id=&project_id=")
        assert listed.status_code == 200, listed.text
        assert {t["thread_id"] for t in listed.json()["threads"]} == {plain, project}
        only = client.get("/api/v1/threads?project_id=p1&org_id=").json()["threads"]
        assert [t["thread_id"] for t in only] == [project]

        again = {"message": "My name is Ada.", "thread_id": project, "org_id": "", "project_id": ""}
        assert client.post("/api/v1/chat", json=again).status_code == 200
        kept = client.get("/api/v1/memories", params={"project_id": "p1"}).json()["memories"]
        assert any("Ada" in m["text"] for m in kept), kept  # the turn was the thread's project's
        empty = client.post("/api/v1/chat", json={"message": "four", "org_id": "", "project_id": ""})
        fresh = client.get(f"/api/v1/threads/{empty.json()['thread_id']}").json()
        assert (fresh["org_id"], fresh["project_id"]) == (None, None)


def _emitting_app_model() -> tuple[Any, ScriptedChatModel]:
    from cadence.sdk import emit, tool
    from conftest import FINALIZE, call, goto, tool_plugin

    @tool
    def crawl(pages: int) -> str:
        """Pretend to crawl pages."""
        emit({"done": pages})  # no type
        emit({"type": "progress\n\ndata: {}", "done": pages})  # a type that is not an SSE event name
        return f"crawled {pages}"

    script = [goto("crawler"), call("crawl", pages=2), FINALIZE, {"content": "Crawled two pages."}]
    model = ScriptedChatModel.from_items(script, loop=True)
    return tool_plugin("crawler", [crawl]), model


def test_plugin_events_without_a_type_do_not_break_a_response() -> None:
    """A plugin's ``emit({"done": 2})`` (no ``type``) made the OpenAI endpoint's JSON answer a 500 after the
    turn had run (the turn's result read every event's type), and an event type with line breaks split the
    SSE stream into made-up events."""
    plugin, model = _emitting_app_model()
    app = create_app(settings(), engine_kwargs={"model": model, "plugins": [plugin]})
    with live_server(app) as url, httpx.Client(base_url=url, timeout=30) as c:
        body = {"model": "cadence", "messages": [{"role": "user", "content": "crawl"}]}
        reply = c.post("/v1/chat/completions", json=body)
        assert reply.status_code == 200, reply.text
        answer = reply.json()["choices"][0]["message"]["content"]
        assert answer and reply.json()["thread_id"]

        with c.stream("POST", "/api/v1/chat/stream", json={"message": "crawl"}) as resp:
            events = parse_sse(resp.read().decode())
        assert [name for name, data in events if "done" in data] == ["message", "message"]
        assert all(name == data.get("type", "message") for name, data in events if "done" not in data)
        assert events[-1][0] == "final" and events[-1][1]["response"] and not events[-1][1]["error"]


def test_health_and_ready_answer_head_probes() -> None:
    """Uptime monitors probe with HEAD (UptimeRobot's default, ``curl -I``): /health and /ready were 405."""
    with serve(api_keys=["k1"]) as url, httpx.Client(base_url=url, timeout=30) as client:
        for path in ("/health", "/ready"):
            head = client.head(path)
            assert head.status_code == 200 and head.content == b"", path
        assert client.head("/api/v1/threads").status_code == 401  # the API still needs the key
        assert (
            "head" not in client.get("/openapi.json", headers={"X-API-Key": "k1"}).json()["paths"]["/health"]
        )


def test_the_openai_example_of_the_docs_runs_as_written() -> None:
    """docs/api.md's Python example, run against a live server: its second call, continuing alice's thread,
    named no user and got a 404 (the thread is alice's)."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    example = next(b for b in blocks if "from openai import OpenAI" in b)
    with serve() as url:
        code = example.replace("http://127.0.0.1:8000/v1", f"{url}/v1")
        code = code.replace('api_key="<key or anything>"', 'api_key="unused", max_retries=0')
        assert code != example
        namespace: dict[str, Any] = {}
        exec(compile(code, "docs/api.md", "exec"), namespace)
        detail = httpx.get(f"{url}/api/v1/threads/{namespace['thread']}", params={"user_id": "alice"}).json()
        assert [m["content"] for m in detail["messages"] if m["role"] == "user"] == [
            "What is 2**10?",
            "And 2**11?",
        ]


def test_a_quiet_stream_sends_keep_alive_comments(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream sent nothing while a model call ran (a minute with a slow model): a proxy closes such a
    response (nginx after 60 s). An SSE comment keeps it open; the clients ignore it."""
    from cadence.server import chat

    monkeypatch.setattr(chat, "KEEPALIVE_S", 0.05, raising=False)
    with serve(scripted(delay_s=0.3)) as url, httpx.Client(base_url=url, timeout=30) as client:
        with client.stream("POST", "/api/v1/chat/stream", json={"message": "slow"}) as resp:
            raw = resp.read().decode()
        assert ": keep-alive\n\n" in raw
        events = parse_sse(raw)
        assert events[-1][0] == "final" and events[-1][1]["response"] == ANSWER

        body = {"model": "cadence", "messages": [{"role": "user", "content": "slow"}], "stream": True}
        with client.stream("POST", "/v1/chat/completions", json=body) as resp:
            assert ": keep-alive\n\n" in resp.read().decode()
        sdk = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=30)
        chunks = list(sdk.chat.completions.create(model="cadence", messages=body["messages"], stream=True))
        assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == ANSWER


def test_an_unexpected_failure_before_a_websocket_turn_is_an_error_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An exception that is not a CadenceError (a bug, a driver error) while a WebSocket request started
    closed the connection (1011) with no event; HTTP gets a 500. It is an ``error`` event with status 500,
    and the connection stays open for the next request."""
    from websockets.sync.client import connect

    from cadence.server.service import ChatService

    real_start = ChatService.start
    calls = {"n": 0}

    async def flaky_start(self: ChatService, *args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("driver exploded")
        return await real_start(self, *args, **kwargs)

    monkeypatch.setattr(ChatService, "start", flaky_start)
    with serve() as url, connect(url.replace("http://", "ws://") + "/api/v1/ws") as ws:
        ws.send('{"message": "hi"}')
        event = json.loads(ws.recv(timeout=30))
        assert event["type"] == "error" and event["status"] == 500
        assert event["error"]["code"] == "internal_error"
        ws.send('{"message": "hi again"}')
        while (event := json.loads(ws.recv(timeout=30)))["type"] != "final":
            pass
        assert event["response"] == ANSWER


def test_numbers_that_are_not_finite_are_sent_as_null() -> None:
    """A model's ``NaN`` in a tool call's arguments reached the SSE events as ``NaN``, which is not JSON:
    browsers (the web page), EventSource clients and strict parsers refused the whole event, the final one
    with it when the trace held it; a JSON answer holding one was a 500 after the turn had run."""
    from cadence.server.errors import JSONResponse, json_text
    from conftest import FINALIZE, goto

    def strict(text: str) -> Any:
        return json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))

    assert strict(json_text({"a": [float("nan"), float("inf"), 1.5], "b": (float("-inf"),)})) == {
        "a": [None, None, 1.5],
        "b": [None],
    }
    assert strict(JSONResponse({"x": float("nan")}).body.decode()) == {"x": None}

    nan_call = {"tool_calls": [{"name": "calculate", "args": {"expression": "1 + 1", "scale": float("nan")}}]}
    model = ScriptedChatModel.from_items([goto("math"), nan_call, FINALIZE, {"content": "It is 2."}])
    app = create_app(
        settings(builtin_plugins=["math"], approval_tools=["calculate"]), engine_kwargs={"model": model}
    )
    with live_server(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        with client.stream("POST", "/api/v1/chat/stream", json={"message": "1 + 1?"}) as resp:
            blocks = [b for b in resp.read().decode().split("\n\n") if b.startswith("event:")]
        events = [strict(b.split("data: ", 1)[1]) for b in blocks]
        interrupt = next(e for e in events if e["type"] == "interrupt")
        assert interrupt["approvals"][0]["arguments"]["scale"] is None
        assert events[-1]["type"] == "final" and events[-1]["interrupted"]


def test_the_websocket_key_in_the_url_is_not_written_to_the_log() -> None:
    """uvicorn logs each WebSocket's URL with its query at INFO (``"WebSocket /api/v1/ws?api_key=…"
    [accepted]``), and each request in its access log: the key was in the server's log in plain text."""
    import logging
    import socket
    import threading
    import time

    import uvicorn
    from websockets.sync.client import connect

    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    app = create_app(settings(api_keys=["sekrit-key"]), engine_kwargs={"model": scripted()})
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="info", lifespan="on"))  # configures the loggers
    handler = Collect()
    for name in ("uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).addHandler(handler)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            time.sleep(0.02)
        url = f"ws://127.0.0.1:{sock.getsockname()[1]}/api/v1/ws?api_key=sekrit-key"
        with connect(url) as ws:
            ws.send('{"message": "hi"}')
            while json.loads(ws.recv(timeout=30))["type"] != "final":
                pass
        httpx.get(f"http://127.0.0.1:{sock.getsockname()[1]}/health?api_key=sekrit-key")
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
        for name in ("uvicorn.error", "uvicorn.access"):
            logging.getLogger(name).removeHandler(handler)
    assert any("WebSocket /api/v1/ws?api_key=***" in line for line in lines), lines
    assert any("/health?api_key=***" in line for line in lines), lines
    assert not any("sekrit-key" in line for line in lines), lines


def test_a_question_another_worker_is_answering_is_not_shown_interrupted(tmp_path: Path) -> None:
    """Two workers on one database: while worker A ran a turn, worker B showed its question with
    ``interrupted: true`` (B's own locks were free), as if the server had stopped mid-turn; the web page
    marked it so. B also asks the thread's database lock."""
    import threading
    import time

    database = f"sqlite:///{tmp_path}/shared.db"
    slow = create_app(settings(database_url=database), engine_kwargs={"model": scripted(delay_s=1.0)})
    other = create_app(settings(database_url=database), engine_kwargs={"model": scripted()})
    with live_server(slow) as url_a, live_server(other) as url_b:
        replies: list[httpx.Response] = []
        body = {"message": "a slow one", "thread_id": "t1"}
        asker = threading.Thread(target=lambda: replies.append(httpx.post(f"{url_a}/api/v1/chat", json=body)))
        asker.start()
        deadline = time.monotonic() + 10
        while httpx.get(f"{url_b}/api/v1/threads/t1").status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.05)
        during = httpx.get(f"{url_b}/api/v1/threads/t1").json()["messages"]
        asker.join(30)
        assert replies and replies[0].status_code == 200
        assert [(m["content"], m["interrupted"]) for m in during] == [("a slow one", False)]
        after = httpx.get(f"{url_b}/api/v1/threads/t1").json()["messages"]
        assert [m["interrupted"] for m in after] == [False, False]


def test_an_openai_client_without_v1_in_its_base_url_is_told_so() -> None:
    """The commonest mistake with an OpenAI client: ``base_url="http://host:8000"`` (no ``/v1``) got
    'No endpoint POST /chat/completions; see /docs.'"""
    with serve() as url:
        client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=30)
        with pytest.raises(openai.NotFoundError, match="under /v1"):
            client.chat.completions.create(model="cadence", messages=[{"role": "user", "content": "hi"}])
        with pytest.raises(openai.NotFoundError, match="under /v1"):
            client.models.list()
        assert "under /v1" not in httpx.get(f"{url}/api/v1/nothing").json()["error"]["message"]
