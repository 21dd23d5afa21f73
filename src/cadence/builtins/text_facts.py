"""``text_facts``: counts and spellings of a text the user gives, worked out, never guessed.

A language model does not see letters (it reads tokens), so "How many r's are in strawberry?" or "How
many words are in this sentence: ..." are answered wrong by small and large models alike. This tool
reads the request and the text it is about from one question and works the answer out:

- the letters, words, characters (with and without spaces), sentences, vowels or consonants of a
  text, or how often a letter or a word occurs in it;
- the text written backwards, in upper, lower or title case, capitalized; whether it is a palindrome; its
  longest or shortest word; its first, third, ... or last letter.
- which of two words is longer or shorter ("Which is longer, 'elephant' or 'giraffe'?"; the words quoted,
  or named after a comma when the question speaks of words or letters); whether two words are anagrams
  ("Are listen and silent anagrams?"); the acronym of words ("the acronym for 'portable network graphics'");
- a list of words in alphabetical order (A to Z, or Z to A); the syllables of a word or text, counted by
  its spoken vowel groups (an English rule of thumb, right for most words, said as such).

The text is what follows a colon ("Count the words in this: ..."), what the question quotes ("'to be or
not to be'"), or the word a short question names ("How many r's in strawberry?", "Reverse the word
hello", "Is racecar a palindrome?"). A question asking none of these, or naming no text, is an error
that says how to ask.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cadence.builtins._common import BuiltinToolError, capitalized
from cadence.sdk import SURELY
from cadence.text import spelling_fixed

VOWELS = frozenset("aeiou")
"""The vowels counted (English; "y" counts as a consonant)."""

_QUOTED_RE = re.compile(r"(?:^|(?<=[\s:(]))([\"“‘'])(?P<text>[^\"“”‘’]+?)[\"”’'](?=$|[\s?.!,:;)])")
"""A text in quotes ("'to be or not to be'", "“hello”"); not an apostrophe ("r's", "don't")."""
_AFTER_COLON_RE = re.compile(r":\s*(?P<text>\S.*)$", re.DOTALL)
"""A text after a colon ("How many words are in this sentence: the quick brown fox")."""
_NAME_GIVEN_RE = re.compile(
    r"\b(?:my|his|her|their|our|your|the)\s+(?:first\s+|last\s+|full\s+|sur)?name\s*(?:,|-|\bis\b)\s*"
    r"(?P<text>[^\W\d_][\w' .-]*?)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""A name given after the words naming it ("How many letters are in my name, Alexander?")."""
_WORD_NAMED_RE = re.compile(
    r"\b(?:in|is|(?<=letter )of|(?<=character )of|reverse|spell|write|capitali[sz]e|uppercase|lowercase)\s+"
    r"(?:(?:the\s+)?(?:word|name|text|phrase|sentence|string)\s+)?"
    r"(?!(?:the|a|an|my|your|our|their|this|that|these|those|it)\b)"
    r"(?P<text>[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*){0,3}?)"
    r"(?=\s+(?:backwards?|reversed|in reverse|in (?:upper|lower|capital)[ -]?case|in capitals?"
    r"|a palindrome)\b|\s*[?.!]*\s*$)",
    re.IGNORECASE,
)
"""The word or few words a short question names ("How many r's in strawberry?", "Reverse the word hello",
"Spell necessary backwards", "Is racecar a palindrome?"); not a thing described ("the capital of France")."""

_LETTER_RE = re.compile(
    r"\bhow many (?:times does (?:the letter )?['\"]?(?P<a>[a-z])['\"]? (?:appear|occur|show up)"
    r"|(?:of )?(?:the letter )?['\"]?(?P<b>[a-z])['\"]?(?:['’]s|s)?\b(?! (?:words?|letters|characters)\b))"
    r"|\bcount (?:the )?(?:letter|character) ['\"]?(?P<c>[a-z])['\"]?(?=\s+in\b)",
    re.IGNORECASE,
)
"""A letter counted ("How many r's are in strawberry?", "How many times does 's' appear in ...", "Count the
letter s in Mississippi")."""
_WORD_COUNTED_RE = re.compile(
    r"\bhow many times (?:does|is) (?:the word )?['\"“]?(?P<word>[^\W\d_][\w-]*(?:'\w+)?)['\"”]? "
    r"(?:appear|occur|used|show up|come up)",
    re.IGNORECASE,
)
"""A word counted ("How many times does 'the' appear in: ...")."""


