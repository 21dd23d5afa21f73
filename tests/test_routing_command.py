"""Routing tools route by LangGraph ``Command``; control tools are marked by metadata."""

from __future__ import annotations

import pytest
from langchain_core.messages import ToolMessage
from langgraph.types import Command

from cadence.orchestration.control_tools import is_control_tool_object, make_routing_tools
from cadence.orchestration.coordinator import bind_routes
from cadence.sdk import tool
from cadence.sdk.metadata import PluginMetadata
from cadence.sdk.tools import make_back_tool
from cadence.testing import ScriptedChatModel

MATH = PluginMetadata(name="math", version="1", description="Calculator for numbers and percentages")


async def test_a_route_answers_its_call_and_names_the_next_node() -> None:
    route, finalize = make_routing_tools([MATH])
    call = {"name": route.name, "args": {}, "id": "call_1", "type": "tool_call"}
    command = await route.ainvoke(call)
    assert isinstance(command, Command)
    assert command.goto == "math_agent"
    [message] = command.update["messages"]
    assert isinstance(message, ToolMessage)
    assert (message.content, message.name, message.tool_call_id) == ("math", "goto_math_agent", "call_1")
    done = finalize.invoke({"name": finalize.name, "args": {}, "id": "call_2", "type": "tool_call"})
    assert done.goto == "synthesizer" and done.update["messages"][0].content == "finalize"


def test_control_tools_are_marked_by_metadata_not_by_name() -> None:
    assert all(is_control_tool_object(t) for t in make_routing_tools([MATH]))

    @tool
    def goto_market(city: str) -> str:
        """A work tool whose name merely starts like a route."""
        return city

    assert not is_control_tool_object(goto_market)
    assert is_control_tool_object(make_back_tool())


def test_parallel_tool_calls_are_turned_off_where_the_provider_supports_it() -> None:
    openai = pytest.importorskip("langchain_openai")
    tools = make_routing_tools([MATH])
    official = bind_routes(openai.ChatOpenAI(model="gpt-4o-mini", api_key="sk-test"), tools)
    assert official.kwargs["parallel_tool_calls"] is False
    self_hosted = openai.ChatOpenAI(model="m", api_key="sk-test", base_url="http://127.0.0.1:9/v1")
    assert "parallel_tool_calls" not in bind_routes(self_hosted, tools).kwargs
    scripted = bind_routes(ScriptedChatModel.from_items([]), tools)  # no such flag: bound as before
    assert "parallel_tool_calls" not in getattr(scripted, "kwargs", {})
