"""Tests of the ``geo`` built-in: facts about countries and cities from the bundled GeoNames data (offline),
its reader, and the embedded model routing to it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from cadence.builtins.geo import (
    GEO_TOOLS,
    GeoPlugin,
    PlaceFactsError,
    answer,
    asked_facts,
    asks_place_fact,
    countries,
    people,
    place_facts,
)
from cadence.builtins.info import INFO_TOOLS, InfoPlugin, resolve_locations
from cadence.builtins.math import MATH_TOOLS, MathPlugin
from cadence.builtins.text_facts import asks_text_fact
from cadence.models.local import LocalChatModel
from cadence.models.local.policy import (
    in_unit_asked,
    part_for,
    parts_asked,
    places_talked_about,
    resolve_reference,
    there_place,
    with_possessive_place,
)
from cadence.orchestration.control_tools import make_routing_tools
from cadence.orchestration.coordinator import agent_readers
from cadence.sdk import SURELY, ToolException, may_read
from cadence.settings import Settings


def test_country_facts_are_read_from_the_bundled_data() -> None:
    france = countries()["FR"]
    assert (france.name, france.capital, france.continent, france.currency_code) == (
        "France", "Paris", "Europe", "EUR"
    )  # fmt: skip
    assert france.population > 60_000_000 and france.area_km2 > 500_000
    assert france.languages[0] == "French" and "Germany" in france.neighbours
    assert france.calling_code == "33" and france.domain == ".fr"


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("What is the capital of France?", "The capital of France is Paris."),
        ("What's the capital of Australia?", "The capital of Australia is Canberra."),
        ("What is the capital of the United States?", "The capital of the United States is Washington, D.C."),
        ("What currency does Japan use?", "The currency of Japan is the yen (JPY)."),
        ("What continent is Kenya in?", "Kenya is a country in Africa."),
        ("What is the calling code for India?", "The international calling code of India is +91."),
        ("What is the area code for France?", "The international calling code of France is +33."),
        ("What is the internet domain of Germany?", "The internet country domain of Germany is .de."),
        ("What are the neighbours of Japan?", "Japan borders no other country by land."),
        ("How big is Russia?", "Russia covers 17,100,000 km² (6,602,347 square miles)."),
        ("Which country is Lyon in?", "Lyon is a city in France (Europe)."),
        ("Where is Timbuktu?", "Timbuktu is a city in Mali (Africa)."),
    ],
)
def test_the_fact_asked_is_the_answer(question: str, said: str) -> None:
    assert answer(question) == said


def test_populations_are_said_with_their_source() -> None:
    said = answer("How many people live in Brazil?")
    assert said.startswith("The population of Brazil is about ") and "GeoNames" in said
    city = answer("What is the population of Tokyo?")
    assert "Tokyo is a city in Japan" in city and "The population of Tokyo is about" in city
    assert people(1_411_778_724) == "about 1.41 billion (1,411,778,724)" and people(24_782) == "24,782"


def test_several_places_and_every_fact_of_one() -> None:
    assert answer("What are the capitals of Spain and Italy?") == (
        "The capital of Spain is Madrid. The capital of Italy is Rome."
    )
    about = answer("Tell me about Canada")
    assert about.startswith(
        "Canada: a country in North America; capital Ottawa; population about 37.1 million"
    )
    for part in ("dollar (CAD)", "languages English and French", "+1", ".ca", "borders the United States"):
        assert part in about
    assert about.endswith("largest cities Toronto, Montréal and Calgary.")
    assert len(answer("Tell me about Russia")) < 600  # one sentence the embedded model gives as it is


def test_a_country_fact_asked_of_a_city_is_its_countrys() -> None:
    assert answer("What currency is used in Tokyo?") == (
        "Tokyo is a city in Japan (Asia). The currency of Japan is the yen (JPY)."
    )
    # a qualifier picks the place, and the others of that name are said
    paris = answer("What is the population of Paris, Texas?")
    assert paris.startswith("Paris is a city in Texas, the United States") and "Paris, France" in paris


def test_what_the_data_does_not_have_is_said_not_guessed() -> None:
    texas = answer("How big is Texas?")
    assert texas.startswith("Texas is part of the United States (North America).")
    assert "GeoNames has no population or area for Texas" in texas


def test_a_possessive_is_not_part_of_the_name() -> None:
    assert answer("And Peru's population?").startswith("The population of Peru is about")
    assert answer("What is Japan's capital?") == "The capital of Japan is Tokyo."


@pytest.mark.parametrize(
    ("question", "error"),
    [
        ("What is the capital of Narnia?", "No country or city found"),
        ("", "No place question given"),
        ("capital of " + "x" * 600, "too long"),
        ("What is the capital of UTC+2?", "is a time zone, not a country or city"),
    ],
)
def test_questions_without_a_place_get_an_error_saying_what_to_ask(question: str, error: str) -> None:
    with pytest.raises(PlaceFactsError, match=error):
        answer(question)


def test_the_tool_is_the_answer_and_reports_errors_as_tool_errors() -> None:
    assert place_facts.invoke({"question": "capital of Peru"}) == "The capital of Peru is Lima."
    # a ToolException: the graph reports it to the agent as the call's error, saying what to ask
    assert issubclass(PlaceFactsError, ToolException)
    with pytest.raises(ToolException, match="capital of Japan"):
        place_facts.invoke({"question": "What is the capital of Narnia?"})


def test_asked_facts_are_found_by_their_words() -> None:
    assert asked_facts("What is the capital and currency of Chile?") == ["capital", "currency"]
    assert asked_facts("Which countries border Germany?") == ["neighbours"]
    assert asked_facts("What is the capital gains tax?") == []  # a tax, not a city


@pytest.mark.parametrize(
    "text",
    [
        "What is the capital of France?",
        "How many people live in China?",
        "What language do they speak in Brazil?",
        "Where is Timbuktu?",
        "Tell me about Canada",
        "Which countries border Germany?",
    ],
)
def test_the_reader_is_sure_of_a_fact_asked_about_a_known_place(text: str) -> None:
    assert asks_place_fact(text) is SURELY


@pytest.mark.parametrize(
    "text",
    [
        "What is the area of a circle with radius 5?",
        "What is the capital gains tax?",
        "What language is Cadence written in?",
        "What is the population of the Cadence community?",
        "Who is the president of France?",  # a place, but no fact the data has
        "What time is it in Tokyo?",
        "Convert 100 USD to EUR",
        "Where is the config file?",
        "How many people live in the house?",
    ],
)
def test_the_reader_refuses_what_is_no_fact_about_a_place(text: str) -> None:
    assert not asks_place_fact(text)


def test_the_reader_takes_a_misspelt_place_the_tool_suggests_another_for() -> None:
    """ "What is the capital of Frnace?" had reached no agent: the small model answered "Frnacism"."""
    assert asks_place_fact("What is the capital of Frnace?")
    assert not asks_place_fact("What is the capital of Xyzzyq?")  # nothing close: no place


def test_an_agent_is_sure_when_one_of_its_tools_is() -> None:
    agent = may_read([*GEO_TOOLS, *INFO_TOOLS])
    assert agent is not None
    assert agent("Where is Timbuktu?") is SURELY
    assert agent("What time is it in Tokyo?") is True


def _routes() -> list[Any]:
    plugins = [MathPlugin.get_metadata(), InfoPlugin.get_metadata(), GeoPlugin.get_metadata()]
    readers = agent_readers({"math": MATH_TOOLS, "info": INFO_TOOLS, "geo": GEO_TOOLS})
    return make_routing_tools(plugins, readers=readers)


def _route(model: LocalChatModel, messages: list[Any]) -> list[str]:
    bound = model.bind_tools(_routes())
    return model.plan(messages, **bound.kwargs).route_names  # type: ignore[attr-defined]


def test_the_embedded_model_routes_place_facts_to_the_geo_agent() -> None:
    model = LocalChatModel()
    ask = [SystemMessage("x")]
    assert _route(model, [*ask, HumanMessage("What is the capital of France?")]) == ["goto_geo_agent"]
    assert _route(model, [*ask, HumanMessage("What time is it in Paris?")]) == ["goto_info_agent"]
    assert _route(model, [*ask, HumanMessage("What's the area of a circle with radius 3?")]) == [
        "goto_math_agent"
    ]


def test_a_question_no_agents_words_fit_goes_to_the_agent_sure_to_answer_it() -> None:
    model = LocalChatModel()
    ask = [SystemMessage("x")]
    # every word of these is a place name or a common word: no agent's routing text has one
    assert _route(model, [*ask, HumanMessage("Where is Timbuktu?")]) == ["goto_geo_agent"]
    assert _route(model, [*ask, HumanMessage("Tell me about Canada")]) == ["goto_geo_agent"]
    assert _route(model, [*ask, HumanMessage("Where is the bathroom?")]) == ["goto_finalize"]
    assert _route(model, [*ask, HumanMessage("Tell me about yourself")]) == ["goto_finalize"]


def _capital_of_peru() -> list[Any]:
    return [
        HumanMessage("What is the capital of Peru?"),
        AIMessage("", name="coordinator", tool_calls=[{"name": "goto_geo_agent", "args": {}, "id": "r1"}]),
        ToolMessage("geo", tool_call_id="r1", name="goto_geo_agent"),
        AIMessage(
            "",
            tool_calls=[
                {"name": "place_facts", "args": {"question": "What is the capital of Peru?"}, "id": "t1"}
            ],
        ),
        ToolMessage("The capital of Peru is Lima.", tool_call_id="t1", name="place_facts"),
        AIMessage("The capital of Peru is Lima.", name="synthesizer"),
    ]


def test_its_is_the_place_the_previous_question_was_about() -> None:
    history = _capital_of_peru()
    assert with_possessive_place("And its population?", [*history, HumanMessage("And its population?")]) == (
        "And Peru's population?"
    )
    model = LocalChatModel()
    assert _route(model, [*history, HumanMessage("What is their currency?")]) == ["goto_geo_agent"]
    # the agent's call asks about Peru
    bound = model.bind_tools(GEO_TOOLS)
    messages = [
        *history,
        HumanMessage("And its population?"),
        AIMessage("", name="coordinator", tool_calls=[{"name": "goto_geo_agent", "args": {}, "id": "r2"}]),
        ToolMessage("geo", tool_call_id="r2", name="goto_geo_agent"),
    ]
    call = json.loads(model.plan(messages, **bound.kwargs).fixed or "{}")  # type: ignore[attr-defined]
    assert call["name"] == "place_facts" and "Peru" in call["arguments"]["question"]


def _time_in_rome(question: str) -> list[Any]:
    return [
        HumanMessage("What time is it in Rome?"),
        AIMessage("", tool_calls=[{"name": "world_clock", "args": {"location": "Rome"}, "id": "t1"}]),
        ToolMessage("It is 07:10 in Rome, Italy.", tool_call_id="t1", name="world_clock"),
        AIMessage("It is 07:10 in Rome.", name="synthesizer"),
        HumanMessage(question),
    ]


@pytest.mark.parametrize(
    ("question", "read_as"),
    [
        ("And the population?", "And the population of Rome?"),
        ("What about the currency?", "What about the currency of Rome?"),
        ("and the time zone", "and the time zone in Rome?"),
        # not a thing of the place talked about
        ("And the day after?", "And the day after?"),
        ("And the other one?", "And the other one?"),
        ("And Spain?", "And Spain?"),
        ("And the population of Spain?", "And the population of Spain?"),
        ("What about tomorrow?", "What about tomorrow?"),
    ],
)
def test_a_follow_up_naming_only_a_thing_is_of_the_place_talked_about(question: str, read_as: str) -> None:
    assert with_possessive_place(question, _time_in_rome(question)) == read_as


def test_a_unit_asked_after_a_distance_asks_the_distance_in_it() -> None:
    """ "In miles?" after "How far is Berlin from Paris?" had gone to the geo agent as it was: no place found."""
    question = "How far is Berlin from Paris?"
    history = [
        HumanMessage(question),
        AIMessage("", name="coordinator", tool_calls=[{"name": "goto_geo_agent", "args": {}, "id": "r1"}]),
        ToolMessage("geo", tool_call_id="r1", name="goto_geo_agent"),
        AIMessage("", tool_calls=[{"name": "place_facts", "args": {"question": question}, "id": "t1"}]),
        ToolMessage(answer(question), tool_call_id="t1", name="place_facts"),
        AIMessage("Berlin is about 878 km from Paris.", name="synthesizer"),
    ]
    assert in_unit_asked("In miles?", question) == "How far is Berlin from Paris in miles?"
    assert in_unit_asked("And in Paris?", "What time is it?") == "And in Paris?"  # a place, not a unit
    assert (
        in_unit_asked("In feet?", "What's 5 km in miles?") == "In feet?"
    )  # converted from its amount instead
    model = LocalChatModel()
    messages = [
        *history,
        HumanMessage("In miles?"),
        AIMessage("", name="coordinator", tool_calls=[{"name": "goto_geo_agent", "args": {}, "id": "r2"}]),
        ToolMessage("geo", tool_call_id="r2", name="goto_geo_agent"),
    ]
    bound = model.bind_tools(GEO_TOOLS)
    call = json.loads(model.plan(messages, **bound.kwargs).fixed or "{}")  # type: ignore[attr-defined]
    assert call["arguments"]["question"] == "How far is Berlin from Paris in miles?"
    assert "546 miles" in answer(call["arguments"]["question"])


def test_a_follow_up_naming_only_a_thing_after_no_place_is_left_alone() -> None:
    history = [HumanMessage("What's 15 times 12?"), AIMessage("The answer is 180.", name="synthesizer")]
    question = "And the square root?"
    assert with_possessive_place(question, [*history, HumanMessage(question)]) == question


def test_its_refers_to_no_place_when_the_previous_question_named_none() -> None:
    history = [HumanMessage("What's 12 squared?"), AIMessage("The answer is 144.", name="synthesizer")]
    question = "What's its square root?"
    assert with_possessive_place(question, [*history, HumanMessage(question)]) == question
    # the previous result has it: "its square root" is the square root of 144
    assert resolve_reference(question, "144") == "What's the square root of 144?"
    assert resolve_reference("And its cube?", "12") == "And the cube of 12?"


def test_geo_is_loaded_by_default() -> None:
    """And ``text`` too: every built-in is (``math,info,docs,geo,text``)."""
    assert "geo" in Settings.model_fields["builtin_plugins"].default_factory()  # type: ignore[misc]


def test_a_route_sure_to_answer_goes_before_the_routes_its_words_fit() -> None:
    """ "October" is the calendar's word and "API" the docs'; the summarizer is given the text itself."""
    from cadence.builtins.docs import DocsPlugin
    from cadence.builtins.text import TextPlugin

    text_tools = TextPlugin.create_agent().get_tools()
    plugins = [
        MathPlugin.get_metadata(),
        InfoPlugin.get_metadata(),
        DocsPlugin.get_metadata(),
        TextPlugin.get_metadata(),
    ]
    readers = agent_readers({"math": MATH_TOOLS, "info": INFO_TOOLS, "docs": [], "text": text_tools})
    model = LocalChatModel()
    bound = model.bind_tools(make_routing_tools(plugins, readers=readers))
    message = (
        "Summarize this: The meeting covered the Q3 roadmap. Marketing will launch the new campaign in "
        "October. Engineering needs two more weeks for the API."
    )
    plan = model.plan([SystemMessage("x"), HumanMessage(message)], **bound.kwargs)  # type: ignore[attr-defined]
    assert plan.route_names == ["goto_text_agent"]


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "How far is Paris from London?",
            "Paris, France is about 344 km (214 miles) from London, UK in a straight line.",
        ),
        (
            "How many km from Berlin to Munich?",
            "Berlin, Germany is about 505 km (314 miles) from Munich, Germany",
        ),
        (
            "How far is France from Japan?",
            "France (Paris) is about 9,713 km (6,035 miles) from Japan (Tokyo)",
        ),
    ],
)
def test_the_distance_between_two_places_is_a_great_circle(question: str, said: str) -> None:
    assert answer(question).startswith(said)


def test_a_distance_needs_two_places_and_no_time_difference_is_one() -> None:
    with pytest.raises(PlaceFactsError, match=r"two places \(found: Tokyo, Japan\)"):
        answer("How far is Tokyo?")
    assert "distance" not in asked_facts("How far ahead is Tokyo from London?")  # the world clock's
    assert not asks_place_fact("How far ahead is Tokyo from London?")
    assert "distance" not in asked_facts("Convert 26.2 miles to km")


def test_the_largest_cities_of_a_country_or_state() -> None:
    assert answer("What is the largest city in Australia?").startswith(
        "The largest city of Australia is Sydney (5.6 million), then Melbourne (5.4 million) and Brisbane"
    )
    texas = answer("What are the biggest cities in Texas?")
    assert "The largest cities of Texas: Houston (2.3 million), San Antonio (1.5 million) and Dallas" in texas


def test_how_far_is_it_is_from_the_place_talked_about() -> None:
    history = [
        HumanMessage("What time is it in Madrid?"),
        AIMessage("It is 10:00 in Madrid.", name="synthesizer"),
    ]
    question = "How far is it from Lisbon?"
    assert (
        with_possessive_place(question, [*history, HumanMessage(question)])
        == "How far is Madrid from Lisbon?"
    )
    assert with_possessive_place(question, [HumanMessage(question)]) == question  # nothing talked about


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "Is Canada bigger than the US?",
            "Canada (9,984,670 km²) is larger than the United States (9,629,091 km²)",
        ),
        (
            "Is Luxembourg smaller than Belgium?",
            "Luxembourg (2,586 km²) is smaller than Belgium (30,510 km²)",
        ),
        (
            "Which is more populous, India or China?",
            "India (1.35 billion people) is less populous than China",
        ),
        (
            "Is Tokyo bigger than London?",
            "Tokyo, Japan (9.7 million people) is more populous than London, UK",
        ),
        (
            "Compare the populations of France and Italy",  # the plural had compared their areas
            "France (67.0 million people) is more populous than Italy (60.4 million people)",
        ),
        (
            # a noun between "which" and the comparison: it had listed both populations, compared none
            "Which city has more people, Tokyo or Delhi?",
            "Tokyo, Japan (9.7 million people) is less populous than Delhi, India (11.0 million people)",
        ),
        ("Which country is larger, Canada or Brazil?", "Canada (9,984,670 km²) is larger than Brazil"),
    ],
)
def test_two_places_are_compared_by_area_or_population(question: str, said: str) -> None:
    assert answer(question).startswith(said)


def test_which_country_is_larger_asks_no_place_where() -> None:
    assert answer("Which country is larger, Canada or Brazil?") == (
        "Canada (9,984,670 km²) is larger than Brazil (8,511,965 km²), by GeoNames' figures."
    )


def test_a_comparison_without_figures_says_so() -> None:
    with pytest.raises(PlaceFactsError, match="no area or population to compare"):
        answer("Is France larger than Texas?")  # no area for a state in the data
    assert not asks_place_fact("Is 5 bigger than 3?")  # numbers: the calculator's


def test_there_is_a_place_named_earlier_in_the_same_message() -> None:
    from cadence.models.local.policy import place_before_there

    assert place_before_there("What's the capital city of Canada and what time is it there?") == "Canada"
    assert place_before_there("What time is it there?") is None
    assert place_before_there("How many people live in Peru?") is None  # no "there"
    # written all in lower case ("what time is it there?" had reached the clock as it was: an error)
    assert place_before_there("whats the capital of japan and what time is it there?") == "japan"
    assert place_before_there("what is the population of new york and what time is it there") == "new york"
    assert place_before_there("tell me about the weather and what time is it there") is None


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "What is the largest country in Africa?",
            "The largest country in Africa is Algeria (2,381,740 km²), then",
        ),
        (
            "What is the largest country?",
            "The largest country in the world is Russia (17,100,000 km²), then Canada",
        ),
        (
            "What is the most populous country?",
            "The most populous country in the world is China (1.41 billion people)",
        ),
        (
            "What is the smallest country in Europe?",
            "The smallest country in Europe is the Vatican (under 1 km²)",
        ),
        ("What is the biggest city in the world?", "The most populous city in the world is Shanghai"),
        (
            "Which is the most populous country in South America?",
            "The most populous country in South America is Brazil",
        ),
        # the ranking said after the country or city
        ("Which country has the most people?", "The most populous country in the world is China"),
        (
            "Which country has the largest population in Africa?",
            "The most populous country in Africa is Nigeria",
        ),
        ("What country is the biggest?", "The largest country in the world is Russia"),
        ("Which country is the largest in Asia?", "The largest country in Asia is China"),
        ("Which city in Europe has the most people?", "The most populous city in Europe is Moscow"),
        ("Which country has the smallest area?", "The smallest country in the world is the Vatican"),
    ],
)
def test_countries_and_cities_are_ranked_in_the_world_or_a_continent(question: str, said: str) -> None:
    assert answer(question).startswith(said)
    assert asks_place_fact(question) is SURELY  # no place named, yet the data answers it


def test_a_ranking_within_a_place_is_that_places_fact() -> None:
    assert answer("What is the largest city in Japan?").startswith("The largest city of Japan is Tokyo")
    assert answer("Which city has the most people in Japan?").startswith("The largest cities of Japan: Tokyo")
    assert not asks_place_fact("Which country has the biggest army?")  # no ranking the data has


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "What's the population density of Japan?",
            "Japan has about 335 people per km² (867 per square mile): 126.5 million people on 377,835 km²",
        ),
        ("How densely populated is the Netherlands?", "The Netherlands has about 415 people per km²"),
        ("Population density of Mongolia", "Mongolia has about 2.0 people per km²"),
        (
            "What's the population density of Tokyo?",
            "GeoNames has no area for Tokyo, so no population density",
        ),
    ],
)
def test_a_countrys_population_density_is_worked_out(question: str, said: str) -> None:
    """ "What's the population density of Japan?" was answered with the population alone."""
    assert said in answer(question)
    assert asks_place_fact(question) is SURELY


@pytest.mark.parametrize(
    ("question", "what"),
    [
        ("What is the GDP of Germany?", "GDP for Germany"),
        ("What is Germany's inflation rate?", "inflation rate for Germany"),
        ("What's the national animal of Scotland?", "national animal for Scotland"),
    ],
)
def test_a_fact_of_a_country_the_data_lacks_is_said_missing(question: str, what: str) -> None:
    """ "What is the GDP of Germany?" had gone to the 135M model ("Der Geld der Deutschland, ...")."""
    said = answer(question)
    assert said.startswith(f"The bundled GeoNames data has no {what}; of a country it has the capital")
    assert asks_place_fact(question) is SURELY
    assert not asks_place_fact("How do I flag a message?")  # names no place


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Japan population", "The population of Japan is about 126.5 million"),
        ("Netherlands capital", "The capital of the Netherlands is Amsterdam."),
        ("What's the capital of Netherlands?", "The capital of the Netherlands is Amsterdam."),
        ("What is the capital of the Netherlands?", "The capital of the Netherlands is Amsterdam."),
        ("distance paris london", "Paris, France is about 344 km"),  # two places side by side
        ("new york tokyo distance", "New York City, New York, US is about 10,8"),
    ],
)
def test_a_question_in_keywords_and_a_name_without_its_article_are_read(question: str, said: str) -> None:
    """GeoNames names the country "The Netherlands": "capital of the Netherlands" found no place."""
    assert answer(question).startswith(said)
    assert asks_place_fact(question)


def test_keywords_naming_no_second_place_are_not_split() -> None:
    with pytest.raises(PlaceFactsError, match="No country or city found"):
        answer("distance paris blorf")


def test_a_states_capital_is_not_its_countrys() -> None:
    said = answer("What is the capital of California?")
    assert "Washington" not in said
    assert "does not name the capital of California; its largest city is Los Angeles" in said


def test_the_main_language_is_the_first_geonames_lists() -> None:
    assert answer("What is the official language of Brazil?") == (
        "The main language of Brazil is Portuguese. GeoNames also lists Spanish, English and French."
    )
    assert answer("What language do they speak in Japan?") == "The main language of Japan is Japanese."


def test_compared_to_is_a_comparison() -> None:
    assert answer("How big is Australia compared to Brazil?") == (
        "Australia (7,686,850 km²) is smaller than Brazil (8,511,965 km²), by GeoNames' figures."
    )


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Which city is further north, Oslo or Stockholm?",
         "Oslo, Norway (59.91° N) is further north than Stockholm, Sweden (59.33° N)."),
        ("Is Madrid north of Rome?", "No: Rome, Italy (41.89° N) is further north than Madrid, Spain (40.42° N)."),
        ("Is London further west than Paris?",
         "Yes: London, UK (0.13° W) is further west than Paris, France (2.35° E)."),
        ("Is Brazil further south than Argentina?", "No: Argentina (Buenos Aires, 34.61° S) is further south "
         "than Brazil (Brasília, 15.78° S)."),
    ],
)  # fmt: skip
def test_which_place_lies_further_in_a_direction(question: str, said: str) -> None:
    """ "Which city is further north, Oslo or Stockholm?" had reached no tool: the small model answered."""
    assert answer(question) == said


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("what is the populaton of germany", "The population of Germany is about 82.9 million"),
        ("whats the captial of peru", "The capital of Peru is Lima."),
        ("currancy of japan?", "The currency of Japan is the yen (JPY)."),
    ],
)
def test_a_misspelt_word_of_a_fact_is_read_as_that_fact(question: str, said: str) -> None:
    """ "what is the populaton of germany" had reached no tool: the small model described Germany."""
    assert answer(question).startswith(said)
    assert asks_place_fact(question)


def test_a_fact_of_a_countrys_capital_is_the_capitals() -> None:
    """ "What's the population of Australia's capital?" had been answered with Australia's population."""
    for question in [
        "What's the population of Australia's capital?",
        "What's the population of the capital of Australia?",
    ]:
        assert answer(question) == (
            "The capital of Australia is Canberra. Canberra is a city in Australian Capital Territory, Australia "
            "(Oceania). The population of Canberra is 367,752, by GeoNames' figures."
        )
    assert answer("How far is the capital of Japan from the capital of France?") == (
        "The capital of Japan is Tokyo. The capital of France is Paris. Tokyo, Japan is about 9,713 km (6,035 "
        "miles) from Paris, France in a straight line."
    )
    assert answer("What is the capital of Australia?") == "The capital of Australia is Canberra."
    assert answer("what's Australia's capital's population?").endswith("The population of Canberra is 367,752, "
                                                                      "by GeoNames' figures.")  # fmt: skip
    # "its" after "the capital of Japan and" is Japan's (it had been taken for the capital's)
    assert answer("What is the capital of Japan and its population?") == (
        "The capital of Japan is Tokyo. The population of Japan is about 126.5 million (126,529,100), by "
        "GeoNames' figures (not a live count)."
    )


