"""The model factory (spec parsing, errors, caching, overrides) and the lexical pre-router."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cadence.errors import ModelConfigurationError
from cadence.models.factory import ModelFactory, parse_model_spec
from cadence.models.preroute import NUMBER_TOKEN, PreRouter, RouteCandidate, stem, tokenize
from cadence.sdk.metadata import LLMRequirements, PluginMetadata
from cadence.settings import Settings
from cadence.testing import ScriptedChatModel

# --- parsing -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("openai:gpt-4.1-mini", ("openai", "gpt-4.1-mini")),
        ("anthropic:claude-sonnet-4-5", ("anthropic", "claude-sonnet-4-5")),
        ("google:gemini-2.5-flash", ("google", "gemini-2.5-flash")),
        ("ollama:qwen2.5:7b", ("ollama", "qwen2.5:7b")),
        ("openai-compatible:my-model", ("openai-compatible", "my-model")),
        ("local", ("local", "")),
        ("local:/models/x.gguf", ("local", "/models/x.gguf")),
        ("scripted:/tmp/s.json", ("scripted", "/tmp/s.json")),
        ("  OpenAI:gpt-4o ", ("openai", "gpt-4o")),
    ],
)
def test_parse_model_spec(spec: str, expected: tuple[str, str]) -> None:
    assert parse_model_spec(spec) == expected


@pytest.mark.parametrize("spec", ["gpt-4o", "foo:bar", "", "openai:", "ollama"])
def test_parse_model_spec_rejects_bad_specs_in_one_line(spec: str) -> None:
    with pytest.raises(ModelConfigurationError) as info:
        parse_model_spec(spec)
    message = str(info.value)
    assert "\n" not in message
    assert "openai:<model>" in message and "local" in message


# --- errors --------------------------------------------------------------------------


def test_missing_openai_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("langchain_openai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ModelConfigurationError, match="OPENAI_API_KEY") as info:
        ModelFactory(Settings(llm="openai:gpt-4.1-mini")).get("coordinator")
    assert "\n" not in str(info.value)


def test_missing_integration_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def fake_import(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith("langchain_anthropic"):
            raise ImportError("No module named 'langchain_anthropic'")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", fake_import)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    with pytest.raises(ModelConfigurationError, match=r'pip install "cadence-agents\[anthropic\]"') as info:
        ModelFactory(Settings(llm="anthropic:claude-x")).get("agent")
    assert "\n" not in str(info.value)


def test_openai_compatible_requires_base_url() -> None:
    pytest.importorskip("langchain_openai")
    with pytest.raises(ModelConfigurationError, match="CADENCE_LLM_BASE_URL"):
        ModelFactory(Settings(llm="openai-compatible:m")).get("agent")


def test_openai_clients_get_timeout_and_no_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("langchain_openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    settings = Settings(llm="openai:gpt-4.1-mini", model_timeout=12.5, max_tokens=77)
    model = ModelFactory(settings).get("agent")
    assert model.max_retries == 0  # type: ignore[attr-defined]
    assert model.request_timeout.read == 12.5  # type: ignore[attr-defined]
    assert model.request_timeout.connect == settings.model_connect_timeout  # type: ignore[attr-defined]
    assert model.max_tokens == 77  # type: ignore[attr-defined]

    compat = ModelFactory(
        Settings(llm="openai-compatible:llama3", llm_base_url="http://localhost:9999/v1")
    ).get("agent")
    assert compat.openai_api_base == "http://localhost:9999/v1"  # type: ignore[attr-defined]
    assert compat.openai_api_key.get_secret_value() == "not-needed"  # type: ignore[attr-defined]


def test_missing_script_file_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ModelConfigurationError, match="no script file"):
        ModelFactory(Settings(llm=f"scripted:{tmp_path / 'missing.json'}")).get("coordinator")


def test_local_model_path_must_exist(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    with pytest.raises(ModelConfigurationError, match="No GGUF model file"):
        ModelFactory(Settings(llm=f"local:{tmp_path / 'nope.gguf'}")).get("agent")


# --- caching and overrides -----------------------------------------------------------


def _script(tmp_path: Path) -> Path:
    path = tmp_path / "script.json"
    path.write_text(
        json.dumps([{"content": "one"}, {"content": "two"}, {"content": "three"}]), encoding="utf-8"
    )
    return path


def test_scripted_model_is_one_shared_instance_across_roles(tmp_path: Path) -> None:
    path = _script(tmp_path)
    factory = ModelFactory(Settings(llm=f"scripted:{path}"))
    models = {
        id(factory.get("coordinator")),
        id(factory.get("synthesizer")),
        id(factory.get("suspend")),
        id(factory.get("agent")),
    }
    assert len(models) == 1
    model = factory.get("coordinator")
    assert isinstance(model, ScriptedChatModel)
    assert model.invoke("a").content == "one"
    assert factory.get("synthesizer").invoke("b").content == "two"
    assert factory.get("agent").invoke("c").content == "three"


def test_same_spec_and_params_share_an_instance(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("langchain_openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    settings = Settings(llm="openai:gpt-4.1-mini", coordinator_temperature=0.0, temperature=0.0)
    factory = ModelFactory(settings)
    assert factory.get("coordinator") is factory.get("agent")
    # the synthesizer's default temperature (0.3) differs -> its own instance
    assert factory.get("synthesizer") is not factory.get("agent")
    assert factory.get("synthesizer") is factory.get("suspend")


def test_role_overrides(tmp_path: Path) -> None:
    settings = Settings(
        llm="openai:base",
        temperature=0.1,
        max_tokens=100,
        coordinator_llm="anthropic:router",
        coordinator_temperature=0.0,
        coordinator_max_tokens=20,
        synthesizer_llm=f"scripted:{_script(tmp_path)}",
        synthesizer_temperature=0.7,
    )
    factory = ModelFactory(settings)
    coordinator = factory.params("coordinator")
    assert (coordinator.spec, coordinator.temperature, coordinator.max_tokens) == (
        "anthropic:router",
        0.0,
        20,
    )
    synth = factory.params("synthesizer")
    assert (synth.spec, synth.temperature, synth.max_tokens) == (settings.synthesizer_llm, 0.7, None)
    assert factory.params("suspend").spec == "openai:base"
    agent = factory.params("agent")
    assert (agent.spec, agent.temperature, agent.max_tokens) == ("openai:base", 0.1, 100)
    assert isinstance(factory.get("synthesizer"), ScriptedChatModel)


def test_plugin_llm_requirements_override_the_agent_model() -> None:
    settings = Settings(llm="openai:base", temperature=0.1, max_tokens=100)
    plugin = PluginMetadata(
        name="weather",
        version="1.0.0",
        description="Weather forecasts for any city.",
        llm_requirements=LLMRequirements(model="ollama:qwen2.5:7b", temperature=0.5, max_tokens=300),
    )
    partial = PluginMetadata(
        name="news",
        version="1.0.0",
        description="Latest news headlines.",
        llm_requirements=LLMRequirements(temperature=0.9),
    )
    factory = ModelFactory(settings)
    p = factory.params("agent", plugin)
    assert (p.spec, p.temperature, p.max_tokens) == ("ollama:qwen2.5:7b", 0.5, 300)
    q = factory.params("agent", partial)
    assert (q.spec, q.temperature, q.max_tokens) == ("openai:base", 0.9, 100)


def test_ollama_model_with_colon_and_base_url() -> None:
    pytest.importorskip("langchain_ollama")
    settings = Settings(llm="ollama:qwen2.5:7b", llm_base_url="http://gpu:11434")
    model = ModelFactory(settings).get("agent")
    assert model.model == "qwen2.5:7b"  # type: ignore[attr-defined]
    assert model.base_url == "http://gpu:11434"  # type: ignore[attr-defined]


# --- pre-router ----------------------------------------------------------------------

MATH = PluginMetadata(
    name="math",
    version="1.0.0",
    description="Calculator agent: evaluates arithmetic expressions (+ - * / powers, roots), percentages "
    "and statistics of lists of numbers.",
    capabilities=["arithmetic and calculations", "percentages, percent of a value", "average of numbers"],
)
INFO = PluginMetadata(
    name="info",
    version="1.0.0",
    description="World clock agent: tells the current date and time in any city or time zone.",
    capabilities=["current time in a city", "what day it is today", "time difference between two cities"],
)
DOCS = PluginMetadata(
    name="docs",
    version="1.0.0",
    description="Documentation agent: searches the documentation about installing, configuring and "
    "writing plugins.",
    capabilities=["search the documentation", "how to write a plugin"],
)


def test_tokenize_normalises_symbols_numbers_and_suffixes() -> None:
    assert tokenize("What is 15% of 80?") == [NUMBER_TOKEN, "percent", NUMBER_TOKEN]
    assert tokenize("2+2") == [NUMBER_TOKEN, "plus", NUMBER_TOKEN]
    assert tokenize("twelve times twelve") == [NUMBER_TOKEN, stem("multiply"), NUMBER_TOKEN]
    assert tokenize("and times 4?") == [stem("multiply"), NUMBER_TOKEN]  # not "time"
    assert tokenize("how many times") == [stem("times")]  # "many" asks, it names no topic
    # a message opening with "now" moves on; the present time is "now" elsewhere
    assert tokenize("Now multiply that by 3.") == [stem("multiply"), NUMBER_TOKEN]
    assert tokenize("OK, now divide it by 2") == [stem("divide"), NUMBER_TOKEN]
    assert stem("now") in tokenize("What time is it now?")
    assert stem("now") in tokenize("now?")
    assert tokenize("50 - 8") == [NUMBER_TOKEN, "minus", NUMBER_TOKEN]
    assert "minus" not in tokenize("a well-known tool")
    assert stem("numbers") == NUMBER_TOKEN  # a number in a question matches "numbers" in a description
    assert NUMBER_TOKEN not in tokenize("e.g. 50 -> 75", digits=False)
    assert stem("divided") == stem("divide") and stem("squared") == stem("square")
    assert stem("multiplied") == stem("multiply") == stem("multiplies")
    assert stem("calculations").startswith("calcul")
    assert stem("percentages") == stem("percentage")
    assert stem("boxes") == "box"
    assert stem("cities") == "city"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Calculate 15 * 23", "goto_math_agent"),
        ("What is 2+2?", "goto_math_agent"),
        ("What's 15% of 80?", "goto_math_agent"),
        ("What time is it in Tokyo?", "goto_info_agent"),
        ("what day is it today", "goto_info_agent"),
        ("How do I write a plugin?", "goto_docs_agent"),
    ],
)
def test_preroute_ranks_the_right_plugin_first(question: str, expected: str) -> None:
    router = PreRouter.from_metadata([MATH, INFO, DOCS])
    ranked = router.rank(question)
    assert ranked[0].name == expected
    assert ranked[0].score > 0
    assert router.shortlist(question) == [expected]


def test_how_many_says_nothing_about_the_route() -> None:
    clock = PluginMetadata(
        name="info", version="1.0.0", description="World clock agent.",
        capabilities=["how many hours ahead or behind a city is"],
    )  # fmt: skip
    router = PreRouter.from_metadata([MATH, clock])
    assert router.shortlist("I have 48 cookies and eat 9, how many are left?") == ["goto_math_agent"]
    assert router.shortlist("how many hours ahead is Tokyo") == ["goto_info_agent"]


def test_preroute_without_overlap_gives_an_empty_shortlist() -> None:
    router = PreRouter.from_metadata([MATH, INFO, DOCS])
    assert router.shortlist("hello there!") == []
    assert all(r.score == 0 for r in router.rank("hello there!"))


def test_preroute_over_tool_schemas_uses_the_routing_text() -> None:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from cadence.models.preroute import routing_schema
    from cadence.orchestration.control_tools import make_routing_tools

    tools = make_routing_tools([MATH, INFO, DOCS])
    # providers get one short line per route; the local model binds the full routing text
    sent = [convert_to_openai_tool(t)["function"]["description"] for t in tools]
    assert sent[0] == "Hand the conversation to the math agent."
    schemas = [routing_schema(t) for t in tools]
    assert MATH.description in schemas[0]["function"]["description"]
    router = PreRouter.from_tool_schemas(schemas)
    assert router.rank("What time is it in Tokyo?")[0].name == "goto_info_agent"
    assert router.rank("Calculate 15 * 23")[0].name == "goto_math_agent"
    # goto_finalize is just another candidate; it does not win on generic words
    assert router.rank("Calculate 15 * 23")[0].name != "goto_finalize"


def test_preroute_numbers_alone_never_outrank_a_word() -> None:
    router = PreRouter(
        [
            RouteCandidate("stats", "Summary statistics of a list of numbers"),
            RouteCandidate("calc", "Arithmetic: plus, minus, take away, half"),
        ]
    )
    ranked = router.rank("take 20 away from 55")
    assert [r.name for r in ranked] == ["calc", "stats"]
    assert not ranked[0].number_only and ranked[1].number_only
    assert router.shortlist("take 20 away from 55", ratio=0.1) == ["calc"]
    # numbers alone still rank when no candidate matches a word
    assert router.shortlist("12, 15 and 19") == ["stats"]
    assert router.rank("hello")[0].score == 0


def test_preroute_can_ignore_terms_every_candidate_has() -> None:
    router = PreRouter(
        [
            RouteCandidate("read_doc", "Read one doc by its path", keywords=("read_doc",)),
            RouteCandidate("search_docs", "Search the docs for a topic", keywords=("search_docs",)),
        ]
    )
    assert router.shortlist("check the docs: how many hops") == ["read_doc", "search_docs"]
    assert router.shortlist("check the docs: how many hops", ignore_shared=True) == []
    assert router.shortlist("search the docs for hops", ignore_shared=True) == ["search_docs"]
    single = PreRouter([RouteCandidate("read_doc", "Read one doc")])
    assert single.shortlist("the docs", ignore_shared=True) == ["read_doc"]  # one candidate: kept


def test_route_candidate_from_metadata() -> None:
    cand = RouteCandidate.from_metadata(MATH)
    assert cand.name == "goto_math_agent"
    assert "math" in cand.document()
