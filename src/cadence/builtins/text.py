"""The built-in ``text`` plugin: ``summarize_text``, offline by default, and ``text_facts``
(:mod:`cadence.builtins.text_facts`: counts and spellings of a given text).

- **Extractive** (the default, no model needed): the sentences that carry the text's most
  frequent content words, in their original order; deterministic and instant.
- **Abstractive** (``style="abstractive"``): the plugin's model (the model the turn's agents use)
  rewrites the text in a few sentences; when no model is bound, or the call fails, the result is
  the extractive summary with a note saying so.

Input is bounded by ``CADENCE_SUMMARIZE_MAX_CHARS`` (default 50,000 characters); longer text is
refused with an error that says how to proceed. The tool is available by name to Markdown
agents (``tools: [summarize_text]``) even when the ``text`` plugin is not loaded as an agent.
"""

from __future__ import annotations

import logging
import re
import time
from collections import Counter
from typing import Any, Literal

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.tools import BaseTool, StructuredTool

from cadence.builtins._common import BuiltinToolError, agent_prompt
from cadence.builtins.text_facts import answer as text_facts_answer
from cadence.builtins.text_facts import asks_text_fact
from cadence.sdk import SURELY, BaseAgent, BasePlugin, PluginMetadata, reads, route_text
from cadence.settings import Settings, get_settings
from cadence.text import STOPWORDS, numbers_from_words

logger = logging.getLogger(__name__)

DEFAULT_SENTENCES = 3
"""Sentences in a summary when the call names no number."""
MAX_SENTENCES = 20
"""The most sentences a summary may ask for."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|\n\s*\n|\n(?=\s*[-*•]\s)")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+|\d+(?:[.,]\d+)?")

_MORE_STOPWORDS = """also but had has have he her him his if into just more most not now only other our out
    over said she so some such than their them then there these they those through too up us very we were
    would yes no been being all any each few may might must shall should could"""

SUMMARY_STOPWORDS = STOPWORDS | frozenset(_MORE_STOPWORDS.split())
"""Words that say nothing about what a text is about (:data:`cadence.text.STOPWORDS` and more)."""

ABSTRACTIVE_PROMPT = (
    "Summarize the user's text in at most {n} sentences. Keep names, numbers, decisions and dates exactly "
    "as written; add nothing that is not in the text. Reply with the summary only."
)


class TextTooLongError(BuiltinToolError):
    """The text exceeds ``CADENCE_SUMMARIZE_MAX_CHARS``."""


def split_sentences(text: str) -> list[str]:
    """The text's sentences (and list items), trimmed, without empty ones."""
    parts = _SENTENCE_END.split(text.strip())
    return [" ".join(p.split()) for p in parts if p and p.strip()]


def _content_words(sentence: str) -> list[str]:
    return [w for w in (m.group(0).lower() for m in _WORD.finditer(sentence)) if w not in SUMMARY_STOPWORDS]


def extractive_summary(text: str, max_sentences: int = DEFAULT_SENTENCES) -> str:
    """The ``max_sentences`` sentences that best cover the text's content words, in their order.

    A sentence scores the summed frequency of its distinct content words divided by the square
    root of its length (long sentences are not favoured for length alone); the first sentence
    gets a small bonus (texts tend to open with their topic). Text with no more sentences than
    asked for is returned as it is (whitespace normalised).
    """
    sentences = split_sentences(text)
    if len(sentences) <= max_sentences:
        return " ".join(sentences)
    freq = Counter(w for s in sentences for w in _content_words(s))
    scores: list[tuple[float, int]] = []
    for i, sentence in enumerate(sentences):
        words = _content_words(sentence)
        if not words:
            scores.append((0.0, i))
            continue
        score = sum(freq[w] for w in set(words)) / (len(words) ** 0.5)
        if i == 0:
            score *= 1.2
        scores.append((score, i))
    chosen = sorted(i for _, i in sorted(scores, key=lambda p: (-p[0], p[1]))[:max_sentences])
    return " ".join(sentences[i] for i in chosen)


_REQUEST_RE = re.compile(
    r"^\W*(?:(?:please|kindly)\s+)?(?:(?:can|could|would|will) you\s+(?:please\s+)?)?"
    r"(?:summari[sz]e|sum up|shorten|condense|tl;?\s?dr|(?:give me|write|make) (?:a |an |the )?"
    r"(?:[\w-]+ ){0,3}?(?:summary|tl;?\s?dr|gist|digest))\b[^:?\n]{0,60}?(?::|\?|\.\s|\n)\s*",
    re.IGNORECASE,
)
"""A request to summarize opening the text it is about ("Summarize this:", "Can you summarize the following
text?", "TL;DR:"): an instruction, not part of the text."""

MIN_TEXT_SENTENCES = 2
"""Fewest sentences after a request to summarize for it to carry a text (``summarize_text``'s reader)."""


