"""A lexical pre-router: ranks plugins (or tools) for a question by token overlap.

The embedded model is far too small to route reliably on its own, so before its
constrained routing call it asks this module which candidates the question is
about. Scoring is BM25 over each candidate's text (name, description and
capabilities), with light stemming and a few generic normalisations: symbols
become words (``%`` → ``percent``, ``+`` → ``plus``, ``*`` → ``multiply``), digits
add a ``number`` token, a singular "hour" or "day" asked for ("what hour is it", "which day is
it") becomes ``time`` or ``date``, and a time some hours ahead ("what time will it be in 3 hours")
adds ``after`` and ``clock``. The same normalisation is applied to the candidate texts,
so a description mentioning "+ - * / powers" or "numbers" matches "2+2" —
nothing about particular plugins or sentences is hard-coded.

The ``number`` token is weak evidence: a question's numbers say "numbers", not which
operation. It counts a quarter of a word, and a candidate matched by numbers alone
never outranks one that matches a word of the question ("take 20 away from 55" goes to
the tool whose description says "take away", not to the one about "lists of numbers").
Choosing among one agent's tools, :meth:`PreRouter.rank` can also ignore the terms that
every candidate has (``ignore_shared``): in a documentation agent whose tools all mention
"docs", the word "docs" in "check the docs: ..." says nothing about which tool to use.

**Small talk** (:func:`is_small_talk`): a message of greetings, thanks, goodbyes and pleasantries only
("Hey! I'm just trying you out for the first time. Nice to meet you.") asks for no agent's work, whatever
words of an agent it has ("time"): routers send it to no agent, and the embedded model answers it from
what the plugins offer.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cadence.conventions import GOTO_NAMING, ROUTE_TEXT_METADATA_KEY, RouteNaming, route_core, route_tool_name
from cadence.sdk.metadata import PluginMetadata
from cadence.sdk.routing import SURELY, Reader
from cadence.text import ASKED_BEFORE_RE, DATE_IN_DIGITS_RE, NUMBER_WORDS, strip_suffix
from cadence.text import STOPWORDS as BASE_STOPWORDS

_SYMBOLS: dict[str, str] = {
    "%": " percent ",
    "+": " plus ",
    "*": " multiply ",
    "×": " multiply ",
    "÷": " divide ",
    "/": " divide ",
    "^": " power ",
    "=": " equal ",
    "√": " root ",
    "!": " factorial ",
}
_SYMBOL_RE = re.compile(
    "|".join(re.escape(s) for s in _SYMBOLS if s != "!") + r"|(?<=[\d\s)])-(?=[\s\d(])|(?<=[\d)])!(?!=)"
)
_WORD_RE = re.compile(r"[a-z]+|\d+(?:\.\d+)?")

_ROUTING_STOPWORDS_TEXT = """been but could had has have if into no not our so than their them then there
    these they we would yours hand conversation agent agents tool tools use using give show get let us any
    some just like re ll ve d m many much"""
STOPWORDS = BASE_STOPWORDS | frozenset(_ROUTING_STOPWORDS_TEXT.split())
"""Words ignored when scoring: the shared base plus routing boilerplate such as "agent" and "tool"."""

_TIMES_OUT_RE = re.compile(r"\btim(?:es|ed|ing) out\b")
"""Something that "times out" has a timeout (it is not about the time of day)."""
_NOW_OPENER_RE = re.compile(r"^\W*(?:(?:and|ok|okay|so|right|alright),?\s+)?now\b,?(?=\s+[a-z])")
"""A message opening with "Now" before more words ("Now multiply that by 3", "OK now what about
Paris?"): a word that moves the conversation on, not the present time ("What time is it now?",
"now?")."""
_RESULT = frozenset({"that", "it", "this"})
"""Words that refer to a result: "times" before one multiplies ("times that by 3")."""
_ASKING_FOR_ONE = frozenset({"what", "which", "the"})
_ASKED_AS_ONE = {"hour": "time", "day": "date", "month": "date", "year": "date"}
"""A singular "hour", "day", "month" or "year" after one of :data:`_ASKING_FOR_ONE` asks for the time or the
date ("what hour is it in Oslo?", "which day is it?", "what year is it?"), not for a number of hours or days
("how many hours", "per day")."""

_POSSESSIVES = frozenset({"my", "your", "his", "her", "our", "their"})
_SOMEONES = frozenset({"day", "week", "weekend", "morning", "evening", "night"})
"""After a possessive these are someone's time ("how was your weekend?"), not a date, a clock or a count."""


def stem(word: str) -> str:
    """A deliberately light stemmer: strips one common English suffix (keeps stems >= 3 letters):
    ``divide`` and ``divided`` meet at ``divid``, "percentages" at "percentag", "times" at "tim"."""
    if word.isdigit() or len(word) <= 3:
        return word
    return strip_suffix(word)


NUMBER_TOKEN = stem("number")
"""The token a written number becomes in a query (it matches "numbers" in a description)."""


_EXAMPLE_RE = re.compile(r"\((?:e\.g\.|eg|for example|for instance|example:)[^)]*\)", re.IGNORECASE)
NUMBER_WEIGHT = 0.25
"""A written number is weak evidence: it says "numbers", not which operation or tool."""


_CLOCK_RE = re.compile(
    r"(?<![\d:.])\d{1,2}[:h]\d{2}(?:\s*[ap]\.?m\b\.?)?(?![\d:])"
    r"|(?<![\d.:])\d{1,2}(?:\.\d{2})?\s*[ap]\.?m\b\.?|\b(?:noon|midday|midnight)\b",
    re.IGNORECASE,
)
"""A time of day ("10:30", "3pm", "9 a.m.", "noon"): the word ``clock``, not two numbers."""


_AHEAD_RE = re.compile(
    r"\b(?:be|time|clock|it)\s+in\s+(?:\d+(?:\.\d+)?|an?|one|half\s+an?)\s+(?:hours?|minutes?|mins?|seconds?)\b"
)
"""A time of day asked some hours or minutes ahead ("what time will it be in 3 hours?"): ``after`` and
``clock`` too (a clock reading some hours after now, as clock arithmetic says "3 hours after 10:30"), not a
count of hours ("how many minutes in 3 hours")."""


NO_INPUT_COVERAGE = 0.6
"""A matched tool taking no input stays a candidate when its text has at least this share of the
question's words (those all of the agent's tools share aside): more than half ("What tones are available?"
is no list of documents, though "available" is half of what it says)."""


_GREETED_PARTS = frozenset({"morning", "afternoon", "evening", "night", "day"})
"""Parts of the day a greeting names after "good" ("Good morning", "good night")."""


