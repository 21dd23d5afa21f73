"""Helpers of the browser tests: the system's Chromium, loopback servers, a gated scripted model, screenshots.

The browser tests drive the system's Chromium with Playwright for Python; no browser is ever
downloaded: Chromium comes from the system's packages (Debian: ``apt-get install -y chromium``;
``.ci/install-chromium`` installs it when missing). Without it (or without Playwright) the tests
are skipped, except on CI (``CI=true``), where that is a failure.

Screenshots of the page's main states are written to ``docs/img/`` only when asked:
``WEBUI_SCREENSHOTS=1 .venv/bin/python -m pytest tests/browser``.

(No ``conftest.py`` here: other test modules import ``tests/conftest.py`` as ``conftest``.)
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI

from cadence.testing import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT_DIR = ROOT / "docs" / "img"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium_path() -> str | None:
    """The system's Chromium (``CHROMIUM_PATH`` wins), or None."""
    explicit = os.environ.get("CHROMIUM_PATH")
    if explicit:
        return explicit
    return next((found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None)


def screenshot(page: Any, name: str) -> None:
    """Save ``docs/img/<name>.png`` when WEBUI_SCREENSHOTS=1 (never on an ordinary test run)."""
    if os.environ.get("WEBUI_SCREENSHOTS") == "1":
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT_DIR / f"{name}.png"))


# -- servers -------------------------------------------------------------------------------
class Server:
    """A uvicorn server for ``app`` on ``port`` (0: a free one) in a background thread."""

    def __init__(self, app: FastAPI, port: int = 0) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def start(self) -> Server:
        """Start and wait until it accepts requests."""
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Stop it (open streams are cut) and free the port."""
        self.server.should_exit = True
        self.server.force_exit = True
        self.thread.join(timeout=30)
        self.sock.close()


@contextlib.contextmanager
def running(app: FastAPI) -> Iterator[Server]:
    """A started :class:`Server` for the duration of the block."""
    server = Server(app).start()
    try:
        yield server
    finally:
        server.stop()


# -- models --------------------------------------------------------------------------------
GATE = threading.Event()
"""Closed by a test to hold an answer in the middle of its stream; open otherwise."""
GATE.set()
GATE_WORD = "computed"
"""The answer's piece that waits for :data:`GATE`."""


class GatedModel(ScriptedChatModel):
    """The scripted model, except that a streamed piece containing :data:`GATE_WORD` waits for :data:`GATE`.

    So a test can look at the page while an answer is half streamed, without timing anything.
    """

    async def _astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        async for chunk in super()._astream(*args, **kwargs):
            if GATE_WORD in chunk.text and not GATE.is_set():
                await asyncio.to_thread(GATE.wait, 60)
            yield chunk


MATH_TURN: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "goto_math_agent", "args": {}}]},
    {"tool_calls": [{"name": "calculate", "args": {"expression": "15 * 23"}}]},
    {"tool_calls": [{"name": "goto_finalize", "args": {}}]},
    {"content": f"15 * 23 = 345, {GATE_WORD} by the math agent."},
]
"""One coordinator-mode turn: route to math, calculate, finalize, answer (four model calls)."""


# -- the browser -----------------------------------------------------------------------------
def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI=true: the browser tests must run; .ci/run installs Chromium with apt-get)")
    pytest.skip(reason)


@contextlib.contextmanager
def system_chromium() -> Iterator[Any]:
    """A headless system Chromium driven by Playwright; skips (fails under CI=true) without one."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright is not installed (pip install -e '.[dev]')")
    path = chromium_path()
    if path is None:
        _unavailable("No system Chromium found (Debian: apt-get install -y chromium)")
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=path, headless=True)
        try:
            yield instance
        finally:
            instance.close()


@contextlib.contextmanager
def fresh_page(browser: Any) -> Iterator[Any]:
    """A page with its own storage; any script error on it fails the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(15_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield tab
    finally:
        context.close()
    assert errors == [], f"script errors on the page: {errors}"