def _counted(noun: str) -> re.Pattern[str]:
    """The ways a count of ``noun`` (plural) is asked: "how many letters", "letters in", "letter count",
    "count the letters", "number of letters"."""
    one = noun.removesuffix("s")
    return re.compile(
        rf"\b(?:(?P<loose>{noun}\s+(?:are\s+)?(?:there\s+)?in\b)|how many {noun}|{one} count"
        rf"|count (?:the |all )?{noun}|number of {noun})\b",
        re.IGNORECASE,
    )


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
"""Ordinal words of a letter's place ("the third letter of ..."); "last" and "5th" are read too."""

_ASKS: dict[str, re.Pattern[str]] = {
    "words_reversed": re.compile(
        r"\breverse\s+(?:the\s+)?(?:order\s+of\s+(?:the\s+)?)?words\b|\bwords\s+in\s+reverse(?:d)?\s+order\b"
        r"|\bword\s+order\s+reversed\b",
        re.I,
    ),
    "unique_letters": re.compile(
        r"\b(?:how many|count(?: the)?|number of)\s+(?:unique|distinct|different) letters\b", re.I
    ),
    "words": _counted("words"),
    "characters": _counted("characters"),
    "letters": _counted("letters"),
    "vowels": _counted("vowels"),
    "consonants": _counted("consonants"),
    "sentences": _counted("sentences"),
    "syllables": _counted("syllables"),
    "sorted": re.compile(
        r"\balphabeti[sz]e\b|\b(?:in|into) (?:reverse )?alphabetical order\b"
        r"|\b(?:sort|order|arrange|list)\b[^:]*\b(?:alphabetically|a to z|z to a|a-z|z-a)\b"
        r"|\b(?:sort|order|arrange)\s+(?:these|the\s+following|this\s+list\s+of|the)\s+(?:words|names)\b"
        r"|^\W*(?:please\s+)?(?:sort|order|arrange)\b[^:\d]*:\s*[^\d:]+$",
        re.I,
    ),
    "palindrome": re.compile(r"\bpalindromes?\b", re.I),
    "backwards": re.compile(r"\b(?:backwards?|reversed?|in reverse)\b", re.I),
    "upper": re.compile(r"\b(?:upper[ -]?case|in (?:all )?capitals?|in capital letters|all caps)\b", re.I),
    "lower": re.compile(r"\blower[ -]?case\b", re.I),
    "title": re.compile(
        r"\btitle[ -]?case\b"
        r"|\bcapitali[sz]e (?:each|every|all the|the first letter of (?:each|every)) words?\b",
        re.I,
    ),
    "spelled": re.compile(
        r"^\W*(?:how\s+(?:do|would|should)\s+(?:you|i|we)\s+|(?:can|could)\s+you\s+|please\s+)?spell\b"
        r"(?!.*\b(?:backwards?|reversed?|in reverse)\b)|\bletter\s+by\s+letter\b|\bhow\s+is\s+.+\s+spelled\b",
        re.I,
    ),
    "capitalized": re.compile(r"^\W*(?:please\s+)?capitali[sz]e\b(?!.*\bwords?\b)", re.I),
    "nth_letter": re.compile(
        rf"\b(?P<nth>{'|'.join(_ORDINALS)}|last|\d+(?:st|nd|rd|th))\s+(?:letter|character)\s+(?:of|in)\b",
        re.I,
    ),
    "nth_word": re.compile(
        rf"\b(?P<nth>{'|'.join(_ORDINALS)}|last|\d+(?:st|nd|rd|th))\s+word\s+(?:of|in)\b", re.I
    ),
    "longest": re.compile(r"\b(?:longest|biggest|largest) words?\b", re.I),
    "shortest": re.compile(r"\bshortest words?\b", re.I),
}
"""What a question asks of its text, by name."""


class TextFactsError(BuiltinToolError):
    """A question ``text_facts`` cannot answer: nothing it counts or spells is asked, or no text is named."""


@dataclass(frozen=True)
class TextRequest:
    """What a question asks of which text."""

    ask: str
    """What is asked: a key of the counts and spellings ("words", "letter", "backwards", "longer"…)."""
    text: str
    """The text it is asked of."""
    target: str = ""
    """The letter or word counted ("r" of "How many r's in strawberry?"), the other text of two compared,
    else ""."""


