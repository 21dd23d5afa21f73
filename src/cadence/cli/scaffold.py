"""``cadence plugins new NAME``: a plugin package that installs, loads and passes its own test.

It writes, under ``--dir`` (default: the current folder; it must exist, it is not created)::

    cadence-NAME/
      pyproject.toml           the distribution, its dependency on cadence-agents, the entry point
      README.md                how to install, try and test it
      src/cadence_NAME/__init__.py   the plugin: a tool, an agent, the plugin class
      tests/test_NAME.py       a test driving a whole turn with the scripted model, isolated settings

``pip install -e cadence-NAME`` then makes Cadence discover it (entry point group
``cadence.plugins``); ``pytest`` in the folder runs its test without installing it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from cadence import __version__
from cadence.cli.common import fail
from cadence.errors import ValidationError
from cadence.plugins.manager import ENTRY_POINT_GROUP, builtin_plugin_names
from cadence.sdk.metadata import PluginMetadata, normalize_name

DISTRIBUTION = "cadence-agents"
"""The distribution a plugin depends on (the package that provides ``cadence``)."""

_PYPROJECT = """\
[build-system]
requires = ["setuptools>=68", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "cadence-{dash}"
version = "0.1.0"
description = "{title} plugin for Cadence."
requires-python = ">=3.11"
dependencies = ["{distribution}>={cadence_version}"]

[project.optional-dependencies]
dev = ["pytest>=8", "pytest-asyncio>=0.24"]

# Cadence discovers installed plugins through this entry point group.
[project.entry-points."{group}"]
{slug} = "{package}:{cls}Plugin"

[tool.setuptools.packages.find]
where = ["src"]

[tool.pytest.ini_options]
pythonpath = ["src"]
asyncio_mode = "auto"
asyncio_default_fixture_loop_scope = "function"
testpaths = ["tests"]
"""

_PLUGIN = '''\
"""The {slug} plugin for Cadence: one agent and its tools.

Cadence loads it through the ``{group}`` entry point declared in pyproject.toml.
"""

from __future__ import annotations

from typing import Any

from cadence.sdk import AgentType, BaseAgent, BasePlugin, PluginMetadata, ToolException, tool


@tool
def count_words(text: str) -> str:
    """Count the words of a text. text: the text itself."""
    if not text.strip():
        raise ToolException("There is no text; pass the text whose words to count.")
    return str(len(text.split()))


class {cls}Agent(BaseAgent):
    """The {slug} agent: its tools and its system prompt."""

    def get_tools(self) -> list[Any]:
        """The tools this agent may call."""
        return [count_words]

    def get_system_prompt(self) -> str:
        """What the agent does and how."""
        return (
            "You count the words of texts. Always call the count_words tool with the full text; "
            "never count in your head. Reply with the number in one sentence."
        )


class {cls}Plugin(BasePlugin):
    """The {slug} plugin."""

    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        """What the plugin is; the coordinator routes on the description and capabilities."""
        return PluginMetadata(
            name="{slug}",
            version="0.1.0",
            description="Counts the words of a text the user gives.",
            capabilities=["count the words of a text"],
            agent_type=AgentType.SPECIALIZED,
            response_suggestion="Give the number first.",
        )

    @classmethod
    def create_agent(cls) -> BaseAgent:
        """A new agent (called when the graph is built)."""
        return {cls}Agent(cls.get_metadata())

    @classmethod
    def health_check(cls) -> dict[str, Any]:
        """Shown by `cadence plugins list`; an unhealthy plugin is skipped with these details."""
        return {{"healthy": True, "details": "ready"}}
'''

_TEST = '''\
"""A whole turn through Cadence with the scripted model: no network, no API key, nothing installed."""

from __future__ import annotations

from pathlib import Path

from {package} import {cls}Plugin, count_words

from cadence.orchestration.engine import Cadence
from cadence.settings import Settings
from cadence.testing import ScriptedChatModel


def isolated_settings(tmp_path: Path) -> Settings:
    """Only this plugin, an in-memory database, nothing written under ~/.cadence."""
    return Settings(
        builtin_plugins=[],
        entry_points_enabled=False,
        plugins_dir=[],
        agents_dir=[],
        database_url="memory://",
        data_dir=tmp_path,
    )


def test_the_tool() -> None:
    assert count_words.invoke({{"text": "one two three"}}) == "3"


def test_a_turn(tmp_path: Path) -> None:
    # one script for every node, consumed in order: coordinator, agent, coordinator, synthesizer
    model = ScriptedChatModel.from_items(
        [
            {{"tool_calls": [{{"name": "goto_{slug}_agent", "args": {{}}}}]}},
            {{"tool_calls": [{{"name": "count_words", "args": {{"text": "one two three"}}}}]}},
            {{"tool_calls": [{{"name": "goto_finalize", "args": {{}}}}]}},
            {{"content": "The text has 3 words."}},
        ]
    )
    engine = Cadence(isolated_settings(tmp_path), model=model, plugins=[{cls}Plugin])
    result = engine.invoke("How many words in 'one two three'?")  # a TurnResult
    assert result.response == "The text has 3 words."
    assert result.trace["routing_history"] == ["{slug}"]
    assert result.trace["tools_used"][0]["result"] == "3"
    assert model.records[1].tools == ["count_words"]  # the agent was offered its tools
    engine.close()


def test_the_single_mode(tmp_path: Path) -> None:
    # the single mode talks to this agent alone: two model calls for a one-tool turn
    model = ScriptedChatModel.from_items(
        [
            {{"tool_calls": [{{"name": "count_words", "args": {{"text": "a b"}}}}]}},
            {{"content": "2 words."}},
        ]
    )
    settings = isolated_settings(tmp_path).model_copy(update={{"mode": "single", "agent": "{slug}"}})
    engine = Cadence(settings, model=model, plugins=[{cls}Plugin])
    assert engine.invoke("Count: a b").response == "2 words."
    assert [r.node for r in model.records] == ["{slug}_agent", "{slug}_agent"]
    engine.close()
'''

_README = """\
# cadence-{dash}

A [Cadence](https://pypi.org/project/{distribution}/) plugin: {title}.

```bash
pip install -e ".[dev]"        # installs {distribution} too; Cadence now finds the plugin
cadence plugins list           # {slug} is listed as loaded (source entry_point), with its health
cadence chat "How many words in 'to be or not to be'?"
cadence chat --agent {slug} "Count: one two three"   # talk to this agent alone (single mode)
pytest                         # the tests run without installing anything (pythonpath = src)
```

Without installing, point Cadence at the source folder instead:
`CADENCE_PLUGINS_DIR=src cadence plugins list`.
"""


def scaffold(name: str, directory: Path) -> Path:
    """Write the plugin package for ``name`` under ``directory``; returns the project folder.

    Raises ``ValueError`` for an invalid name or an existing folder, :class:`ValidationError` when
    ``directory`` is not an existing folder (it is not created: a mistyped ``--dir`` made a tree of
    folders silently).
    """
    PluginMetadata(name=name, version="0.1.0", description="validates the plugin name")
    slug = normalize_name(name)
    if not re.fullmatch(r"[a-z][a-z0-9_]*", slug):
        raise ValueError(f"plugin name {name!r} must become a Python name (letters, digits, '_')")
    if slug in builtin_plugin_names():  # the built-in would win: the new plugin would never be loaded
        raise ValueError(f"{slug!r} is the name of a built-in plugin; choose another name")
    # a distribution name ends with a letter or digit ('cadence-bot-' cannot be installed)
    dash = re.sub(r"-+", "-", slug.replace("_", "-")).strip("-")
    if not directory.is_dir():
        problem = "is not a folder" if directory.exists() else "does not exist"
        raise ValidationError(
            f"--dir {directory} {problem}; create the folder first, or choose an existing one."
        )
    project = directory / f"cadence-{dash}"
    if project.exists():
        raise ValueError(f"{project} already exists; choose another name or --dir")
    package = f"cadence_{slug}"
    values = {
        "slug": slug,
        "dash": dash,
        "package": package,
        "cls": "".join(part.capitalize() for part in slug.split("_")),
        "title": slug.replace("_", " ").capitalize(),
        "group": ENTRY_POINT_GROUP,
        "distribution": DISTRIBUTION,
        "cadence_version": __version__,
    }
    files = {
        project / "pyproject.toml": _PYPROJECT,
        project / "README.md": _README,
        project / "src" / package / "__init__.py": _PLUGIN,
        project / "tests" / f"test_{slug}.py": _TEST,
    }
    for path, template in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.format(**values), encoding="utf-8")
    return project


def new_plugin(
    name: Annotated[str, typer.Argument(help="The plugin's name (letters, digits, '_' or '-').")],
    directory: Annotated[
        Path,
        typer.Option(
            "--dir", "-d", help="The existing folder to create the project folder in (default: here)."
        ),
    ] = Path("."),
) -> None:
    """Create a plugin package: pyproject.toml with the entry point, the plugin, a passing test."""
    try:
        project = scaffold(name, directory)
    except ValueError as exc:
        text = str(exc)
        if "validation error" in text:  # the metadata's own message says what is wrong with the name
            text = text.split("\n", 2)[-1].strip().removeprefix("Value error, ").split(" [type=")[0]
        raise fail(text) from None
    typer.echo(f"created {project}")
    typer.echo(f"next: cd {project} && pip install -e '.[dev]' && pytest && cadence plugins list")


__all__ = ["DISTRIBUTION", "new_plugin", "scaffold"]
