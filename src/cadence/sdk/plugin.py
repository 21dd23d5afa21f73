"""BasePlugin and ``register_plugin``: what a plugin package exposes."""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from types import ModuleType
from typing import Any, TypeVar

from cadence.sdk.abstract import missing_methods, warn_misspelt_hooks
from cadence.sdk.agent import BaseAgent
from cadence.sdk.metadata import PluginMetadata


class BasePlugin(ABC):
    """A Cadence plugin: metadata plus a factory for its agent.

    Plugins are discovered from the ``cadence.plugins`` entry point group, from
    plugin directories, or registered in code with :func:`register_plugin`.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse a plugin hook written as an instance method: Cadence calls them on the class."""
        super().__init_subclass__(**kwargs)
        for name in _CLASS_HOOKS:
            if inspect.isfunction(vars(cls).get(name)):
                raise TypeError(
                    f"{cls.__name__}.{name} must be a class method: put @classmethod above it "
                    f"(def {name}(cls) ...); Cadence calls it on the class, never on an instance"
                )
        warn_misspelt_hooks(cls, _CLASS_HOOKS)

    @classmethod
    @abstractmethod
    def get_metadata(cls) -> PluginMetadata:
        """The plugin's validated metadata."""

    @classmethod
    @abstractmethod
    def create_agent(cls) -> BaseAgent:
        """A new agent for this plugin."""

    @classmethod
    def validate_dependencies(cls) -> list[str]:
        """Problems with the plugin's dependencies (an empty list when all is well).

        The default reads every entry of ``metadata.dependencies`` as a pip requirement
        (``"httpx>=0.27"``, ``"pywin32; sys_platform == 'win32'"``): one whose environment marker does
        not apply here is skipped; otherwise the distribution must be installed, in a version the
        requirement allows.
        """
        from importlib.metadata import PackageNotFoundError, version

        from packaging.requirements import InvalidRequirement, Requirement

        errors: list[str] = []
        for dep in cls.get_metadata().dependencies:
            try:
                requirement = Requirement(dep)
            except InvalidRequirement as exc:
                errors.append(f"dependency {dep!r} is not a valid requirement ({exc})")
                continue
            if requirement.marker is not None and not requirement.marker.evaluate():
                continue  # not for this platform or Python
            try:
                installed = version(requirement.name)
            except PackageNotFoundError:
                errors.append(f"missing dependency {dep!r} (pip install '{dep}')")
                continue
            if requirement.specifier and not requirement.specifier.contains(installed, prereleases=True):
                errors.append(f"dependency {dep!r}: version {installed} is installed (pip install '{dep}')")
        return errors

    @classmethod
    def health_check(cls) -> dict[str, Any]:
        """``{"healthy": bool, "details": str}``; an unhealthy plugin is skipped at load."""
        return {"healthy": True, "details": "ok"}


_CLASS_HOOKS = ("get_metadata", "create_agent", "validate_dependencies", "health_check")
"""The methods of :class:`BasePlugin` a plugin overrides, all class methods."""

_REGISTRY: dict[str, type[BasePlugin]] = {}

P = TypeVar("P", bound=type[BasePlugin])


def check_plugin_class(obj: Any, where: str) -> type[BasePlugin]:
    """``obj`` when it is a ``BasePlugin`` subclass; else a ``TypeError`` saying what ``where`` was given
    instead (an instance, a module, an agent class) and what it takes."""
    if isinstance(obj, type) and issubclass(obj, BasePlugin):
        return obj
    if isinstance(obj, BasePlugin):
        given = f"an instance of {type(obj).__name__}; pass the class itself"
    elif isinstance(obj, type) and issubclass(obj, BaseAgent):
        given = f"the agent class {obj.__name__}; pass the plugin class whose create_agent makes it"
    elif isinstance(obj, ModuleType):
        given = f"the module {obj.__name__}; pass its plugin class"
    else:
        given = repr(obj)
    raise TypeError(f"{where} takes BasePlugin subclasses, got {given}")


def register_plugin(plugin: P) -> P:
    """Register a plugin class (usable as a decorator); the plugin manager picks it up.

    Raises ``TypeError`` for anything but a ``BasePlugin`` subclass that implements its methods.
    """
    check_plugin_class(plugin, "register_plugin")
    missing = missing_methods(plugin)
    if missing:
        raise TypeError(f"{missing}; a BasePlugin implements get_metadata and create_agent (class methods)")
    _REGISTRY[f"{plugin.__module__}.{plugin.__qualname__}"] = plugin
    return plugin


def registered_plugins() -> list[type[BasePlugin]]:
    """Plugin classes registered with :func:`register_plugin`, in registration order."""
    return list(_REGISTRY.values())


def unregister_plugin(plugin: type[BasePlugin]) -> None:
    """Remove a plugin class from the registry (tests and reloads)."""
    _REGISTRY.pop(f"{plugin.__module__}.{plugin.__qualname__}", None)
