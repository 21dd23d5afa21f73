"""The built-in ``docs`` plugin: full-text search over a folder of Markdown and text files.

Files are split into passages (by Markdown heading, then by paragraph groups) and
indexed in an in-memory SQLite FTS5 table with Porter stemming. The index is
refreshed incrementally before each call: files whose modification time or
size changed are re-indexed, deleted files are dropped. The folder is
``Settings.docs_dir`` (``CADENCE_DOCS_DIR``) or, by default, the small corpus
about Cadence bundled in ``cadence/builtins/docs_corpus``. A hit shows a snippet
of its passage that starts at the sentence most about the query, or at the start
of its bullet (a line's subject, such as a setting's name, comes before the words
that matched), and ends where its line ends.
"""

from __future__ import annotations

import contextlib
import difflib
import logging
import operator
import os
import re
import sqlite3
import stat as _stat
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool

from cadence.builtins._common import BuiltinToolError, agent_prompt, not_an_action
from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, reads, requires_approval
from cadence.text import (
    HOW_TO_WORDS,
    NOT_TOPICS,
    NUMBER_WORDS,
    RELATED_STRENGTH,
    RELATED_WORDS,
    THE_DOCS_RE,
    WEAK_WEIGHT,
    WEAK_WORDS,
    one_word_phrases,
    stem,
)
from cadence.text import STOPWORDS as BASE_STOPWORDS

logger = logging.getLogger(__name__)

BUNDLED_DOCS_DIR = Path(__file__).resolve().parent / "docs_corpus"
"""The documentation about Cadence shipped with the package (the default folder)."""
DOC_SUFFIXES = frozenset({".md", ".markdown", ".txt"})
"""File suffixes that are indexed."""
MAX_FILE_BYTES = 2_000_000
"""Larger files are skipped."""
MAX_FILES = 5_000
"""At most this many files of a folder are indexed."""
MAX_PASSAGE_CHARS = 1_200
"""Paragraphs are grouped into passages up to about this size."""
MAX_READ_CHARS = 20_000
"""``read_doc`` returns at most this many characters."""
MAX_RESULTS = 20
"""Upper bound of ``search_docs``'s ``limit``."""
MAX_QUERY_TERMS = 32
MAX_PATH_CHARS = 1_000
"""Longer ``read_doc`` paths are refused (the OS rejects them anyway, with its own error)."""

_STOPWORDS = BASE_STOPWORDS | frozenset(
    {
        # words about the search itself ("what do the docs say about ..."), not its topic
        "according",
        "describe",
        "explain",
        "look",
        "lookup",
        "mention",
        "mentions",
        "said",
        "say",
        "says",
        "search",
        "up",
    }
)
"""Words that are not search terms: the shared base plus words about searching."""
_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE_RE = re.compile(r"^\s*(```|~~~)")


class DocsError(BuiltinToolError):
    """A docs tool got an unusable query or path."""


@dataclass(frozen=True)
class Passage:
    """A searchable piece of a document: its heading breadcrumb, first line and text."""

    heading: str
    line: int
    text: str


@dataclass(frozen=True)
class SearchHit:
    """One search result: the document path (relative to the folder), location and snippet."""

    path: str
    line: int
    heading: str
    snippet: str
    score: float

    @property
    def source(self) -> str:
        """``path:line``, the reference shown to the model and the user."""
        return f"{self.path}:{self.line}"


def chunk_document(text: str, *, markdown: bool = True, title: str = "") -> list[Passage]:
    """Split a document into passages: one per Markdown section, long sections by paragraphs."""
    passages: list[Passage] = []
    stack: list[tuple[int, str]] = []
    heading = title
    paragraphs: list[tuple[int, str]] = []  # (first line, text)
    current: list[str] = []
    current_start = 0
    in_fence = False

    def end_paragraph() -> None:
        nonlocal current
        if current:
            paragraphs.append((current_start, "\n".join(current).strip()))
            current = []

    def flush() -> None:
        end_paragraph()
        group: list[str] = []
        start = 0
        size = 0
        for line_no, para in paragraphs:
            if group and size + len(para) > MAX_PASSAGE_CHARS:
                passages.append(Passage(heading, start, "\n\n".join(group)))
                group, size = [], 0
            if not group:
                start = line_no
            group.append(para)
            size += len(para) + 2
        if group:
            passages.append(Passage(heading, start, "\n\n".join(group)))
        paragraphs.clear()

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if markdown and _FENCE_RE.match(line):
            in_fence = not in_fence
        match = _HEADING_RE.match(line) if markdown and not in_fence else None
        if match:
            flush()
            level = len(match.group(1))
            stack = [(lvl, name) for lvl, name in stack if lvl < level]
            stack.append((level, match.group(2)))
            heading = " > ".join(name for _, name in stack)
            continue
        if not line.strip() and not in_fence:
            end_paragraph()
            continue
        if not current:
            current_start = number
        current.append(line)
    flush()
    return [p for p in passages if p.text]


_PRESENTING_WORDS = frozenset(
    {"summarize", "summarise", "summary", "explain", "describe", "outline", "overview", "briefly"}
)
"""A query's first word asking how to present what is found, not what to find ("Summarize the docs about
plugins", "Explain the coordinator"): left out when other words remain."""