def test_the_largest_city_asked_alone_is_said_first() -> None:
    """ "What's the biggest city in Canada?" had been answered with a list of three ("The largest cities of
    Canada: ...")."""
    assert answer("What's the biggest city in Canada?") == (
        "The largest city of Canada is Toronto (2.8 million), then Montréal (1.8 million) and Calgary (1.3 "
        "million), by GeoNames' figures."
    )
    assert answer("What are the largest cities in Japan?").startswith("The largest cities of Japan: Tokyo")


def test_a_direction_needs_two_places() -> None:
    with pytest.raises(PlaceFactsError, match="A direction needs two places"):
        answer("Is Madrid further north?")


def test_a_misspelled_place_close_to_one_place_is_read_as_it() -> None:
    """ "whats the captial of frnace" had been the model's ("The capital of the planet Nova Terra")."""
    assert answer("capital of frnace") == "The capital of France is Paris. (Read 'frnace' as France.)"
    assert answer("population of Tokoy").endswith(" (Read 'Tokoy' as Tokyo.)")
    assert asks_place_fact("whats the captial of frnace")
    assert asks_place_fact("population of germny")
    # several close: the country first among them ("Spain", not "Siwān" or "Sinan"), else none
    assert (
        answer("What is the capital of Spian?") == "The capital of Spain is Madrid. (Read 'Spian' as Spain.)"
    )
    with pytest.raises(PlaceFactsError, match="Did you mean 'Madras'"):
        answer("What is the population of Mars?")


