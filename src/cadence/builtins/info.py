"""The built-in ``info`` plugin: current time, time differences and time conversion.

Locations are resolved offline: common city names and aliases, time zone
abbreviations (``EST``, ``JST``...), UTC offsets (``UTC+5:30``), IANA names
(``Asia/Tokyo``) and the city part of any IANA name (``Lisbon``). Offsets are
computed with :mod:`zoneinfo` at the current instant, so daylight saving time is
honoured. Tests pin the clock by monkeypatching :func:`now`.
"""

from __future__ import annotations

import difflib
import logging
import re
import unicodedata
import zoneinfo
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from functools import lru_cache

from langchain_core.tools import BaseTool

from cadence.builtins._common import BuiltinToolError, agent_prompt
from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, tool

logger = logging.getLogger(__name__)


class UnknownLocationError(BuiltinToolError):
    """A location could not be mapped to a time zone."""


class TimeFormatError(BuiltinToolError):
    """A clock time could not be parsed."""


def now() -> datetime:
    """The current instant (timezone-aware, UTC). Tests monkeypatch this to pin the clock."""
    return datetime.now(UTC)


# display name -> (IANA zone, aliases)
CITIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "UTC": ("UTC", ("utc", "gmt", "z", "zulu", "coordinated universal time", "greenwich mean time")),
    "Tokyo": ("Asia/Tokyo", ("japan", "osaka", "kyoto", "jst")),
    "Seoul": ("Asia/Seoul", ("south korea", "korea", "busan", "kst")),
    "Beijing": ("Asia/Shanghai", ("shanghai", "china", "shenzhen", "guangzhou", "peking")),
    "Hong Kong": ("Asia/Hong_Kong", ("hk", "hongkong", "hkt")),
    "Taipei": ("Asia/Taipei", ("taiwan",)),
    "Singapore": ("Asia/Singapore", ("sgt",)),
    "Kuala Lumpur": ("Asia/Kuala_Lumpur", ("malaysia", "kl")),
    "Bangkok": ("Asia/Bangkok", ("thailand",)),
    "Jakarta": ("Asia/Jakarta", ("indonesia",)),
    "Manila": ("Asia/Manila", ("philippines",)),
    "Ho Chi Minh City": ("Asia/Ho_Chi_Minh", ("ho chi minh", "saigon", "hcmc", "vietnam", "viet nam")),
    "Hanoi": ("Asia/Ho_Chi_Minh", ("ha noi",)),
    "Mumbai": ("Asia/Kolkata", ("bombay", "india", "ist", "bangalore", "bengaluru", "chennai", "hyderabad")),
    "Delhi": ("Asia/Kolkata", ("new delhi",)),
    "Kolkata": ("Asia/Kolkata", ("calcutta",)),
    "Karachi": ("Asia/Karachi", ("pakistan", "lahore", "islamabad")),
    "Dhaka": ("Asia/Dhaka", ("bangladesh",)),
    "Kathmandu": ("Asia/Kathmandu", ("nepal",)),
    "Dubai": ("Asia/Dubai", ("uae", "abu dhabi", "united arab emirates")),
    "Riyadh": ("Asia/Riyadh", ("saudi arabia",)),
    "Tehran": ("Asia/Tehran", ("iran",)),
    "Tel Aviv": ("Asia/Jerusalem", ("jerusalem", "israel")),
    "Istanbul": ("Europe/Istanbul", ("turkey", "ankara")),
    "Moscow": ("Europe/Moscow", ("russia", "msk")),
    "London": ("Europe/London", ("uk", "united kingdom", "england", "britain", "great britain", "bst")),
    "Dublin": ("Europe/Dublin", ("ireland",)),
    "Lisbon": ("Europe/Lisbon", ("portugal",)),
    "Paris": ("Europe/Paris", ("france", "cet", "cest")),
    "Berlin": ("Europe/Berlin", ("germany", "munich", "frankfurt", "hamburg")),
    "Madrid": ("Europe/Madrid", ("spain", "barcelona")),
    "Rome": ("Europe/Rome", ("italy", "milan")),
    "Amsterdam": ("Europe/Amsterdam", ("netherlands", "holland")),
    "Brussels": ("Europe/Brussels", ("belgium",)),
    "Zurich": ("Europe/Zurich", ("switzerland", "geneva")),
    "Vienna": ("Europe/Vienna", ("austria",)),
    "Stockholm": ("Europe/Stockholm", ("sweden",)),
    "Oslo": ("Europe/Oslo", ("norway",)),
    "Copenhagen": ("Europe/Copenhagen", ("denmark",)),
    "Helsinki": ("Europe/Helsinki", ("finland",)),
    "Warsaw": ("Europe/Warsaw", ("poland",)),
    "Prague": ("Europe/Prague", ("czech republic", "czechia")),
    "Athens": ("Europe/Athens", ("greece",)),
    "Kyiv": ("Europe/Kyiv", ("kiev", "ukraine")),
    "Cairo": ("Africa/Cairo", ("egypt",)),
    "Johannesburg": ("Africa/Johannesburg", ("south africa", "cape town", "pretoria")),
    "Lagos": ("Africa/Lagos", ("nigeria",)),
    "Nairobi": ("Africa/Nairobi", ("kenya",)),
    "Casablanca": ("Africa/Casablanca", ("morocco",)),
    "New York": (
        "America/New_York",
        (
            "nyc",
            "new york city",
            "ny",
            "boston",
            "washington",
            "washington dc",
            "miami",
            "atlanta",
            "philadelphia",
            "est",
            "edt",
            "et",
            "eastern",
            "eastern time",
        ),
    ),
    "Chicago": (
        "America/Chicago",
        ("houston", "dallas", "austin", "cst", "cdt", "ct", "central", "central time"),
    ),
    "Denver": ("America/Denver", ("mst", "mdt", "mountain", "mountain time", "salt lake city")),
    "Phoenix": ("America/Phoenix", ("arizona",)),
    "Los Angeles": (
        "America/Los_Angeles",
        ("la", "l a", "seattle", "las vegas", "san diego", "pst", "pdt", "pt", "pacific", "pacific time"),
    ),
    "San Francisco": ("America/Los_Angeles", ("sf", "san jose", "silicon valley", "bay area")),
    "Anchorage": ("America/Anchorage", ("alaska",)),
    "Honolulu": ("Pacific/Honolulu", ("hawaii", "hst")),
    "Toronto": ("America/Toronto", ("ottawa", "montreal")),
    "Vancouver": ("America/Vancouver", ()),
    "Mexico City": ("America/Mexico_City", ("mexico", "cdmx")),
    "São Paulo": ("America/Sao_Paulo", ("sao paulo", "brazil", "rio de janeiro", "rio", "brasilia")),
    "Buenos Aires": ("America/Argentina/Buenos_Aires", ("argentina",)),
    "Santiago": ("America/Santiago", ("chile",)),
    "Bogotá": ("America/Bogota", ("bogota", "colombia")),
    "Lima": ("America/Lima", ("peru",)),
    "Sydney": ("Australia/Sydney", ("aest", "aedt", "canberra")),
    "Melbourne": ("Australia/Melbourne", ()),
    "Brisbane": ("Australia/Brisbane", ("queensland",)),
    "Perth": ("Australia/Perth", ()),
    "Adelaide": ("Australia/Adelaide", ()),
    "Auckland": ("Pacific/Auckland", ("new zealand", "nz", "wellington")),
}
"""Common places: display name → (IANA zone, lower-case aliases)."""

