"""Reading long tool results: the sentences and passages of a document that are about a question.

A search result or a document is too long to quote whole; an answer made of it (the final-answer
check's faithful answer, the embedded model's answer from documents) quotes the sentences that share
the most topic words with the question (:func:`relevant_sentences`), else the best paragraphs
(:func:`relevant_passages`). Only words are compared: nothing here calls a model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from cadence.text import (
    NOT_TOPICS,
    NUMBER_WORDS,
    RELATED_STRENGTH,
    RELATED_WORDS,
    STOPWORDS,
    THE_DOCS_RE,
    WEAK_WEIGHT,
    WEAK_WORDS,
    one_word_phrases,
    stem,
)

MAX_RESULT_CHARS = 600
"""Longest single result quoted in a faithful answer (longer ones are cut at a sentence)."""


WORD_RE = re.compile(r"[A-Za-z][A-Za-z_'-]{3,}")


SENTENCE_RE = re.compile(r"(?<=[.!?…])\s+|\n+")


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


MAX_SENTENCES = 3
"""Sentences quoted from a document-like result in a faithful answer."""
MIN_SENTENCE_CHARS = 20
"""A shorter sentence is not quoted alone ("A world clock."): it goes with the next one."""
KEEP_RATIO = 0.85
"""A sentence scoring less than this share of the best one's score is not quoted with it."""


@dataclass(frozen=True)
class _Sentence:
    """A sentence of a result, with what :func:`relevant_sentences` needs to know about its place."""

    text: str
    about: Mapping[str, float]
    """The question's words that the heading of its passage has, with their strengths."""
    passage: int
    item: int
    """The bullet or paragraph it belongs to: the next sentence of the same item continues it."""
    fragment: bool
    """It begins where a search snippet was cut ("…at every checkout."): not a whole sentence."""
    cut: bool
    """It ends where a search snippet was cut ("`CADENCE_INLINE_TOOL_MAX…")."""
    defines: frozenset[str] = frozenset()
    """The words (stemmed) of the term it defines, if any (:func:`defined_term`)."""