def query_terms(text: str) -> list[str]:
    """The search terms of free text: its words without stop words (all of them when only stop words are
    left), without an opening word asking how to present it (:data:`_PRESENTING_WORDS`) and without the
    documentation named as where to look ("what do the docs say about", not "the docs plugin":
    :data:`~cadence.text.THE_DOCS_RE`), once each, in order, at most :data:`MAX_QUERY_TERMS`."""
    words = re.findall(r"\w+", one_word_phrases(THE_DOCS_RE.sub(" ", text)).lower())
    meaningful = [w for w in words if w not in _STOPWORDS]
    if len(meaningful) > 1 and meaningful[0] in _PRESENTING_WORDS:
        meaningful = meaningful[1:]  # "summarize the docs about plugins" asks about plugins
    return list(dict.fromkeys(meaningful or words))[:MAX_QUERY_TERMS]


def fts_query(text: str) -> str:
    """A safe FTS5 query from free text: words are quoted and OR-ed (no FTS syntax survives)."""
    return _any_of(query_terms(text))


def _any_of(terms: list[str]) -> str:
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def widened_terms(terms: list[str]) -> list[str]:
    """``terms`` and the words the documentation says for their how-to verbs (:data:`HOW_TO_WORDS`)."""
    extra = [other for term in terms for other in HOW_TO_WORDS.get(term, ())]
    return list(dict.fromkeys([*terms, *extra]))


TITLE_BOOST = 1.0
"""How much more a passage counts (its BM25 score times 1 + this) when the title of its section is made
of the query's words; times the square of the share it has when it has some of them (one word of seven
in a title, "Long-term memory" for "how long can a tool call take", is next to nothing), a title above it
counting half."""
CANDIDATES_PER_HIT = 4
"""Passages ranked by BM25 for each hit asked, before the titles re-rank them."""


def title_coverage(
    heading: str, terms: Iterable[str], said_for: Mapping[str, Iterable[str]] | None = None
) -> float:
    """The share (0-1) of the query's ``terms`` (already stemmed) that the heading ``A > B > title`` names:
    a term in its section's own title counts 1, one only in a title above it half. ``said_for`` maps a
    term to the stems a title may say for it (``"add"``: ``"writ"``, as :data:`HOW_TO_WORDS`)."""
    wanted = set(terms)
    if not wanted:
        return 0.0
    *parents, title = heading.split(" > ")
    title_stems, parent_stems = _stems(title), _stems(" ".join(parents))

    def named(term: str, stems: set[str]) -> bool:
        return term in stems or any(other in stems for other in (said_for or {}).get(term, ()))

    in_title = {term for term in wanted if named(term, title_stems)}
    in_parents = {term for term in wanted - in_title if named(term, parent_stems)}
    return (len(in_title) + 0.5 * len(in_parents)) / len(wanted)


def _stems(text: str) -> set[str]:
    return {stem(word) for word in re.findall(r"\w+", text.lower())}


