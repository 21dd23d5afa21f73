"""Which sentences of a search result answer a question, and where a search snippet starts.

The answer from documents quotes the sentences most about the question (:func:`relevant_sentences`):
a setting asked for by what it does, a limit, a folder, a rule for a conflict. The sentence that
answers must come first and, when it clearly answers, alone; the settings around it in the same list
are not quoted. A search snippet (:func:`snippet_for`) starts at the sentence (or bullet) most about
the query, so that the answer is in the result at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cadence.builtins.docs import (
    BUNDLED_DOCS_DIR,
    format_hits,
    from_line_start,
    get_index,
    query_terms,
    snippet_for,
    title_coverage,
    to_line_end,
)
from cadence.passages import Asked, defined_term, relevant_sentences, stem

SETTINGS = """3 passage(s) for 'x' (source = path:line; read_doc(path) shows a whole file):

[1] settings.md:87 — Settings reference > Orchestration
- `CADENCE_COORDINATOR_TIMEOUT` (default `30.0`): Timeout (s) of one decision in every mode: the coordinator's, the supervisor's and the planner's; agents' model calls and tools get the turn's remaining time instead. - `CADENCE_MAX_AGENT_HOPS` (default `25`): Agent routes allowed per turn; one more suspends.

[2] settings.md:70 — Settings reference > Model calls
- `CADENCE_MODEL_TIMEOUT` (default `60.0`): Timeout in seconds of one model call. - `CADENCE_MODEL_CONNECT_TIMEOUT` (default `5.0`): Timeout (s) to connect to a model server.

[3] configuration.md:18 — Configuration and limits > Orchestration limits
…- `CADENCE_TURN_TIMEOUT` (default 120 s): deadline of a whole turn. - `CADENCE_TOOL_TIMEOUT` (default 30 s): timeout of one tool execution. - `CADENCE_MAX_TOOL_HOPS` (default 50): tool executions allowed per turn. - `CADENCE_INLINE_TOOL_MAX…
"""

LIMITS = """2 passage(s) for 'x' (source = path:line; read_doc(path) shows a whole file):

[1] plugins.md:21 — Plugins > Plugin metadata
- `name`: unique; starts with a letter; at most 52 characters. Names of graph nodes are reserved. - `version`: such as `1.0.0`. When two plugins share a name, the higher version wins. - `description`: what the agent does, shown to the coordinator (at least 10 characters). - `capabilities`: short phrases the coordinator routes by.

[2] settings.md:43 — Settings reference > Limits
- `CADENCE_MAX_MESSAGE_CHARS` (default `32000`): Max characters of one user message. - `CADENCE_MAX_ID_CHARS` (default `128`): Max characters of a thread, user, org or project id. - `CADENCE_NOTE_MAX_CHARS` (default `50000`): Max characters of a note.
"""

FOLDERS = """3 passage(s) for 'x' (source = path:line; read_doc(path) shows a whole file):

[1] settings.md:8 — Settings reference > Agents
- `CADENCE_AGENTS_DIR` (default `(empty)`): Folders (or files) of agents written in Markdown (comma separated); see [docs/agents-in-markdown.md](docs/agents-in-markdown.md). - `CADENCE_AGENT` (default `(unset)`): The agent a turn talks to when the request names none.

[2] settings.md:103 — Settings reference > Plugins
- `CADENCE_PLUGINS_DIR` (default `(empty)`): Plugin directories (comma separated). - `CADENCE_DISABLED_PLUGINS` (default `(empty)`): Plugin names never loaded.

[3] settings.md:124 — Settings reference > Storage
- `CADENCE_DATA_DIR` (default `~/.cadence`): Where the SQLite database and indexes live. - `CADENCE_HISTORY_MAX_CHECKPOINTS` (default `200`): Most checkpoints a thread's history lists.
"""

CONFLICTS = """2 passage(s) for 'x' (source = path:line; read_doc(path) shows a whole file):

[1] builtin-plugins.md:22 — Built-in plugins > info
A world clock for any city of the world. When several places share a name, the most populous is used and the answer names the others. Add the country or state to choose one.

[2] plugins.md:21 — Plugins > Plugin metadata
- `version`: such as `1.0.0`. When two plugins share a name, the higher version wins. - `description`: what the agent does, shown to the coordinator.
"""


@pytest.mark.parametrize(
    ("result", "question", "first", "absent"),
    [
        # a setting asked for by what it does: the one whose name the question's words make up
        (SETTINGS, "What's the timeout for connecting to a model server?", "`CADENCE_MODEL_CONNECT_TIMEOUT`",
         ["CADENCE_MODEL_TIMEOUT`", "COORDINATOR"]),
        (SETTINGS, "How many tool calls may a turn make?", "`CADENCE_MAX_TOOL_HOPS`",
         ["COORDINATOR", "AGENT_HOPS"]),
        (SETTINGS, "Which setting limits how long a tool may run?", "`CADENCE_TOOL_TIMEOUT`",
         ["COORDINATOR", "MODEL_TIMEOUT"]),
        (SETTINGS, "What is the deadline of a whole turn?", "`CADENCE_TURN_TIMEOUT`", ["COORDINATOR"]),
        # a limit: "how long" is a number of characters ("at most", "max characters")
        (LIMITS, "How long may a user message be?", "`CADENCE_MAX_MESSAGE_CHARS`", ["ID_CHARS", "NOTE"]),
        (LIMITS, "What's the maximum length of a thread id?", "`CADENCE_MAX_ID_CHARS`", ["MESSAGE", "NOTE"]),
        (LIMITS, "What's the longest name a plugin can have?", "`name`: unique", ["version", "CADENCE_"]),
        # a folder: "directory" and "dir" are folders; the setting of the folder asked for, not another
        (FOLDERS, "Which directory are plugins loaded from?", "`CADENCE_PLUGINS_DIR`", ["AGENTS_DIR", "DATA_DIR"]),
        (FOLDERS, "Where does Cadence store its database?", "`CADENCE_DATA_DIR`", ["AGENTS_DIR", "PLUGINS_DIR"]),
        (FOLDERS, "How do I give Cadence a folder of agents written in markdown?", "`CADENCE_AGENTS_DIR`",
         ["PLUGINS_DIR", "DATA_DIR"]),
        # a conflict rule: "the same name" is "share a name"; the rule for the things asked about
        (CONFLICTS, "Which plugin is loaded when two have the same name?", "When two plugins share a name",
         ["populous", "world clock"]),
        (CONFLICTS, "What if two cities have the same name?", "When several places share a name",
         ["higher version"]),
    ],
)  # fmt: skip
def test_the_sentence_that_answers_comes_first_and_alone(
    result: str, question: str, first: str, absent: list[str]
) -> None:
    answer = relevant_sentences(result, question, or_passages=False)
    assert answer.startswith(first), answer
    for other in absent:
        assert other not in answer, answer


