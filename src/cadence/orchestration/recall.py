"""Long-term memory in a turn: recalled before the graph runs, given to the nodes, ingested after.

The engine (through :class:`EngineMemory`) recalls the user's memories for the question before
the graph runs and puts them in the state's ``memory`` (``adequacy``, ``routing_adequacy`` and
the relevant ``items``); after the turn it ingests what the turn taught (see
:meth:`cadence.memory.MemoryService.ingest_turn`) unless a node did it already (the planner's
root). The nodes read the state:

- **routing** (coordinator, supervisor): when the facts the user stated answer the question on
  their own (``routing_adequacy`` ≥ ``CADENCE_MEMORY_ADEQUACY_THRESHOLD``), the deciding model sees
  them as a ``recall_memory`` result right after the question, so it can finalize without tools
  (tool results are never trusted to stay true: a clock time changes);
- **agents** (coordinator and supervisor modes, the planner's researcher): the recalled facts the
  user stated, in their prompt (:func:`facts_prompt`), so that they can act on them ("the weather
  where I live"); the single mode's agent, whose answer is the final one, gets what the final
  answer gets (below);
- **final answer** (synthesizer, the planner's root): the same adequate facts are given as a
  ``recall_memory`` result — grounded material that the answer must carry, like any tool result.
  Remembered tool results and answers (recalled only when very relevant, see
  :meth:`cadence.memory.MemoryService.recall`) and merely relevant facts are **supporting
  evidence**: listed in the prompt and counted as grounded by the final-answer check, never
  required. A result computed for another question in another thread (another clock time,
  another sum) must not stand in for this turn's.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from cadence.conventions import (
    FORGOTTEN_PREFIX,
    MEMORY_TOOL,
    TOLD_FACTS_HEADER,
    message_text,
    split_at_last_human,
)
from cadence.settings import Settings

logger = logging.getLogger(__name__)

MEMORY_NODE = "memory"
"""The ``name`` of the AI message that carries the ``recall_memory`` call."""
FACT_KIND = "fact"
"""The kind of a memory the user stated about themselves (``MemoryKind.FACT``)."""
STATE_KEY = "memory"
"""The state key of the turn's recall."""
INGESTED = "ingested"
"""Set in the state's memory by a node that ingested the turn itself (the engine then does not)."""
FALLBACK_KEY = "cadence_fallback"
"""The final-answer nodes' flag of a model-free answer (``synthesizer.FALLBACK_KEY``): never kept."""


def turn_memory(state: Mapping[str, Any]) -> dict[str, Any]:
    """The turn's recall from the state (empty when memory is off)."""
    return dict(state.get(STATE_KEY) or {})