_SENTENCES_ASKED_RE = re.compile(
    r"\b(?:in|to|into|with|using)\s+(?P<n>\d{1,2}|one|two|three|four|five|a single|a)\s+"
    r"(?:short\s+)?sentences?\b"
    r"|\b(?P<m>\d{1,2}|one|two|three|four|five)[- ](?:sentence|line)\b",
    re.IGNORECASE,
)
"""How many sentences a request to summarize asks for ("in 2 sentences", "a one-sentence summary")."""


def sentences_asked(message: str) -> int | None:
    """The number of sentences the request opening ``message`` asks its summary to have, or None."""
    if not isinstance(message, str):
        return None
    request = message[: len(message) - len(text_to_summarize(message))]
    asked = _SENTENCES_ASKED_RE.search(request)
    if asked is None:
        return None
    said = (asked.group("n") or asked.group("m")).lower()
    said = "1" if said in ("a", "a single") else numbers_from_words(said)
    return int(said) if said.isdigit() else None


def text_to_summarize(message: str) -> str:
    """``message`` without the request to summarize that opens it (when it does)."""
    return _REQUEST_RE.sub("", message, count=1) if isinstance(message, str) else message


def carries_text_to_summarize(text: str) -> bool:
    """``summarize_text``'s reader (:func:`cadence.sdk.reads`): a request to summarize followed by the text
    itself, of :data:`MIN_TEXT_SENTENCES` sentences or more ("Summarize this: The meeting covered ..."):
    :data:`cadence.sdk.SURELY`, whatever else the text's words fit; "Summarize the docs about plugins"
    carries none (the docs agent's)."""
    rest = text_to_summarize(text)
    carries = rest != text and len(split_sentences(rest)) >= MIN_TEXT_SENTENCES
    return SURELY if carries else False  # type: ignore[return-value]


def check_text(text: str, limit: int) -> str:
    """``text`` stripped, without a request to summarize opening it ("Summarize this: ..."); raises
    :class:`BuiltinToolError` when empty or longer than ``limit``."""
    body = text_to_summarize(text).strip() if isinstance(text, str) else ""
    if not body:
        raise BuiltinToolError("There is no text to summarize; pass the text itself in 'text'.")
    if len(text) > limit:
        raise TextTooLongError(
            f"The text has {len(text):,} characters; summarize_text accepts at most {limit:,} "
            "(CADENCE_SUMMARIZE_MAX_CHARS). Summarize it in parts of at most that size, then "
            "summarize the parts' summaries."
        )
    return body


def _turn_settings() -> Settings | None:
    """The settings of the turn this tool runs in (None outside a graph run)."""
    try:
        from langgraph.runtime import get_runtime

        settings = getattr(get_runtime().context, "settings", None)
    except Exception:
        return None
    return settings if isinstance(settings, Settings) else None


def _record_call(model: Any, started: float, usage: Any, error: str | None) -> None:
    """Put the abstractive summary's model call in the turn's trace (when it runs inside a turn)."""
    try:
        from langgraph.config import get_config
        from langgraph.runtime import get_runtime

        context = get_runtime().context
        node = str((get_config().get("metadata") or {}).get("langgraph_node") or "summarize_text")
    except Exception:
        return
    record = getattr(context, "record_model_call", None)
    if not callable(record):
        return
    label = next(
        (v for a in ("model_label", "model_name", "model") if isinstance(v := getattr(model, a, None), str)),
        type(model).__name__,
    )
    usage = usage if isinstance(usage, dict) else {}
    record(
        node,
        label,
        duration_ms=(time.monotonic() - started) * 1000,
        input_tokens=int(usage.get("input_tokens", 0)),
        output_tokens=int(usage.get("output_tokens", 0)),
        error=error,
    )


def _sentences(max_sentences: int | None) -> int:
    n = DEFAULT_SENTENCES if max_sentences is None else int(max_sentences)
    if not 1 <= n <= MAX_SENTENCES:
        raise BuiltinToolError(f"max_sentences must be between 1 and {MAX_SENTENCES}; got {n}.")
    return n