def _text_in(question: str) -> str:
    """The text a question is about: after a colon, quoted, or the word or words it names; "" if none."""
    quoted = list(_QUOTED_RE.finditer(question))
    after = _AFTER_COLON_RE.search(question)
    if after and not any(q.start() < after.start() < q.end() for q in quoted):
        # "How many times does 'the' appear in: the cat and the dog"; not a colon inside quotes; a text
        # quoted whole after the colon without its quotes or the question's mark ('sentence: "I love it"?')
        whole = next((q for q in quoted if q.start() == after.start("text")), None)
        if whole is not None and not question[whole.end() :].strip(" ?.!"):
            return whole.group("text").strip()
        return after.group("text").strip().strip("\"“”‘’'")
    named = _WORD_NAMED_RE.findall(question)
    if quoted and named and all(len(q.group("text")) == 1 for q in quoted):
        return named[-1].strip()  # "How many times does 'a' appear in banana?": the letter is what is counted
    if quoted:
        return max((q.group("text") for q in quoted), key=len)
    name = _NAME_GIVEN_RE.search(question)
    if name:
        return name.group("text").strip()
    return named[-1].strip() if named else ""


_LENGTHS_ASKED_RE = re.compile(
    r"\b(?:which|what)\b[^?]*?\b(?P<how>longer|shorter|more (?:letters|characters)"
    r"|fewer (?:letters|characters)|less (?:letters|characters))\b",
    re.IGNORECASE,
)
"""Two texts' lengths compared ("Which is longer, 'elephant' or 'giraffe'?", "Which has more letters")."""
_TWO_WORDS_RE = re.compile(r"(?:,|:)\s*(?P<a>[\w'’-]+)\s+or\s+(?P<b>[\w'’-]+)\s*[?.!]*\s*$", re.IGNORECASE)
_OF_WORDS_RE = re.compile(r"\b(?:words?|letters|characters)\b", re.IGNORECASE)


def _lengths_compared(question: str) -> TextRequest | None:
    """Two texts whose lengths a question compares: two quoted, or two words after a comma when it speaks
    of words or letters ("Which word is longer, elephant or giraffe?"; not "Which is longer, the Nile or the
    Amazon?", a question about rivers)."""
    asked = _LENGTHS_ASKED_RE.search(question)
    if asked is None:
        return None
    quoted = [q.group("text") for q in _QUOTED_RE.finditer(question)]
    if len(quoted) == 2:
        a, b = quoted
    else:
        two = _TWO_WORDS_RE.search(question)
        if quoted or two is None or not _OF_WORDS_RE.search(question[: two.start()]):
            return None
        a, b = two.group("a"), two.group("b")
    how = asked.group("how").lower()
    return TextRequest("longer" if how.startswith(("longer", "more")) else "shorter", a, b)


_ANAGRAM_ASKED_RE = re.compile(r"\banagrams?\b|\bthe same letters\b", re.IGNORECASE)
_TWO_NAMED_RE = re.compile(
    r"\b(?:are|is)\s+(?P<a>[^\W\d_][\w'-]*)\s+(?:and|an anagram of)\s+(?P<b>[^\W\d_][\w'-]*)\b", re.IGNORECASE
)
"""Two words a question names without quotes ("Are listen and silent anagrams?", "Is stop an anagram of
pots?")."""


def _anagrams_asked(question: str) -> TextRequest | None:
    """Two texts a question asks whether they are anagrams of each other (quoted, or two words named)."""
    if len(question) > 500 or not _ANAGRAM_ASKED_RE.search(question):
        return None
    quoted = [q.group("text") for q in _QUOTED_RE.finditer(question)]
    if len(quoted) == 2:
        return TextRequest("anagram", quoted[0], quoted[1])
    named = _TWO_NAMED_RE.search(question)
    return TextRequest("anagram", named.group("a"), named.group("b")) if named and not quoted else None