def memory_items(state: Mapping[str, Any], kinds: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The recalled memories (best first), optionally of some kinds only."""
    items = list(turn_memory(state).get("items") or [])
    return [i for i in items if kinds is None or i.get("kind") in kinds]


def is_adequate(state: Mapping[str, Any], settings: Settings, *, routing: bool = False) -> bool:
    """Whether memory alone covers the question (``routing``: the user's stated facts alone).

    Only the stated facts' adequacy (``routing=True``) lets memory answer (:func:`with_memory`);
    the overall one also counts remembered results and answers, which only ever support an answer.
    """
    memory = turn_memory(state)
    key = "routing_adequacy" if routing else "adequacy"
    return bool(memory.get("items")) and float(memory.get(key) or 0.0) >= settings.memory_adequacy_threshold


def answering_items(state: Mapping[str, Any], settings: Settings) -> list[dict[str, Any]]:
    """The memories that answer the question: the stated facts, when they are adequate on their own.

    Remembered tool results and answers never do (they were true for another question, maybe
    for a moment only): they are supporting evidence (:func:`memory_prompt`, :func:`memory_evidence`).
    """
    if not is_adequate(state, settings, routing=True):
        return []
    return memory_items(state, [FACT_KIND])


def memory_text(items: Sequence[Mapping[str, Any]]) -> str:
    """The memories as lines an answering model reads ("You work on compilers.")."""
    return "\n".join(str(i.get("statement") or i.get("text") or "").strip() for i in items if i)


def memory_pair(question: str, items: Sequence[Mapping[str, Any]]) -> list[BaseMessage]:
    """A ``recall_memory`` call and its result holding ``items``."""
    call_id = f"call_mem_{uuid.uuid4().hex[:12]}"
    call = {"name": MEMORY_TOOL, "args": {"query": question}, "id": call_id, "type": "tool_call"}
    return [
        AIMessage(content="", tool_calls=[call], name=MEMORY_NODE),
        ToolMessage(content=memory_text(items), tool_call_id=call_id, name=MEMORY_TOOL),
    ]


def with_memory(
    messages: Sequence[BaseMessage], state: Mapping[str, Any], settings: Settings
) -> list[BaseMessage]:
    """``messages`` with the memory that answers the question (:func:`answering_items`: the user's
    stated facts, when adequate on their own) inserted as a ``recall_memory`` result after it.

    The same for routing and for the final answer; unchanged when memory does not answer the question.
    """
    items = answering_items(state, settings)
    before, question, after = split_at_last_human(messages)
    if question is None or not items:
        return list(messages)
    return [*before, question, *memory_pair(message_text(question), items), *after]


def memory_evidence(state: Mapping[str, Any]) -> list[str]:
    """The recalled memories' statements: grounded material for the final-answer check."""
    return [str(i.get("statement") or i.get("text") or "") for i in memory_items(state)]


def facts_prompt(state: Mapping[str, Any]) -> str:
    """A prompt section with the recalled facts the user stated, for an agent acting for the user ("the
    weather where I live" needs "You live in Rome."); empty when none were recalled. Remembered tool
    results and answers are not in it: an agent runs its tools for this turn."""
    lines = [f"- {s}" for s in memory_text(memory_items(state, [FACT_KIND])).splitlines() if s.strip()]
    if not lines:
        return ""
    return f"{TOLD_FACTS_HEADER} (use it when the request depends on it):\n" + "\n".join(lines)


def memory_prompt(state: Mapping[str, Any], settings: Settings, *, facts: bool = True) -> str:
    """A prompt section listing the supporting memories: those not given as the ``recall_memory``
    result (empty when there are none). ``facts=False`` leaves the user's stated facts out (a prompt
    listing them under :func:`facts_prompt` already)."""
    facts_given = not facts or bool(answering_items(state, settings))
    items = [i for i in memory_items(state) if not (facts_given and i.get("kind") == FACT_KIND)]
    lines = "\n".join(f"- {s}" for s in memory_text(items).splitlines() if s.strip())
    if not lines:
        return ""
    return (
        "\n\nWHAT YOU REMEMBER FROM EARLIER CONVERSATIONS WITH THIS USER (earlier results may be out "
        f"of date; use it only if it helps answer the question):\n{lines}\n"
    )


# -- the engine's part --------------------------------------------------------------------------
@contextlib.asynccontextmanager
async def open_engine_memory(settings: Settings, kwargs: dict[str, Any]) -> AsyncIterator[Any]:
    """The memory store for an engine being opened: ``kwargs['memory_store']`` when given (popped),
    else the configured store when ``CADENCE_MEMORY`` is on, else None."""
    given = kwargs.pop("memory_store", None)
    if given is not None or not settings.memory:
        yield given
        return
    from cadence.memory import open_memory_store

    async with open_memory_store(settings) as store:
        yield store


class EngineMemory:
    """The engine's memory methods (mixed into :class:`~cadence.orchestration.engine.Cadence`)."""

    settings: Settings
    memory: Any
    """The :class:`~cadence.memory.MemoryService`, or None when ``CADENCE_MEMORY`` is off."""
    plugin_manager: Any

    def volatile_tools(self) -> frozenset[str]:
        """The loaded plugins' tools whose results memory never keeps (see :func:`volatile_tool_names`).

        Worked out once per set of loaded plugins (a reload replaces the manager's ``bundles``).
        """
        bundles = getattr(self.plugin_manager, "bundles", None) or {}
        cached = getattr(self, "_volatile_cache", None)
        if cached is None or cached[0] is not bundles:
            cached = (bundles, volatile_tool_names(bundles))
            self._volatile_cache = cached
        return cached[1]

    def open_memory(self, store: Any) -> Any:
        """The memory service over ``store`` (an in-process store when None), None when memory is off."""
        if not self.settings.memory:
            return None
        from langgraph.store.memory import InMemoryStore

        from cadence.memory import MemoryService

        return MemoryService(store if store is not None else InMemoryStore(), self.settings)

    def attach_memory(self, context: Any, turn: Any, state_in: dict[str, Any]) -> None:
        """Give the turn its memory handle and project, and start it with an empty recall."""
        context.memory = self.memory
        context.project_id = getattr(turn, "project_id", None)
        if self.memory is not None:
            context.volatile_tools = self.volatile_tools()
        state_in[STATE_KEY] = {}

    async def recall_memory(self, state_in: dict[str, Any], context: Any) -> None:
        """Recall the user's memories for the question into the state (errors are logged, never fatal).

        With long-term memory off, a message that only tells facts about the user still has them as this
        turn's memory: they answer it ("I live in Lisbon." is acknowledged as "You live in Lisbon."), and
        nothing is kept after the turn.
        """
        from cadence.memory.ingest import forget_request

        question = message_text(state_in["messages"][0])
        forget = forget_request(question)
        if forget is not None:
            # "Forget my age.": the memories it names are deleted now, and the reply says which
            state_in[STATE_KEY] = await self._forget_told(forget, context)
            return
        # a message that only tells facts about the user: they answer this turn (and are kept after it)
        stated = _stated_now(question)
        told_now = {"adequacy": 1.0, "routing_adequacy": 1.0, "items": stated, "stated": True}
        if self.memory is None:
            if stated:
                state_in[STATE_KEY] = told_now
            return
        try:
            recall = await self.memory.recall(
                context.user_id, question, project_id=context.project_id, thread_id=context.thread_id
            )
        except Exception as exc:
            logger.warning("memory recall failed", extra={"error": f"{type(exc).__name__}: {exc}"})
            context.trace.errors.append({"node": MEMORY_NODE, "code": "memory_error", "message": str(exc)})
            return
        context.memory_read = recall.read  # the ingestion at the turn's end reuses this read
        memory = {**recall.to_dict(), "routing_adequacy": _facts_adequacy(recall, question)}
        state_in[STATE_KEY] = told_now if stated else memory

    async def _forget_told(self, words: frozenset[str], context: Any) -> dict[str, Any]:
        """The turn's memory after a request to forget: what was forgotten, said as the reply (nothing of
        the turn is kept: its answer would restate what was forgotten)."""
        if self.memory is None:
            said = ["Long-term memory is off (CADENCE_MEMORY): nothing you tell me is kept after a turn."]
        else:
            try:
                forgotten = await self.memory.forget_told(
                    context.user_id, words, project_id=context.project_id
                )
            except Exception as exc:
                logger.warning("memory forget failed", extra={"error": f"{type(exc).__name__}: {exc}"})
                context.trace.errors.append(
                    {"node": MEMORY_NODE, "code": "memory_error", "message": str(exc)}
                )
                forgotten = None
            if forgotten is None:
                said = ["I could not forget it: the memory store failed; please try again."]
            elif not words:  # "Forget everything about me"
                count = f"{len(forgotten)} memor{'y' if len(forgotten) == 1 else 'ies'}"
                said = [f"{FORGOTTEN_PREFIX} everything you told me ({count})."]
            elif forgotten:
                # what the user told is said back; remembered results and answers that mention it are
                # forgotten too, and counted (a document's passage quoting "Forget my age." is no fact)
                told = [m for m in forgotten if m.kind == FACT_KIND]
                others = len(forgotten) - len(told)
                mentioned = f"{others} earlier answer{'' if others == 1 else 's'} that mentioned it"
                if told:
                    statements = list(dict.fromkeys(m.statement for m in told))
                    more = f" (and {len(statements) - 5} more)" if len(statements) > 5 else ""
                    also = f" I've also forgotten {mentioned}." if others else ""
                    said = [f"{FORGOTTEN_PREFIX} this: {' '.join(statements[:5])}{more}{also}"]
                else:
                    said = [f"{FORGOTTEN_PREFIX} {mentioned}; you hadn't told me about it yourself."]
            else:
                said = ["There was nothing to forget: you haven't told me about that."]
        items = [{"id": None, "kind": FACT_KIND, "text": t, "statement": t, "score": 1.0} for t in said]
        return {"adequacy": 1.0, "routing_adequacy": 1.0, "items": items, "stated": True, INGESTED: 0}

    async def memory_after_turn(
        self, state: Mapping[str, Any], context: Any, error: Mapping[str, Any] | None, *, paused: bool
    ) -> dict[str, Any]:
        """Ingest the finished turn (unless a node did) and return the trace's memory fields."""
        from cadence.orchestration.answer_check import turn_results

        trace: dict[str, Any] = {}
        for key in ("thought", "scratchpad", "route", "planned_tools", "tool_results"):
            if key in state:
                trace[key] = state.get(key)
        if self.memory is None:
            return trace
        memory = turn_memory(state)
        ingested = memory.get(INGESTED)
        if not paused and ingested is None:
            messages = list(state.get("messages") or [])
            question, results = turn_results(messages)
            final = _final_answer(messages)
            ctx = state.get("plugin_context") or {}
            fallback = final is not None and (final.response_metadata or {}).get(FALLBACK_KEY)
            usable = final is not None and not fallback and not ctx.get("suspend_reason")
            ingested = await ingest(
                self.memory, context, question, message_text(final) if final is not None else "",
                [(r.name, r.args, r.content) for r in results], usable=usable and error is None,
                volatile_tools=self.volatile_tools(),
            )  # fmt: skip
        trace["memory"] = {
            "adequacy": memory.get("adequacy", 0.0),
            "routing_adequacy": memory.get("routing_adequacy", 0.0),
            "items": [
                {k: i.get(k) for k in ("id", "kind", "statement", "score", "source_thread")}
                for i in memory.get("items") or []
            ],
            "ingested": int(ingested or 0),
        }
        return trace


def volatile_tool_names(bundles: Mapping[str, Any] | Sequence[Any]) -> frozenset[str]:
    """The names of the tools of ``bundles`` that declare their results volatile (never remembered)."""
    from cadence.sdk.memory import is_volatile

    found = bundles.values() if isinstance(bundles, Mapping) else bundles
    return frozenset(t.name for b in found for t in getattr(b, "tools", None) or [] if is_volatile(t))


def _facts_adequacy(recall: Any, question: str) -> float:
    """How well the user's stated facts alone answer ``question``: 0 for a question not about the
    user ("What is a compiler?" is not answered by "You work on compilers.", though it holds its words)
    and for one that works a number out of theirs (:func:`cadence.memory.recall.worked_out`: "How many
    hours do I work in a week?" of "You work 8 hours a day, 5 days a week."; the facts then reach the
    deciding model, which routes the working out)."""
    from cadence.memory.ingest import about_user
    from cadence.memory.recall import worked_out

    if not about_user(question):
        return 0.0
    if worked_out(question, [i.text for i in recall.items if i.kind == FACT_KIND]):
        return 0.0
    return recall.adequacy_of([FACT_KIND])


def _stated_now(message: str) -> list[dict[str, Any]]:
    """The facts of a message that only states facts about the user, as recalled items (else [])."""
    from cadence.memory.ingest import only_statements, stated_facts

    if not only_statements(message):
        return []
    return [
        {
            "id": None,
            "kind": "fact",
            "text": f.text,
            "statement": f.statement,
            "score": 1.0,
            "source_thread": None,
        }
        for f in stated_facts(message)
    ]


def _final_answer(messages: Sequence[BaseMessage]) -> AIMessage | None:
    from cadence.conventions import FINAL_NODES

    for msg in reversed(messages):
        if isinstance(msg, AIMessage) and msg.name in FINAL_NODES:
            return msg
        if isinstance(msg, HumanMessage):
            return None
    return None


async def ingest(
    memory: Any,
    context: Any,
    question: str,
    answer: str,
    results: Sequence[tuple[str, Mapping[str, Any], str]],
    *,
    usable: bool,
    volatile_tools: Collection[str] | None = None,
) -> int:
    """Ingest one turn into memory; how many memories were written (errors logged, never fatal).

    ``volatile_tools``: tools whose results are not kept (default: the turn context's).
    """
    if volatile_tools is None:
        volatile_tools = getattr(context, "volatile_tools", None) or frozenset()
    existing = getattr(context, "memory_read", None)  # the namespace as the turn's recall read it
    try:
        stored = await memory.ingest_turn(
            context.user_id,
            question,
            answer,
            project_id=getattr(context, "project_id", None),
            thread_id=context.thread_id,
            results=[r for r in results if r[0] != MEMORY_TOOL],
            answer_usable=usable,
            volatile_tools=volatile_tools,
            existing=existing,
        )
    except Exception as exc:
        logger.warning("memory ingestion failed", extra={"error": f"{type(exc).__name__}: {exc}"})
        context.trace.errors.append({"node": MEMORY_NODE, "code": "memory_error", "message": str(exc)})
        return 0
    return len(stored)


__all__ = [
    "FACT_KIND",
    "INGESTED",
    "MEMORY_NODE",
    "MEMORY_TOOL",
    "STATE_KEY",
    "EngineMemory",
    "answering_items",
    "facts_prompt",
    "ingest",
    "is_adequate",
    "memory_evidence",
    "memory_items",
    "memory_pair",
    "memory_prompt",
    "memory_text",
    "open_engine_memory",
    "turn_memory",
    "volatile_tool_names",
    "with_memory",
]
