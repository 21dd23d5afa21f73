"""Supervisor mode in the web page (a real browser, as tests/browser): the streamed answer is not the agents'
answers glued together."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.browser.support import GATE, GATE_WORD, GatedModel, fresh_page, running, system_chromium
from tests.test_server_support import settings
from tests.test_supervisor_openai import TWO_AGENT_TURN

from cadence.server import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

TWO_AGENTS: list[dict[str, Any]] = [  # the OpenAI test's turn, its answer gated
    *TWO_AGENT_TURN[:-1],
    {"content": f"Python 3.7 came out in 2018, 8 years ago, {GATE_WORD} from the agents."},
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless system Chromium for the module."""
    with system_chromium() as instance:
        yield instance


def test_the_streamed_answer_is_not_the_agents_answers_glued_together(browser: Any) -> None:
    app = create_app(
        settings(builtin_plugins=["math", "info"], mode="supervisor"),
        engine_kwargs={"model": GatedModel.from_items(TWO_AGENTS, loop=True)},
    )
    with running(app) as server, fresh_page(browser) as page:
        page.goto(server.url + "/")
        page.wait_for_selector("body[data-ready=true]")
        GATE.clear()
        try:
            page.fill("#message-input", "How many years since Python 3.7 came out?")
            page.press("#message-input", "Enter")
            page.wait_for_function(
                "() => (document.querySelector('.msg.assistant.streaming .text') || {}).textContent"
                "?.includes('8 years ago')"
            )
            # the synthesizer's answer streams on its own: the agents' earlier answers are not in front of it
            partial = page.locator(".msg.assistant.streaming .text").inner_text()
            assert partial.startswith("Python 3.7 came out in 2018, 8 years ago"), partial
        finally:
            GATE.set()
        answer = page.locator(".msg.assistant:not(.streaming)").last
        answer.locator("details.trace").wait_for()
        assert answer.locator(".text").inner_text().startswith("Python 3.7 came out in 2018, 8 years ago")
