"""What a turn leaves in memory: the facts a user states about themselves, tool results, answers.

**Facts** (:func:`stated_facts`). The user's message is cut into clauses (at sentence ends and
at "and"/"but" before a new first-person clause); a clause is a fact when it is a first-person
statement ("My …", "I …", "I'm …", "Call me …") that is neither a question nor a request
("I want…", "I need…", "I'd like…", "I wonder…") nor how the user feels now ("I'm bored"). Each fact
keeps the user's words (``text``) and the same sentence addressed to the user (``statement``: "My name
is Ada" → "Your name is Ada"), which is what an answering model is given. A fact may carry a ``topic``
("my name", "i work on"): a newer fact on the same topic replaces the older one.

**Tool results** worth keeping: successful, non-empty results of work tools, clipped to
``CADENCE_MEMORY_MAX_ITEM_CHARS``. **Answers**: a turn's final answer, when it rests on tool
results or recalled memory (chit-chat is not worth keeping), with its question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cadence.text import FEELING_RE, FORGET_RE, SELF_TOPIC_WORDS

_ASKING = (
    r"what|what's|whats|who|who's|whos|where|where's|wheres|when|why|how|how's|hows|which|do|does|did|is|are"
    r"|can|could|would|will|should|tell me|show me|give me"
)
"""Words that open a question or a request ("..., whats the time there now")."""
_CLAUSE_RE = re.compile(
    r"(?<=[.!?;])\s+|\s*,?\s+(?:and|but)\s+(?=(?:i|i'm|i am|i've|my|call me)\b)"
    rf"|\s*,\s*(?=(?:{_ASKING})\b)|\n+",
    re.IGNORECASE,
)
_LEAD_WORDS = (
    r"also|btw|by the way|oh|so|well|hi|hello|hey(?: there)?|actually|in fact|no|nope|sorry|correction|"
    r"wait|update|now|ok|okay|yes|yeah|hmm|fyi|for the record|just so you know|anyway|my bad|my mistake|"
    r"sorry for the confusion|to clarify|to be clear"
    r"|(?:please\s+)?(?:remember|note|keep in mind|bear in mind|don't forget|do not forget)(?:\s+that)?"
)
"""Words that may open a statement without being part of it: a greeting, or a correction's
"Actually, …", "No, …", "Sorry, …", "Correction: …" (the fact it brings replaces the older one), or
an ask to keep it: "Remember that …", "Please note: …"."""
_FIRST_PERSON_RE = re.compile(
    rf"^(?:(?:{_LEAD_WORDS})\s*[,:;!-]?\s+){{0,3}}"
    r"(?P<body>(?:i|i'm|i am|i've|my|call me)\b.*)$",
    re.IGNORECASE,
)
_REQUEST_RE = re.compile(
    r"^(?:i (?:want|need|would|wonder|was wondering|think|guess|hope|mean|asked|don't know|do not know|"
    r"forgot|wanted|can't|cannot|meant)|i'd|my question)\b"
    # a reply to the conversation, not a fact about the user: "I see what you mean", "I'll try that"
    r"|^(?:i (?:agree|disagree|will|got it|get it|see (?:what|your|the point|now|that|it)|understand "
    r"(?:what|your|that|now|it|the problem))|i'll|i'm (?:not sure|sorry)|i am (?:not sure|sorry))\b",
    re.IGNORECASE,
)
_QUESTION_START_RE = re.compile(rf"^(?:{_ASKING})\b", re.IGNORECASE)
_ADVERBS = r"now|currently|actually|still|really"
"""Words of a statement that say it holds now or after all ("I now live in Rome", "My name is actually
Bob"): not part of its topic (unlike "also": "I also work at X" adds to "I work at Y")."""
_MY_TOPIC_RE = re.compile(
    rf"^(my [a-z' ]{{1,40}}?) (is|are|was|were)\s+(?:(?:{_ADVERBS})\s+)?(\S+)", re.IGNORECASE
)
_MY_TOPIC_SHORT_RE = re.compile(rf"^(my [a-z]+(?: [a-z]+)?)'s()\s+(?:(?:{_ADVERBS})\s+)?(\S+)", re.IGNORECASE)
""""My name's Ada" (when no "is" follows: "my wife's job is …" is about her job)."""
_I_TOPIC_RE = re.compile(
    r"^(i (?:work|live|study|teach|stay|grew up) (?:on|at|in|as|for|with))\s+(\S+)", re.IGNORECASE
)
_ADVERB_RE = re.compile(rf"^(i|my [a-z' ]{{1,40}}?)\s+(?:{_ADVERBS})\s+", re.IGNORECASE)
"""An adverb right after the subject ("I now live in …"), dropped before the topic is read."""
_TIME_WORDS = frozenset(
    """weekends weekdays weeknights nights mornings evenings afternoons holidays sundays mondays tuesdays
    wednesdays thursdays fridays saturdays sunday monday tuesday wednesday thursday friday saturday
    summer winter spring autumn fall""".split()  # noqa: SIM905
)
"""When something is done, not what: "I work on weekends" is no fact about what one works on."""


def _topic(body: str) -> str | None:
    """What a fact is about, so that a newer fact about the same replaces it; None: it replaces nothing.

    The subject and verb ("my son is", "i live in"), refined by the kind of thing said: a name
    ("My son is Tom", "I live in Paris"), a thing with an article ("I live in a small flat"), a
    number, or else a plain word ("my son is sick": not the same as his name). A past tense is a topic
    of its own ("my wife was born in Rome" leaves "my wife is a doctor"); a time ("I work on weekends")
    names no topic.
    """
    body = _ADVERB_RE.sub(r"\1 ", body)
    found = _MY_TOPIC_RE.match(body) or _MY_TOPIC_SHORT_RE.match(body)
    if found is not None:
        base, verb, first = (
            " ".join(found.group(1).lower().split()),
            found.group(2).lower(),
            found.group(3),
        )
        past = " was" if verb in {"was", "were"} else ""
        return base + past + _kind(first, plain=" ~")
    found = _I_TOPIC_RE.match(body)
    if found is not None:
        base, first = " ".join(found.group(1).lower().split()), found.group(2)
        if first.lower().strip(".,;!") in _TIME_WORDS:
            return None
        return base + _kind(first, plain="")
    return "call me" if body.lower().startswith("call me") else None


def _kind(word: str, *, plain: str) -> str:
    """The topic's suffix for the first word said about it: '' for a name, ' a' for an article, ' #'
    for a number, ``plain`` for another word."""
    if word.lower() in {"a", "an", "the"}:
        return " a"
    if word[:1].isdigit():
        return " #"
    return "" if word[:1].isupper() else plain


_SWAPS = {
    "i": "you", "i'm": "you're", "i've": "you've", "i'll": "you'll", "i'd": "you'd", "me": "you",
    "my": "your", "mine": "yours", "myself": "yourself", "am": "are", "was": "were",
}  # fmt: skip
_SWAP_RE = re.compile(
    r"\b(" + "|".join(re.escape(w) for w in sorted(_SWAPS, key=len, reverse=True)) + r")(?![\w'])",
    re.IGNORECASE,
)
_AFTER_I_RE = re.compile(r"\bi\s+(?:\w+ly\s+|not\s+|also\s+|still\s+)?$", re.IGNORECASE)
"""Text ending in "I" (and an adverb): the verb after it is the speaker's ("I was", "I really am")."""
MIN_FACT_WORDS = 3
"""Fewest words of a fact ("I'm …" counts as two words: "I'm Ada" is kept)."""


@dataclass(frozen=True)
class Fact:
    """One fact a user stated about themselves."""

    text: str
    """The user's words ("I work on compilers.")."""
    statement: str
    """The same fact addressed to the user ("You work on compilers.")."""
    topic: str | None = None
    """What the fact is about ("i work on"); a newer fact on the same topic replaces an older one."""


def _sentence(text: str) -> str:
    text = " ".join(text.split()).strip(" ,;")
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def addressed(text: str) -> str:
    """``text`` (first person) addressed to its speaker: I → you, my → your, (I) am → (you) are."""

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        if word.lower() in ("am", "was") and not _AFTER_I_RE.search(match.string[: match.start()]):
            return word  # "a shirt that was 25% off" stays; "I was born" is "you were born"
        out = _SWAPS[word.lower().replace("’", "'")]
        # capitalised only where the sentence starts ("I" is capitalised everywhere; "you" is not)
        return out[0].upper() + out[1:] if match.start() == 0 and word[0].isupper() else out

    text = text.replace("’", "'")
    call = re.match(r"call me\b", text, re.IGNORECASE)
    if call:  # "Call me Ada." → "You asked to be called Ada." (not "Call you Ada.")
        return _sentence("you asked to be called" + _SWAP_RE.sub(swap, text[call.end() :]))
    return _sentence(_SWAP_RE.sub(swap, text))


_SUBJECT_ONLY_RE = re.compile(r"(?:my|our) [a-z'-]+(?: [a-z'-]+)?", re.IGNORECASE)
"""A clause that is a subject alone: "My brother" of "My brother and I own a shop"."""


def _clauses(message: str) -> list[str]:
    """``message`` split into clauses (sentences; "…, and I …"), a shared subject kept whole: "My
    brother and I own a shop" is one clause (split, it was the fact "I own a shop")."""
    out: list[str] = []
    for part in _CLAUSE_RE.split(message.replace("’", "'")):
        if not part:
            continue
        if out and _SUBJECT_ONLY_RE.fullmatch(out[-1].strip(" ,")) and re.match(r"i\b", part, re.IGNORECASE):
            out[-1] = f"{out[-1].strip(' ,')} and {part}"
        else:
            out.append(part)
    return out


def _fact_of(clause: str) -> Fact | None:
    """The fact a clause of a message states about the user, or None (see the module docs)."""
    if not clause or clause.endswith("?"):
        return None
    match = _FIRST_PERSON_RE.match(clause)
    if match is None:
        return None
    body = match.group("body").rstrip(".!;, ")
    if _REQUEST_RE.match(body) or _QUESTION_START_RE.match(body) or FEELING_RE.match(body):
        return None  # a request, a question, or how the user feels now ("I'm bored"): no fact
    if len(body.split()) < 2 or (len(body.split()) < MIN_FACT_WORDS and not body.lower().startswith("i'm")):
        return None
    body = _BARE_AGE_RE.sub(r"\g<0> years old", body)  # "I'm 30" is an age: "You're 30 years old."
    return Fact(text=_sentence(body), statement=addressed(body), topic=_topic(body))


_BARE_AGE_RE = re.compile(r"^(?:i'm|i am|im)\s+\d{1,3}$", re.IGNORECASE)
"""An age said as a number alone ("I'm 30"): kept with its unit, so that "my age" names it."""


def stated_facts(message: str) -> list[Fact]:
    """The facts the user states about themselves in ``message`` (see the module docs)."""
    facts = [_fact_of((raw or "").strip(" ,;")) for raw in _clauses(message)]
    return [f for f in facts if f is not None]


def asked_part(message: str) -> str:
    """``message`` without the facts it states ("I paid $45 for a shirt that was 25% off. What was the
    original price?" asks "What was the original price?"); the whole message when it states only facts."""
    kept = [c for c in ((raw or "").strip(" ,;") for raw in _clauses(message)) if c and _fact_of(c) is None]
    return " ".join(kept) or message


_GREETING_WORDS = frozenset(
    {"hi", "hello", "hey", "thanks", "thank", "you", "ok", "okay", "so", "well", "btw"}
    | {"nice", "glad", "pleased", "great", "good", "to", "meet", "see", "morning", "afternoon", "evening"}
)
"""Words of a clause that only greets ("Hi", "Nice to meet you", "Good morning") beside the statements."""


def only_statements(message: str) -> bool:
    """Whether ``message`` only states facts about the user (greetings aside): nothing is asked.

    "My name is Ada and I work on compilers." is; "I work on compilers, what is 2+2?" is not.
    """
    if "?" in message:
        return False
    found = False
    for raw in _clauses(message):
        clause = (raw or "").strip(" ,;.!")
        if not clause:
            continue
        words = re.findall(r"[a-z']+", clause.lower())
        if words and all(w in _GREETING_WORDS for w in words):
            continue
        if not stated_facts(clause):
            return False
        found = True
    return found


_NEGATION_RE = re.compile(r"\b(?:do not|does not|did not|no longer|not|never|anymore|any more)\b")


def claim(text: str) -> str:
    """What ``text`` claims, whether it says it or denies it: lower-cased, contractions spelled out,
    the negation dropped ("I'm not vegan anymore." and "I am vegan." claim "i am vegan"). A fact on the
    same claim as an older one replaces it: the newer one says whether it holds."""
    text = text.lower().replace("’", "'")
    text = re.sub(r"\bi'm\b", "i am", text)
    text = re.sub(r"n't\b", " not", text)
    text = _NEGATION_RE.sub(" ", text)
    return " ".join(re.findall(r"[^\W_]+(?:'[^\W_]+)?", text))


_ABOUT_USER_RE = re.compile(
    r"\b(?:i|my|mine|myself|i'm|im|i've|i'd|i'll|(?<!tell )(?<!show )(?<!give )(?<!let )(?<!help )"
    r"(?<!find )(?<!get )(?<!send )(?<!teach )me)(?![\w'])",
    re.IGNORECASE,
)
"""A first-person word; "me" of a request ("tell me about Rome") does not make it about the user."""


def about_user(question: str) -> bool:
    """Whether ``question`` asks about the user (it says "I", "me" or "my" where it asks, not in a fact it
    states first): only then can what the user told about themselves answer it on its own. "What do I work
    on?" is; "What is a compiler?" is not, though "I work on compilers." holds its every word, nor is "I
    paid $45 for a shirt that was 25% off. What was the original price?".
    """
    return _ABOUT_USER_RE.search(asked_part(question.replace("’", "'"))) is not None


_EVERYTHING_RE = re.compile(
    r"^(?:everything|all|it all|all of (?:it|that)|all my (?:data|facts|memories|info(?:rmation)?)"
    r"|(?:everything|all|what) (?:you know |you remember |i(?:'ve| have)? told you )?(?:about|of) me"
    r"|what i(?:'ve| have)? told you|my (?:data|memories|information|info)|me)$",
    re.IGNORECASE,
)
_FORGET_ALIASES: dict[str, frozenset[str]] = {
    **SELF_TOPIC_WORDS,
    **dict.fromkeys(("address", "city", "location"), SELF_TOPIC_WORDS["home"]),
    "job": SELF_TOPIC_WORDS["work"],
}
"""What a word naming a kind of fact matches in the facts ("my age": "You're 30 years old.")."""
_FORGET_FILLER_TEXT = """my me i i'm that this it in at of and or what you about the a an is are was am told
    said know where when how"""
_FORGET_FILLER = frozenset(_FORGET_FILLER_TEXT.split())
"""Words of a request to forget that name no fact ("Forget it" is "never mind": no request)."""


def forget_request(message: str) -> frozenset[str] | None:
    """What a request to forget (:data:`FORGET_RE`) names: the words a fact must have to be forgotten (an
    empty set: everything the user told); None when ``message`` asks no such thing."""
    match = FORGET_RE.match(" ".join(message.split())) if len(message) <= 200 else None
    if match is None:
        return None
    what = match.group("what").strip().rstrip(".!? ")
    if _EVERYTHING_RE.match(what):
        return frozenset()
    words = {w for w in re.findall(r"[a-z']+", what.lower()) if w not in _FORGET_FILLER}
    if not words:
        return None
    return frozenset(set().union(*(_FORGET_ALIASES.get(w, {w}) for w in words)))


def names_fact(words: frozenset[str], text: str) -> bool:
    """Whether a fact's ``text`` has one of ``words`` (:func:`forget_request`; any fact for an empty set)."""
    return not words or bool(words & set(re.findall(r"[a-z']+", text.lower())))


def clip(text: str, limit: int) -> str:
    """``text`` with collapsed whitespace, cut at ``limit`` characters (at a sentence end if one is near)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
    return cut[: end + 1] if end > limit // 2 else cut[: limit - 1].rstrip() + "…"  # "…" within the limit


__all__ = ["Fact", "about_user", "addressed", "claim", "clip", "only_statements", "stated_facts"]
