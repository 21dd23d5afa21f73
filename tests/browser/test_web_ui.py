"""The web page in a real browser (system Chromium via Playwright) against loopback servers.

The main server runs the coordinator mode with the math plugin and a scripted model (route to
math, calculate, answer); :class:`GatedModel` holds an answer mid-stream so the page can be
seen streaming without timing anything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.browser.support import (
    GATE,
    GATE_WORD,
    MATH_TURN,
    GatedModel,
    Server,
    fresh_page,
    running,
    screenshot,
    system_chromium,
)
from tests.conftest import FINALIZE
from tests.test_server_support import settings

from cadence.server import create_app

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixture skips, or fails under CI=true
    expect = None

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def math_app(**overrides: Any) -> Any:
    """An app with the math plugin and the gated scripted model looping over :data:`MATH_TURN`."""
    values: dict[str, Any] = {"builtin_plugins": ["math"], **overrides}
    return create_app(
        settings(**values), engine_kwargs={"model": GatedModel.from_items(MATH_TURN, loop=True)}
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless system Chromium for the module."""
    with system_chromium() as instance:
        yield instance


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page per test."""
    with fresh_page(browser) as tab:
        yield tab


@pytest.fixture(scope="module")
def server(browser: Any) -> Iterator[Server]:
    """The module's server (started after the browser, so a missing browser skips before any work)."""
    with running(math_app(thread_lock_timeout=0.5)) as srv:
        yield srv


def open_page(page: Any, url: str) -> None:
    """Load the page and wait until its first data (modes, threads, plugins) is in."""
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready=true]")


def send(page: Any, text: str) -> None:
    """Type ``text`` and press Enter once the page is idle (a busy page keeps the text and sends nothing).

    The approvals of a paused turn show before its stream has closed; on a loaded machine a message typed at
    once had been kept in the box and never sent.
    """
    expect(page.locator("#send-button")).to_be_enabled()
    page.fill("#message-input", text)
    page.press("#message-input", "Enter")


def finished_answer(page: Any) -> Any:
    """The last answer, once its final event is in (its trace panel is there)."""
    answer = page.locator(".msg.assistant:not(.streaming)").last
    answer.locator("details.trace").wait_for()
    return answer


def stored_answers(url: str, thread_id: str) -> list[str]:
    """The thread's final answers as the server keeps them."""
    detail = httpx.get(f"{url}/api/v1/threads/{thread_id}", timeout=30).json()
    return [m["content"] for m in detail["messages"] if m["role"] == "assistant"]


def current_thread(page: Any) -> str:
    """The id of the thread the page has open (from its address)."""
    return page.evaluate("() => decodeURIComponent(location.hash.slice('#thread='.length))")


