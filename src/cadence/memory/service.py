"""The memory service: remember, recall (with the adequacy score), list, forget, consolidate.

Memories live in a LangGraph ``BaseStore`` (see :mod:`cadence.memory.store`) under the namespace
``("cadence_memory", user_id, project_id)`` — a user's memories are only ever read through their
own namespace prefix, so nothing is visible across users. ``project_id`` is optional: a turn
without one uses the user's project-less namespace; listing or forgetting without one covers
all of the user's memories.

Each memory is one store item whose value holds ``text`` (what was said or found),
``statement`` (what an answering model is given), ``kind`` (``fact``, ``result``, ``answer``,
``summary``), an optional ``topic``, the ``source_thread`` and its times (epoch seconds).

Recall scores every memory of the namespace lexically (BM25, :mod:`cadence.memory.recall`)
and, when the store has a vector index (``CADENCE_MEMORY_EMBEDDINGS``), by similarity too: a
memory's score is the larger of the two; adequacy is the larger of the lexical coverage and
the best similarity. A stated fact is recalled from ``CADENCE_MEMORY_MIN_SCORE``, or whatever its
score when both it and the question speak of where the user lives or is, or of their name
(:data:`~cadence.memory.recall.SELF_TERMS`: "What time is it at home?" needs "I'm based in
Lisbon", "What's my name?" needs "I'm Ingrid", whose other words they do not share; those facts
rank first), or when the question, about the user, names the user's own thing a fact is about
(:func:`~cadence.memory.recall.owned_terms`: "how much rent do I pay?" of "Your monthly rent is
1,250 euros."); a tool result,
answer or summary only from the much higher ``CADENCE_MEMORY_RESULT_MIN_SCORE``, and never into
the thread it was learnt in.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from langgraph.store.base import BaseStore, Item, PutOp

from cadence.memory.ingest import about_user as asks_about_user
from cadence.memory.ingest import claim, clip, names_fact, stated_facts
from cadence.memory.recall import (
    SELF_TERMS,
    Scored,
    coherent_adequacy,
    owned_terms,
    question_parts,
    score,
    terms,
)
from cadence.settings import Settings
from cadence.text import WHAT_IS_KNOWN_RE

logger = logging.getLogger(__name__)

ROOT = "cadence_memory"
"""The first label of every memory namespace."""
NO_PROJECT = "%"
"""The project label of memories without a project (no encoded project id can be ``%``)."""
SCAN_LIMIT = 100_000
"""Store items read at once when a whole namespace is scored or listed."""
SUMMARY_MAX_FACTOR = 4
"""A summary may be this many times ``CADENCE_MEMORY_MAX_ITEM_CHARS`` long."""


THREAD_SCORING_FROM = 200
"""Namespaces with more memories than this are scored in a worker thread."""


def _terms_of(item: Item) -> list[str]:
    stored = item.value.get("terms")  # read only: no copy
    return stored if isinstance(stored, list) else terms(str(item.value.get("text") or ""))


def _score(asked: list[str], items: Sequence[Item]) -> tuple[list[list[str]], Scored]:
    documents = [_terms_of(i) for i in items]
    return documents, score(asked, documents)


class MemoryKind(StrEnum):
    """What a memory is."""

    FACT = "fact"
    """Something the user said about themselves."""
    RESULT = "result"
    """A tool's result."""
    ANSWER = "answer"
    """A final answer, with its question."""
    SUMMARY = "summary"
    """Old results and answers, summarised by consolidation."""


def encode_label(value: str) -> str:
    """A namespace label for an id (store labels may not contain ``.``)."""
    return value.replace("%", "%25").replace(".", "%2E")


def decode_label(label: str) -> str:
    """The id of an encoded namespace label."""
    return label.replace("%2E", ".").replace("%25", "%")


def _stamp(seconds: float) -> datetime:
    return datetime.fromtimestamp(float(seconds), UTC)


