"""Lexical recall: terms, Okapi BM25 over a namespace's memories, relevance and the adequacy score.

Pure functions (no store, no I/O), so the formulas are tested on their own.

**Terms.** Lower-cased words and numbers (``[a-z0-9]+``, an apostrophe suffix dropped), without the
shared stopwords (:data:`cadence.text.STOPWORDS`) and a few conversational ones; a plural ``s``
is dropped from words longer than three letters (``compilers`` → ``compiler``); a few words that
ask for the same thing share one term (:data:`_SAME_TERM`: "called" and a thing's "name", "salary"
and "earn", "job" and "work"), and every way of saying where the user is or what they are called
adds one term (:data:`SELF_TERMS`).

**BM25** (Okapi, ``k1 = 1.2``, ``b = 0.75``) of a memory ``d`` for a question ``q`` among the
``N`` memories of the namespace::

    idf(t)   = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5))          n(t): memories holding t
    bm25(d)  = Σ_{t ∈ q} idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 - b + b·|d|/avgdl))

**Relevance** of a memory, 0–1: ``min(1, bm25(d) / Σ_{t ∈ q} idf(t))`` — 1 when the memory
holds every term of the question once at average length; a term the memory lacks costs its
share of the question's idf.

**Adequacy**, 0–1 (how well memory alone answers the question): the idf-weighted share of the
question's terms that the recalled memories hold::

    adequacy = Σ_{t ∈ q} idf(t) · [t in some recalled memory] / Σ_{t ∈ q} idf(t)

A question term no memory holds has the largest idf (``n = 0``), so a question about something
never mentioned scores low even when one of its words is common in memory. A question without
terms ("hi") has adequacy 0.

**Worked out** (:func:`worked_out`): a how-many or how-much question whose words are held by memories
giving two numbers or more ("How many hours do I work in a week?" of "I work 8 hours a day, 5 days a
week.") is answered by working them out, not by saying the memories again: they hold its words, yet do
not answer it alone.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from cadence.text import BIRTH_YEAR_ASKED_RE, STOPWORDS, numbers_from_words, sentences

K1 = 1.2
"""BM25 term-frequency saturation."""
B = 0.75
"""BM25 length normalisation."""

_EXTRA_STOPWORDS = """am have has had i'm im i've ive we our us know remember recall again also just
    yes no ok okay
    please thanks thank hi hello hey sorry remind would could should there their them they then than so very
    really any some much many one get got"""

MEMORY_STOPWORDS = STOPWORDS | frozenset(_EXTRA_STOPWORDS.split())
"""Words that say nothing about what a memory or a question is about."""

_TOKEN_RE = re.compile(r"[^\W_]+(?:'[^\W_]+)?|[\u2600-\u27bf\U0001f000-\U0001faff]")
"""A word in any script ("zürich", "寿司", "русский"), or an emoji: each is a term."""


_SAME_TERM = {
    "called": "called",
    "named": "called",
    "name": "called",
    "names": "called",
    "earning": "earn",
    "earns": "earn",
    "salary": "earn",
    "wage": "earn",
    "wages": "earn",
    "paid": "earn",
    "income": "earn",
    "job": "work",
    "jobs": "work",
    "occupation": "work",
    "profession": "work",
    "monthly": "month",
    "weekly": "week",
    "yearly": "year",
    "annual": "year",
    "annually": "year",
    "daily": "day",
    "hourly": "hour",
}
"""Words that ask for the same thing as another, one term each: "what's my dog called?" asks its name
("called", so the word "name" never stands for :data:`NAME_TERM`, the user's own name); "how much do I
earn" is asked of "my salary is ...", "I'm paid $28 an hour"; "what's my job?" of "I work as a nurse"."""


_EARNS_RE = re.compile(r"\b(?:make|makes|making|get|gets|take home|bring in)\s+(?=[$€£]?\d)")
"""An amount made or got ("I make $28 an hour", "I get 3,000 a month"): a term ``earn``, as "salary" is."""


def stem(word: str) -> str:
    """A light stem: a plural ``s`` dropped from words longer than three letters (not ``ss``)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


PLACE_TERM = "live"
"""The one term of every way to say where the user lives or is (see :data:`_SELF_PLACE_RE`)."""
_SELF_PLACE_RE = re.compile(
    r"\b(?:i(?:'m| am)? (?:now |currently |still )?(?:live|living|based|located|staying|stay|reside|residing"
    r"|from|work(?:ing)? (?:from|remotely from))|i come from|i grew up"
    r"|i (?:just |recently |have |'ve )?(?:moved|relocated) to|where i(?:'m| am)?\b"
    r"|my (?:home|hometown|home town|city|town"
    r"|country|area|place|location)|(?:at|back) home)\b|\b(?:here|(?<!old )am i)\s*[?.!]*$"
    r"|\bbetween here and\b"
    r"|\b(?:time|date|day|clock|hour)\b[^.?!]{0,30}\bfor me\b|\bbetween me and\b|\band me\s*[?.!]*$"
    r"|\b(?:ahead of|behind) me\b",
    re.IGNORECASE,
)
"""Where the user lives or is, in a statement ("I'm based in Lisbon", "I come from Oslo") or a question
("where I live", "in my city", "at home", "… here?", "how far ahead of London am I?", "how far ahead of me
is London?"): the words differ,
so each also counts as :data:`PLACE_TERM`, and "What time is it at home?" recalls "I'm based in
Lisbon"."""


NAME_TERM = "name"
"""The one term of every way to give or ask the user's name (see :data:`_SELF_NAME_RE`)."""
_SELF_NAME_RE = re.compile(
    r"\b(?:[Mm]y name|[Cc]all me|[Ii]'?m called|[Ii] am called|[Ww]ho am [Ii]"
    r"|(?:I'?m|I am) [A-Z][a-z]+\b(?!'))"
)
"""The user's name, given ("I'm Ingrid", "Call me Al", "my name is Bo") or asked ("what's my name?"); the
case counts: "I'm Ingrid" names someone, "I'm tired" does not."""
AGE_TERM = "born"
"""The one term of every way to give or ask the user's age or birth (see :data:`_SELF_AGE_RE`)."""
_SELF_AGE_RE = re.compile(
    r"\bi was born\b|\bmy (?:birthday|birth ?date|date of birth|age)\b|\bhow old (?:am|will|was|would) i\b"
    r"|\bi(?:'m| am) \d+(?: years?(?: old)?)?\b(?! (?:minutes|hours|km|miles|kg))",
    re.IGNORECASE,
)
"""The user's age or birth, given ("I was born on 3 March 1995", "my birthday is …", "I'm 30") or asked ("How
old am I?"): "How old am I?" recalls "I was born on …", which the agents turn into an age."""
SELF_TERMS = (PLACE_TERM, NAME_TERM, AGE_TERM)
"""Terms that stand for something about the user, however it is said: a question holding one recalls the
facts holding it, whatever their other words."""


def terms(text: str) -> list[str]:
    """The content terms of ``text``, in order (repeats kept: they are term frequencies); a mention of
    where the user lives or is adds :data:`PLACE_TERM` once, of their name :data:`NAME_TERM`, of their age
    or birth :data:`AGE_TERM`."""
    named = _SELF_NAME_RE.search(text.replace("’", "'")) is not None
    text = text.lower().replace("’", "'")
    out = []
    for token in _TOKEN_RE.findall(text):
        word = token.split("'", 1)[0]
        if token in MEMORY_STOPWORDS or word in MEMORY_STOPWORDS or not word:
            continue
        if named and word in ("name", "names"):
            continue  # "my name is Ada", "what's my name?": the user's own name, NAME_TERM below
        out.append(_SAME_TERM.get(word) or stem(word))
    if "earn" not in out and _EARNS_RE.search(text):
        out.append("earn")
    if PLACE_TERM not in out and _SELF_PLACE_RE.search(text):
        out.append(PLACE_TERM)
    if named and NAME_TERM not in out:
        out.append(NAME_TERM)
    if AGE_TERM not in out and _SELF_AGE_RE.search(text):
        out.append(AGE_TERM)
    return out


_OWNED_RE = re.compile(
    r"^\s*(?:your|my)\s+(?P<what>[\w' -]{1,40}?)\s+(?:is|are|was|were|costs?)\b", re.IGNORECASE
)
"""A fact about a thing of the user's ("Your monthly rent is 1,250 euros.", "Your dog's name is Biscuit.")."""


def owned_terms(fact: str) -> set[str]:
    """The terms naming the user's own thing that ``fact`` is about ("rent" and "month" of "Your monthly rent
    is 1,250 euros."); empty for any other fact. A question about the user holding one recalls the fact
    whatever its score: "how much rent do I pay in a year?" shares one word of four with it."""
    match = _OWNED_RE.match(fact)
    return set(terms(match.group("what"))) if match else set()


def idf(n: int, total: int) -> float:
    """BM25's inverse document frequency of a term held by ``n`` of ``total`` memories."""
    return math.log(1.0 + (total - n + 0.5) / (n + 0.5))


def bm25(
    query: Sequence[str],
    documents: Sequence[Sequence[str]],
    frequencies: Sequence[Counter[str]] | None = None,
) -> list[float]:
    """The BM25 score of every document (a list of terms) for the query terms (see the module docs).

    ``frequencies``: the documents' term counts, when the caller has them already.
    """
    total = len(documents)
    if total == 0:
        return []
    unique = list(dict.fromkeys(query))
    average = sum(len(d) for d in documents) / total or 1.0
    counts = frequencies if frequencies is not None else [Counter(d) for d in documents]
    weights = {t: idf(sum(1 for f in counts if t in f), total) for t in unique}
    return [_bm25_of(freq, len(doc), average, weights) for doc, freq in zip(documents, counts, strict=True)]


def _bm25_of(freq: Counter[str], length: int, average: float, weights: dict[str, float]) -> float:
    """BM25 of one document (its term counts ``freq`` and ``length``) for the question terms' ``weights``."""
    norm = K1 * (1 - B + B * length / average)
    value = 0.0
    for t, weight in weights.items():
        tf = freq.get(t, 0)
        if tf:
            value += weight * tf * (K1 + 1) / (tf + norm)
    return value


@dataclass(frozen=True)
class Scored:
    """A question scored against a namespace's memories in one pass (:func:`score`)."""

    relevance: list[float]
    """Every document's relevance, 0–1, in the documents' order (0 for one holding no question term)."""
    weights: dict[str, float]
    """The idf of each distinct question term among the documents: the adequacy's weights."""

    def adequacy(self, recalled: Sequence[Sequence[str]]) -> float:
        """How well the ``recalled`` documents cover the question, 0–1 (see the module docs)."""
        whole = sum(self.weights.values())
        if whole <= 0:
            return 0.0
        held = set().union(*recalled) if recalled else set()
        covered = sum(w for t, w in self.weights.items() if t in held)
        return round(covered / whole, 4)


def score(query: Sequence[str], documents: Sequence[Sequence[str]]) -> Scored:
    """Every document's relevance and the question terms' idf, in one pass (the module's formulas).

    The documents are walked once with a set test each; counting, idf and BM25 touch only the
    documents that hold a question term (the others score 0 and add nothing to any ``n(t)``).
    """
    unique = list(dict.fromkeys(query))
    total = len(documents)
    if not unique:
        return Scored([0.0] * total, {})
    asked = set(unique)
    matching = [k for k, doc in enumerate(documents) if not asked.isdisjoint(doc)]
    counts = {k: Counter(documents[k]) for k in matching}
    holding = {t: sum(1 for c in counts.values() if t in c) for t in unique}
    weights = {t: idf(holding[t], max(total, 1)) for t in unique}
    scores = [0.0] * total
    ceiling = sum(weights.values())
    if not matching or ceiling <= 0:
        return Scored(scores, weights)
    average = sum(len(d) for d in documents) / total or 1.0
    for k in matching:
        scores[k] = min(1.0, _bm25_of(counts[k], len(documents[k]), average, weights) / ceiling)
    return Scored(scores, weights)


_PART_RE = re.compile(r"[,;:]|[.!?](?:\s|$)|\b(?:and|or|also|plus)\b", re.IGNORECASE)
"""Where a question asks one more thing: "Where do I live and what do I work on?" asks two."""


def question_parts(question: str) -> list[list[str]]:
    """The terms of each part of ``question`` (split at "and", "or", commas and sentence ends)."""
    return [found for part in _PART_RE.split(question) if (found := terms(part))]


def coherent_adequacy(
    parts: Sequence[Sequence[str]], recalled: Sequence[Sequence[str]], weights: dict[str, float]
) -> float:
    """How well the ``recalled`` memories answer the question when each of its ``parts`` must be answered by
    one memory, 0–1: of every part, the terms the memory holding most of its weight holds, weighted
    like :meth:`Scored.adequacy`. "What is my wife's name?" is half answered by "My wife is a doctor."
    and "My name is Ada." (each holds one of its terms), "Where do I live and what do I work on?"
    wholly by "I live in Rome." and "I work on compilers." (each answers one part).
    """
    whole = sum(weights.values())
    if whole <= 0 or not recalled:
        return 0.0
    held_by = [set(doc) for doc in recalled]
    held: set[str] = set()
    for part in parts:
        asked = set(part) & weights.keys()
        best = max(held_by, key=lambda doc: sum(weights[t] for t in asked & doc))
        held |= asked & best
    return round(sum(weights[t] for t in held) / whole, 4)


def relevance(query: Sequence[str], documents: Sequence[Sequence[str]]) -> list[float]:
    """Every document's relevance, 0–1: its BM25 over the question's total idf, capped at 1."""
    return score(query, documents).relevance


def adequacy(
    query: Sequence[str], recalled: Sequence[Sequence[str]], documents: Sequence[Sequence[str]]
) -> float:
    """How well the ``recalled`` memories cover the question, 0–1 (idf over all ``documents``)."""
    return score(query, documents).adequacy(recalled)


_WORKED_OUT_RE = re.compile(
    r"^\W*(?:(?:so|and|then|ok|okay)\W+)?(?:how\s+(?:many|much|long|far)|what(?:'s|\s+is|\s+are)\s+"
    r"(?:the\s+|my\s+)?(?:total|sum|average|combined))\b",
    re.IGNORECASE,
)
"""A question asking for a number ("How many hours ...", "How much ...", "What's the total ...")."""
_NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
"""A number in digits ("8", "1,250", "7.5")."""


_AGE_RE = re.compile(
    r"\b\d{1,3}\s+years?\s+(?:old|of\s+age)\b|\b(?:i'm|i\s+am|you're|you\s+are)\s+\d{1,3}\s*[.!]?$",
    re.IGNORECASE,
)
"""An age told ("You're 34 years old.")."""


def worked_out(question: str, memories: Sequence[str]) -> bool:
    """Whether ``question`` asks a number worked out of numbers that ``memories`` give: a how-many or
    how-much question, and the memories sharing a term with it and the question itself give two numbers or
    more, in digits or in words ("How many hours do I work in a week?" of "I work 8 hours a day, 5 days a
    week."; "I sleep 8 hours a night. How many hours do I sleep in a week?" of "You sleep 8 hours a
    night."; not "How many kids do I have?" of "I have 3 kids."); or a year of birth asked of a told age
    ("In what year was I born?" of "You're 34 years old.")."""
    if BIRTH_YEAR_ASKED_RE.search(question) and any(_AGE_RE.search(m) for m in memories):
        return True
    if not any(_WORKED_OUT_RE.search(sentence) for sentence in sentences(question)):
        return False  # asked first, or after what it tells ("I sleep 8 hours a night. How many ...")
    asked = set(terms(question))
    sharing = [m for m in memories if asked & set(terms(m))]
    given = len(_NUMBER_RE.findall(numbers_from_words(question)))  # "I sleep 8 hours a night. ... a week?"
    return sum(len(_NUMBER_RE.findall(numbers_from_words(m))) for m in sharing) + given >= 2


__all__ = [
    "K1",
    "MEMORY_STOPWORDS",
    "B",
    "Scored",
    "adequacy",
    "bm25",
    "coherent_adequacy",
    "idf",
    "question_parts",
    "relevance",
    "score",
    "stem",
    "terms",
    "worked_out",
]
