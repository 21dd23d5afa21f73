"""Plugin discovery, validation, conflict resolution and bundle structure."""

from __future__ import annotations

import textwrap
import threading
import time
from pathlib import Path

import pytest
from tests.conftest import make_settings, tool_plugin

from cadence.orchestration import plugin_nodes
from cadence.plugins.manager import PluginManager
from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, tool

GOOD = '''
from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, tool

@tool
def shout(text: str) -> str:
    """Upper-case the text."""
    return text.upper()

class ShoutAgent(BaseAgent):
    def get_tools(self):
        return [shout]
    def get_system_prompt(self):
        return "You shout."

class ShoutPlugin(BasePlugin):
    @classmethod
    def get_metadata(cls):
        return PluginMetadata(name="{name}", version="{version}", description="Turns text into upper case letters.")
    @classmethod
    def create_agent(cls):
        return ShoutAgent(cls.get_metadata())
'''


def write_plugin(root: Path, filename: str, body: str) -> Path:
    path = root / filename
    path.write_text(textwrap.dedent(body))
    return path


def test_broken_plugins_are_skipped_with_reasons(tmp_path: Path) -> None:
    write_plugin(tmp_path, "good.py", GOOD.format(name="Shout", version="1.0.0"))
    write_plugin(tmp_path, "syntax.py", "def broken(:\n    pass\n")
    write_plugin(
        tmp_path,
        "badmeta.py",
        GOOD.format(name="Bad Meta", version="not a version").replace("ShoutPlugin", "BadPlugin"),
    )
    unhealthy = GOOD.format(name="Sick", version="1.0.0") + textwrap.dedent(
        """
        @classmethod
        def _unhealthy(cls):
            return {"healthy": False, "details": "backend unreachable"}

        ShoutPlugin.health_check = _unhealthy
        """
    )
    write_plugin(tmp_path, "unhealthy.py", unhealthy)
    manager = PluginManager(make_settings(plugins_dir=[tmp_path], builtin_plugins=["math"]))
    statuses = {s.location.split("/")[-1]: s for s in manager.load() if s.source == "directory"}
    assert set(manager.bundles) == {"math", "shout"}
    assert statuses["syntax.py"].status == "failed"
    assert "SyntaxError" in statuses["syntax.py"].reason and "line 1" in statuses["syntax.py"].reason
    assert statuses["badmeta.py"].status == "failed"
    assert "invalid metadata" in statuses["badmeta.py"].reason and "version" in statuses["badmeta.py"].reason
    assert statuses["unhealthy.py"].status == "failed"
    assert "health check failed: backend unreachable" in statuses["unhealthy.py"].reason


def test_missing_plugin_dir_is_reported_not_fatal(tmp_path: Path) -> None:
    manager = PluginManager(make_settings(plugins_dir=[tmp_path / "nope"], builtin_plugins=["math"]))
    statuses = manager.load()
    assert "math" in manager.bundles
    assert any(s.status == "failed" and "does not exist" in (s.reason or "") for s in statuses)


def test_name_conflicts_higher_version_wins(tmp_path: Path) -> None:
    a = tmp_path / "a"
    b = tmp_path / "b"
    a.mkdir()
    b.mkdir()
    write_plugin(a, "shout_old.py", GOOD.format(name="Shout", version="1.2.0"))
    write_plugin(b, "shout_new.py", GOOD.format(name="Shout", version="1.10.0"))
    manager = PluginManager(make_settings(plugins_dir=[a, b], builtin_plugins=[]))
    statuses = manager.load()
    assert manager.bundles["shout"].metadata.version == "1.10.0"
    loser = next(s for s in statuses if s.version == "1.2.0")
    assert loser.status == "overridden" and "wins" in loser.reason


def test_name_conflict_tie_directory_beats_installed(tmp_path: Path) -> None:
    write_plugin(tmp_path, "mymath.py", GOOD.format(name="math", version="1.0.0"))
    manager = PluginManager(make_settings(plugins_dir=[tmp_path], builtin_plugins=["math"]))
    statuses = manager.load()
    assert manager.bundles["math"].source.kind == "directory"
    builtin = next(s for s in statuses if s.source == "builtin" and s.name == "math")
    assert builtin.status == "overridden"