def tokenize(text: str, *, digits: bool = True) -> list[str]:
    """Lower-case, map symbols to words, split, drop stop words and stem.

    With ``digits`` a number becomes the token ``number`` (queries); without, numbers
    are dropped (candidate texts, whose examples such as "e.g. 50 → 75" are noise). A time of
    day becomes the token ``clock`` in both, a date in digits the token ``date``.
    """
    text = _NOW_OPENER_RE.sub(" ", text.lower().replace("_", " "), count=1)
    text = _CLOCK_RE.sub(" clock ", DATE_IN_DIGITS_RE.sub(" date ", text))
    text = _AHEAD_RE.sub(lambda m: f"{m.group(0)} after clock", text)
    text = _TIMES_OUT_RE.sub(" timeout ", text)
    text = _SYMBOL_RE.sub(lambda m: _SYMBOLS.get(m.group(0), " minus "), text)
    words = _WORD_RE.findall(text)
    numeric = [w[0].isdigit() or w in NUMBER_WORDS for w in words]
    tokens: list[str] = []
    for i, word in enumerate(words):
        if numeric[i]:
            if digits:
                tokens.append(NUMBER_TOKEN)
            continue
        if word == "x" and 0 < i < len(words) - 1 and numeric[i - 1] and numeric[i + 1]:
            word = "multiply"  # "1006 x 7"
        elif word == "times" and (
            (i > 0 and numeric[i - 1]) or (i < len(words) - 1 and (numeric[i + 1] or words[i + 1] in _RESULT))
        ):
            word = "multiply"  # "twelve times twelve", "and times 4?", "times that by 3" (not "time")
        elif word in _ASKED_AS_ONE and i > 0 and words[i - 1] in _ASKING_FOR_ONE:
            word = _ASKED_AS_ONE[word]  # "what hour is it", "which day is it" (not "how many hours", "a day")
        elif word in _SOMEONES and i > 0 and words[i - 1] in _POSSESSIVES:
            continue  # "how is your day going": someone's day, not a date or a number of days
        elif word in _GREETED_PARTS and i > 0 and words[i - 1] == "good":
            continue  # "Good morning": a greeting, not the part of the day
        if word in STOPWORDS:
            continue
        tokens.append(stem(word))
    return tokens


