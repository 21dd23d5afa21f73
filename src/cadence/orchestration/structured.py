"""StructuredResponseHandler: the final answer as text plus per-plugin structured data.

Modes (``CADENCE_STRUCTURED_RESPONSE``):

- ``model``: ``with_structured_output`` on a schema built at run time from the used
  plugins' ``response_schema`` (the answer text plus one object per plugin);
- ``prompt``: JSON-schema instructions in the prompt, then extraction and validation,
  with bounded retries and backoff;
- ``none``: a plain call.

Any failure falls back to the plain call and is logged.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.utils.json import parse_json_markdown

from cadence.backoff import exponential_delay, retry_async
from cadence.errors import CadenceError, TurnTimeoutError
from cadence.orchestration.model_call import call_model
from cadence.orchestration.turn import TurnContext

logger = logging.getLogger(__name__)

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def build_response_schema(plugin_schemas: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The run-time schema: ``answer`` (the text for the user) plus one object per plugin schema."""
    properties: dict[str, Any] = {
        "answer": {"type": "string", "description": "The complete final answer shown to the user."}
    }
    for name, schema in plugin_schemas.items():
        properties[name] = {**dict(schema), "description": schema.get("description", f"Data from {name}.")}
    return {
        "title": "FinalResponse",
        "description": "The final answer and structured data from the specialists used.",
        "type": "object",
        "properties": properties,
        "required": ["answer"],
    }


def validate(data: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """Light JSON-schema validation (types, required, nested properties); returns error strings."""
    errors: list[str] = []
    expected = schema.get("type")
    if expected in _JSON_TYPES:
        ok = isinstance(data, _JSON_TYPES[expected]) and not (
            expected in {"number", "integer"} and isinstance(data, bool)
        )
        if not ok:
            return [f"{path} should be {expected}"]
    if isinstance(data, dict):
        for key in schema.get("required", []):
            if key not in data:
                errors.append(f"{path}.{key} is required")
        for key, sub in (schema.get("properties") or {}).items():
            if key in data and isinstance(sub, Mapping):
                errors.extend(validate(data[key], sub, f"{path}.{key}"))
    return errors


def extract_json(text: str) -> Any:
    """The JSON object in ``text``: fenced (```json) or bare (LangChain's ``parse_json_markdown``),
    else the span from the first ``{`` to the last ``}`` of a reply that wraps it in prose."""
    try:
        data = parse_json_markdown(text)
    except ValueError:  # json.JSONDecodeError included
        data = None
    if isinstance(data, dict):
        return data
    start = text.find("{")
    end = text.rfind("}")
    if start < 0 or end <= start:
        raise ValueError("no JSON object found in the reply")
    return json.loads(text[start : end + 1])


@dataclass(frozen=True)
class FinalResponse:
    """The final answer text and, when a structured mode succeeded, its data."""

    message: AIMessage
    structured: dict[str, Any] | None = None
    mode_used: str = "none"


class _InvalidReply(ValueError):
    """A prompt-mode reply that is not valid JSON for the schema (retried with a correction)."""


class StructuredResponseHandler:
    """Produces the final answer in the configured mode, falling back to a plain call."""

    def __init__(self, mode: str = "none", retries: int = 2, base_delay: float = 0.2) -> None:
        self.mode = mode
        self.retries = retries
        self.base_delay = base_delay

    async def respond(
        self,
        model: BaseChatModel,
        messages: Sequence[BaseMessage],
        plugin_schemas: Mapping[str, Mapping[str, Any]],
        *,
        node: str,
        context: TurnContext | None,
        config: RunnableConfig | None,
        mode: str | None = None,
    ) -> FinalResponse:
        """Answer with ``model``; structured modes apply only when a used plugin declares a schema."""
        mode = mode or self.mode
        if mode != "none" and plugin_schemas:
            schema = build_response_schema(plugin_schemas)
            try:
                if mode == "model":
                    return await self._model_mode(model, messages, schema, node, context, config)
                if mode == "prompt":
                    return await self._prompt_mode(model, messages, schema, node, context, config)
            except TurnTimeoutError:
                raise
            except Exception as exc:
                logger.warning(
                    "structured response failed; falling back to a plain call",
                    extra={"mode": mode, "node": node, "error": f"{type(exc).__name__}: {exc}"},
                )
                if context is not None:
                    context.trace.notes.append(f"structured response ({mode}) fell back to plain: {exc}")
        message = await call_model(model, messages, node=node, context=context, config=config)
        return FinalResponse(message=message)

    async def _model_mode(
        self,
        model: BaseChatModel,
        messages: Sequence[BaseMessage],
        schema: dict[str, Any],
        node: str,
        context: TurnContext | None,
        config: RunnableConfig | None,
    ) -> FinalResponse:
        runnable = model.with_structured_output(schema, include_raw=True)
        result = await call_model(runnable, messages, node=node, context=context, config=config, raw=True)
        parsed = result.get("parsed") if isinstance(result, dict) else None
        if result.get("parsing_error") or not isinstance(parsed, dict):
            raise ValueError(f"structured output could not be parsed: {result.get('parsing_error')}")
        problems = validate(parsed, schema)
        if problems:
            raise ValueError("; ".join(problems))
        raw = result.get("raw")
        message = AIMessage(
            content=str(parsed["answer"]), usage_metadata=getattr(raw, "usage_metadata", None)
        )
        return FinalResponse(message=message, structured=parsed, mode_used="model")

    async def _prompt_mode(
        self,
        model: BaseChatModel,
        messages: Sequence[BaseMessage],
        schema: dict[str, Any],
        node: str,
        context: TurnContext | None,
        config: RunnableConfig | None,
    ) -> FinalResponse:
        instructions = (
            "\n\nOUTPUT FORMAT: reply with ONLY one JSON object (no prose around it) that matches this JSON "
            f'schema; put the complete answer for the user in "answer":\n{json.dumps(schema, indent=1)}'
        )
        convo = list(messages)
        if convo and isinstance(convo[0], SystemMessage):
            convo[0] = SystemMessage(content=str(convo[0].content) + instructions)
        else:
            convo.insert(0, SystemMessage(content=instructions.strip()))

        async def attempt_reply(attempt: int) -> FinalResponse:
            nonlocal convo
            reply = await call_model(model, convo, node=node, context=context, config=config)
            text = reply.content if isinstance(reply.content, str) else str(reply.content)
            try:
                data = extract_json(text)
                problems = validate(data, schema)
                if problems:
                    raise ValueError("; ".join(problems))
            except (ValueError, json.JSONDecodeError) as exc:
                logger.info("structured reply invalid", extra={"attempt": attempt, "error": str(exc)})
                convo = [
                    *convo,
                    AIMessage(content=text),
                    HumanMessage(
                        content=f"That reply was not valid ({exc}). Reply again with only the JSON object."
                    ),
                ]
                raise _InvalidReply(str(exc)) from exc
            message = AIMessage(content=str(data["answer"]), usage_metadata=reply.usage_metadata)
            return FinalResponse(message=message, structured=data, mode_used="prompt")

        try:
            return await retry_async(
                attempt_reply,
                retry_on=lambda exc: isinstance(exc, _InvalidReply),
                max_attempts=self.retries + 1,
                delay=exponential_delay(self.base_delay),
            )
        except _InvalidReply as exc:
            raise CadenceError(
                f"no valid structured reply after {self.retries + 1} attempts: {exc}"
            ) from None