def test_disabled_and_switched_off_builtins() -> None:
    manager = PluginManager(make_settings(builtin_plugins=["math", "info"], disabled_plugins=["info"]))
    statuses = manager.load()
    assert set(manager.bundles) == {"math"}
    assert any(s.name == "info" and s.status == "disabled" for s in statuses)


def test_reload_picks_up_new_plugins(tmp_path: Path) -> None:
    manager = PluginManager(make_settings(plugins_dir=[tmp_path], builtin_plugins=[]))
    manager.load()
    assert manager.bundles == {}
    write_plugin(tmp_path, "good.py", GOOD.format(name="Shout", version="1.0.0"))
    manager.reload()
    assert set(manager.bundles) == {"shout"}


def test_metadata_validation_messages() -> None:
    with pytest.raises(ValueError, match="description"):
        PluginMetadata(name="x", version="1.0", description="short")
    with pytest.raises(ValueError, match="reserved"):
        PluginMetadata(name="coordinator", version="1.0", description="A long enough description.")
    with pytest.raises(ValueError, match="agent_type"):
        PluginMetadata(name="x", version="1.0", description="A long enough description.", agent_type="boss")
    meta = PluginMetadata(name="My Search", version="2.0.1", description="Searches things for people.")
    assert meta.normalized_name == "my_search"


def test_bundle_nodes_edges_and_back_tool() -> None:
    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    class PingAgent(BaseAgent):
        def get_tools(self):
            return [ping]

        def get_system_prompt(self) -> str:
            return "ping"

    class PingPlugin(BasePlugin):
        @classmethod
        def get_metadata(cls) -> PluginMetadata:
            return PluginMetadata(name="Ping Pong", version="1.0", description="Answers ping with pong.")

        @classmethod
        def create_agent(cls) -> BaseAgent:
            return PingAgent(cls.get_metadata())

    manager = PluginManager(make_settings(builtin_plugins=[]), extra_plugins=[PingPlugin])
    manager.load()
    bundle = manager.bundles["ping_pong"]
    assert [t.name for t in bundle.tools] == ["ping", "back"]
    assert set(plugin_nodes.graph_nodes(bundle)) == {"ping_pong_agent", "ping_pong_tools"}
    edges = plugin_nodes.graph_edges(bundle)
    assert edges["direct_edges"] == [("ping_pong_tools", "coordinator")]
    mapping = edges["conditional_edges"]["ping_pong_agent"]["mapping"]
    assert mapping == {"continue": "ping_pong_tools", "back": "coordinator"}


def test_list_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from cadence.settings import Settings

    monkeypatch.setenv("CADENCE_API_KEYS", "k1:alice, k2")
    monkeypatch.setenv("CADENCE_PLUGINS_DIR", f"{tmp_path / 'a'}:{tmp_path / 'b'},{tmp_path / 'c'}")
    monkeypatch.setenv("CADENCE_BUILTIN_PLUGINS", "math,info")
    s = Settings()
    assert [k.get_secret_value() for k in s.api_keys] == ["k1:alice", "k2"]
    assert "k1:alice" not in repr(s)
    assert [p.name for p in s.plugins_dir] == ["a", "b", "c"]
    assert s.builtin_plugins == ["math", "info"]


def test_entry_point_plugins_are_discovered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import sys
    from importlib.metadata import EntryPoint

    import cadence.plugins.manager as manager_module

    pkg = tmp_path / "ep_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent(GOOD.format(name="Shout", version="2.0.0")))
    monkeypatch.syspath_prepend(str(tmp_path))
    eps = [
        EntryPoint(name="shout", value="ep_pkg:ShoutPlugin", group="cadence.plugins"),
        EntryPoint(name="broken", value="ep_pkg_missing:Nope", group="cadence.plugins"),
    ]
    monkeypatch.setattr(
        manager_module, "entry_points", lambda group: eps if group == "cadence.plugins" else []
    )
    manager = PluginManager(make_settings(builtin_plugins=[], entry_points_enabled=True))
    statuses = manager.load()
    assert manager.bundles["shout"].source.kind == "entry_point"
    broken = next(s for s in statuses if s.name == "broken")
    assert broken.status == "failed" and "ModuleNotFoundError" in broken.reason
    sys.modules.pop("ep_pkg", None)


