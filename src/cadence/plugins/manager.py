"""The plugin manager: discovers, validates and loads plugins without ever letting one break the app.

Sources, in discovery order: built-in plugins (``CADENCE_BUILTIN_PLUGINS``),
Python entry points (group ``cadence.plugins``), plugin directories
(``CADENCE_PLUGINS_DIR``) and classes registered with ``register_plugin``; then
Markdown agents (``CADENCE_AGENTS_DIR`` and entry point group ``cadence.agents``, see
:mod:`cadence.plugins.markdown`), whose tools are looked up among the loaded plugins.
A plugin that fails to import, validate, resolve its dependencies or pass its
health check is reported with its reason and skipped, whatever it raises
(``SystemExit`` and ``KeyboardInterrupt`` included; only cancellation propagates); so is one whose
dependency and health checks take longer than ``CADENCE_PLUGIN_CHECK_TIMEOUT`` (they run in a daemon thread,
abandoned then). An import that never finishes still holds up loading. Name conflicts are
resolved deterministically: the higher version wins; on a tie a directory
plugin beats an installed package, which beats a built-in.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import importlib
import importlib.util
import inspect
import logging
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, wait
from dataclasses import asdict, dataclass
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

from cadence.errors import PluginError
from cadence.plugins.bundle import PluginBundle, PluginSource
from cadence.plugins.containment import load_fault, reraise_cancellation
from cadence.sdk.abstract import missing_methods
from cadence.sdk.metadata import PluginMetadata, normalize_name
from cadence.sdk.plugin import BasePlugin, check_plugin_class, registered_plugins
from cadence.settings import Settings

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "cadence.plugins"
_SOURCE_RANK = {"builtin": 0, "registered": 1, "entry_point": 2, "directory": 3, "markdown": 4}


def builtin_plugin_names() -> list[str]:
    """The names of Cadence's built-in plugins (``CADENCE_BUILTIN_PLUGINS`` chooses among them)."""
    from cadence.builtins import BUILTIN_PLUGINS

    return list(BUILTIN_PLUGINS)


