"""Shared fixtures: settings isolated from the user's environment, and an engine factory."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import pytest

from cadence.orchestration.engine import Cadence
from cadence.orchestration.safety import unanswered_tool_calls
from cadence.sdk.plugin import BasePlugin
from cadence.settings import Settings, get_settings
from cadence.testing import ScriptedChatModel

for _key in list(os.environ):
    if _key.startswith("CADENCE_"):
        del os.environ[_key]


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("CADENCE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def make_settings(**overrides: Any) -> Settings:
    """Test settings: in-memory persistence, fast retries, no entry points."""
    base: dict[str, Any] = {
        "database_url": "memory://",
        "entry_points_enabled": False,
        "model_retry_base_delay": 0.01,
        "model_retry_max_delay": 0.05,
        "builtin_plugins": ["math", "info", "docs"],
    }
    base.update(overrides)
    return Settings(**base)


def assert_no_unanswered_calls(model: ScriptedChatModel) -> None:
    """No model call received an AI tool call without its tool result."""
    for record in model.records:
        assert unanswered_tool_calls(record.messages) == [], (
            f"call {record.index} ({record.node}) got unanswered calls"
        )


@pytest.fixture
def engine_factory() -> Callable[..., tuple[Cadence, ScriptedChatModel]]:
    """Build an engine around a scripted model: ``engine_factory(script, plugins=..., **settings)``."""
    made: list[ScriptedChatModel] = []

    def factory(
        script: Sequence[dict[str, Any]], *, plugins: Iterable[type[BasePlugin]] = (), **overrides: Any
    ) -> tuple[Cadence, ScriptedChatModel]:
        model = ScriptedChatModel.from_items(script)
        made.append(model)
        engine = Cadence(make_settings(**overrides), model=model, plugins=plugins)
        return engine, model

    yield factory
    for model in made:
        assert_no_unanswered_calls(model)


def goto(agent: str) -> dict[str, Any]:
    """A scripted coordinator decision routing to ``agent``."""
    return {"tool_calls": [{"name": f"goto_{agent}_agent", "args": {}}]}


def transfer(agent: str) -> dict[str, Any]:
    """A scripted supervisor decision handing off to ``agent`` (its handoff tool ``transfer_to_{agent}``)."""
    return {"tool_calls": [{"name": f"transfer_to_{agent}", "args": {}}]}


FINALIZE: dict[str, Any] = {"tool_calls": [{"name": "goto_finalize", "args": {}}]}


def call(name: str, **args: Any) -> dict[str, Any]:
    """A scripted agent response calling tool ``name``."""
    return {"tool_calls": [{"name": name, "args": args}]}


def tool_plugin(
    name: str, tools: Sequence[Any], *, description: str | None = None, dependencies: Sequence[str] = ()
) -> type[BasePlugin]:
    """A plugin named ``name`` whose agent has ``tools`` (and a one-line prompt)."""
    from cadence.sdk import BaseAgent, PluginMetadata

    class Agent(BaseAgent):
        def get_tools(self) -> list[Any]:
            return list(tools)

        def get_system_prompt(self) -> str:
            return f"You are the {name} agent."

    class Plugin(BasePlugin):
        @classmethod
        def get_metadata(cls) -> PluginMetadata:
            return PluginMetadata(
                name=name,
                version="1.0.0",
                description=description or f"The {name} plugin for tests.",
                dependencies=list(dependencies),
            )

        @classmethod
        def create_agent(cls) -> BaseAgent:
            return Agent(cls.get_metadata())

    Plugin.__name__ = Plugin.__qualname__ = f"{name.title()}Plugin"
    return Plugin