def test_a_misspelled_place_close_to_several_gets_their_names() -> None:
    with pytest.raises(PlaceFactsError, match="Did you mean"):
        answer("how many people live in the housse")
    assert not asks_place_fact("how many people live in the house")


def test_each_part_of_a_question_asking_two_facts_is_asked() -> None:
    """ "What's the currency in Japan and how many people live there?" asked the population twice (the
    second time of "there", no place) and never the currency."""
    question = "What's the currency in Japan and how many people live there?"
    assert parts_asked(question) == ["What's the currency in Japan", "how many people live in Japan?"]
    schemas = LocalChatModel().bind_tools(GEO_TOOLS).kwargs["tools"]  # type: ignore[attr-defined]
    resolved = "What's the currency in Japan and how many people live in Japan?"
    first = part_for(resolved, schemas)
    second = part_for(resolved, schemas, asked={first})
    assert {first, second} == {"What's the currency in Japan", "how many people live in Japan?"}


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "Which is farther from London, Paris or Rome?",
            "Rome, Italy (about 1,435 km) is farther from London, UK than Paris, France (about 344 km), in a "
            "straight line.",
        ),
        ("Is Paris closer to London than Rome?", "Yes: Paris, France (about 344 km) is closer to London, UK"),
        ("Is Rome closer to London than Paris?", "No: Paris, France (about 344 km) is closer to London, UK"),
        (
            "Which city is closest to Tokyo: Seoul or Beijing?",
            "Seoul, South Korea (about 1,153 km) is closer",
        ),
    ],
)
def test_which_place_is_farther_or_closer(question: str, said: str) -> None:
    """ "Which is farther from London, Paris or Rome?" went to the 135M model ("Paris is the ultimate
    destination")."""
    assert answer(question).startswith(said)
    assert asks_place_fact(question)