def tool_function(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``function`` part of an OpenAI-style tool schema."""
    return schema.get("function", schema)


def routing_schema(tool: Any) -> dict[str, Any]:
    """``tool`` as an OpenAI-style schema whose description is its routing text, when it has one.

    A description is sent to providers with every call offering the tool, so it is kept short; the
    words a tool is chosen by ride in ``tool.metadata[ROUTE_TEXT_METADATA_KEY]``: a routing tool's
    plugin description and capabilities, or a plugin tool's :func:`cadence.sdk.route_text` (the
    calculator's phrasings). A model that routes in-process binds its tools through this function
    to get that text back; any other tool (or schema) is converted unchanged.
    """
    from langchain_core.utils.function_calling import convert_to_openai_tool

    schema = convert_to_openai_tool(tool)
    text = (getattr(tool, "metadata", None) or {}).get(ROUTE_TEXT_METADATA_KEY)
    if isinstance(text, str) and text and "function" in schema:
        schema = {**schema, "function": {**schema["function"], "description": text}}
    return schema


def tool_name(schema: Mapping[str, Any]) -> str:
    """The name of an OpenAI-style tool schema."""
    return str(tool_function(schema).get("name", ""))


@dataclass(frozen=True)
class RouteCandidate:
    """Something to route to: a name (the route or tool name) and the texts describing it."""

    name: str
    description: str = ""
    capabilities: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()

    @classmethod
    def from_metadata(
        cls, metadata: PluginMetadata, *, name: str | None = None, naming: RouteNaming = GOTO_NAMING
    ) -> RouteCandidate:
        """A candidate from plugin metadata (``name`` defaults to its routing tool's: ``goto_{name}_agent``,
        or with ``naming="transfer"`` the supervisor's ``transfer_to_{name}``)."""
        return cls(
            name=name or route_tool_name(metadata.normalized_name, naming),
            description=metadata.description,
            capabilities=tuple(metadata.capabilities),
            keywords=(metadata.normalized_name,),
        )

    @classmethod
    def from_tool_schema(cls, schema: Mapping[str, Any]) -> RouteCandidate:
        """A candidate from an OpenAI-style tool schema; the name's words count as keywords.

        For ``goto_{name}_agent`` and ``transfer_to_{name}`` tools only ``{name}`` is a keyword
        (``goto``/``agent``/``transfer``/``to`` are noise).
        """
        function = tool_function(schema)
        name = tool_name(schema)
        core = route_core(name)
        params = (function.get("parameters") or {}).get("properties") or {}
        return cls(
            name=name,
            description=str(function.get("description") or ""),
            capabilities=tuple(str(p) for p in params),
            keywords=(core,),
        )

    def document(self) -> list[str]:
        """The weighted bag of tokens of this candidate (name keywords count twice).

        Parenthesised examples ("(e.g. 50 → 75 is +50%)") are left out: their symbols are noise.
        """
        tokens = tokenize(_EXAMPLE_RE.sub(" ", self.description), digits=False)
        for cap in self.capabilities:
            tokens.extend(tokenize(cap, digits=False))
        for keyword in self.keywords:
            tokens.extend(tokenize(keyword, digits=False) * 2)
        return tokens


@dataclass(frozen=True)
class RouteScore:
    """A candidate's score for one query (0 when nothing overlaps)."""

    name: str
    score: float
    number_only: bool = False
    """The score comes from the query's numbers alone (weak evidence: see the module docs)."""


class PreRouter:
    """BM25 ranking of candidates for a query.

    >>> router = PreRouter([RouteCandidate("goto_math_agent", "Calculator: arithmetic and percentages")])
    >>> router.rank("what is 15% of 80")[0].name
    'goto_math_agent'
    """

    def __init__(self, candidates: Iterable[RouteCandidate], *, k1: float = 1.2, b: float = 0.5) -> None:
        self.candidates = list(candidates)
        self.k1 = k1
        self.b = b
        self._docs = [Counter(c.document()) for c in self.candidates]
        lengths = [sum(d.values()) for d in self._docs]
        self._lengths = lengths
        self._avg = (sum(lengths) / len(lengths)) if lengths else 1.0
        df: Counter[str] = Counter()
        for doc in self._docs:
            df.update(doc.keys())
        self._df = df
        n = len(self._docs)
        self._idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    @classmethod
    def from_metadata(cls, plugins: Sequence[PluginMetadata], naming: RouteNaming = GOTO_NAMING) -> PreRouter:
        """A router over plugins, naming each by its routing tool: ``goto_{name}_agent``, or with
        ``naming="transfer"`` the supervisor's ``transfer_to_{name}`` (the names the model is bound to)."""
        return cls(RouteCandidate.from_metadata(p, naming=naming) for p in plugins)

    @classmethod
    def from_tool_schemas(cls, schemas: Sequence[Mapping[str, Any]]) -> PreRouter:
        """A router over OpenAI-style tool schemas (routing tools or an agent's tools)."""
        return cls(RouteCandidate.from_tool_schema(s) for s in schemas)

    def rank(self, query: str, *, ignore_shared: bool = False) -> list[RouteScore]:
        """All candidates, best first (stable: ties keep the candidates' order).

        Candidates matching a word of the query come before those matched by its numbers
        alone. With ``ignore_shared`` a term found in every candidate (of two or more) is
        ignored: it cannot tell them apart.
        """
        terms = set(tokenize(without_style_request(query)))
        if ignore_shared and len(self.candidates) > 1:
            terms = {t for t in terms if self._df.get(t, 0) < len(self.candidates)}
        scores: list[RouteScore] = []
        for cand, doc, length in zip(self.candidates, self._docs, self._lengths, strict=True):
            words = numbers = 0.0
            for term in terms:
                tf = doc.get(term, 0)
                if not tf:
                    continue
                norm = (
                    tf
                    * (self.k1 + 1)
                    / (tf + self.k1 * (1 - self.b + self.b * length / max(self._avg, 1e-9)))
                )
                if term == NUMBER_TOKEN:
                    numbers += NUMBER_WEIGHT * self._idf.get(term, 0.0) * norm
                else:
                    words += self._idf.get(term, 0.0) * norm
            number_only = words <= 0 < numbers
            scores.append(RouteScore(cand.name, round(words + numbers, 6), number_only))
        order = sorted(
            range(len(scores)), key=lambda i: (scores[i].score <= 0, scores[i].number_only, -scores[i].score)
        )
        return [scores[i] for i in order]

    def coverage(self, query: str, *, ignore_shared: bool = False) -> dict[str, float]:
        """Per candidate, the share of the query's words (numbers aside) its text contains.

        1.0 for every candidate when the query has no such word. With ``ignore_shared`` words
        found in every candidate are left out first, as in :meth:`rank`.
        """
        terms = set(tokenize(without_style_request(query), digits=False))
        if ignore_shared and len(self.candidates) > 1:
            terms = {t for t in terms if self._df.get(t, 0) < len(self.candidates)}
        return {
            cand.name: (sum(1 for t in terms if doc.get(t)) / len(terms)) if terms else 1.0
            for cand, doc in zip(self.candidates, self._docs, strict=True)
        }

    def shortlist(
        self, query: str, *, ratio: float = 0.75, limit: int = 3, ignore_shared: bool = False
    ) -> list[str]:
        """Names scoring at least ``ratio`` of the best score (empty when nothing overlaps).

        When some candidate matches a word of the query, candidates matched by numbers alone
        are left out (see :meth:`rank`).
        """
        return self.shortlisted(self.rank(query, ignore_shared=ignore_shared), ratio=ratio, limit=limit)

    @staticmethod
    def shortlisted(ranked: list[RouteScore], *, ratio: float = 0.75, limit: int = 3) -> list[str]:
        """:meth:`shortlist` of a ranking already made (:meth:`rank`)."""
        if not ranked or ranked[0].score <= 0:
            return []
        best = ranked[0]
        return [
            r.name
            for r in ranked
            if r.score > 0 and r.number_only == best.number_only and r.score >= ratio * best.score
        ][:limit]


_OPENER = (
    r"(?:what|what's|whats|how|when|where|which|who|whose|why|is|are|was|were|can|could|do|does|did|"
    r"will|would|should|tell me|give me|show me|find|convert|calculate|compute)"
)
_PART_SPLIT_RE = re.compile(
    rf"(?:(?<=[?.!;])\s+|,?\s+and\s+|,\s+)(?=(?:and\s+|also\s+|then\s+)?{_OPENER}\b)", re.IGNORECASE
)
_OPENS_RE = re.compile(rf"^(?:and\s+|also\s+|then\s+)?{_OPENER}\b", re.IGNORECASE)


_SHARED_OPENER_RE = re.compile(
    r"^(?P<opener>what's|whats|what is|what are|tell me|give me|show me)\s+(?P<first>[^?.!;]*\d[^?.!;]*?)"
    r",?\s+and\s+(?P<second>the\s+(?!(?:result|answer|total|sum|rest|remainder|difference|product|square|"
    r"cube|root|average|mean|half|same|other|number|value|percent|percentage)\b)[^\d?.!;]+)(?P<end>[?.!]*)$",
    re.IGNORECASE,
)
"""A question of numbers and a second thing asked under its opener ("What's 15% of 96 and the time in Oslo?"):
the second part is "what's the time in Oslo?". Not a second value of the same sum ("and the square of 4",
"and the result doubled": numbers or words of arithmetic)."""


_STYLE_REQUEST_RE = re.compile(
    r"^\W*(?:please\s+)?(?:"
    r"(?:answer|reply|respond|explain|write|say it|tell me)\s+(?:it\s+|this\s+)?"
    r"(?:like|as if you were|as|in the (?:style|voice) of|in)\s+(?!(?:upper|lower|capital)\b)[\w' -]{1,30}?"
    r"|(?:answer|reply|respond|explain|say it|write it|put it)\s+(?:it\s+|this\s+)?"
    r"(?:formally|briefly|concisely|politely|casually|simply)"
    r"|be (?:brief|concise|short|formal|casual|detailed|quick)|keep it (?:short|brief|simple)|briefly"
    r"|(?:explain\s+(?:it\s+|this\s+)?)?(?:step[- ]by[- ]step|in (?:great |more |full )?detail)"
    r"|in short|(?:in|with) (?:a|an) [\w-]+ (?:tone|way|style|voice)"
    r"|(?:give me |i want |i'd like )?(?:a|an) (?:detailed|short|brief|quick|simple|thorough|full|formal|"
    r"concise) (?:answer|explanation|reply|response)(?: please)?"
    r"|(?:in )?(?:one|a single|two|a few) (?:sentences?|words?|lines?)"
    r")\s*[:,;.!-]\s+",
    re.IGNORECASE,
)
"""A request of style before the question ("Answer like a pirate: ...", "In a formal tone, ...", "Be brief:
...", "Give me a detailed answer: ..."): how to answer, not what is asked ("Write this in upper case: ..."
asks for the text in capitals)."""


_STYLE_AFTER_RE = re.compile(
    r",?\s+(?:(?:in|using)\s+(?:one|a single|two|three|a few|\d+)\s+(?:short\s+)?(?:sentences?|words?|lines?)"
    r"|(?:explained\s+)?"
    r"(?:briefly|in short|in brief|in simple terms|simply|in plain english|like (?:i'?m|i am) (?:five|5)))"
    r"(?=\s*(?:please)?\s*[?.!]*\s*$)",
    re.IGNORECASE,
)
"""A request of style after the question ("What is Cadence, in one sentence?", "Explain X briefly")."""


_STYLE_WORDS_RE = re.compile(
    r",?\s*\b(?:in (?:great |more |full )?detail|step[- ]by[- ]step"
    r"|in an? (?:formal|professional|casual|friendly|simple) (?:tone|way|manner|style))\b",
    re.IGNORECASE,
)
"""Words of style anywhere in a question ("Explain in detail what a plugin is", "... step by step")."""


_STYLE_SENTENCE_RE = re.compile(
    r"(?<=[.?!])\s+(?:please\s+)?(?:(?:answer|reply|respond|say it|write it|explain(?: it)?|put it|go)\s+)?"
    r"(?:formally|briefly|concisely|politely|casually|simply|in (?:a|an) [\w-]+ (?:tone|way|style)"
    r"|step[- ]by[- ]step|in (?:great |more |full )?detail"
    r"|be (?:brief|concise|formal|short|quick|polite)|keep it (?:short|brief|simple))"
    r"(?:,?\s+please)?\s*[.!]*\s*$",
    re.IGNORECASE,
)
"""A request of style as a sentence after the question ("What is the capital of Germany? Answer
formally.")."""


_ASKED_TO_EXPLAIN_RE = re.compile(
    r"^\W*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?explain(?:\s+to\s+me)?"
    r"|i(?:'d|\s+would)\s+like\s+to\s+know|i\s+(?:want|need)\s+to\s+know|i\s+(?:was\s+)?wonder(?:ing)?"
    r"|(?:do|does)\s+(?:you|anyone)\s+know)\s+"
    r"(?=(?:how|what|why|when|where|which|who|whether)\b)",
    re.IGNORECASE,
)
"""A request to explain or to be told before the question itself ("Can you explain how many days are in a leap
year?", "I'd like to know how many days are in February 2024")."""


def without_style_request(question: str) -> str:
    """``question`` without a request of style before or after it (:data:`_STYLE_REQUEST_RE`,
    :data:`_STYLE_AFTER_RE`), or to explain or be told before a question (:data:`_ASKED_TO_EXPLAIN_RE`):
    the words routes, tools and passages are chosen by ("Answer like a pirate: what is 9 plus 10?" asks no
    documentation "answer"; "Tell me what Cadence is in one sentence" no "one")."""
    stripped = _STYLE_AFTER_RE.sub("", _STYLE_REQUEST_RE.sub("", question, count=1), count=1)
    stripped = _STYLE_SENTENCE_RE.sub("", stripped, count=1)
    stripped = _STYLE_WORDS_RE.sub("", stripped)
    stripped = _ASKED_TO_EXPLAIN_RE.sub("", stripped, count=1)
    return stripped if stripped.strip(" ,.:;!?") else question


SAID_AGAIN_RE = re.compile(
    r"^\W*(?:(?:now|ok(?:ay)?|so|and|then)[ ,]+)?(?:(?:can|could|would) you\s+)?(?:please\s+)?"
    r"(?:explain|say|repeat|rephrase|put|write|give|tell me"
    r"|answer)?\s*(?:that|it|this|the (?:answer|result)|me that)?\s*(?:again)?\s*(?:please)?\W*$",
    re.IGNORECASE,
)
"""What is left of a request to say the previous answer again once its style is taken off ("Explain that"
of "Explain that in a formal tone", "Say it again" of "Say it again, briefly", "Now explain it" of "Now
explain it like I'm five")."""
EXPLAIN_PREVIOUS_RE = re.compile(
    r"^\W*(?:(?:now|ok(?:ay)?|so|and|then)[ ,]+)?(?:(?:can|could|would) you\s+)?(?:please\s+)?explain"
    r"(?:\s+(?:that|it|this|the (?:answer|result)))?(?:\s+to me)?(?:\s+please)?\W*$",
    re.IGNORECASE,
)
"""A request to explain the previous answer, and nothing else ("Explain that.", "Can you explain it?"):
the previous question, answered in the explanatory tone."""

_THAT = (
    r"(?:that|this|it|those|these|(?:the|that|this|your) (?:answer|result|number|figure|value)s?|-?\d[\d.,]*)"
)
HOW_FOUND_RE = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|and|so|but|hmm+|wait|really|interesting)[ ,!:.]+)*"
    r"(?:(?:can|could|would|will) you\s+(?:please\s+)?)?(?:please\s+)?(?:"
    r"how (?:did|do|would) you (?:get|calculate|compute|work out|figure out|arrive at|come up with|find|reach"
    rf"|determine|derive|know)(?: {_THAT})?(?: out)?"
    rf"|how do you know(?: {_THAT})?|how (?:so|come)|why(?: is {_THAT}| so)?"
    rf"|where (?:did|do) you get {_THAT}(?: from)?|where (?:does|did|do) {_THAT} come from"
    r"|explain how you (?:got|calculated|computed|worked out|figured out|found|arrived at|came up with)"
    rf"(?: {_THAT})?(?: out)?"
    r"|(?P<steps>(?:show|give|tell) (?:me |us )?(?:your|the) (?:work|working|workings|steps|calculations?"
    r"|math|maths|reasoning))"
    rf"|what(?:'s| is| was) (?:your|the) source(?: (?:of|for) {_THAT})?"
    r")(?:\s+please)?[\s?!.]*$",
    re.IGNORECASE,
)
"""A question about how the previous answer was found ("How did you get that?", "Why?", "Where does that
number come from?", "Show your work"): the previous question asked again, answered with its working (the
``steps`` group: step by step)."""


