"""Bad input gets a 4xx before anything is stored; limits are settings; the schema says what the server does."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from cadence.server import create_app
from test_server_support import live_server, scripted, settings


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    """One live server (memory store, looping scripted model); yields its URL and app."""
    app = create_app(settings(max_id_chars=40, max_metadata_bytes=2048, max_request_bytes=65536,
                              max_openai_messages=20), engine_kwargs={"model": scripted()})  # fmt: skip
    with live_server(app) as url:
        yield url, app


@pytest.fixture
def client(server: tuple[str, Any]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server[0], timeout=30) as c:
        yield c


def _threads_of(app: Any, user: str) -> list[Any]:
    return asyncio.run(app.state.service.store.list(user))


def _error(resp: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    error = resp.json()["error"]
    assert error["code"] == code, error
    return error


# -- ids --------------------------------------------------------------------------------
@pytest.mark.parametrize("user", ["a::b", "x\x00y", "tab\there", "u" * 41])
def test_bad_user_id_is_422_and_creates_no_thread(
    client: httpx.Client, server: tuple[str, Any], user: str
) -> None:
    resp = client.post("/api/v1/chat", json={"message": "hi", "user_id": user})
    assert resp.status_code == 422, resp.text
    assert resp.json()["error"]["code"] in {
        "invalid_value",
        "invalid_id",
        "id_too_long",
        "string_pattern_mismatch",
    }
    assert _threads_of(server[1], user) == []


def test_user_id_limit_comes_from_the_setting(client: httpx.Client) -> None:
    assert client.post("/api/v1/chat", json={"message": "hi", "user_id": "u" * 40}).status_code == 200
    error = _error(
        client.post("/api/v1/chat", json={"message": "hi", "user_id": "u" * 41}), 422, "id_too_long"
    )
    assert "CADENCE_MAX_ID_CHARS" in error["message"]
    thread = "t" * 41
    _error(client.post("/api/v1/chat", json={"message": "hi", "thread_id": thread}), 422, "id_too_long")
    _error(client.get(f"/api/v1/threads/{thread}"), 422, "id_too_long")
    _error(client.get("/api/v1/threads", params={"user_id": "a::b"}), 422, "invalid_value")


def test_openai_user_too_long_is_422_in_openai_shape(client: httpx.Client, server: tuple[str, Any]) -> None:
    body = {"model": "cadence", "messages": [{"role": "user", "content": "hi"}], "user": "u" * 300}
    error = _error(client.post("/v1/chat/completions", json=body), 422, "id_too_long")
    assert error["type"] == "invalid_request_error"
    assert _threads_of(server[1], "u" * 300) == []


def test_thread_list_offset_beyond_a_database_integer_is_422(client: httpx.Client) -> None:
    resp = client.get("/api/v1/threads", params={"offset": str(2**63)})
    assert resp.status_code == 422, resp.text
    assert client.get("/api/v1/threads", params={"offset": str(2**31 - 1)}).status_code == 200


# -- metadata ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("metadata", "code"),
    [
        ({"n": 2**70}, "invalid_metadata"),
        ({"n": -(2**63) - 1}, "invalid_metadata"),
        ({"blob": "x" * 3000}, "metadata_too_large"),
        ({"deep": json.loads("[" * 40 + "]" * 40)}, "invalid_metadata"),
    ],
)
def test_unstorable_metadata_is_422(
    client: httpx.Client, server: tuple[str, Any], metadata: dict[str, Any], code: str
) -> None:
    user = f"meta-{code}"
    resp = client.post("/api/v1/chat", json={"message": "hi", "user_id": user, "metadata": metadata})
    _error(resp, 422, code)
    assert _threads_of(server[1], user) == []


def test_metadata_at_the_limits_is_accepted(client: httpx.Client) -> None:
    metadata = {"n": 2**63 - 1, "m": -(2**63), "deep": json.loads("[" * 30 + "]" * 30)}
    assert client.post("/api/v1/chat", json={"message": "hi", "metadata": metadata}).status_code == 200


def test_lone_surrogate_is_422(client: httpx.Client) -> None:
    raw = b'{"message": "hi \\ud800 there"}'
    resp = client.post("/api/v1/chat", content=raw, headers={"Content-Type": "application/json"})
    _error(resp, 422, "invalid_text")


# -- request size -----------------------------------------------------------------------
def test_body_over_the_limit_is_413(client: httpx.Client) -> None:
    big = {"message": "hi", "metadata": {"blob": "x" * 70_000}}
    error = _error(client.post("/api/v1/chat", json=big), 413, "request_too_large")
    assert "CADENCE_MAX_REQUEST_BYTES" in error["message"]
    body = {"model": "cadence", "messages": [{"role": "user", "content": "x" * 70_000}]}
    assert _error(client.post("/v1/chat/completions", json=body), 413, "request_too_large")["type"]


def test_chunked_body_over_the_limit_is_413(client: httpx.Client) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"message": "hi", "metadata": {"blob": "'
        for _ in range(100):
            yield b"x" * 1024
        yield b'"}}'

    resp = client.post("/api/v1/chat", content=chunks(), headers={"Content-Type": "application/json"})
    _error(resp, 413, "request_too_large")
    small = client.post(
        "/api/v1/chat",
        content=iter([b'{"message": ', b'"hi"}']),
        headers={"Content-Type": "application/json"},
    )
    assert small.status_code == 200, small.text


@pytest.mark.parametrize("chunked", [False, True])
def test_a_large_upload_gets_a_readable_413(chunked: bool) -> None:
    """An upload over the limit and over the socket buffers still reads its 413, not a connection reset."""
    app = create_app(settings(max_request_bytes=2**20), engine_kwargs={"model": scripted()})
    blob = b'{"message": "hi", "metadata": {"blob": "' + b"x" * (6 * 2**20) + b'"}}'
    with live_server(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        for _ in range(3):
            parts = iter([blob[i : i + 2**16] for i in range(0, len(blob), 2**16)])
            resp = client.post(
                "/api/v1/chat",
                content=parts if chunked else blob,
                headers={"Content-Type": "application/json"},
            )
            _error(resp, 413, "request_too_large")
        assert client.get("/health").status_code == 200


def test_a_body_that_never_arrives_gets_408_and_the_server_serves_on() -> None:
    """A client announcing more than it sends (or trickling it) held its request open for good."""
    import socket
    import time
    from urllib.parse import urlsplit

    app = create_app(settings(request_body_timeout_s=0.5), engine_kwargs={"model": scripted()})
    with live_server(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        parts = urlsplit(url)
        with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
            started = time.monotonic()
            sock.sendall(
                b"POST /api/v1/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b'Content-Length: 1000\r\n\r\n{"message": "hi"}'
            )
            reply = b""
            while chunk := sock.recv(65536):  # the server closes the connection after its answer
                reply += chunk
            assert time.monotonic() - started < 8
        head, _, body = reply.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408"), reply[:200]
        error = json.loads(body)["error"]
        assert error["code"] == "request_timeout" and "CADENCE_REQUEST_BODY_TIMEOUT_S" in error["message"]
        # a whole body in time is served as before
        assert client.post("/api/v1/chat", json={"message": "hi"}).status_code == 200


def test_openai_message_count_limit(client: httpx.Client) -> None:
    messages = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}] * 10
    messages.append({"role": "user", "content": "last"})
    error = _error(
        client.post("/v1/chat/completions", json={"model": "cadence", "messages": messages}),
        422,
        "too_many_messages",
    )
    assert "CADENCE_MAX_OPENAI_MESSAGES" in error["message"]
    ok = client.post("/v1/chat/completions", json={"model": "cadence", "messages": messages[1:]})
    assert ok.status_code == 200, ok.text


def test_websocket_message_over_the_limit_gets_413_and_stays_open(server: tuple[str, Any]) -> None:
    ws_url = server[0].replace("http://", "ws://") + "/api/v1/ws"
    with connect(ws_url, max_size=None) as ws:
        ws.send(json.dumps({"message": "x" * 70_000}))
        event = json.loads(ws.recv(timeout=30))
        assert event["type"] == "error" and event["status"] == 413
        assert event["error"]["code"] == "request_too_large"
        ws.send(json.dumps({"message": "hi"}))
        while (event := json.loads(ws.recv(timeout=30)))["type"] != "final":
            pass
        assert event["error"] is None


def test_websocket_json_with_a_huge_integer_is_a_400_event_and_stays_open(server: tuple[str, Any]) -> None:
    """Python refuses integers of 4300+ digits with a ValueError: the socket was dropped without a word."""
    ws_url = server[0].replace("http://", "ws://") + "/api/v1/ws"
    with connect(ws_url, max_size=None) as ws:
        ws.send('{"message": "hi", "metadata": {"n": ' + "9" * 5000 + "}}")
        event = json.loads(ws.recv(timeout=30))
        assert (
            event["type"] == "error" and event["status"] == 400 and event["error"]["code"] == "invalid_json"
        )
        ws.send(json.dumps({"message": "hi"}))
        while (event := json.loads(ws.recv(timeout=30)))["type"] != "final":
            pass
        assert event["error"] is None


# -- the schema -------------------------------------------------------------------------
def test_options_lists_every_method_of_the_path(client: httpx.Client) -> None:
    resp = client.options("/api/v1/threads/abc")
    assert resp.status_code == 405
    assert {m.strip() for m in resp.headers["allow"].split(",")} == {"GET", "PATCH", "DELETE"}
    assert resp.json()["error"]["code"] == "method_not_allowed"
    resp = client.put("/api/v1/chat")
    assert resp.status_code == 405 and resp.headers["allow"] == "POST"


def test_schema_declares_limits_and_media_types(client: httpx.Client) -> None:
    schema = client.get("/openapi.json").json()
    chat = schema["components"]["schemas"]["ChatRequest"]["properties"]
    thread = next(b for b in chat["thread_id"]["anyOf"] if b.get("type") == "string")
    assert thread["maxLength"] == 40
    assert chat["message"]["maxLength"] == 32000
    completion = schema["components"]["schemas"]["ChatCompletionRequest"]["properties"]
    assert completion["messages"]["maxItems"] == 20
    stream = schema["paths"]["/api/v1/chat/stream"]["post"]["responses"]
    assert list(stream["200"]["content"]) == ["text/event-stream"]
    event = stream["200"]["content"]["text/event-stream"]["itemSchema"]  # one event, not a plain string
    assert event["type"] == "object" and set(event["properties"]) >= {"event", "data"}
    assert "413" in stream
    completions = schema["paths"]["/v1/chat/completions"]["post"]["responses"]["200"]["content"]
    assert set(completions) == {"application/json", "text/event-stream"}
    assert completions["application/json"]["schema"] == {"$ref": "#/components/schemas/ChatCompletion"}
    path = schema["paths"]["/api/v1/threads/{thread_id}"]
    assert set(path) == {"get", "patch", "delete"}
    offset = next(p for p in path["get"]["parameters"] if p["name"] == "user_id")
    assert "pattern" in offset["schema"]["anyOf"][0]
    dumped = json.dumps(schema)
    assert "x-cadence-limit" not in dumped