@dataclass
class PluginStatus:
    """The outcome of loading one plugin candidate."""

    name: str
    status: str  # loaded | failed | overridden | disabled
    source: str
    location: str
    version: str | None = None
    description: str | None = None
    reason: str | None = None
    health: str | None = None
    """What the plugin's ``health_check()`` said (its ``details``), for a plugin that passed it."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


class PluginChecksTimeoutError(PluginError):
    """A plugin's import (``CADENCE_PLUGIN_IMPORT_TIMEOUT``) or its dependency and health checks
    (``CADENCE_PLUGIN_CHECK_TIMEOUT``) did not finish in time."""

    code = "plugin_checks_timeout"


def _checks(plugin: type[BasePlugin]) -> tuple[list[str], dict[str, Any]]:
    """The plugin's dependency problems and, when there are none, its health check's answer."""
    problems = plugin.validate_dependencies()
    if not isinstance(problems, list | tuple) or not all(isinstance(p, str) for p in problems):
        raise TypeError(f"validate_dependencies() must return a list of problems (text), got {problems!r}")
    if problems:
        return list(problems), {}
    health = plugin.health_check()
    if not isinstance(health, Mapping) or not isinstance(health.get("healthy"), bool):
        raise TypeError(f"health_check() must return {{'healthy': bool, 'details': str}}, got {health!r}")
    return [], dict(health)


_STILL_RUNNING: set[str] = set()
"""Keys of calls :func:`_within` abandoned that have not returned yet (an import that hangs or spins)."""
_STILL_RUNNING_LOCK = threading.Lock()


def _within(seconds: float, fn: Callable[[], Any], *, key: str | None = None) -> Any:
    """``fn()`` in a daemon thread, waited for at most ``seconds`` (then abandoned: it cannot be stopped).

    Raises what ``fn`` raised, or :class:`PluginChecksTimeoutError` when it did not finish in time. With
    ``key`` (a plugin's file or entry point), a call whose earlier call under that key was abandoned and
    still runs fails at once instead of starting one more thread (a reload would pile them up).
    """
    future: Future[Any] = Future()
    if key is not None:
        with _STILL_RUNNING_LOCK:
            if key in _STILL_RUNNING:
                raise PluginChecksTimeoutError(
                    "an earlier attempt is still running (it hangs); restart the server to try again"
                )
            _STILL_RUNNING.add(key)

    def run() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = fn()
        except BaseException as exc:  # handed to the caller, which contains it
            error = exc
        if key is not None:  # before the caller learns it is done: a retry right after may start
            with _STILL_RUNNING_LOCK:
                _STILL_RUNNING.discard(key)
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(run,), name="cadence-plugin-checks", daemon=True).start()
    wait([future], timeout=seconds)
    if not future.done():
        raise PluginChecksTimeoutError(f"did not finish within {seconds:g}s (it may hang)")
    return future.result()  # a TimeoutError the checks raised themselves is theirs


def _import_fault(exc: BaseException) -> str:
    """Why importing a plugin failed, in one line (a timeout says so without its class name)."""
    return str(exc) if isinstance(exc, PluginChecksTimeoutError) else load_fault(exc)


class PluginManager:
    """Discovers and loads plugins; exposes the loaded bundles and every candidate's status."""

    def __init__(self, settings: Settings, extra_plugins: Iterable[type[BasePlugin]] = ()) -> None:
        self.settings = settings
        if isinstance(extra_plugins, type):  # plugins=WeatherPlugin: iterating the class would fail obscurely
            raise TypeError(f"Cadence(plugins=...) takes a list: plugins=[{extra_plugins.__name__}]")
        self.extra_plugins = [check_plugin_class(p, "Cadence(plugins=...)") for p in extra_plugins]
        self.bundles: dict[str, PluginBundle] = {}
        self.statuses: list[PluginStatus] = []

    # -- public ----------------------------------------------------------------------
    def load(self) -> list[PluginStatus]:
        """Discover and load every plugin; returns the statuses (also kept on ``self.statuses``)."""
        statuses: list[PluginStatus] = []
        candidates: list[tuple[type[BasePlugin], PluginSource]] = []
        for finder in (self._builtin, self._entry_points, self._directories, self._registered):
            found, failed = finder()
            candidates.extend(found)
            statuses.extend(failed)
        loaded: dict[str, tuple[PluginBundle, PluginStatus]] = {}
        disabled = {normalize_name(n) for n in self.settings.disabled_plugins}
        seen: set[type[BasePlugin]] = set()
        for plugin, source in candidates:
            if plugin in seen:
                continue
            seen.add(plugin)
            bundle, status = self._load_one(plugin, source, disabled)
            statuses.append(status)
            if bundle is None:
                continue
            current = loaded.get(bundle.name)
            if current is None:
                loaded[bundle.name] = (bundle, status)
                continue
            winner, loser = self._resolve(current, (bundle, status))
            loaded[bundle.name] = winner
            loser[1].status = "overridden"
            loser[1].reason = (
                f"name conflict with {winner[1].source} plugin {winner[0].name!r} "
                f"v{winner[0].metadata.version} ({winner[1].location}), which wins"
            )
            logger.warning(
                "plugin name conflict", extra={"plugin": bundle.name, "winner": winner[1].location}
            )
        self._markdown_agents(loaded, statuses, disabled)
        self.bundles = {name: pair[0] for name, pair in sorted(loaded.items())}
        self.statuses = statuses
        for s in statuses:
            if s.status == "failed":
                logger.warning(
                    "plugin skipped", extra={"plugin": s.name, "reason": s.reason, "location": s.location}
                )
        return statuses

    def reload(self) -> list[PluginStatus]:
        """Rediscover plugins (directory modules are re-imported)."""
        return self.load()

    def fail(self, name: str, reason: str) -> None:
        """Skip the loaded plugin ``name`` after all, for ``reason`` (e.g. its own model cannot be built):
        it leaves the bundles and its status becomes ``failed``, as if it had failed to load."""
        if self.bundles.pop(name, None) is None:
            return
        for status in self.statuses:
            if status.name == name and status.status == "loaded":
                status.status, status.reason = "failed", reason
        logger.warning("plugin skipped", extra={"plugin": name, "reason": reason})

    @property
    def metadata(self) -> list[PluginMetadata]:
        """Metadata of the loaded plugins, by name."""
        return [b.metadata for b in self.bundles.values()]

    # -- discovery ---------------------------------------------------------------------
    def _builtin(self) -> tuple[list[tuple[type[BasePlugin], PluginSource]], list[PluginStatus]]:
        found: list[tuple[type[BasePlugin], PluginSource]] = []
        failed: list[PluginStatus] = []
        wanted = [normalize_name(n) for n in self.settings.builtin_plugins]
        if not wanted:
            return found, failed
        try:
            from cadence.builtins import BUILTIN_PLUGINS
        except BaseException as exc:  # a broken built-in must not stop the app
            reraise_cancellation(exc)
            failed.append(
                PluginStatus("builtins", "failed", "builtin", "cadence.builtins", reason=load_fault(exc))
            )
            return found, failed
        for name in wanted:
            plugin = BUILTIN_PLUGINS.get(name)
            if plugin is None:
                failed.append(
                    PluginStatus(
                        name,
                        "failed",
                        "builtin",
                        "cadence.builtins",
                        reason=f"no built-in plugin named {name!r}; available: {', '.join(BUILTIN_PLUGINS)}",
                    )
                )
                continue
            found.append((plugin, PluginSource("builtin", f"cadence.builtins.{name}")))
        return found, failed

    def _entry_points(self) -> tuple[list[tuple[type[BasePlugin], PluginSource]], list[PluginStatus]]:
        found: list[tuple[type[BasePlugin], PluginSource]] = []
        failed: list[PluginStatus] = []
        if not self.settings.entry_points_enabled:
            return found, failed
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            location = f"{ep.value}"
            try:
                obj = _within(self.settings.plugin_import_timeout, ep.load, key=f"entry point:{ep.value}")
                plugins = self._plugins_in(obj)
                if not plugins:
                    raise TypeError(
                        self._unimplemented_in(obj)
                        or f"entry point {ep.name!r} is not a BasePlugin subclass or a module with one"
                    )
                found.extend((p, PluginSource("entry_point", location)) for p in plugins)
            except BaseException as exc:  # SystemExit at import included: one plugin never stops the app
                reraise_cancellation(exc)
                failed.append(
                    PluginStatus(ep.name, "failed", "entry_point", location, reason=_import_fault(exc))
                )
        return found, failed

    def _directories(self) -> tuple[list[tuple[type[BasePlugin], PluginSource]], list[PluginStatus]]:
        found: list[tuple[type[BasePlugin], PluginSource]] = []
        failed: list[PluginStatus] = []
        for directory in self.settings.plugins_dir:
            directory = Path(directory).expanduser()
            if not directory.is_dir():
                failed.append(
                    PluginStatus(
                        directory.name,
                        "failed",
                        "directory",
                        str(directory),
                        reason="plugin directory does not exist or is not a folder",
                    )
                )
                continue
            for entry in sorted(directory.iterdir()):
                if entry.name.startswith((".", "_")):
                    continue
                if entry.is_dir() and (entry / "__init__.py").is_file():
                    target = entry / "__init__.py"
                elif entry.is_file() and entry.suffix == ".py":
                    target = entry
                else:
                    continue
                try:
                    name = entry.stem if entry.is_file() else entry.name
                    module = _within(
                        self.settings.plugin_import_timeout,
                        functools.partial(self._import_path, name, target),
                        key=f"import:{target.resolve()}",
                    )
                    plugins = self._plugins_in(module)
                    if not plugins:
                        raise TypeError(
                            self._unimplemented_in(module)
                            or "defines no BasePlugin subclass (subclass cadence.sdk.BasePlugin)"
                        )
                    found.extend((p, PluginSource("directory", str(entry))) for p in plugins)
                except BaseException as exc:  # SystemExit at import included
                    reraise_cancellation(exc)
                    logger.debug(
                        "plugin import failed", extra={"path": str(entry), "tb": traceback.format_exc()}
                    )
                    failed.append(
                        PluginStatus(
                            entry.stem,
                            "failed",
                            "directory",
                            str(entry),
                            reason=f"failed to import: {_import_fault(exc)}",
                        )
                    )
        return found, failed

    def _registered(self) -> tuple[list[tuple[type[BasePlugin], PluginSource]], list[PluginStatus]]:
        plugins = [*registered_plugins(), *self.extra_plugins]
        return [(p, PluginSource("registered", f"{p.__module__}.{p.__qualname__}")) for p in plugins], []

    # -- markdown agents -----------------------------------------------------------------
    def _markdown_agents(
        self,
        loaded: dict[str, tuple[PluginBundle, PluginStatus]],
        statuses: list[PluginStatus],
        disabled: set[str],
    ) -> None:
        """Load the Markdown agents into ``loaded``; every skipped file gets a status with its reason."""
        from cadence.plugins import markdown

        directories = list(self.settings.agents_dir)
        packaged: list[Path] = []
        if self.settings.entry_points_enabled:
            try:
                packaged, broken = markdown.packaged_agent_dirs()
            except BaseException as exc:  # e.g. unreadable distribution metadata
                reraise_cancellation(exc)
                broken = [(markdown.AGENTS_ENTRY_POINT_GROUP, "entry points", load_fault(exc))]
            for name, location, reason in broken:
                statuses.append(PluginStatus(name, "failed", "markdown", location, reason=reason))
        files, missing = markdown.agent_files([*directories, *packaged])
        for directory, reason in missing:
            statuses.append(PluginStatus(directory.name, "failed", "markdown", str(directory), reason=reason))
        if not files:
            return
        catalog = markdown.ToolCatalog(
            ((name, pair[0].agent, pair[0].tools) for name, pair in sorted(loaded.items())),
            lambda: self._unloaded_builtin_agents(set(loaded), disabled),
        )
        for path in files:
            status = PluginStatus(path.stem, "failed", "markdown", str(path))
            statuses.append(status)
            try:
                defn = markdown.parse_agent_file(path)
                status.name = normalize_name(defn.name)
                plugin = markdown.plugin_class(defn, catalog)
                metadata = plugin.get_metadata()
                status.name, status.version = metadata.normalized_name, metadata.version
                status.description = metadata.description
                taken = loaded.get(metadata.normalized_name)
                if taken is not None:
                    raise markdown.MarkdownAgentError(
                        path,
                        defn.line_of("name"),
                        f"the name {metadata.name!r} is already taken by the {taken[1].source} plugin "
                        f"{taken[0].name!r} ({taken[1].location}); give this agent another name",
                    )
            except markdown.MarkdownAgentError as exc:
                status.reason = f"line {exc.line}: {exc.problem}" if exc.line else exc.problem
                continue
            except BaseException as exc:
                reraise_cancellation(exc)
                status.reason = load_fault(exc)
                continue
            bundle, result = self._load_one(plugin, PluginSource("markdown", str(path)), disabled)
            status.status, status.reason, status.health = result.status, result.reason, result.health
            if bundle is not None:
                loaded[bundle.name] = (bundle, status)

    def _unloaded_builtin_agents(self, loaded: set[str], disabled: set[str]) -> list[tuple[str, Any]]:
        """Agents of the built-in plugins not loaded as agents (their tools are still available by name)."""
        try:
            from cadence.builtins import BUILTIN_PLUGINS
        except Exception:
            return []
        agents = []
        for name, plugin in BUILTIN_PLUGINS.items():
            if name in loaded or name in disabled:
                continue
            try:
                agents.append((name, plugin.create_agent()))
            except Exception as exc:
                logger.warning("built-in agent unavailable", extra={"plugin": name, "error": str(exc)})
        return agents

    # -- helpers -----------------------------------------------------------------------
    @staticmethod
    def _import_path(name: str, path: Path) -> ModuleType:
        digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:10]
        module_name = f"cadence_plugin_{normalize_name(name)}_{digest}"
        sys.modules.pop(module_name, None)
        spec = importlib.util.spec_from_file_location(
            module_name,
            path,
            submodule_search_locations=[str(path.parent)] if path.name == "__init__.py" else None,
        )
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(module_name, None)
            raise
        return module

    @staticmethod
    def _plugins_in(obj: Any) -> list[type[BasePlugin]]:
        if inspect.isclass(obj) and issubclass(obj, BasePlugin):
            return [obj]
        if isinstance(obj, ModuleType):
            return [
                value
                for value in vars(obj).values()
                if inspect.isclass(value)
                and issubclass(value, BasePlugin)
                and value is not BasePlugin
                and value.__module__ == obj.__name__
                and not inspect.isabstract(value)
            ]
        return []

    @staticmethod
    def _unimplemented_in(module: Any) -> str | None:
        """What the module's own BasePlugin subclasses leave unimplemented (a misspelt ``get_metadata``
        makes a plugin abstract, so it is not taken for one), or ``None``."""
        if not isinstance(module, ModuleType):
            return None
        missing = [
            missing_methods(value)
            for value in vars(module).values()
            if inspect.isclass(value)
            and issubclass(value, BasePlugin)
            and value is not BasePlugin
            and value.__module__ == module.__name__
        ]
        return "; ".join(m for m in missing if m) or None

    def _load_one(
        self, plugin: type[BasePlugin], source: PluginSource, disabled: set[str]
    ) -> tuple[PluginBundle | None, PluginStatus]:
        status = PluginStatus(plugin.__name__, "failed", source.kind, source.location)
        missing = missing_methods(plugin)  # its class methods would answer None, not say what is wrong
        if missing:
            status.reason = missing
            return None, status
        try:
            metadata = plugin.get_metadata()
            if not isinstance(metadata, PluginMetadata):
                raise TypeError(f"get_metadata() must return PluginMetadata, got {type(metadata).__name__}")
        except BaseException as exc:
            reraise_cancellation(exc)
            status.reason = load_fault(exc)
            return None, status
        status.name = metadata.normalized_name
        status.version = metadata.version
        status.description = metadata.description
        if metadata.normalized_name in disabled:
            status.status = "disabled"
            status.reason = "disabled by CADENCE_DISABLED_PLUGINS"
            return None, status
        try:
            try:
                problems, health = _within(self.settings.plugin_check_timeout, lambda: _checks(plugin))
            except PluginChecksTimeoutError as exc:
                status.reason = f"dependency and health checks: {exc.message}"
                return None, status
            if problems:
                status.reason = "dependencies: " + "; ".join(problems)
                return None, status
            if not health.get("healthy", False):
                status.reason = f"health check failed: {health.get('details') or 'unhealthy'}"
                return None, status
            bundle = PluginBundle(
                plugin,
                metadata,
                source,
                max_threads=self.settings.plugin_max_threads,
                inline_tool_max_ms=self.settings.inline_tool_max_ms,
            )
        except BaseException as exc:
            reraise_cancellation(exc)
            status.reason = load_fault(exc)
            return None, status
        status.health = str(health.get("details") or "ok")  # a plugin that failed after its check shows none
        status.status = "loaded"
        return bundle, status

    @staticmethod
    def _resolve(
        a: tuple[PluginBundle, PluginStatus], b: tuple[PluginBundle, PluginStatus]
    ) -> tuple[tuple[PluginBundle, PluginStatus], tuple[PluginBundle, PluginStatus]]:
        def key(pair: tuple[PluginBundle, PluginStatus]) -> tuple[Any, ...]:
            return (pair[0].metadata.version_key(), _SOURCE_RANK.get(pair[1].source, 0))

        return (a, b) if key(a) >= key(b) else (b, a)
