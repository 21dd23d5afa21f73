"""Tests of the built-in plugins: math, info and docs (all offline)."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from langchain_core.tools import BaseTool, ToolException

from cadence.builtins import BUILTIN_PLUGINS, DocsPlugin, GeoPlugin, InfoPlugin, MathPlugin, TextPlugin
from cadence.builtins import info as info_mod
from cadence.builtins.docs import (
    BUNDLED_DOCS_DIR,
    DocsAgent,
    DocsError,
    chunk_document,
    from_line_start,
    fts_query,
    get_index,
    make_docs_tools,
    to_line_end,
)
from cadence.builtins.info import UnknownLocationError, current_time, time_difference
from cadence.builtins.math import (
    CalculationError,
    calculate,
    evaluate,
    format_number,
    percent_change,
    percent_of,
    percentage,
    statistics,
)
from cadence.sdk import BaseAgent, PluginMetadata
from cadence.text import one_word_phrases


def calc(expression: str) -> str:
    return calculate.invoke({"expression": expression})


# --- math ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("15*23", "345"),
        ("2 + 3 * 4", "14"),
        ("(2 + 3) * 4", "20"),
        ("-3**2", "-9"),
        ("2**3**2", "512"),
        ("10 / 4", "2.5"),
        ("10 / 2", "5"),
        ("7 // 2", "3"),
        ("7 % 3", "1"),
        ("0.1 + 0.2", "0.3"),
        ("2^10", "1024"),
        ("sqrt(16)", "4"),
        ("sqrt(2)", "1.41421356237"),
        ("factorial(10)", "3628800"),
        ("log(100, 10)", "2"),
        ("log10(1000)", "3"),
        ("round(pi, 2)", "3.14"),
        ("max(1, 5, 3) - min(4, 2)", "3"),
        ("abs(-7.5)", "7.5"),
        ("floor(2.7) + ceil(2.1)", "5"),
        ("pow(2, 100)", "1267650600228229401496703205376"),
        ("sin(pi / 2)", "1"),
        ("2 ** -2", "0.25"),
        ("exp(0) + cos(0)", "2"),
    ],
)
def test_calculate(expression: str, expected: str) -> None:
    assert calc(expression) == expected


def test_evaluate_returns_numbers() -> None:
    assert evaluate("15*23") == 345
    assert isinstance(evaluate("15*23"), int)
    assert evaluate("1/3") == pytest.approx(0.3333333333)
    assert format_number(1e20) == "1e20"
    assert format_number(2.0) == "2"


def test_an_emoji_says_nothing_to_the_calculator() -> None:
    """ "what's 2+2 😀" had failed as a malformed expression ("unterminated string literal")."""
    from cadence.text import without_pictographs

    assert calc("what's 2+2 😀") == "2+2 = 4"
    assert calc("72°F in Celsius 🌡️").startswith("72 °F = 22.22 °C")  # the degree sign stays
    assert without_pictographs("€20 × 3 🇫🇷👍🏽") == "€20 × 3 "


@pytest.mark.parametrize(
    ("expression", "fragment"),
    [
        ("__import__('os').system('x')", "attribute access is not allowed"),
        ("().__class__", "attribute access is not allowed"),
        ("(1).__class__.__bases__", "attribute access is not allowed"),
        ("__import__('os')", "unknown function '__import__'"),
        ("open('/etc/passwd')", "unknown function 'open'"),
        ("lambda: 1", "lambda"),
        ("x + 1", "unknown name 'x'"),
        ("[1, 2][0]", "not allowed"),
        ("'a' * 3", "str values are not allowed"),
        ("1 if 1 else 2", "not supported"),
        ("1 < 2", "comparisons"),
        ("sqrt(x=4)", "keyword arguments"),
        ("[x for x in range(10)]", "comprehensions"),
        ("2j", "complex numbers"),
    ],
)
def test_calculate_rejects_unsafe_input(expression: str, fragment: str) -> None:
    with pytest.raises(CalculationError) as info:
        calc(expression)
    message = str(info.value)
    assert fragment in message
    if "Unsupported expression" in message:
        assert "sqrt(2)" in message  # tells the model what is allowed


def test_calculation_error_is_a_tool_exception() -> None:
    assert issubclass(CalculationError, ToolException)


@pytest.mark.parametrize(
    "expression",
    ["9**9**9", "10**10**10", "2**100000", "factorial(100000)", "(10**1000)**1000", "2**9999 * 2**9999"],
)
def test_huge_results_fail_fast(expression: str) -> None:
    start = time.perf_counter()
    with pytest.raises(CalculationError, match="too large"):
        calc(expression)
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize(
    ("expression", "fragment"),
    [
        ("(-8) ** 0.5", "not a real number"),
        ("1e308 * 10", "too large"),
        ("exp(1000)", "too large"),
        ("2 +", "Malformed expression"),
        ("", "Empty expression"),
        ("1+" * 300 + "1", "too long"),
        ("sqrt(1, 2)", "takes 1 argument"),
    ],
)
def test_calculate_errors(expression: str, fragment: str) -> None:
    with pytest.raises(CalculationError, match=None) as info:
        calc(expression)
    assert fragment in str(info.value)


def test_a_division_by_zero_is_said_to_be_undefined() -> None:
    """ "What is 1/0?" had been answered as a failure to rephrase ("I couldn't find the answer: ...")."""
    assert calculate.invoke({"expression": "1/0"}) == "1/0 is undefined: a number cannot be divided by zero."
    assert calculate.invoke({"expression": "What is 10 divided by 0?"}) == (
        "10 / 0 is undefined: a number cannot be divided by zero."
    )
    # out of the function's domain: no real value, said in a sentence the answer gives as it is (the
    # model had written "The square root of -1 is undefined in the complex plane")
    assert calculate.invoke({"expression": "What's the square root of -1?"}) == (
        "The square root of -1 is not a real number (no real number squared is negative); in complex numbers "
        "it is i."
    )
    assert calculate.invoke({"expression": "sqrt(-4)"}).endswith("in complex numbers it is 2i.")
    assert calculate.invoke({"expression": "sqrt(-5)"}).endswith("in complex numbers it is about 2.2361i.")
    assert calculate.invoke({"expression": "log(0)"}) == (
        "The logarithm of 0 has no value: logarithms are defined for numbers above zero only."
    )
    assert calculate.invoke({"expression": "asin(2)"}) == (
        "The value of asin(2) is not a real number: that input is outside the function's domain (as for the "
        "square root of a negative number, or the logarithm of zero)."
    )


@pytest.mark.parametrize("expression", ["15% + 86", "20%*50", "(15%) * 2", "10% - 3", "what is 15%"])
def test_a_percent_sign_before_an_operator_is_no_remainder(expression: str) -> None:
    """ "15% + 86" was Python's remainder 15 % +86 = 15, said as the answer."""
    with pytest.raises(CalculationError, match="writes a percent"):
        evaluate(expression.removeprefix("what is "))
    assert evaluate("15 % 4") == 3 and evaluate("15%4") == 3  # between two numbers: a remainder


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("how tall is 1.62 m in feet and inches?", "1.62 m = 5 ft 3.8 in (exactly "),
        ("95 kg to stone and pounds", "95 kg = 14 st 13.4 lb (exactly "),
        ("3.2 kg in lbs and oz", "3.2 kg = 7 lb 0.9 oz (exactly "),
        ("200 minutes in hours and minutes", "200 minutes = 3 h 20 min (exactly "),
        ("182.9 cm in ft and in", "182.9 cm = 6 ft 0 in (exactly "),  # 11.96 in is one more foot
        (
            "Convert 3.75 hours to hours and minutes",
            "3.75 hours = 3 h 45 min (exactly (3.75 * 3600 / 60) = 225",
        ),
        ("5.5 feet in feet and inches", "5.5 feet = 5 ft 6 in (exactly "),  # already in the larger unit
    ],
)
def test_a_conversion_into_two_units_splits_the_smaller_one(question: str, said: str) -> None:
    assert calculate.invoke({"expression": question}).startswith(said)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "If a car travels 60 miles per hour for 2.5 hours, how far does it go?",
            "60 miles per hour for 2.5 hours = 150 miles (read as (60 * 2.5))",
        ),
        ("A plane flies 900 km/h. How far does it fly in 90 minutes?", "900 km/h for 90 minutes = 1350 km"),
        ("How many meters at 5 km/h for 30 minutes?", "5 km/h for 30 minutes = 2500 meters"),
        ("How far do you go in 45 minutes at 60 mph?", "60 mph for 45 minutes = 45 miles"),
    ],
)
def test_a_distance_at_a_speed_for_a_time_is_said_in_its_unit(question: str, said: str) -> None:
    """ "60 miles per hour for 2.5 hours: how far?" had been answered "150", with no unit."""
    assert calculate.invoke({"expression": question}).startswith(said)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("A recipe needs 2 cups of flour for 12 cookies. How much flour for 30 cookies?", "= 5 cups"),
        ("A recipe for 4 people uses 300 g of flour. How much flour do I need for 10 people?", "= 750 g"),
    ],
)
def test_a_quantity_scaled_by_servings_is_said_in_its_unit(question: str, said: str) -> None:
    """ "How much flour for 30 cookies?" had been answered "5", with no unit."""
    assert calculate.invoke({"expression": question}).endswith(said)