def start_thread(url: str, message: str) -> str:
    """A thread made through the API (not the page); its id."""
    response = httpx.post(f"{url}/api/v1/chat", json={"message": message}, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()["thread_id"]


# -- the page ------------------------------------------------------------------------------
def test_page_loads_with_pickers_plugins_and_only_local_requests(page: Any, server: Server) -> None:
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    open_page(page, server.url)
    modes = page.locator("#mode-select option").all_inner_texts()
    assert {"coordinator", "supervisor"} <= set(modes)
    assert page.locator("#mode-select").input_value() == "coordinator"
    assert page.locator("#tone-select option").all_inner_texts() == [
        "auto",  # no tone sent: the one the message asks for in words, else natural
        "natural",
        "explanatory",
        "formal",
        "concise",
        "learning",
    ]
    plugin = page.locator("#plugin-list li[data-plugin=math]")
    assert "loaded" in plugin.inner_text()
    assert requests and all(u.startswith(server.url + "/") for u in requests), requests
    # every control has an accessible name
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('button, select, textarea, input')]
            .filter((e) => !e.closest('[hidden]') && !e.closest('dialog'))
            .filter((e) => !(e.getAttribute('aria-label') || e.labels?.length || e.textContent.trim()))
            .map((e) => e.outerHTML)"""
    )
    assert unnamed == []


def test_docs_page_renders_offline(page: Any, server: Server) -> None:
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(server.url + "/docs")
    page.wait_for_selector(".swagger-ui .info .title")
    assert "Cadence" in page.locator(".swagger-ui .info .title").inner_text()
    page.wait_for_selector(".opblock-summary-path[data-path='/api/v1/chat']")
    assert all(u.startswith(server.url + "/") for u in requests), requests


def test_answer_streams_token_by_token_then_trace_opens(page: Any, server: Server) -> None:
    open_page(page, server.url)
    GATE.clear()
    try:
        send(page, "What is 15 * 23?")
        streaming = page.locator(".msg.assistant.streaming")
        streaming.wait_for()
        page.wait_for_function(
            "() => document.querySelector('.msg.assistant.streaming .text').textContent.includes('345,')"
        )
        partial = streaming.locator(".text").inner_text()
        assert partial.startswith("15 * 23 = 345") and "computed" not in partial
        assert int(streaming.get_attribute("data-tokens")) >= 2
        assert page.locator("#send-button").is_disabled()
        screenshot(page, "webui-streaming")
    finally:
        GATE.set()
    answer = finished_answer(page)
    final = answer.locator(".text").inner_text()
    assert "345" in final and final == stored_answers(server.url, current_thread(page))[-1]
    assert page.locator("#message-input").input_value() == ""
    # the new thread is current and listed
    expect(page.locator("#thread-title")).to_have_text("What is 15 * 23?")
    page.locator("#thread-list button[aria-current=true]", has_text="What is 15 * 23?").wait_for()
    # the trace: route, tool with arguments, result and duration, model calls, tokens, steps
    answer.locator("details.trace > summary").click()
    trace = answer.locator("details.trace")
    text = trace.inner_text()
    assert re.search(r"Route\s+math", text) and re.search(r"Mode\s+coordinator", text)
    tools = trace.locator("table").first.inner_text()
    assert "calculate" in tools and '"expression": "15 * 23"' in tools and "345" in tools
    assert re.search(r"\d+ ms", tools)
    calls = trace.locator("table").nth(1).inner_text()
    assert calls.count("scripted") == 4 and "synthesizer" in calls
    assert re.search(r"Tokens\s+\d+ in · \d+ out · \d+ total", text)
    assert "→ math agent (hop 1)" in text and "math: calculate" in text
    screenshot(page, "webui-trace")


def test_trace_panel_shows_suspend_deadline_validation_and_errors(page: Any, server: Server) -> None:
    """The parts of a trace the scripted turns do not produce, rendered by the page's own function."""
    open_page(page, server.url)
    trace = {
        "mode": "supervisor",
        "tone": "formal",
        "routing_history": ["math", "math"],
        "agent_hops": 2,
        "tool_hops": 1,
        "duration_ms": 1234.5,
        "usage": {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10},
        "tools_used": [
            {
                "agent": "math",
                "name": "calculate",
                "args": {"expression": "1/0"},
                "result": None,
                "error": "division by zero",
                "duration_ms": 2.5,
            }
        ],
        "model_calls": [
            {
                "node": "coordinator",
                "model": "m",
                "input_tokens": 7,
                "output_tokens": 3,
                "duration_ms": 9,
                "attempts": 2,
                "error": "rate limited",
            }
        ],
        "suspended": True,
        "suspend_reason": "max_agent_hops",
        "suspend_details": {"current": 3, "maximum": 2},
        "errors": [
            {"node": "turn", "code": "turn_timeout", "message": "The turn exceeded 2 s."},
            {"node": "math_tools", "code": "tool_error", "message": "boom"},
        ],
        "validation": [
            {
                "node": "synthesizer",
                "mode": "correct",
                "verdict": {
                    "ok": False,
                    "problems": ["invented_number"],
                    "details": ["42 is not in the results"],
                },
                "corrected": True,
                "draft_problems": ["invented_number"],
            }
        ],
        "notes": ["answer rewritten by the check"],
    }
    text = page.evaluate(
        "(trace) => { const d = renderTrace(trace, []); d.open = true; document.body.append(d); return d.innerText; }",
        trace,
    )
    assert "Trace · 2 agents · 1 tool · 10 tokens · 1235 ms" in text
    assert re.search(r"Route\s+math → math", text) and re.search(r"Tone\s+formal", text)
    assert 'max_agent_hops {"current":3,"maximum":2}' in text
    assert "Deadline" in text and "The turn exceeded 2 s." in text
    assert "division by zero" in text and "2 (rate limited)" in text
    assert (
        "problems: invented_number · corrected · first draft: invented_number · 42 is not in the results"
        in text
    )
    assert "math_tools: tool_error: boom" in text and "answer rewritten by the check" in text


def test_fallback_without_streaming(page: Any, server: Server) -> None:
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    open_page(page, server.url)
    page.uncheck("#stream-toggle")
    send(page, "Without streaming, 15 * 23?")
    answer = finished_answer(page)
    assert answer.locator(".text").inner_text() == stored_answers(server.url, current_thread(page))[-1]
    assert answer.get_attribute("data-tokens") == "0"
    assert posted == [server.url + "/api/v1/chat"]


def test_keyboard_enter_sends_and_shift_enter_breaks_the_line(page: Any, server: Server) -> None:
    open_page(page, server.url)
    box = page.locator("#message-input")
    box.click()
    page.keyboard.type("first line")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("second line")
    assert box.input_value() == "first line\nsecond line"
    assert page.locator(".msg.user").count() == 0
    page.keyboard.press("Enter")
    page.locator(".msg.user").wait_for()
    assert page.locator(".msg.user .text").inner_text() == "first line\nsecond line"
    page.locator(".msg.assistant details.trace").wait_for()