@pytest.mark.parametrize("fault", [SystemExit, KeyboardInterrupt, GeneratorExit, RuntimeError])
def test_a_should_continue_that_raises_counts_as_continue(fault: type[BaseException]) -> None:
    class Agent(BaseAgent):
        def get_tools(self) -> list:
            return []

        def get_system_prompt(self) -> str:
            return "You route oddly."

        def should_continue(self, state: dict) -> str:
            raise fault("from should_continue")

    class OddPlugin(BasePlugin):
        @classmethod
        def get_metadata(cls) -> PluginMetadata:
            return PluginMetadata(name="odd", version="1.0.0", description="Its should_continue raises.")

        @classmethod
        def create_agent(cls) -> BaseAgent:
            return Agent(cls.get_metadata())

    manager = PluginManager(make_settings(builtin_plugins=[]), extra_plugins=[OddPlugin])
    manager.load()
    assert manager.bundles["odd"].should_continue({"messages": []}) == "back"


def test_a_plugin_raising_generator_exit_is_skipped_with_its_reason(tmp_path: Path) -> None:
    write_plugin(tmp_path, "closes.py", "raise GeneratorExit('at import')\n")
    late = GOOD.format(name="Late", version="1.0.0") + textwrap.dedent(
        """
        def _closing(cls):
            raise GeneratorExit("in health_check")

        ShoutPlugin.health_check = classmethod(_closing)
        """
    )
    write_plugin(tmp_path, "late.py", late)
    write_plugin(tmp_path, "good.py", GOOD.format(name="Shout", version="1.0.0"))
    manager = PluginManager(make_settings(builtin_plugins=[], plugins_dir=[tmp_path]))
    reasons = {s.name: (s.status, s.reason) for s in manager.load()}
    assert reasons["closes"][0] == "failed" and "GeneratorExit(at import)" in reasons["closes"][1]
    assert reasons["late"][0] == "failed" and "GeneratorExit(in health_check)" in reasons["late"][1]
    assert list(manager.bundles) == ["shout"]


def test_a_health_check_that_hangs_does_not_hold_up_loading() -> None:
    import threading

    release = threading.Event()

    class Agent(BaseAgent):
        def get_tools(self) -> list:
            return []

        def get_system_prompt(self) -> str:
            return "You wait."

    class HangingPlugin(BasePlugin):
        @classmethod
        def get_metadata(cls) -> PluginMetadata:
            return PluginMetadata(name="hanging", version="1.0.0", description="Its health check never ends.")

        @classmethod
        def create_agent(cls) -> BaseAgent:
            return Agent(cls.get_metadata())

        @classmethod
        def health_check(cls) -> dict:
            release.wait(10)  # without the bound, loading would take these 10 s
            return {"healthy": True}

    manager = PluginManager(
        make_settings(builtin_plugins=["math"], plugin_check_timeout=0.2), extra_plugins=[HangingPlugin]
    )
    started = time.monotonic()
    try:
        statuses = {s.name: s for s in manager.load()}
    finally:
        release.set()
    assert time.monotonic() - started < 5
    assert statuses["hanging"].status == "failed"
    assert (
        statuses["hanging"].reason == "dependency and health checks: did not finish within 0.2s (it may hang)"
    )
    assert list(manager.bundles) == ["math"]