def test_a_sentence_cut_at_its_start_is_quoted_only_without_a_whole_one() -> None:
    cut = (
        "2 passage(s) for 'x' (source = path:line):\n\n"
        "[1] settings.md:124 — Settings reference > Storage\n"
        "…checked at every checkout of a pooled connection. - `CADENCE_POSTGRES_POOL_SIZE` "
        "(default `10`): Most PostgreSQL connections of one pool.\n"
    )
    answer = relevant_sentences(cut, "How many connections does a pool open?", or_passages=False)
    assert answer == "`CADENCE_POSTGRES_POOL_SIZE` (default `10`): Most PostgreSQL connections of one pool."
    alone = "[1] a.md:3 — A\n…checked at every checkout of a pooled connection.\n"
    assert relevant_sentences(alone, "when is a pooled connection checked?", or_passages=False) == (
        "checked at every checkout of a pooled connection."
    )
    # a few words left of a cut sentence do not open the next one
    short = (
        "[1] a.md:3 — A\n…no clipping. - `CADENCE_TURN_TIMEOUT` (default 120 s): deadline of a whole turn.\n"
    )
    said = relevant_sentences(short, "which setting is the turn deadline?", or_passages=False)
    assert said == "`CADENCE_TURN_TIMEOUT` (default 120 s): deadline of a whole turn."