_TOKYO_THEN_SYDNEY = [
    HumanMessage("What time is it in Tokyo?"),
    AIMessage("", tool_calls=[{"name": "current_time", "args": {"location": "Tokyo"}, "id": "t1"}]),
    ToolMessage("It is 15:43 in Tokyo.", tool_call_id="t1", name="current_time"),
    AIMessage("It is 15:43 in Tokyo.", name="synthesizer"),
    HumanMessage("And in Sydney?"),
    AIMessage("", tool_calls=[{"name": "current_time", "args": {"location": "Sydney"}, "id": "t2"}]),
    ToolMessage("It is 17:43 in Sydney.", tool_call_id="t2", name="current_time"),
    AIMessage("It is 17:43 in Sydney.", name="synthesizer"),
]
"""The times in Tokyo, then in Sydney: two places talked about."""


def test_them_is_the_two_places_talked_about_last() -> None:
    """ "What's the time difference between them?" after the time in Tokyo, then in Sydney: "Unknown location
    'difference'"."""
    history = _TOKYO_THEN_SYDNEY
    question = "What's the time difference between them?"
    assert places_talked_about([*history, HumanMessage(question)]) == ["Sydney", "Tokyo"]
    assert with_possessive_place(question, [*history, HumanMessage(question)]) == (
        "What's the time difference between Tokyo and Sydney?"
    )