def _list_folder(folder: str) -> tuple[list[os.DirEntry[str]], list[os.DirEntry[str]]]:
    """The candidate files and the subfolders to enter of ``folder``, each sorted by name.

    Dot-names are skipped; a file candidate is any non-folder with a :data:`DOC_SUFFIXES`
    suffix; symlinked folders are not entered. An unreadable folder has neither (as in
    ``os.walk``, which skips a folder it cannot list).
    """
    files: list[os.DirEntry[str]] = []
    subfolders: list[os.DirEntry[str]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                try:
                    is_folder = entry.is_dir()  # follows symlinks, like os.walk's split
                except OSError:
                    is_folder = False
                if is_folder:
                    if not _is_symlink(entry):
                        subfolders.append(entry)
                elif os.path.splitext(name)[1].lower() in DOC_SUFFIXES:
                    files.append(entry)
    except OSError:
        return [], []
    files.sort(key=operator.attrgetter("name"))
    subfolders.sort(key=operator.attrgetter("name"))
    return files, subfolders


def _is_symlink(entry: os.DirEntry[str]) -> bool:
    """Whether ``entry`` is a symlink (False when that cannot be told, like ``os.path.islink``)."""
    try:
        return entry.is_symlink()
    except OSError:
        return False


class DocsIndex:
    """An in-memory FTS5 index of one folder, refreshed incrementally on use. Thread-safe."""

    def __init__(self, folder: Path) -> None:
        self.root = folder.expanduser().resolve()
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.executescript(
            """
            CREATE TABLE files (path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER);
            CREATE VIRTUAL TABLE passages USING fts5(
                path UNINDEXED, line UNINDEXED, heading, body,
                tokenize = 'porter unicode61 remove_diacritics 2'
            );
            CREATE VIRTUAL TABLE vocabulary USING fts5vocab(passages, 'row');
            """
        )
        self._known: dict[str, tuple[int, int]] = {}
        """The ``files`` table as a dict: relative path → (mtime_ns, size) of each indexed file."""
        self._vocabulary: list[str] | None = None
        """The index's terms (stemmed as FTS5 stems them), read once after each change."""

    def scan(self) -> dict[str, tuple[int, int]]:
        """The indexable files of the folder: relative POSIX path → (mtime_ns, size).

        The walk is ``os.walk``'s, with ``os.scandir`` entries instead of ``Path`` objects (the
        freshness check of every search; one ``stat`` per file): top-down, names sorted, a
        folder's files before its subfolders, dot-files and dot-folders skipped, symlinked
        folders not entered, unreadable folders skipped. A file must have a
        :data:`DOC_SUFFIXES` suffix, be regular (after symlinks; a symlink must not leave the
        folder) and have at most :data:`MAX_FILE_BYTES`; at most :data:`MAX_FILES` are found.
        """
        found: dict[str, tuple[int, int]] = {}
        pending: list[tuple[str, str]] = [(str(self.root), "")]  # (folder, its relative POSIX prefix)
        while pending:
            folder, prefix = pending.pop()
            files, subfolders = _list_folder(folder)
            for entry in files:
                try:
                    if entry.is_symlink() and not Path(entry.path).resolve().is_relative_to(self.root):
                        continue  # a symlink leaving the folder
                    stat = entry.stat()  # follows symlinks (the target's type, size and time)
                except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python 3.11's resolve)
                    continue
                if not _stat.S_ISREG(stat.st_mode):
                    continue  # a FIFO, socket or device would block or never end
                if stat.st_size > MAX_FILE_BYTES:
                    logger.info("docs: skipping large file %s (%d bytes)", entry.path, stat.st_size)
                    continue
                found[prefix + entry.name] = (stat.st_mtime_ns, stat.st_size)
                if len(found) >= MAX_FILES:
                    logger.warning("docs: indexing only the first %d files of %s", MAX_FILES, self.root)
                    return found
            # a stack: pushed in reverse, the subfolders are walked in name order
            pending.extend((entry.path, f"{prefix}{entry.name}/") for entry in reversed(subfolders))
        return found

    def refresh(self) -> int:
        """Bring the index up to date with the folder; returns the number of files (re)indexed.

        Every call scans the folder (no throttling): a file edited, added or removed is seen at
        the next search. The signatures of the indexed files are kept in ``self._known``, in
        step with the ``files`` table, so an unchanged folder costs one scan and no query.
        """
        with self._lock:
            current = self.scan()
            known = self._known
            if current == known:
                return 0
            changed = [path for path, sig in current.items() if known.get(path) != sig]
            removed = [path for path in known if path not in current]
            indexed = dict(known)  # becomes self._known once the transaction is committed
            with self._db:
                for path in removed + changed:
                    self._db.execute("DELETE FROM passages WHERE path = ?", (path,))
                    self._db.execute("DELETE FROM files WHERE path = ?", (path,))
                    indexed.pop(path, None)
                for path in changed:
                    if self._index_file(path, current[path]):
                        indexed[path] = current[path]
            self._known = indexed
            self._vocabulary = None
            if changed or removed:
                logger.debug(
                    "docs: indexed %d, removed %d files in %s", len(changed), len(removed), self.root
                )
            return len(changed)

    def _index_file(self, rel: str, signature: tuple[int, int]) -> bool:
        """Add the passages and the signature of the file ``rel``; False when it cannot be read
        (then it is not recorded, and the next refresh tries again)."""
        file = self.root / rel
        try:
            text = read_regular_file(file, MAX_FILE_BYTES)
        except (OSError, DocsError) as exc:
            logger.warning("docs: cannot read %s: %s", file, exc)
            return False
        markdown = file.suffix.lower() != ".txt"
        rows = [
            (rel, p.line, p.heading, p.text)
            for p in chunk_document(text, markdown=markdown, title=file.stem.replace("_", " "))
        ]
        self._db.executemany("INSERT INTO passages (path, line, heading, body) VALUES (?, ?, ?, ?)", rows)
        self._db.execute("INSERT INTO files (path, mtime_ns, size) VALUES (?, ?, ?)", (rel, *signature))
        return True

    def documents(self) -> list[str]:
        """Relative paths of the indexed documents (after a refresh)."""
        self.refresh()
        with self._lock:
            return [row[0] for row in self._db.execute("SELECT path FROM files ORDER BY path")]

    def search(self, query: str, limit: int = 5) -> list[SearchHit]:
        """The best passages for ``query`` (free text; never raises on FTS syntax)."""
        terms = query_terms(query)
        match = _any_of(widened_terms(terms))
        if not match:
            raise DocsError(f"The query {query!r} has no searchable words; use a few keywords")
        limit = max(1, min(int(limit), MAX_RESULTS))
        self.refresh()
        with self._lock:
            try:
                rows = self._db.execute(
                    """
                    SELECT path, line, heading, snippet(passages, 3, '', '', '…', ?),
                           bm25(passages, 0.0, 0.0, 3.0, 1.0) AS score, body
                    FROM passages WHERE passages MATCH ? ORDER BY score LIMIT ?
                    """,
                    (SNIPPET_TOKENS, match, limit * CANDIDATES_PER_HIT),
                ).fetchall()
            except sqlite3.OperationalError as exc:  # defensive: the query is already sanitized
                logger.warning("docs: FTS query %r failed: %s", match, exc)
                raise DocsError(f"The query {query!r} could not be searched; use plain keywords") from exc
        unknown = self._unknown_terms(terms)
        if unknown:
            # a word the documentation never uses ("moon" of "When is the next full moon?"): a passage
            # sharing one other word with the query ("Full-text search") is no answer; one sharing two,
            # or every word the documentation does use, may be ("hey, explain plugins basically": plugins)
            known = {stem(t) for t in terms if t not in unknown and t not in HOW_TO_WORDS}  # "add": widened
            rows = [
                r
                for r in rows
                if len(shared := _stems(f"{r[2]} {r[5]}") & {stem(t) for t in terms}) >= 2 or known <= shared
            ]
        # BM25 (negative: lower is better) knows a heading's words but not whose title they are: a section
        # titled with the query's words is about them ("info" for "the info plugin"), and a query of words
        # every passage has ("what is Cadence") is answered by the section named after them
        stemmed = [stem(term) for term in terms]
        said_for = {stem(t): RELATED_WORDS[stem(t)] for t in terms if t in HOW_TO_WORDS}
        rows.sort(key=lambda r: r[4] * (1 + TITLE_BOOST * title_coverage(r[2], stemmed, said_for) ** 2))
        return [
            SearchHit(
                path=r[0],
                line=int(r[1]),
                heading=r[2],
                snippet=" ".join(snippet_for(query, r[5], r[3], title=r[2].rsplit(" > ", 1)[-1]).split()),
                score=r[4],
            )
            for r in rows[:limit]
        ]

    def unknown_terms(self, query: str) -> list[str]:
        """The search terms of ``query`` the documentation never uses, nor a word close to them (a typo
        such as "configre" is close to "configure"): what it does not cover ("moon")."""
        self.refresh()
        return self._unknown_terms(query_terms(query))

    def _unknown_terms(self, terms: list[str]) -> list[str]:
        unknown = []
        with self._lock:
            if self._vocabulary is None:
                self._vocabulary = [row[0] for row in self._db.execute("SELECT term FROM vocabulary")]
            for term in terms:
                if not term.replace("_", "").isalpha() or len(term) < 3:  # a setting's name is a term too
                    continue
                found = self._db.execute(
                    "SELECT 1 FROM passages WHERE passages MATCH ? LIMIT 1", (_any_of([term]),)
                ).fetchone()
                if found is not None:
                    continue
                # a typo keeps its first letter and about its length: only those words are compared
                near = [w for w in self._vocabulary if w[:1] == term[:1] and abs(len(w) - len(term)) <= 2]
                if not difflib.get_close_matches(term, near, n=1, cutoff=0.8):
                    unknown.append(term)
        return unknown

    def resolve(self, path: str) -> Path:
        """The file ``path`` names inside the folder; :class:`DocsError` for anything else.

        Error messages quote the (shortened) path as given, never the folder's location.
        """
        shown = _shown(path)
        cleaned = re.sub(r":\d+$", "", path.strip().strip("'\"`"))
        if not cleaned:
            raise DocsError("No path given; pass a path from search_docs, e.g. 'overview.md'")
        if len(cleaned) > MAX_PATH_CHARS or "\x00" in cleaned:
            raise DocsError(f"Refused: {shown} is not a document path; pass a path returned by search_docs")
        try:
            candidate = Path(cleaned).expanduser()
            target = (candidate if candidate.is_absolute() else self.root / candidate).resolve()
            if not target.is_relative_to(self.root):
                raise DocsError(
                    f"Refused: {shown} is outside the docs folder; pass a path returned by search_docs"
                )
            if target.suffix.lower() not in DOC_SUFFIXES:
                raise DocsError(f"Refused: {shown} is not a .md or .txt document")
            if not target.is_file():
                raise DocsError(
                    f"No document {shown} in the docs folder; use list_docs or search_docs to find one"
                )
        except (OSError, ValueError, RuntimeError) as exc:
            raise DocsError(
                f"No usable document {shown} in the docs folder; use list_docs or search_docs to find one"
            ) from exc
        return target

    def read(self, path: str, max_chars: int = MAX_READ_CHARS) -> str:
        """The text of a document inside the folder (truncated to ``max_chars``)."""
        target = self.resolve(path)
        try:
            text = read_regular_file(target, MAX_FILE_BYTES)
        except OSError as exc:
            logger.warning("docs: cannot read %s: %s", target, exc)
            raise DocsError(f"The document {_shown(path)} cannot be read; try another one") from None
        if len(text) > max_chars:
            text = text[:max_chars] + f"\n\n[… truncated at {max_chars} of {len(text)} characters]"
        return text


MAX_SNIPPET_LEAD = 240
"""Characters a snippet may be extended backwards to start at the beginning of its line (or of the
bullet the best sentence for the query is in)."""
SNIPPET_TOKENS = 40
"""Words of a snippet (as FTS5's ``snippet()`` counts them), before it is extended to its line's end."""
_SNIPPET_TOKEN_RE = re.compile(r"[^\W_]+")
_ITEM_START_RE = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]")
"""A line that starts a bullet of a list."""
_SENTENCE_GAP_RE = re.compile(r"(?<=[.!?])\s+")
_SENTENCE_STOP_RE = re.compile(
    r"(?<=[.!?])(?<!e\.g\.)(?<!i\.e\.)(?=\s|$)|(?=\n[ \t]*(?:\n|[-*+][ \t]|\d+[.)][ \t]|#|\||```))",
    re.MULTILINE | re.IGNORECASE,
)
"""Where a sentence, a paragraph or a list item of Markdown ends: a full stop ("e.g." and "i.e." aside), a
blank line, the next bullet, heading, table row or code fence."""


