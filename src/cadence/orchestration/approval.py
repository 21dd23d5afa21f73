"""Human approval of tool calls inside a turn: the pause, the decisions, the continuation.

The approval step runs at the very start of a plugin's tools step, before any tool runs
(:func:`review_tool_calls`). When some of the agent's pending calls need approval (see
:mod:`cadence.sdk.approval` and ``CADENCE_APPROVAL_TOOLS``), it calls LangGraph's
``interrupt()`` once with *all* of them: the turn pauses, the checkpoint keeps the pending
approvals (so they survive a restart), and the engine reports them. The turn continues with
``Command(resume={call_id: decision})``; the tools step runs again from its start,
``interrupt()`` now returns the decisions, and:

- ``approve``: the call runs as the agent made it;
- ``edit``: the call runs with the human's arguments (the agent's message is rewritten to
  show the arguments that ran);
- ``reject``: the call does not run; its tool result is the human's message (an error result),
  which the agent sees and can react to.

Nothing before the ``interrupt()`` has side effects, so running the step again is safe.

Other modes' tool steps call the same function (see :func:`review_tool_calls`)::

    outcome = review_tool_calls(state, agent=bundle.name, rules=approval_rules(bundle, settings),
                                runtime=runtime)           # may pause the turn here
    results = await tool_node.ainvoke(outcome.run_state, config) if outcome.to_run else ...
    messages = outcome.messages(results)                  # edited AI message + results in call order
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, TypedDict

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.types import interrupt

from cadence.conventions import is_control_tool
from cadence.errors import ValidationError
from cadence.sdk.approval import ApprovalPolicy, approval_declaration
from cadence.sdk.tools import UNREADABLE_ARGUMENTS_KEY
from cadence.settings import Settings

logger = logging.getLogger(__name__)

APPROVAL_INTERRUPT = "cadence_approval"
"""The ``type`` of the interrupt value of an approval pause."""
DEFAULT_REASON = "this tool changes something outside the conversation"
"""The reason shown when a tool declares approval without one."""
REJECTION_KEY = "cadence_rejected"
"""``response_metadata`` flag of a tool result written for a rejected call."""
REJECTION_TEXT = "Not run: a reviewer rejected this call. Their message: "
"""The start of a rejected call's tool result; the reviewer's message follows."""
EDITED_KEY = "cadence_edited_calls"
"""``response_metadata`` of an agent message whose calls a human edited: the ids of those calls."""
MAX_REJECTION_CHARS = 2000
"""A rejection message is clipped to this many characters."""
DECISION_FIELDS = frozenset({"decision", "message", "arguments"})
"""The fields of a decision object."""


class Decision(StrEnum):
    """What a human decided about one pending call."""

    APPROVE = "approve"
    REJECT = "reject"
    EDIT = "edit"


class PendingApproval(TypedDict):
    """One call waiting for a human (the API's, the CLI's and the stream's shape)."""

    id: str
    """The tool call's id (decide by it)."""
    thread: str | None
    """The conversation (the user's thread id)."""
    agent: str
    """The plugin whose agent made the call."""
    tool: str
    """The tool's name."""
    arguments: dict[str, Any]
    """The call's arguments as the agent made them."""
    reason: str
    """Why the call needs approval."""


class InterruptEvent(TypedDict):
    """Stream event: the turn paused; these calls wait for a human (the ``final`` event follows)."""

    type: Literal["interrupt"]
    approvals: list[PendingApproval]


@dataclass(frozen=True)
class ApprovalRule:
    """How one tool asks for approval: always, by a policy over its arguments, with a reason."""

    always: bool = False
    policy: ApprovalPolicy | None = None
    reason: str | None = None

    def check(self, arguments: Mapping[str, Any]) -> str | None:
        """The reason this call needs approval, or None to run it without asking.

        A policy that raises asks for approval (fail closed), saying so.
        """
        if self.always:
            return self.reason or DEFAULT_REASON
        if self.policy is None:
            return None
        try:
            verdict = self.policy(arguments)
        except Exception as exc:  # a broken policy must not let the call through
            logger.warning("approval policy failed; asking a human", extra={"error": str(exc)})
            return f"the tool's approval policy failed ({type(exc).__name__}: {exc}); a human decides"
        if isinstance(verdict, str) and verdict.strip():
            return verdict.strip()
        try:
            ask = bool(verdict)
        except Exception:  # a verdict without a truth value (an array): ask, as for a failing policy
            ask = True
        # any truthy verdict asks (a count, numpy's bool from ``amount > 100``), not only ``True``
        return (self.reason or DEFAULT_REASON) if ask else None


ApprovalRules = dict[str, ApprovalRule]
"""Tool name → its rule (tools without a rule run without asking)."""


def forced_tools(settings: Settings) -> frozenset[str]:
    """``CADENCE_APPROVAL_TOOLS`` as a set of names (``*`` stands for every tool)."""
    return frozenset(n.strip() for n in settings.approval_tools if n and n.strip())


def unknown_forced_tools(settings: Settings, bundles: Mapping[str, Any]) -> list[str]:
    """The ``CADENCE_APPROVAL_TOOLS`` names no loaded plugin has, logged as a warning: a misspelt name
    protects nothing, and the tool it meant runs without asking."""
    known = {tool.name for bundle in bundles.values() for tool in getattr(bundle, "tools", ())}
    unknown = sorted(n for n in forced_tools(settings) if n != "*" and n not in known)
    if unknown:
        logger.warning(
            "CADENCE_APPROVAL_TOOLS names tools no loaded plugin has; they protect nothing",
            extra={"unknown": unknown, "known": sorted(known)[:50]},
        )
    return unknown


def approval_rules(
    tools: Sequence[BaseTool], settings: Settings, *, plugin_requires: bool = False
) -> ApprovalRules:
    """The rules of a plugin's ``tools``: their declarations, the plugin's, and ``CADENCE_APPROVAL_TOOLS``.

    Control tools (``back``, routes) never need approval.
    """
    forced = forced_tools(settings)
    rules: ApprovalRules = {}
    for tool in tools:
        if is_control_tool(tool.name):
            continue
        declared, reason = approval_declaration(tool)
        if "*" in forced or tool.name in forced:
            rules[tool.name] = ApprovalRule(
                always=True, reason=reason or "the operator requires approval (CADENCE_APPROVAL_TOOLS)"
            )
        elif plugin_requires:
            rules[tool.name] = ApprovalRule(always=True, reason=reason or "the plugin requires approval")
        elif declared is True:
            rules[tool.name] = ApprovalRule(always=True, reason=reason)
        elif callable(declared):
            rules[tool.name] = ApprovalRule(policy=declared, reason=reason)
    return rules


def bundle_rules(bundle: Any, settings: Settings) -> ApprovalRules:
    """:func:`approval_rules` of a plugin bundle (its own tools, its metadata's ``requires_approval``)."""
    return approval_rules(
        bundle.tools, settings, plugin_requires=bool(getattr(bundle.metadata, "requires_approval", False))
    )


# -- decisions ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class CallDecision:
    """A human's decision about one call: approve, reject (with a message) or edit (new arguments)."""

    decision: Decision
    message: str | None = None
    """``reject``: what the agent reads as the tool's result."""
    arguments: dict[str, Any] | None = None
    """``edit``: the arguments to run the call with."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form (what ``Command(resume=...)`` carries)."""
        out: dict[str, Any] = {"decision": str(self.decision)}
        if self.message is not None:
            out["message"] = self.message
        if self.arguments is not None:
            out["arguments"] = self.arguments
        return out

    @classmethod
    def parse(cls, value: Any, *, call_id: str = "?") -> CallDecision:
        """A decision from its JSON form or a bare word (``"approve"``, ``"reject"``).

        Raises :class:`ValidationError` (``invalid_decision``) for anything else.
        """
        if isinstance(value, CallDecision):
            return value
        if isinstance(value, str):
            value = {"decision": value}
        if not isinstance(value, Mapping):
            raise ValidationError(
                f"Decision for call {call_id!r}: send an object such as "
                '{"decision": "approve"}, {"decision": "reject", "message": "..."} or '
                '{"decision": "edit", "arguments": {...}}.',
                code="invalid_decision",
            )
        raw = str(value.get("decision") or "").strip().lower()
        try:
            decision = Decision(raw)
        except ValueError:
            raise ValidationError(
                f"Decision for call {call_id!r} is {raw or 'missing'!r}; use approve, reject or edit.",
                code="invalid_decision",
            ) from None
        unknown = [str(k) for k in value if k not in DECISION_FIELDS]
        if unknown:  # a typo, or per-call decisions mixed into a decision for all: never guess
            raise ValidationError(
                f"Decision for call {call_id!r} has an unknown field {unknown[0][:60]!r}; a decision has "
                "'decision', 'message' (reject) and 'arguments' (edit). To decide calls one by one, send "
                "{call_id: decision, ...} without a top-level 'decision'.",
                code="invalid_decision",
            )
        message = value.get("message")
        arguments = value.get("arguments")
        if arguments is not None and decision is not Decision.EDIT:
            raise ValidationError(
                f"Decision {raw!r} for call {call_id!r} has 'arguments'; new arguments go with 'edit' "
                "(the call would run with its own).",
                code="invalid_decision",
            )
        if decision is Decision.EDIT and not isinstance(arguments, Mapping):
            raise ValidationError(
                f"Decision 'edit' for call {call_id!r} needs 'arguments': the call's new arguments "
                "as a JSON object.",
                code="invalid_decision",
            )
        if message is not None and not isinstance(message, str):
            raise ValidationError(
                f"Decision for call {call_id!r}: 'message' must be text.", code="invalid_decision"
            )
        return cls(
            decision=decision,
            message=(message or "").strip()[:MAX_REJECTION_CHARS] or None,
            arguments=dict(arguments) if decision is Decision.EDIT else None,  # type: ignore[arg-type]
        )


def parse_decisions(
    decisions: Mapping[str, Any] | str | None, pending: Sequence[Mapping[str, Any]]
) -> dict[str, CallDecision]:
    """The decisions for every pending call, checked.

    ``decisions``: ``{call_id: decision}`` (every pending call, no other), or one word /
    decision object for all of them at once (``"approve"``, ``{"decision": "reject", ...}``).
    Raises :class:`ValidationError` (``invalid_decision``) naming what is missing or unknown.
    """
    ids = [str(p["id"]) for p in pending]
    if decisions is None:
        raise ValidationError(
            "No decisions given; send one per pending call (" + ", ".join(ids) + ").",
            code="invalid_decision",
        )
    if isinstance(decisions, str) or (isinstance(decisions, Mapping) and "decision" in decisions):
        one = CallDecision.parse(decisions, call_id="*")
        if one.decision is Decision.EDIT and len(ids) > 1:
            raise ValidationError(
                "An edit names one call's arguments; decide each pending call by its id.",
                code="invalid_decision",
            )
        return {i: one for i in ids}
    if not isinstance(decisions, Mapping):
        raise ValidationError("Decisions must be an object {call_id: decision}.", code="invalid_decision")
    unknown = [k for k in decisions if k not in ids]
    if unknown:
        raise ValidationError(
            f"No pending call {unknown[0]!r} on this thread; the pending calls are: {', '.join(ids)}.",
            code="invalid_decision",
        )
    missing = [i for i in ids if i not in decisions]
    if missing:
        raise ValidationError(
            f"Decide every pending call of the step together; missing: {', '.join(missing)}.",
            code="invalid_decision",
        )
    return {i: CallDecision.parse(decisions[i], call_id=i) for i in ids}


def check_storable(chosen: Mapping[str, CallDecision], serde: Any = None) -> None:
    """Raise :class:`ValidationError` (``invalid_decision``) for a decision the checkpoint cannot
    store (an integer beyond 64 bits, nesting too deep, a lone surrogate in a key): resuming with it
    would run the step and then fail the whole turn when its checkpoint is written.

    ``serde``: the checkpointer's serializer (default: LangGraph's ``JsonPlusSerializer``).
    """
    if serde is None:
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

        serde = JsonPlusSerializer()
    for call_id, decision in chosen.items():
        try:
            serde.dumps_typed(decision.to_dict())
        except Exception as exc:  # TypeError, ValueError, RecursionError: the serializer's refusal
            raise ValidationError(
                f"Decision for call {call_id!r} cannot be stored ({exc}); send large numbers as text "
                "and keep the arguments plain JSON.",
                code="invalid_decision",
            ) from None


def arguments_problem(tool: Any, arguments: Mapping[str, Any]) -> str | None:
    """What is wrong with ``arguments`` for ``tool`` (its call schema: a missing or misspelt argument, a
    wrong type), or None; None too for a tool without a pydantic schema (it validates when it runs)."""
    from pydantic import BaseModel

    schema = getattr(tool, "tool_call_schema", None) if isinstance(tool, BaseTool) else None
    if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
        return None
    fields = schema.model_fields
    names = set(fields) | {f.alias for f in fields.values() if f.alias}
    unknown = [str(k) for k in arguments if k not in names]
    if unknown and schema.model_config.get("extra") != "allow":  # ignored when run: a default runs instead
        return f"unknown argument {unknown[0][:60]!r} (it takes {', '.join(fields) or 'none'})"
    try:
        schema.model_validate(dict(arguments))
    except Exception as exc:  # a pydantic error, or a validator of the tool's raising anything
        errors = getattr(exc, "errors", None)
        if callable(errors):
            found = [
                f"{'.'.join(str(p) for p in e.get('loc') or ()) or '?'}: {e.get('msg')}" for e in errors()
            ]
            return "arguments do not fit (" + "; ".join(found[:3])[:200] + ")"
        return f"arguments do not fit ({type(exc).__name__})"
    return None


def check_edits(
    chosen: Mapping[str, CallDecision], pending: Sequence[Mapping[str, Any]], bundles: Mapping[str, Any]
) -> None:
    """Raise :class:`ValidationError` (``invalid_decision``) for an edit whose arguments do not fit its
    tool: the call would run only to fail, and the human's correction be lost to a tool error."""
    by_id = {str(p.get("id")): p for p in pending}
    for call_id, decision in chosen.items():
        item = by_id.get(call_id)
        if decision.decision is not Decision.EDIT or item is None:
            continue
        bundle = bundles.get(str(item.get("agent")))
        tool = next((t for t in getattr(bundle, "tools", ()) if t.name == item.get("tool")), None)
        problem = arguments_problem(tool, decision.arguments or {})
        if problem is not None:
            raise ValidationError(
                f"The new arguments of call {call_id!r} ({item.get('tool')}): {problem}.",
                code="invalid_decision",
            )


# -- the step -------------------------------------------------------------------------------------
@dataclass
class ApprovalOutcome:
    """What the tools step runs after the approval step (nothing paused, or decisions applied)."""

    run_state: dict[str, Any]
    """The state to give the ToolNode: its last AI message holds only the calls to run."""
    to_run: list[dict[str, Any]]
    """The calls that run (approved, edited, or needing no approval), in the agent's order."""
    rejected: list[ToolMessage] = field(default_factory=list)
    """Results written for the rejected calls."""
    edited_message: AIMessage | None = None
    """The agent's message with the edited arguments (replaces the original: same id), if any edit."""
    decisions: list[dict[str, Any]] = field(default_factory=list)
    """One trace record per decided call: id, agent, tool, arguments, decision, message."""
    order: list[str] = field(default_factory=list)
    """The agent's call ids, in its order (results are returned in this order)."""

    def messages(self, results: Sequence[BaseMessage]) -> list[BaseMessage]:
        """The step's new messages: the edited agent message (if any), then every result in call order."""
        everything = [*results, *self.rejected]
        by_id = {m.tool_call_id: m for m in everything if isinstance(m, ToolMessage)}
        ordered = [by_id[i] for i in self.order if i in by_id]
        rest = [m for m in everything if not (isinstance(m, ToolMessage) and m.tool_call_id in self.order)]
        return [*([self.edited_message] if self.edited_message is not None else []), *ordered, *rest]


def last_ai_message(state: Mapping[str, Any]) -> AIMessage | None:
    """The latest AI message of the state (the agent's calls a tools step answers)."""
    return next((m for m in reversed(state.get("messages") or []) if isinstance(m, AIMessage)), None)


def pending_calls(
    message: AIMessage | None, rules: ApprovalRules, *, agent: str, thread: str | None
) -> list[PendingApproval]:
    """The calls of ``message`` that need approval under ``rules`` (side-effect free)."""
    pending: list[PendingApproval] = []
    for call in getattr(message, "tool_calls", None) or []:
        rule = rules.get(call.get("name") or "")
        if rule is None or UNREADABLE_ARGUMENTS_KEY in (call.get("args") or {}):
            continue  # no rule, or a call that cannot run (its arguments were unreadable)
        args = dict(call.get("args") or {})
        reason = rule.check(args)
        if reason is None:
            continue
        pending.append(
            PendingApproval(
                id=str(call.get("id") or ""),
                thread=thread,
                agent=agent,
                tool=str(call.get("name")),
                arguments=args,
                reason=reason,
            )
        )
    return pending


def turn_snapshot(runtime: Any) -> dict[str, Any]:
    """What the turn has spent so far, kept in the pause so the continued turn's trace and deadline
    are right: running seconds, model calls, errors, notes."""
    context = getattr(runtime, "context", None)
    if context is None or not hasattr(context, "trace"):
        return {}
    remaining = context.remaining()
    used = context.settings.turn_timeout - remaining if remaining is not None else 0.0
    return {
        "elapsed_s": round(max(used, 0.0), 3),
        "model_calls": [c.to_dict() for c in context.trace.model_calls],
        "errors": list(context.trace.errors),
        "notes": list(context.trace.notes),
        "paused_at": time.time(),
    }


def review_tool_calls(
    state: Mapping[str, Any],
    *,
    agent: str,
    rules: ApprovalRules,
    runtime: Any = None,
    not_asked: Collection[str] = (),
) -> ApprovalOutcome:
    """The approval step of a tools step; call it FIRST in the step, before anything with effects.

    When calls of the latest AI message need approval, pauses the turn (``interrupt()``) with all
    of them at once; on resume, applies the decisions. Returns what to run (see
    :class:`ApprovalOutcome`). With nothing to approve it returns the state unchanged. Calls whose
    ids are in ``not_asked`` (the step will not run them: over the turn's tool limit) are not put to
    the human; the caller must then not run them.
    """
    message = last_ai_message(state)
    calls = list(getattr(message, "tool_calls", None) or [])
    order = [str(c.get("id") or "") for c in calls]
    context = getattr(runtime, "context", None)
    thread = getattr(context, "thread_id", None)
    pending = pending_calls(message, rules, agent=agent, thread=thread) if rules else []
    if not_asked:
        pending = [p for p in pending if p["id"] not in not_asked]
    # a resumed step: the human decided the calls its pause showed; those stay the pending ones even
    # if the rules changed since (a restart with another CADENCE_APPROVAL_TOOLS, a policy that
    # answers otherwise now): a rejected call must not run because nothing asks about it any more
    decided = [
        a
        for a in getattr(context, "paused_approvals", None) or ()
        if a.get("agent") == agent and any(_is_shown_call(c, a) for c in calls)
    ]
    if decided:
        decided_ids = {str(a["id"]) for a in decided}
        pending = [*decided, *(p for p in pending if p["id"] not in decided_ids)]  # type: ignore[list-item]
    if not pending or message is None:
        return ApprovalOutcome(run_state=dict(state), to_run=calls, order=order)

    answer = interrupt(
        {
            "type": APPROVAL_INTERRUPT,
            "mode": getattr(context, "mode", None),
            "approvals": pending,
            "turn": turn_snapshot(runtime),
        }
    )
    # calls a changed rule flags only now were not shown to the human: no decision, not run
    decisions = _decisions_from_resume(answer, decided or pending)  # type: ignore[arg-type]
    pending_by_id = {p["id"]: p for p in pending}
    to_run: list[dict[str, Any]] = []
    rejected: list[ToolMessage] = []
    records: list[dict[str, Any]] = []
    edited: list[str] = []
    new_calls: list[dict[str, Any]] = []
    for call in calls:
        cid = str(call.get("id") or "")
        item = pending_by_id.get(cid)
        if item is None:  # needs no approval
            to_run.append(call)
            new_calls.append(call)
            continue
        decision = decisions.get(cid) or CallDecision(Decision.REJECT, "No decision was given for this call.")
        record = {
            "id": cid,
            "agent": agent,
            "tool": item["tool"],
            "arguments": item["arguments"],
            "reason": item["reason"],
            "decision": str(decision.decision),
        }
        if decision.decision is Decision.REJECT:
            text = decision.message or "The user rejected this call."
            record["message"] = text
            rejected.append(
                ToolMessage(
                    content=f"{REJECTION_TEXT}{text}",
                    tool_call_id=cid,
                    name=item["tool"],
                    status="error",
                    response_metadata={REJECTION_KEY: True},
                )
            )
            new_calls.append(call)
        elif decision.decision is Decision.EDIT:
            changed = {**call, "args": dict(decision.arguments or {})}
            record["edited_arguments"] = changed["args"]
            edited.append(cid)
            to_run.append(changed)
            new_calls.append(changed)
        else:
            to_run.append(call)
            new_calls.append(call)
        records.append(record)
    logger.info(
        "approvals decided",
        extra={"agent": agent, "decisions": {r["id"]: r["decision"] for r in records}},
    )
    edited_message: AIMessage | None = None
    run_message = message.model_copy(update={"tool_calls": to_run})
    if edited:
        meta = {**(message.response_metadata or {}), EDITED_KEY: edited}
        edited_message = message.model_copy(update={"tool_calls": new_calls, "response_metadata": meta})
        run_message = run_message.model_copy(update={"response_metadata": meta})
    messages = list(state.get("messages") or [])
    index = max(i for i, m in enumerate(messages) if m is message)
    run_state = {**state, "messages": [*messages[:index], run_message, *messages[index + 1 :]]}
    return ApprovalOutcome(
        run_state=run_state,
        to_run=to_run,
        rejected=rejected,
        edited_message=edited_message,
        decisions=records,
        order=order,
    )


def _is_shown_call(call: Mapping[str, Any], shown: Mapping[str, Any]) -> bool:
    """Is ``call`` the call a pause showed as ``shown``? (id, tool and arguments: a model may reuse an
    id in a later message)"""
    return (
        str(call.get("id") or "") == str(shown.get("id") or "")
        and call.get("name") == shown.get("tool")
        and dict(call.get("args") or {}) == dict(shown.get("arguments") or {})
    )


def _decisions_from_resume(answer: Any, pending: Sequence[PendingApproval]) -> dict[str, CallDecision]:
    """The resume value as decisions (checked again here: a resume may come from any client)."""
    try:
        return parse_decisions(answer, pending)
    except ValidationError as exc:  # the engine checks before resuming; be safe: reject what is unclear
        logger.warning("unusable approval decisions; rejecting", extra={"error": exc.message})
        return {p["id"]: CallDecision(Decision.REJECT, f"Not approved ({exc.message})") for p in pending}


def approval_interrupts(snapshot: Any) -> list[Any]:
    """The approval interrupts pending in a ``StateSnapshot`` (``Interrupt`` objects)."""
    out = []
    for item in getattr(snapshot, "interrupts", None) or ():
        value = getattr(item, "value", None)
        if isinstance(value, Mapping) and value.get("type") == APPROVAL_INTERRUPT:
            out.append(item)
    return out


def pending_approvals(snapshot: Any, thread: str | None = None) -> list[PendingApproval]:
    """Every pending approval of a ``StateSnapshot`` (with ``thread`` filled in when given)."""
    out: list[PendingApproval] = []
    for item in approval_interrupts(snapshot):
        for approval in item.value.get("approvals") or []:
            out.append({**approval, "thread": thread or approval.get("thread")})  # type: ignore[typeddict-item]
    return out


def approval_prompt(approvals: Sequence[Mapping[str, Any]]) -> str:
    """The pause in words: which calls wait for approval, and how to decide (the answer text)."""
    if not approvals:
        return ""
    lines = ["Waiting for your approval before running:"]
    for a in approvals:
        args = ", ".join(f"{k}={v!r}" for k, v in (a.get("arguments") or {}).items())
        shown = args if len(args) <= 300 else args[:297] + "..."
        lines.append(f"- {a.get('agent')}.{a.get('tool')}({shown}) — {a.get('reason')} [id {a.get('id')}]")
    lines.append("Reply 'approve' to run it, or 'reject <reason>' to refuse.")
    return "\n".join(lines)


__all__ = [
    "APPROVAL_INTERRUPT",
    "EDITED_KEY",
    "REJECTION_KEY",
    "ApprovalOutcome",
    "ApprovalRule",
    "ApprovalRules",
    "CallDecision",
    "Decision",
    "InterruptEvent",
    "PendingApproval",
    "approval_interrupts",
    "approval_prompt",
    "approval_rules",
    "arguments_problem",
    "bundle_rules",
    "check_edits",
    "check_storable",
    "forced_tools",
    "last_ai_message",
    "parse_decisions",
    "pending_approvals",
    "pending_calls",
    "review_tool_calls",
    "turn_snapshot",
    "unknown_forced_tools",
]
