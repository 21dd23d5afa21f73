"""What a caller may name, checked one way for the engine (the library, ``cadence chat``), the HTTP API
and the CLI: thread and user ids, org and project ids, text that can be stored; :func:`visible` is the
blank check of a message (nothing visible: spaces, zero-width spaces, a byte-order mark).

Every check raises :class:`~cadence.errors.ValidationError` with a one-line message (HTTP 422); the
server declares the same patterns in its request models (:mod:`cadence.server.validation`), so the
OpenAPI schema says what is accepted everywhere.
"""

from __future__ import annotations

import re

from cadence.errors import ValidationError
from cadence.settings import Settings
from cadence.text import visible

THREAD_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$"
"""Thread ids: letters, digits, ``_``, ``.``, ``-``; no ``:`` (the engine joins user and thread by ``::``)."""

USER_ID_PATTERN = r"^[^\x00-\x1f\x7f:]*(?::[^\x00-\x1f\x7f:]+)*:?$"
"""User ids: no control characters and no ``::`` (the separator of the checkpoint key)."""

LABEL_PATTERN = r"^[^\x00-\x1f\x7f]*$"
"""Org and project ids: no control characters."""

_THREAD_RE = re.compile(THREAD_ID_PATTERN)
_USER_RE = re.compile(USER_ID_PATTERN)
_LABEL_RE = re.compile(LABEL_PATTERN)


def _invalid(message: str, code: str = "invalid_value") -> ValidationError:
    return ValidationError(message, code=code)


def check_text(field: str, value: str) -> None:
    """422 ``invalid_text`` if ``value`` cannot be stored as UTF-8 (lone surrogates, e.g. ``"\\ud800"``)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _invalid(
            f"{field}: the text contains invalid Unicode (a lone surrogate).", "invalid_text"
        ) from None


def _check_length(label: str, value: str, max_chars: int) -> None:
    if len(value) > max_chars:
        raise _invalid(
            f"The {label} has {len(value)} characters; the limit is {max_chars} (CADENCE_MAX_ID_CHARS).",
            "id_too_long",
        )


def validate_thread_id(value: str, settings: Settings) -> None:
    """422 unless ``value`` is 1 to ``max_id_chars`` of ``A-Z a-z 0-9 _ . -`` starting with a letter/digit."""
    if not _THREAD_RE.fullmatch(value):
        raise _invalid(
            f"Invalid thread id {value[:40]!r}: use letters, digits, '_', '.' and '-' "
            "(starting with a letter or digit)."
        )
    _check_length("thread id", value, settings.max_id_chars)


def validate_user_id(value: str, settings: Settings) -> None:
    """422 for a user id with ``::`` or control characters, or longer than ``max_id_chars``."""
    check_text("user id", value)
    if not _USER_RE.fullmatch(value):
        raise _invalid(
            f"Invalid user id {value[:40]!r}: it may not contain '::' or control characters.", "invalid_id"
        )
    _check_length("user id", value, settings.max_id_chars)


def validate_label(label: str, value: str | None, settings: Settings) -> None:
    """422 for an org/project id with control characters or longer than ``max_id_chars``."""
    if value is None:
        return
    check_text(label, value)
    if not _LABEL_RE.fullmatch(value):
        raise _invalid(
            f"Invalid {label} {value[:40]!r}: it may not contain control characters.", "invalid_id"
        )
    _check_length(label, value, settings.max_id_chars)


__all__ = [
    "LABEL_PATTERN",
    "THREAD_ID_PATTERN",
    "USER_ID_PATTERN",
    "check_text",
    "validate_label",
    "validate_thread_id",
    "validate_user_id",
    "visible",
]
