"""Plugin metadata: what a plugin is, what it can do and what it needs."""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

MAX_NAME_CHARS = 52
"""Longest plugin name: its routing tools (``goto_{name}_agent``, ``transfer_to_{name}``) must fit the 64
characters model providers allow a tool's name."""
_NAME_RE = re.compile(rf"^[A-Za-z][A-Za-z0-9 _-]{{0,{MAX_NAME_CHARS - 1}}}$")
_VERSION_RE = re.compile(r"^\d+(\.\d+){0,3}([.-]?[A-Za-z0-9]+)*$")


class AgentType(StrEnum):
    """The kind of agent a plugin provides."""

    SPECIALIZED = "specialized"
    GENERAL = "general"
    UTILITY = "utility"


class LLMRequirements(BaseModel):
    """Optional model preferences of a plugin's agent (override the default model)."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(None, description="provider:model for this plugin's agent.")
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=1)
    supports_tools: bool = Field(
        True,
        description="Not read by Cadence (accepted so older plugins still load): every agent's model is "
        "bound with its tools, so the model must support tool calling.",
    )


def normalize_name(name: str) -> str:
    """Normalise a plugin name for node and tool names: lower case, spaces to underscores."""
    return name.strip().lower().replace(" ", "_").replace("-", "_")


class PluginMetadata(BaseModel):
    """Validated description of a plugin.

    Raises ``pydantic.ValidationError`` (wrapped by the plugin manager into a clear
    reason) when a field is invalid: empty description, bad version, unknown
    agent type, non-dict response schema, and so on.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(..., description="Unique plugin name; letters, digits, spaces, '-' or '_'.")
    version: str = Field(..., description="Version such as 1.0.0; the higher wins a name conflict.")
    description: str = Field(
        ..., min_length=10, description="What the agent does (shown to the coordinator)."
    )
    capabilities: list[str] = Field(default_factory=list, description="Short capability phrases.")
    agent_type: AgentType = AgentType.SPECIALIZED
    llm_requirements: LLMRequirements | None = None
    dependencies: list[str] = Field(
        default_factory=list, description="Python distributions the plugin needs."
    )
    response_schema: dict[str, Any] | None = Field(
        None, description="JSON schema of additional structured data the synthesizer should return."
    )
    response_suggestion: str | None = Field(None, description="Guidance for the final answer's presentation.")
    requires_approval: bool = Field(
        False,
        description="Every tool of the plugin needs a human's approval before it runs "
        "(see cadence.sdk.approval for per-tool declarations).",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        value = value.strip()
        if not _NAME_RE.match(value):
            raise ValueError(
                f"plugin name {value!r} must start with a letter and contain only letters, digits, "
                f"spaces, '-' or '_' (at most {MAX_NAME_CHARS} characters, so that its routing tools "
                "goto_<name>_agent and transfer_to_<name> fit the 64 characters model providers allow)"
            )
        if normalize_name(value) in {
            "coordinator",
            "control",
            "suspend",
            "synthesizer",
            "finalize",
            "finalizer",
        }:
            raise ValueError(f"plugin name {value!r} is reserved by the Cadence graph")
        return value

    @field_validator("version")
    @classmethod
    def _version(cls, value: str) -> str:
        value = value.strip()
        if not _VERSION_RE.match(value):
            raise ValueError(f"version {value!r} is not a version such as '1.0.0'")
        return value

    @field_validator("description")
    @classmethod
    def _description(cls, value: str) -> str:
        value = " ".join(value.split())
        if len(value) < 10:
            raise ValueError("description must say what the agent does (at least 10 characters)")
        return value

    @field_validator("capabilities")
    @classmethod
    def _capabilities(cls, value: list[str]) -> list[str]:
        cleaned = [c.strip() for c in value if c and c.strip()]
        return cleaned

    @field_validator("response_schema")
    @classmethod
    def _schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        if value.get("type", "object") != "object" or not isinstance(value.get("properties", {}), dict):
            raise ValueError("response_schema must be a JSON schema of type 'object' with 'properties'")
        loose = [name for name, sub in value.get("properties", {}).items() if not isinstance(sub, dict)]
        if (
            loose
        ):  # {"city": "string"}: providers refuse the schema; every structured answer fell back to text
            raise ValueError(
                f"response_schema properties must be JSON schemas such as {{'type': 'string'}}; "
                f"{', '.join(repr(n) for n in loose)} {'is' if len(loose) == 1 else 'are'} not"
            )
        try:
            json.dumps(value)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"response_schema must be JSON ({exc})") from None
        return value

    @property
    def normalized_name(self) -> str:
        """The name used in node names (``{name}_agent``) and routing tools (``goto_{name}_agent``, the
        supervisor's ``transfer_to_{name}``)."""
        return normalize_name(self.name)

    def version_key(self) -> tuple[Any, ...]:
        """A sortable key of the version (numeric parts first)."""
        parts: list[Any] = []
        for piece in re.split(r"[.-]", self.version):
            parts.append((0, int(piece), "") if piece.isdigit() else (-1, 0, piece))
        return tuple(parts)