MAKE_IT_RE = re.compile(
    r"^\W*(?:(?:can|could|would) you\s+)?(?:please\s+)?(?:make|put|write|say|rewrite|rephrase)\s+"
    r"(?:it|that|this|the answer)\s+(?:(?:more|a bit|a little)\s+)?"
    r"(?P<how>formal|professional|brief|briefer|short|shorter|concise|simple|simpler|detailed|longer)"
    r"(?:\s+please)?\W*$",
    re.IGNORECASE,
)
"""The previous answer asked again in another style in so many words ("Make it formal", "Make that
shorter")."""
_AGAIN_RE = re.compile(r"\b(?:again|once more|repeat)\b", re.IGNORECASE)


def asks_previous_again(question: str) -> bool:
    """Whether ``question`` only asks for the previous answer again: as it was ("Say that again"), in
    another style ("Explain that in a formal tone", "Say it again, briefly", "Make it formal") or with how it
    was found (:data:`HOW_FOUND_RE`)."""
    text = " ".join(question.split())
    if HOW_FOUND_RE.match(text) or MAKE_IT_RE.match(text):
        return True
    rest = without_style_request(text)
    if rest == text:
        again = SAID_AGAIN_RE.match(text) is not None and _AGAIN_RE.search(text) is not None
        return again or EXPLAIN_PREVIOUS_RE.match(text) is not None
    return SAID_AGAIN_RE.match(rest) is not None


_TWO_CONVERSIONS_RE = re.compile(
    r"^(?P<opener>\W*(?:please\s+)?(?:convert|change|turn|what(?:'s| is| are)|how much is))\s+"
    r"(?P<first>-?\d[\d.,]*\s*[^\W\d][^,]{0,40}?\s+(?:to|in|into)\s+[^\W\d][^,]{0,40}?)"
    r"\s*(?:,\s*(?:and\s+)?|\s+and\s+)"
    r"(?P<second>-?\d[\d.,]*\s*[^\W\d][^,]{0,40}?\s+(?:to|in|into)\s+[^\W\d][^?.!]{0,40}?)(?P<end>\s*[?.!]*)$",
    re.IGNORECASE,
)
"""Two amounts converted under one opener ("Convert 10 km to miles and 5 kg to pounds"); each unit is
short (the gaps are bounded, so a long message is read in linear time)."""


_VERB_GOES_ON_RE = re.compile(r"^(?:are|is|was|were)\s+(?:in|on|at|of|for|from|to|by|with)\b", re.IGNORECASE)
"""A part that only goes on with the verb of the one before ("..., are in 'hello there'?"): no question."""


def question_parts(question: str) -> list[str]:
    """The questions a message asks when it asks several ("What's 5*7 and what time is it in Tokyo?",
    "What is 2+2? And what do the docs say about tones?", "What's 15% of 96 and the time in Oslo?"), else
    ``[question]``.

    Parts are joined by "and", "then", a comma or a sentence end (a "then" part referring back to a result is
    a step of one question), and every part opens like a question or a
    request ("what", "how", "is", "tell me", "convert", ...), or shares the first part's opener when
    that part holds numbers and the second names a thing without any (:data:`_SHARED_OPENER_RE`): a
    sentence of context before a question ("I have 3 apples. How many do I have if I get 2 more?", "If
    I save $150 a month, how much ...") is one question. A later part counting without saying what ("How
    many seconds in an hour, and how many in a day?") counts the first part's thing.
    """
    two = _TWO_CONVERSIONS_RE.match(question.strip())
    if two is not None:  # "Convert 10 km to miles and 5 kg to pounds": the opener is both parts'
        opener = two.group("opener").strip()
        return [f"{opener} {two.group('first')}", f"{opener} {two.group('second')}{two.group('end')}"]
    shared = _SHARED_OPENER_RE.match(question.strip())
    if shared is not None:
        opener, end = shared.group("opener"), shared.group("end")
        return [f"{opener} {shared.group('first')}", f"{opener} {shared.group('second')}{end}"]
    parts = [p.strip(" ,;") for p in _PART_SPLIT_RE.split(question)]
    parts = [p for p in parts if p]
    if len(parts) < 2 or not all(_OPENS_RE.match(p) for p in parts):
        return [question]
    if any(_VERB_GOES_ON_RE.match(p) for p in parts[1:]):
        return [question]  # "How many characters, without spaces, are in 'hello there'?": one question
    if any(_CONDITION_RE.match(p) for p in parts[:-1]):
        return [question]  # "When it's noon in London, what time is it in Dubai?": one question
    if any(re.match(r"then\b", p, re.IGNORECASE) and REFERENCE_RE.search(p) for p in parts[1:]):
        return [question]  # "What is 10 + 5, then what is that times 2?": a chain of steps, one question
    counted = _HOW_MANY_OF_RE.search(parts[0])
    if counted is not None:
        # "How many seconds in an hour, and how many in a day?": the second counts the first's seconds
        parts = [
            parts[0],
            *(_HOW_MANY_BARE_RE.sub(rf"\g<0> {counted.group('what')}", p, count=1) for p in parts[1:]),
        ]
    return parts