@pytest.mark.parametrize(
    ("question", "read"),
    [
        # the model had answered these ("They're both in the 21st century, ...")
        ("How far apart are they in time?", "How far apart are Tokyo and Sydney in time?"),
        ("Are they in the same time zone?", "Are Tokyo and Sydney in the same time zone?"),
        ("What's the time difference?", "What's the time difference between Tokyo and Sydney?"),
        ("Are they big?", "Are they big?"),  # nothing of their time: as it is
    ],
)
def test_they_of_a_question_of_time_are_the_two_places_talked_about(question: str, read: str) -> None:
    history = _TOKYO_THEN_SYDNEY
    assert with_possessive_place(question, [*history, HumanMessage(question)]) == read


def test_it_is_the_place_a_question_passed_whole_was_about() -> None:
    """ "And how far is it from Paris?" after "How many people live there?" (Spain) found one place."""
    history = [
        HumanMessage("How many people live there?"),
        AIMessage(
            "",
            tool_calls=[
                {"name": "place_facts", "args": {"question": "how many people live in Spain?"}, "id": "t"}
            ],
        ),
        ToolMessage("The population of Spain is about 46.7 million.", tool_call_id="t", name="place_facts"),
        AIMessage("The population of Spain is about 46.7 million.", name="synthesizer"),
    ]
    question = "And how far is it from Paris?"
    assert (
        with_possessive_place(question, [*history, HumanMessage(question)])
        == "And how far is Spain from Paris?"
    )
    assert answer("What's bigger, Brazil or Australia?").startswith(
        "Brazil (8,511,965 km²) is larger than Australia"
    )


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "What is the population of the world?",
            "The countries in the world have about 7.62 billion people together (7,624,210,908)",
        ),
        ("Africa's population", "The countries in Africa have about 1.28 billion people together"),
        (
            "How many countries are in Africa?",
            "GeoNames lists 58 countries and territories in Africa (its list",
        ),
        (
            "List the countries in South America",
            "GeoNames lists 14 countries and territories in South America: Argentina, Bolivia, Brazil, Chile",
        ),
        (
            "Which countries use the euro?",
            "GeoNames lists 36 countries and territories that use the euro (EUR): ",
        ),
        (
            "Which countries use the yen?",
            "GeoNames lists 1 country or territory that uses the yen (JPY): Japan.",
        ),
        (
            "Which countries speak Portuguese?",
            "GeoNames lists 12 countries and territories that list Portuguese",
        ),
    ],
)
def test_facts_of_all_countries_at_once_are_worked_out(question: str, said: str) -> None:
    """ "How many countries are in Africa?", "What is the population of the world?" and "Which countries use
    the euro?" went to the 135M model ("... used by 19 European countries, including the UK")."""
    assert answer(question).startswith(said)
    assert asks_place_fact(question) is SURELY


