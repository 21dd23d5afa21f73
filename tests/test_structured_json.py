"""Prompt-mode structured replies: the JSON object is found fenced, bare or wrapped in prose."""

from __future__ import annotations

import pytest

from cadence.orchestration.structured import extract_json


@pytest.mark.parametrize(
    ("reply", "data"),
    [
        ('```json\n{"answer": "4"}\n```', {"answer": "4"}),
        ('Here it is: ```json {"answer": "4", "n": 1} ``` hope it helps', {"answer": "4", "n": 1}),
        ('{"answer": "a } inside"}', {"answer": "a } inside"}),
        ('Sure! {"answer": "4", "parts": {"a": 1}} Anything else?', {"answer": "4", "parts": {"a": 1}}),
    ],
)
def test_the_object_is_found(reply: str, data: dict) -> None:
    assert extract_json(reply) == data


@pytest.mark.parametrize("reply", ["no JSON here", "[1, 2]", "} backwards {"])
def test_no_object_is_a_value_error(reply: str) -> None:
    with pytest.raises(ValueError):
        extract_json(reply)