_HOW_MANY_OF_RE = re.compile(
    r"\bhow (?:many|much) (?P<what>[a-z]+(?: [a-z]+)?)(?= (?:are |is |do |does |there )?(?:in|per|for)\b)",
    re.IGNORECASE,
)
"""What a part counts ("seconds" of "How many seconds in an hour")."""
_HOW_MANY_BARE_RE = re.compile(
    r"^(?:(?:and|also|then|so)\s+)?how (?:many|much)(?= (?:are |is |do |does |there )?(?:in|per|for)\b)",
    re.IGNORECASE,
)
"""A later part counting without saying what ("and how many in a day?"): the first part's thing."""


FOLLOW_UP_RE = re.compile(
    r"^\W*(?:and|what about|how about|now|also|then|same for|and what about|and how about|what of"
    r"|(?:and |but )?what if(?: (?:i|we|you|he|she|they)(?= \w+ \d))?)\b",
    re.IGNORECASE,
)
"""Openings of a follow-up question ("And in Paris?", "What about New York?", "What if I buy 10 more?": a
step said again with another number)."""
MAX_FOLLOW_UP_WORDS = 5
"""A question this short that matches no route continues with the previous turn's agent."""


_MEANT_RE = re.compile(
    r"^\W*(?:(?:no|nope|sorry|oops|wait|actually|correction|my bad|my mistake|typo)[ ,!.:;-]+)*"
    r"(?:i meant(?: to (?:say|ask|write))?|i mean|i wanted|make (?:that|it)|change (?:that|it) to"
    r"|(?:it|that) should (?:have been|be)|not \S+(?: \S+)?,? but)\s+(?P<x>[^?]{1,60}?)[\s.!?]*$",
    re.IGNORECASE,
)
"""A correction of the previous question ("No, I meant 15%", "Sorry, I meant Paris, Texas", "Actually make
that 60"): the previous question asked with what it gives instead."""


def as_follow_up(question: str) -> str:
    """A correction (:data:`_MEANT_RE`) as the follow-up it is ("No, I meant 15%" → "what about 15%?");
    any other question as it is ("Make it formal" asks for the answer in another style)."""
    meant = _MEANT_RE.match(question) if len(question) <= 200 else None
    if meant is None or meant.group("x").strip().lower() in ("it", "that", "this", "what i said"):
        return question
    if MAKE_IT_RE.match(question):
        return question
    return f"what about {meant.group('x').strip()}?"


def is_follow_up(question: str) -> bool:
    """Whether ``question`` reads as a continuation of the previous turn."""
    words = re.findall(r"[\w']+", question)
    return bool(FOLLOW_UP_RE.search(question)) or len(words) <= MAX_FOLLOW_UP_WORDS


OWN_RE = re.compile(r"\b(?:i|i'm|i've|my|mine|we|our)\b", re.IGNORECASE)
"""The user's own words ("How much do I earn?"); not "me" ("give me 5 tips")."""
REFERENCE_RE = re.compile(
    r"\b(?:the (?:previous |last |same )?(?:result|answer|number|total|value)|that (?:number|result|value)"
    r"|that|this|it)\b",
    re.IGNORECASE,
)
"""Words that refer back to the previous turn's result ("multiply *that* by 2")."""


def leans_on_context(question: str) -> bool:
    """Whether ``question`` may lean on what was said before: a follow-up, something said ("that", "the
    result") or the user's own words ("do I", "my"), which what they told fills in."""
    return is_follow_up(question) or bool(REFERENCE_RE.search(question) or OWN_RE.search(question))


def may_be_read(reader: Reader | None, question: str) -> bool:
    """Whether ``reader`` (:func:`cadence.sdk.reads`; None: any text) reads the question or one of its parts
    (:func:`question_parts`: "What's 5*7 and what time is it in Tokyo?" is read by the calculator as its
    first part)."""
    if reader is None:
        return True
    return any(reader(text) for text in _texts_read(question))


@functools.lru_cache(maxsize=256)
def _texts_read(question: str) -> tuple[str, ...]:
    """The texts a tool's reader is asked of for ``question``: the question, the question without a request
    of style ("Give me a short answer: what is 45 divided by 9?" is the sum's), and their parts (remembered:
    every route's reader asks them of the same question)."""
    plain = without_style_request(question)
    return tuple(dict.fromkeys([question, *question_parts(question), plain, *question_parts(plain)]))


def reads_explicitly(reader: Reader | None, question: str) -> bool:
    """Whether a tool with a reader of its own (:func:`cadence.sdk.reads`) reads ``question``; a tool
    without one says nothing (it may read anything)."""
    return reader is not None and may_be_read(reader, question)


def reads_surely(reader: Reader | None, question: str) -> bool:
    """Whether ``reader`` says :data:`cadence.sdk.SURELY` of the question or one of its parts: its tool
    answers it though no word of its agent's routing text is in it ("Where is Timbuktu?")."""
    if reader is None:
        return False
    return any(reader(text) is SURELY for text in _texts_read(question))


ASKS_SOMETHING_RE = re.compile(
    r"\?\s*$|^\W*(?:what|what's|whats|how|which|calculate|compute|work out|find|evaluate|solve)\b"
    r"|^\s*[a-z]{2,9}\(|^[-\d\s.,+*/^%()×÷√]*[+*/^%×÷√(][-\d\s.,+*/^%()×÷√]*=?\s*$",
    re.IGNORECASE,
)
"""A question or an order to compute ("What's 2 to the 10th?", "calculate 2 to the 10th", arithmetic written
out: "abs(-5)", "-8 / 2"), not a statement ("I'm 30 years old")."""