@pytest.mark.parametrize(
    "question", ["1.62 m in feet and pounds", "5 + 5 in feet and inches", "10 kg in oz and lb"]
)
def test_two_units_that_do_not_go_together_are_not_read_as_a_pair(question: str) -> None:
    with pytest.raises(CalculationError):
        calculate.invoke({"expression": question})


def test_deep_nesting_is_rejected_quickly() -> None:
    with pytest.raises(CalculationError):
        calc("-" * 400 + "1")
    with pytest.raises(CalculationError):
        calc("(" * 210 + "1" + ")" * 210)
    assert calc("(" * 50 + "1" + ")" * 50) == "1"


def test_percentage_tools() -> None:
    assert percentage.invoke({"part": 30, "whole": 120}) == "30 is 25% of 120"
    assert percent_of.invoke({"percent": 15, "value": 80}) == "15% of 80 is 12"
    assert percent_change.invoke({"old": 50, "new": 75}) == "From 50 to 75 is an increase of 50%"
    assert percent_change.invoke({"old": 80, "new": 60}) == "From 80 to 60 is a decrease of 25%"
    with pytest.raises(CalculationError):
        percentage.invoke({"part": 1, "whole": 0})


def test_statistics_tool() -> None:
    out = statistics.invoke({"numbers": [2, 4, 4, 4, 5, 5, 7, 9]})
    assert "count: 8" in out
    assert "mean: 5" in out
    assert "median: 4.5" in out
    assert "population standard deviation: 2" in out
    assert "mode: 4" in out and "range: 7" in out
    assert "mode" not in statistics.invoke({"numbers": [1, 1, 2, 2]})  # no one value more common
    with pytest.raises(CalculationError):
        statistics.invoke({"numbers": []})


