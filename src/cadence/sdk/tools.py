"""The ``tool`` decorator of the plugin SDK: plain LangChain tools.

``@tool`` is LangChain's own decorator, re-exported so plugin authors need one
import; the tools it yields are ordinary ``BaseTool`` objects.
"""

from __future__ import annotations

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from langchain_core.tools import tool as _lc_tool

tool = _lc_tool

BACK_TOOL_NAME = "back"
"""The automatic tool that returns control from an agent to the coordinator."""
UNREADABLE_ARGUMENTS_KEY = "cadence_unreadable_arguments"
"""A tool call whose arguments the model wrote unreadably (not a JSON object) carries only this key in
its ``args``: why they could not be read. The tools step answers it with an error instead of running the
tool, so the model reads what went wrong and can call again (see :func:`cadence.sdk.with_back_call`)."""
CONTROL_METADATA_KEY = "cadence_control"
"""``tool.metadata[CONTROL_METADATA_KEY]`` is True on the tools that steer the graph (routes and ``back``)."""


def make_back_tool() -> BaseTool:
    """The automatic ``back`` tool every plugin bundle gets: returns control to the coordinator."""

    def back() -> str:
        """Return control back to the coordinator."""
        return "back"

    async def aback() -> str:
        """Return control back to the coordinator."""
        return "back"

    return StructuredTool.from_function(
        back, coroutine=aback, name=BACK_TOOL_NAME, metadata={CONTROL_METADATA_KEY: True}
    )


__all__ = ["BACK_TOOL_NAME", "CONTROL_METADATA_KEY", "BaseTool", "ToolException", "make_back_tool", "tool"]
