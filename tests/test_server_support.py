"""Helpers for the server tests: a real uvicorn server on a free loopback port, SSE parsing."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn
from fastapi import FastAPI

from cadence.server import create_app
from cadence.settings import Settings
from cadence.testing import ScriptedChatModel

ANSWER = "Hello there friend"


def scripted(*, delay_s: float = 0.0, text: str = ANSWER) -> ScriptedChatModel:
    """A looping model: the coordinator gets plain text (→ finalize) and the synthesizer answers ``text``."""
    item: dict[str, Any] = {"content": text}
    if delay_s:
        item["delay_s"] = delay_s
    return ScriptedChatModel.from_items([item], loop=True)


def settings(**overrides: Any) -> Settings:
    """Test settings: memory database, no plugins, no retries."""
    values: dict[str, Any] = {
        "database_url": "memory://",
        "builtin_plugins": [],
        "entry_points_enabled": False,
        "model_max_retries": 0,
    }
    values.update(overrides)
    return Settings(**values)


@contextlib.contextmanager
def live_server(app: FastAPI) -> Iterator[str]:
    """Run ``app`` on uvicorn in a background thread; yield its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@contextlib.contextmanager
def serve(model: ScriptedChatModel | None = None, **setting_overrides: Any) -> Iterator[str]:
    """A live server over a fresh app with a scripted model."""
    app = create_app(settings(**setting_overrides), engine_kwargs={"model": model or scripted()})
    with live_server(app) as url:
        yield url


def parse_sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    """``[(event, data)]`` from a text/event-stream body."""
    events: list[tuple[str, dict[str, Any]]] = []
    for block in text.split("\n\n"):
        name, data = "message", []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data:
            events.append((name, json.loads("\n".join(data))))
    return events