def snippet_for(query: str, body: str, fts_snippet: str, *, title: str = "") -> str:
    """The snippet of a hit: about :data:`SNIPPET_TOKENS` words of ``body`` from the sentence most about
    ``query`` (:class:`SnippetQuery`: its words, stemmed, and the words that may stand for them: "at
    most 52 characters" for "how long can a name be"), from the start of its bullet when that is near
    (a bullet's subject, such as a setting's name, comes first), to the end of its line.

    FTS5's window (``fts_snippet``) is placed where the most query words are, which may be the middle of
    a sentence after the one that answers ("…synthesizer, finalize, finalizer) are reserved." where the
    query asks how long a name can be). The words of ``title``, the title of the passage's section, count
    as said by every sentence ("**planner**: …" under "Modes" for "the planner mode"); a passage whose
    title has every word of the query that matters starts at its beginning, which says what the section
    is about ("What Cadence is" for "what is Cadence"), followed by its sentence most about the query when
    that comes later ("**single**: …" for "the single mode"). When no sentence has a query word (a word FTS5's
    Porter stemmer finds and this one does not), ``fts_snippet`` is used, extended to its line's start
    and end.
    """
    start = best_sentence_start(query, body, title)
    if title and SnippetQuery(query).covered_by(title):
        head = _window_end(body, 0)
        if start is None or start < head:
            return body[:head] + ("…" if body[head:].strip() else "")
        end = _window_end(body, start)  # and the sentence most about the query, further on
        return f"{body[:head]}… {body[start:end]}" + ("…" if body[end:].strip() else "")
    if start is None:
        return to_line_end(from_line_start(fts_snippet, body), body)
    end = _window_end(body, start)
    return ("…" if body[:start].strip() else "") + body[start:end] + ("…" if body[end:].strip() else "")