def relevant_sentences(
    text: str, question: str, limit: int = MAX_RESULT_CHARS, *, or_passages: bool = True
) -> str:
    """The sentences of a long result that are most about the question, the best one first.

    A sentence scores by the question's words it has (:meth:`Asked.score`: each word once, a weak
    word such as "have" or "two" little, a related word ("one" for "single") or a part of an
    identifier less than the word itself), with the words of the heading of its passage, in a
    search result's citation line ``[1] path:line — heading`` ("Plugin metadata" is what the list
    under it is about); a sentence defining a term of the question scores more (:data:`DEFINITION_BONUS`).
    Ties go to the sentence that says more of the question's words itself (under a heading that has them
    all, "a web chat page" for "a web interface"), then to the one whose first such word comes earliest
    (a sentence that starts with the topic is about it: "The synthesizer writes the final answer"; so is
    one under a heading that names it), then to the earlier passage (a search result lists its best
    passage first), then to the earlier sentence.

    The best sentence is quoted first, with the next sentence of its bullet or paragraph (which
    usually elaborates on it) if that one is about the question too, and with what it introduces
    when it ends with ``:``. When it clearly answers (it has every word of a question of two words or
    more that matter: :meth:`Asked.answered_by`) that is all; else the next best ones follow, in
    their order, up to :data:`MAX_SENTENCES`, without those well below the best (:data:`KEEP_RATIO`)
    and without a second sentence about the same setting (two documents list it). A sentence that a
    search snippet cut at its start ("…at every checkout.") is quoted only when no whole one is
    about the question. A sentence shorter than :data:`MIN_SENTENCE_CHARS` opens the next one.
    Lines that introduce what follows (ending with ``:``) and citation lines are left out. When no
    sentence is about the question: the best passages, or "" without ``or_passages``.
    """
    asked = Asked(question)
    sentences = _sentences(text, asked)
    # (-score, -the question's words it says itself, first word's place, passage, index)
    scored: list[tuple[float, int, int, int, int]] = []
    for index, sentence in enumerate(sentences):
        if len(sentence.text) >= MIN_SENTENCE_CHARS:
            score, first = asked.score(sentence.text, sentence.about)
            if score > 0:
                score += asked.definition_bonus(sentence.defines)
                own = len(asked.said_in(sentence.text))
                scored.append((-score, -own, first, sentence.passage, index))
    if not scored:
        return relevant_passages(text, question, limit) if or_passages else ""
    # a snippet's cut start is no sentence to quote when a whole one is about the question
    scored = sorted([entry for entry in scored if not sentences[entry[-1]].fragment] or scored)
    named = _identifiers(question)
    naming = [i for *_, i in scored if named & _identifiers(sentences[i].text)] if named else []
    if naming:
        # the question names a setting or a name in code ("what does CADENCE_MAX_TOOL_HOPS do"): the
        # sentences that name it, not the list around them, each setting's own entry once (two documents
        # list it)
        entries: set[str] = set()
        once: list[int] = []
        for i in naming:
            subject = _subject(sentences[i].text)
            if subject and subject in entries:
                continue
            entries |= {subject} - {""}
            once.append(i)
        return _quote([sentences[i] for i in sorted(once[:MAX_SENTENCES])], limit)
    best_score, best = -scored[0][0], scored[0][-1]
    picked = [best]
    following = best + 1
    if (
        following < len(sentences)
        and sentences[following].item == sentences[best].item
        and not sentences[best].cut
        and asked.score(sentences[following].text, sentences[following].about)[0] > 0
    ):
        picked.append(following)  # the next sentence of its bullet or paragraph usually elaborates
    if sentences[best].text.endswith(":"):  # what it introduces (a list) follows
        following = best + 1
        while following < len(sentences) and len(picked) < MAX_SENTENCES:
            if sentences[following].passage != sentences[best].passage:
                break
            picked.append(following)
            following += 1
    if asked.answered_by("", sentences[best].about):
        # its heading alone answers ("How plugins are found" for "how are plugins discovered"): the
        # section's sentences are the answer, in their order
        following = best + 1
        while following < len(sentences) and len(picked) < MAX_SENTENCES:
            if sentences[following].passage != sentences[best].passage:
                break
            if following not in picked:
                picked.append(following)
            following += 1
    elif not asked.answered_by(sentences[best].text, sentences[best].about):
        kept: list[int] = []
        subjects = {_subject(sentences[i].text) for i in picked} - {""}
        for negated, *_, i in scored[1:]:
            subject = _subject(sentences[i].text)
            if len(picked) + len(kept) >= MAX_SENTENCES or -negated < KEEP_RATIO * best_score:
                break
            if sentences[i].text.endswith(":"):
                continue  # it introduces what is not quoted ("... with two class methods:")
            if i not in picked and subject not in subjects:  # a setting is said once (two documents list it)
                kept.append(i)
                subjects |= {subject} - {""}
        picked += sorted(kept)
    return _quote([sentences[i] for i in picked], limit)


def _quote(sentences: list[_Sentence], limit: int) -> str:
    return shorten(" ".join(end_sentence(s.text.lstrip("…").strip()) for s in sentences), limit)


