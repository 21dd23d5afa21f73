"""English text helpers shared by the parts of Cadence that match words (imports nothing of Cadence).

:data:`STOPWORDS` is the common base: the pre-router of the embedded model
(:mod:`cadence.models.preroute`) and the docs search (:mod:`cadence.builtins.docs`) each add
their own words to it, because they ignore different things (routing boilerplate such as
"agent" and "tool"; words about searching such as "docs" and "look up").

:func:`numbers_from_words` reads numbers written in words ("forty two", "a hundred") as digits:
the math language and the embedded model's argument grammar both read them.

:func:`named_values` reads a result that lists named values ("count: 4; sum: 100; mean: 25"): the
embedded model answers with the ones asked for, the final-answer check accepts any of them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from decimal import Decimal
from typing import Any

_STOPWORDS_TEXT = """a about an and are as at be by can did do does for from how i in is it its me my of on or
    please s t tell that the this to was what when where which who why will with you your"""

STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
"""Function words and question words that say nothing about what a message is about."""

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90,
}  # fmt: skip
_MULTIPLIERS = {"hundred": 100, "dozen": 12}
"""Words that multiply the number before them within a group ("three hundred", "two dozen")."""
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000, "trillion": 10**12}
"""Words that close a group ("two thousand three hundred")."""

LARGEST_NUMBER_WORDS = 10**15
"""Largest number read from words; a longer run ("hundred hundred hundred ...") stays as written
(it names no number, and its digits would grow without bound)."""

NUMBER_WORDS = frozenset([*_UNITS, *_TENS, *_MULTIPLIERS, *_SCALES])
"""English words that write a number (cardinals, "hundred", "dozen", "thousand", ...)."""

_VALUE_WORD = "|".join([*_UNITS, *_TENS])
_SIZE_WORD = "|".join([*_MULTIPLIERS, *_SCALES])
_NUMBER_PHRASE_RE = re.compile(
    rf"\b(?:(?:{_VALUE_WORD})|(?:an?\s+)?(?:{_SIZE_WORD}))"
    rf"(?:(?:[\s-]+|\s+and\s+)(?:{_VALUE_WORD}|{_SIZE_WORD}))*\b",
    re.IGNORECASE,
)
"""A run of number words; "a"/"an" may open it before a size word ("a hundred", "a dozen")."""


def _read_number_words(phrase: str) -> str:
    """``"twenty five"`` → ``"25"``; ``"one hundred and two"`` → ``"102"``; ``"a dozen"`` → ``"12"``.

    "and" continues a number only after "hundred", "thousand", ... ("one hundred and two");
    elsewhere it separates two numbers ("seven and eight" → ``"7 and 8"``).
    """
    numbers: list[str] = []
    total, current, previous = 0, 0, ""
    for word in re.split(r"[\s-]+", phrase.lower()):
        if word in ("a", "an", ""):
            continue
        if word == "and":
            if previous not in _MULTIPLIERS and previous not in _SCALES:
                numbers.append(str(total + current))
                total, current = 0, 0
            previous = word
            continue
        if word in _UNITS:
            current += _UNITS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word in _MULTIPLIERS:
            current = max(current, 1) * _MULTIPLIERS[word]
        elif previous in _SCALES and current == 0 and _SCALES[previous] <= _SCALES[word]:
            total *= _SCALES[word]  # "a thousand million", "a million million": one scale of another
        else:
            total += max(current, 1) * _SCALES[word]
            current = 0
        if total + current > LARGEST_NUMBER_WORDS:
            return phrase
        previous = word
    numbers.append(str(total + current))
    return " and ".join(numbers)


_SCALED_DIGITS_RE = re.compile(rf"(?<![\w.])(\d+(?:\.\d+)?)\s+({_SIZE_WORD})\b", re.IGNORECASE)
"""A number in digits times a size word: "2 million", "3 hundred", "1.5 thousand"."""


def _scaled(match: re.Match[str]) -> str:
    size = _MULTIPLIERS.get(match.group(2).lower()) or _SCALES[match.group(2).lower()]
    value = Decimal(match.group(1)) * size
    return match.group(0) if value > LARGEST_NUMBER_WORDS else f"{value.normalize():f}"


_DIGIT_WORDS = {
    "zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9",
}  # fmt: skip
_POINT_DIGITS_RE = re.compile(r"\bpoint((?:\s+(?:" + "|".join(_DIGIT_WORDS) + r"|\d))+)\b", re.IGNORECASE)
"""The digits said after "point" ("one point five", "zero point seven five"): each word one digit."""
_POINT_JOINED_RE = re.compile(r"(?<![\w.])(\d+)\s+point\s+(\d+)\b", re.IGNORECASE)
_HALF_SIZE_RE = re.compile(r"\bhalf\s+an?\s+(million|billion|thousand|hundred)\b", re.IGNORECASE)
"""Half a size word: "half a million" is 500000 (read word by word, "half" had halved what followed)."""


def numbers_from_words(text: str) -> str:
    """Numbers written in words in ``text`` replaced by digits (other words untouched), also digits
    before a size word ("2 million" → ``2000000``), a decimal said with "point" ("one point five" → ``1.5``)
    and half a size word ("half a million" → ``500000``)."""
    text = _SCALED_DIGITS_RE.sub(_scaled, text)
    text = _HALF_DOZEN_RE.sub(lambda m: "18" if m.group("and") else "13" if m.group("baker") else "6", text)
    text = _HALF_SIZE_RE.sub(lambda m: str(_SCALES.get(m.group(1).lower(), 100) // 2), text)
    text = _POINT_DIGITS_RE.sub(
        lambda m: "point " + "".join(_DIGIT_WORDS.get(w.lower(), w) for w in m.group(1).split()), text
    )
    text = _NUMBER_PHRASE_RE.sub(lambda m: _read_number_words(m.group(0)), text)
    return _POINT_JOINED_RE.sub(r"\1.\2", text)


def number_in_words(n: int) -> str:
    """A whole number written in English words, the inverse of :func:`numbers_from_words`: ``1_000_000`` →
    ``"one million"``, ``305`` → ``"three hundred and five"``, ``-42`` → ``"minus forty-two"`` (up to
    :data:`LARGEST_NUMBER_WORDS`; ValueError beyond)."""
    if abs(n) >= LARGEST_NUMBER_WORDS:
        raise ValueError(f"{n} is too large to write in words")
    if n < 0:
        return f"minus {number_in_words(-n)}"
    if n == 0:
        return "zero"
    units = {v: k for k, v in _UNITS.items()}
    tens = {v: k for k, v in _TENS.items()}

    def below_thousand(k: int, after_larger: bool) -> str:
        hundreds, rest = divmod(k, 100)
        words = [f"{units[hundreds]} hundred"] if hundreds else []
        if rest:
            small = (
                units[rest]
                if rest < 20
                else tens[rest - rest % 10] + (f"-{units[rest % 10]}" if rest % 10 else "")
            )
            words.append(f"and {small}" if hundreds or after_larger else small)
        return " ".join(words)

    groups: list[str] = []
    remaining = n
    for name, size in sorted(_SCALES.items(), key=lambda item: -item[1]):
        count, remaining = divmod(remaining, size)
        if count:
            groups.append(f"{below_thousand(count, False)} {name}")
    if remaining:
        groups.append(below_thousand(remaining, bool(groups)))
    return " ".join(groups)


_HALF_DOZEN_RE = re.compile(
    r"\bhalf an? dozen\b|\ba dozen (?P<and>and a half)\b|\ban? (?P<baker>baker'?s'? dozen)\b", re.IGNORECASE
)
"""Half a dozen is 6, a dozen and a half 18 and a baker's dozen 13 (read word by word, "half" was lost and
a dozen was 12)."""


def valid_unicode(text: str) -> str:
    """``text`` with every lone surrogate (``"\\ud800"``: not encodable as UTF-8) replaced by U+FFFD.

    Text from plugins can hold them (a tool slicing a UTF-16 string, a ``\\ud800`` JSON escape);
    a response, an event or a database row containing one fails to encode.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


