"""Inline approvals in the terminal: a paused turn asks, the answer decides, the same turn continues.

When a turn pauses (a tool that needs approval), ``cadence chat`` shows each pending call and
reads one reply per call from stdin:

- ``a`` / ``approve`` / ``y`` / ``yes``: run it;
- ``r [reason]`` / ``reject [reason]`` / ``n`` / ``no``: do not run it; the agent reads the reason;
- ``e {json}`` / ``edit {json}``: run it with these arguments (a JSON object).

End of input (Ctrl-D) leaves the turn paused: ``cadence chat --thread <id>`` asks again. With
``--json`` the pause is printed as a JSON object (``interrupted``, ``approvals``) and the next
stdin line is the decision (a word as above, or a JSON decisions object).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import typer
from rich.console import Console
from rich.text import Text

from cadence.cli.common import dump_json, err_console, out_console, print_error, stdin_lines
from cadence.cli.render import TurnView
from cadence.errors import ValidationError
from cadence.orchestration.approval import check_edits, check_storable, parse_decisions

APPROVE_REPLIES = frozenset({"a", "approve", "y", "yes"})
REJECT_REPLIES = frozenset({"r", "reject", "n", "no"})
EDIT_REPLIES = frozenset({"e", "edit"})
PROMPT = "approve? [a]pprove / [r]eject [reason] / [e]dit {json arguments} › "


def parse_reply(text: str) -> Any:
    """One reply as a decision (``"approve"``, a reject or an edit object); ValueError says what is wrong."""
    head, _, rest = text.strip().partition(" ")
    word = head.lower()
    if word in APPROVE_REPLIES and not rest.strip():
        return "approve"
    if word in REJECT_REPLIES:
        return {"decision": "reject", "message": rest.strip() or "The user rejected this call."}
    if word in EDIT_REPLIES:
        try:
            arguments = json.loads(rest)
        except json.JSONDecodeError as exc:
            raise ValueError(f"the new arguments are not valid JSON ({exc.msg})") from None
        if not isinstance(arguments, dict):
            raise ValueError('the new arguments must be a JSON object, e.g. e {"expression": "2 + 3"}')
        return {"decision": "edit", "arguments": arguments}
    raise ValueError("answer a (approve), r [reason] (reject) or e {json} (edit)")


def decision_problem(
    decisions: Any, approvals: list[dict[str, Any]], bundles: Mapping[str, Any] | None = None
) -> str | None:
    """Why ``decisions`` cannot decide ``approvals`` (an unknown or missing call, a malformed decision,
    arguments the thread cannot store such as an integer beyond 64 bits, edit arguments that do not fit
    the tool of ``bundles``), or None: asked again rather than failing the resumed turn."""
    try:
        chosen = parse_decisions(decisions, approvals)
        check_storable(chosen)
        check_edits(chosen, approvals, bundles or {})
    except ValidationError as exc:
        return exc.message
    return None


def describe(approval: dict[str, Any]) -> str:
    """One pending call in a line: ``agent.tool(arguments) — reason``."""
    args = json.dumps(approval.get("arguments") or {}, ensure_ascii=False)
    return f"{approval.get('agent')}.{approval.get('tool')}({args}) — {approval.get('reason')}"


async def _read_line(prompt: str, console: Console | None) -> str | None:
    # the shared reader: a reply Ctrl-C gave up on is not lost to the next prompt
    return await stdin_lines.aread(Text(prompt, style="bold yellow") if console else "", console)


async def ask_decisions(
    approvals: list[dict[str, Any]],
    *,
    json_output: bool = False,
    err: Console | None = None,
    bundles: Mapping[str, Any] | None = None,
) -> Any:
    """The human's decisions about ``approvals`` (``{call_id: decision}``), or None at end of input.

    Plain mode asks per call on the terminal; JSON mode reads one line for all of them (a word as
    in :func:`parse_reply`, or a JSON object ``{call_id: decision}``). ``bundles``: the engine's
    plugins, to check edit arguments against their tools.
    """
    if json_output:
        line = await _read_line("", None)
        if line is None or not line.strip():
            return None
        text = line.strip()
        if text.startswith("{"):
            try:
                decisions = json.loads(text)
            except json.JSONDecodeError as exc:
                print_error(f"The decisions are not valid JSON ({exc.msg}).")
                return None
            problem = decision_problem(decisions, approvals, bundles)
            if problem is not None:
                print_error(problem)
                return None
            return decisions
        try:
            decision = parse_reply(text)
        except ValueError as exc:
            print_error(str(exc))
            return None
        if decision == "approve" or decision.get("decision") == "reject":
            return decision  # one decision for every pending call
        if len(approvals) == 1:  # an edit names its call's new arguments: the one pending call
            problem = decision_problem({str(approvals[0]["id"]): decision}, approvals, bundles)
            if problem is not None:
                print_error(problem)
                return None
            return {str(approvals[0]["id"]): decision}
        print_error(
            "An edit is for one call and several wait; send a JSON object {call_id: decision} "
            '(e.g. {"<id>": {"decision": "edit", "arguments": {...}}}).'
        )
        return None
    console = err or err_console()
    decisions: dict[str, Any] = {}
    for approval in approvals:
        console.print(Text(f"⏸ approval needed: {describe(approval)}", style="yellow"))
        while True:
            line = await _read_line(PROMPT, console)
            if line is None:
                return None
            try:
                decision = parse_reply(line)
            except ValueError as exc:
                print_error(str(exc))
                continue
            problem = decision_problem({str(approval["id"]): decision}, [approval], bundles)
            if problem is None:
                decisions[str(approval["id"])] = decision
                break
            print_error(problem)  # asked again
    return decisions


def _bundles(engine: Any) -> Mapping[str, Any]:
    return getattr(getattr(engine, "plugin_manager", None), "bundles", None) or {}


async def render(events: AsyncIterator[dict[str, Any]], *, json_output: bool) -> dict[str, Any]:
    """Show a run's events (live view, or one JSON object) and return its final event."""
    final: dict[str, Any] = {}
    if json_output:
        async for event in events:
            if event.get("type") == "final":
                final = event
        from cadence.orchestration.engine import TurnResult

        typer.echo(dump_json(TurnResult.from_final(final).to_dict()))
        return final
    view = TurnView(out_console(), err_console())
    with view:
        async for event in events:
            view.handle(event)
    view.finish()
    return view.final or {}


