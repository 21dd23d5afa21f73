"""Fewer input tokens per turn (issue 16), without taking from the embedded model what it routes by.

- Each agent's description reaches the coordinator once (its prompt); the routing tools describe
  themselves in one line, and their full routing text rides in the tool's metadata, which the
  embedded model binds back (its lexical pre-router ranks the same words as before).
- Agents are not offered the ``back`` tool: an answer without a tool call hands back.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from tests.conftest import FINALIZE, goto

from cadence.builtins.math import MathPlugin
from cadence.conventions import ROUTE_TEXT_METADATA_KEY
from cadence.models.local import LocalChatModel
from cadence.models.preroute import PreRouter, routing_schema
from cadence.orchestration.control_tools import make_routing_tools

MATH = MathPlugin.get_metadata()


def test_routing_tools_are_one_line_for_providers_and_whole_for_the_embedded_model() -> None:
    route, finalize = make_routing_tools([MATH])
    sent = convert_to_openai_tool(route)["function"]["description"]
    assert sent == "Hand the conversation to the math agent."
    text = route.metadata[ROUTE_TEXT_METADATA_KEY]
    assert MATH.description in text and all(cap in text for cap in MATH.capabilities)
    assert routing_schema(route)["function"]["description"] == text
    # any other tool (or a finished schema) is converted unchanged
    assert routing_schema(finalize) == convert_to_openai_tool(finalize)
    # the local model binds the full text, so its pre-router still finds the capability words
    bound = LocalChatModel().bind_tools([route, finalize])
    schemas = bound.kwargs["tools"]  # type: ignore[attr-defined]
    assert schemas[0]["function"]["description"] == text
    ranked = PreRouter.from_tool_schemas(schemas).rank("What is the standard deviation of 2, 4 and 9?")
    assert ranked[0].name == "goto_math_agent" and ranked[0].score > 0
    # while the one-line description alone does not carry those words
    short = PreRouter.from_tool_schemas([convert_to_openai_tool(route), convert_to_openai_tool(finalize)])
    assert all(r.score == 0 for r in short.rank("What is the standard deviation of 2, 4 and 9?"))


async def test_each_description_reaches_the_coordinator_once(engine_factory) -> None:
    engine, model = engine_factory([FINALIZE, {"content": "Hello!"}], builtin_plugins=["math", "docs"])
    await engine.ainvoke("Hello")
    first = model.records[0]
    assert first.node == "coordinator"
    prompt = str(first.messages[0].content)
    for bundle in engine.plugin_manager.bundles.values():
        description = bundle.metadata.description
        assert prompt.count(description) == 1
        assert all(description not in str(s) for s in first.tool_schemas)
        assert all(cap not in str(s) for cap in bundle.metadata.capabilities for s in first.tool_schemas)


async def test_agents_are_not_offered_back_and_a_text_answer_hands_back(engine_factory) -> None:
    engine, model = engine_factory(
        [goto("math"), {"content": "I need numbers to compute."}, FINALIZE, {"content": "Which numbers?"}],
        builtin_plugins=["math"],
    )
    result = await engine.ainvoke("Compute something")
    assert [r.node for r in model.records] == ["coordinator", "math_agent", "coordinator", "synthesizer"]
    agent_call = model.records[1]
    assert "back" not in agent_call.tools and "calculate" in agent_call.tools
    # the text answer got its back call, answered, and control went back to the coordinator
    after = model.records[2].messages
    answer = next(m for m in after if isinstance(m, AIMessage) and m.name == "math_agent")
    assert [c["name"] for c in answer.tool_calls] == ["back"]
    assert any(isinstance(m, ToolMessage) and m.tool_call_id == answer.tool_calls[0]["id"] for m in after)
    assert result.error is None