def _window_end(body: str, start: int) -> int:
    """Where a snippet starting at ``start`` ends: after :data:`SNIPPET_TOKENS` words, at the end of the
    sentence or list item it is in when that is near (:data:`MAX_SNIPPET_TAIL`; a Markdown paragraph is
    wrapped over lines), else at the end of its line when that is near."""
    words = list(_SNIPPET_TOKEN_RE.finditer(body, start))
    end = words[SNIPPET_TOKENS - 1].end() if len(words) > SNIPPET_TOKENS else len(body.rstrip())
    # a paragraph or bullet wrapped over lines goes on after its line: the end of its sentence, when near
    closed = _SENTENCE_STOP_RE.search(body, end, min(len(body), end + MAX_SNIPPET_TAIL))
    if closed is not None:
        return closed.start()
    stop = body.find("\n", end)
    stop = len(body.rstrip()) if stop < 0 else stop
    return stop if stop - end <= MAX_SNIPPET_TAIL else end


def best_sentence_start(query: str, body: str, title: str = "") -> int | None:
    """Where a snippet of ``body`` for ``query`` starts: at its sentence most about the query (the
    earliest of the best: :class:`SnippetQuery`), or at the start of the bullet it is in when that is
    at most :data:`MAX_SNIPPET_LEAD` characters before; None when no sentence has a word of the query
    that matters; ``title``: see :func:`snippet_for`."""
    asked = SnippetQuery(query)
    titled = f" {title}" if title else ""
    best: tuple[float, int] | None = None  # (score, start)
    for item_start, item_end, bullet in _items(body):
        item = body[item_start:item_end]
        starts = [0] + [gap.end() for gap in _SENTENCE_GAP_RE.finditer(item)]
        for begin, finish in zip(starts, [*starts[1:], len(item)], strict=True):
            score = asked.score(item[begin:finish] + titled)
            # a weak word alone ("cadence") is no place to start: FTS5 may have matched better ones
            if score > WEAK_WEIGHT and (best is None or score > best[0]):
                lead = begin <= MAX_SNIPPET_LEAD and bullet
                best = (score, item_start + (0 if lead else begin))
    return None if best is None else best[1]


PART_STRENGTH = 0.5
"""What a part of a name in code (``CADENCE_TOOL_TIMEOUT``: tool, timeout) counts, against 1 for a word."""
NAMED_BONUS = 1.0
"""Added to a sentence with a name in code made of the query's words only (half of it for a name of
one word, which counts only as the subject the sentence starts with): ``CADENCE_TOOL_TIMEOUT`` for
"the timeout of a tool call", `name` for "how long can a plugin name be"."""