def test_a_dollar_is_one_of_several_currencies() -> None:
    assert "use a dollar (one of 22: AUD, BBD" in answer("Which countries use the dollar?")
    # a population asked of a place within a continent is that place's, not the continent's
    assert answer("How many people live in the largest city in Europe?").startswith(
        "The most populous city in Europe"
    )


@pytest.mark.parametrize(
    "question", ["What time is it in the capital of France?", "What time is it in Japan's capital?"]
)
def test_a_place_described_by_a_fact_leaves_the_question_to_the_agent_asked(question: str) -> None:
    """ "What time is it in the capital of France?" was answered "The capital of France is Paris.": the geo
    agent was sure of a fact that only said where the question is about."""
    assert asks_place_fact(question) is True  # may read, not sure
    assert asks_place_fact("What is the capital of France?") is SURELY
    assert _route(LocalChatModel(), [SystemMessage("x"), HumanMessage(question)]) == ["goto_info_agent"]
    assert resolve_locations("in Japan's capital")[0].region == "Japan"  # the possessive is no part of a name


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "Is the population of India bigger than 1 billion?",
            "Yes: India has 1.35 billion people, more than 1 billion people, by GeoNames' figures.",
        ),
        (
            "Does Canada have more than 50 million people?",
            "No: Canada has 37.1 million people, less than 50 million people, by GeoNames' figures.",
        ),
        (
            "Is France larger than 600,000 km2?",
            "No: France has 547,030 km², less than 600,000 km², by GeoNames",
        ),
    ],
)
def test_a_places_figure_is_compared_with_a_number(question: str, said: str) -> None:
    """ "Is the population of India bigger than 1 billion?" was "A comparison needs two places"."""
    assert answer(question).startswith(said)