def test_switch_threads_shows_each_history_then_rename_and_delete(page: Any, server: Server) -> None:
    first = start_thread(server.url, "Alpha question about 15 * 23")
    second = start_thread(server.url, "Beta question about 15 * 23")
    open_page(page, server.url)
    page.click(f"#thread-list button[data-thread-id='{first}']")
    page.locator(".msg.user .text", has_text="Alpha question").wait_for()
    assert page.locator(".msg.user").count() == 1
    assert page.locator(".msg.assistant .text").inner_text() == stored_answers(server.url, first)[0]
    expect(page.locator("#thread-title")).to_have_text("Alpha question about 15 * 23")
    page.click(f"#thread-list button[data-thread-id='{second}']")
    page.locator(".msg.user .text", has_text="Beta question").wait_for()
    assert page.locator(".msg.user .text", has_text="Alpha question").count() == 0
    # a follow-up continues the open thread
    send(page, "And again?")
    page.locator(".msg.assistant details.trace").wait_for()
    detail = httpx.get(f"{server.url}/api/v1/threads/{second}").json()
    assert [m["content"] for m in detail["messages"] if m["role"] == "user"] == [
        "Beta question about 15 * 23",
        "And again?",
    ]
    screenshot(page, "webui-threads")
    # rename
    page.click("#rename-button")
    page.fill("#rename-input", "Renamed beta")
    page.click("#rename-form button[type=submit]")
    page.locator(f"#thread-list button[data-thread-id='{second}']", has_text="Renamed beta").wait_for()
    expect(page.locator("#thread-title")).to_have_text("Renamed beta")
    assert httpx.get(f"{server.url}/api/v1/threads/{second}").json()["title"] == "Renamed beta"
    # delete (after a confirmation)
    page.click("#delete-button")
    assert "Renamed beta" in page.locator("#delete-dialog").inner_text()
    page.click("#delete-form button[type=submit]")
    page.locator(f"#thread-list button[data-thread-id='{second}']").wait_for(state="detached")
    expect(page.locator("#thread-title")).to_have_text("New chat")
    assert httpx.get(f"{server.url}/api/v1/threads/{second}").status_code == 404
    # a new chat starts a new thread
    page.click(f"#thread-list button[data-thread-id='{first}']")
    page.locator(".msg.user .text", has_text="Alpha question").wait_for()
    page.click("#new-thread")
    expect(page.locator(".msg")).to_have_count(0)
    expect(page.locator("#rename-button")).to_be_disabled()


def test_graph_of_each_mode_is_drawn(page: Any, server: Server) -> None:
    open_page(page, server.url)
    page.click("#graph-button")
    view = page.locator("#graph-view svg")
    view.wait_for()
    nodes = page.locator("#graph-view g.node")
    ids = {nodes.nth(i).get_attribute("data-node") for i in range(nodes.count())}
    assert {
        "__start__",
        "coordinator",
        "control_tools",
        "math_agent",
        "math_tools",
        "synthesizer",
        "__end__",
    } <= ids
    assert page.locator("#graph-view path.edge").count() >= len(ids) - 1
    assert page.locator("#graph-view path.edge.conditional").count() >= 1
    assert "coordinator" in page.locator("#graph-mermaid").text_content()
    screenshot(page, "webui-graph")
    page.select_option("#mode-select", "supervisor")
    page.locator("#graph-view g.node[data-node=supervisor]").wait_for()
    expect(page.locator("#graph-title")).to_have_text("Graph of the supervisor mode")
    page.click("#graph-close")
    # the chosen mode (and tone) go with the next message; the choice is kept for the next visit
    # (the request is answered here, not by the server: its script is written for the coordinator)
    page.select_option("#tone-select", "concise")
    bodies: list[Any] = []

    def answer(route: Any) -> None:
        bodies.append(route.request.post_data_json)
        final = {"type": "final", "response": "ok", "thread_id": "t-sup", "trace": {"mode": "supervisor"}}
        route.fulfill(
            status=200, content_type="text/event-stream", body=f"event: final\ndata: {json.dumps(final)}\n\n"
        )

    page.route("**/api/v1/chat/stream", answer)
    send(page, "In supervisor mode?")
    finished_answer(page)
    assert bodies == [{"message": "In supervisor mode?", "tone": "concise", "mode": "supervisor"}]
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    assert page.locator("#mode-select").input_value() == "supervisor"
    assert page.locator("#tone-select").input_value() == "concise"


