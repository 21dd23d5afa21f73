"""Response tones: how the synthesizer and the suspend node phrase the final answer."""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from cadence.errors import ValidationError
from cadence.models.preroute import EXPLAIN_PREVIOUS_RE, HOW_FOUND_RE, MAKE_IT_RE, without_style_request


class ResponseTone(StrEnum):
    """Available response styles for the final answer."""

    NATURAL = "natural"
    EXPLANATORY = "explanatory"
    FORMAL = "formal"
    CONCISE = "concise"
    LEARNING = "learning"

    @property
    def description(self) -> str:
        """The full instruction given to the model for this tone."""
        return _DESCRIPTIONS[self]

    @classmethod
    def parse(cls, value: str | None) -> ResponseTone:
        """The tone named by ``value``; missing or empty means natural, unknown raises."""
        text = (value or "").strip().lower()
        if not text:
            return cls.NATURAL
        try:
            return cls(text)
        except ValueError:
            names = ", ".join(t.value for t in cls)
            raise ValidationError(
                f"Unknown tone {value!r}; choose one of: {names}.", code="invalid_tone"
            ) from None

    @classmethod
    def requested(
        cls, tone: str | None, metadata: Mapping[str, Any] | None = None, message: str | None = None
    ) -> ResponseTone:
        """The turn's tone: ``tone`` when given, else the conversation metadata's ``tone`` (where the seed
        keeps the preference), else the one the user's ``message`` asks for in words (:meth:`asked_in`), else
        natural; an unknown one raises (``invalid_tone``)."""
        value = tone if tone is not None else (metadata or {}).get("tone")
        if value is not None and not isinstance(value, str):
            raise ValidationError(
                f"The tone must be text (a str), not {type(value).__name__}.", code="invalid_tone"
            )
        if value is None and message:
            return cls.asked_in(message) or cls.NATURAL
        return cls.parse(value)

    @classmethod
    def asked_in(cls, message: str) -> ResponseTone | None:
        """The tone a message asks for in words ("In a formal tone, ...", "Be brief: ...", "... step by
        step"; "How did you get that?" and "Explain that." the explanatory one, "Show your work" learning),
        or None when it asks for none or for several."""
        how = HOW_FOUND_RE.match(" ".join(message[:MAX_TONE_SCAN].split()))
        if how is not None:  # "How did you get that?": the previous answer with its working
            return cls.LEARNING if how.group("steps") else cls.EXPLANATORY
        made = MAKE_IT_RE.match(message[:MAX_TONE_SCAN])
        if made is not None:  # "Make it formal", "Make that shorter"
            return _MADE_TONES.get(made.group("how").lower())
        asked = {tone for tone, pattern in _ASKED_IN_WORDS.items() if pattern.search(message[:MAX_TONE_SCAN])}
        if not asked and EXPLAIN_PREVIOUS_RE.match(without_style_request(message[:MAX_TONE_SCAN])):
            return cls.EXPLANATORY  # "Explain that.", "Now explain it like I'm five."
        return asked.pop() if len(asked) == 1 else None

    @classmethod
    def get_description(cls, value: str | None) -> str:
        """The instruction for ``value``, falling back to natural when it is unknown."""
        try:
            return cls.parse(value).description
        except ValidationError:
            return cls.NATURAL.description


_DESCRIPTIONS: dict[ResponseTone, str] = {
    ResponseTone.NATURAL: (
        "Respond in a friendly, conversational way, as if talking to a friend: plain everyday words, "
        "short paragraphs, a warm but not gushing voice, and no headings unless the content needs them."
    ),
    ResponseTone.EXPLANATORY: (
        "Provide a detailed, educational explanation that helps the user understand: say what the answer "
        "is, then why, walking through the reasoning with examples or analogies where they help, and "
        "define any term the user may not know."
    ),
    ResponseTone.FORMAL: (
        "Use professional, structured language with clear organisation: complete sentences, no slang or "
        "contractions, headings or bullet points where they aid clarity, and a neutral, precise register."
    ),
    ResponseTone.CONCISE: (
        "Be brief and to the point: give the essential answer first, in as few words as accuracy allows, "
        "with no preamble, repetition or pleasantries; use a short list only for several distinct facts."
    ),
    ResponseTone.LEARNING: (
        "Teach step by step: break the answer into numbered steps the user can follow, explain each step "
        "and the idea behind it, check understanding with a short recap, and suggest one thing to try next."
    ),
}

TONE_NAMES: tuple[str, ...] = tuple(t.value for t in ResponseTone)

_MADE_TONES: dict[str, ResponseTone] = {
    "formal": ResponseTone.FORMAL,
    "professional": ResponseTone.FORMAL,
    "brief": ResponseTone.CONCISE,
    "briefer": ResponseTone.CONCISE,
    "short": ResponseTone.CONCISE,
    "shorter": ResponseTone.CONCISE,
    "concise": ResponseTone.CONCISE,
    "detailed": ResponseTone.EXPLANATORY,
    "longer": ResponseTone.EXPLANATORY,
}
"""The tone a request to restyle the answer names ("make it formal"; "make it simpler" names none)."""

MAX_TONE_SCAN = 2000
"""Characters of a message read for a tone asked in words (a request of style opens or closes a question)."""
_ASKED_IN_WORDS: dict[ResponseTone, re.Pattern[str]] = {
    ResponseTone.FORMAL: re.compile(
        r"\bin an? (?:formal|professional) (?:tone|way|manner|style|voice)\b|\bformally\b|\bbe formal\b"
        r"|\bformal (?:answer|reply|response|language)\b",
        re.IGNORECASE,
    ),
    ResponseTone.CONCISE: re.compile(
        r"\bbe (?:brief|concise|quick)\b|\bbriefly\b|\bconcisely\b|\bin short\b|\bkeep it (?:short|brief)\b"
        r"|\bin (?:one|a single) (?:short )?sentence\b|\btl;?dr\b|\b(?:short|brief|concise|quick) answer\b",
        re.IGNORECASE,
    ),
    ResponseTone.EXPLANATORY: re.compile(
        r"\bexplain (?:it |this |that )?(?:in detail|thoroughly|fully)\b|\bin (?:great |more |full )?detail\b"
        r"|\b(?:detailed|thorough|full) (?:explanation|answer)\b|^\W*explain how\b"
        r"|\bexplain(?:ed)?\s+(?:it\s+)?(?:simply|in simple terms)\b|\bin simple terms\b"
        r"|\bexplain\b.*\blike (?:i'?m|i am) (?:five|5)\b",
        re.IGNORECASE,
    ),
    ResponseTone.LEARNING: re.compile(
        r"\bstep[- ]by[- ]step\b|\bteach me\b|\bwalk me through\b"
        r"|\bshow (?:me )?(?:your|the) (?:work|working|steps)\b",
        re.IGNORECASE,
    ),
}
"""How a message asks for a tone in words, when the request names none."""