def test_the_continents_and_natural_features() -> None:
    """ "How many continents are there?" went to the 135M model ("7 continents in total: Africa, Antarctica
    (freezing), Australia and New Zealand"), as did rivers and mountains, which the data does not have."""
    assert answer("How many continents are there?") == (
        "GeoNames groups the countries of the world into 7 continents: Africa, Antarctica, Asia, Europe, North "
        "America, Oceania and South America."
    )
    for question in ("What is the longest river?", "How high is Mount Everest?", "What's the largest ocean?"):
        assert answer(question).startswith("The bundled GeoNames data has countries and cities only")
        assert asks_place_fact(question) is SURELY
    assert answer("What is the largest country?").startswith("The largest country in the world is Russia")


def test_a_calculation_on_a_fact_found_goes_on_to_the_calculator() -> None:
    """ "What's 10% of the population of Canada?" answered the population only: the calculation on it was
    never made."""
    from cadence.models.local.policy import resolve_found

    question = "What's 10% of the population of Canada?"
    found = answer("What is the population of Canada?")
    assert resolve_found(question, [found]) == "What's 10% of 37058856?"
    assert resolve_found(
        "How many letters are in the capital of France?", ["The capital of France is Paris."]
    ) == (
        "How many letters are in Paris?"  # a name found: the text counted
    )
    assert not asks_text_fact("How many letters are in the capital of France?")  # a thing described, no text
    model = LocalChatModel()
    messages = [
        SystemMessage("x"),
        HumanMessage(question),
        AIMessage("", name="coordinator", tool_calls=[{"name": "goto_geo_agent", "args": {}, "id": "r1"}]),
        ToolMessage("geo", tool_call_id="r1", name="goto_geo_agent"),
        AIMessage("", tool_calls=[{"name": "place_facts", "args": {"question": question}, "id": "t1"}]),
        ToolMessage(found, tool_call_id="t1", name="place_facts"),
    ]
    assert _route(model, messages) == ["goto_math_agent"]
    bound = model.bind_tools(MATH_TOOLS)
    agent = [
        *messages,
        AIMessage("", name="coordinator", tool_calls=[{"name": "goto_math_agent", "args": {}, "id": "r2"}]),
        ToolMessage("math", tool_call_id="r2", name="goto_math_agent"),
    ]
    call = json.loads(model.plan(agent, **bound.kwargs).fixed or "{}")  # type: ignore[attr-defined]
    assert call["name"] == "calculate" and call["arguments"]["expression"] == "What's 10% of 37058856?"
    final = [
        SystemMessage("Answer from the results."),
        HumanMessage(question),
        AIMessage("", tool_calls=[{"name": "place_facts", "args": {"question": question}, "id": "t1"}]),
        ToolMessage(found, tool_call_id="t1", name="place_facts"),
        AIMessage("", tool_calls=[{"name": "calculate", "args": {"expression": "x"}, "id": "t2"}]),
        ToolMessage("(10 / 100) * 37058856 = 3705885.6", tool_call_id="t2", name="calculate"),
    ]
    assert model.plan(final).fixed == f"{found} The answer is 3705885.6."  # type: ignore[attr-defined]


def _asked_and_answered(question: str, call: dict[str, Any], result: str) -> list[Any]:
    return [
        HumanMessage(question),
        AIMessage("", tool_calls=[{**call, "id": "t"}]),
        ToolMessage(result, tool_call_id="t", name=call["name"]),
        AIMessage(result, name="synthesizer"),
    ]