_THINK_RE = re.compile(r"<think>(.*?)(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})


def split_thought(content: Any) -> tuple[Any, str]:
    """``(answer, thought)``: a text reply without its ``<think>`` blocks, and what they said.

    An unclosed block runs to the end. Non-text content is returned as it is.
    """
    if not isinstance(content, str) or "<think>" not in content.lower():
        return content, ""
    thought = "\n".join(m.strip() for m in _THINK_RE.findall(content) if m.strip())
    return _THINK_RE.sub("", content).strip(), thought


def visible(text: str) -> bool:
    """Whether ``text`` shows anything: a character other than spaces, control and format
    characters (zero-width spaces and joiners, byte-order and direction marks, NUL)."""
    return any(not ch.isspace() and unicodedata.category(ch) not in _INVISIBLE_CATEGORIES for ch in text)


_SENTENCE_BREAK_RE = re.compile(r"(?<=[.!?])\s+")


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, cut after a ".", "!" or "?" followed by a space ("I sleep 8 hours a
    night. How many hours ...?" is two)."""
    return [part for part in _SENTENCE_BREAK_RE.split(text.strip()) if part]


def says_something(text: str) -> bool:
    """Whether ``text`` says anything: a letter or a digit (of any script) or a symbol such as an emoji;
    punctuation, quotes or an empty code fence alone (``"."``, ``'""'``, a fence of backticks) say
    nothing."""
    return any(ch.isalnum() or unicodedata.category(ch) == "So" for ch in text)


_ENTRY_RE = re.compile(r"(?:^|;|\n)\s*([A-Za-z][A-Za-z -]{0,40}?):\s*([^;\n]+)")
MIN_NAMED_VALUES = 3
"""A text lists named values when it has at least this many ``name: value`` entries."""


def named_values(text: str) -> list[tuple[str, str]]:
    """The ``(name, value)`` entries of a text listing named values (``"count: 4; sum: 100; mean: 25"``),
    or [] when it has fewer than :data:`MIN_NAMED_VALUES`."""
    entries = [(n.strip(), v.strip()) for n, v in _ENTRY_RE.findall(text)]
    return entries if len(entries) >= MIN_NAMED_VALUES else []


# -- what a question about documents asks: the docs search's snippets and the answer from passages ------
# (``cadence.builtins.docs`` places a snippet at the sentence that ``cadence.passages`` will quote, so
# both read a question with these words)
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ers", "er", "ed", "es", "ly", "s")


def stem(word: str) -> str:
    """A light stemmer: one common English suffix off (a stem keeps three letters at least), so that
    "memories" and "memory" meet at "memory", "recalled" and "recall" at "recall", "names", "named"
    and "name" at "nam"."""
    if len(word) <= 3 or not word.isalpha():
        return word
    return strip_suffix(word)


_NOT_INFLECTED = {
    "meaning": "meaning",
    "meanings": "meaning",
    "evening": "evening",
    "evenings": "evening",
    "morning": "morning",
    "mornings": "morning",
    "during": "during",
    "nothing": "nothing",
    "something": "something",
    "everything": "everything",
    "anything": "anything",
    "mode": "mode",
    "modes": "mode",
}
"""Words whose suffix is no inflection: "meaning" is not "mean" (an average), "evening" not "even", "mode"
(the most common value) not "mod" (a remainder)."""


def strip_suffix(word: str) -> str:
    """``word`` without one common English suffix, keeping three letters at least (no other checks): the
    light stemmer's rule, shared with the embedded model's pre-router (``cadence.models.preroute.stem``);
    a word that only looks inflected (:data:`_NOT_INFLECTED`) stays whole."""
    if word in _NOT_INFLECTED:
        return _NOT_INFLECTED[word]
    for suffix in _SUFFIXES:
        if suffix == "s" and word[-2] in "su":  # class, status
            continue
        if suffix == "ly" and word.endswith("ply"):  # reply, apply
            continue
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix in ("ies", "ied"):
                return base + "y"
            if suffix == "es" and not base.endswith(("s", "x", "z", "ch", "sh")):
                return _without_final_e(word[:-1])  # names -> nam, like name
            return base
    return _without_final_e(word)


def _without_final_e(word: str) -> str:
    return word[:-1] if word.endswith("e") and len(word) >= 4 else word


NOT_TOPICS = STOPWORDS | {
    "whats",
    "according",
    "tell",
    "say",
    "says",
    "said",
    "know",
    "like",
    "want",
    "there",
    "their",
    "them",
    "they",
    "then",
    "than",
    "these",
    "those",
    "some",
    "any",
    "also",
    "into",
    "just",
    "very",
    "would",
    "could",
    "should",
    "were",
    "been",
    "being",
    "per",
    "may",
    "might",
    "must",
    "shall",
    "not",
    "too",
}
"""Words that say nothing of what a question or a sentence of a document is about."""

DATE_IN_DIGITS_RE = re.compile(
    r"(?<![\d./-])(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4})(?![\d./-])"
)
"""A date written in digits ("2026-12-25", "12/25/2026", "25.12.2026"): a date, not numbers subtracted or
divided (the calculator's readers and the embedded model's pre-router leave it out of arithmetic)."""

WEAK_WEIGHT = 0.25
"""What a weak word of a question (:data:`WEAK_WORDS`) counts, against 1 for the others."""
RELATED_STRENGTH = 0.8
"""What a related word (:data:`RELATED_WORDS`: "one" for "single") counts, against 1 for the word."""

WEAK_WORDS = frozenset(
    stem(w)
    for w in (
        "cadence",  # what all the documentation is about
        "search",
        "look",
        "lookup",
        "mention",
        "describe",
        "explain",
        "find",
        "have",
        "has",
        "had",
        "happen",
        "own",
        "get",
        "make",
        "need",
        "many",
        "much",
        "thing",
        "way",
        "use",
        "used",
        "uses",
        "using",
        "take",
        "give",
        "run",  # "how do I run it with PostgreSQL?" asks about PostgreSQL
        "runs",
        "running",
        "work",  # "how does memory work?" asks about memory
        "works",
        "number",
        "one",  # "in one turn" is "per turn"
        "single",
    )
)
"""Words of a question that say little about what it asks ("what happens if ...", "search for ...",
"how many ...")."""

_GOOD_FEELINGS = r"happy|glad|great|good|fine|ok|okay|well|excited|grateful|relaxed|cheerful|awesome"
FEELING_RE = re.compile(
    r"^\W*(?:(?:oh|well|hmm|ugh|honestly|today|right now)\W+)?"
    r"(?:i'm|i’m|im|i am|i feel|i'm feeling|i am feeling)\s+"
    r"(?:(?:so|really|very|a bit|a little|kind of|kinda|pretty|quite|super|too|rather|extremely)\s+)*"
    rf"(?:(?P<good>{_GOOD_FEELINGS})|(?P<bad>bored|tired|sad|hungry|thirsty|sleepy|stressed|lonely|angry|upset"
    r"|fed up|down|depressed|anxious|worried|nervous|exhausted|sick|ill|unwell|cold|hot|confused|lost"
    r"|frustrated|annoyed|overwhelmed|scared|afraid|homesick|miserable|grumpy))\b"
    r"(?:\s+(?:today|tonight|now|right now|at the moment|again|lately|this morning|this evening))?\W*$",
    re.IGNORECASE,
)
"""How the user feels now ("I'm bored", "I'm feeling sad today"): a passing state, no fact to remember and
no question; ``good`` or ``bad`` says which way."""

ACTION_REQUEST_RE = re.compile(
    r"^\W*(?:(?:hey|ok|okay|please)\W+)?(?:(?:can|could|would|will) you\s+(?:please\s+)?)?(?:please\s+)?"
    r"(?:(?:set|start|create|make)\s+(?:an?|the|my|me\s+an?)\s+(?:\d+[- ]\w+\s+)?"
    r"(?:timer|alarm|reminder|countdown)|wake\s+me\b|remind\s+me\s+(?:to|at|in|on|tomorrow|tonight|every)\b"
    r"|(?:play|stream)\s+(?:some|a|an|the|my|me)?\s*(?:music|songs?|podcast|video|radio|playlist)"
    r"|(?:send|text|email|message)\s+(?:a|an|my|\w+)\b.*\b(?:message|email|text|to)\b"
    r"|(?:call|phone|ring|dial)\s+(?:my\s+|mom\b|mum\b|dad\b|\w+\s+(?:at|on)\b)"
    r"|(?:book|reserve|order|buy)\s+(?:a|an|me|us|some|the|my)\s+"
    r"|turn\s+(?:on|off)\s+(?:the\s+)?(?:lights?|tv|music|heating|radio))",
    re.IGNORECASE,
)
"""A request to do something in the world (set a timer or a reminder, play music, send a message, call
someone, book or order something, switch a device): no built-in tool acts, so no agent takes it and the
reply says so (a plugin whose tool does act gets it by its own words and reader)."""
ASKED_BEFORE_RE = re.compile(
    r"^\W*(?:(?:so|and|ok(?:ay)?|well|hey|hi|sorry)[ ,!:]+)*(?:"
    r"(?:what|which) (?:was|were) my (?P<which>first|last|previous|earlier|other) (?:questions?|messages?)"
    r"|what did i (?P<just>just )?(?:ask|say)(?: you)?"
    r"(?: (?P<when>first|at first|before|earlier|last|just now|previously))?"
    r"|what (?:have|did) i asked?(?: you)?(?: so far| before| earlier| already)?"
    r"|(?:can you |please )?(?:repeat|remind me of) my (?P<which2>first|last|previous) question"
    r")[\s?!.]*$",
    re.IGNORECASE,
)
"""A question about what the user asked earlier in the conversation ("What was my first question?", "What
did I just ask?", "What have I asked so far?"): the conversation answers it, no agent. The groups ``which``,
``which2``, ``when`` and ``just`` say which message (the first, the previous); none, all of them."""

WHAT_IS_KNOWN_RE = re.compile(
    r"^\W*(?:(?:so|and|ok(?:ay)?|well|hey|hi|tell me)[ ,!:]+)*(?:"
    r"who am i"
    r"|what (?:(?:else )?do|did|can) you (?:know|remember|recall|have(?: stored| saved| on file)?)"
    r" (?:about|of|on) (?:me|myself)"
    r"|what (?:have|did) i (?:told|tell) you(?: about (?:me|myself))?"
    r"|(?:(?:can|could) you |please )?tell me (?:what you know |everything you know |what you remember )?"
    r"about (?:me|myself)"
    r"|do you (?:know|remember) (?:anything|something|much) about me|do you (?:know|remember) who i am"
    r"|what(?:'s| is) in your memory(?: about me)?"
    r")(?:\s+(?:so far|already|yet|by now|now|before|earlier))?[\s?!.]*$",
    re.IGNORECASE,
)
"""A question asking what the assistant knows of the user as a whole ("What do you know about me?", "Who am
I?", "What have I told you so far?", "Tell me about myself"): every fact the user told answers it, not the
few that share its words (it shares none). Ends there: "Who am I talking to?" asks about the assistant."""

THE_DOCS_RE = re.compile(
    r"\b(?:docs?|documentation|documents?)\b(?=\s*(?:[,.?!;:]|$)|\s+(?:say|says|said|tell|tells|mention|"
    r"mentions|explain|explains|describe|describes|about|for|on|what|how|which|whether|if)\b)",
    re.IGNORECASE,
)
"""The documentation as where to look ("what do the docs say about", "search the docs for", "according
to the docs,"), not as what is asked about ("the docs plugin")."""

_RELATED_TEXT = {
    "single": "one",
    "one": "single",
    "call": "execution invocation",
    "execution": "call",
    "long": "length longest character char max maximum limit second duration timeout deadline",
    "length": "long longest character char",
    "longest": "max maximum most limit length character char",
    "size": "byte character char",
    "big": "size byte max maximum limit",
    "large": "size byte max maximum limit",
    "same": "share duplicate",
    "folder": "directory dir",
    "directory": "folder dir",
    "dir": "folder directory",
    "many": "most max maximum limit number",
    "much": "most max maximum limit",
    "max": "maximum most limit longest",
    "maximum": "max most limit longest",
    "limit": "max maximum most",
    "min": "minimum least",
    "minimum": "min least",
    "deadline": "timeout",
    "timeout": "deadline",
    "model": "llm",
    "llm": "model",
    "conversation": "thread",
    "discover": "find found load",  # stems as "discov" (discovers), "discovered" as "discover"
    "discovered": "find found load",
    "backend": "sqlite postgresql memory",
    "interface": "page ui browser",
    "ui": "page interface browser",
    "city": "place town",
    "town": "place city",
    "keep": "store live save",
    "store": "keep live save",
    "save": "store keep write",
}
HOW_TO_WORDS: dict[str, tuple[str, ...]] = {
    "authentication": ("key", "keys"),
    "authenticate": ("key", "keys"),
    "auth": ("key", "keys"),
    "login": ("key", "keys"),
    "cli": ("command", "chat"),
    "add": ("write", "create", "register"),
    "make": ("write", "create"),
    "create": ("write",),
    "build": ("write", "create"),
    "new": ("write", "create"),
    "change": ("set", "setting", "choose", "chosen", "configure"),
    "switch": ("set", "setting", "choose", "chosen"),
    "configure": ("setting", "set"),
    "pick": ("choose", "setting"),
    "select": ("choose", "setting"),
    "remove": ("disable", "disabled"),
    "turn": ("disable", "enable"),
    "launch": ("start", "serve"),
    "run": ("start", "serve"),
}
"""Words the documentation says for the verb of a how-to question, or for its subject said another way:
"how do I add a plugin" is answered by "Writing a plugin", "how do I change the model" by the setting that
chooses it, "how do I add authentication" by the API keys. The docs search widens its
query with them and counts them in section titles as the question's own word; the sentences picked from
what is found count them as related words (:data:`RELATED_WORDS`). A passage with the verb itself still
matches it ("durations add up")."""


_ONE_WORD_PHRASES = {
    "time out": "timeout", "times out": "timeout", "timed out": "timeout", "timing out": "timeout",
    "log in": "login", "logs in": "login", "sign in": "login", "command line": "cli",
    "set up": "setup", "sets up": "setup",
}  # fmt: skip
_ONE_WORD_PHRASE_RE = re.compile(r"\b(?:" + "|".join(_ONE_WORD_PHRASES) + r")\b", re.IGNORECASE)


def one_word_phrases(text: str) -> str:
    """``text`` with phrases that documents write as one word joined ("a tool times out" says "timeout",
    "the command line" "cli"): a search for the phrase's words alone finds "how many times"."""
    return _ONE_WORD_PHRASE_RE.sub(lambda m: _ONE_WORD_PHRASES[m.group(0).lower()], text)


SELF_TOPIC_WORDS: dict[str, frozenset[str]] = {
    "age": frozenset({"age", "old", "years", "born", "birthday", "birth"}),
    "birthday": frozenset({"birthday", "born", "birth"}),
    "home": frozenset({"live", "lives", "living", "home", "address", "based"}),
    "work": frozenset({"work", "works", "working", "job", "employer"}),
}
"""The words a fact the user told about themselves may say for a topic asked of it ("my age": "You're 30
years old."; "where I live": "You live in Berlin."): what memory forgets and what answers a question about
the user."""


RELATED_WORDS: dict[str, frozenset[str]] = {
    stem(word): frozenset(stem(r) for r in related.split())
    for word, related in (
        _RELATED_TEXT | {verb: " ".join(words) for verb, words in HOW_TO_WORDS.items()}
    ).items()
}
"""Words a document may say for a word of a question ("one tool execution" for "a single tool call";
"at most 52 characters" for "how long")."""

BIRTH_YEAR_ASKED_RE = re.compile(
    r"\b(?:what|which)\s+year\s+(?:was|were)\s+(?:i|you|he|she|they|someone|we)\s+born\b"
    r"|\bwhen\s+(?:was|were)\s+(?:i|you|he|she|they|we)\s+born\b"
    r"|\b(?:my|your|his|her|their)\s+(?:birth\s*year|year\s+of\s+birth)\b",
    re.IGNORECASE,
)
"""A question for a year of birth ("In what year was I born?", "What year were they born?", "my birth
year"): the date calculator works it out of an age, memory hands a told age to it."""


def without_pictographs(text: str) -> str:
    """``text`` without emoji and other pictographic symbols ("what's 2+2 😀": "what's 2+2 "), their
    variation selectors and joiners; the degree sign and the currency and maths symbols stay."""
    return "".join(
        ch
        for ch in text
        if not (
            (unicodedata.category(ch) == "So" and ch != "°")
            or ch in "\ufe0f\ufe0e\u200d"
            or 0x1F1E6 <= ord(ch) <= 0x1F1FF  # regional indicators (flags)
            or 0x1F3FB <= ord(ch) <= 0x1F3FF  # skin tones
        )
    )


def one_edit_apart(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one inserted, deleted or replaced letter, or two adjacent letters
    swapped ("devide" and "divide", "miels" and "miles")."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diff) == 1 or (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long = sorted((a, b), key=len)
    i = next((i for i, (x, y) in enumerate(zip(short, long, strict=False)) if x != y), len(short))
    return short[i:] == long[i + 1 :]


def spelling_fixed(text: str, known: Collection[str], not_typos: Collection[str] = ()) -> str:
    """``text`` with each word of four letters or more that misspells one of ``known`` written as it:
    one edit away (:func:`one_edit_apart`) with the same first and last letter (an inflection such as
    "multiple" or "divides" changes the end and is left alone), never a word of ``not_typos`` (ordinary
    words that are one edit away, "reminder" for "remainder")."""

    def spelled(match: re.Match[str]) -> str:
        word = match.group(0)
        lower = word.lower()
        if len(lower) < 4 or lower in known or lower in not_typos:
            return word
        for right in known:
            if lower[0] == right[0] and lower[-1] == right[-1] and one_edit_apart(lower, right):
                return right
        return word

    return re.sub(r"[A-Za-z]+", spelled, text)


FORGET_RE = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|please|now|also|and)[ ,]+)*(?:(?:can|could|would) you\s+)?(?:please\s+)?"
    r"(?:forget|(?:delete|erase|remove|wipe|clear)"
    r"(?=\s+(?:my|what i|everything|all)\b|.*\bfrom (?:your )?memory\b))"
    r"\s+(?:about\s+)?(?P<what>[^?,;:]{1,80}?)(?:\s+from (?:your )?memory)?"
    r"(?:,?\s+please)?\s*[.!?]*\s*$",
    re.IGNORECASE,
)
"""A request to forget what the user told ("Forget my age.", "Please forget that I live in Berlin", "Forget
everything about me")."""
