"""Reading long tool results: the sentences and passages of a document that are about a question.

A search result or a document is too long to quote whole; an answer made of it (the final-answer
check's faithful answer, the embedded model's answer from documents) quotes the sentences that share
the most topic words with the question (:func:`relevant_sentences`), else the best paragraphs
(:func:`relevant_passages`). Only words are compared: nothing here calls a model.
"""

from __future__ import annotations

import re

from cadence.text import STOPWORDS

MAX_RESULT_CHARS = 600
"""Longest single result quoted in a faithful answer (longer ones are cut at a sentence)."""


WORD_RE = re.compile(r"[A-Za-z][A-Za-z_'-]{3,}")


SENTENCE_RE = re.compile(r"(?<=[.!?])\s+|\n+")


COMMON_WORDS = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "against",
        "also",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "could",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "from",
        "further",
        "have",
        "having",
        "here",
        "into",
        "itself",
        "just",
        "more",
        "most",
        "other",
        "over",
        "same",
        "should",
        "some",
        "such",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "under",
        "until",
        "very",
        "what",
        "when",
        "where",
        "which",
        "while",
        "with",
        "would",
        "your",
        "yours",
        "answer",
        "question",
        "result",
        "results",
        "found",
        "tool",
        "tools",
        "agent",
        "agents",
        "allows",
        "uses",
        "used",
        "using",
        "means",
        "lets",
        "called",
        "explains",
        "describes",
        "says",
        "shows",
        "needs",
        "makes",
        "gives",
        "there",
    ]
)


def content_words(text: str) -> set[str]:
    return {w.lower() for w in WORD_RE.findall(text)} - COMMON_WORDS


_IDENTIFIER_RE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|`[^`\s]{3,}`")
"""A name in code: a setting ``CADENCE_MAX_TOOL_HOPS``, or anything in backquotes."""


def _identifiers(text: str) -> set[str]:
    return {m.group(0).strip("`").lower() for m in _IDENTIFIER_RE.finditer(text)}


MAX_SENTENCES = 4
"""Sentences quoted from a document-like result in a faithful answer."""
MIN_SENTENCE_CHARS = 20
"""A shorter sentence is not quoted alone ("A world clock."): it goes with the next one."""


def relevant_sentences(
    text: str, question: str, limit: int = MAX_RESULT_CHARS, *, or_passages: bool = True
) -> str:
    """The sentences of a long result that are most about the question, in their order.

    A sentence ranks by how many of the question's words it has (with those of the heading of its
    passage, in a search result's citation line ``[1] path:line — heading``: "Plugin metadata"
    is what the list under it is about), then by how early the first one comes (a sentence that
    starts with the topic is about it: "The synthesizer writes the final answer"; so is one under
    a heading that names it), then by its passage's place (a search result lists its best passage
    first), then by its own place; the best one is quoted with the sentence after it (which
    usually elaborates), then the next best. A sentence shorter than :data:`MIN_SENTENCE_CHARS`
    opens the next one. Lines that introduce what follows (ending with ``:``) and citation lines
    are left out. When no sentence is about the question: the best passages, or "" without
    ``or_passages``.
    """
    wanted = topic_words(question)
    sentences: list[tuple[str, set[str], int]] = []  # text, heading words asked about, passage number
    heading: set[str] = set()
    passage = 0
    for line in text.splitlines():
        citation = _CITATION_LINE_RE.match(line)
        if citation:
            heading = topic_words(citation.group(1) or "") & wanted
            passage += 1
            continue
        if not line.strip() or line.rstrip().endswith(":"):
            continue
        short = ""  # a sentence too short to stand alone ("A world clock.") opens the next one
        for part in re.split(r"(?<=[.!?])\s+|\s+-\s+(?=`)", line):
            part = f"{short} {_BULLET_RE.sub('', part).strip()}".strip()
            short = part if len(part) < MIN_SENTENCE_CHARS else ""
            if not short:
                sentences.append((part, heading, passage))
        if short:
            sentences.append((short, heading, passage))
    scored = []
    for index, (sentence, about, rank) in enumerate(sentences):
        words = topic_word_list(sentence)
        hits = [i for i, (w, _) in enumerate(words) if w in wanted]
        if (hits or about) and len(sentence) >= MIN_SENTENCE_CHARS:
            first = 0 if about else hits[0]  # under a heading that names the topic, it leads
            # a word said counts 1, a part of an identifier (``CADENCE_SUSPEND_LLM``) half
            said = {words[i][0] for i in hits if not words[i][1]} | about
            parts = {words[i][0] for i in hits if words[i][1]} - said
            scored.append((-(len(said) + len(parts) / 2), first, rank, index))
    if not scored:
        return relevant_passages(text, question, limit) if or_passages else ""
    named = _identifiers(question)
    naming = [i for *_, i in scored if named & _identifiers(sentences[i][0])] if named else []
    if naming:
        # the question names a setting or a name in code ("what does CADENCE_MAX_TOOL_HOPS do"): the
        # sentences that name it, not the list around them
        scored = [entry for entry in scored if entry[-1] in naming]
        chosen = sorted(i for *_, i in sorted(scored)[:MAX_SENTENCES])
        return shorten(" ".join(end_sentence(sentences[i][0].lstrip("…").strip()) for i in chosen), limit)
    ranked = [index for *_, index in sorted(scored)]
    best = ranked[0]
    picked = [best]
    if best + 1 < len(sentences):  # the sentence after the best one usually elaborates on it
        picked.append(best + 1)
    picked += [i for i in ranked[1:] if i not in picked]
    chosen = sorted(picked[:MAX_SENTENCES])
    return shorten(" ".join(end_sentence(sentences[i][0].lstrip("…").strip()) for i in chosen), limit)