def test_a_plugin_whose_import_never_returns_is_skipped_and_the_rest_load(tmp_path: Path) -> None:
    gate = tmp_path / "release"
    hanging = textwrap.dedent(
        f"""
        import time
        from pathlib import Path

        deadline = time.monotonic() + 10  # without the bound, loading would wait these 10 s
        while not Path({str(gate)!r}).exists() and time.monotonic() < deadline:  # like a connect without
            time.sleep(0.02)  # a timeout, at import
        """
    )
    write_plugin(tmp_path, "stuck.py", hanging)
    write_plugin(tmp_path, "good.py", GOOD.format(name="Shout", version="1.0.0"))
    manager = PluginManager(
        make_settings(plugins_dir=[tmp_path], builtin_plugins=["math"], plugin_import_timeout=0.3)
    )
    started = time.monotonic()
    try:
        statuses = {s.location.split("/")[-1]: s for s in manager.load() if s.source == "directory"}
        # a reload while that import still runs does not start another one (they would pile up)
        again = {s.location.split("/")[-1]: s for s in manager.load() if s.source == "directory"}
        assert "an earlier attempt is still running" in str(again["stuck.py"].reason)
    finally:
        gate.touch()
    assert time.monotonic() - started < 5
    assert statuses["stuck.py"].status == "failed"
    assert statuses["stuck.py"].reason == "failed to import: did not finish within 0.3s (it may hang)"
    assert set(manager.bundles) == {"math", "shout"}
    # once it has returned, the next load imports it again
    deadline = time.monotonic() + 5
    while (
        any(t.name == "cadence-plugin-checks" for t in threading.enumerate()) and time.monotonic() < deadline
    ):
        time.sleep(0.02)
    after = {s.location.split("/")[-1]: s for s in manager.load() if s.source == "directory"}
    assert "still running" not in str(after["stuck.py"].reason)


def test_a_health_check_raising_timeout_error_reports_it() -> None:
    class Agent(BaseAgent):
        def get_tools(self) -> list:
            return []

        def get_system_prompt(self) -> str:
            return "You time out."

    class TimingOutPlugin(BasePlugin):
        @classmethod
        def get_metadata(cls) -> PluginMetadata:
            return PluginMetadata(name="timing_out", version="1.0.0", description="Its backend times out.")

        @classmethod
        def create_agent(cls) -> BaseAgent:
            return Agent(cls.get_metadata())

        @classmethod
        def health_check(cls) -> dict:
            raise TimeoutError("backend did not answer")

    manager = PluginManager(make_settings(builtin_plugins=[]), extra_plugins=[TimingOutPlugin])
    [status] = manager.load()
    assert (status.status, status.reason) == ("failed", "TimeoutError: backend did not answer")


@pytest.mark.parametrize("name", ["has space", "dotted.name", "slash/name", "ünïcode", "x" * 65])
def test_a_tool_name_no_provider_accepts_fails_the_plugin_at_loading(name: str) -> None:
    """OpenAI and Anthropic accept ``[A-Za-z0-9_-]{1,64}``: another name would fail at the agent's first call."""
    from langchain_core.tools import StructuredTool

    def echo(text: str) -> str:
        """Echo the text."""
        return text

    odd = tool_plugin("odd", [StructuredTool.from_function(echo, name=name)])
    manager = PluginManager(make_settings(builtin_plugins=["math"]), extra_plugins=[odd])
    statuses = {s.name: s for s in manager.load()}
    assert set(manager.bundles) == {"math"}
    assert statuses["odd"].status == "failed" and "letters, digits" in (statuses["odd"].reason or "")


@pytest.mark.parametrize(
    ("dependencies", "problem"),
    [
        (["pydantic>=2"], None),
        (["pywin32; sys_platform == 'win32'"], None),  # not for this platform: it was reported missing
        (["pydantic>=99"], "version"),  # installed, but too old: it passed
        (["definitely-not-installed-pkg>=1.0"], "pip install 'definitely-not-installed-pkg>=1.0'"),
        (["not a requirement!"], "not a valid requirement"),
    ],
)
def test_dependencies_are_read_as_pip_requirements(dependencies: list[str], problem: str | None) -> None:
    problems = tool_plugin("deps", [], dependencies=dependencies).validate_dependencies()
    if problem is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problem in problems[0]