_WORD_TOKEN_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.'-]*[A-Za-z0-9]")
_NAME_RE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|`[^`\s]{3,}`")
"""A name in code: a setting ``CADENCE_TOOL_TIMEOUT``, or anything in backquotes."""
_PREFIX = stem("cadence")
"""The first word of every setting's name: not what the setting is named after."""


def _words(text: str) -> list[tuple[str, bool]]:
    """The stemmed words of ``text`` (three letters or more, or an abbreviation of two capitals: "UI",
    "DB"; no stop words), each flagged when it is a part of a name in code (``CADENCE_TOOL_TIMEOUT``)."""
    out: list[tuple[str, bool]] = []
    for token in _WORD_TOKEN_RE.findall(text):
        parts = [p for p in re.split(r"[_.]+", token) if p]
        for part in parts:
            for written in re.split(r"['-]+", part):
                word = written.lower()
                long_enough = len(word) >= 3 or (len(written) == 2 and written.isupper())
                if long_enough and word.isalpha() and word not in NOT_TOPICS:
                    out.append((stem(word), len(parts) > 1))
    return out


class SnippetQuery:
    """The words of a search query, weighed, with the words that may stand for them: a sentence's
    score (:meth:`score`) says how much it is about the query."""

    def __init__(self, query: str) -> None:
        weak = WEAK_WORDS | {stem(w) for w in NUMBER_WORDS}  # "two plugins" asks about plugins
        asked = one_word_phrases(THE_DOCS_RE.sub(" ", query))
        self.weights = {w: WEAK_WEIGHT if w in weak else 1.0 for w, _ in _words(asked)}
        self.meanings: dict[str, list[tuple[str, float]]] = {w: [(w, 1.0)] for w in self.weights}
        for word in list(self.weights):
            for other in RELATED_WORDS.get(word, ()):
                if other not in self.weights:
                    self.meanings.setdefault(other, []).append((word, RELATED_STRENGTH))

    def covered_by(self, text: str) -> bool:
        """Whether ``text`` has every word of the query that matters (itself or a related word; every
        word when all of them are weak: "what is Cadence")."""
        said = {asked for word, _ in _words(text) for asked, _ in self.meanings.get(word, ())}
        strong = {word for word, weight in self.weights.items() if weight >= 1.0} or set(self.weights)
        return bool(strong) and said >= strong

    def score(self, text: str) -> float:
        """The weights of the query's words ``text`` has (each once, at its best strength: a word 1, a
        related word or a part of a name in code less), plus :data:`NAMED_BONUS` when it has a name
        made of the query's words."""
        strengths: dict[str, float] = {}
        for word, part in _words(text):
            for asked, strength in self.meanings.get(word, ()):
                strengths[asked] = max(strengths.get(asked, 0.0), strength * (PART_STRENGTH if part else 1.0))
        if not strengths:
            return 0.0
        score = sum(self.weights[word] * strength for word, strength in strengths.items())
        for name in _NAME_RE.finditer(text):
            parts = [w for w, _ in _words(name.group(0)) if w != _PREFIX]
            subject = not text[: name.start()].strip(" -*`…")
            if parts and (len(parts) > 1 or subject) and all(w in self.meanings for w in parts):
                return score + NAMED_BONUS * min(1.0, len(parts) / 2)
        return score


def _items(body: str) -> list[tuple[int, int, bool]]:
    """The bullets and paragraphs of ``body``: (start, end, whether a bullet), in order."""
    items: list[tuple[int, int, bool]] = []
    position = 0
    after_blank = True
    for line in body.splitlines(keepends=True):
        begin, position = position, position + len(line)
        if not line.strip():
            after_blank = True
            continue
        text_end = begin + len(line.rstrip())
        bullet = bool(_ITEM_START_RE.match(line))
        if after_blank or bullet:
            items.append((begin + len(line) - len(line.lstrip()), text_end, bullet))
        else:  # the next line of a paragraph or bullet
            items[-1] = (items[-1][0], text_end, items[-1][2])
        after_blank = False
    return items


def from_line_start(snippet: str, body: str) -> str:
    """``snippet`` (an FTS5 snippet of ``body``) extended back to the start of the line it begins in.

    A window that starts mid-line loses the line's subject ("…where the SQLite database lives" of
    "- `CADENCE_DATA_DIR` (default `~/.cadence`): where the SQLite database lives").
    """
    core = snippet.removeprefix("…")
    if core == snippet:
        return snippet
    position = body.find(core.removesuffix("…")[:60])
    if position <= 0:
        return snippet
    start = body.rfind("\n", 0, position) + 1
    if position - start > MAX_SNIPPET_LEAD:
        return snippet
    return ("…" if start > 0 else "") + body[start:position] + core


MAX_SNIPPET_TAIL = 120
"""Characters a snippet may be extended forwards to end where its line ends."""


def to_line_end(snippet: str, body: str) -> str:
    """``snippet`` (an FTS5 snippet of ``body``) extended to the end of the line it stops in.

    A window that stops mid-line cuts what the line says ("natural: friendly and…" of the tones' list).
    """
    core = snippet.removesuffix("…")
    if core == snippet:
        return snippet
    tail = core.removeprefix("…")[-60:]
    position = body.find(tail)
    if position < 0 or not tail:
        return snippet
    end = position + len(tail)
    stop = body.find("\n", end)
    stop = len(body) if stop < 0 else stop
    if stop - end > MAX_SNIPPET_TAIL:
        return snippet
    return core + body[end:stop] + ("…" if stop < len(body.rstrip()) else "")


def _shown(path: str) -> str:
    """A user-given path for an error message: quoted and shortened."""
    return repr(path if len(path) <= 80 else path[:77] + "...")


def read_regular_file(path: Path, max_bytes: int) -> str:
    """The text of a regular file, never blocking on a FIFO or device (:class:`DocsError` for those)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as handle:
        if not _stat.S_ISREG(os.fstat(fd).st_mode):
            raise DocsError(f"{_shown(path.name)} is not a regular file")
        data = handle.read(max_bytes + 1)
    return data[:max_bytes].decode("utf-8", errors="replace")


_INDEXES: dict[Path, DocsIndex] = {}
_INDEXES_LOCK = threading.Lock()


def get_index(folder: Path) -> DocsIndex:
    """The process-wide index of ``folder`` (created on first use)."""
    key = folder.expanduser().resolve()
    with _INDEXES_LOCK:
        if key not in _INDEXES:
            _INDEXES[key] = DocsIndex(key)
        return _INDEXES[key]


def docs_folder() -> Path:
    """The folder to search: ``Settings.docs_dir`` (``CADENCE_DOCS_DIR``) or the bundled docs."""
    from cadence.settings import get_settings

    configured = get_settings().docs_dir
    return configured.expanduser() if configured else BUNDLED_DOCS_DIR


NOTE_SUFFIX = ".md"
"""Notes are Markdown files."""
MAX_NOTE_NAME_CHARS = 60
"""A note's file name (from its title) has at most this many characters before ``.md``."""
WRITE_NOTE_REASON = "write_note writes a file into the documentation folder"
"""Why ``write_note`` asks for approval (shown to the human)."""