_OFFSET_RE = re.compile(r"^(?:utc|gmt)\s*([+-])\s*(\d{1,2})(?:\s*:?\s*(\d{2}))?$")
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


def _normalize(text: str) -> str:
    """Lower case, accents removed, punctuation except ``/ + - :`` turned into spaces."""
    decomposed = unicodedata.normalize("NFKD", text)
    ascii_text = "".join(c for c in decomposed if not unicodedata.combining(c)).lower()
    ascii_text = ascii_text.replace("_", " ").replace(".", "")
    return " ".join(re.sub(r"[^a-z0-9/+:\- ]", " ", ascii_text).split())


@lru_cache(maxsize=1)
def _index() -> dict[str, tuple[str, str]]:
    """Normalised name → (display label, IANA zone) for every name we accept."""
    index: dict[str, tuple[str, str]] = {}
    try:
        zones = sorted(zoneinfo.available_timezones())
    except Exception:  # pragma: no cover - broken tz installation
        logger.warning("could not list IANA time zones; only built-in city names are available")
        zones = []
    for zone in zones:
        index.setdefault(_normalize(zone), (zone, zone))
    for zone in zones:  # city part of region/city names: "Lisbon", "Ho Chi Minh"
        region, _, city = zone.rpartition("/")
        if region.split("/")[0] in _IANA_REGIONS and city:
            index.setdefault(_normalize(city), (city.replace("_", " "), zone))
    for display, (zone, aliases) in CITIES.items():
        for name in (display, *aliases):
            index[_normalize(name)] = (display, zone)
    return index