# --- info ---------------------------------------------------------------------------


def _pin(monkeypatch: pytest.MonkeyPatch, moment: datetime) -> None:
    monkeypatch.setattr(info_mod, "now", lambda: moment)


def test_time_difference_tokyo_new_york_winter(monkeypatch: pytest.MonkeyPatch) -> None:
    _pin(monkeypatch, datetime(2025, 1, 15, 12, 0, tzinfo=UTC))
    out = time_difference.invoke({"location_a": "Tokyo", "location_b": "New York"})
    assert out.startswith("Tokyo, Japan is 14 hours ahead of New York City, New York, US.")


def test_time_difference_tokyo_new_york_summer(monkeypatch: pytest.MonkeyPatch) -> None:
    _pin(monkeypatch, datetime(2025, 7, 15, 12, 0, tzinfo=UTC))
    out = time_difference.invoke({"location_a": "Tokyo", "location_b": "New York"})
    assert out.startswith("Tokyo, Japan is 13 hours ahead of New York City, New York, US.")
    out = time_difference.invoke({"location_a": "New York", "location_b": "Tokyo"})
    assert out.startswith("New York City, New York, US is 13 hours behind Tokyo, Japan.")


def test_time_difference_half_hour_and_same(monkeypatch: pytest.MonkeyPatch) -> None:
    _pin(monkeypatch, datetime(2025, 1, 15, 12, 0, tzinfo=UTC))
    out = time_difference.invoke({"location_a": "Mumbai", "location_b": "London"})
    assert out.startswith("Mumbai, India is 5 hours 30 minutes ahead of London, UK.")
    out = time_difference.invoke({"location_a": "Paris", "location_b": "Berlin"})
    assert out.startswith("Paris, France and Berlin, Germany are on the same time.")


def test_current_time(monkeypatch: pytest.MonkeyPatch) -> None:
    _pin(monkeypatch, datetime(2025, 1, 15, 3, 0, tzinfo=UTC))
    out = current_time.invoke({"location": "Tokyo"})
    assert (
        out
        == "The current time in Tokyo, Japan (Asia/Tokyo, UTC+09:00) is 12:00 on Wednesday, 15 January 2025."
    )
    assert "22:00 on Tuesday, 14 January 2025" in current_time.invoke({"location": "new york"})
    assert "03:00" in current_time.invoke({"location": "UTC"})
    assert "Asia/Ho_Chi_Minh" in current_time.invoke({"location": "Ho Chi Minh City"})
    assert "00:00" in current_time.invoke({"location": "São Paulo"})
    assert "12:00" in current_time.invoke({"location": "Asia/Tokyo"})
    assert "08:30" in current_time.invoke({"location": "UTC+5:30"})
    assert "Europe/Lisbon" in current_time.invoke({"location": "Lisbon"})  # from the IANA database