def readable_routes(
    ranked: Sequence[RouteScore],
    shortlist: Sequence[str],
    question: str,
    readers: Mapping[str, Reader | None],
    *,
    numbers: int,
    read: bool = True,
) -> list[str]:
    """The routes of ``shortlist`` (from ``ranked``) the tools' readers allow for ``question``, for the
    embedded model's coordinator and the planner alike: one number (``numbers`` < 2) and no route's word is a
    statement ("I'm 30 years old"), unless it asks what a route's tools say they read ("What's 2 to the
    10th?"); with ``read`` (the question is read alone, leaning on nothing said before), a route none of
    whose tools may read it is dropped ("Who won the world cup in 2018?" is no sum for the calculator's
    "cup"), and when that drops them all, the next route its words fit whose tools do read it takes it
    ("difference" is the world clock's word too; the calculator reads "the difference between 95 and 38"), a
    route without a reader included when its words fit ("How do I approve a tool call?" fits the geo agent's
    "calling code" best; the docs take it).
    Routes whose tools surely answer the question (:func:`reads_surely`) are kept alone, whichever routes its
    words fit best ("Make this uppercase: cadence is great" fits the docs' "cadence"; the text agent is sure),
    one that fits by a number alone when the question asks something ("How do you spell 42?": the calculator
    is sure, the text agent's "spell" fits best);
    a question no route's words fit goes to the first of them ("Tell me about Canada"), else nowhere."""
    kept = list(shortlist)
    asks = ASKS_SOMETHING_RE.search(question) is not None
    if kept and ranked[0].number_only and numbers < 2:
        kept = [n for n in kept if asks and reads_explicitly(readers.get(n), question)]
    if not read:
        return kept
    # a route whose tools surely answer it, whichever routes its words fit best ("Summarize this: ... in
    # October" fits the calendar's and the docs' words best; the summarizer is sure); with no word of any
    # route ("Where is Timbuktu?"), the first of them
    sure = [
        r.name
        for r in ranked
        if (r.name in kept or not r.number_only or asks) and reads_surely(readers.get(r.name), question)
    ]
    if len(sure) > 1 and len(parts := question_parts(question)) > 1:
        # several parts, each surely another agent's ("How many letters are in 'hello' and what is 5 + 5?"):
        # the first part's agent first (the others are routed to after it), without a model's choice
        for part in parts:
            first = [n for n in sure if reads_surely(readers.get(n), part)]
            if first:
                return first[:1]
    if sure:
        return sure if any(r.score > 0 for r in ranked) else sure[:1]
    if not kept:
        return kept
    readable = [n for n in kept if may_be_read(readers.get(n), question)]
    if readable:
        return readable
    # every route the words fit best refuses it: the routes its words fit next that may read it, ranked
    # among themselves ("How do I approve a tool call?" fits the geo agent's "calling code"; the docs read it)
    rest = [
        r
        for r in ranked
        if r.name not in kept
        and r.score > 0
        and (not r.number_only or numbers >= 2)
        and may_be_read(readers.get(r.name), question)
    ]
    return [r.name for r in rest][:1]


_CONDITION_RE = re.compile(
    r"^(?:when|if|once|while)\s+(?:it'?s|it\s+is|it\s+was|it'?ll\s+be)\b(?![^?]*\?)", re.I
)
"""A clause that sets a condition for the next part ("When it's noon in London, ..."): no question of its
own."""


__all__ = [
    "CORRECTION_RE",
    "DISMISS_RE",
    "GOODBYE_RE",
    "GREETING_RE",
    "HOW_ARE_YOU_RE",
    "NO_ALONE_RE",
    "PLEASANTRY_RE",
    "PRAISE_RE",
    "STOPWORDS",
    "THANKS_RE",
    "PreRouter",
    "RouteCandidate",
    "RouteScore",
    "each_sentence",
    "is_small_talk",
    "question_parts",
    "reads_surely",
    "routing_schema",
    "stem",
    "tokenize",
    "tool_function",
    "tool_name",
]


# -- small talk: a message that asks for no agent's work ----------------------------------------------
_SALUTATION = (
    r"(?:hi|hello|hey|heya|hiya|howdy|greetings|yo|(?:good )?(?:morning|afternoon|evening)|good day)"
)
_ADDRESSEE = r"(?:[ ,]+(?:there|again|all|everyone|friend|buddy|mate|pal|cadence|bot))?"
_YOUR_SIDE = r"(?: (?:with you|on your (?:end|side)|in your (?:world|neck of the woods)|your way))"
_CHAT_QUESTION = (
    rf"what'?s up|sup|wassup|what'?s (?:new|good|happening|going on|cooking){_YOUR_SIDE}"
    r"|how are (?:you|u|ya)(?: doing| going| keeping)?"
    r"(?: today| tonight| this (?:morning|afternoon|evening))?"
    r"|how(?:'ve| have) (?:you|u) been(?: keeping)?|how (?:you|u) doing|how(?:'?s| is) it going"
    rf"|how are things(?: going)?{_YOUR_SIDE}?"
    r"|how(?:'?s| is| was| has) your (?:day|morning|afternoon|evening|night|week|weekend)"
    r"(?: been| going| treating you)?(?: so far)?"
    r"|how(?:'?s| is| has) (?:everything|life|things)(?: been| going| treating you)?"
    rf"(?:{_YOUR_SIDE}| today)?"
    r"|what(?:'ve| have) (?:you|u) been up to(?: lately| recently| today)?"
    r"|(?:(?:is there|got) )?anything (?:new|fun|good|interesting|exciting)(?: (?:happening|going on))?"
    rf"{_YOUR_SIDE}(?: today| lately| recently)?"
    r"|(?:are you )?having an? (?:good|nice|great|fun|busy|quiet|lovely) (?:day|morning|evening|week|weekend)"
)
"""A question about the assistant's day or life, asked in greeting ("how's your day been?", "anything
fun happening on your side?"): it asks for nothing. Something new *somewhere* ("what's new in Cadence
0.2?", "anything fun to do in Paris?") is a question, so these ask only about "you"."""
GREETING_RE = re.compile(
    rf"^(?:{_SALUTATION}{_ADDRESSEE}[ ,!.]+)?(?:{_SALUTATION}|{_CHAT_QUESTION}){_ADDRESSEE}[\s!.?]*$",
    re.IGNORECASE,
)
HOW_ARE_YOU_RE = re.compile(
    r"\bhow(?: are (?:you|u|ya)|(?:'ve| have) (?:you|u) been| (?:you|u) doing|'?s it going| is it going|"
    r" are things|(?:'?s| is| was| has) (?:your|everything|life|things))",
    re.IGNORECASE,
)
_THANKS = (
    r"(?:thanks|thank (?:you|u)|thx|thnx|ty|tysm|ta|cheers|many thanks|big thanks|much appreciated|"
    r"(?:i )?(?:really |truly )?appreciate (?:it|that|this|you|(?:the|your) help)|appreciated|much obliged)"
)
_THANKS_MORE = (
    r"(?:a lot|so much|very much|so very much|again|a bunch|a ton|a million|heaps|loads|kindly|indeed|"
    r"mate|man|buddy|pal|dude|friend|cadence|bot|"
    r"for (?:the|your|all (?:the|your)) (?:help|assistance|answers?|info|information)|"
    r"for (?:that|this|everything|helping))"
)
THANKS_RE = re.compile(
    r"^(?:(?:ok(?:ay)?|oh|ah|right|alright|great|perfect|cool|nice|awesome|brilliant|excellent|lovely|"
    r"wonderful|sweet)[ ,!]+)?"
    rf"{_THANKS}(?:[ ,]+{_THANKS_MORE})*[\s!.]*$",
    re.IGNORECASE,
)
"""Thanks ("thanks a bunch!", "thank you kindly", "much appreciated", "cheers mate", "ta"): the whole
sentence, so "thanks, what about 80?" asks on."""
PRAISE_RE = re.compile(
    r"^(?:(?:that|this|it|you)(?: was|'s| is|'re| are| have been|'ve been)? "
    r"(?:really |very |so |super |most |extremely )?"
    r"(?:helpful|useful|great|perfect|nice|good|awesome|brilliant|amazing|a big help|a great help)"
    r"|(?:that|this|it|you)(?: (?:really|totally|completely))? (?:sorted|fixed|solved|did|answered|nailed) "
    r"(?:it|that|the trick|my (?:problem|question|issue))(?: (?:out|for me))?"
    r"|(?:that|this|it) (?:works|worked|helps|helped)(?: (?:now|perfectly|great|a lot))?"
    r"|(?:(?:yes|yeah|yep)[ ,!.]+)?(?:(?:that|this|it)(?:'s| is| was) |you(?:'re| are) )?"
    r"(?:right|correct|exactly right|spot on)|correct|exactly|spot on)[\s!.]*$",
    re.IGNORECASE,
)
"""Praise that goes with thanks ("Thanks, that was really helpful!", "cheers, that sorted it")."""
GOODBYE_RE = re.compile(
    r"^(?:(?:ok(?:ay)?|thanks)[ ,!]+)?"
    r"(?:bye|goodbye|bye bye|see you(?: later| soon| tomorrow)?|see ya|good night|cya|farewell|take care"
    r"|talk (?:to you )?(?:later|soon)|catch you later|have a (?:good|nice|great) (?:day|night|evening|one))"
    r"(?: for now| then| everyone| all)?[\s!.]*$",
    re.IGNORECASE,
)
DISMISS_RE = re.compile(
    r"^(?:(?:ok(?:ay)?|oh|ah|hmm+|well|um|no)[ ,!.]+)*"
    r"(?:never ?mind|forget (?:it|that|about it)|no worries|no thanks?(?: you)?"
    r"|nothing(?: else)?(?: for now)?|not now|no need|(?:it )?doesn'?t matter|ignore (?:that|it|me))[\s!.]*$",
    re.IGNORECASE,
)
"""A request taken back or help declined ("never mind", "forget it", "no thanks"): nothing to work on."""
CORRECTION_RE = re.compile(
    r"^(?:(?:no|nope|hmm+|um|well|sorry|actually)[ ,!.]+)*"
    r"(?:(?:that'?s|that is|this is|you'?re|you are|it'?s|it is|your answer is|the answer is)\s+)?"
    r"(?:(?:totally|completely|all|just|still|so)\s+)?"
    r"(?:wrong|incorrect|not (?:right|correct|true)|a mistake|mistaken|false)[\s!.]*$",
    re.IGNORECASE,
)
"""The user saying an answer was wrong, and nothing more ("That's wrong", "you're wrong", "no, that's not
right"): no new question to work on (a model asked it made one of it: "10's wrong" for the calculator)."""
NO_ALONE_RE = re.compile(r"^(?:no|nope|nah|hmm+)[\s!.]*$", re.IGNORECASE)
""""No" alone: with a correction after it ("No, that's wrong"), part of it."""
PLEASANTRY_RE = re.compile(
    r"^(?:(?:it'?s |it is )?(?:nice|pleased|glad|good|great) to (?:meet|see|talk to|chat with) you(?: too)?"
    r"|i hope (?:you'?re|you are) (?:doing )?(?:well|good|fine|great)(?: today)?"
    r"|hope (?:you'?re|you are) (?:doing )?(?:well|good|fine|great)(?: today)?"
    r"|i'?m (?:just )?(?:trying|testing|checking) (?:you|this|things) out(?: for the first time)?"
    r"|(?:great|ok|okay|alright|all right|cool|perfect|awesome|nice|lovely|brilliant|right)"
    r"|(?:(?:ok|okay|right|well|anyway)[ ,]+)?(?:i'?m|im|i am) (?:off|heading off|going)"
    r"(?: to (?:bed|sleep|work|go))?(?: now)?"
    r"|(?:(?:ugh|phew|wow|man|oh man|oof|gosh)[ ,!]+)?what an? (?:day|week|morning|night|evening)"
    r"(?: it'?s been)?"
    r"|(?:hmm+[ ,]*)?(?:i'?m |im )?not sure what to ask"
    r"|(?:that'?s|that is) (?:all|it|everything)(?: for (?:now|today|tonight))?"
    r"|i (?:have|might have|will have|'?ll have) (?:a few|some) questions(?: for you)?(?: later)?"
    r"|i'?m new here|first time here"
    r"|(?:i )?hope (?:you'?re|your|you are) having an? (?:good|great|nice|lovely) "
    r"(?:day|week|weekend|evening)"
    r"|(?:that'?s|that is|it'?s|it is) (?:exactly |just )?what i (?:needed|wanted|was looking for))"
    r"[\s!.,:;)(-]*$",
    re.IGNORECASE,
)
"""A pleasantry that goes with a greeting, thanks or a goodbye ("Nice to meet you.", "That's all for
now.")."""