def test_a_broad_question_still_gets_the_passage_that_describes_it() -> None:
    """A question about a topic ("what does the coordinator do") has no one sentence that answers: the
    description of the topic is quoted in its order, not a setting that only names it."""
    result = (
        "2 passage(s) for 'coordinator' (source = path:line):\n\n"
        "[1] settings.md:87 — Settings reference > Orchestration\n"
        "- `CADENCE_COORDINATOR_LLM` (default `(unset)`): Coordinator model override (provider:model).\n\n"
        "[2] overview.md:38 — What Cadence is > How a turn flows > The coordinator\n"
        "The coordinator decides which agent should act next. It routes with tools named "
        "`goto_<plugin>_agent`. When an agent hands back, the coordinator routes again or finishes."
    )
    answer = relevant_sentences(result, "Look up in the docs what the coordinator does", or_passages=False)
    assert answer.startswith("The coordinator decides which agent should act next. It routes with tools")
    assert "CADENCE_COORDINATOR_LLM" not in answer
    # a sentence introducing a list is quoted with the list
    listing = (
        "[1] plugins.md:8 — Plugins > Writing a plugin\n"
        "A plugin is a subclass of `BasePlugin` with two class methods: - `get_metadata()` returns a "
        "`PluginMetadata`. - `create_agent()` returns a `BaseAgent`."
    )
    assert relevant_sentences(listing, "how do I write a plugin?", or_passages=False) == (
        "A plugin is a subclass of `BasePlugin` with two class methods: `get_metadata()` returns a "
        "`PluginMetadata`. `create_agent()` returns a `BaseAgent`."
    )


def test_a_word_only_quoted_as_an_example_counts_less() -> None:
    """ "How do I disable the docs plugin?" had quoted the docs search's sentence mentioning '"remove" as
    "disable"'; a word quoted inside code (`pip install "cadence-agents[openai]"`) still counts in full."""
    asked = Asked("How do I disable a plugin?")
    mention = 'A plugin reads verbs such as "disable" or "remove" as the documents write them.'
    use = "A plugin named in this setting is never loaded at start: the setting is how you disable it."
    assert asked.score(mention)[0] < asked.score(use)[0]
    code = Asked("How do I use OpenAI?")
    assert (
        code.score('Install its extra (`pip install "cadence-agents[openai]"`).')[0]
        == code.score("Install its extra (`pip install cadence-agents[openai]`).")[0]
    )


def test_a_further_sentence_introducing_what_is_not_quoted_is_left_out() -> None:
    """ "Explain in detail what a plugin is" had ended on "... with two class methods:", its list cut."""
    result = (
        "[1] plugins.md:1 — Plugins\n"
        "A plugin gives Cadence an agent: a worker with its own prompt and tools. The coordinator chooses "
        "between plugins by their metadata.\n\n"
        "[2] plugins.md:8 — Plugins > Writing a plugin\n"
        "A plugin is a subclass of `cadence.sdk.BasePlugin` with two class methods: - `get_metadata()` "
        "returns a `PluginMetadata`. - `create_agent()` returns a `BaseAgent` subclass.…"
    )
    answer = relevant_sentences(result, "Explain what a plugin is.", or_passages=False)
    assert answer.startswith("A plugin gives Cadence an agent") and not answer.endswith(":")


def test_a_setting_listed_by_two_documents_is_quoted_once() -> None:
    result = (
        "[1] configuration.md:18 — Configuration and limits > Orchestration limits\n"
        "- `CADENCE_MAX_AGENT_HOPS` (default 25): agent routes allowed per turn.\n\n"
        "[2] settings.md:43 — Settings reference > Limits\n"
        "- `CADENCE_MAX_AGENT_HOPS` (default `25`): Agent routes allowed per turn; one more suspends.\n\n"
        "[3] overview.md:54 — What Cadence is > The suspend node\n"
        "If a limit is reached (too many agent routes), the turn goes to the suspend node."
    )
    answer = relevant_sentences(result, "what is the limit of agent routes in a turn?", or_passages=False)
    assert answer.count("CADENCE_MAX_AGENT_HOPS") == 1


def test_the_words_of_a_question_are_stemmed_weighed_and_related() -> None:
    assert stem("memories") == stem("memory") and stem("recalled") == stem("recall")
    assert stem("names") == stem("named") == stem("name") and stem("folders") == stem("folder")
    asked = Asked("How many memories does Cadence recall?")
    assert asked.weights[stem("memories")] == 1.0 and asked.weights[stem("many")] < 1.0
    # the documentation as where to look is no topic; the docs plugin is one
    assert stem("docs") not in Asked("What do the docs say about the synthesizer?").weights
    assert stem("docs") not in Asked("According to the docs, which setting controls it?").weights
    assert Asked("How do I point the docs plugin at a folder?").weights[stem("docs")] == 1.0
    # related words count, less than the word itself
    single = Asked("a single tool call")
    strengths, _ = single.matches("timeout of one tool execution")
    assert strengths[stem("tool")] > strengths[stem("call")] > 0 and stem("single") in strengths