class TextAgent(BaseAgent):
    """The text agent; its tools use its model for abstractive summaries."""

    def __init__(self, metadata: PluginMetadata, settings: Settings | None = None) -> None:
        super().__init__(metadata)
        self._settings = settings
        self._tools = [self._summarize_tool(), self._text_facts_tool()]

    @property
    def max_chars(self) -> int:
        """The input bound (``CADENCE_SUMMARIZE_MAX_CHARS``): the turn's settings, else the process's."""
        settings = self._settings or _turn_settings() or get_settings()
        return settings.summarize_max_chars

    def get_tools(self) -> list[BaseTool]:
        """``summarize_text`` and ``text_facts``."""
        return list(self._tools)

    def get_system_prompt(self) -> str:
        """The text agent's prompt."""
        return agent_prompt(
            "You summarize text the user gives you and count or spell what is in it.",
            [
                "Call summarize_text with the full text; never summarize in your head.",
                "Use style 'abstractive' only when the user asks for a rewritten summary.",
                "Call text_facts with the question for counts of words, letters or characters and for a "
                "text backwards; never count in your head.",
            ],
        )

    async def summarize(
        self,
        text: str,
        max_sentences: int | None = DEFAULT_SENTENCES,
        style: Literal["extractive", "abstractive"] = "extractive",
    ) -> str:
        """The summary of ``text`` (see :mod:`cadence.builtins.text`)."""
        body = check_text(text, self.max_chars)
        asked = sentences_asked(text)
        # "Summarize this in 2 sentences: ...": the request's own count, unless a caller chose another
        n = _sentences(asked if asked and max_sentences in (None, DEFAULT_SENTENCES) else max_sentences)
        if not asked and max_sentences in (None, DEFAULT_SENTENCES):
            # no count asked: at most half the text's sentences (a summary of a three-sentence text had
            # been the text itself)
            n = min(n, max(1, len(split_sentences(body)) // 2))
        if style not in ("extractive", "abstractive"):
            raise BuiltinToolError(f"style must be 'extractive' or 'abstractive'; got {style!r}.")
        extract = extractive_summary(body, n)
        if style == "extractive":
            return extract
        if self.model is None:
            return f"{extract}\n\n(Extractive summary: no model is available for an abstractive one.)"
        started = time.monotonic()
        try:
            reply = await self.model.ainvoke(
                [SystemMessage(content=ABSTRACTIVE_PROMPT.format(n=n)), HumanMessage(content=body)]
            )
            summary = reply.text.strip() if hasattr(reply, "text") else str(reply.content).strip()
        except Exception as exc:  # the tool still answers: the extractive summary, and why
            logger.warning("abstractive summary failed", extra={"error": f"{type(exc).__name__}: {exc}"})
            _record_call(self.model, started, None, f"{type(exc).__name__}: {exc}")
            return f"{extract}\n\n(Extractive summary: the model could not summarize ({type(exc).__name__}).)"
        _record_call(self.model, started, getattr(reply, "usage_metadata", None), None)
        return summary or extract

    def _summarize_tool(self) -> BaseTool:
        agent = self

        async def summarize_text(
            text: str,
            max_sentences: int = DEFAULT_SENTENCES,
            style: Literal["extractive", "abstractive"] = "extractive",
        ) -> str:
            """Summarize a text in a few sentences.

            text: the full text to summarize. max_sentences: how many sentences (1-20; default 3,
            and at most half the text's).
            style: 'extractive' (default: the text's key sentences, works offline) or 'abstractive'
            (rewritten by the language model).
            """
            return await agent.summarize(text, max_sentences, style)

        return reads(carries_text_to_summarize)(
            StructuredTool.from_function(coroutine=summarize_text, name="summarize_text")
        )

    def _text_facts_tool(self) -> BaseTool:
        agent = self

        def text_facts(question: str) -> str:
            """Count or spell a text given in the question, worked out letter by letter: its words,
            letters, characters, vowels or sentences, how often a letter or word occurs, the text
            backwards or in upper or lower case, whether it is a palindrome, which of two words is
            longer, whether two words are anagrams, the acronym of words, its syllables, a list in
            alphabetical order. Pass the question with
            the text, e.g. "How many r's are in strawberry?", "How many words are in: <text>"."""
            if len(question) > agent.max_chars:
                raise BuiltinToolError(
                    f"The question has {len(question):,} characters; text_facts reads at most "
                    f"{agent.max_chars:,} (CADENCE_SUMMARIZE_MAX_CHARS). Ask about a shorter text."
                )
            return text_facts_answer(question)

        described = route_text(
            "Count or spell a text the user gives: how many words, letters, characters, vowels or "
            "sentences it has, how many times a letter or a word appears in it (how many r's in a "
            "word), the word or text backwards (reverse, spell backwards), in upper or lower case, "
            "whether it is a palindrome, whether two words are anagrams, the acronym or initials of "
            "words, how many syllables a word has, words or a list sorted in alphabetical order "
            "(alphabetize, A to Z)."
        )
        return reads(asks_text_fact)(described(StructuredTool.from_function(text_facts, name="text_facts")))


class TextPlugin(BasePlugin):
    """Built-in plugin ``text``: ``summarize_text`` (extractive offline, abstractive with a model) and
    ``text_facts`` (counts and spellings of a given text)."""

    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        """Metadata of the text plugin."""
        return PluginMetadata(
            name="text",
            version="1.0.0",
            description="Text agent: summarizes a text the user gives, counts its words or letters.",
            capabilities=[
                "summarize a text, an article, notes or a transcript given in the message",
                "shorten long text: the gist, a TL;DR",
                "count the words, letters or characters of a given text, or a letter in a word",
                "spell a word backwards (reverse it), write it in upper or lower case, check a palindrome "
                "or two anagrams, the acronym of words",
                "count the syllables of a word; put words or a list in alphabetical order (alphabetize)",
            ],
            agent_type="utility",
            response_suggestion="Give the summary as it is; do not add facts that are not in the text.",
        )

    @classmethod
    def create_agent(cls) -> BaseAgent:
        """A new text agent."""
        return TextAgent(cls.get_metadata())


__all__ = [
    "TextAgent",
    "TextPlugin",
    "TextTooLongError",
    "carries_text_to_summarize",
    "check_text",
    "extractive_summary",
    "split_sentences",
    "text_to_summarize",
]