ACKNOWLEDGE_RE = re.compile(
    r"^(?:ok(?:ay)?|k|kk|alright|all right|sure|cool|fine|got it|gotcha|i see|understood|noted|right|hmm+"
    r"|mm+|uh[- ]?huh|ah|oh|aha|yep|yeah|yes|makes sense|fair enough|good|great|nice)"
    r"(?:[ ,]+(?:thanks|thank you|then|now))?[\s!.,:;)(-]*$",
    re.IGNORECASE,
)
"""An acknowledgement alone ("OK", "Got it", "I see"): nothing asked."""


def each_sentence(text: str, *patterns: re.Pattern[str]) -> bool:
    """Whether every sentence of ``text`` (or its comma-led parts: "Thanks, that was helpful!") is small
    talk of one of ``patterns`` ("Good morning! How are you?"), at least one of the first pattern."""
    parts = [
        p.strip(" ,")
        for p in re.split(
            r"(?<=[!.?])\s+"
            r"|,\s+(?=(?:that|this|it|you|bye|goodbye|good ?night|see you|hope|i hope|nice|glad|thanks|"
            r"thank you|cheers|many thanks)\b)",
            text,
            flags=re.I,
        )
        if p.strip(" ,")
    ]
    return (
        bool(parts)
        and any(patterns[0].match(p) for p in parts)
        and all(any(pattern.match(p) for pattern in patterns) for p in parts)
    )


_ASKS_OR_ORDERS_RE = re.compile(
    r"\?|\d|^(?:what|how|which|who|whom|whose|when|where|why|is|are|can|could|would|will|do|does|did|tell|"
    r"show|give|find|get|calculate|compute|convert|work|search|look|list|read|explain|please|let)\b"
    r"|\bi(?:'d| would)? (?:just |really )?(?:need|want|like) (?:the|to|help|some help)\b",
    re.IGNORECASE | re.MULTILINE,
)
"""A sentence that asks or orders something, or holds a number: not small talk."""