def test_convert_time(monkeypatch: pytest.MonkeyPatch) -> None:
    _pin(monkeypatch, datetime(2025, 1, 15, 3, 0, tzinfo=UTC))
    out = info_mod.convert_time.invoke({"time": "3pm", "from_location": "Tokyo", "to_location": "New York"})
    assert "15:00" in out
    assert "01:00" in out
    with pytest.raises(ToolException):
        info_mod.convert_time.invoke({"time": "soon", "from_location": "Tokyo", "to_location": "Paris"})


def test_every_alias_maps_to_a_valid_zone() -> None:
    import zoneinfo

    for _label, zone in info_mod.ZONE_ALIASES.values():
        zoneinfo.ZoneInfo(zone)
    for alias in info_mod.PLACE_ALIASES:
        assert info_mod.resolve_location(alias).zone_name


def test_unknown_location() -> None:
    with pytest.raises(UnknownLocationError) as info:
        current_time.invoke({"location": "Atlantis Prime"})
    message = str(info.value)
    assert "Unknown location 'Atlantis Prime'" in message
    assert "IANA" in message
    assert issubclass(UnknownLocationError, ToolException)
    with pytest.raises(UnknownLocationError, match="Did you mean 'Tokyo'"):
        current_time.invoke({"location": "Tokyoo"})


# --- docs ---------------------------------------------------------------------------


@pytest.fixture
def docs_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "guide.md").write_text(
        "# Guide\n\nIntro text.\n\n## Installation\n\nRun the zephyrine installer twice.\n\n"
        "## Usage\n\nCall the API with C++ or Python.\n",
        encoding="utf-8",
    )
    (folder / "sub" / "notes.txt").write_text(
        "Paragraph one.\n\nThe quokka is a marsupial.\n", encoding="utf-8"
    )
    (folder / "ignored.py").write_text("zephyrine = 1\n", encoding="utf-8")
    (tmp_path / "secret.md").write_text("top secret zephyrine\n", encoding="utf-8")
    return folder


def _tools(folder: Path) -> dict[str, BaseTool]:
    return {t.name: t for t in make_docs_tools(folder)}


def test_docs_search_finds_term_with_snippet_and_path(docs_folder: Path) -> None:
    tools = _tools(docs_folder)
    out = tools["search_docs"].invoke({"query": "zephyrine installer"})
    assert "guide.md:7" in out
    assert "Guide > Installation" in out
    assert "Run the zephyrine installer twice." in out  # snippets are copied verbatim (no highlight marks)
    assert "secret" not in out and "ignored.py" not in out
    hits = get_index(docs_folder).search("quokka")
    assert [h.path for h in hits] == ["sub/notes.txt"]
    assert "marsupial" in hits[0].snippet


def test_docs_index_follows_file_changes(docs_folder: Path) -> None:
    index = get_index(docs_folder)
    assert index.search("wombat") == []
    (docs_folder / "new.md").write_text("# New\n\nA wombat appears.\n", encoding="utf-8")
    assert [h.path for h in index.search("wombat")] == ["new.md"]
    (docs_folder / "new.md").unlink()
    assert index.search("wombat") == []


def _indexed_signatures(folder: Path) -> dict[str, tuple[int, int]]:
    """The ``files`` table of the folder's index (what the in-memory signatures must equal)."""
    index = get_index(folder)
    with index._lock:
        return {r[0]: (r[1], r[2]) for r in index._db.execute("SELECT path, mtime_ns, size FROM files")}


