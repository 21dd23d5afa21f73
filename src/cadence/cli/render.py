"""Terminal rendering of a turn: a live status line, the streamed answer and the route taken."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.status import Status
from rich.text import Text

from cadence.cli.logs import clip
from cadence.conventions import GraphNodeNames, plugin_of_node

_LABELS = {
    GraphNodeNames.SUPERVISOR: "supervisor is choosing the next step…",
    GraphNodeNames.FORWARD: "passing the agent's answer on…",
    GraphNodeNames.PLANNER: "planner is planning the turn…",
    GraphNodeNames.RESEARCHER: "researcher is gathering results…",
    GraphNodeNames.VALIDATOR: "validator is checking the results…",
    GraphNodeNames.ROOT: "root is writing the answer…",
}


def node_label(node: str) -> str:
    """What the status line says while ``node`` is working."""
    if node == GraphNodeNames.COORDINATOR:
        return "coordinator is choosing the next step…"
    if node == GraphNodeNames.SYNTHESIZER:
        return "synthesizer is writing the answer…"
    if node in _LABELS:
        return _LABELS[node]
    if node == GraphNodeNames.SUSPEND:
        return "wrapping up: a limit was reached…"
    if node == GraphNodeNames.CONTROL_TOOLS:
        return "routing…"
    plugin_node = plugin_of_node(node)
    if plugin_node is not None:
        plugin, kind = plugin_node
        return f"{plugin} agent is working…" if kind == "agent" else f"{plugin} agent is running tools…"
    return f"{node}…"


def _args_preview(args: Any, limit: int = 60) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in args.items()) if isinstance(args, dict) else str(args)
    return clip(text, limit)


def _seconds(duration_ms: Any) -> str:
    try:
        value = float(duration_ms) / 1000
    except (TypeError, ValueError):
        return "?s"
    if value < 1:
        return f"{value * 1000:.0f}ms"
    return f"{value:.1f}s" if value < 60 else f"{int(value // 60)}m{int(value % 60):02d}s"


def route_line(trace: dict[str, Any]) -> str:
    """One line summarising the route: ``route: math → synthesizer · 1 tool · 2.1s``."""
    hops = [str(h) for h in trace.get("routing_history") or []]
    if trace.get("mode") == "planner" and trace.get("route") not in (None, "", "end"):
        hops.insert(0, str(trace["route"]))  # the planner's delegate: researcher or validator
    answered_by = trace.get("answered_by")
    if trace.get("interrupted"):
        hops.append("paused for approval")  # nothing answered yet
    elif trace.get("suspended"):
        hops.append("suspend")
    elif trace.get("mode") == "single":
        pass  # the agent's own answer is the final answer
    elif answered_by:  # the final-answer node: synthesizer, forward (an agent's answer passed on), root
        hops.append(str(answered_by))
    else:
        hops.append("synthesizer")
    tools = len(trace.get("tools_used") or [])
    parts = ["route: " + " → ".join(hops), f"{tools} tool" + ("" if tools == 1 else "s")]
    usage = trace.get("usage") or {}
    total = usage.get("total_tokens") if isinstance(usage, dict) else None
    if total:
        parts.append(f"{total} tokens")
    parts.append(_seconds(trace.get("duration_ms")))
    if trace.get("suspended") and trace.get("suspend_reason"):
        parts.append(f"suspended: {trace['suspend_reason']}")
    return " · ".join(parts)


class TurnView:
    """Consumes ``Cadence.astream`` events and renders them.

    The status line and tool progress go to ``err`` (only when it is a terminal);
    the answer goes to ``out``, streamed token by token when the model streams and ``out`` is a
    terminal (someone reads along); piped, ``out`` gets the final answer alone, once.
    """

    def __init__(
        self, out: Console, err: Console, *, live: bool | None = None, stream: bool | None = None
    ) -> None:
        self.out = out
        self.err = err
        self.live = err.is_terminal if live is None else live
        self.stream = out.is_terminal if stream is None else stream
        self.status: Status | None = None
        self.streamed: list[str] = []
        self.final: dict[str, Any] | None = None

    def __enter__(self) -> TurnView:
        if self.live:
            self.status = self.err.status(node_label("coordinator"), spinner="dots")
            self.status.start()
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self._stop_status()
        if exc_type is not None and self.streamed:  # stopped mid-answer (Ctrl-C): end its line
            self.out.print()

    def _stop_status(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None

    def _note(self, text: str, style: str = "dim") -> None:
        if self.live and not self.streamed:
            self.err.print(Text(text, style=style))

    def handle(self, event: dict[str, Any]) -> None:
        """Render one event."""
        kind = event.get("type")
        if kind == "node":
            if self.status is not None:
                self.status.update(node_label(str(event.get("node"))))
        elif kind == "agent_start":
            self._note(f"→ {event.get('agent')}")
        elif kind == "tool_start":
            if self.status is not None:
                self.status.update(
                    f"{event.get('agent')}: {event.get('name')}({_args_preview(event.get('args'))})…"
                )
        elif kind == "tool_end":
            mark, style = ("✗", "red") if event.get("error") else ("✓", "dim")
            result = clip(str(event.get("result") or "").replace("\n", " "), 80)
            self._note(f"  {mark} {event.get('name')} → {result}", style)
        elif kind == "suspend":
            reason = event.get("reason") or {}
            code = reason.get("code") if isinstance(reason, dict) else reason
            self._note(f"suspending: {code}", "yellow")
        elif kind == "token":
            if not self.stream or plugin_of_node(str(event.get("node") or "")) is not None:
                return  # an agent's own answer (the supervisor mode streams its agents) is not the turn's
            self._stop_status()
            text = str(event.get("text") or "")
            self.streamed.append(text)
            self.out.print(text, end="", markup=False, highlight=False, soft_wrap=True)
            self.out.file.flush()
        elif kind == "progress":
            if self.status is not None:
                done, total = event.get("done"), event.get("total")
                count = f" {done}/{total}" if done is not None and total is not None else ""
                self.status.update(f"{event.get('tool') or 'working'}{count}…")
        elif kind == "final":
            self.final = event

    def finish(self) -> None:
        """Print the answer (unless it was streamed) and the route line.

        A turn paused for approval prints no answer: its text only lists the pending calls, which
        ``cadence chat`` then shows one by one as it asks for each decision.
        """
        self._stop_status()
        if self.final is None:
            return
        paused = bool(self.final.get("interrupted") and self.final.get("approvals"))
        response = "" if paused else str(self.final.get("response") or "")
        streamed = "".join(self.streamed)
        draft, final = streamed.strip(), response.strip()
        if streamed and draft and final.startswith(draft) and final != draft:
            # only added to (the sources line of a cited answer): print what was added
            self.out.print(final[len(draft) :], markup=False, highlight=False, soft_wrap=True)
        elif streamed:
            self.out.print(markup=False)
            if draft != final and final:
                # The streamed draft was replaced (retry or post-processing): show the final text.
                self.err.print(Text("corrected answer:", style="dim"))
                self.out.print(response, markup=False, highlight=False, soft_wrap=True)
        elif response:
            self.out.print(response, markup=False, highlight=False, soft_wrap=True)
        self.err.print(Text(route_line(self.final.get("trace") or {}), style="dim"))
