"""Browser tests of the web page: Playwright for Python driving the system's Chromium.

No browser is ever downloaded: Chromium comes from the system's packages (Debian:
``apt-get install -y chromium``; ``.ci/run`` installs it when missing). Without it (or
without Playwright) these tests are skipped, except on CI (``CI=true``), where that is a
failure. One browser per test module; each test gets a fresh page (context).

Screenshots of the page's main states are written to ``docs/img/`` only when asked:
``WEBUI_SCREENSHOTS=1 .venv/bin/python -m pytest tests/browser``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from tests.browser.support import chromium_path


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI=true: the browser tests must run; .ci/run installs Chromium with apt-get)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module."""
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


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page (its own storage) that fails the test on any script error of the page."""
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