def test_single_mode_asks_for_an_agent(page: Any, server: Server) -> None:
    open_page(page, server.url)
    picker = page.locator("#agent-picker")
    expect(picker).to_be_hidden()
    page.select_option("#mode-select", "single")
    expect(picker).to_be_visible()
    assert page.locator("#agent-select option").all_inner_texts() == ["default", "math"]
    page.select_option("#agent-select", "math")
    bodies: list[Any] = []

    def answer(route: Any) -> None:  # answered here: the server's script is written for the coordinator
        bodies.append(route.request.post_data_json)
        final = {"type": "final", "response": "ok", "thread_id": "t-single", "trace": {"mode": "single"}}
        route.fulfill(
            status=200, content_type="text/event-stream", body=f"event: final\ndata: {json.dumps(final)}\n\n"
        )

    page.route("**/api/v1/chat/stream", answer)
    send(page, "Just the math agent")
    finished_answer(page)
    assert bodies == [
        {"message": "Just the math agent", "mode": "single", "agent": "math"}  # tone "auto": none sent
    ]
    page.select_option("#mode-select", "coordinator")
    expect(picker).to_be_hidden()


def test_thread_busy_shows_409(page: Any, browser: Any, server: Server) -> None:
    thread = start_thread(server.url, "Busy thread, 15 * 23")
    open_page(page, server.url)
    page.click(f"#thread-list button[data-thread-id='{thread}']")
    page.locator(".msg.user").wait_for()
    other = browser.new_context().new_page()
    other.goto(f"{server.url}/#thread={thread}")  # opened before this page's turn starts
    other.wait_for_selector("body[data-ready=true]")
    other.locator(".msg.user .text", has_text="Busy thread").wait_for()
    GATE.clear()
    try:
        send(page, "Hold this thread")
        page.locator(".msg.assistant.streaming .text", has_text="345,").wait_for()
        send(other, "Me too")
        other.locator("#banner", has_text="busy").wait_for()
        assert other.locator("#message-input").input_value() == "Me too"
        # the other tab now shows the question it did not see, its answer being written
        other.locator(".msg.user .text", has_text="Hold this thread").wait_for()
        other.locator(".msg.assistant.waiting").wait_for()
        screenshot(other, "webui-busy")
        GATE.set()
        expect(other.locator(".msg.assistant.waiting")).to_have_count(0)
        assert (
            other.locator(".msg.assistant .text").last.inner_text() == stored_answers(server.url, thread)[-1]
        )
    finally:
        GATE.set()
        other.context.close()
    page.locator(".msg.assistant:not(.streaming) details.trace").last.wait_for()


def test_switching_threads_while_an_answer_streams_keeps_it(page: Any) -> None:
    """Opening another thread mid-answer, then the streaming one again, showed its question alone (the
    answer kept streaming into a detached bubble, lost until a reload); the new thread was not listed either."""
    with running(math_app()) as srv:
        other = start_thread(srv.url, "Other thread: 15 * 23?")
        open_page(page, srv.url)
        GATE.clear()
        try:
            send(page, "Streaming meanwhile: 15 * 23?")
            page.locator(".msg.assistant.streaming .text", has_text="345,").wait_for()
            live = page.locator("#thread-list button", has_text="Streaming meanwhile")
            live.wait_for()  # listed at once, so it can be opened again
            page.click(f"#thread-list button[data-thread-id='{other}']")
            page.locator(".msg.user .text", has_text="Other thread").wait_for()
            expect(page.locator(".msg.assistant.streaming")).to_have_count(0)
            live.click()
            page.locator(".msg.assistant.streaming .text", has_text="345,").wait_for()
            expect(page.locator(".msg.user")).to_have_count(1)
        finally:
            GATE.set()
        answer = finished_answer(page)
        assert answer.locator(".text").inner_text() == stored_answers(srv.url, current_thread(page))[-1]
        assert page.locator(".msg.user .text").all_inner_texts() == ["Streaming meanwhile: 15 * 23?"]


def test_reloading_while_an_answer_streams_shows_it_when_done(page: Any) -> None:
    """A reload mid-answer showed the question alone, for good (until another reload), with nothing saying
    the turn was still running on the server."""
    with running(math_app()) as srv:
        open_page(page, srv.url)
        GATE.clear()
        try:
            send(page, "Reload me: 15 * 23?")
            page.locator(".msg.assistant.streaming .text", has_text="345,").wait_for()
            thread = current_thread(page)
            page.reload()
            page.wait_for_selector("body[data-ready=true]")
            waiting = page.locator(".msg.assistant.waiting")
            waiting.wait_for()
            assert "Still answering on the server" in waiting.inner_text()
            assert page.locator(".msg.user .text").all_inner_texts() == ["Reload me: 15 * 23?"]
        finally:
            GATE.set()
        answer = page.locator(".msg.assistant:not(.waiting)")
        answer.wait_for()
        expect(waiting).to_have_count(0)
        assert answer.locator(".text").inner_text() == stored_answers(srv.url, thread)[-1]
        assert current_thread(page) == thread