PLUGIN_METADATA = """# Plugins

## Plugin metadata

- `name`: unique; starts with a letter; letters, digits, spaces, `-` or `_`; at
  most 52 characters. Names of graph nodes (coordinator, control, suspend,
  synthesizer, finalize, finalizer) are reserved. The agent node is named
  `<name>_agent`.
- `version`: such as `1.0.0`. When two plugins share a name, the higher version wins.
- `description`: what the agent does, shown to the coordinator (at least 10 characters).
- `capabilities`: short phrases the coordinator routes by.
"""


def test_a_snippet_starts_at_the_bullet_most_about_the_query() -> None:
    body = PLUGIN_METADATA.split("## Plugin metadata\n\n", 1)[1]
    fts = "…synthesizer, finalize, finalizer) are reserved. The agent node is named `<name>_agent`…"
    snippet = snippet_for("What is the maximum length of a plugin name?", body, fts)
    assert snippet.startswith("- `name`: unique;") and "most 52 characters" in snippet
    # about 40 words, then to the end of the line
    assert snippet.endswith("the higher version wins.…")
    later = snippet_for("what does a plugin's description say", body, fts)
    assert later.startswith("…- `description`: what the agent does")
    # no word of the query that this stemmer knows (FTS5's may know more): FTS5's window, to its line's ends
    assert snippet_for("синтезатор", body, fts) == to_line_end(from_line_start(fts, body), body)


def test_a_snippet_ends_where_its_wrapped_sentence_or_bullet_ends() -> None:
    """Markdown wraps a paragraph over lines: a snippet ending at its line's end had quoted "… decorator)
    and…" for "How do I add a plugin?"."""
    body = (
        "A plugin is a subclass of `cadence.sdk.BasePlugin` with two class methods:\n\n"
        "- `get_metadata()` returns a `PluginMetadata`.\n"
        "- `create_agent()` returns a `BaseAgent` subclass that implements `get_tools()`\n"
        "  (LangChain tools, for example made with the `cadence.sdk.tool` decorator) and\n"
        "  `get_system_prompt()`.\n\n"
        "Optional: `health_check()` returns a dict.\n"
    )
    snippet = snippet_for("How do I add a plugin?", body, "…")
    assert snippet.startswith("A plugin is a subclass")
    assert snippet.endswith("`get_system_prompt()`.…")
    # "e.g." ends no sentence
    prose = (
        "Tools may take any text, "
        + "e.g. 'twelve times twelve', "
        + "and read it " * 16
        + "as they can.\nMore."
    )
    assert snippet_for("what text do tools take", prose, "…").startswith(
        "Tools may take any text, e.g. 'twelve"
    )
    assert snippet_for("what text do tools take", prose, "…").endswith("as they can.…")


def test_a_snippet_of_prose_starts_at_its_best_sentence() -> None:
    body = (
        "Cadence is a framework. It has agents and plugins that do many things for the user, and a\n"
        "long paragraph that goes on. The folder is `CADENCE_DOCS_DIR`, or the bundled documents when it\n"
        "is not set. Files are re-indexed when they change."
    )
    snippet = snippet_for("which folder does the docs plugin read", body, "…")
    assert snippet.startswith("…The folder is `CADENCE_DOCS_DIR`")
    assert snippet.endswith("Files are re-indexed when they change.")


