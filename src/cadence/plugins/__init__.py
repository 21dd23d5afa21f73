"""Plugin management: discovery, validation, conflict resolution and bundles."""

from cadence.plugins.bundle import PluginBundle, PluginSource
from cadence.plugins.manager import ENTRY_POINT_GROUP, PluginManager, PluginStatus

__all__ = ["ENTRY_POINT_GROUP", "PluginBundle", "PluginManager", "PluginSource", "PluginStatus"]