def test_a_resume_in_another_thread_does_not_end_the_streaming_turn(page: Any) -> None:
    """Approving a paused thread's call while another thread's answer streamed: the resume's end made the
    page idle (Send enabled) although that answer was still streaming."""
    with running(math_app()) as srv:
        paused = start_thread(srv.url, "Paused elsewhere: 15 * 23?")
        pending = {"id": "call_1", "agent": "math", "tool": "calculate", "arguments": {"expression": "1 + 1"}}
        page.route(
            f"**/api/v1/threads/{paused}/approvals",
            lambda route: route.fulfill(json={"interrupted": True, "approvals": [pending]}),
        )
        final = {"type": "final", "response": "2", "thread_id": paused, "trace": {"mode": "coordinator"}}
        page.route(
            f"**/api/v1/threads/{paused}/resume",
            lambda route: route.fulfill(
                status=200,
                content_type="text/event-stream",
                body=f"event: final\ndata: {json.dumps(final)}\n\n",
            ),
        )
        open_page(page, srv.url)
        GATE.clear()
        try:
            send(page, "Streaming on: 15 * 23?")
            page.locator(".msg.assistant.streaming .text", has_text="345,").wait_for()
            page.click(f"#thread-list button[data-thread-id='{paused}']")
            page.locator(".approvals").get_by_role("button", name="Approve").click()
            page.locator(".msg.assistant:not(.streaming) details.trace").wait_for()  # the resumed answer
            expect(page.locator("#send-button")).to_be_disabled()
        finally:
            GATE.set()
        expect(page.locator("#send-button")).to_be_enabled()


LONG_ANSWER = (
    " ".join(f"Line {i}.\n" for i in range(60))
    + f"{GATE_WORD} "
    + " ".join(f"More {i}.\n" for i in range(60))
)


def test_scrolling_up_while_a_long_answer_streams_stays_put(page: Any) -> None:
    """Every streamed token scrolled the conversation to its end: the start of a long answer could not be
    read while the rest arrived. It follows the end only while the user is there."""
    model = GatedModel.from_items([FINALIZE, {"content": LONG_ANSWER}], loop=True)
    app = create_app(settings(builtin_plugins=["math"]), engine_kwargs={"model": model})
    with running(app) as srv:
        open_page(page, srv.url)
        box = page.locator("#messages")
        at_end = "el => el.scrollHeight - el.scrollTop - el.clientHeight < 40"
        GATE.clear()
        try:
            send(page, "A long one, please")
            page.locator(".msg.assistant.streaming .text", has_text="Line 58.").wait_for()
            assert box.evaluate(at_end)  # followed the answer so far
            box.evaluate("el => { el.scrollTop = 0; }")
            page.wait_for_function("() => !state.followEnd")
        finally:
            GATE.set()
        finished_answer(page)
        assert box.evaluate("el => el.scrollTop") == 0  # still where the reader is
        box.evaluate("el => { el.scrollTop = el.scrollHeight; }")
        page.wait_for_function("() => state.followEnd")
        send(page, "Again")  # a message sent goes to the end and follows its answer
        expect(page.locator(".msg.assistant details.trace")).to_have_count(2)
        assert box.evaluate(at_end)


def test_a_malformed_thread_link_still_loads_the_page(page: Any, server: Server) -> None:
    """``#thread=%E0%A4%A`` made decodeURIComponent throw before anything loaded: empty pickers, no threads."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{server.url}/#thread=%E0%A4%A")
    page.wait_for_selector("body[data-ready=true]")
    assert page.locator("#tone-select option").count() > 0
    assert not errors, errors


def test_phone_width_layout(browser: Any, server: Server) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 780}, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        thread = start_thread(server.url, "From a phone")
        open_page(page, server.url)
        assert page.locator("#menu-button").is_visible()
        assert not page.locator("#sidebar").evaluate("(e) => e.getBoundingClientRect().right > 0")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390
        page.click("#menu-button")
        assert page.locator("#menu-button").get_attribute("aria-expanded") == "true"
        page.wait_for_function("() => document.getElementById('sidebar').getBoundingClientRect().left >= 0")
        page.locator(f"#thread-list button[data-thread-id='{thread}']").click()
        page.locator(".msg.user .text", has_text="From a phone").wait_for()
        assert page.locator("#menu-button").get_attribute("aria-expanded") == "false"
        page.wait_for_function("() => document.getElementById('sidebar').getBoundingClientRect().right <= 0")
        assert page.locator("#message-input").is_visible() and page.locator("#send-button").is_visible()
        screenshot(page, "webui-phone")
    finally:
        context.close()


# -- long-term memories --------------------------------------------------------------------
def _remembered(url: str) -> dict[str, str]:
    """The default user's memories as the server keeps them: text by id."""
    data = httpx.get(f"{url}/api/v1/memories", timeout=30).json()
    return {m["id"]: m["text"] for m in data["memories"]}


