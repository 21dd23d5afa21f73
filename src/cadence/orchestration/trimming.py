"""Pre-model trimming: the conversation sent with one model call fits a token budget.

``CADENCE_MODEL_INPUT_MAX_TOKENS`` is the budget (0: no trimming) of the messages a model call
sends after its system prompt: every agent step (in every mode, :mod:`cadence.orchestration.agent_node`),
the coordinator's and the supervisor's decisions, and the final answer (the synthesizer's and the
suspend node's earlier turns, after compaction). The current turn (the latest user message and
everything after it) is always kept whole; earlier turns are dropped oldest first with
LangChain's ``trim_messages`` (``strategy="last"``, whole messages, starting on a user message,
so no tool result is kept without its call), counted with ``count_tokens_approximately`` (no
tokenizer needed, the same for every model), one message at a time and remembered per message
object (:func:`approx_tokens`: a turn's calls count the same history again and again), from the
newest message back and no further than the budget reaches (a long thread is not counted whole at
every call).

Two ways to apply it, both LangGraph's:

- :func:`trim_history` returns the trimmed list, for a model's *input* only (the shared history
  stays whole; the supervisor's view);
- :func:`replace_history` returns the update ``[RemoveMessage(id=REMOVE_ALL_MESSAGES), *trimmed]``
  that makes the ``add_messages`` reducer *replace* a state's history instead of appending, for
  a state that is the model's own (an agent subgraph's private copy of the conversation).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, RemoveMessage, trim_messages
from langchain_core.messages.utils import count_tokens_approximately
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from cadence.conventions import split_at_last_human
from cadence.settings import Settings

TokenCounter = Callable[[Sequence[BaseMessage]], int]
"""``count(messages)`` → tokens (default: :func:`approx_tokens`)."""


_COUNTS: dict[int, tuple[weakref.ref[BaseMessage], int, int]] = {}
"""``id(message)`` → (the message, its content's length, its tokens) for messages still alive."""


def _fingerprint(message: BaseMessage) -> int:
    content = message.content
    return len(content) if isinstance(content, str) else -1


def message_tokens(message: BaseMessage) -> int:
    """``count_tokens_approximately([message])``, worked out once per message object.

    The count is kept while the message lives (a weak reference; a message whose text was
    replaced in place is counted again).
    """
    key = id(message)
    hit = _COUNTS.get(key)
    if hit is not None and hit[0]() is message and hit[1] == _fingerprint(message):
        return hit[2]
    tokens = count_tokens_approximately([message])
    try:
        ref = weakref.ref(message, lambda _, key=key: _COUNTS.pop(key, None))
    except TypeError:  # not a BaseMessage: nothing to remember it by
        return tokens
    _COUNTS[key] = (ref, _fingerprint(message), tokens)
    return tokens


def approx_tokens(messages: Sequence[BaseMessage]) -> int:
    """``count_tokens_approximately(messages)``, as a sum of per-message counts (:func:`message_tokens`)."""
    return sum(message_tokens(m) for m in messages)


def _tail_within(messages: Sequence[BaseMessage], max_tokens: int) -> int:
    """Where the longest tail of ``messages`` within ``max_tokens`` starts (0: they all fit).

    Counted newest first and stopped at the budget: a call reads what it may send, not the whole
    history (a long thread's model calls each counted every earlier message again).
    """
    total = 0
    for i in range(len(messages) - 1, -1, -1):
        total += message_tokens(messages[i])
        if total > max_tokens:
            return i + 1
    return 0


def trim_history(
    messages: Sequence[BaseMessage], max_tokens: int, counter: TokenCounter | None = None
) -> list[BaseMessage]:
    """``messages`` within ``max_tokens``: the current turn whole, earlier turns newest first.

    ``max_tokens <= 0`` returns the messages unchanged. When the current turn alone exceeds
    the budget, it is kept and every earlier message dropped.
    """
    if max_tokens <= 0:
        return list(messages)
    count = counter or approx_tokens
    additive = counter is None  # the default counts add up per message: read from the end, stop early
    if (_tail_within(messages, max_tokens) == 0) if additive else (count(messages) <= max_tokens):
        return list(messages)
    before, question, after = split_at_last_human(messages)
    current = ([question] if question is not None else []) + list(after)
    if question is None:  # no user message: nothing to trim by turns
        return list(messages)
    left = max_tokens - count(current)
    if left <= 0 or not before:
        return current
    if additive:  # only the tail that can fit is handed on (trim_messages counts its input many times)
        before = before[_tail_within(before, left) :]
    kept = trim_messages(
        list(before),
        max_tokens=left,
        token_counter=count,
        strategy="last",
        start_on="human",
        allow_partial=False,
    )
    return [*kept, *current]


def clip_results(messages: Sequence[BaseMessage], max_chars: int) -> list[BaseMessage]:
    """``messages`` with every tool result longer than ``max_chars`` cut there, for a routing decision.

    A decision needs to know what the agents found, not every line of it: a search's passages sent
    whole to the coordinator cost their tokens again at each of its calls (and the synthesizer, which
    writes the answer, sees them whole). A clipped result ends with how much was left out; the
    history itself is not changed (copies are sent). ``max_chars <= 0`` returns the messages unchanged.
    """
    if max_chars <= 0:
        return list(messages)
    out = list(messages)
    for i, message in enumerate(out):
        if message.type == "tool" and isinstance(message.content, str) and len(message.content) > max_chars:
            out[i] = _clipped(message, max_chars)
    return out


_CLIPPED: dict[int, tuple[weakref.ref[BaseMessage], int, int, BaseMessage]] = {}
"""``id(message)`` → (the message, its content's length, the limit, its clipped copy) for messages still
alive: a long thread's earlier results are clipped once, not at every decision."""


def _clipped(message: BaseMessage, max_chars: int) -> BaseMessage:
    """The copy of a tool result cut at ``max_chars``, ending with how much was left out (remembered)."""
    key = id(message)
    hit = _CLIPPED.get(key)
    if hit is not None and hit[0]() is message and hit[1] == _fingerprint(message) and hit[2] == max_chars:
        return hit[3]
    text = str(message.content)
    cut = text[:max_chars].rstrip()
    copy = message.model_copy(update={"content": f"{cut}… ({len(text) - len(cut):,} more characters)"})
    try:
        ref = weakref.ref(message, lambda _, key=key: _CLIPPED.pop(key, None))
    except TypeError:
        return copy
    _CLIPPED[key] = (ref, _fingerprint(message), max_chars, copy)
    return copy


def input_budget(context: Any, settings: Settings | None = None) -> int:
    """The turn's token budget per model call: ``CADENCE_MODEL_INPUT_MAX_TOKENS`` of the turn's settings.

    ``context`` is the turn's :class:`~cadence.orchestration.turn.TurnContext` (its settings may be a
    request's own); without one, ``settings`` (else 0: no trimming).
    """
    own = getattr(context, "settings", None)
    chosen = own if isinstance(own, Settings) else settings
    return chosen.model_input_max_tokens if chosen is not None else 0


def replace_history(trimmed: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The ``messages`` update that replaces a state's whole history with ``trimmed``."""
    return [RemoveMessage(id=REMOVE_ALL_MESSAGES), *trimmed]


__all__ = [
    "TokenCounter",
    "approx_tokens",
    "clip_results",
    "input_budget",
    "message_tokens",
    "replace_history",
    "trim_history",
]