_BULLET_RE = re.compile(r"^(?:[\s…*•-]+|\d+[.)](?=\s|$))+|\*\*")


_TOPIC_TOKEN_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.'-]*[A-Za-z0-9]")


_NOT_TOPICS = STOPWORDS | {"whats", "according", "tell", "say", "says", "said", "know", "like", "want"}


def topic_word_list(text: str) -> list[tuple[str, bool]]:
    """The words of ``text`` that can say what it is about, in order, singular, lower case: three
    letters or more ("max" counts), and the parts of an identifier too (``CADENCE_MAX_TOOL_HOPS``:
    max, tool, hop; flagged ``True``), without function words."""
    out: list[tuple[str, bool]] = []
    for token in _TOPIC_TOKEN_RE.findall(text):
        parts = [p for p in re.split(r"[_.]+", token.lower()) if p]
        for part in parts:
            for word in re.split(r"['-]+", part):
                if len(word) >= 3 and word.isalpha() and word not in _NOT_TOPICS:
                    out.append((singular(word), len(parts) > 1))
    return out


def topic_words(text: str) -> set[str]:
    """The words of :func:`topic_word_list`, as a set."""
    return {w for w, _ in topic_word_list(text)}


_CITATION_LINE_RE = re.compile(r"\s*\[\d+\]\s+\S+(?:\s+—\s+(.*))?$")
"""A search result's citation line, ``[1] path:line — heading`` (group 1: the heading)."""


def cites_passages(text: str) -> bool:
    """Whether ``text`` is a search result: passages under citation lines (``[1] path:line — heading``)."""
    return any(_CITATION_LINE_RE.match(line) for line in text.splitlines())


def singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def relevant_passages(text: str, question: str, limit: int = MAX_RESULT_CHARS) -> str:
    """The paragraphs of a long result that share the most words with the question, in their order.

    Lines that only introduce what follows (ending with ``:``) are left out.
    """
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    content = [p for p in paragraphs if not p.rstrip().endswith(":")] or paragraphs
    if len(content) <= 1 or len(text) <= limit:
        return shorten("\n".join(content), limit)
    wanted = content_words(question)
    ranked = sorted(range(len(content)), key=lambda i: (-len(content_words(content[i]) & wanted), i))
    chosen: list[int] = []
    size = 0
    for i in ranked:
        if chosen and size + len(content[i]) > limit:
            break
        chosen.append(i)
        size += len(content[i])
    return shorten("\n".join(content[i] for i in sorted(chosen)), limit)


def shorten(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind("! "))
    return (cut[: end + 1] if end > limit // 3 else cut.rstrip() + "…").strip()


def end_sentence(sentence: str) -> str:
    """``sentence`` with a final full stop, unless it ends with one already (or ``!``, ``?``, ``…``, or
    ``:`` when it introduces what follows)."""
    sentence = sentence.strip()
    return sentence if not sentence or sentence[-1] in ".!?…:" else sentence + "."


__all__ = [
    "COMMON_WORDS",
    "MAX_RESULT_CHARS",
    "SENTENCE_RE",
    "WORD_RE",
    "content_words",
    "end_sentence",
    "relevant_passages",
    "relevant_sentences",
    "shorten",
    "topic_words",
]