def test_memories_are_listed_and_forgotten(page: Any) -> None:
    with running(math_app()) as srv:
        open_page(page, srv.url)
        expect(page.locator("#memories-empty")).to_be_visible()
        expect(page.locator("#forget-all")).to_be_hidden()
        send(page, "My name is Ada and I work on compilers. What is 15 * 23?")
        finished_answer(page)
        facts = page.locator("#memory-list li").filter(has=page.locator(".kind", has_text="fact"))
        fact = facts.filter(has_text="compilers")
        fact.wait_for()  # the list refreshes after the turn
        memory_id = fact.get_attribute("data-memory-id")
        assert "compilers" in _remembered(srv.url)[memory_id]
        screenshot(page, "webui-memories")
        fact.get_by_role("button", name=re.compile("^Forget: ")).click()
        expect(page.locator(f"#memory-list li[data-memory-id='{memory_id}']")).to_have_count(0)
        assert memory_id not in _remembered(srv.url)
        assert _remembered(srv.url), "the other memories stay"
        page.click("#forget-all")
        page.locator("#forget-dialog").wait_for()
        page.click("#forget-cancel")
        assert _remembered(srv.url)
        page.click("#forget-all")
        page.locator("#forget-form button[type=submit]").click()
        expect(page.locator("#memories-empty")).to_be_visible()
        expect(page.locator("#memory-list li")).to_have_count(0)
        assert _remembered(srv.url) == {}


def test_memories_panel_says_when_memory_is_off(page: Any) -> None:
    with running(math_app(memory=False)) as srv:
        open_page(page, srv.url)
        expect(page.locator("#memories-hint")).to_have_text(re.compile("memory is off"))
        expect(page.locator("#forget-all")).to_be_hidden()
        expect(page.locator("#banner")).to_be_hidden()


# -- API keys and a server that goes away ---------------------------------------------------
def test_api_key_prompt(page: Any, browser: Any) -> None:
    with running(math_app(api_keys=["s3cret-key"])) as srv:
        open_page(page, srv.url)
        dialog = page.locator("#key-dialog")
        dialog.wait_for()
        assert "needs an API key" in dialog.inner_text()
        screenshot(page, "webui-api-key")
        page.fill("#key-input", "wrong")
        page.click("#key-save")
        page.locator("#key-reason", has_text="not accepted").wait_for()
        assert dialog.is_visible()
        # a key with a character no header can carry (a non-breaking hyphen pasted from a document) said
        # "Cannot reach the server" and retried /health forever; now the dialog says what is wrong
        page.fill("#key-input", "s3cret\u2011key")
        page.click("#key-save")
        page.locator("#key-reason", has_text="cannot contain “\u2011” (U+2011)").wait_for()
        assert dialog.is_visible() and "down" not in page.locator("#conn-status").get_attribute("class")
        page.fill("#key-input", "s3cret-key")
        page.click("#key-save")
        dialog.wait_for(state="hidden")
        page.locator("#plugin-list li[data-plugin=math]").wait_for()
        send(page, "With a key, 15 * 23?")
        answer = finished_answer(page)
        assert "345" in answer.locator(".text").inner_text()
        expect(page.locator("#banner")).to_be_hidden()


def test_a_remembered_key_that_cannot_be_sent_asks_for_another(page: Any) -> None:
    """A remembered key with a character no header can carry read as "server unreachable", retried forever."""
    with running(math_app(api_keys=["s3cret-key"])) as srv:
        page.add_init_script("localStorage.setItem('cadence.apiKey', 's3cret\u2011key')")
        open_page(page, srv.url)
        page.locator("#key-dialog").wait_for()
        assert "down" not in page.locator("#conn-status").get_attribute("class")
        page.fill("#key-input", "s3cret-key")
        page.click("#key-save")
        page.locator("#plugin-list li[data-plugin=math]").wait_for()
        expect(page.locator("#banner")).to_be_hidden()