@dataclass(frozen=True)
class Place:
    """A resolved location: a label for people and its time zone."""

    label: str
    tz: tzinfo
    zone_name: str


def _display_name(key: str) -> str:
    """How to show a suggested index key: the place's label, or the alias itself."""
    label = _index()[key][0]
    return label if _normalize(label) == key or "/" in key else key.title()


def _unknown(location: str) -> UnknownLocationError:
    key = _normalize(location)
    names = [name for name in _index() if len(name) > 3]
    suggestions = difflib.get_close_matches(key, names, n=3, cutoff=0.75)
    labels = list(dict.fromkeys(_display_name(s) for s in suggestions))
    hint = f" Did you mean {', '.join(repr(label) for label in labels)}?" if labels else ""
    return UnknownLocationError(
        f"Unknown location {location!r}.{hint} Name a major city (e.g. 'Tokyo', 'New York', 'São Paulo'), "
        "a country with one time zone (e.g. 'Japan'), an IANA time zone (e.g. 'Europe/Paris', "
        "'America/Sao_Paulo'), or a UTC offset (e.g. 'UTC+5:30')."
    )


def resolve_location(location: str) -> Place:
    """Map a city, alias, abbreviation, IANA name or UTC offset to a :class:`Place`.

    Raises :class:`UnknownLocationError` listing how to name a location.
    """
    if not location or not location.strip():
        raise UnknownLocationError(
            "No location given. Name a city (e.g. 'Tokyo'), an IANA time zone (e.g. 'Europe/Paris') "
            "or a UTC offset (e.g. 'UTC+2')."
        )
    key = _normalize(location)
    match = _OFFSET_RE.match(key.replace(" ", ""))
    if match:
        sign, hours, minutes = match.group(1), int(match.group(2)), int(match.group(3) or 0)
        if hours > 14 or minutes >= 60:
            raise UnknownLocationError(f"UTC offset {location!r} is out of range (UTC-12:00 to UTC+14:00)")
        delta = timedelta(hours=hours, minutes=minutes) * (-1 if sign == "-" else 1)
        label = "UTC" + _format_offset(delta) if delta else "UTC"
        return Place(label, timezone(delta, label), label)
    candidates = [key]
    if "," in location:  # "Paris, France" -> "Paris"
        candidates.append(_normalize(location.split(",")[0]))
    candidates.append(re.sub(r"^(the )?(city of )?|( city| time| time zone| timezone)$", "", key).strip())
    for candidate in candidates:
        found = _index().get(candidate)
        if found:
            label, zone = found
            return Place(label, zoneinfo.ZoneInfo(zone), zone)
    raise _unknown(location)