def note_file_name(title: str) -> str:
    """The safe file name of a note titled ``title``: lower-case words joined by ``-``, plus ``.md``.

    Only letters, digits and ``-`` survive (no separators, no dots: no way out of the folder).
    Raises :class:`DocsError` for a title with nothing usable.
    """
    slug = re.sub(r"[^a-z0-9]+", "-", title.strip().lower()).strip("-")[:MAX_NOTE_NAME_CHARS].strip("-")
    if not slug:
        raise DocsError(f"The title {_shown(title)} has no letters or digits; give the note a title")
    return slug + NOTE_SUFFIX


def write_note_file(folder: Path, title: str, text: str, *, overwrite: bool, max_chars: int) -> Path:
    """Write the note ``title`` into ``folder`` (a new file unless ``overwrite``); returns its path.

    The name is :func:`note_file_name`'s; the target must resolve inside the folder and must not
    be a symlink; the text is bounded by ``max_chars``. The file is written whole or not at all.
    """
    if not text.strip():
        raise DocsError("The note is empty; write its text")
    if len(text) > max_chars:
        raise DocsError(
            f"The note has {len(text)} characters; the limit is {max_chars} (CADENCE_NOTE_MAX_CHARS). "
            "Shorten it or split it into several notes"
        )
    root = folder.expanduser().resolve()
    if not root.is_dir():
        raise DocsError("The documentation folder does not exist; set CADENCE_DOCS_DIR to an existing folder")
    name = note_file_name(title)
    target = root / name
    if target.is_symlink() or not target.resolve().is_relative_to(root):
        raise DocsError(f"Refused: {name} is not a plain file of the docs folder")
    if target.exists() and not overwrite:
        raise DocsError(f"A note {name} already exists; choose another title or pass overwrite=true")
    content = f"# {' '.join(title.split())}\n\n{text.strip()}\n"
    temporary = root / f".{name}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        with open(temporary, "x", encoding="utf-8") as handle:
            handle.write(content)
        os.replace(temporary, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise DocsError(f"The note {name} could not be written ({exc.strerror or exc})") from None
    return target


def format_hits(query: str, hits: list[SearchHit]) -> str:
    """Search results as text for the model: source, heading and snippet of each hit."""
    if not hits:
        return f"No passages match {query!r}. Try other or fewer keywords."
    lines = [f"{len(hits)} passage(s) for {query!r} (source = path:line; read_doc(path) shows a whole file):"]
    for number, hit in enumerate(hits, start=1):
        heading = f" — {hit.heading}" if hit.heading else ""
        lines.append(f"[{number}] {hit.source}{heading}\n{hit.snippet}")
    return "\n\n".join(lines)


def _as_written(query: str, term: str) -> str:
    """``term`` as ``query`` writes it ("Docker" for "docker")."""
    found = re.search(rf"\b{re.escape(term)}\b", query, re.IGNORECASE)
    return found.group(0) if found else term


def _named_in(query: str, term: str) -> bool:
    """Whether ``query`` writes ``term`` as a name: capitalised, not as its first word ("Docker" in "How do
    I run Cadence with Docker?")."""
    return any(
        m.start() > 0 and m.group(0)[:1].isupper()
        for m in re.finditer(rf"\b{re.escape(term)}\b", query.strip(), re.IGNORECASE)
    )


def make_docs_tools(folder: Path, *, writable: bool = False) -> list[BaseTool]:
    """The ``search_docs``, ``read_doc`` and ``list_docs`` tools bound to ``folder``; with ``writable``
    also ``write_note``, which needs a human's approval before it runs."""
    index = get_index(folder)

    def search_docs(query: str, limit: int = 5) -> str:
        """Search (look up) the documentation: what the docs say about a topic, how to do something, which
        setting controls what. Returns the best passages with their source path:line.

        Use a few keywords (e.g. "plugin metadata capabilities"); limit is 1-20.
        """
        hits = index.search(query, limit)
        unknown = index.unknown_terms(query)
        if unknown and not hits:
            words = ", ".join(repr(_as_written(query, term)) for term in unknown)
            return f"The documentation does not cover this: no passage mentions {words}."
        named = [term for term in unknown if _named_in(query, term)]
        if named:  # "How do I run Cadence with Docker?": the passages found do not speak of Docker
            words = ", ".join(repr(_as_written(query, term)) for term in named)
            return f"The documentation does not mention {words}.\n\n{format_hits(query, hits)}"
        return format_hits(query, hits)

    def read_doc(path: str) -> str:
        """Read one whole document by its path (e.g. "overview.md"), as search_docs or list_docs gave it."""
        return index.read(path)

    def list_docs() -> str:
        """List which documents are available: the paths of all documents in the documentation folder."""
        documents = index.documents()
        if not documents:
            return "The documentation folder has no .md or .txt documents."
        return f"{len(documents)} document(s): " + ", ".join(documents) + "."

    # any question may be about the documentation, except a request to do something in the world
    # ("Remind me to call mom at 5pm" has the docs' word "call"; no docs tool sets reminders)
    reader = reads(not_an_action(lambda text: True))
    tools: list[BaseTool] = [
        reader(StructuredTool.from_function(search_docs)),
        reader(StructuredTool.from_function(read_doc)),
        reader(StructuredTool.from_function(list_docs)),
    ]
    if writable:

        def write_note(title: str, text: str, overwrite: bool = False) -> str:
            """Save a note (Markdown) in the documentation folder, when the user asks to write, save or
            record something there. title: the note's title (it names the file); text: its content.
            A reviewer approves the note before it is written."""
            from cadence.settings import get_settings

            target = write_note_file(
                folder, title, text, overwrite=overwrite, max_chars=get_settings().note_max_chars
            )
            index.refresh()
            return f"Wrote {target.name} ({len(text)} characters); search_docs finds it now."

        tools.append(requires_approval(StructuredTool.from_function(write_note), reason=WRITE_NOTE_REASON))
    return tools


class DocsAgent(BaseAgent):
    """The docs agent: searches and reads the documentation folder."""

    def __init__(self, metadata: PluginMetadata, folder: Path | None = None) -> None:
        super().__init__(metadata)
        self.folder = folder

    def get_tools(self) -> list[BaseTool]:
        """``search_docs``, ``read_doc`` and ``list_docs`` over the agent's folder, plus ``write_note``
        (approval required) when the folder is the user's own (not the bundled documentation)."""
        folder = self.folder or docs_folder()
        return make_docs_tools(folder, writable=folder.expanduser().resolve() != BUNDLED_DOCS_DIR)

    def get_system_prompt(self) -> str:
        """Instructions to answer only from the documents, citing sources."""
        return agent_prompt(
            "You are the docs agent of Cadence. You answer from the documentation folder only.",
            [
                "Call `search_docs` with a few keywords; search again with other words if nothing fits.",
                "Use `read_doc` when a snippet is not enough, and `list_docs` to see what exists.",
                "Answer only with what the documents say and cite each source as [path] (e.g. [plugins.md]); "
                "if the documents do not cover the question, say so.",
                "Call `write_note` (when you have it) only when the user asks to write or save a note.",
            ],
        )


class DocsPlugin(BasePlugin):
    """Built-in plugin ``docs``: search over local Markdown/text documentation."""

    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        """Metadata of the docs plugin."""
        return PluginMetadata(
            name="docs",
            version="1.0.0",
            description=(
                "Documentation agent: full-text search over a local folder of Markdown and text files "
                "(by default Cadence's own documentation: what Cadence is, plugins, configuration, "
                "limits), returning relevant passages with their source files."
            ),
            capabilities=[
                "search the documentation",
                "questions about Cadence: plugins, configuration, limits, the command line (CLI: cadence "
                "chat, serve, threads), how it works (the coordinator, the agents, the synthesizer, the "
                "suspend node, turns, threads, conversations, the checkpointer and checkpoints), its modes "
                "(coordinator, supervisor, single, planner) and tones, how to install and start it and run "
                "its tests",
                "settings (environment variables) and how to change them: models, timeouts, API keys, "
                "server host and port, database (SQLite, PostgreSQL), where data is stored, workers, "
                "logging, logs and the log level",
                "model providers: OpenAI, Anthropic, Google, Ollama, OpenAI-compatible servers, the embedded "
                "model",
                "features: validating or checking the final answer, long-term memory and how to forget "
                "what was told, human approval of tools, streaming, the OpenAI-compatible API, the web page "
                "(web UI), the trace of a turn, plugins and agents in Markdown",
                "limits: how many tool calls or agent routes (hops) are allowed per turn, what happens when "
                "they are used up, the guards",
                "plugin authoring: an agent's tools, its system prompt and metadata",
                "find and quote passages from local documents with their source",
            ],
            response_schema={
                "type": "object",
                "properties": {
                    "sources": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "path:line of each passage the answer relies on.",
                    }
                },
            },
            response_suggestion="Answer from the passages found and cite their sources as [path].",
        )

    @classmethod
    def create_agent(cls) -> BaseAgent:
        """A new docs agent over :func:`docs_folder`."""
        return DocsAgent(cls.get_metadata())

    @classmethod
    def health_check(cls) -> dict[str, Any]:
        """Healthy when the docs folder exists, is readable and holds at least one document."""
        try:
            folder = docs_folder()
        except Exception as exc:
            return {"healthy": False, "details": f"cannot determine the docs folder: {exc}"}
        if not folder.is_dir():
            return {
                "healthy": False,
                "details": f"docs folder {folder} does not exist (set CADENCE_DOCS_DIR)",
            }
        if not os.access(folder, os.R_OK | os.X_OK):
            return {"healthy": False, "details": f"docs folder {folder} is not readable"}
        count = len(get_index(folder).scan())
        if not count:
            return {"healthy": False, "details": f"docs folder {folder} has no .md or .txt files"}
        return {"healthy": True, "details": f"{count} document(s) in {folder}"}