def test_search_hits_show_the_answering_bullet(tmp_path: Path) -> None:
    (tmp_path / "plugins.md").write_text(PLUGIN_METADATA, encoding="utf-8")
    hits = get_index(tmp_path).search("What's the longest name a plugin can have?")
    assert hits and "at most 52 characters" in hits[0].snippet
    assert hits[0].snippet.startswith("- `name`: unique;")


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("How long can a note be?", "`CADENCE_NOTE_MAX_CHARS`"),
        ("How many memories are kept per user?", "`CADENCE_MEMORY_MAX_ITEMS`"),
        ("Where does Cadence keep its database?", "`CADENCE_DATA_DIR`"),
        ("What is the default port of the server?", "`CADENCE_PORT`"),
        ("Which version is used when two plugins are named the same?", "When two plugins share a name"),
        ("What does the documentation say about the suspend node?", "If a limit is reached"),
        ("According to the docs, which setting controls the turn deadline?", "`CADENCE_TURN_TIMEOUT`"),
        # what a thing is: the sentence that defines it, not a setting or a list that names it
        ("What is Cadence?", "Cadence is a multi-agent conversation framework"),
        ("Tell me what Cadence does", "Cadence is a multi-agent conversation framework"),
        ("What does the supervisor mode do?", "supervisor: a supervisor hands the question off"),
        ("Explain the planner mode", "planner: a planner picks the tools first"),
        ("What does the info plugin do?", "A world clock."),
        ("What is the docs plugin?", "Full-text search (SQLite FTS5)"),
        # a section titled with the question's words answers it, in the section's own order
        ("How are plugins discovered?", "Entry points in the `cadence.plugins` group"),
        (
            "Which database backends can store conversations?",
            "Checkpoints are written to one of three database",
        ),
        ("What is human in the loop?", "A tool that changes something can require a human's approval"),
        # a section titled with the question's words, whose answer comes later in it
        ("What is the single mode?", "single: one agent and its tools answer directly"),
        ("How do I write an agent in Markdown?", "An agent can also be written without Python"),
        # under a heading that has the question's words, the sentence that says them itself
        ("What do the docs say about streaming?", "Answers are streamed token by token"),
        ("Is there an OpenAI-compatible API?", "An OpenAI-compatible endpoint"),
        # one word of many in a title ("Long-term memory") does not outrank the passage that answers
        ("How long can a tool call take before it times out?", "`CADENCE_TOOL_TIMEOUT`"),
        # sections added after questions that had reached the model or the wrong passage
        ("Where is data stored?", "Cadence's data is stored in the data directory"),
        ("How do I list plugins?", "To list the plugins loaded"),
        ("How do I forget what I told you?", "To make Cadence forget what you told it"),
        ("How do I see the trace of a turn?", "Every answer comes with a trace"),
        ("What Python version does Cadence need?", "Cadence needs Python version 3.11 or newer"),
    ],
)
def test_questions_about_the_bundled_documentation_are_answered_by_their_sentence(
    question: str, first: str
) -> None:
    result = format_hits(question, get_index(BUNDLED_DOCS_DIR).search(question, 5))
    answer = relevant_sentences(result, question, or_passages=False)
    assert answer.startswith(first), answer


def test_the_snippets_look_for_what_the_answer_looks_for() -> None:
    """The docs plugin places a snippet at the sentence the answer from its passages will quote: both read
    a question with one vocabulary (``cadence.text``)."""
    from cadence import passages, text
    from cadence.builtins import docs

    for name in ("WEAK_WORDS", "RELATED_WORDS", "THE_DOCS_RE", "stem", "WEAK_WEIGHT", "RELATED_STRENGTH"):
        assert getattr(docs, name) is getattr(text, name) is getattr(passages, name)
    words = "memories recalled names named classes status replies timeouts folders directories settings note"
    assert [text.stem(w) for w in words.split()] == [
        "memory", "recall", "nam", "nam", "class", "status", "reply", "timeout", "fold", "directory", "sett",
        "not",
    ]  # fmt: skip
    assert docs.PART_STRENGTH == passages.PART_STRENGTH


def test_a_section_titled_with_the_query_ranks_first_and_shows_its_beginning(tmp_path: Path) -> None:
    """BM25 knows the words of a heading, not whose title they are: among passages that all mention the
    query's words, the section named after them comes first and its snippet starts where it begins."""
    (tmp_path / "guide.md").write_text(
        "# Widgets\n\nWidgets are small gadgets. Widgets are blue.\n\n"
        "## Installing\n\nInstall widgets with pip; widgets need widgets-core and more widgets.\n\n"
        "## Colors\n\nRed widgets are rare; most widgets are blue widgets.\n",
        encoding="utf-8",
    )
    hits = get_index(tmp_path).search("What are widgets?")
    assert hits[0].heading == "Widgets"
    assert hits[0].snippet.startswith("Widgets are small gadgets.")
    assert title_coverage("Widgets > Colors", ["widget"]) == 0.5
    assert title_coverage("Guide > Colors", ["widget", "color"]) == 0.5
    assert title_coverage("Widgets", ["widget"]) == 1.0 and title_coverage("Widgets", []) == 0.0


def test_the_docs_as_where_to_look_are_no_search_term_the_docs_plugin_is() -> None:
    assert query_terms("What do the docs say about tones?") == ["tones"]
    assert query_terms("Search the docs for the planner mode") == ["planner", "mode"]
    assert query_terms("What does the docs plugin do?") == ["docs", "plugin"]