async def run_with_approvals(
    engine: Any,
    start: Callable[[], AsyncIterator[dict[str, Any]]],
    *,
    user: str | None,
    json_output: bool,
) -> dict[str, Any] | None:
    """Run ``start()`` and, while the turn pauses, ask the human and continue it; returns the
    last run's error (None when it succeeded or stays paused)."""
    final = await render(start(), json_output=json_output)
    while final.get("interrupted"):
        thread = final.get("thread_id") or ""
        decisions = await ask_decisions(
            list(final.get("approvals") or []), json_output=json_output, bundles=_bundles(engine)
        )
        if decisions is None:
            typer.echo(f"the turn stays paused; decide later with: cadence chat --thread {thread}", err=True)
            return None
        events = engine.resume_stream(decisions, thread_id=thread, user_id=user, tokens=not json_output)
        final = await render(events, json_output=json_output)
    return final.get("error")


async def decide_pending(
    engine: Any, *, thread: str, user: str | None, json_output: bool
) -> tuple[bool, dict[str, Any] | None]:
    """If ``thread`` waits for approvals, ask and continue its turn first.

    Returns ``(still_paused, error)``.
    """
    pending = await engine.pending(thread_id=thread, user_id=user)
    if not pending:
        return False, None
    if not json_output:
        err_console().print(Text(f"thread {thread} is paused, waiting for approval", style="yellow"))
    final: dict[str, Any] = {"interrupted": True, "approvals": pending, "thread_id": thread}
    while final.get("interrupted"):
        decisions = await ask_decisions(
            list(final.get("approvals") or []), json_output=json_output, bundles=_bundles(engine)
        )
        if decisions is None:
            return True, None
        events = engine.resume_stream(decisions, thread_id=thread, user_id=user, tokens=not json_output)
        final = await render(events, json_output=json_output)
    return False, final.get("error")


async def run_turn(
    engine: Any,
    message: str,
    *,
    thread: str | None,
    user: str | None,
    tone: str | None,
    json_output: bool,
) -> dict[str, Any] | None:
    """One ``cadence chat`` turn with inline approvals; a paused thread is decided first."""
    if thread is not None:
        paused, error = await decide_pending(engine, thread=thread, user=user, json_output=json_output)
        if paused:
            return {
                "code": "approval_pending",
                "message": f"Thread {thread!r} still waits for approval; answer a, r or e to decide it.",
            }
        if error:
            return error

    def start() -> AsyncIterator[dict[str, Any]]:
        return engine.astream(message, thread_id=thread, user_id=user, tone=tone, tokens=not json_output)

    return await run_with_approvals(engine, start, user=user, json_output=json_output)


__all__ = [
    "ask_decisions",
    "decide_pending",
    "describe",
    "parse_reply",
    "render",
    "run_turn",
    "run_with_approvals",
]