def test_answer_survives_a_slow_reload_after_the_key(page: Any) -> None:
    """A message sent while the page still loads after a key was entered keeps its answer on screen.

    The reload used to reopen "the current thread" once it was done, which by then was the thread of
    the turn just sent: its streaming answer was cleared away. Here the reload's modes request is held
    until the answer is in.
    """
    with running(math_app(api_keys=["s3cret-key"])) as srv:
        open_page(page, srv.url)
        page.locator("#key-dialog").wait_for()
        held: list[Any] = []
        page.route("**/api/v1/modes", lambda route: held.append(route))
        page.fill("#key-input", "s3cret-key")
        page.click("#key-save")
        page.locator("#plugin-list li[data-plugin=math]").wait_for()
        send(page, "While it loads, 15 * 23?")
        answer = finished_answer(page)
        assert held, "the reload's modes request was not held"
        reopened: list[str] = []
        page.on("request", lambda r: reopened.append(r.url) if "/api/v1/threads/" in r.url else None)
        for route in held:
            route.continue_()
        page.unroute("**/api/v1/modes")
        expect(page.locator("#mode-select option")).not_to_have_count(0)
        # a request the page makes after the reload's end: any reopening would have been sent before it
        with page.expect_response("**/api/v1/plugins*"):
            page.click("#plugins-refresh")
        assert reopened == [], "the reload reopened the thread over the answer just streamed"
        expect(page.locator(".msg.assistant details.trace")).to_have_count(1)
        assert "345" in answer.locator(".text").inner_text()
        assert page.locator(".msg.user").all_inner_texts() == ["You\nWhile it loads, 15 * 23?"]


def test_server_down_then_back(page: Any) -> None:
    srv = Server(math_app()).start()
    port = srv.port
    try:
        open_page(page, srv.url)
    finally:
        srv.stop()
    send(page, "Anyone there?")
    banner = page.locator("#banner")
    banner.locator("text=Cannot reach the Cadence server").wait_for()
    assert "down" in page.locator("#conn-status").get_attribute("class")
    assert page.locator("#message-input").input_value() == "Anyone there?"
    assert page.locator(".msg").count() == 0
    screenshot(page, "webui-server-down")
    back = Server(math_app(), port=port).start()
    try:
        page.click("#banner-action")  # "Retry now"
        banner.locator("text=Reconnected").wait_for()
        assert "down" not in page.locator("#conn-status").get_attribute("class")
        page.press("#message-input", "Enter")
        page.locator(".msg.assistant:not(.streaming) details.trace").wait_for()
    finally:
        back.stop()


# -- human in the loop: approvals inline, checkpoint history --------------------------------
@pytest.fixture(scope="module")
def approval_server(browser: Any) -> Iterator[Server]:
    """``calculate`` needs approval (CADENCE_APPROVAL_TOOLS): every math turn pauses before it runs."""
    with running(math_app(approval_tools=["calculate"])) as srv:
        yield srv


def answers_with_trace(page: Any, count: int) -> Any:
    """Wait until ``count`` answers carry a trace; the last one."""
    expect(page.locator(".msg.assistant details.trace")).to_have_count(count)
    return page.locator(".msg.assistant").last


def test_approval_approved_inline(page: Any, approval_server: Server) -> None:
    open_page(page, approval_server.url)
    send(page, "What is 15 * 23?")
    box = page.locator(".approvals")
    box.wait_for()
    text = box.inner_text()
    assert "1 call waits for your approval" in text and "math → calculate" in text
    assert '"expression": "15 * 23"' in text and "CADENCE_APPROVAL_TOOLS" in text
    screenshot(page, "webui-approval")
    # a new message meanwhile is refused with a clear reason
    send(page, "Something else")
    page.locator("#banner", has_text="waits for your approval").wait_for()
    assert page.locator("#message-input").input_value() == "Something else"
    box.get_by_role("button", name="Approve").click()
    answer = answers_with_trace(page, 2)
    expect(answer).not_to_have_class(re.compile("streaming"))
    assert "345" in answer.locator(".text").inner_text()
    answer.locator("details.trace > summary").click()
    tools = answer.locator("details.trace table").first.inner_text()
    assert "calculate" in tools and "345" in tools
    assert box.locator(".decided").inner_text() == "Approved"
    expect(box.get_by_role("button", name="Approve")).to_be_disabled()


def test_memories_are_refreshed_after_a_resumed_turn(page: Any) -> None:
    """A paused turn remembers when it ends (after the approval): the panel kept saying nothing was remembered."""
    with running(math_app(approval_tools=["calculate"])) as srv:
        open_page(page, srv.url)
        send(page, "My name is Ada and I work on compilers. What is 15 * 23?")
        page.locator(".approvals").get_by_role("button", name="Approve").click()
        answers_with_trace(page, 2)
        page.locator("#memory-list li", has_text="I work on compilers.").last.wait_for()
        expect(page.locator("#memories-empty")).to_be_hidden()