@pytest.mark.parametrize(
    ("sentence", "term"),
    [
        ("Cadence is a multi-agent conversation framework.", "cadence"),
        ("A mode is how the agents are orchestrated.", "mode"),
        ("- **supervisor**: a supervisor hands the question off.", "supervisor"),
        ("…- **long-term memory**: facts kept per user.", "long-term memory"),
        ("The **synthesizer** writes the final answer.", "synthesizer"),
        ("Conversations are threads.", "conversations"),
        ("If limits are reached, the turn suspends.", ""),
        ("There are two modes.", ""),
        ("It is fine.", ""),
        ("The turn goes to the suspend node.", ""),
    ],
)
def test_the_term_a_sentence_defines(sentence: str, term: str) -> None:
    assert defined_term(sentence) == Asked(term).weights.keys() if term else not defined_term(sentence)


def test_a_definition_of_the_asked_term_beats_a_setting_that_lists_it() -> None:
    result = (
        "[1] settings.md:87 — Settings reference > Orchestration\n"
        "- `CADENCE_MODE` (default `coordinator`): Orchestration mode of a turn: coordinator, supervisor, "
        "planner or single.\n\n"
        "[2] overview.md:24 — What Cadence is > Modes\n"
        "…- **supervisor**: a supervisor hands the question off to agents."
    )
    answer = relevant_sentences(result, "What does the supervisor mode do?", or_passages=False)
    assert answer == "supervisor: a supervisor hands the question off to agents."
    # the opening sentence of a section introduces what its title names; a later passage does not
    plugin = (
        "[1] builtin-plugins.md:53 — Built-in plugins > info\n"
        "`clock_calculator(question)` does the same for times of day.\n\n"
        "[2] builtin-plugins.md:22 — Built-in plugins > info\n"
        "A world clock. Tools: `current_time(location)`.\n\n"
        "[3] plugins.md:37 — Plugins > How plugins are found\n"
        "- The built-in plugins `math`, `info` and `docs`, chosen with `CADENCE_BUILTIN_PLUGINS`."
    )
    answer = relevant_sentences(plugin, "What does the info plugin do?", or_passages=False)
    assert answer.startswith("A world clock. Tools: `current_time(location)`."), answer


def test_a_verb_of_doing_says_little_of_what_is_asked() -> None:
    """ "How do I run it with PostgreSQL?" asks about PostgreSQL: settings that merely "run" something are
    not quoted beside the one that names it."""
    result = """2 passage(s) for 'x' (source = path:line; read_doc(path) shows a whole file):

[1] settings.md:10 — Settings reference > Database
- `CADENCE_DATABASE_URL`: `sqlite:///path.db`, `postgresql://...` or `memory://`.
- `CADENCE_APPROVAL_TOOLS`: Tools that need a human's approval before they run.

[2] settings.md:40 — Settings reference > Planner
- `CADENCE_RESEARCHER_MAX_ITERATIONS`: tool rounds the researcher runs at most per turn.
"""
    answer = relevant_sentences(result, "How do I run Cadence with PostgreSQL?")
    assert answer.startswith("`CADENCE_DATABASE_URL`")
    assert "APPROVAL" not in answer and "RESEARCHER" not in answer
    assert (
        Asked("How does memory work?").weights[stem("work")]
        < Asked("How does memory work?").weights["memory"]
    )


def test_an_abbreviation_of_two_capitals_is_a_word_of_the_query() -> None:
    """ "Is there a web UI?" had been searched for "web" alone, and answered with the HTTP API's sentences;
    the snippet's later sentence, after the section's start and a "…", is a sentence of its own."""
    question = "Is there a web UI?"
    result = format_hits(question, get_index(BUNDLED_DOCS_DIR).search(question, 5))
    answer = relevant_sentences(result, question)
    assert answer.startswith("The server also serves a web chat page, the web UI, at `/`")


def test_a_setting_two_documents_list_is_quoted_once() -> None:
    question = "What's CADENCE_MAX_AGENT_HOPS?"
    result = format_hits(question, get_index(BUNDLED_DOCS_DIR).search(question, 5))
    answer = relevant_sentences(result, question)
    assert answer.count("CADENCE_MAX_AGENT_HOPS") == 1, answer


def test_how_to_use_postgresql_is_answered_by_its_setting() -> None:
    question = "How do I use PostgreSQL?"
    result = format_hits(question, get_index(BUNDLED_DOCS_DIR).search(question, 5))
    assert relevant_sentences(result, question).startswith("To use PostgreSQL, install the extra")