@dataclass(frozen=True)
class MemoryItem:
    """One memory as the service returns it."""

    id: str
    text: str
    statement: str
    kind: str
    user_id: str
    project_id: str | None
    source_thread: str | None
    created_at: datetime
    updated_at: datetime
    topic: str | None = None
    score: float | None = None
    """Relevance to the recalled question, 0–1 (recall only)."""

    @classmethod
    def from_store(cls, item: Item, score: float | None = None) -> MemoryItem:
        """Build from a store item of a memory namespace."""
        value = item.value
        project = item.namespace[2] if len(item.namespace) > 2 else NO_PROJECT
        now = time.time()
        return cls(
            id=item.key,
            text=str(value.get("text") or ""),
            statement=str(value.get("statement") or value.get("text") or ""),
            kind=str(value.get("kind") or MemoryKind.FACT),
            user_id=decode_label(item.namespace[1]) if len(item.namespace) > 1 else "",
            project_id=None if project == NO_PROJECT else decode_label(project),
            source_thread=value.get("source_thread"),
            created_at=_stamp(value.get("created_at") or now),
            updated_at=_stamp(value.get("updated_at") or value.get("created_at") or now),
            topic=value.get("topic"),
            score=None if score is None else round(score, 4),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (API, CLI, trace)."""
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "text": self.text,
            "statement": self.statement,
            "project_id": self.project_id,
            "source_thread": self.source_thread,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
        }
        if self.topic:
            out["topic"] = self.topic
        if self.score is not None:
            out["score"] = self.score
        return out


@dataclass(frozen=True)
class Recall:
    """What memory holds for one question: the recalled memories, best first, and the adequacy score."""

    question: str
    items: list[MemoryItem] = field(default_factory=list)
    adequacy: float = 0.0
    """How well memory alone answers the question, 0–1 (see :mod:`cadence.memory.recall`)."""
    read: list[Item] = field(default_factory=list, repr=False)
    """Every item of the namespace as the recall read them (:meth:`MemoryService.ingest_turn` can
    reuse them: ``existing``); not part of :meth:`to_dict`."""
    weights: dict[str, float] = field(default_factory=dict, repr=False)
    """The idf of each question term over the namespace (the adequacy's weights)."""
    similarity: dict[str, float] = field(default_factory=dict, repr=False)
    """The recalled memories' similarity to the question, by id (a store with a vector index)."""
    whole: bool = False
    """The question asks what memory knows of the user as a whole (:data:`cadence.text.WHAT_IS_KNOWN_RE`):
    the facts recalled are all the user's, newest first, and together they answer it."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the graph state's ``memory`` and the trace)."""
        return {"adequacy": self.adequacy, "items": [i.to_dict() for i in self.items]}

    def adequacy_of(self, kinds: Iterable[str]) -> float:
        """How well the memories of ``kinds`` alone answer the question, each part of it by one memory
        (:func:`~cadence.memory.recall.coherent_adequacy`: "What is my wife's name?" is not answered
        by "My wife is a doctor." and "My name is Ada." together), or their best similarity."""
        wanted = set(kinds)
        chosen = [i for i in self.items if i.kind in wanted]
        if not chosen:
            return 0.0
        if self.whole:
            return 1.0
        weights = self.weights or score(terms(self.question), [terms(i.text) for i in self.items]).weights
        lexical = coherent_adequacy(question_parts(self.question), [terms(i.text) for i in chosen], weights)
        return round(max(lexical, *(self.similarity.get(i.id, 0.0) for i in chosen)), 4)


@dataclass
class ConsolidationReport:
    """What one consolidation run changed."""

    namespaces: int = 0
    merged: int = 0
    """Duplicates removed (same kind and words)."""
    superseded: int = 0
    """Facts replaced by a newer fact on the same topic."""
    summarised: int = 0
    """Old results and answers folded into a summary."""
    trimmed: int = 0
    """Oldest memories removed to stay within ``CADENCE_MEMORY_MAX_ITEMS``."""

    @property
    def changed(self) -> int:
        """Memories removed or folded, in all."""
        return self.merged + self.superseded + self.summarised + self.trimmed

    def add(self, other: ConsolidationReport) -> None:
        """Add another run's counts to this one."""
        self.namespaces += other.namespaces
        self.merged += other.merged
        self.superseded += other.superseded
        self.summarised += other.summarised
        self.trimmed += other.trimmed

    def to_dict(self) -> dict[str, int]:
        """JSON-ready form."""
        return {
            "namespaces": self.namespaces,
            "merged": self.merged,
            "superseded": self.superseded,
            "summarised": self.summarised,
            "trimmed": self.trimmed,
        }


def _normal(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".!")


_REFRESH_ONLY = frozenset({"updated_at", "source_thread"})
"""What a memory learnt again changes by itself: its time and the thread it was last learnt in."""


def _refreshes_only(old: Mapping[str, Any], new: Mapping[str, Any], now: float, refresh_s: float) -> bool:
    """Whether writing ``new`` over ``old`` would only refresh it, and ``old`` was written within
    ``refresh_s`` of ``now`` (a memory learnt again and again, say by many conversations of one user
    asking the same thing at once, is written once a while, not once per turn)."""
    try:
        age = now - float(old.get("updated_at") or 0.0)
    except (TypeError, ValueError):
        return False
    if not 0 <= age < refresh_s:
        return False
    keys = (set(old) | set(new)) - _REFRESH_ONLY
    return all(old.get(k) == new.get(k) for k in keys)


class _Existing:
    """A namespace's items indexed for the writes of one turn: the item a new memory refreshes (the same
    kind and words) or replaces (a fact on the same topic) is found at once, not by a walk of the
    namespace per memory (a message of 1,500 facts over 2,000 memories held the event loop for seconds)."""

    def __init__(self, items: Iterable[Item]) -> None:
        self.by_words: dict[tuple[str, str], Item] = {}
        self.by_topic: dict[str, Item] = {}
        self.by_claim: dict[str, Item] = {}  # facts by what they claim or deny ("I'm (not) vegan")
        self.order: dict[int, int] = {}  # id(item) → its place: of two candidates the first one is taken
        self.unchanged: set[str] = set()
        """Keys of items learnt again that need no write (:meth:`MemoryService._prepared`)."""
        for item in items:
            self._add(item)

    @staticmethod
    def _keys(item: Item) -> tuple[tuple[str, str], str | None, str | None]:
        kind = str(item.value.get("kind"))
        text = str(item.value.get("text") or "")
        topic = item.value.get("topic")
        fact = kind == MemoryKind.FACT
        return (
            (kind, _normal(text)),
            (str(topic) if fact and topic else None),
            (claim(text) or None) if fact else None,
        )

    def _add(self, item: Item) -> None:
        self.order[id(item)] = len(self.order)
        words, topic, claimed = self._keys(item)
        self.by_words.setdefault(words, item)
        if topic is not None:
            self.by_topic.setdefault(topic, item)
        if claimed is not None:
            self.by_claim.setdefault(claimed, item)

    def same(self, kind: str, text: str, topic: str | None) -> Item | None:
        """The item a new memory of ``kind`` with ``text`` (and ``topic``) takes the place of, if any:
        the same words, or a fact on the same topic or the same claim (said or denied)."""
        found = [self.by_words.get((str(kind), _normal(text)))]
        if kind == MemoryKind.FACT:
            found.append(self.by_topic.get(topic) if topic else None)
            found.append(self.by_claim.get(claim(text)))
        return min((i for i in found if i is not None), key=lambda i: self.order[id(i)], default=None)

    def replace(self, old: Item | None, new: Item) -> None:
        """``new`` written (in the place of ``old``)."""
        if old is not None:
            words, topic, claimed = self._keys(old)
            if self.by_words.get(words) is old:
                del self.by_words[words]
            if topic is not None and self.by_topic.get(topic) is old:
                del self.by_topic[topic]
            if claimed is not None and self.by_claim.get(claimed) is old:
                del self.by_claim[claimed]
        self._add(new)


class MemoryService:
    """Long-term memory per ``(user_id, project_id)`` over a LangGraph store (see the module docs)."""

    def __init__(self, store: BaseStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.semantic = bool(getattr(store, "index_config", None))
        """Whether the store has a vector index (recall also scores by similarity)."""

    # -- namespaces -------------------------------------------------------------------------
    @staticmethod
    def namespace(user_id: str, project_id: str | None = None) -> tuple[str, str, str]:
        """The namespace of a user's memories in a project (or without one)."""
        project = encode_label(project_id) if project_id else NO_PROJECT
        return (ROOT, encode_label(user_id), project)

    @staticmethod
    def user_prefix(user_id: str) -> tuple[str, str]:
        """The prefix of all of a user's namespaces."""
        return (ROOT, encode_label(user_id))

    async def _scan(self, prefix: tuple[str, ...]) -> list[Item]:
        # no TTL refresh: memories carry no TTL (consolidation bounds them), and on PostgreSQL a
        # refreshing read is an UPDATE joined to the search, a write transaction per read
        return list(await self.store.asearch(prefix, limit=SCAN_LIMIT, refresh_ttl=False))

    # -- writing ------------------------------------------------------------------------------
    async def remember(
        self,
        user_id: str,
        text: str,
        *,
        kind: str = MemoryKind.FACT,
        statement: str | None = None,
        project_id: str | None = None,
        source_thread: str | None = None,
        topic: str | None = None,
        extra: Mapping[str, Any] | None = None,
        now: float | None = None,
    ) -> MemoryItem:
        """Store one memory; the same words (same kind) refresh it, a fact on the same topic replaces it."""
        namespace = self.namespace(user_id, project_id)
        existing = _Existing(await self._scan(namespace))
        item = self._prepared(
            namespace, existing, text, kind=kind, statement=statement, source_thread=source_thread,
            topic=topic, extra=extra, now=now, refresh_s=self.settings.memory_refresh_s,
        )  # fmt: skip
        if item.key not in existing.unchanged:
            await self.store.aput(namespace, item.key, item.value)
        return MemoryItem.from_store(item)

    @staticmethod
    def _prepared(
        namespace: tuple[str, ...],
        existing: _Existing,
        text: str,
        *,
        kind: str,
        statement: str | None,
        source_thread: str | None,
        topic: str | None,
        extra: Mapping[str, Any] | None,
        now: float | None,
        refresh_s: float = 0.0,
    ) -> Item:
        """The item :meth:`remember` writes, given the namespace's ``existing`` items (kept current).

        A memory learnt again, word for word, within ``refresh_s`` of its last write is that item
        itself, its key added to ``existing.unchanged``: not written again (see
        ``CADENCE_MEMORY_REFRESH_S``)."""
        stamp = time.time() if now is None else now
        same = existing.same(kind, text, topic)
        key = same.key if same is not None else uuid.uuid4().hex
        created = float(same.value.get("created_at") or stamp) if same is not None else stamp
        value: dict[str, Any] = {
            **dict(extra or {}),
            "text": text,
            "statement": statement or text,
            "kind": str(kind),
            "topic": topic,
            "source_thread": source_thread,
            "created_at": created
            if same is not None and _normal(str(same.value.get("text"))) == _normal(text)
            else stamp,
            "updated_at": stamp,
            "terms": terms(text),
        }
        if same is not None and _refreshes_only(same.value, value, stamp, refresh_s):
            existing.unchanged.add(same.key)
            return same
        logger.debug("memory stored", extra={"kind": str(kind), "replaced": same is not None})
        item = Item(
            value=value, key=key, namespace=namespace, created_at=_stamp(created), updated_at=_stamp(stamp)
        )
        existing.replace(same, item)
        existing.unchanged.discard(key)
        return item

    async def ingest_turn(
        self,
        user_id: str,
        question: str,
        answer: str,
        *,
        project_id: str | None = None,
        thread_id: str | None = None,
        results: Sequence[tuple[str, Mapping[str, Any], str]] = (),
        answer_usable: bool = True,
        volatile_tools: Collection[str] = (),
        now: float | None = None,
        existing: Sequence[Item] | None = None,
    ) -> list[MemoryItem]:
        """Remember what a turn taught: the user's stated facts, tool results, and the answer (each
        clipped to ``CADENCE_MEMORY_MAX_ITEM_CHARS``).

        ``results`` are ``(tool, args, content)`` of the turn's successful work tools; the answer is
        kept only when it rests on results and is ``answer_usable`` (not a fallback or a suspension).
        ``volatile_tools``: tools whose results are only true when computed (a clock time, see
        :func:`cadence.sdk.volatile`): their results are not kept, nor an answer resting on one.
        ``existing``: the namespace's items as the caller read them earlier in the turn (its
        recall, :attr:`Recall.read`), instead of reading them again: the namespace is read once per
        turn. A memory another turn of the user wrote in between may then be written twice;
        consolidation merges such duplicates (same kind and words).
        """
        limit = self.settings.memory_max_item_chars
        facts = stated_facts(question)
        volatile = [n for n, _, _ in results if n in volatile_tools]
        kept_results = [
            (n, a, c.strip()) for n, a, c in results if c and c.strip() and n not in volatile_tools
        ]
        if volatile:
            logger.debug("volatile results not kept", extra={"tools": sorted(set(volatile))})
        if not facts and not kept_results:
            return []  # nothing to keep: no read of the namespace either
        namespace = self.namespace(user_id, project_id)
        # read once for the whole turn (or not at all: the turn's recall read it)
        known = _Existing(existing if existing is not None else await self._scan(namespace))
        common: dict[str, Any] = {
            "source_thread": thread_id, "now": now, "extra": None, "topic": None,
            "refresh_s": self.settings.memory_refresh_s,
        }  # fmt: skip
        items: list[Item] = []
        for fact in facts:
            items.append(
                self._prepared(
                    namespace,
                    known,
                    clip(fact.text, limit),  # a run-on "I …" clause is told back in every later turn
                    kind=MemoryKind.FACT,
                    statement=clip(fact.statement, limit),
                    **{**common, "topic": fact.topic},
                )
            )
        for name, args, content in kept_results:
            text = clip(content, limit)
            extra = {"tool": name, "args": dict(args), "question": clip(question, limit)}
            items.append(
                self._prepared(
                    namespace,
                    known,
                    text,
                    kind=MemoryKind.RESULT,
                    statement=text,
                    **{**common, "extra": extra},
                )
            )
        if kept_results and not volatile and answer_usable and answer.strip():
            text = clip(f"{question.strip()} — {answer.strip()}", limit)
            items.append(
                self._prepared(
                    namespace, known, text, kind=MemoryKind.ANSWER, statement=clip(answer, limit), **common
                )
            )
        # one write for the turn: one transaction on SQLite and PostgreSQL (not one per memory)
        unique = [i for i in {i.key: i for i in items}.values() if i.key not in known.unchanged]
        if unique:
            await self.store.abatch([PutOp(namespace, i.key, i.value) for i in unique])
        return [MemoryItem.from_store(i) for i in items]

    # -- reading ------------------------------------------------------------------------------
    async def recall(
        self,
        user_id: str,
        question: str,
        *,
        project_id: str | None = None,
        limit: int | None = None,
        min_score: float | None = None,
        result_min_score: float | None = None,
        thread_id: str | None = None,
    ) -> Recall:
        """The memories most relevant to ``question`` (best first) and the adequacy score.

        Facts need ``min_score`` relevance (``CADENCE_MEMORY_MIN_SCORE``); tool results, answers and
        summaries — what was true for another question, maybe for a moment only — need the much
        higher ``result_min_score`` (``CADENCE_MEMORY_RESULT_MIN_SCORE``), and are never recalled
        into ``thread_id``, the thread they come from (its own history holds them already).
        """
        limit = self.settings.memory_recall_limit if limit is None else limit
        floor = self.settings.memory_min_score if min_score is None else min_score
        strong = self.settings.memory_result_min_score if result_min_score is None else result_min_score
        namespace = self.namespace(user_id, project_id)
        items = await self._scan(namespace)
        if not items:
            return Recall(question, read=[])
        if WHAT_IS_KNOWN_RE.match(question):
            return self._everything_told(question, items, limit)
        asked = terms(question)
        if len(items) > THREAD_SCORING_FROM:  # scoring is CPU work: keep the event loop free
            documents, scored = await asyncio.to_thread(_score, asked, items)
        else:
            documents, scored = _score(asked, items)
        scores = scored.relevance
        similarity: dict[str, float] = {}
        if self.semantic and question.strip():
            found = await self.store.asearch(namespace, query=question, limit=len(items), refresh_ttl=False)
            similarity = {i.key: max(0.0, min(1.0, float(i.score or 0.0))) for i in found}
            scores = [max(s, similarity.get(i.key, 0.0)) for s, i in zip(scores, items, strict=True)]
        # "at home", "what's my name": the user's place or name is the question, however the fact said it
        about_user = [t for t in SELF_TERMS if t in asked]
        # only a memory that scores is recalled: the others need no ordering; one holding what the
        # question asks of the user comes first ("what's my name?": "I'm Ingrid" before "my cat is Tom")
        order = sorted(
            (k for k, s in enumerate(scores) if s > 0),
            key=lambda k: (
                not any(t in documents[k] for t in about_user),
                -scores[k],
                -float(items[k].value.get("updated_at") or 0.0),
                items[k].key,
            ),
        )

        # "how much rent do I pay?" asks of "Your monthly rent is 1,250 euros." (the user's own thing)
        mine = set(asked) if asks_about_user(question) else set()

        def wanted(k: int) -> bool:
            value = items[k].value
            if value.get("kind", MemoryKind.FACT) == MemoryKind.FACT:
                return (
                    scores[k] >= floor
                    or any(t in documents[k] for t in about_user)
                    or bool(mine and mine & owned_terms(str(value.get("text") or "")))
                )
            if thread_id is not None and value.get("source_thread") == thread_id:
                return False
            return scores[k] >= max(floor, strong)

        chosen = [k for k in order if wanted(k)][:limit]
        covered = scored.adequacy([documents[k] for k in chosen])
        if similarity and chosen:
            covered = max(covered, max(similarity.get(items[k].key, 0.0) for k in chosen))
        return Recall(
            question,
            [MemoryItem.from_store(items[k], scores[k]) for k in chosen],
            round(covered, 4),
            read=items,
            weights=scored.weights,
            similarity={items[k].key: similarity[items[k].key] for k in chosen if items[k].key in similarity},
        )

    @staticmethod
    def _everything_told(question: str, items: list[Item], limit: int) -> Recall:
        """The recall of a question asking what memory knows of the user: their facts, newest first."""
        facts = [i for i in items if i.value.get("kind", MemoryKind.FACT) == MemoryKind.FACT]
        facts.sort(key=lambda i: (-float(i.value.get("updated_at") or 0.0), i.key))
        chosen = [MemoryItem.from_store(i, 1.0) for i in facts[:limit]]
        return Recall(question, chosen, 1.0 if chosen else 0.0, read=items, whole=True)

    async def list(
        self, user_id: str, *, project_id: str | None = None, limit: int = 50, offset: int = 0
    ) -> list[MemoryItem]:
        """The user's memories (of one project, or all), most recently updated first."""
        prefix = self.namespace(user_id, project_id) if project_id else self.user_prefix(user_id)
        items = [MemoryItem.from_store(i) for i in await self._scan(prefix)]
        items.sort(key=lambda m: (-m.updated_at.timestamp(), m.id))
        return items[offset : offset + limit] if limit > 0 else []

    async def forget(self, user_id: str, memory_id: str, *, project_id: str | None = None) -> bool:
        """Delete one of the user's memories; False when the user has none with that id."""
        prefix = self.namespace(user_id, project_id) if project_id else self.user_prefix(user_id)
        found = [i for i in await self._scan(prefix) if i.key == memory_id]
        for item in found:
            await self.store.adelete(item.namespace, item.key)
        return bool(found)

    async def forget_told(
        self, user_id: str, words: frozenset[str], *, project_id: str | None = None
    ) -> list[MemoryItem]:
        """Delete what the user asked to forget in a conversation ("Forget my age."): the memories of the
        turn's namespace (the project's, or the project-less one) whose text has one of ``words``
        (:func:`~cadence.memory.ingest.forget_request`; every one for an empty set). Returns the forgotten."""
        forgotten: list[MemoryItem] = []
        for item in await self._scan(self.namespace(user_id, project_id)):
            memory = MemoryItem.from_store(item)
            if names_fact(words, memory.text) or names_fact(words, memory.statement):
                await self.store.adelete(item.namespace, item.key)
                forgotten.append(memory)
        logger.info("memories forgotten on request", extra={"count": len(forgotten)})
        return forgotten

    async def forget_all(self, user_id: str, *, project_id: str | None = None) -> int:
        """Delete all of the user's memories (of one project, or all); how many were deleted."""
        prefix = self.namespace(user_id, project_id) if project_id else self.user_prefix(user_id)
        items = await self._scan(prefix)
        for item in items:
            await self.store.adelete(item.namespace, item.key)
        return len(items)

    # -- consolidation ------------------------------------------------------------------------------
    async def consolidate(
        self, user_id: str, *, project_id: str | None = None, now: float | None = None
    ) -> ConsolidationReport:
        """Merge duplicates, keep the newest fact per topic, summarise old results and answers, trim."""
        prefix = self.namespace(user_id, project_id) if project_id else self.user_prefix(user_id)
        report = ConsolidationReport()
        by_namespace: dict[tuple[str, ...], list[Item]] = {}
        for item in await self._scan(prefix):
            by_namespace.setdefault(tuple(item.namespace), []).append(item)
        for namespace, items in by_namespace.items():
            report.add(await self._consolidate_namespace(namespace, items, now))
        return report

    async def consolidate_all(self, now: float | None = None) -> ConsolidationReport:
        """:meth:`consolidate` every user's memories (the idle job of ``cadence serve``)."""
        report = ConsolidationReport()
        users = {
            ns[1] for ns in await self.store.alist_namespaces(prefix=(ROOT,), max_depth=2, limit=SCAN_LIMIT)
        }
        for label in sorted(users):
            report.add(await self.consolidate(decode_label(label), now=now))
        return report

    async def _consolidate_namespace(
        self, namespace: tuple[str, ...], items: list[Item], now: float | None
    ) -> ConsolidationReport:
        report = ConsolidationReport(namespaces=1)
        stamp = time.time() if now is None else now

        def updated(i: Item) -> float:
            return float(i.value.get("updated_at") or 0.0)

        items = sorted(items, key=lambda i: (-updated(i), i.key))  # newest first: the first of a group stays
        keep: list[Item] = []
        seen_words: set[tuple[str, frozenset[str]]] = set()
        seen_topics: set[str] = set()  # of facts: topics, and claims ("claim:…")
        drop: list[Item] = []
        for item in items:
            kind = str(item.value.get("kind") or "")
            words = frozenset(terms(str(item.value.get("text") or ""))) or frozenset(
                {_normal(str(item.value.get("text")))}
            )
            topic = item.value.get("topic")
            # a fact's claim, said or denied ("I'm (not) vegan"): the newest says whether it holds
            claimed = f"claim:{claim(str(item.value.get('text') or ''))}" if kind == MemoryKind.FACT else ""
            if (kind, words) in seen_words:
                report.merged += 1
                drop.append(item)
                continue
            if kind == MemoryKind.FACT and ((topic and topic in seen_topics) or claimed in seen_topics):
                report.superseded += 1
                drop.append(item)
                continue
            seen_words.add((kind, words))
            if kind == MemoryKind.FACT:
                seen_topics.update(t for t in (topic, claimed) if t and t != "claim:")
            keep.append(item)
        days = self.settings.memory_summarize_after_days
        wrote_summary = False
        if days > 0:
            cutoff = stamp - days * 86_400
            old = [
                i
                for i in keep
                if i.value.get("kind") in (MemoryKind.RESULT, MemoryKind.ANSWER, MemoryKind.SUMMARY)
                and updated(i) < cutoff
            ]
            if len(old) > 1 or any(i.value.get("kind") != MemoryKind.SUMMARY for i in old):
                summary = self._summary(sorted(old, key=lambda i: (updated(i), i.key)))
                await self.store.aput(
                    namespace, uuid.uuid4().hex, {**summary, "created_at": stamp, "updated_at": stamp}
                )
                wrote_summary = True
                report.summarised += len(old)  # earlier summaries folded in count too
                drop += old
                keep = [i for i in keep if i not in old]
        extra = len(keep) + (1 if wrote_summary else 0) - self.settings.memory_max_items
        if extra > 0:
            # oldest first, results and answers before facts
            order = sorted(keep, key=lambda i: (i.value.get("kind") == MemoryKind.FACT, updated(i), i.key))
            trimmed = order[:extra]
            report.trimmed += len(trimmed)
            drop += trimmed
        for item in drop:
            # a turn may have written this key since the read (a fact restated on its topic): keep that
            now_there = await self.store.aget(namespace, item.key)
            if now_there is None or now_there.value.get("updated_at") != item.value.get("updated_at"):
                continue
            await self.store.adelete(namespace, item.key)
        if report.changed:
            logger.info(
                "memory consolidated", extra={"namespace": "/".join(namespace[1:]), **report.to_dict()}
            )
        return report

    def _summary(self, old: Sequence[Item]) -> dict[str, Any]:
        """One summary memory of old results and answers (oldest first), within its size limit."""
        limit = self.settings.memory_max_item_chars * SUMMARY_MAX_FACTOR
        first = _stamp(min(float(i.value.get("created_at") or 0.0) for i in old)).date().isoformat()
        last = _stamp(max(float(i.value.get("updated_at") or 0.0) for i in old)).date().isoformat()
        parts = [
            clip(_EARLIER_RE.sub("", str(i.value.get("statement") or i.value.get("text") or "")), 160)
            for i in old
        ]
        head = f"Earlier ({first} to {last}): "
        text = clip(head + " | ".join(p for p in parts if p), limit)
        return {
            "text": text,
            "statement": text,
            "kind": str(MemoryKind.SUMMARY),
            "topic": None,
            "source_thread": None,
        }


_EARLIER_RE = re.compile(r"^Earlier \([^)]*\): ")
"""The head of a summary, dropped when the summary is folded into a newer one (no "Earlier: Earlier:")."""


__all__ = [
    "NO_PROJECT",
    "ROOT",
    "ConsolidationReport",
    "MemoryItem",
    "MemoryKind",
    "MemoryService",
    "Recall",
    "decode_label",
    "encode_label",
]