_BULLET_START_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])(?=\s)")
"""A line that starts a bullet of a list (``- ``, ``* ``, ``1. ``)."""
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?…])\s+|\s+(?=-\s+[`*])")
"""Where a sentence ends in a line: after ``.``, ``!``, ``?`` or the ``…`` a snippet cut it at, and before a
bullet folded into it (`` - `CADENCE_MODE` ...``, as search snippets join the lines of a list)."""
_CUT_START_RE = re.compile(r"^…\s*[a-z,;:)\]]")
"""A line that a search snippet begins in the middle of a sentence ("…at every checkout.")."""


def _logical_lines(text: str) -> list[str]:
    """The lines of ``text``, with the indented lines that continue a bullet joined to it."""
    lines: list[str] = []
    in_bullet = False
    for line in text.splitlines():
        if in_bullet and line[:1].isspace() and line.strip() and not _BULLET_START_RE.match(line):
            lines[-1] = f"{lines[-1].rstrip()} {line.strip()}"
            continue
        in_bullet = bool(_BULLET_START_RE.match(line))
        lines.append(line)
    return lines


def _sentences(text: str, asked: Asked) -> list[_Sentence]:
    """The sentences of a result, each with its passage's heading words, passage and item."""
    sentences: list[_Sentence] = []
    heading: Mapping[str, float] = {}
    passage = 0
    item = 0
    lines = _logical_lines(text)
    # the first passage shown of each section (by its line in the document): its opening sentence
    # introduces what the section's title names ("A world clock. Tools: …" under "Built-in plugins > info")
    opening: dict[tuple[str, str], int] = {}
    for line in lines:
        citation = _CITATION_LINE_RE.match(line)
        if citation and citation.group("line"):
            key = (citation.group("path"), citation.group("heading") or "")
            opening[key] = min(opening.get(key, int(citation.group("line"))), int(citation.group("line")))
    introduces: frozenset[str] = frozenset()  # the title words the next sentence introduces
    for line in lines:
        citation = _CITATION_LINE_RE.match(line)
        if citation:
            title = citation.group("heading") or ""
            heading = asked.in_heading(title)
            passage += 1
            item += 1
            first = citation.group("line") and opening.get((citation.group("path"), title)) == int(
                citation.group("line")
            )
            introduces = topic_words(title.rsplit(" > ", 1)[-1]) if first else frozenset()
            continue
        if not line.strip() or line.rstrip().endswith(":"):
            continue
        if _BULLET_START_RE.match(line):
            item += 1
        fragment = bool(_CUT_START_RE.match(line.lstrip()))
        short = ""  # a sentence too short to stand alone ("A world clock.") opens the next one
        defines: frozenset[str] = frozenset()
        parts = [p for p in _SENTENCE_SPLIT_RE.split(line.strip()) if p.strip()]
        for number, raw in enumerate(parts):
            if number and _BULLET_START_RE.match(raw):
                item += 1
            if not short:
                defines = frozenset() if fragment and not number else defined_term(raw)
                if not defines and introduces and not raw.startswith("…") and not _subject(raw):
                    defines = introduces  # a section's opening sentence, not one about a setting
                introduces = frozenset()
            part = f"{short} {_BULLET_RE.sub('', raw).strip()}".strip()
            short = part if len(part) < MIN_SENTENCE_CHARS else ""
            cut = number == len(parts) - 1 and raw.rstrip().endswith("…")
            if fragment and not number and short:
                short = ""  # a few words left of a cut sentence ("…no clipping.") open nothing
                continue
            if not short:
                sentences.append(
                    _Sentence(part, heading, passage, item, fragment and number == 0, cut, defines)
                )
        if short:
            ends_cut = line.rstrip().endswith("…")
            sentences.append(_Sentence(short, heading, passage, item, False, ends_cut, defines))
    return sentences


_BULLET_RE = re.compile(r"^(?:[\s…*•-]+|\d+[.)](?=\s|$))+|\*\*")

_DEFINES_RE = re.compile(
    r"^[\s…]*(?:[-*•]\s+|\d+[.)]\s+)?(?:(?:the|an?)\s+)?"
    r"(?:\*\*(?P<bold>[^*]{1,60})\*\*|(?P<subject>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2}?)\s+(?:is|are)\s)",
    re.IGNORECASE,
)
"""The start of a sentence that defines a term: a bold term ("- **supervisor**: …") or the subject of its
"is"/"are" ("Cadence is …"), after a bullet and an article."""


_NOT_SUBJECT = STOPWORDS | frozenset(
    [
        "if",
        "unless",
        "once",
        "while",
        "because",
        "although",
        "since",
        "after",
        "before",
        "every",
        "each",
        "all",
        "some",
        "there",
        "here",
    ]
)
"""Words that do not begin the term a sentence defines ("If limits are reached", "There are two")."""


def defined_term(sentence: str) -> frozenset[str]:
    """The words (stemmed) of the term a sentence defines: a bold term it starts with ("- **supervisor**:
    a supervisor hands the question off…", "The **synthesizer** writes…") or the subject of its "is" or
    "are" ("Cadence is a multi-agent conversation framework", "A mode is how…"); empty otherwise."""
    match = _DEFINES_RE.match(sentence)
    if not match:
        return frozenset()
    subject = match.group("subject")
    if subject and any(word.lower() in _NOT_SUBJECT for word in subject.split()):
        return frozenset()  # "If a limit is reached", "This is": no term defined
    return frozenset(word for word, _ in topic_word_list(match.group("bold") or subject))


_TOPIC_TOKEN_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.'-]*[A-Za-z0-9]")


_NOT_TOPICS = NOT_TOPICS


def topic_word_list(text: str) -> list[tuple[str, bool]]:
    """The words of ``text`` that can say what it is about, in order, stemmed (:func:`stem`), lower
    case: three letters or more ("max" counts), and the parts of an identifier too
    (``CADENCE_MAX_TOOL_HOPS``: max, tool, hop; flagged ``True``, as the words of a path such as
    ``docs/memory.md``), without function words."""
    out: list[tuple[str, bool]] = []
    for match in _TOPIC_TOKEN_RE.finditer(text):
        parts = [p for p in re.split(r"[_.]+", match.group(0).lower()) if p]
        in_path = "/" in text[match.start() - 1 : match.start()] + text[match.end() : match.end() + 1]
        for part in parts:
            for word in re.split(r"['-]+", part):
                if len(word) >= 3 and word.isalpha() and word not in _NOT_TOPICS:
                    out.append((stem(word), len(parts) > 1 or in_path))
    return out


def topic_words(text: str) -> set[str]:
    """The words of :func:`topic_word_list`, as a set."""
    return {w for w, _ in topic_word_list(text)}


PARENT_HEADING_STRENGTH = 0.75
"""What a word of the question counts in a heading above the section a sentence is in, against 1 in
the sentence or in the title of its section: "When several places share a name" under "Built-in
plugins > info" is less about plugins than "When two plugins share a name"."""
PART_STRENGTH = 0.5
"""What a part of an identifier (``CADENCE_SUSPEND_LLM``: suspend, llm) counts, against 1 for a word."""
LATE = 30
"""From this word of a sentence on, a word of the question counts least (:data:`LATE_DISCOUNT`)."""
LATE_DISCOUNT = 0.4
"""A word of the question counts less the later it comes in a sentence, down to ``1 - LATE_DISCOUNT``
of its strength from the :data:`LATE`-th word: what a sentence is about comes first ("`CADENCE_MAX_
TOOL_HOPS` (default 50): tool executions allowed per turn", not "Timeout of one decision in every
mode: ...; agents' model calls and tools get the turn's remaining time")."""
QUOTED_STRENGTH = 0.5
"""What a word of the question counts when a sentence has it only inside quotation marks: an example it
mentions ('"remove" as "disable"' is about reading questions, not about disabling), against 1."""
_QUOTED_RE = re.compile(r'"[^"\n]{1,80}"|“[^”\n]{1,80}”')


_CODE_SPAN_RE = re.compile(r"`[^`\n]*`")


def _quoted_only(text: str) -> frozenset[str]:
    """The words ``text`` has only inside quotation marks (:data:`QUOTED_STRENGTH`), not counting quotes in
    code (`pip install "cadence-agents[openai]"` names what it installs)."""
    prose = _CODE_SPAN_RE.sub(" ", text)
    inside = " ".join(m.group(0) for m in _QUOTED_RE.finditer(prose))
    if not inside:
        return frozenset()
    return frozenset(
        topic_words(inside)
        - topic_words(_QUOTED_RE.sub(" ", prose))
        - topic_words(" ".join(_CODE_SPAN_RE.findall(text)))
    )


NAMED_SETTING_BONUS = 1.0
"""Added to a sentence naming a setting made of the question's words (``CADENCE_TOOL_TIMEOUT`` for
"the timeout of a tool call"); as much is taken from one that starts with a setting named after
other things (``CADENCE_AGENTS_DIR`` for "the docs folder"), in proportion to its other words."""

DEFINITION_BONUS = 0.5
"""Added to a sentence that defines a term made of the question's words (:func:`defined_term`): "What
does the supervisor mode do?" is answered by "**supervisor**: a supervisor hands the question off…"
under "Modes", not by the setting that lists the modes."""

QUANTITY_BONUS = 0.5
"""Added to a sentence with a number when the question asks for a quantity (:data:`_QUANTITY_RE`): the
setting "(default 25): agent routes allowed per turn", not "if a limit of agent routes is reached"."""
_QUANTITY_RE = re.compile(
    r"\bhow\s+(?:many|much|long|big|large|often|far|high|low)\b"
    r"|\b(?:limits?|maximum|minimum|max|min|size|length|timeout|deadline|number\s+of)\b",
    re.IGNORECASE,
)
_DIGIT_RE = re.compile(r"\d")
_PREFIX = stem("cadence")
"""The first word of every setting's name (``CADENCE_TOOL_TIMEOUT``): not what it is named after."""
_NUMBERS = frozenset(stem(w) for w in NUMBER_WORDS)
"""Number words, stemmed: weak words of a question ("two plugins" asks about plugins)."""
_NO_HEADING: Mapping[str, float] = MappingProxyType({})


class Asked:
    """The words of a question, weighed (:data:`WEAK_WORDS`), with the words that may stand for them
    (:data:`RELATED_WORDS`): what :func:`relevant_sentences` looks for (the docs search's snippets look
    for the same, with their own copy of these words: ``cadence.builtins.docs.SnippetQuery``)."""

    def __init__(self, question: str) -> None:
        self.weights: dict[str, float] = {}
        for word, _ in topic_word_list(one_word_phrases(THE_DOCS_RE.sub(" ", question))):
            self.weights[word] = WEAK_WEIGHT if word in WEAK_WORDS or word in _NUMBERS else 1.0
        self.quantity = bool(_QUANTITY_RE.search(question))
        """Whether the question asks for a quantity ("how many", "how long", "the limit of ...")."""
        self._meanings: dict[str, list[tuple[str, float]]] = {}  # a text's word -> (asked word, strength)
        for word in self.weights:
            self._meanings.setdefault(word, []).append((word, 1.0))
            for related in RELATED_WORDS.get(word, ()):
                if related not in self.weights:
                    self._meanings.setdefault(related, []).append((word, RELATED_STRENGTH))

    def __bool__(self) -> bool:
        return bool(self.weights)

    def said_in(self, text: str) -> set[str]:
        """The question's words that ``text`` says (itself or a related word)."""
        return {asked for word, _ in topic_word_list(text) for asked, _ in self._meanings.get(word, ())}

    def in_heading(self, heading: str) -> dict[str, float]:
        """The question's words that a passage's heading (``Plugins > Plugin metadata``) has, with their
        strengths: 1 in the title of its section, :data:`PARENT_HEADING_STRENGTH` in the titles above."""
        *parents, title = heading.split(" > ")
        found = dict.fromkeys(self.said_in(" ".join(parents)), PARENT_HEADING_STRENGTH)
        return found | dict.fromkeys(self.said_in(title), 1.0)

    def matches(self, text: str, about: Mapping[str, float] = _NO_HEADING) -> tuple[dict[str, float], int]:
        """The question's words that ``text`` has, each with its strength (a word 1, a related word, the
        part of an identifier or a word only quoted less, a late one less: :data:`LATE`), and the place of
        the first one (0 with ``about``, the words of the heading ``text`` is under: :meth:`in_heading`)."""
        strengths = dict(about)
        first = 0 if about else -1
        quoted = _quoted_only(text)
        for place, (word, part) in enumerate(topic_word_list(text)):
            for asked, strength in self._meanings.get(word, ()):
                strength *= (PART_STRENGTH if part else 1.0) * (1 - LATE_DISCOUNT * min(place, LATE) / LATE)
                strength *= QUOTED_STRENGTH if word in quoted else 1.0
                if strength > strengths.get(asked, 0.0):
                    strengths[asked] = strength
                if first < 0:
                    first = place
        return strengths, max(first, 0)

    def score(self, text: str, about: Mapping[str, float] = _NO_HEADING) -> tuple[float, int]:
        """How much ``text`` is about the question, and the place of its first word of the question.

        The weights of the question's words it has, times their strengths (:meth:`matches`); plus
        :data:`NAMED_SETTING_BONUS` when it names a setting all of whose words are asked; minus as
        much, in proportion, when it starts with a setting named after other things; plus
        :data:`QUANTITY_BONUS` when the question asks for a quantity and ``text`` has a number.
        """
        strengths, first = self.matches(text, about)
        if not strengths:
            return 0.0, first
        score = sum(self.weights[word] * strength for word, strength in strengths.items())
        if self.quantity and _DIGIT_RE.search(text):
            score += QUANTITY_BONUS
        return score + self._naming(text), first

    def definition_bonus(self, defines: frozenset[str]) -> float:
        """:data:`DEFINITION_BONUS` when ``defines`` (a sentence's defined term: :func:`defined_term`) is
        made of the question's words (or words that may stand for them), else 0."""
        return DEFINITION_BONUS if defines and all(word in self._meanings for word in defines) else 0.0

    def answered_by(self, text: str, about: Mapping[str, float] = _NO_HEADING) -> bool:
        """Whether ``text`` has every word of a question of two or more words that matter."""
        wanted = [word for word, weight in self.weights.items() if weight >= 1.0]
        strengths, _ = self.matches(text, about)
        return len(wanted) >= 2 and all(word in strengths for word in wanted)

    def _naming(self, text: str) -> float:
        """What the settings (names in code) of ``text`` add to its score: :data:`NAMED_SETTING_BONUS`
        for one named with the question's words only (half of it for a name of one word, which
        says less: ``CADENCE_MEMORY``; a name of one word counts only as the subject that ``text``
        starts with); taken away, in proportion to its other words, for a subject named with some of
        the question's words and others (``CADENCE_COORDINATOR_TIMEOUT`` for "a tool's timeout")."""
        best = 0.0
        for match in _IDENTIFIER_RE.finditer(text):
            words = [w for w, _ in topic_word_list(match.group(0)) if w != _PREFIX]
            if not words:
                continue
            subject = not _BULLET_RE.sub("", text[: match.start()]).strip(" `")
            asked = sum(1 for w in words if w in self._meanings)
            if asked == len(words) and (len(words) > 1 or subject):
                best = max(best, NAMED_SETTING_BONUS * min(1.0, len(words) / 2))
            elif subject and asked:
                best = min(best, -NAMED_SETTING_BONUS * (len(words) - asked) / len(words))
        return best


def _subject(text: str) -> str:
    """The name in code ``text`` starts with (``CADENCE_TOOL_TIMEOUT``, lower case), or ""."""
    match = _IDENTIFIER_RE.match(_BULLET_RE.sub("", text).lstrip())
    return match.group(0).strip("`").lower() if match else ""


_CITATION_LINE_RE = re.compile(r"\s*\[\d+\]\s+(?P<path>\S+?)(?::(?P<line>\d+))?(?:\s+—\s+(?P<heading>.*))?$")
"""A search result's citation line, ``[1] path:line — heading``."""


def cites_passages(text: str) -> bool:
    """Whether ``text`` is a search result: passages under citation lines (``[1] path:line — heading``)."""
    return any(_CITATION_LINE_RE.match(line) for line in text.splitlines())


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
    "RELATED_WORDS",
    "SENTENCE_RE",
    "WEAK_WORDS",
    "WORD_RE",
    "Asked",
    "content_words",
    "end_sentence",
    "relevant_passages",
    "relevant_sentences",
    "shorten",
    "stem",
    "topic_words",
]
