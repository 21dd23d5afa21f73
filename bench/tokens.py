"""Input tokens of a model call, counted with tiktoken over exactly what the model received.

A call is the list of messages the chat model was invoked with plus the tool schemas
bound to it (OpenAI function format, as ``bind_tools`` produced them). Messages are
serialised the way OpenAI's chat format carries them: role, name, text content, tool
calls (name + JSON arguments) and tool-call id, with OpenAI's documented framing of
3 tokens per message and 3 to prime the reply; tool schemas count as their compact
JSON. The absolute numbers are an approximation of any one provider's billing; the
comparison is exact because both frameworks are counted the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from cadence.testing.scripted import ModelCallRecord

ENCODING = "o200k_base"
"""The tiktoken encoding (GPT-4o / GPT-4.1 / o-series)."""


_URL = f"https://openaipublic.blob.core.windows.net/encodings/{ENCODING}.tiktoken"


def _seed_offline_cache() -> None:
    """Offline: give tiktoken the vocabulary file shipped in the ``bpe-openai`` wheel.

    tiktoken downloads its vocabulary on first use; without network access we place
    the identical file (tiktoken verifies its SHA-256) in tiktoken's cache directory.
    """
    import gzip
    import hashlib
    import importlib.resources
    import os
    from pathlib import Path

    data = gzip.decompress(
        (importlib.resources.files("bpe_openai") / "data" / f"{ENCODING}.tiktoken.gz").read_bytes()
    )
    cache = Path(os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(Path.home() / ".cache" / "tiktoken")))
    cache.mkdir(parents=True, exist_ok=True)
    (cache / hashlib.sha1(_URL.encode()).hexdigest()).write_bytes(data)


@lru_cache(maxsize=1)
def _encoder() -> Any:
    import tiktoken

    try:
        return tiktoken.get_encoding(ENCODING)
    except Exception:
        _seed_offline_cache()
        return tiktoken.get_encoding(ENCODING)


def count(text: str) -> int:
    """Tokens of ``text`` in :data:`ENCODING`."""
    return len(_encoder().encode(text, disallowed_special=())) if text else 0


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "".join(parts)


def message_tokens(message: BaseMessage) -> int:
    """Tokens of one message in the chat format (framing included)."""
    total = 3 + count(message.type) + count(_text(message))
    if message.name:
        total += 1 + count(message.name)
    if isinstance(message, AIMessage):
        for call in message.tool_calls:
            total += 3 + count(call["name"]) + count(json.dumps(call["args"])) + count(call.get("id") or "")
    if isinstance(message, ToolMessage):
        total += count(message.tool_call_id)
    return total


@dataclass(frozen=True)
class CallTokens:
    """Input tokens of one model call, split into messages and tool schemas."""

    label: str
    messages: int
    n_messages: int
    tools: int
    n_tools: int

    @property
    def total(self) -> int:
        """Messages + tool schemas + the 3 tokens priming the reply."""
        return self.messages + self.tools + 3


def call_tokens(record: ModelCallRecord, label: str) -> CallTokens:
    """Count one recorded call."""
    schemas = record.tool_schemas
    tools = count(json.dumps(schemas, separators=(",", ":"))) if schemas else 0
    return CallTokens(
        label=label,
        messages=sum(message_tokens(m) for m in record.messages),
        n_messages=len(record.messages),
        tools=tools,
        n_tools=len(schemas),
    )


def token_rows(res: dict[str, Any]) -> list[dict[str, Any]]:
    """Section 2's rows of a results dict: the ``tokens`` section's, else those measured with ``overhead``."""
    rows = res.get("tokens")
    if isinstance(rows, list) and rows:
        return rows
    return list((res.get("overhead") or {}).get("tokens") or [])


async def run_tokens(workdir: Any) -> list[dict[str, Any]]:
    """Section 2 alone: model calls and input tokens of one turn of each conversation, both frameworks."""
    from dataclasses import asdict

    from bench.conversations import CONVERSATIONS
    from bench.overhead import measure_tokens

    rows = []
    for conv in CONVERSATIONS:
        rows += [asdict(t) for t in await measure_tokens(conv, workdir)]
    return rows
