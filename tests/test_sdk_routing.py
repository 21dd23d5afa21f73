"""A tool's routing text (``cadence.sdk.route_text``): chosen by many words, described to providers in few."""

from __future__ import annotations

import json

import pytest
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from cadence.builtins.math import MATH_TOOLS, calculate
from cadence.models.preroute import PreRouter, routing_schema, tool_name
from cadence.plugins.containment import PluginThreadPool, run_tool_in_pool
from cadence.sdk import ROUTE_TEXT_METADATA_KEY, inline, is_inline, route_text, routing_text, tool


def _make() -> BaseTool:
    @route_text("Convert money between currencies: dollars, euros, pounds, yen; exchange rates.")
    @tool
    def exchange(text: str) -> str:
        """Convert an amount of money."""
        return text

    return exchange


def test_route_text_rides_in_the_metadata_and_only_the_in_process_schema_shows_it() -> None:
    t = _make()
    assert t.metadata[ROUTE_TEXT_METADATA_KEY].startswith("Convert money between currencies")
    assert routing_text(t) == t.metadata[ROUTE_TEXT_METADATA_KEY]
    assert convert_to_openai_tool(t)["function"]["description"] == "Convert an amount of money."
    assert "euros" in routing_schema(t)["function"]["description"]


def test_a_tool_without_route_text_is_chosen_by_its_description() -> None:
    @tool
    def plain(text: str) -> str:
        """Say it plainly."""
        return text

    assert routing_text(plain) == "Say it plainly."
    assert routing_schema(plain) == convert_to_openai_tool(plain)


def test_route_text_keeps_other_marks_and_normalises_whitespace() -> None:
    @inline
    @route_text("Many\n   words\tfor routing.")
    @tool
    def quick(text: str) -> str:
        """Quick."""
        return text

    assert is_inline(quick)
    assert routing_text(quick) == "Many words for routing."


def test_route_text_refuses_what_it_cannot_mark() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        route_text("  ")
    with pytest.raises(TypeError, match="apply it above @tool"):
        route_text("words")(lambda x: x)  # type: ignore[type-var]


def test_the_calculator_is_short_for_providers_and_chosen_by_its_phrasings() -> None:
    provider = json.dumps(convert_to_openai_tool(calculate))
    in_process = routing_schema(calculate)
    assert len(provider) < 1000 < len(json.dumps(in_process))
    # the phrasings the embedded model chooses by are in the routing text only
    assert "split" in in_process["function"]["description"]
    assert "hectares" in in_process["function"]["description"]
    assert "hectares" not in provider
    router = PreRouter.from_tool_schemas([routing_schema(t) for t in MATH_TOOLS])
    assert router.shortlist("how many hectares is 5 acres", ignore_shared=True)[:1] == ["calculate"]
    assert [tool_name(in_process)] == ["calculate"]


def test_a_pooled_tool_keeps_its_metadata() -> None:
    class Slow(BaseTool):
        name: str = "slow"
        description: str = "A slow tool."

        def _run(self, text: str) -> str:
            return text

    slow = route_text("Slow words.")(Slow())
    bound = run_tool_in_pool(slow, PluginThreadPool("p", 1))
    assert bound is not slow
    assert routing_text(bound) == "Slow words."
