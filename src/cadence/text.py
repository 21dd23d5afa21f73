"""English text helpers shared by the parts of Cadence that match words (imports nothing of Cadence).

:data:`STOPWORDS` is the common base: the pre-router of the embedded model
(:mod:`cadence.models.preroute`) and the docs search (:mod:`cadence.builtins.docs`) each add
their own words to it, because they ignore different things (routing boilerplate such as
"agent" and "tool"; words about searching such as "docs" and "look up").
"""

from __future__ import annotations

_STOPWORDS_TEXT = """a about an and are as at be by can did do does for from how i in is it its me my of on or
    please s t tell that the this to was what when where which who why will with you your"""

STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
"""Function words and question words that say nothing about what a message is about."""
