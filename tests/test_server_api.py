"""HTTP API acceptance tests against a real uvicorn server (scripted model)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from cadence.testing import ScriptedChatModel
from test_server_support import ANSWER, parse_sse, scripted, serve

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def ws_url(base: str) -> str:
    return base.replace("http://", "ws://") + "/api/v1/ws"


def ws_turn(ws: Any, request: dict[str, Any]) -> list[dict[str, Any]]:
    """Send one request; collect events until ``final`` or a rejection error."""
    ws.send(json.dumps(request))
    events = []
    while True:
        event = json.loads(ws.recv(timeout=30))
        events.append(event)
        if event["type"] == "final" or (event["type"] == "error" and "status" in event):
            return events


# -- basics --------------------------------------------------------------------------------
def test_chat_roundtrip_threads_and_messages() -> None:
    with serve() as url, httpx.Client(base_url=url, timeout=30) as client:
        first = client.post("/api/v1/chat", json={"message": "hi there", "tone": "concise"})
        assert first.status_code == 200, first.text
        body = first.json()
        assert body["response"] == ANSWER
        assert body["trace"]["tone"] == "concise"
        thread = body["thread_id"]
        assert first.headers["x-cadence-thread-id"] == thread

        second = client.post("/api/v1/chat", json={"message": "and again", "thread_id": thread})
        assert second.status_code == 200 and second.json()["thread_id"] == thread
        other = client.post("/api/v1/chat", json={"message": "another topic"}).json()["thread_id"]

        listed = client.get("/api/v1/threads").json()["threads"]
        assert [t["thread_id"] for t in listed] == [other, thread]  # most recent activity first
        assert listed[1]["title"] == "hi there" and listed[1]["turns"] == 2

        detail = client.get(f"/api/v1/threads/{thread}").json()
        assert [(m["role"], m["content"]) for m in detail["messages"]] == [
            ("user", "hi there"),
            ("assistant", ANSWER),
            ("user", "and again"),
            ("assistant", ANSWER),
        ]
        full = client.get(f"/api/v1/threads/{thread}", params={"include_internal": "true"}).json()["messages"]
        assert len(full) > 4
        assert all(m["internal"] for m in full if m["kind"] in {"routing", "agent", "tool"})

        assert client.delete(f"/api/v1/threads/{thread}").json() == {"thread_id": thread, "deleted": True}
        assert client.get(f"/api/v1/threads/{thread}").status_code == 404
        assert [t["thread_id"] for t in client.get("/api/v1/threads").json()["threads"]] == [other]
        by_metadata = client.post("/api/v1/chat", json={"message": "hi", "metadata": {"tone": "formal"}})
        assert by_metadata.json()["trace"]["tone"] == "formal"  # the seed's tone preference in the metadata
        in_words = client.post("/api/v1/chat", json={"message": "Be brief: hi"})
        assert in_words.json()["trace"]["tone"] == "concise"  # asked for in words, the request naming none


def test_health_ready_plugins_and_openapi() -> None:
    with serve(builtin_plugins=["math"]) as url, httpx.Client(base_url=url, timeout=30) as client:
        assert client.get("/health").json()["status"] == "ok"
        ready = client.get("/ready").json()
        assert ready == {"status": "ready", "checks": {"engine": "ok", "database": "ok"}}
        plugins = client.get("/api/v1/plugins").json()["plugins"]
        assert {p["name"]: p["status"] for p in plugins}["math"] == "loaded"
        schema = client.get("/openapi.json").json()
        chat = schema["paths"]["/api/v1/chat"]["post"]
        assert chat["summary"] and "ChatResponse" in json.dumps(chat["responses"]["200"])
        assert {"/v1/chat/completions", "/v1/models", "/api/v1/threads/{thread_id}"} <= set(schema["paths"])


def test_reload_does_not_fail_requests_in_flight() -> None:
    model = scripted(delay_s=0.3)
    with serve(model, builtin_plugins=["math"]) as url, httpx.Client(base_url=url, timeout=30) as client:
        results: list[httpx.Response] = []
        workers = [
            threading.Thread(
                target=lambda: results.append(client.post("/api/v1/chat", json={"message": "slow"}))
            )
            for _ in range(3)
        ]
        for w in workers:
            w.start()
        time.sleep(0.1)
        reload = client.post("/api/v1/plugins/reload")
        for w in workers:
            w.join()
        assert reload.status_code == 200 and reload.json()["plugins"]
        assert [r.status_code for r in results] == [200, 200, 200]
        assert client.post("/api/v1/chat", json={"message": "after"}).status_code == 200


# -- validation ----------------------------------------------------------------------------
def test_bad_requests_get_documented_errors() -> None:
    with serve(max_message_chars=50) as url, httpx.Client(base_url=url, timeout=30) as client:

        def error(resp: httpx.Response, status: int, code: str) -> None:
            assert resp.status_code == status, resp.text
            assert resp.json()["error"]["code"] == code, resp.text
            assert resp.json()["error"]["message"]

        error(client.post("/api/v1/chat", json={"message": "x" * 51}), 422, "message_too_long")
        error(client.post("/api/v1/chat", json={"message": "hi", "tone": "angry"}), 422, "invalid_tone")
        error(
            client.post("/api/v1/chat", json={"message": "hi", "metadata": {"tone": 1}}), 422, "invalid_tone"
        )
        error(client.post("/api/v1/chat", json={"message": "hi", "colour": "red"}), 422, "unknown_field")
        error(client.post("/api/v1/chat", json={}), 422, "missing_field")
        error(client.post("/api/v1/chat", json={"message": ""}), 422, "empty_message")
        error(client.post("/api/v1/chat", json={"message": "   "}), 422, "empty_message")
        error(client.post("/api/v1/chat", json={"message": "hi", "thread_id": "a::b"}), 422, "invalid_value")
        bad_json = client.post(
            "/api/v1/chat", content=b'{"message": ', headers={"content-type": "application/json"}
        )
        error(bad_json, 400, "invalid_json")
        error(client.post("/api/v1/chat", content=b"not json"), 400, "invalid_json")
        json_headers = {"content-type": "application/json"}
        deep = b'{"message": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"  # the decoder gives up
        error(client.post("/api/v1/chat", content=deep, headers=json_headers), 400, "invalid_json")
        not_utf8 = b'{"message": "caf\xe9"}'
        error(client.post("/api/v1/chat", content=not_utf8, headers=json_headers), 400, "invalid_json")
        error(client.get("/api/v1/nothing-here"), 404, "not_found")
        error(client.get("/api/v1/chat"), 405, "method_not_allowed")
        error(client.get("/api/v1/threads/unknown-thread"), 404, "thread_not_found")
        # the stream endpoint validates before streaming: a plain JSON error
        error(client.post("/api/v1/chat/stream", json={"message": "hi", "tone": "loud"}), 422, "invalid_tone")
        # the OpenAI endpoint: same limits, OpenAI-shaped error
        oversized = client.post(
            "/v1/chat/completions",
            json={"model": "cadence", "messages": [{"role": "user", "content": "x" * 51}]},
        )
        error(oversized, 422, "message_too_long")
        assert oversized.json()["error"]["type"] == "invalid_request_error"
        wrong_method = client.put("/v1/chat/completions")
        error(wrong_method, 405, "method_not_allowed")
        assert wrong_method.json()["error"]["type"] == "invalid_request_error"


def test_an_empty_or_malformed_body_is_400_invalid_json() -> None:
    """An empty body was 422 ``missing_field``; malformed JSON named its character offset as the field."""
    json_headers = {"content-type": "application/json"}
    with serve() as url, httpx.Client(base_url=url, timeout=30) as client:
        for path in (
            "/api/v1/chat",
            "/api/v1/chat/stream",
            "/v1/chat/completions",
            "/api/v1/threads/t/resume",
        ):
            for headers in (json_headers, {}):
                empty = client.post(path, content=b"", headers=headers)
                assert empty.status_code == 400, (path, empty.text)
                error = empty.json()["error"]
                assert error["code"] == "invalid_json"
                assert error["message"].startswith("The request body is empty; send a JSON object")
        malformed = client.post("/api/v1/chat", content=b'{"message": "hi",, }', headers=json_headers)
        assert malformed.status_code == 400
        error = malformed.json()["error"]
        assert error["code"] == "invalid_json" and "at character 17" in error["message"]
        assert error["details"] == [
            {"field": "body", "type": "json_invalid", "message": "JSON decode error", "position": 17}
        ]


def test_a_message_of_invisible_characters_is_blank_everywhere() -> None:
    """Zero-width spaces, a BOM and other format characters passed the blank check and ran a full turn."""
    invisible = "\u200b\ufeff \u2060\u200e"
    with serve() as url, httpx.Client(base_url=url, timeout=30) as client:
        for path in ("/api/v1/chat", "/api/v1/chat/stream"):
            resp = client.post(path, json={"message": invisible})
            assert resp.status_code == 422 and resp.json()["error"]["code"] == "empty_message", resp.text
        openai = client.post(
            "/v1/chat/completions",
            json={"model": "cadence", "messages": [{"role": "user", "content": invisible}]},
        )
        assert openai.status_code == 422 and openai.json()["error"]["code"] == "empty_message", openai.text
        with connect(ws_url(url)) as ws:
            [event] = ws_turn(ws, {"message": invisible})
            assert (event["status"], event["error"]["code"]) == (422, "empty_message")
        assert client.get("/api/v1/threads").json()["threads"] == []  # no turn ran, no thread was made


def test_text_that_cannot_be_encoded_is_sent_as_replacement_characters() -> None:
    """A model answer with a lone surrogate: every JSON path answers with U+FFFD in its place (not a 500)."""
    with serve(scripted(text="bad \ud800 text")) as url, httpx.Client(base_url=url, timeout=30) as client:
        answer = client.post("/api/v1/chat", json={"message": "hi"})
        assert answer.status_code == 200 and answer.json()["response"] == "bad \ufffd text"
        streamed = client.post("/api/v1/chat/stream", json={"message": "hi"})
        assert parse_sse(streamed.text)[-1][1]["response"] == "bad \ufffd text"
        with connect(ws_url(url)) as ws:
            assert ws_turn(ws, {"message": "hi"})[-1]["response"] == "bad \ufffd text"


def test_routes_returning_models_use_the_servers_json_response() -> None:
    from fastapi.testclient import TestClient
    from pydantic import BaseModel

    from cadence.server import create_app
    from test_server_support import settings

    class Out(BaseModel):
        text: str

    app = create_app(settings(), engine_kwargs={"model": scripted()})
    app.get("/probe", response_model=Out)(lambda: Out(text="bad \ud800 text"))
    resp = TestClient(app).get("/probe")  # no lifespan: the route needs no engine
    assert resp.status_code == 200 and resp.json() == {"text": "bad \ufffd text"}


def test_api_keys() -> None:
    keys = ["admin-key", "alice-key:alice"]
    with serve(api_keys=keys) as url, httpx.Client(base_url=url, timeout=30) as client:
        msg = {"message": "hi"}
        missing = client.post("/api/v1/chat", json=msg)
        assert missing.status_code == 401 and missing.json()["error"]["code"] == "missing_api_key"
        wrong = client.post("/api/v1/chat", json=msg, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "invalid_api_key"
        for sent in ("Basic YWRtaW4ta2V5Og==", "Token admin-key", "admin-key"):  # a key, not as Bearer
            scheme = client.post("/api/v1/chat", json=msg, headers={"Authorization": sent})
            assert scheme.status_code == 401 and scheme.json()["error"]["code"] == "invalid_api_key"
            assert "must use the Bearer scheme" in scheme.json()["error"]["message"]
        assert client.get("/api/v1/threads").status_code == 401
        assert client.get("/openapi.json").status_code == 401
        assert client.get("/health").status_code == 200 and client.get("/ready").status_code == 200

        admin = {"Authorization": "Bearer admin-key"}
        alice = {"X-API-Key": "alice-key"}
        ok = client.post("/api/v1/chat", json={**msg, "user_id": "bob"}, headers=admin)
        assert ok.status_code == 200
        forbidden = client.post("/api/v1/chat", json={**msg, "user_id": "bob"}, headers=alice)
        assert forbidden.status_code == 403 and forbidden.json()["error"]["code"] == "forbidden_user"
        as_alice = client.post("/api/v1/chat", json=msg, headers=alice)
        assert as_alice.status_code == 200
        threads = client.get("/api/v1/threads", params={"user_id": "alice"}, headers=admin).json()["threads"]
        assert [t["thread_id"] for t in threads] == [as_alice.json()["thread_id"]]
        assert client.get("/api/v1/threads", params={"user_id": "bob"}, headers=alice).status_code == 403
        assert client.post("/api/v1/plugins/reload", headers=alice).status_code == 403
        assert client.post("/api/v1/plugins/reload", headers=admin).status_code == 200

        with connect(ws_url(url)) as ws:  # no key: one error event, then close 4401
            event = json.loads(ws.recv(timeout=10))
            assert event["status"] == 401 and event["error"]["code"] == "missing_api_key"
        with connect(ws_url(url) + "?api_key=alice-key") as ws:
            events = ws_turn(ws, msg)
            assert events[-1]["type"] == "final" and events[-1]["response"] == ANSWER
        with connect(ws_url(url), additional_headers=admin) as ws:
            assert ws_turn(ws, msg)[-1]["type"] == "final"

        # two different keys: neither is believed, even when one is valid (the valid one was taken)
        for headers in (
            {**admin, "X-API-Key": "nope"},
            {"Authorization": "Bearer nope", **alice},
            {**admin, **alice},
        ):
            both = client.post("/api/v1/chat", json=msg, headers=headers)
            assert both.status_code == 401 and both.json()["error"]["code"] == "conflicting_api_keys"
            assert "Two different API keys were sent (Authorization: Bearer and X-API-Key)" in both.text
        same = client.post("/api/v1/chat", json=msg, headers={**admin, "X-API-Key": "admin-key"})
        assert same.status_code == 200  # the same key twice agrees
        with connect(ws_url(url) + "?api_key=nope", additional_headers=alice) as ws:
            event = json.loads(ws.recv(timeout=10))
            assert event["status"] == 401 and event["error"]["code"] == "conflicting_api_keys"


# -- ownership -----------------------------------------------------------------------------
def test_other_users_get_404_on_every_thread_endpoint() -> None:
    with serve() as url, httpx.Client(base_url=url, timeout=30) as client:
        thread = client.post("/api/v1/chat", json={"message": "secret", "user_id": "alice"}).json()[
            "thread_id"
        ]
        bob: dict[str, Any] = {"message": "let me in", "user_id": "bob", "thread_id": thread}

        def is_404(resp: httpx.Response) -> None:
            assert resp.status_code == 404, resp.text
            assert resp.json()["error"]["code"] == "thread_not_found"

        is_404(client.post("/api/v1/chat", json=bob))
        is_404(client.post("/api/v1/chat/stream", json=bob))
        is_404(client.get(f"/api/v1/threads/{thread}", params={"user_id": "bob"}))
        is_404(client.delete(f"/api/v1/threads/{thread}", params={"user_id": "bob"}))
        openai_body = {"model": "cadence", "user": "bob", "messages": [{"role": "user", "content": "hi"}]}
        resp = client.post("/v1/chat/completions", json=openai_body, headers={"X-Cadence-Thread-Id": thread})
        assert resp.status_code == 404 and resp.json()["error"]["code"] == "thread_not_found"
        resp = client.post("/v1/chat/completions", json={**openai_body, "thread_id": thread})
        assert resp.status_code == 404
        resp = client.post("/v1/chat/completions", json={**openai_body, "metadata": {"thread_id": thread}})
        assert resp.status_code == 404
        with connect(ws_url(url)) as ws:
            events = ws_turn(ws, bob)
            assert events == [
                {"type": "error", "status": 404, "error": {**events[0]["error"], "code": "thread_not_found"}}
            ]
        assert client.get("/api/v1/threads", params={"user_id": "bob"}).json()["threads"] == []

        # alice's thread is untouched and still hers
        detail = client.get(f"/api/v1/threads/{thread}", params={"user_id": "alice"}).json()
        assert [m["content"] for m in detail["messages"]] == ["secret", ANSWER]
        again = client.post("/api/v1/chat", json={"message": "more", "user_id": "alice", "thread_id": thread})
        assert again.status_code == 200


# -- locks ---------------------------------------------------------------------------------
def test_same_thread_is_locked_other_threads_run() -> None:
    with (
        serve(scripted(delay_s=0.5), thread_lock_timeout=0.2) as url,
        httpx.Client(base_url=url, timeout=30) as client,
    ):
        thread = client.post("/api/v1/chat", json={"message": "start"}).json()["thread_id"]
        results: dict[str, httpx.Response] = {}

        def post(name: str, body: dict[str, Any]) -> None:
            results[name] = client.post("/api/v1/chat", json=body)

        first = threading.Thread(target=post, args=("first", {"message": "one", "thread_id": thread}))
        first.start()
        time.sleep(0.2)
        started = time.monotonic()
        other = threading.Thread(target=post, args=("other", {"message": "elsewhere"}))
        other.start()
        post("second", {"message": "two", "thread_id": thread})
        first.join()
        other.join()
        assert results["first"].status_code == 200
        assert results["second"].status_code == 409
        assert results["second"].json()["error"]["code"] == "thread_busy"
        assert results["other"].status_code == 200
        assert time.monotonic() - started < 1.9  # the other thread did not wait for the busy one
        # afterwards the thread is free again
        assert client.post("/api/v1/chat", json={"message": "three", "thread_id": thread}).status_code == 200


def test_waiting_request_runs_after_the_first() -> None:
    with (
        serve(scripted(delay_s=0.2), thread_lock_timeout=10) as url,
        httpx.Client(base_url=url, timeout=30) as client,
    ):
        thread = client.post("/api/v1/chat", json={"message": "start"}).json()["thread_id"]
        results: list[int] = []
        workers = [
            threading.Thread(
                target=lambda i=i: results.append(
                    client.post("/api/v1/chat", json={"message": f"m{i}", "thread_id": thread}).status_code
                )
            )
            for i in range(3)
        ]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert results == [200, 200, 200]
        messages = client.get(f"/api/v1/threads/{thread}").json()["messages"]
        roles = [m["role"] for m in messages]
        assert roles == ["user", "assistant"] * 4  # never interleaved


# -- streaming -----------------------------------------------------------------------------
def test_sse_stream_delivers_tokens_and_final_trace() -> None:
    with serve() as url, httpx.Client(base_url=url, timeout=30) as client:
        with client.stream("POST", "/api/v1/chat/stream", json={"message": "stream please"}) as resp:
            assert resp.status_code == 200
            assert resp.headers["content-type"].startswith("text/event-stream")
            thread = resp.headers["x-cadence-thread-id"]
            events = parse_sse(resp.read().decode())
        names = [name for name, _ in events]
        assert names[-1] == "final"
        assert all(name == data["type"] for name, data in events)
        tokens = [data["text"] for name, data in events if name == "token"]
        assert "".join(tokens) == ANSWER and len(tokens) > 1
        final = events[-1][1]
        assert final["thread_id"] == thread and final["response"] == ANSWER and final["error"] is None
        assert "routing_history" in final["trace"] and final["trace"]["model_calls"]


def test_websocket_multiple_requests_per_connection() -> None:
    with serve() as url, connect(ws_url(url)) as ws:
        events = ws_turn(ws, {"message": "first"})
        assert [e["type"] for e in events if e["type"] == "token"]
        final = events[-1]
        assert final["type"] == "final" and final["response"] == ANSWER and "model_calls" in final["trace"]
        thread = final["thread_id"]

        ws.send("{not json")
        bad = json.loads(ws.recv(timeout=10))
        assert bad["type"] == "error" and bad["status"] == 400 and bad["error"]["code"] == "invalid_json"
        rejected = ws_turn(ws, {"message": "x", "tone": "grumpy"})
        assert rejected[-1]["status"] == 422 and rejected[-1]["error"]["code"] == "invalid_tone"

        second = ws_turn(ws, {"message": "second", "thread_id": thread})
        assert second[-1]["type"] == "final" and second[-1]["thread_id"] == thread
        assert "".join(e["text"] for e in second if e["type"] == "token") == ANSWER


# -- failures mid-turn ---------------------------------------------------------------------
def test_model_failure_ends_turn_with_error_and_thread_stays_usable() -> None:
    model = ScriptedChatModel.from_items(
        [
            {"raise": {"type": "error", "message": "provider exploded"}},  # coordinator
            {"raise": {"type": "error", "message": "provider exploded"}},  # synthesizer
            {"content": "fine now"},
            {"content": "Recovered answer"},
            {"raise": {"type": "error", "message": "provider exploded"}},
            {"raise": {"type": "error", "message": "provider exploded"}},
            {"content": "fine now"},
            {"content": "Recovered answer"},
        ]
    )
    with serve(model) as url, httpx.Client(base_url=url, timeout=30) as client:
        failed = client.post("/api/v1/chat", json={"message": "try"})
        assert failed.status_code == 502, failed.text
        body = failed.json()
        assert body["error"]["code"] == "model_error" and body["error"]["message"]
        thread = body["thread_id"]
        assert body["error"]["thread_id"] == thread and failed.headers["x-cadence-thread-id"] == thread
        ok = client.post("/api/v1/chat", json={"message": "again", "thread_id": thread})
        assert ok.status_code == 200 and ok.json()["response"] == "Recovered answer"

        with client.stream(
            "POST", "/api/v1/chat/stream", json={"message": "try", "thread_id": thread}
        ) as resp:
            events = parse_sse(resp.read().decode())
        assert "error" in [name for name, _ in events]
        assert events[-1][0] == "final" and events[-1][1]["error"]["code"] == "model_error"
        ok = client.post("/api/v1/chat", json={"message": "again", "thread_id": thread})
        assert ok.status_code == 200 and ok.json()["response"] == "Recovered answer"


def test_stream_client_disconnect_lets_the_turn_finish() -> None:
    with (
        serve(scripted(delay_s=0.3), thread_lock_timeout=10) as url,
        httpx.Client(base_url=url, timeout=30) as client,
    ):
        with client.stream("POST", "/api/v1/chat/stream", json={"message": "will hang up"}) as resp:
            thread = resp.headers["x-cadence-thread-id"]
            next(resp.iter_lines())  # read one event, then hang up mid-turn
        # the turn finished in the background and released the thread; history is complete
        ok = client.post("/api/v1/chat", json={"message": "still there?", "thread_id": thread})
        assert ok.status_code == 200, ok.text
        messages = client.get(f"/api/v1/threads/{thread}").json()["messages"]
        assert [(m["role"], m["content"]) for m in messages] == [
            ("user", "will hang up"),
            ("assistant", ANSWER),
            ("user", "still there?"),
            ("assistant", ANSWER),
        ]


def test_no_route_runs_its_handler_or_dependencies_in_the_thread_pool() -> None:
    """FastAPI runs a plain ``def`` endpoint or dependency in its thread pool: a thread hop per request."""
    import inspect

    from fastapi.routing import APIRoute, APIWebSocketRoute

    from cadence.server import create_app
    from test_server_support import settings

    app = create_app(settings(), engine_kwargs={"model": scripted()})

    def calls(dependant: Any) -> list[Any]:
        found = [dependant.call] if dependant.call is not None else []
        for sub in dependant.dependencies:
            found += calls(sub)
        return found

    def api_routes(found: list[Any]) -> list[Any]:
        out = []
        for route in found:
            if isinstance(route, APIRoute | APIWebSocketRoute):
                out.append(route)
            inner = getattr(route, "original_router", None) or route  # FastAPI's included routers
            if inner is not route or getattr(route, "routes", None):
                out += api_routes(list(getattr(inner, "routes", None) or []))
        return out

    routes = api_routes(list(app.routes))
    assert len(routes) > 20
    sync = sorted(
        f"{route.path}: {getattr(call, '__qualname__', call)}"
        for route in routes
        for call in calls(route.dependant)
        if not (inspect.iscoroutinefunction(call) or inspect.isasyncgenfunction(call))
        and not inspect.iscoroutinefunction(type(call).__call__)  # an instance with an async __call__
    )
    assert sync == []
