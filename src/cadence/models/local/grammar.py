"""Grammars (GBNF) for constrained decoding and the parsing of their outputs.

Pure functions, unit-testable without a model.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage

from cadence.models.preroute import STOPWORDS, tool_function, tool_name

logger = logging.getLogger(__name__)

MAX_STRING_CHARS = 120
"""Longest free string argument (when the user's message has no words to copy)."""
MAX_SPAN_WORDS = 80
"""Only the last words of the user's message can be copied into string arguments."""


def gbnf_literal(text: str) -> str:
    """``text`` as a quoted GBNF literal."""
    escaped = (
        text.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\t", "\\t")
    )
    return f'"{escaped}"'


def _json_string_body(text: str) -> str:
    """``text`` as it appears between the quotes of a JSON string."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


_PAIRS = {"(": ")", "[": "]", "{": "}", ")": "(", "]": "[", "}": "{"}


def source_words(text: str, limit: int = MAX_SPAN_WORDS) -> list[str]:
    """Whitespace words of ``text`` with sentence punctuation stripped from their edges.

    Brackets are only stripped when unbalanced, so ``(2+3)*4`` stays whole.
    """
    words: list[str] = []
    for raw in text.split():
        word = raw.strip("?!.,;:\"'`“”‘’")
        while word and word[0] in _PAIRS and word.count(word[0]) > word.count(_PAIRS[word[0]]):
            word = word[1:]
        while word and word[-1] in _PAIRS and word.count(word[-1]) > word.count(_PAIRS[word[-1]]):
            word = word[:-1]
        if word:
            words.append(word)
    return words[-limit:]


def span_rules(words: Sequence[str], rule: str = "span", blocked: Collection[int] = ()) -> list[str]:
    """GBNF rules for any run of consecutive ``words`` that starts and ends on a content word.

    Function words ("the", "and", "in", "is", ...) may sit inside a span but never at
    its edges, so "in Tokyo" or "London and" cannot be copied where "Tokyo" or
    "London" is meant. Linear size: one rule per word. With no content word at all,
    every word counts as one. Words at the ``blocked`` positions are never copied and
    no span runs across them.
    """
    free = [i not in blocked for i in range(len(words))]
    if not any(free):
        return [f'{rule} ::= [^"\\\\\\x00-\\x1f]{{1,{MAX_STRING_CHARS}}}']
    content = [ok and w.lower() not in STOPWORDS for ok, w in zip(free, words, strict=True)]
    if not any(content):
        content = free
    starts = [i for i, ok in enumerate(content) if ok]
    lines = [f"{rule} ::= " + " | ".join(f"{rule}{i}" for i in starts)]
    for i, word in enumerate(words):
        if not free[i]:
            continue
        literal = gbnf_literal(_json_string_body(word))
        end = next((j for j in range(i + 1, len(words)) if not free[j]), len(words))
        later = any(content[i + 1 : end])
        options = [literal] if content[i] else []
        if later:
            options.append(f'{literal} " " {rule}{i + 1}')
        if options:
            lines.append(f"{rule}{i} ::= " + " | ".join(options))
    return lines


_PRIMITIVE_RULES = {
    "number": 'number ::= "-"? [0-9]{1,12} ("." [0-9]{1,6})?',
    "integer": 'integer ::= "-"? [0-9]{1,12}',
    "boolean": 'boolean ::= "true" | "false"',
    "string": 'string ::= "\\"" span "\\""',
}


class _GrammarBuilder:
    """Collects named rules while translating JSON schemas to GBNF."""

    def __init__(self, numbers: Sequence[str] = ()) -> None:
        self.rules: dict[str, str] = {}
        self.primitives: set[str] = set()
        self.counter = 0
        self.numbers = list(numbers)

    def _new(self, base: str) -> str:
        self.counter += 1
        return f"{re.sub(r'[^a-zA-Z0-9]', '-', base)}-{self.counter}"

    def value(self, schema: Mapping[str, Any], hint: str) -> str:
        """The rule name of a value matching ``schema``."""
        if schema.get("enum"):
            name = self._new(hint)
            self.rules[name] = " | ".join(
                gbnf_literal(json.dumps(v, ensure_ascii=False)) for v in schema["enum"]
            )
            return name
        if "const" in schema:
            name = self._new(hint)
            self.rules[name] = gbnf_literal(json.dumps(schema["const"], ensure_ascii=False))
            return name
        for key in ("anyOf", "oneOf"):
            options = [o for o in schema.get(key) or [] if o.get("type") != "null"]
            if options:
                return self.value(options[0], hint)
        kind = schema.get("type", "string")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "string")
        if kind in ("number", "integer") and self.numbers:
            # Numbers are copied from the message, like strings: a small model miscopies digits.
            choices = [n for n in self.numbers if kind == "number" or re.fullmatch(r"-?\d+", n)]
            if choices:
                name = self._new(hint)
                self.rules[name] = " | ".join(gbnf_literal(n) for n in choices)
                return name
        if kind in ("number", "integer", "boolean", "string"):
            self.primitives.add(kind)
            return kind
        if kind == "array":
            item = self.value(schema.get("items") or {"type": "string"}, hint + "-item")
            name = self._new(hint)
            self.rules[name] = f'"[" ({item} (", " {item}){{0,31}})? "]"'
            return name
        if kind == "object":
            return self.object(schema, hint)
        self.primitives.add("string")
        return "string"

    def object(self, schema: Mapping[str, Any], hint: str) -> str:
        """An object with exactly the schema's required properties, in order."""
        props: Mapping[str, Any] = schema.get("properties") or {}
        required = [k for k in (schema.get("required") or []) if k in props]
        name = self._new(hint)
        if not required:
            self.rules[name] = '"{}"'
            return name
        parts = []
        for i, key in enumerate(required):
            lead = "{" if i == 0 else ", "
            parts.append(f"{gbnf_literal(lead + json.dumps(key) + ': ')} {self.value(props[key], key)}")
        self.rules[name] = " ".join(parts) + ' "}"'
        return name

    def render(self, root: str, words: Sequence[str]) -> str:
        lines = [f"root ::= {root}"]
        lines += [f"{k} ::= {v}" for k, v in self.rules.items()]
        lines += [_PRIMITIVE_RULES[p] for p in sorted(self.primitives)]
        if "string" in self.primitives:
            lines += span_rules(words)
        return "\n".join(lines) + "\n"


def build_route_grammar(names: Sequence[str]) -> str:
    """A grammar whose only outputs are the given routing tool names."""
    if not names:
        raise ValueError("a routing grammar needs at least one route")
    return "root ::= " + " | ".join(gbnf_literal(n) for n in names) + "\n"


def build_tool_grammar(
    tools: Sequence[Mapping[str, Any]],
    *,
    source_text: str = "",
    allow_text: bool = False,
    decided: Mapping[str, Mapping[str, Any]] | None = None,
    numbers: Sequence[str] = (),
) -> str:
    """A grammar for exactly one call ``{"name": ..., "arguments": {...}}`` of one of ``tools``.

    String arguments are spans of ``source_text``'s words (free bounded strings when
    it has none); number arguments are one of ``numbers`` when given. A tool named in
    ``decided`` gets exactly those arguments. With ``allow_text`` the output may
    instead be plain text that does not start with ``{`` (bounded by the call's
    ``max_tokens``).
    """
    if not tools:
        raise ValueError("a tool grammar needs at least one tool")
    builder = _GrammarBuilder(numbers)
    calls = []
    for schema in tools:
        function = tool_function(schema)
        name = str(function.get("name"))
        if decided is not None and name in decided:
            args = builder._new(name + "-args")
            builder.rules[args] = gbnf_literal(json.dumps(dict(decided[name]), ensure_ascii=False))
        else:
            args = builder.object(function.get("parameters") or {}, name + "-args")
        calls.append(
            f"{gbnf_literal('{' + json.dumps('name') + ': ' + json.dumps(name) + ', ')} "
            f'{gbnf_literal(json.dumps("arguments") + ": ")} {args} "}}"'
        )
    builder.rules["call"] = " | ".join(calls)
    root = "call"
    if allow_text:
        builder.rules["text"] = "[^{\\x00-\\x1f] [^\\x00]*"
        root = "call | text"
    return builder.render(root, source_words(source_text))


NUMBER_RE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")
"""A number written in digits, as the argument grammar offers it."""


def _numbers(text: str) -> list[float]:
    return [float(n) for n in NUMBER_RE.findall(text)]


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def repeated_argument(args: Mapping[str, Any], schema: Mapping[str, Any], source_text: str) -> str | None:
    """The later of two required arguments of ``args`` filled from one place of ``source_text``, if any.

    A small model sometimes copies one span into both places of a two-place tool
    (``time_difference("Miami", "Miami")`` for "is Miami behind Madrid"), or one number into
    two (``percent_of(1250, 1250)`` for "8% of 1250"). Two strings count when equal; two
    numbers when equal and the message writes that number only once.
    """
    props: Mapping[str, Any] = schema.get("properties") or {}
    strings: set[str] = set()
    numbers: dict[float, int] = {}
    written = _numbers(source_text)
    for key in schema.get("required") or []:
        kind = (props.get(key) or {}).get("type")
        value = args.get(key)
        if kind == "string" and isinstance(value, str):
            text = " ".join(value.lower().split())
            if text and text in strings:
                return key
            strings.add(text)
        elif kind in ("number", "integer") and (number := _number(value)) is not None:
            numbers[number] = numbers.get(number, 0) + 1
            if numbers[number] > 1 and written.count(number) < numbers[number]:
                return key
    return None


_CLOCK_WORDS = frozenset({"am", "pm", "a.m.", "p.m.", "a.m", "p.m"})
"""The half of the day a clock time names."""


def _other_words_rule(values: Sequence[Any], source_text: str) -> list[str] | None:
    """Span rules over ``source_text``'s words outside the copies of ``values`` (the call's other string
    arguments: a place argument must not take the clock time the call's time argument holds; None:
    nothing else to copy)."""
    words = source_words(source_text)
    lowered = [w.lower() for w in words]
    blocked: set[int] = set()
    for value in values:
        copied = source_words(str(value).lower())
        runs = [
            start
            for start in range(len(words) - len(copied) + 1)
            if copied and lowered[start : start + len(copied)] == copied
        ]
        for start in runs:
            blocked.update(range(start, start + len(copied)))
        if not runs:  # not copied as one run: none of its words
            blocked.update(i for i, w in enumerate(lowered) if w in copied)
    # what belongs to a clock time ("8:30 am") is never a value of its own
    blocked.update(i for i, w in enumerate(lowered) if w in _CLOCK_WORDS)
    if all(i in blocked or w in STOPWORDS for i, w in enumerate(lowered)):
        return None
    return span_rules(words, blocked=blocked)


MAX_PAIRED_NUMBERS = 8
"""A repeated number is chosen again among at most this many of the message's numbers."""


def distinct_argument_grammar(
    schema: Mapping[str, Any], args: Mapping[str, Any], key: str, source_text: str
) -> str | None:
    """A grammar for one call of ``schema`` with ``args``, except that ``key`` comes from another place
    of ``source_text`` than the earlier argument holding the same value.

    A string ``key``: the earlier copy stays and ``key`` is a span outside the words it was
    copied from. A number: both are chosen again as two different numbers of the message, in
    either order (which one is wrong is not known). None when the message has nothing else to
    offer (the repetition may then be meant).
    """
    function = tool_function(schema)
    parameters: Mapping[str, Any] = function.get("parameters") or {}
    props: Mapping[str, Any] = parameters.get("properties") or {}
    required = [k for k in parameters.get("required") or [] if k in props]
    if key not in required:
        return None
    head = f'{{"name": {json.dumps(function.get("name"))}, "arguments": '

    def arguments(values: Mapping[str, str]) -> str:
        """The arguments object's text up to ``values``' keys, which are rendered as given (GBNF)."""
        parts, text = [], ""
        for i, name in enumerate(required):
            text += ("{" if i == 0 else ", ") + json.dumps(name) + ": "
            if name in values:
                parts += [gbnf_literal(text), values[name]]
                text = ""
            else:
                text += json.dumps(args[name], ensure_ascii=False)
        parts.append(gbnf_literal(text + "}"))
        return " ".join(parts)

    if (props[key] or {}).get("type") in ("number", "integer"):
        taken = _number(args[key])
        twin = next(k for k in required if k != key and _number(args.get(k)) == taken)
        integers = all((props[k] or {}).get("type") == "integer" for k in (key, twin))
        written = [n for n in dict.fromkeys(NUMBER_RE.findall(source_text)) if not integers or "." not in n]
        written = written[:MAX_PAIRED_NUMBERS]
        if len(written) < 2:
            return None
        pairs = [
            arguments({twin: gbnf_literal(a), key: gbnf_literal(b)})
            for a in written
            for b in written
            if a != b
        ]
        return (
            f"root ::= {gbnf_literal(head)} args "
            + '"}"\n'
            + "args ::= "
            + " | ".join(f"({p})" for p in pairs)
            + "\n"
        )
    taken = [args[key], *(args[k] for k in required if k != key and isinstance(args.get(k), str))]
    rules = _other_words_rule(taken, source_text)
    if rules is None:
        return None
    lines = [f"root ::= {gbnf_literal(head)} " + arguments({key: '"\\"" span "\\""'}) + ' "}"', *rules]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------


def _call_id() -> str:
    return f"call_{uuid.uuid4().hex[:16]}"


def parse_route(text: str, names: Sequence[str]) -> AIMessage:
    """An ``AIMessage`` with one routing call when ``text`` names a route, else plain text."""
    cleaned = text.strip()
    if cleaned in names:
        return AIMessage(
            content="", tool_calls=[{"name": cleaned, "args": {}, "id": _call_id(), "type": "tool_call"}]
        )
    logger.warning("local model produced no valid route", extra={"output": cleaned[:200]})
    return AIMessage(content=cleaned)


def _validate_args(args: Any, schema: Mapping[str, Any]) -> bool:
    if not isinstance(args, dict):
        return False
    props = schema.get("properties") or {}
    return all(key in args for key in schema.get("required") or [] if key in props)


def parse_tool_output(text: str, tools: Sequence[Mapping[str, Any]]) -> AIMessage:
    """An ``AIMessage`` with one tool call when ``text`` is a valid call of ``tools``, else plain text.

    Never raises: malformed output becomes the message's text.
    """
    cleaned = text.strip()
    if cleaned.startswith("{"):
        try:
            data = json.loads(cleaned)
        except json.JSONDecodeError:
            data = None
        by_name = {tool_name(t): tool_function(t) for t in tools}
        if isinstance(data, dict) and data.get("name") in by_name:
            args = data.get("arguments", {})
            if _validate_args(args, by_name[data["name"]].get("parameters") or {}):
                call = {"name": data["name"], "args": args, "id": _call_id(), "type": "tool_call"}
                return AIMessage(content="", tool_calls=[call])
        logger.warning("local model produced a malformed tool call", extra={"output": cleaned[:200]})
    return AIMessage(content=cleaned)