@pytest.mark.parametrize(
    ("asked", "result", "place"),
    [
        ("What's the capital of Italy?", "The capital of Italy is Rome.", "Rome"),
        (
            "What is the largest country in Africa?",
            "The largest country in Africa is Algeria (2,381,740 km²), then the Democratic Republic of the Congo",
            "Algeria",
        ),
        # the place asked about: the answer is no place
        ("What's the population of Italy?", "The population of Italy is about 60.4 million.", "Italy"),
        ("What's the main language of Belgium?", "The main language of Belgium is Dutch.", "Belgium"),
    ],
)
def test_there_is_the_place_the_previous_answer_gave(asked: str, result: str, place: str) -> None:
    """ "How many people live there?" after "What's the capital of Italy?" had asked Italy's population."""
    history = _asked_and_answered(asked, {"name": "place_facts", "args": {"question": asked}}, result)
    question = "How many people live there?"
    assert there_place(question, [*history, HumanMessage(question)]) == place
    # a place the question names before "there" comes first
    named = "What's the currency in Japan and how many people live there?"
    assert there_place(named, [*history, HumanMessage(named)]) == "Japan"


def test_there_is_the_place_an_earlier_answer_gave_without_its_call() -> None:
    """The supervisor's agents see earlier answers, not earlier calls: "there" is still the capital."""
    history = [HumanMessage("What's the capital of Japan?"), AIMessage("The capital of Japan is Tokyo.")]
    question = "What time is it there?"
    assert there_place(question, [*history, HumanMessage(question)]) == "Tokyo"


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Is Sydney the capital of Australia?", "No: the capital of Australia is Canberra, not Sydney."),
        ("is Canberra the capital of Australia?", "Yes, Canberra is the capital of Australia."),
        (
            "Is Washington the capital of the United States?",
            "Yes, Washington, D.C. is the capital of the United",
        ),
        (
            "Is Rio de Janeiro the capital of Brazil?",
            "No: the capital of Brazil is Brasília, not Rio de Janeiro.",
        ),
        ("Is Brasilia the capital city of Brazil?", "Yes, Brasília is the capital of Brazil."),  # no accent
    ],
)
def test_whether_a_city_is_a_capital_is_answered_yes_or_no(question: str, said: str) -> None:
    assert answer(question).startswith(said)


@pytest.mark.parametrize(
    ("question", "n", "first"),
    [("Name three countries in Africa", 3, "Nigeria"), ("List 5 countries in Europe", 5, "Russia")],
)
def test_a_few_countries_of_a_continent_are_its_most_populous(question: str, n: int, first: str) -> None:
    lead, _, names = answer(question).partition(": ")
    assert lead.startswith(f"The {n} most populous countries in ")
    listed_names = names.rstrip(".").replace(" and ", ", ").split(", ")
    assert len(listed_names) == n and listed_names[0] == first


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Which country has the most neighbours?", "The country in the world with the most neighbouring countries"
         " by land is China (14), then Russia (14)"),
        ("Which country in Europe has the most borders?", "The country in Europe with the most neighbouring"),
        ("How many countries use the euro?", "36 countries and territories in GeoNames' list use the euro (EUR): "),
        ("How many countries use the yen?", "1 country or territory in GeoNames' list uses the yen (JPY): Japan."),
        ("How many countries speak Spanish?", "29 countries and territories in GeoNames' list have Spanish among"),
    ],
)  # fmt: skip
def test_countries_counted_by_neighbours_currency_or_language(question: str, said: str) -> None:
    assert asks_place_fact(question) is SURELY
    assert answer(question).startswith(said)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Which cities in Italy have more than a million people?", "2 cities of Italy have more than 1,000,000 "
         "people, by GeoNames' figures: Rome (2.3 million) and Milan (1.4 million)."),
        ("List the cities in Japan with more than 2 million inhabitants", "4 cities of Japan have more than "
         "2,000,000 people, by GeoNames' figures: Tokyo (9.7 million), Yokohama (3.8 million), Osaka"),
        ("Which cities in Iceland have more than 1 million people?", "No city of Iceland has more than 1,000,000 "
         "people, by GeoNames' figures; its largest is Reykjavík"),
    ],
)  # fmt: skip
def test_the_cities_of_a_country_above_a_population(question: str, said: str) -> None:
    assert asks_place_fact(question) is SURELY
    assert answer(question).startswith(said)


@pytest.mark.parametrize("name", ["Paris", "New Zealand", "Tokyo?"])
def test_a_place_named_alone_is_asked_about(name: str) -> None:
    """ "Paris" alone fitted no agent's words and the 135M model answered it."""
    assert asks_place_fact(name) is SURELY
    assert answer(name)


@pytest.mark.parametrize("word", ["Hello", "Python", "Monday", "Help!", "No", "Why"])
def test_a_word_alone_that_is_no_place_is_not_read(word: str) -> None:
    assert not asks_place_fact(word)


def test_how_far_apart_in_time_is_no_distance() -> None:
    from cadence.builtins.geo import asks_place_fact as reads

    assert not reads("How far apart are Rome and Cairo in time?")
    assert reads("How far apart are Rome and Cairo?")


@pytest.mark.parametrize(
    ("question", "said"),
    [
        # the three largest had been listed
        (
            "What's the second largest city in Germany?",
            "The second largest city of Germany is Hamburg (2.0 million), after Berlin (3.4 million), by GeoNames' figures.",
        ),
        (
            "Third biggest city in Canada?",
            "The third largest city of Canada is Calgary (1.3 million), after Toronto (2.8 million) and Montréal "
            "(1.8 million), by GeoNames' figures.",
        ),
    ],
)
def test_the_second_or_third_largest_city_is_that_one(question: str, said: str) -> None:
    assert answer(question) == said


def test_populations_asked_combined_are_added_up() -> None:
    """ "How many people live in Canada and Australia combined?" had given both populations, not their sum."""
    said = answer("How many people live in Canada and Australia combined?")
    assert said.endswith(
        "Together, Canada and Australia have about 62.1 million people (62,051,225), by GeoNames' figures."
    )
    assert "Together" not in answer("What is the population of Canada and Australia?")
