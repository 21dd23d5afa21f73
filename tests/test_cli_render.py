"""``cadence chat``'s rendering of a turn's events: the streamed answer and the final text."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from cadence.cli.render import TurnView


def _render(tokens: list[str], response: str, *, stream: bool = True) -> str:
    out, err = io.StringIO(), io.StringIO()
    view = TurnView(Console(file=out, width=200), Console(file=err, width=200), live=False, stream=stream)
    for text in tokens:
        view.handle({"type": "token", "text": text})
    view.handle({"type": "final", "response": response, "trace": {}})
    view.finish()
    return out.getvalue()


@pytest.mark.parametrize(
    ("tokens", "response", "shown"),
    [
        (["12 * 12 ", "= 144."], "12 * 12 = 144.", "12 * 12 = 144.\n"),  # streamed as it is
        # only added to (a cited answer's sources): the addition, not the answer twice
        (
            ["See the guide."],
            "See the guide.\n\nSources: [guide.md]",
            "See the guide.\n\nSources: [guide.md]\n",
        ),
        # replaced (the final-answer check rewrote it): the draft, then the final text
        (["It is 12."], "12 * 12 = 144.", "It is 12.\n12 * 12 = 144.\n"),
        ([], "12 * 12 = 144.", "12 * 12 = 144.\n"),  # nothing streamed
    ],
)
def test_the_final_text_is_shown_once(tokens: list[str], response: str, shown: str) -> None:
    assert _render(tokens, response) == shown


def test_piped_output_gets_the_final_answer_alone() -> None:
    """Not a terminal (``cadence chat ... | tool``): no streamed draft before a rewritten answer."""
    assert _render(["It is 12."], "12 * 12 = 144.", stream=False) == "12 * 12 = 144.\n"
    assert _render(["12 * 12 ", "= 144."], "12 * 12 = 144.", stream=False) == "12 * 12 = 144.\n"


def test_a_paused_turn_is_announced_once() -> None:
    """The pause's text listed the pending call, then ``cadence chat`` asked about the same call again."""
    out, err = io.StringIO(), io.StringIO()
    view = TurnView(Console(file=out, width=200), Console(file=err, width=200), live=False, stream=False)
    approval = {"id": "c1", "agent": "math", "tool": "calculate", "arguments": {"expression": "2+2"}}
    pause = "Waiting for your approval before running:\n- math.calculate(expression='2+2')"
    view.handle(
        {"type": "final", "response": pause, "interrupted": True, "approvals": [approval], "trace": {}}
    )
    view.finish()
    assert out.getvalue() == "" and "route:" in err.getvalue()


def test_the_route_of_a_paused_turn_says_it_waits() -> None:
    """A turn paused for approval said ``route: math → synthesizer``: no answer was written yet."""
    from cadence.cli.render import route_line

    trace = {"routing_history": ["math"], "interrupted": True, "mode": "coordinator", "duration_ms": 6}
    assert route_line(trace) == "route: math → paused for approval · 0 tools · 6ms"
    trace = {"routing_history": [], "interrupted": True, "mode": "single", "duration_ms": 6}
    assert route_line(trace).startswith("route: paused for approval ·")


def test_the_route_of_a_planner_turn_names_its_delegate() -> None:
    """The planner's turns all read ``route: root``: the researcher or validator that ran the tools was not said."""
    from cadence.cli.render import route_line

    trace = {
        "mode": "planner",
        "route": "researcher",
        "answered_by": "root",
        "tools_used": [{}],
        "duration_ms": 9,
    }
    assert route_line(trace) == "route: researcher → root · 1 tool · 9ms"
    assert route_line({**trace, "route": "end", "tools_used": []}) == "route: root · 0 tools · 9ms"


def test_every_modes_nodes_have_a_status_line() -> None:
    """The supervisor, planner and single modes' own nodes showed as bare names ('researcher…')."""
    from cadence.cli.render import node_label
    from cadence.conventions import GraphNodeNames as N

    for node in (N.SUPERVISOR, N.FORWARD, N.PLANNER, N.RESEARCHER, N.VALIDATOR, N.ROOT):
        assert node_label(node) != f"{node}…" and node_label(node).endswith("…")


def test_an_answer_stopped_mid_stream_ends_its_line() -> None:
    """Ctrl-C while the answer streamed left the cursor after its last word: 'interrupted; the thread is
    kept' was printed on the same line as the answer."""
    out, err = io.StringIO(), io.StringIO()
    view = TurnView(Console(file=out, width=200), Console(file=err, width=200), live=False, stream=True)
    with pytest.raises(KeyboardInterrupt), view:
        view.handle({"type": "token", "node": "synthesizer", "text": "15 * 23"})
        raise KeyboardInterrupt
    assert out.getvalue() == "15 * 23\n"