def test_docs_index_sees_edits_at_the_next_search(docs_folder: Path) -> None:
    index = get_index(docs_folder)
    guide = docs_folder / "guide.md"
    assert [h.path for h in index.search("zephyrine")] == ["guide.md"]
    assert index.refresh() == 0  # an unchanged folder re-indexes nothing
    guide.write_text("# Guide\n\nRun the numbat installer.\n", encoding="utf-8")  # another size
    assert index.search("zephyrine") == []
    assert [h.path for h in index.search("numbat")] == ["guide.md"]
    before = guide.stat()
    guide.write_text("# Guide\n\nRun the bilbyy installer.\n", encoding="utf-8")  # the same size
    os.utime(guide, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    assert index.search("numbat") == []
    assert [h.path for h in index.search("bilbyy")] == ["guide.md"]
    assert index._known == _indexed_signatures(docs_folder) == index.scan()


def test_docs_skips_dot_files_and_dot_folders(docs_folder: Path) -> None:
    for rel in (".hidden.md", ".git/config.md", "sub/.cache/page.txt"):
        (docs_folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs_folder / rel).write_text("a hidden bandicoot\n", encoding="utf-8")
    index = get_index(docs_folder)
    assert index.search("bandicoot") == []
    assert index.documents() == ["guide.md", "sub/notes.txt"]


def test_docs_scan_order_is_sorted_files_before_subfolders(docs_folder: Path) -> None:
    for rel in ("b.md", "a.MD", "z.txt", "a/x.md", "sub/deep/y.markdown", "sub/a.md", "c.py"):
        (docs_folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs_folder / rel).write_text("text\n", encoding="utf-8")
    assert list(get_index(docs_folder).scan()) == [
        "a.MD",
        "b.md",
        "guide.md",
        "z.txt",
        "a/x.md",
        "sub/a.md",
        "sub/notes.txt",
        "sub/deep/y.markdown",
    ]


@pytest.mark.parametrize(
    "query",
    [
        "what's C++?",
        'AND OR NOT "unbalanced',
        "col:umn * ^ (x",
        "NEAR(a b)",
        "-minus +plus",
        "{x}[y]",
        "\u00e9t\u00e9 \u2014 caf\u00e9",
    ],
)
def test_docs_search_special_characters(docs_folder: Path, query: str) -> None:
    out = _tools(docs_folder)["search_docs"].invoke({"query": query})
    assert isinstance(out, str)


def test_fts_query_is_quoted() -> None:
    assert fts_query("what's C++?") == '"c"'
    assert fts_query('plugin "metadata" OR') == '"plugin" OR "metadata"'
    with pytest.raises(DocsError):
        get_index(BUNDLED_DOCS_DIR).search("?!")


@pytest.mark.parametrize("path", ["../secret.md", "/etc/passwd", "sub/../../secret.md", "ignored.py"])
def test_read_doc_refuses_outside_paths(docs_folder: Path, path: str) -> None:
    with pytest.raises(DocsError, match="Refused"):
        _tools(docs_folder)["read_doc"].invoke({"path": path})


def test_read_doc_and_list_docs(docs_folder: Path) -> None:
    tools = _tools(docs_folder)
    assert "quokka" in tools["read_doc"].invoke({"path": "sub/notes.txt"})
    assert "zephyrine" in tools["read_doc"].invoke({"path": "guide.md:7"})
    with pytest.raises(DocsError):
        tools["read_doc"].invoke({"path": "missing.md"})
    listing = tools["list_docs"].invoke({})
    assert "guide.md" in listing and "sub/notes.txt" in listing
    # one sentence: an answer rewritten from its first line listed no document ("4 document(s):")
    assert "\n" not in listing and listing.endswith(".")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
def test_docs_symlink_escape_is_ignored(docs_folder: Path) -> None:
    (docs_folder / "link.md").symlink_to(docs_folder.parent / "secret.md")
    assert get_index(docs_folder).search("secret") == []
    with pytest.raises(DocsError, match="Refused"):
        get_index(docs_folder).read("link.md")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
def test_docs_symlinks_inside_are_indexed_symlinked_folders_are_not_entered(docs_folder: Path) -> None:
    outside = docs_folder.parent / "outside"
    outside.mkdir()
    (outside / "away.md").write_text("the platypus lives outside\n", encoding="utf-8")
    (docs_folder / "linked-folder").symlink_to(outside, target_is_directory=True)
    (docs_folder / "same-sub").symlink_to(docs_folder / "sub", target_is_directory=True)
    (docs_folder / "alias.md").symlink_to(docs_folder / "guide.md")
    (docs_folder / "broken.md").symlink_to(docs_folder / "missing.md")
    index = get_index(docs_folder)
    assert index.search("platypus") == []
    assert index.documents() == ["alias.md", "guide.md", "sub/notes.txt"]
    assert {h.path for h in index.search("zephyrine")} == {"alias.md", "guide.md"}


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
def test_docs_a_symlink_loop_is_skipped(docs_folder: Path) -> None:
    (docs_folder / "loop.md").symlink_to(docs_folder / "loop.md")
    index = get_index(docs_folder)
    assert "loop.md" not in index.documents()
    assert {h.path for h in index.search("zephyrine")} == {"guide.md"}


def test_chunking_by_heading() -> None:
    passages = chunk_document("# A\n\ntext a\n\n## B\n\ntext b\n\n```\n# not a heading\n```\n")
    assert [(p.heading, p.line) for p in passages] == [("A", 3), ("A > B", 7)]
    assert "# not a heading" in passages[1].text


def test_bundled_docs_searchable() -> None:
    hits = get_index(BUNDLED_DOCS_DIR).search("agent hops limit")
    assert hits and hits[0].path in {"configuration.md", "settings.md"}
    assert any("CADENCE_MAX_AGENT_HOPS" in hit.snippet for hit in hits)


def test_docs_search_reads_a_how_to_verb_as_the_words_the_docs_use(docs_folder: Path) -> None:
    # a verb of the question the sections do not use ("add") would otherwise rank any passage having it
    (docs_folder / "widgets.md").write_text(
        "# Guide\n\n## Numbers\n\nDurations add up in hours and minutes.\n\n"
        "## Writing a widget\n\nA widget is a class with a render method.\n\n"
        "## Widget options\n\n`WIDGET_OFF` lists the widgets that are disabled.\n\n"
        "## Widgets\n\nWidgets are shown on the page.\n"
    )
    index = get_index(docs_folder)
    assert index.search("How do I add a widget?")[0].heading == "Guide > Writing a widget"
    assert index.search("How do I make a new widget?")[0].heading == "Guide > Writing a widget"
    assert index.search("How do I remove a widget?")[0].heading == "Guide > Widget options"
    assert index.search("how do durations add up")[0].heading == "Guide > Numbers"  # the verb itself


def test_bundled_docs_answer_how_to_questions() -> None:
    index = get_index(BUNDLED_DOCS_DIR)
    assert index.search("How do I add a plugin to Cadence?")[0].heading == "Plugins > Writing a plugin"
    assert "CADENCE_LLM" in index.search("How do I change the model?")[0].snippet
    assert "CADENCE_DISABLED_PLUGINS" in index.search("How do I remove a plugin?")[0].snippet


def test_a_query_of_a_word_the_docs_never_use_is_not_answered_by_its_other_words(tmp_path) -> None:
    """ "When is the next full moon?" had been answered with passages on "Full-text search" and "try
    next": a word no passage has ("moon") means the documentation does not cover it."""
    (tmp_path / "guide.md").write_text(
        "# Guide\n\n## Search\n\nFull-text search over the folder.\n\n## Next steps\n\nTry the "
        "plugins next.\n\n## Plugins\n\nA plugin adds an agent with its tools.\n",
        encoding="utf-8",
    )
    tools = {t.name: t for t in make_docs_tools(tmp_path)}
    said = tools["search_docs"].invoke({"query": "When is the next full moon?"})
    assert said == "The documentation does not cover this: no passage mentions 'moon'."
    # the words it does use are found: with filler words it never uses, and with a typo of one of them
    assert "guide.md" in tools["search_docs"].invoke({"query": "hey, explain plugins basically"})
    assert "guide.md" in tools["search_docs"].invoke({"query": "the pluginz agent"})
    assert "guide.md" in tools["search_docs"].invoke({"query": "full-text search"})


def test_a_setting_the_docs_never_name_is_said_as_written(tmp_path) -> None:
    """ "What does CADENCE_MAX_TURNS do?" (no such setting) had been "No passages match ...: Try other or fewer
    keywords.", said to the user as the answer."""
    (tmp_path / "guide.md").write_text(
        "# Guide\n\n## Limits\n\n`CADENCE_MAX_TOOL_HOPS` (default 50): tool calls per turn.\n",
        encoding="utf-8",
    )
    tools = {t.name: t for t in make_docs_tools(tmp_path)}
    said = tools["search_docs"].invoke({"query": "What does CADENCE_MAX_TURNS do?"})
    assert said == "The documentation does not cover this: no passage mentions 'CADENCE_MAX_TURNS'."
    assert "guide.md" in tools["search_docs"].invoke({"query": "What does CADENCE_MAX_TOOL_HOPS do?"})


def test_the_bundled_docs_answer_what_the_guards_are_and_how_to_delete_a_thread() -> None:
    """The bundled documentation had no passage on the guards ("What are guards?" reached the model: "Guns.")
    and said how to delete a thread in a sentence on listing them (the retention setting came first)."""
    tools = {t.name: t for t in DocsPlugin.create_agent().get_tools()}
    guards = tools["search_docs"].invoke({"query": "What are guards?"})
    assert guards.split("\n\n")[1].startswith("[1] overview.md") and "The **guards** are what" in guards
    deleted = tools["search_docs"].invoke({"query": "How do I delete a thread?"})
    assert "To delete a thread, send `DELETE /api/v1/threads/{id}`" in deleted.split("\n\n")[1]


def test_a_name_the_docs_never_use_is_said_before_the_nearest_passages(tmp_path) -> None:
    """ "How do I run Cadence with Docker?" had been answered with the install and serve passages as if they
    spoke of Docker: a name the documentation never uses is said first."""
    (tmp_path / "guide.md").write_text(
        "# Guide\n\n## Running Cadence\n\nRun Cadence with `cadence serve`.\n", encoding="utf-8"
    )
    tools = {t.name: t for t in make_docs_tools(tmp_path)}
    said = tools["search_docs"].invoke({"query": "How do I run Cadence with Docker?"})
    assert (
        said.startswith("The documentation does not mention 'Docker'.\n\n1 passage(s)") and "guide.md" in said
    )
    plain = tools["search_docs"].invoke({"query": "How do I run Cadence with docker?"})  # no name said
    assert plain.startswith("1 passage(s)")


def test_bundled_docs_answer_a_subject_said_another_way() -> None:
    """A phrase documents write as one word ("times out": timeout; "the CLI": the command line) and a
    subject they name otherwise ("authentication": the API keys) find their passage; "times" alone had found
    "how many times a letter appears"."""
    index = get_index(BUNDLED_DOCS_DIR)
    assert "CADENCE_TOOL_TIMEOUT" in index.search("What happens when a tool times out?")[0].snippet
    assert "CADENCE_API_KEYS" in index.search("How do I add authentication to the API?")[0].snippet
    assert "cadence chat" in index.search("How do I use the CLI?")[0].snippet
    assert one_word_phrases("when a tool timed out, log in on the command line") == (
        "when a tool timeout, login on the cli"
    )


def test_docs_snippet_starts_at_the_beginning_of_its_line() -> None:
    body = "Intro.\n- `DATA_DIR` (default `~/.x`): where the database lives, and more words."
    assert from_line_start("…where the database lives…", body) == (
        "…- `DATA_DIR` (default `~/.x`): where the database lives…"
    )
    assert from_line_start("Intro.", body) == "Intro."  # already at the start
    assert from_line_start("…not in the body", body) == "…not in the body"
    hits = get_index(BUNDLED_DOCS_DIR).search("where is the sqlite database stored")
    assert "CADENCE_DATA_DIR" in hits[0].snippet


def test_docs_snippet_ends_where_its_line_ends() -> None:
    body = "Tones:\nnatural: friendly and conversational, in plain words.\nconcise: short."
    assert (
        to_line_end("…natural: friendly and…", body)
        == "…natural: friendly and conversational, in plain words.…"
    )
    assert to_line_end("…concise: short…", body) == "…concise: short."  # the passage's end
    assert to_line_end("Tones:", body) == "Tones:"  # not cut


def test_docs_health_check(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, docs_folder: Path) -> None:
    from cadence.builtins import docs as docs_mod

    monkeypatch.setattr(docs_mod, "docs_folder", lambda: docs_folder)
    assert DocsPlugin.health_check()["healthy"] is True
    monkeypatch.setattr(docs_mod, "docs_folder", lambda: tmp_path / "missing")
    assert DocsPlugin.health_check()["healthy"] is False
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setattr(docs_mod, "docs_folder", lambda: empty)
    assert DocsPlugin.health_check()["healthy"] is False


def test_docs_folder_from_settings(monkeypatch: pytest.MonkeyPatch, docs_folder: Path) -> None:
    from cadence.builtins import docs as docs_mod
    from cadence.settings import get_settings

    monkeypatch.setenv("CADENCE_DOCS_DIR", str(docs_folder))
    get_settings.cache_clear()
    try:
        assert docs_mod.docs_folder() == docs_folder
    finally:
        get_settings.cache_clear()
    monkeypatch.delenv("CADENCE_DOCS_DIR")
    assert docs_mod.docs_folder() == BUNDLED_DOCS_DIR
    get_settings.cache_clear()


# --- plugins ------------------------------------------------------------------------


def test_builtin_plugins_mapping() -> None:
    assert {
        "math": MathPlugin,
        "info": InfoPlugin,
        "docs": DocsPlugin,
        "geo": GeoPlugin,
        "text": TextPlugin,
    } == BUILTIN_PLUGINS


@pytest.mark.parametrize("name", ["math", "info", "docs", "geo"])
def test_plugin_metadata_and_agent(name: str) -> None:
    plugin = BUILTIN_PLUGINS[name]
    meta = plugin.get_metadata()
    assert isinstance(meta, PluginMetadata)
    assert meta.name == name
    assert meta.capabilities and meta.response_suggestion
    PluginMetadata.model_validate(meta.model_dump())
    assert plugin.validate_dependencies() == []
    agent = plugin.create_agent() if name != "docs" else DocsAgent(meta, folder=BUNDLED_DOCS_DIR)
    assert isinstance(agent, BaseAgent)
    tools = agent.get_tools()
    assert tools and len({t.name for t in tools}) == len(tools)
    assert all(t.description for t in tools)
    assert "tool" in agent.get_system_prompt().lower()


def test_math_response_schema() -> None:
    schema = MathPlugin.get_metadata().response_schema
    assert schema is not None
    assert set(schema["properties"]) == {"expression", "result"}


def test_tool_names() -> None:
    names = {
        name: sorted(
            t.name
            for t in (
                p.create_agent() if name != "docs" else DocsAgent(p.get_metadata(), folder=BUNDLED_DOCS_DIR)
            ).get_tools()
        )
        for name, p in BUILTIN_PLUGINS.items()
    }
    assert names == {
        "math": ["calculate", "percent_change", "percent_of", "percentage", "statistics"],
        "info": ["clock_calculator", "convert_time", "current_time", "date_calculator", "time_difference"],
        "docs": ["list_docs", "read_doc", "search_docs"],
        "geo": ["place_facts"],
        "text": ["summarize_text", "text_facts"],
    }


def test_an_amount_of_money_is_also_said_in_cents() -> None:
    said = calculate.invoke({"expression": "dinner for 4 was $138 with a 15% tip, split evenly: each pays?"})
    assert said.endswith("= 39.675 (about $39.68)")  # half a cent rounds up
    assert calculate.invoke({"expression": "split 100 euros 3 ways"}).endswith("(about €33.33)")
    assert calculate.invoke({"expression": "10 / 3"}) == "3.33333333333"  # no money, no cents
    assert calculate.invoke({"expression": "$7.80 / 12"}).endswith("= 0.65 ($0.65)")  # cents already
    assert calculate.invoke({"expression": "Tip of 20% on $45.50"}).endswith("= 9.1 ($9.10)")
    assert calculate.invoke({"expression": "$20 an hour for 8 hours"}).endswith(
        "= 160 ($160)"
    )  # whole dollars
    # a count of things bought with money is no amount
    from cadence.builtins.math import _in_money

    assert _in_money("How many $5 bills make $100?", 20) == ""
    assert _in_money("What's 8% of $250?", 20) == " ($20)"
    assert _in_money("Split a $120 bill among 4 people", 30) == " ($30)"  # one bill: an amount
    # a percentage of two amounts is no amount
    assert calculate.invoke({"expression": "What percent of $75 is $10?"}).endswith("= 13.3333333333")


def test_a_docs_query_leaves_out_an_opening_word_asking_how_to_present() -> None:
    from cadence.builtins.docs import query_terms

    assert query_terms("Summarize the docs about plugins") == ["plugins"]
    assert query_terms("Explain the coordinator") == ["coordinator"]
    assert query_terms("What is a summary?") == ["summary"]  # the only word: what is asked


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("What's 1/3 + 1/4?", "1/3 + 1/4 = 7/12 (about 0.5833)"),
        ("1/2 - 1/3", "1/2 - 1/3 = 1/6 (about 0.1667)"),
        ("What is 2/3 times 3/4?", "2/3 times 3/4 = 1/2 (about 0.5)"),
        ("3/4 divided by 1/2", "3/4 divided by 1/2 = 3/2 (about 1.5)"),
        ("1/2 + 1/2", "1/2 + 1/2 = 1"),
    ],
)
def test_arithmetic_of_fractions_is_exact(question: str, said: str) -> None:
    """ "1/3 + 1/4" was "about 0.58": fractions stay fractions."""
    assert calculate.invoke({"expression": question}) == said


def test_a_fraction_divided_by_zero_is_undefined() -> None:
    assert calculate.invoke({"expression": "1/0 + 1/2"}) == (
        "1/0 + 1/2 is undefined: a number cannot be divided by zero."
    )


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Is zero even?", "Yes, 0 is even."),  # it had been "Is zero even = 0 even"
        ("Is seven odd?", "Yes, 7 is odd."),
        ("Is twenty-one prime?", "No, 21 is not a prime number: 21 = 3 × 7."),
    ],
)
def test_a_number_in_words_is_asked_of_as_in_digits(question: str, said: str) -> None:
    assert calculate.invoke({"expression": question}) == said


def test_a_fraction_converted_is_said_as_written() -> None:
    """ "How much is 3/4 cup in tablespoons?" had been "(3 / 4) cup = 12 tablespoons", then "The answer is
    12." once the final answer could not read it."""
    from cadence.models.local.policy import measured_statement

    result = calculate.invoke({"expression": "How much is 3/4 cup in tablespoons?"})
    assert result.startswith("3/4 cup = 12 tablespoons")
    assert measured_statement(result) == "3/4 cup is 12 tablespoons."
