"""A scripted chat model: replays a list of responses and records every call.

A script is a JSON list; each item is one model response, consumed in call order
across all nodes that share the model::

    {"content": "...",
     "tool_calls": [{"name": "goto_math_agent", "args": {}}],
     "delay_s": 0.0,
     "raise": {"type": "rate_limit" | "timeout" | "error", "message": "..."},
     "usage": {"input_tokens": 10, "output_tokens": 3},
     "finish_reason": "length"}

Every key is optional. One script serves every node (coordinator or supervisor, agents,
synthesizer, suspend): items are consumed in one global order, in the order the nodes call the
model, so a script lists the responses of a whole turn (and of the turns after it) in sequence.
Running out of items raises :class:`ScriptExhaustedError`, a model failure whose message names
the call and node that found the script empty. Select it from configuration with
``CADENCE_LLM=scripted:<path to the JSON file>``.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolCallChunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import PrivateAttr

from cadence.errors import ScriptExhaustedError, ValidationError
from cadence.models.chunks import areport_tokens, bind_openai_tools, report_tokens, tool_call_chunks
from cadence.models.retry import RateLimitError

_ALLOWED_KEYS = {"content", "tool_calls", "delay_s", "raise", "usage", "finish_reason"}
_CALL_KEYS = {"name", "args", "id"}


class ScriptedModelError(Exception):
    """A permanent model error raised on the script's request (``"raise": {"type": "error"}``)."""


@dataclass
class ModelCallRecord:
    """One call the scripted model received."""

    index: int
    node: str | None
    messages: list[BaseMessage]
    tools: list[str]
    tool_schemas: list[dict[str, Any]] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    item: dict[str, Any] | None = None


def _check_item(i: int, item: dict[str, Any]) -> None:
    """ValidationError naming item ``i`` for a value of the wrong type (it failed later, as if the
    model's provider had)."""

    def bad(what: str) -> ValidationError:
        return ValidationError(f"Scripted model: item {i} {what}.")

    if "content" in item and not isinstance(item["content"], str | list):
        raise bad("'content' must be text (or a list of content parts)")
    calls = item.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        raise bad("'tool_calls' must be a list of {name, args} objects")
    for call in calls or []:
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise bad("has a tool call without a string 'name'")
        unknown = set(call) - _CALL_KEYS
        if unknown:  # e.g. OpenAI's 'arguments': the call would run with no arguments at all
            raise bad(
                f"tool call {call['name']!r} has unknown keys {sorted(unknown)}; "
                f"allowed: {sorted(_CALL_KEYS)}"
            )
        if not isinstance(call.get("args", {}), dict | str):
            raise bad(f"tool call {call['name']!r} needs 'args' as an object (or the raw text a model wrote)")
    delay = item.get("delay_s", 0)
    if isinstance(delay, bool) or not isinstance(delay, int | float) or delay < 0:
        raise bad("'delay_s' must be a number of seconds, 0 or more")
    usage = item.get("usage")
    if usage is not None and (
        not isinstance(usage, dict)
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in usage.values())
    ):
        raise bad("'usage' must be an object of token counts (integers)")
    if not isinstance(item.get("finish_reason", ""), str):
        raise bad('\'finish_reason\' must be text, such as "stop" or "length" (cut at the output limit)')


def _arguments(args: dict[str, Any] | str | None) -> tuple[dict[str, Any], str | None]:
    """A scripted call's arguments: an object as given; text parsed as a provider parses what its
    model wrote (a JSON object), else the error that makes the call an invalid tool call."""
    if not isinstance(args, str):
        return dict(args or {}), None
    try:
        parsed = json.loads(args)
    except json.JSONDecodeError as exc:
        return {}, f"Function arguments are not valid JSON: {exc}"
    if not isinstance(parsed, dict):
        return {}, f"Function arguments must be a JSON object, not {type(parsed).__name__}"
    return parsed, None


