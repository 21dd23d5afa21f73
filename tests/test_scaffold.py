"""``cadence plugins new``: a plugin package whose own test passes; and the plugin-author doc fixes."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cadence.cli.main import app
from cadence.cli.scaffold import scaffold
from cadence.errors import ModelCallError, ScriptExhaustedError
from cadence.plugins.manager import PluginManager
from cadence.settings import Settings
from cadence.testing import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def test_scaffold_layout_and_entry_point(tmp_path: Path) -> None:
    result = runner.invoke(app, ["plugins", "new", "Word Counter", "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    project = tmp_path / "cadence-word-counter"
    assert f"created {project}" in result.stdout and "pip install -e '.[dev]'" in result.stdout
    assert {p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file()} == {
        "pyproject.toml",
        "README.md",
        "src/cadence_word_counter/__init__.py",
        "tests/test_word_counter.py",
    }
    meta = tomllib.loads((project / "pyproject.toml").read_text())
    assert meta["project"]["name"] == "cadence-word-counter"
    assert meta["project"]["dependencies"][0].startswith("cadence-agents>=")
    entry = meta["project"]["entry-points"]["cadence.plugins"]["word_counter"]
    assert entry == "cadence_word_counter:WordCounterPlugin"
    # the entry point names a real plugin class, loadable by the plugin manager
    spec = importlib.util.spec_from_file_location(
        "cadence_word_counter", project / "src" / "cadence_word_counter" / "__init__.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    manager = PluginManager(
        Settings(builtin_plugins=[], entry_points_enabled=False, database_url="memory://"),
        extra_plugins=[module.WordCounterPlugin],
    )
    manager.load()
    assert manager.statuses[0].status == "loaded" and manager.statuses[0].health == "ready"


def test_the_scaffolds_own_test_passes(tmp_path: Path) -> None:
    project = scaffold("greeter", tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CADENCE_")}
    env["HOME"] = str(tmp_path / "home")  # the test must not need (or write) ~/.cadence
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout
    assert not (tmp_path / "home" / ".cadence").exists()


def test_folder_plugin_from_the_scaffold(tmp_path: Path) -> None:
    project = scaffold("greeter", tmp_path)
    manager = PluginManager(
        Settings(builtin_plugins=[], entry_points_enabled=False, plugins_dir=[project / "src"])
    )
    manager.load()
    assert list(manager.bundles) == ["greeter"]


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("9lives", "must start with a letter"),
        ("coordinator", "reserved"),
        # the built-in of that name wins at loading: the new plugin would never run
        ("Math", "'math' is the name of a built-in plugin"),
        ("text", "built-in plugin"),
    ],
)
def test_bad_names_are_one_error_line(tmp_path: Path, name: str, fragment: str) -> None:
    result = runner.invoke(app, ["plugins", "new", name, "--dir", str(tmp_path)])
    assert result.exit_code != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0]


@pytest.mark.parametrize(("name", "distribution"), [("bot_", "cadence-bot"), ("a--b", "cadence-a-b")])
def test_the_distribution_name_is_installable(tmp_path: Path, name: str, distribution: str) -> None:
    # 'cadence-bot-' is no valid project name: pip install -e refused the scaffold of 'bot_'
    from packaging.requirements import Requirement

    project = scaffold(name, tmp_path)
    meta = tomllib.loads((project / "pyproject.toml").read_text())
    assert meta["project"]["name"] == distribution == project.name
    assert Requirement(distribution).name == distribution


def test_existing_folder_is_refused(tmp_path: Path) -> None:
    scaffold("greeter", tmp_path)
    result = runner.invoke(app, ["plugins", "new", "greeter", "--dir", str(tmp_path)])
    assert result.exit_code != 0 and "already exists" in result.stderr


def test_a_missing_dir_is_refused_not_created(tmp_path: Path) -> None:
    """``-d /nonexistent/x`` created the missing folders silently."""
    target = tmp_path / "nonexistent" / "x"
    result = runner.invoke(app, ["plugins", "new", "greeter", "-d", str(target)])
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"error: --dir {target} does not exist; create the folder first, or choose an existing one."
    )
    assert not (tmp_path / "nonexistent").exists()
    (tmp_path / "file").write_text("x")
    result = runner.invoke(app, ["plugins", "new", "greeter", "-d", str(tmp_path / "file")])
    assert result.exit_code == 1 and "is not a folder" in result.stderr


def test_a_script_running_out_says_so() -> None:
    model = ScriptedChatModel.from_items([{"content": "only one"}])
    model.invoke("first")
    with pytest.raises(ScriptExhaustedError) as info:
        model.invoke("second")
    message = info.value.message
    assert (
        "the script ran out" in message and "call 2" in message and "one order across every node" in message
    )
    assert "provider" not in message
    assert isinstance(info.value, ModelCallError)  # passed through the model-call path as it is


async def test_a_script_running_out_in_a_turn_is_the_turns_error(engine_factory) -> None:
    engine, _ = engine_factory([], mode="single", agent="math")
    result = await engine.ainvoke("2+2?")
    assert result.error["code"] == "model_error"
    assert result.error["message"].startswith("Scripted model scripted: the script ran out")
    assert "Check the provider" not in result.error["message"]


def test_plugin_docs_name_the_distribution_and_show_a_complete_package() -> None:
    plugins = (ROOT / "docs" / "plugins.md").read_text()
    readme = (ROOT / "README.md").read_text()
    for text in (plugins, readme):
        assert "cadence-agents" in text
    assert '[project.entry-points."cadence.plugins"]' in plugins and "[build-system]" in plugins
    assert "from weather_plugin import WeatherPlugin" in plugins  # the test example imports what it uses
    assert "cadence plugins new" in plugins and "health" in plugins
    assert "TurnResult" in plugins and "consumed in one" in readme


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def test_the_plugin_docs_example_is_a_working_package(tmp_path: Path) -> None:
    docs = (ROOT / "docs" / "plugins.md").read_text()
    pyproject = next(b for b in _blocks(docs, "toml") if "[build-system]" in b)
    plugin = next(b for b in _blocks(docs, "python") if "class WeatherPlugin" in b)
    test = next(b for b in _blocks(docs, "python") if "def test_a_turn" in b)
    project = tmp_path / "cadence-weather"
    for path, text in (
        (project / "pyproject.toml", pyproject),
        (project / "src" / "weather_plugin" / "__init__.py", plugin),
        (project / "tests" / "test_weather.py", test),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CADENCE_")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
    # the same folder works as a folder plugin, without installing it
    manager = PluginManager(
        Settings(builtin_plugins=[], entry_points_enabled=False, plugins_dir=[project / "src"])
    )
    manager.load()
    assert list(manager.bundles) == ["weather"] and manager.statuses[0].health == "2 cities"


def test_the_readme_test_snippet_runs(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    snippet = next(b for b in _blocks(readme, "python") if "def test_math" in b)
    namespace: dict = {}
    exec(compile(snippet, "README.md", "exec"), namespace)
    namespace["test_math"](tmp_path)
    assert not (Path.home() / ".cadence" / "never").exists()
