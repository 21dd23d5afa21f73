"""The Cadence plugin SDK: everything a plugin author imports.

See docs/plugins.md for a complete example plugin.
"""

from cadence.sdk.agent import BaseAgent, with_back_call
from cadence.sdk.approval import APPROVAL_METADATA_KEY, ApprovalPolicy, requires_approval
from cadence.sdk.events import emit
from cadence.sdk.memory import VOLATILE_METADATA_KEY, is_volatile, volatile
from cadence.sdk.metadata import AgentType, LLMRequirements, PluginMetadata, normalize_name
from cadence.sdk.plugin import BasePlugin, register_plugin, registered_plugins, unregister_plugin
from cadence.sdk.quick import INLINE_METADATA_KEY, inline, is_inline
from cadence.sdk.routing import (
    ARGUMENTS_METADATA_KEY,
    READS_METADATA_KEY,
    ROUTE_TEXT_METADATA_KEY,
    SURELY,
    ArgumentReader,
    Reader,
    Reading,
    argument_reader_of,
    may_read,
    reader_of,
    reads,
    reads_arguments,
    route_text,
    routing_text,
)
from cadence.sdk.tools import BACK_TOOL_NAME, ToolException, tool

__all__ = [
    "APPROVAL_METADATA_KEY",
    "ARGUMENTS_METADATA_KEY",
    "BACK_TOOL_NAME",
    "INLINE_METADATA_KEY",
    "READS_METADATA_KEY",
    "ROUTE_TEXT_METADATA_KEY",
    "SURELY",
    "VOLATILE_METADATA_KEY",
    "AgentType",
    "ApprovalPolicy",
    "ArgumentReader",
    "BaseAgent",
    "BasePlugin",
    "LLMRequirements",
    "PluginMetadata",
    "Reader",
    "Reading",
    "ToolException",
    "argument_reader_of",
    "emit",
    "inline",
    "is_inline",
    "is_volatile",
    "may_read",
    "normalize_name",
    "reader_of",
    "reads",
    "reads_arguments",
    "register_plugin",
    "registered_plugins",
    "requires_approval",
    "route_text",
    "routing_text",
    "tool",
    "unregister_plugin",
    "volatile",
    "with_back_call",
]