def load_script(source: str | Path | Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Load and validate a script from a JSON file path or a list of items."""
    if isinstance(source, (str, Path)):
        path = Path(source).expanduser()
        if not path.is_file():
            raise ValidationError(
                f"Scripted model: no script file at {path}. Create a JSON list of responses."
            )
        try:
            items = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValidationError(f"Scripted model: {path} is not valid JSON ({exc}).") from exc
    else:
        items = list(source)
    if not isinstance(items, list):
        raise ValidationError("Scripted model: a script must be a JSON list of response objects.")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ValidationError(f"Scripted model: item {i} must be an object, got {type(item).__name__}.")
        unknown = set(item) - _ALLOWED_KEYS
        if unknown:
            raise ValidationError(
                f"Scripted model: item {i} has unknown keys {sorted(unknown)}; "
                f"allowed: {sorted(_ALLOWED_KEYS)}."
            )
        _check_item(i, item)
        raise_spec = item.get("raise")
        if raise_spec is not None and (
            not isinstance(raise_spec, dict)
            or raise_spec.get("type") not in {"rate_limit", "timeout", "error"}
        ):
            raise ValidationError(
                f"Scripted model: item {i} 'raise.type' must be one of rate_limit, timeout, error."
            )
        unknown_raise = set(raise_spec or {}) - {"type", "message"}
        if unknown_raise:  # {"type": "error", "msg": "..."}: the message was silently the default
            raise ValidationError(
                f"Scripted model: item {i} 'raise' has unknown keys {sorted(unknown_raise)}; "
                "allowed: ['message', 'type']."
            )
    return items


class _Script:
    """The shared cursor and records behind a scripted model and all its bindings."""

    def __init__(self, items: list[dict[str, Any]], loop: bool, name: str = "scripted") -> None:
        self.items = items
        self.loop = loop
        self.name = name
        self.calls = 0
        self.index = 0
        self.records: list[ModelCallRecord] = []
        self.lock = threading.Lock()

    def next(self, record: ModelCallRecord) -> dict[str, Any]:
        with self.lock:
            self.calls += 1
            if self.index >= len(self.items) and (not self.loop or not self.items):
                raise ScriptExhaustedError(
                    f"Scripted model {self.name}: the script ran out: all {len(self.items)} item(s) were "
                    f"used and call {self.calls} (node {record.node or '?'}) has no response. Items "
                    "are consumed in one order across every node (coordinator, agents, synthesizer); "
                    "add a response for this call to the script."
                )
            item = self.items[self.index % len(self.items)] if self.items else {}
            record.index = self.index
            record.item = item
            self.index += 1
            self.records.append(record)
            return item


def _count_tokens(text: str) -> int:
    return len(text.split())


class ScriptedChatModel(BaseChatModel):
    """A chat model that replays scripted responses and records every call.

    Supports ``bind_tools`` (records the tools offered), streaming (content is
    emitted word by word), delays, and scripted failures (rate limit, timeout,
    error). ``records`` lists every call with its node, messages and tools.
    """

    script_name: str = "scripted"
    loop: bool = False
    _script: _Script = PrivateAttr()

    def __init__(self, items: Sequence[dict[str, Any]] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._script = _Script(load_script(items or []), self.loop, self.script_name)

    @classmethod
    def from_items(cls, items: Sequence[dict[str, Any]], *, loop: bool = False) -> ScriptedChatModel:
        """A model replaying ``items`` (``loop`` restarts the script instead of failing when it ends)."""
        return cls(items, loop=loop)

    @classmethod
    def from_file(cls, path: str | Path, *, loop: bool = False) -> ScriptedChatModel:
        """A model replaying the JSON script at ``path``."""
        return cls(load_script(path), loop=loop, script_name=f"scripted:{Path(path).name}")

    def reset(self, items: Sequence[dict[str, Any]]) -> None:
        """Replace the script and clear the records (one model and graph reused across many scripts).

        Every binding of the model (``bind_tools``) sees the new script.
        """
        self._script = _Script(load_script(items), self.loop, self.script_name)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def model_label(self) -> str:
        """The name shown in traces."""
        return self.script_name

    @property
    def records(self) -> list[ModelCallRecord]:
        """Every call received so far, in order."""
        return self._script.records

    @property
    def remaining(self) -> int:
        """Items not yet consumed."""
        return max(0, len(self._script.items) - self._script.index)

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | BaseTool | Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools; they are recorded with each call (the script decides the calls)."""
        return bind_openai_tools(self, tools, tool_choice, **kwargs)

    # -- internals -------------------------------------------------------------------
    def _take(self, messages: list[BaseMessage], run_manager: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
        node = None
        metadata = getattr(run_manager, "metadata", None) or {}
        node = metadata.get("langgraph_node") or metadata.get("cadence_node")
        if node is None:
            try:
                from langgraph.config import get_config

                node = (get_config().get("metadata") or {}).get("langgraph_node")
            except RuntimeError:
                node = None
        schemas = kwargs.get("tools") or []
        names = [s.get("function", {}).get("name", s.get("name", "?")) for s in schemas]
        record = ModelCallRecord(
            index=-1,
            node=node,
            messages=list(messages),
            tools=names,
            tool_schemas=list(schemas),
            kwargs={k: v for k, v in kwargs.items() if k != "tools"},
        )
        return self._script.next(record)

    @staticmethod
    def _fail(item: dict[str, Any]) -> None:
        spec = item.get("raise")
        if not spec:
            return
        message = spec.get("message") or f"scripted {spec['type']}"
        if spec["type"] == "rate_limit":
            raise RateLimitError(message)
        if spec["type"] == "timeout":
            raise TimeoutError(message)
        raise ScriptedModelError(message)

    @staticmethod
    def _message(item: dict[str, Any], messages: list[BaseMessage]) -> AIMessage:
        content = item.get("content") or ""
        calls: list[dict[str, Any]] = []
        invalid: list[dict[str, Any]] = []
        for c in item.get("tool_calls") or []:
            call_id = c.get("id") or f"call_{uuid.uuid4().hex[:12]}"
            args, error = _arguments(c.get("args"))
            if error is None:
                calls.append({"name": c["name"], "args": args, "id": call_id, "type": "tool_call"})
            else:
                call = {"name": c["name"], "args": c["args"], "id": call_id, "error": error}
                invalid.append({**call, "type": "invalid_tool_call"})
        usage = item.get("usage") or {}
        inp = usage.get("input_tokens")
        if inp is None:
            inp = sum(_count_tokens(str(m.content)) for m in messages)
        out = usage.get("output_tokens")
        if out is None:  # content may be a list of parts ({"type": "text", "text": ...})
            text = content if isinstance(content, str) else AIMessage(content=content).text
            out = _count_tokens(text) + 3 * len(calls)
        inp, out = int(inp), int(out)
        return AIMessage(
            content=content,
            tool_calls=calls,
            invalid_tool_calls=invalid,
            usage_metadata={"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out},
            response_metadata={
                "model_name": "scripted",
                **({"finish_reason": item["finish_reason"]} if item.get("finish_reason") else {}),
            },
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        item = self._take(messages, run_manager, kwargs)
        if item.get("delay_s"):
            time.sleep(float(item["delay_s"]))
        self._fail(item)
        return ChatResult(generations=[ChatGeneration(message=self._message(item, messages))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        item = self._take(messages, run_manager, kwargs)
        if item.get("delay_s"):
            await asyncio.sleep(float(item["delay_s"]))
        self._fail(item)
        return ChatResult(generations=[ChatGeneration(message=self._message(item, messages))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        item = self._take(messages, run_manager, kwargs)
        if item.get("delay_s"):
            time.sleep(float(item["delay_s"]))
        self._fail(item)
        yield from report_tokens(self._chunks(self._message(item, messages)), run_manager)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        item = self._take(messages, run_manager, kwargs)
        if item.get("delay_s"):
            await asyncio.sleep(float(item["delay_s"]))
        self._fail(item)
        async for chunk in areport_tokens(self._chunks(self._message(item, messages)), run_manager):
            yield chunk

    @staticmethod
    def _chunks(message: AIMessage) -> Iterator[ChatGenerationChunk]:
        text = message.text  # a list of content parts streams as its text
        words = text.split(" ") if text else []
        for i, word in enumerate(words):
            piece = word if i == 0 else " " + word
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))
        tool_chunks = tool_call_chunks(message.tool_calls)
        tool_chunks += [  # what the model wrote, as it wrote it: the stream's parser reads it again
            ToolCallChunk(name=c["name"], args=c["args"], id=c["id"], index=len(tool_chunks) + i)
            for i, c in enumerate(message.invalid_tool_calls)
        ]
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="",
                tool_call_chunks=tool_chunks,
                usage_metadata=message.usage_metadata,
                response_metadata=message.response_metadata,
                chunk_position="last",
            )
        )