def _format_offset(delta: timedelta | None) -> str:
    total = int((delta or timedelta()).total_seconds() // 60)
    sign = "+" if total >= 0 else "-"
    hours, minutes = divmod(abs(total), 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def _describe(moment: datetime, place: Place, *, with_zone: bool = True) -> str:
    """``Wednesday, 15 January 2025, 02:00 (JST, UTC+09:00, time zone Asia/Tokyo)``."""
    local = moment.astimezone(place.tz)
    offset = f"UTC{_format_offset(local.utcoffset())}"
    details: list[str] = []
    abbrev = local.tzname() or ""
    if abbrev and abbrev[0] not in "+-" and abbrev not in (place.label, offset, "UTC"):
        details.append(abbrev)
    if offset != place.label:
        details.append(offset)
    if with_zone and place.zone_name not in (place.label, offset):
        details.append(f"time zone {place.zone_name}")
    suffix = f" ({', '.join(details)})" if details else ""
    return f"{local:%A}, {local.day} {local:%B %Y, %H:%M}{suffix}"


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


@tool
def current_time(location: str) -> str:
    """The current date and time in a city, country, IANA time zone (e.g. 'Asia/Tokyo') or 'UTC'."""
    place = resolve_location(location)
    return f"Current time in {place.label}: {_describe(now(), place)}"


@tool
def time_difference(location_a: str, location_b: str) -> str:
    """How many hours location_a is ahead of or behind location_b right now (daylight saving aware)."""
    a, b = resolve_location(location_a), resolve_location(location_b)
    moment = now()
    minutes = offset_difference_minutes(a, b, moment)
    if minutes == 0:
        head = f"{a.label} and {b.label} are on the same time"
    else:
        head = f"{a.label} is {_duration(minutes)} {'ahead of' if minutes > 0 else 'behind'} {b.label}"
    return (
        f"{head}. Now it is {_describe(moment, a, with_zone=False)} in {a.label} "
        f"and {_describe(moment, b, with_zone=False)} in {b.label}."
    )


@tool
def convert_time(time: str, from_location: str, to_location: str) -> str:
    """Convert a clock time (e.g. '15:30', '3pm', '2025-01-15 09:00') in from_location to to_location.

    Without a date, today's date in from_location is used.
    """
    source, target = resolve_location(from_location), resolve_location(to_location)
    today = now().astimezone(source.tz).date()
    moment = parse_clock(time, today).replace(tzinfo=source.tz)
    return (
        f"{_describe(moment, source, with_zone=False)} in {source.label} is "
        f"{_describe(moment, target, with_zone=False)} in {target.label}."
    )


INFO_TOOLS: list[BaseTool] = [current_time, time_difference, convert_time]
"""The tools of the info agent."""


class InfoAgent(BaseAgent):
    """The info agent: current time, time differences and time conversion."""

    def get_tools(self) -> list[BaseTool]:
        """The time tools."""
        return list(INFO_TOOLS)

    def get_system_prompt(self) -> str:
        """Instructions to look times up with the tools."""
        return agent_prompt(
            "You are the info agent of Cadence. You answer questions about the current date, "
            "time and time zones anywhere in the world.",
            [
                "You do not know the current time: always call `current_time`, `time_difference` "
                "or `convert_time`.",
                "Pass places as the user named them (a city, a country with one time zone, an IANA "
                "zone like 'Europe/Paris', or 'UTC+5:30'); for a country with several zones pick its "
                "capital or largest city and say so.",
                "State the time and place plainly, e.g. 'It is 14:05 on Tuesday in Tokyo'.",
            ],
        )


class InfoPlugin(BasePlugin):
    """Built-in plugin ``info``: world clock and time zone arithmetic."""

    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        """Metadata of the info plugin."""
        return PluginMetadata(
            name="info",
            version="1.0.0",
            description=(
                "World clock agent: tells the current date and time in any city, country or time zone, "
                "the time difference between two places, and converts a time from one place to another "
                "(daylight saving aware)."
            ),
            capabilities=[
                "current date and time in a city or time zone",
                "what day or date it is today",
                "time difference between two cities",
                "convert a meeting time between time zones",
            ],
            response_suggestion=(
                "Give the local time and place in one sentence; mention the date if it differs."
            ),
        )

    @classmethod
    def create_agent(cls) -> BaseAgent:
        """A new info agent."""
        return InfoAgent(cls.get_metadata())