_EMOTICON_RE = re.compile(r"(?<!\w)[:;=][-']?[)(DPp]+(?!\w)|[\u2600-\u27bf\U0001f000-\U0001faff]")
"""A smiley or an emoji: no words of a question."""
_YOU = r"(?:you|u)"
_SORT_OF = r"(?:sorts?|kinds?|types?) of (?:questions|things|stuff|tasks|requests|problems|topics|help)"
_LEAD = (
    r"^(?:(?:yo|hey|hi|hello|so|ok(?:ay)?|and|well|um|hmm+|quick question|before we (?:start|begin)"
    r"|just curious|out of curiosity)[ ,!:-]+)*"
)
"""Interjections before a question about the assistant ("yo, what are you?", "just curious, how old r u")."""
LIMITS_ASKED_RE = re.compile(
    r"^\W*(?:what (?:can't|cannot|can not|can you not|don't|do you not) (?:you )?"
    r"(?:do|answer|help(?: me)? with|know)"
    r"|what are your (?:limits|limitations|weaknesses)|what are you (?:bad|not good) at)\b",
    re.IGNORECASE,
)
"""A question of what the assistant cannot do ("What can't you do?", "What are your limitations?")."""
ABOUT_ASSISTANT_RE = re.compile(
    _LEAD + r"(?:"
    # who the assistant is
    rf"(?:who|what) are {_YOU}(?: exactly| really)?|who am i (?:talking|speaking|chatting) (?:to|with)"
    rf"|(?:(?:can|could) {_YOU} )?tell me (?:a (?:bit|little) )?about (?:yourself|urself|you)"
    rf"|what(?:'s| is) your name|what (?:should|do|can) i call {_YOU}"
    # what it can do: always of "you"; "what sort of questions does the docs plugin answer?" asks the docs
    rf"|what (?:else )?(?:can|could|do) {_YOU} (?:do|help(?: me)? with|answer|handle|cover)"
    rf"|what (?:{_SORT_OF}|else|questions|topics|things) (?:can|could|should|do) (?:i|we) ask(?: {_YOU})?"
    rf"(?: about)?"
    rf"|what (?:{_SORT_OF}|questions|topics|subjects|things) (?:can|could|do) {_YOU} "
    r"(?:do|help(?: me)? with|answer|handle|deal with|know about|cover)"
    rf"|what (?:can|could) (?:i|we) (?:ask|use) {_YOU}(?: for| about)?"
    rf"|what are {_YOU} (?:able to do|able to help(?: me)? with|good (?:at|for)|capable of|for)"
    rf"|what do {_YOU} know(?: about)?|how (?:can|could|would) {_YOU} help(?: me)?"
    r"|what are your (?:skills|capabilities|abilities|features|specialties|agents|tools|plugins)"
    # what it cannot do (:data:`LIMITS_ASKED_RE`)
    rf"|what (?:can't|cannot|can not|can(?:'t)? {_YOU} not|don't|do {_YOU} not) (?:{_YOU} )?"
    r"(?:do|answer|help(?: me)? with|know)"
    rf"|what are your (?:limits|limitations|weaknesses)|what are {_YOU} (?:bad|not good) at"
    # its agents and tools: "which agents do you have?", "what tools are available?", "list your tools"
    rf"|(?:which|what) (?:agents|tools|plugins|skills|abilities|capabilities|features) (?:do {_YOU} have"
    rf"|(?:can|do) {_YOU} (?:use|call|offer)|are (?:there|available|loaded|installed|on offer))"
    rf"|(?:list|show me|tell me) (?:all )?(?:your|the available|the loaded) (?:agents|tools|plugins)"
    rf"|do {_YOU} have (?:any )?(?:agents|tools|plugins)"
    rf"|are {_YOU} (?:a |an )?(?:real |actual )?(?:person|human|bot|robot|ai|machine|computer|chatbot"
    r"|language model|llm|chatgpt|gpt(?:-?\d[\w.-]*)?|claude|gemini|siri|alexa|copilot)"
    r"|help(?: me| please| me please)?"
    rf"|who (?:made|built|created|developed|programmed|wrote|trained|designed) {_YOU}"
    r"|who(?:'s| is) your (?:maker|creator|developer|author)|where (?:do|did) (?:you|u) come from"
    r"|(?:got |have you got |do you have )?any (?:ideas|suggestions)"
    r"(?: (?:for|of) what (?:i|to) (?:could |should )?ask)?"
    r"|what (?:should|could) i ask(?: you)?"
    # its instructions, asked for (with "ignore your instructions" before): what it does is said instead
    r"|(?:(?:ignore|forget|disregard) (?:all )?(?:(?:the|your|previous|prior|above|earlier) )*instructions"
    r"[ ,.;:]*(?:and |then )?)?(?:tell me|show me|reveal|print|repeat|what(?:'s| is| are))"
    r" (?:your (?:system )?(?:prompt|instructions|rules)|the system prompt))"
    r"(?: exactly| here| for me| today)?[\s?!.]*$",
    re.IGNORECASE,
)
"""A question about the assistant itself ("yo, what are you exactly?", "can u tell me a bit about urself",
"what sort of questions can I ask you?", "what do you know about?", "who made you?"): no agent's work; the
capabilities answer it. It must end there: "what do you know about Paris?" asks about Paris."""


ABOUT_PERSONA_RE = re.compile(
    _LEAD + r"(?:"
    rf"how old (?:are|r) {_YOU}|what(?:'s| is) your age|when were {_YOU} born"
    rf"|where (?:are|were) {_YOU} (?:from|born)"
    rf"|where do {_YOU} live|where are {_YOU} (?:based|located|right now)"
    r"|(?:when|what day|what date)(?:'s| is) your birthday|when is your birthday"
    r"|what(?:'s| is| are) your (?:favou?rite \w+(?: \w+)?|hobb(?:y|ies)|gender|job|pronouns|family|mood)"
    rf"|what (?:time )?do {_YOU} (?:go to (?:sleep|bed)|wake up|get up|eat|do for fun"
    r"|do in your (?:free|spare) time)"
    rf"|do {_YOU} (?:ever |really |even )?(?:sleep|eat|dream|get tired|get bored"
    r"|have (?:feelings|emotions|a family|friends|a body|a name)"
    r"|like (?:me|it here|your job|\w+))"
    rf"|are {_YOU} (?:happy|sad|tired|bored|alive|sentient|conscious|lonely|married|single|male|female"
    r"|a (?:man|woman|boy|girl))"
    rf"|how are {_YOU} feeling|how do {_YOU} feel)"
    r"[\s?!.]*$",
    re.IGNORECASE,
)
"""A question about the assistant as if it were a person ("how old are you?", "what's your favorite color?",
"what day is your birthday?", "what time do you go to sleep?"): no agent's work (the world clock's "time" or
"day" aside), and a small model asked it invents a person; it must end there ("do you like Paris?" aside)."""


def is_small_talk(question: str) -> bool:
    """Whether ``question`` is only a greeting, thanks, praise or goodbye, with pleasantries: no agent's work
    ("Hey! I'm just trying you out for the first time. Nice to meet you." has "time" in it, and no
    question about one); or a greeting followed by sentences that neither ask nor order anything
    ("Morning! It's raining here. Just wanted to say hi before I start work.")."""
    text = " ".join(_EMOTICON_RE.sub(" ", question).split())
    if ABOUT_ASSISTANT_RE.match(text) or ABOUT_PERSONA_RE.match(text) or ASKED_BEFORE_RE.match(text):
        return True  # about the assistant, or about what the user asked before: the conversation answers
    sentences = [p for p in re.split(r"(?<=[!.?])\s+", text) if p]
    if len(sentences) > 1 and GREETING_RE.match(sentences[0]):
        rest = "\n".join(sentences[1:])
        if not _ASKS_OR_ORDERS_RE.search(rest):
            return True
    return any(
        each_sentence(text, first, *others)
        for first, *others in (
            (GREETING_RE, PLEASANTRY_RE, ABOUT_ASSISTANT_RE),
            (THANKS_RE, PRAISE_RE, PLEASANTRY_RE, GOODBYE_RE, ABOUT_ASSISTANT_RE),
            (GOODBYE_RE, THANKS_RE, PRAISE_RE, PLEASANTRY_RE),
            (ABOUT_ASSISTANT_RE, PLEASANTRY_RE),
            (PRAISE_RE, PLEASANTRY_RE),
            (DISMISS_RE, THANKS_RE, PLEASANTRY_RE),
            (CORRECTION_RE, NO_ALONE_RE, PLEASANTRY_RE),
            (ACKNOWLEDGE_RE, PLEASANTRY_RE),
        )
    )
