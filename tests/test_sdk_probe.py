"""The plugin SDK as an author meets it: mistakes are reported as what they are."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_settings

from cadence.orchestration.engine import Cadence
from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, register_plugin, tool, unregister_plugin
from cadence.testing import ScriptedChatModel


@tool
def hello(name: str) -> str:
    """Greet someone."""
    return f"Hello {name}"


class _Agent(BaseAgent):
    def get_tools(self) -> list[Any]:
        return [hello]

    def get_system_prompt(self) -> str:
        return "You greet people."


class MisspeltMetadataPlugin(BasePlugin):
    """``get_metadata`` spelt ``get_metadat``: the class stays abstract."""

    @classmethod
    def get_metadat(cls) -> PluginMetadata:
        return PluginMetadata(name="greeter", version="1.0.0", description="Greets people by name.")

    @classmethod
    def create_agent(cls) -> BaseAgent:
        return _Agent(cls.get_metadat())


class _MisspeltToolsAgent(BaseAgent):
    def get_tool(self) -> list[Any]:
        return [hello]

    def get_system_prompt(self) -> str:
        return "You greet people."


class MisspeltAgentPlugin(BasePlugin):
    """Its agent spells ``get_tools`` ``get_tool``."""

    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        return PluginMetadata(name="greeter", version="1.0.0", description="Greets people by name.")

    @classmethod
    def create_agent(cls) -> BaseAgent:
        return _MisspeltToolsAgent(cls.get_metadata())


def _statuses(**settings: Any) -> dict[str, Any]:
    engine = Cadence(
        make_settings(builtin_plugins=[], **settings.pop("_settings", {})),
        model=ScriptedChatModel.from_items([]),
        plugins=settings.pop("plugins", ()),
    )
    return {s.location: s for s in engine.plugin_statuses}


def test_a_misspelt_get_metadata_is_named_not_read_as_returning_none() -> None:
    statuses = _statuses(plugins=[MisspeltMetadataPlugin])
    (status,) = statuses.values()
    assert status.status == "failed"
    assert "does not implement get_metadata (it defines get_metadat: misspelt?)" in status.reason
    assert "NoneType" not in status.reason


def test_register_plugin_refuses_a_plugin_with_a_misspelt_method() -> None:
    try:
        with pytest.raises(TypeError, match=r"does not implement get_metadata .*get_metadat"):
            register_plugin(MisspeltMetadataPlugin)
    finally:
        unregister_plugin(MisspeltMetadataPlugin)


def test_a_misspelt_agent_method_is_named() -> None:
    with pytest.raises(TypeError, match=r"does not implement get_tools \(it defines get_tool: misspelt\?\)"):
        _MisspeltToolsAgent(MisspeltAgentPlugin.get_metadata())
    (status,) = _statuses(plugins=[MisspeltAgentPlugin]).values()
    assert status.status == "failed" and "get_tool: misspelt?" in status.reason


def test_a_folder_plugin_with_a_misspelt_method_is_not_said_to_define_no_plugin(tmp_path: Path) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "greeter.py").write_text(
        textwrap.dedent(
            """
            from cadence.sdk import BasePlugin, PluginMetadata

            class GreeterPlugin(BasePlugin):
                @classmethod
                def get_metdata(cls):
                    return PluginMetadata(name="greeter", version="1", description="Greets people by name.")

                @classmethod
                def create_agent(cls):
                    raise NotImplementedError
            """
        )
    )
    (status,) = _statuses(_settings={"plugins_dir": [folder]}).values()
    assert status.status == "failed"
    assert "GreeterPlugin does not implement get_metadata (it defines get_metdata: misspelt?)" in (
        status.reason
    )
    assert "defines no BasePlugin subclass" not in status.reason


def test_an_abstract_base_beside_a_concrete_plugin_is_no_error(tmp_path: Path) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "family.py").write_text(
        textwrap.dedent(
            """
            from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, tool

            @tool
            def ping() -> str:
                '''Ping.'''
                return "pong"

            class Agent(BaseAgent):
                def get_tools(self):
                    return [ping]

                def get_system_prompt(self):
                    return "ping"

            class Base(BasePlugin):
                @classmethod
                def create_agent(cls):
                    return Agent(cls.get_metadata())

            class PingPlugin(Base):
                @classmethod
                def get_metadata(cls):
                    return PluginMetadata(name="ping", version="1", description="Answers pings quickly.")
            """
        )
    )
    (status,) = _statuses(_settings={"plugins_dir": [folder]}).values()
    assert status.status == "loaded", status.reason
