"""ResponseContextBuilder: tone, used plugins and their suggestions for the final-answer prompts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cadence.orchestration.state import PluginContextFields as F
from cadence.orchestration.tones import ResponseTone
from cadence.sdk.metadata import PluginMetadata


@dataclass(frozen=True)
class ResponseContext:
    """What the synthesizer and suspend prompts need to know about the turn."""

    tone: ResponseTone
    tone_instruction: str
    used_plugins: list[str] = field(default_factory=list)
    suggestions: dict[str, str] = field(default_factory=dict)

    @property
    def suggestions_text(self) -> str:
        """The plugins' response suggestions, formatted for a system prompt (empty when none)."""
        if not self.suggestions:
            return ""
        lines = ["", "PRESENTATION GUIDANCE FROM THE SPECIALISTS USED:"]
        lines += [f"- {name}: {text}" for name, text in self.suggestions.items()]
        return "\n".join(lines) + "\n"


class ResponseContextBuilder:
    """Builds a :class:`ResponseContext` from the state and the plugins' metadata."""

    def __init__(self, plugins: Mapping[str, PluginMetadata]) -> None:
        self.plugins = dict(plugins)

    def build(self, state: Mapping[str, Any]) -> ResponseContext:
        """Tone from the state (or its metadata), used plugins in first-use order, their suggestions."""
        metadata = state.get("metadata") or {}
        raw_tone = state.get("tone") or metadata.get("tone") or "natural"
        try:
            tone = ResponseTone.parse(raw_tone)
        except Exception:
            tone = ResponseTone.NATURAL
        history = list((state.get("plugin_context") or {}).get(F.ROUTING_HISTORY) or [])
        used = list(dict.fromkeys(history))
        suggestions = {
            name: self.plugins[name].response_suggestion or ""
            for name in used
            if name in self.plugins and self.plugins[name].response_suggestion
        }
        return ResponseContext(
            tone=tone, tone_instruction=tone.description, used_plugins=used, suggestions=suggestions
        )

    def response_schemas(self, used_plugins: list[str]) -> dict[str, dict[str, Any]]:
        """The ``response_schema`` of each used plugin that declares one."""
        return {
            name: self.plugins[name].response_schema  # type: ignore[misc]
            for name in used_plugins
            if name in self.plugins and self.plugins[name].response_schema
        }