_ACRONYM_RE = re.compile(
    r"\b(?:acronym|initials|initialism|abbreviation)\s+(?:for|of)\s+(?:the\s+(?:words?|phrase|name)\s+)?"
    r"(?P<text>[\"“‘']?[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*){1,9}[\"”’']?)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""The initials of words asked ("What's the acronym for 'portable network graphics'?"); not what an
acronym stands for ("What does NASA stand for?")."""


_ASKING_WORDS = (
    "letters", "words", "vowels", "consonants", "characters", "syllables", "sentences", "reverse",
    "backwards", "palindrome", "uppercase", "lowercase", "alphabetical", "anagram", "anagrams",
)  # fmt: skip
"""The words asking something of a text that a word one typo away is read as ("leters", "vowles")."""


def read_request(question: str) -> TextRequest | None:
    """What ``question`` asks of which text, or None when it asks nothing of these or names no text."""
    if not isinstance(question, str):
        return None
    if not _QUOTED_RE.search(question) and len(question) <= 500:
        # "how many leters in banana": the words of what is counted, misspelt (not inside a quoted text)
        question = spelling_fixed(question, _ASKING_WORDS)
    compared = _lengths_compared(question) or _anagrams_asked(question)
    if compared is not None:
        return compared
    acronym = _ACRONYM_RE.search(question) if len(question) <= 500 else None
    if acronym is not None:
        return TextRequest(
            "acronym", acronym.group("text").strip("\"“”‘’'"), acronym.group(0).split()[0].lower()
        )
    text = _text_in(question)
    if not text:
        return None
    asking = question.replace(text, " ") if len(text) < len(question) else question
    word = _WORD_COUNTED_RE.search(asking)
    if word:
        counted = word.group("word")
        if len(counted) == 1:  # "How many times does 'a' appear in banana?": a letter
            return TextRequest("letter", text, counted.lower())
        return TextRequest("word", text, counted)
    for ask, pattern in _ASKS.items():
        found = pattern.search(asking)
        if found is None:
            continue
        if "loose" in found.groupdict() and found.group("loose") and " " in text.strip():
            continue  # "letters in banana" counts; "What words in English start with z?" asks no count
        if ask == "sorted":
            if len(_listed(text)) < 2 or not any(c.isalpha() for c in text):
                continue  # one word, or numbers: the calculator sorts those
            return TextRequest(ask, text, asking)  # the request's words: A to Z or Z to A
        if ask in ("nth_letter", "nth_word"):
            return TextRequest(ask, text, found.group("nth").lower())
        return TextRequest(ask, text)
    letter = _LETTER_RE.search(asking)
    if letter:
        return TextRequest(
            "letter", text, (letter.group("a") or letter.group("b") or letter.group("c")).lower()
        )
    return None


def asks_text_fact(question: str) -> bool:
    """``text_facts``' reader (:func:`cadence.sdk.reads`): a count or spelling asked of a text the question
    gives (:data:`cadence.sdk.SURELY`: no other agent works it out), else False."""
    return SURELY if read_request(question) is not None else False  # type: ignore[return-value]


_WORD_RE = re.compile(r"[\w'’-]+")
"""A word, as counted: letters, digits, apostrophes and hyphens ("don't", "well-known")."""


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _shown(text: str) -> str:
    """``text`` named and quoted ("the word 'hello'", "the text 'hello world'"), shortened when long."""
    if len(text) > 60:
        return f"the text '{text[:40].rstrip()}…'"
    return f"the word '{text}'" if len(_WORD_RE.findall(text)) == 1 else f"the text '{text}'"


def _letters(text: str) -> list[str]:
    return [c.lower() for c in text if c.isalpha()]


def _is_palindrome(text: str) -> bool:
    kept = [c.lower() for c in text if c.isalnum()]
    return len(kept) > 1 and kept == kept[::-1]


_LIST_SEPARATOR_RE = re.compile(r"\s*(?:[,;\n]|\band\b)\s*", re.IGNORECASE)


def _listed(text: str) -> list[str]:
    """The items of a list given as text: separated by commas, semicolons, lines or "and"; by spaces when
    it has none of those ("pear apple mango")."""
    body = text.strip().rstrip(".!?")
    items = [i.strip() for i in _LIST_SEPARATOR_RE.split(body) if i and i.strip()]
    return items if len(items) > 1 else body.split()


_VOWEL_GROUP_RE = re.compile(r"[aeiouy]+")
_TWO_VOWELS_RE = re.compile(r"(?<![tcsgq])i(?:a|u|o(?!n\b))|^[a-z]?ion\b|eo\b|ua|uo|iu|oe(?=[mt])|ie(?=t\b)")
"""Two vowels side by side spoken apart ("radio", "piano", "curious", "video", "dual", "poem", "quiet",
"lion"); not in "-tion", "-cial", "-gion", "-cious", after "q", nor a longer word's final "-ion"
("million", "onion")."""


def syllables(word: str) -> int:
    """The syllables of an English word by its spoken vowel groups: each run of vowels (with "y") is one,
    two vowels spoken apart two (:data:`_TWO_VOWELS_RE`, a final "-ea"); a silent final "e" ("make",
    "makes") is none unless it follows a consonant and "l" ("table"); a final "-ed" after a letter other
    than "t" or "d" ("jumped") is none; at least one."""
    w = re.sub(r"[^a-z]", "", word.lower())
    if not w:
        return 0
    count = len(_VOWEL_GROUP_RE.findall(w)) + len(_TWO_VOWELS_RE.findall(w))
    if w.endswith("ea") and count > 0:
        count += 1  # "idea", "area"
    if w.endswith("es") and len(w) > 3 and w[-3] not in "sxzcghaeiouy" and count > 1:
        count -= 1  # "makes", "names"; not "boxes", "pages", "goes"
    elif w.endswith("e") and not w.endswith(("le", "ee", "ye")) and count > 1:
        count -= 1
    elif w.endswith("le") and len(w) > 2 and w[-3] in "aeiouy" and count > 1:
        count -= 1  # "whale", "smile": the e is silent after a vowel
    elif w.endswith("ed") and len(w) > 3 and w[-3] not in "tdaeiouy" and count > 1:
        count -= 1
    return max(1, count)


def _sentence(request: TextRequest) -> str:
    """The answer to ``request`` (its first letter may be lower case: "the word 'hello' has ...")."""
    ask, text, target, shown = request.ask, request.text, request.target, _shown(request.text)
    letters, words = _letters(text), _WORD_RE.findall(text)
    if ask == "words":
        return f"{shown} has {_plural(len(words), 'word')}."
    if ask == "characters":
        bare = len(re.sub(r"\s", "", text))
        return f"{shown} has {_plural(len(text), 'character')} ({bare:,} without spaces)."
    if ask == "letters":
        return f"{shown} has {_plural(len(letters), 'letter')}."
    if ask == "vowels":
        found = ", ".join(sorted({c for c in letters if c in VOWELS})) or "none"
        return f"{shown} has {_plural(sum(c in VOWELS for c in letters), 'vowel')} ({found})."
    if ask == "consonants":
        return f"{shown} has {_plural(sum(c not in VOWELS for c in letters), 'consonant')}."
    if ask == "sentences":
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if re.search(r"\w", s)]
        return f"{shown} has {_plural(len(sentences), 'sentence')}."
    if ask == "syllables":
        counts = [syllables(w) for w in words if _letters(w)]
        total = sum(counts)
        return (
            f"{shown} has {_plural(total, 'syllable')} (counted by its spoken vowel groups, a rule of thumb "
            "that fits most English words)."
        )
    if ask == "sorted":
        items = _listed(text)
        backwards = re.search(r"\b(?:reverse|z to a|z-a|descending)\b", request.target, re.I) is not None
        ordered = sorted(items, key=lambda w: (w.casefold(), w), reverse=backwards)
        order = "reverse alphabetical order (Z to A)" if backwards else "alphabetical order"
        return f"In {order}: {', '.join(ordered)}."
    if ask == "backwards":
        return f"{shown} written backwards is '{text[::-1]}'."
    if ask == "words_reversed":
        return f"The words of {shown} in reverse order: '{' '.join(reversed(text.split()))}'."
    if ask == "spelled":
        spelled = "-".join(c for c in text if not c.isspace())
        return f"{shown} is spelled {spelled} ({_plural(len(letters), 'letter')})."
    if ask == "upper":
        return f"{shown} in upper case is '{text.upper()}'."
    if ask == "lower":
        return f"{shown} in lower case is '{text.lower()}'."
    if ask == "title":
        return f"{shown} in title case is '{_title_case(text)}'."
    if ask == "capitalized":
        first = text[:1].upper() + text[1:]
        every = " ".join(w[:1].upper() + w[1:] for w in text.split(" "))
        if every == first:
            return f"{shown} capitalized is '{first}'."
        return f"{shown} capitalized is '{first}' (with every word capitalized: '{every}')."
    if ask in ("nth_letter", "nth_word"):
        return _nth_sentence(
            shown, letters if ask == "nth_letter" else words, target, ask.removeprefix("nth_")
        )
    if ask == "unique_letters":
        different = sorted(set(letters))
        return f"{shown} has {_plural(len(different), 'different letter')} ({', '.join(different)})."
    if ask in ("longest", "shortest") and words:
        size = (max if ask == "longest" else min)(len(_letters(w)) for w in words)
        chosen = list(dict.fromkeys(w for w in words if len(_letters(w)) == size))
        quoted = [f"'{w}'" for w in chosen]
        which = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
        each = " each" if len(chosen) > 1 else ""
        verb = "is" if len(chosen) == 1 else "are"
        plural = "s" if len(chosen) > 1 else ""
        return f"The {ask} word{plural} in {shown} {verb} {which} ({_plural(size, 'letter')}{each})."
    if ask == "palindrome":
        if _is_palindrome(text):
            return (
                f"Yes, {shown} is a palindrome: it reads the same backwards (its letters and digits, "
                "ignoring case, spaces and punctuation)."
            )
        return f"No, {shown} is not a palindrome: backwards it is '{text[::-1]}'."
    if ask in ("longer", "shorter"):
        return _lengths_sentence(ask, text, target)
    if ask == "anagram":
        same = sorted(_letters(text)) == sorted(_letters(target)) and _letters(text) != _letters(target)
        if same:
            return f"Yes, '{text}' and '{target}' are anagrams: they have the same letters in another order."
        return f"No, '{text}' and '{target}' are not anagrams: their letters differ."
    if ask == "acronym":
        initials = "".join(w[0].upper() for w in _WORD_RE.findall(text) if w[0].isalpha())
        if target == "initials":
            return f"The initials of '{text}' are '{initials}'."
        return f"The acronym of '{text}' (its words' initials) is '{initials}'."
    if ask == "letter":
        return f"The letter '{target}' appears {_plural(letters.count(target), 'time')} in {shown}."
    times = sum(w.lower() == target.lower() for w in words)
    return f"The word '{target}' appears {_plural(times, 'time')} in {shown}."


_MINOR_WORDS = frozenset(
    ["a", "an", "and", "as", "at", "but", "by", "for", "in", "nor", "of", "on", "or", "so", "the", "to", "up"]
)
"""Short words title case keeps in lower case inside a title ("The Lord of the Rings")."""


def _title_case(text: str) -> str:
    """``text`` in title case: each word capitalized, short words inside it ("of", "the") kept lower."""
    words = text.split(" ")
    return " ".join(
        w
        if not w
        else w.lower()
        if 0 < i < len(words) - 1 and w.lower() in _MINOR_WORDS
        else w[:1].upper() + w[1:]
        for i, w in enumerate(words)
    )


def _nth_sentence(shown: str, items: list[str], nth: str, noun: str) -> str:
    """Which of ``items`` (the letters or the words of a text, ``noun``) stands at the place ``nth`` names
    ("first", "third", "5th", "last")."""
    if nth == "last":
        place = len(items)
    elif nth in _ORDINALS:
        place = _ORDINALS.index(nth) + 1
    else:
        place = int(re.sub(r"\D", "", nth))
    if not items or not 1 <= place <= len(items):
        return f"{shown} has only {_plural(len(items), noun)}: there is no {nth} {noun}."
    return f"The {nth} {noun} of {shown} is '{items[place - 1]}' ({noun} {place} of {len(items)})."


def _lengths_sentence(ask: str, a: str, b: str) -> str:
    """Which of ``a`` and ``b`` is longer (``ask`` "longer") or shorter, counted in letters (in characters
    when either is not all letters)."""
    unit = "letter" if a.isalpha() and b.isalpha() else "character"
    na, nb = (len(_letters(t)) if unit == "letter" else len(t) for t in (a, b))
    if na == nb:
        return f"'{a}' and '{b}' are the same length: {_plural(na, unit)} each."
    first, second = ((a, na), (b, nb)) if (na > nb) == (ask == "longer") else ((b, nb), (a, na))
    said = [f"'{t}' ({_plural(n, unit)})" for t, n in (first, second)]
    return f"{said[0]} is {ask} than {said[1]}."


def answer(question: str) -> str:
    """The answer to a count or spelling asked of a text (see the module docs); :class:`TextFactsError`
    saying how to ask when ``question`` asks none or names no text."""
    request = read_request(question)
    if request is None:
        raise TextFactsError(
            "No count or spelling of a given text found in the question; name the text in quotes or after "
            'a colon, e.g. "How many words are in: the quick brown fox", "How many r\'s are in '
            "'strawberry'?\" or \"Reverse the word 'hello'\"."
        )
    return capitalized(_sentence(request))


__all__ = ["TextFactsError", "TextRequest", "answer", "asks_text_fact", "read_request", "syllables"]