def test_paused_thread_opened_later_then_edited(page: Any, approval_server: Server) -> None:
    paused = httpx.post(
        f"{approval_server.url}/api/v1/chat", json={"message": "Paused: 15 * 23?"}, timeout=30
    )
    assert paused.json()["interrupted"] is True
    thread = paused.json()["thread_id"]
    open_page(page, approval_server.url)
    page.click(f"#thread-list button[data-thread-id='{thread}']")
    box = page.locator(".approvals")
    box.wait_for()
    box.get_by_role("button", name="Edit…").click()
    editor = box.get_by_label("Arguments for calculate")
    # not an object: said at the call (it was sent, and the refused resume left a failed answer and a banner)
    editor.fill("[1, 2]")
    box.get_by_role("button", name="Run with these arguments").click()
    expect(box.locator(".decided")).to_have_text(re.compile("must be a JSON object"))
    expect(page.locator(".msg.assistant.error")).to_have_count(0)
    expect(page.locator("#banner")).to_be_hidden()
    editor.fill('{"expression": "2 * 3"}')
    editor.press("Control+Enter")  # as the button "Run with these arguments"
    answer = answers_with_trace(page, 1)
    expect(answer).not_to_have_class(re.compile("streaming"))
    answer.locator("details.trace > summary").click()
    tools = answer.locator("details.trace table").first.inner_text()
    assert '"expression": "2 * 3"' in tools and "6" in tools
    assert (
        httpx.get(f"{approval_server.url}/api/v1/threads/{thread}/approvals").json()["interrupted"] is False
    )


def test_a_thread_paused_elsewhere_shows_its_approvals_when_a_message_is_refused(
    page: Any, approval_server: Server
) -> None:
    """A thread paused by another tab (or the API) after the page opened it: sending there was refused with
    409 approval_pending and the banner said to decide the call "above", where nothing was shown."""
    url = approval_server.url
    first = httpx.post(f"{url}/api/v1/chat", json={"message": "First: 15 * 23?"}, timeout=30).json()
    thread = first["thread_id"]
    decisions = {first["approvals"][0]["id"]: {"decision": "approve"}}
    done = httpx.post(f"{url}/api/v1/threads/{thread}/resume", json={"decisions": decisions}, timeout=30)
    assert done.status_code == 200, done.text
    open_page(page, url)
    page.click(f"#thread-list button[data-thread-id='{thread}']")
    page.locator(".msg.assistant").nth(0).wait_for()
    elsewhere = httpx.post(
        f"{url}/api/v1/chat", json={"message": "Elsewhere: 2 * 3?", "thread_id": thread}, timeout=30
    )
    assert elsewhere.json()["interrupted"] is True
    send(page, "From the page")
    page.locator("#banner", has_text="waits for your approval").wait_for()
    box = page.locator(".approvals")
    box.wait_for()
    assert '"expression": "15 * 23"' in box.inner_text()  # the scripted model's call, now pending
    page.locator(".msg.user .text", has_text="Elsewhere: 2 * 3?").wait_for()
    assert page.locator("#message-input").input_value() == "From the page"
    box.get_by_role("button", name="Approve").click()  # ends the turn (the module's model loops over it)
    answers_with_trace(page, 1)


def test_approval_rejected_with_a_reason(page: Any, approval_server: Server) -> None:
    open_page(page, approval_server.url)
    page.uncheck("#stream-toggle")  # the resume answers as JSON too
    send(page, "Reject this: 15 * 23?")
    box = page.locator(".approvals")
    box.wait_for()
    box.get_by_role("button", name="Reject…").click()
    box.get_by_label("Reason to reject calculate").fill("not today")
    box.get_by_label("Reason to reject calculate").press("Enter")  # as the button "Reject the call"
    answer = answers_with_trace(page, 2)
    answer.locator("details.trace > summary").click()
    assert "not today" in answer.locator("details.trace").inner_text()
    assert box.locator(".decided").inner_text() == "Rejected"


def test_history_and_run_again_from_a_checkpoint(page: Any) -> None:
    with running(math_app(checkpoint_durability="sync")) as srv:
        thread = start_thread(srv.url, "History: 15 * 23?")
        checkpoints = httpx.get(f"{srv.url}/api/v1/threads/{thread}/history").json()["checkpoints"]
        before = next(c for c in checkpoints if c["next"] == ["coordinator"])
        open_page(page, srv.url)
        page.click(f"#thread-list button[data-thread-id='{thread}']")
        page.locator(".msg.assistant").wait_for()
        page.click("#history-button")
        entry = page.locator(f"#history-list li[data-checkpoint-id='{before['checkpoint_id']}']")
        assert (
            "→ coordinator" in entry.inner_text()
            and "calculate" in page.locator("#history-list").inner_text()
        )
        screenshot(page, "webui-history")
        entry.get_by_role("button", name="Run again from here").click()
        answer = answers_with_trace(page, 1)
        expect(page.locator("#history-panel")).to_be_hidden()
        assert page.locator(".msg.user").count() == 1
        assert answer.locator(".text").inner_text() == stored_answers(srv.url, thread)[-1]
        answer.locator("details.trace > summary").click()
        assert re.search(r"Route\s+math", answer.locator("details.trace").inner_text())
        after = httpx.get(f"{srv.url}/api/v1/threads/{thread}/history").json()["checkpoints"]
        assert len(after) > len(checkpoints)
