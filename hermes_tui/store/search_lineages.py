"""Search grouped by lineage, for a search-as-you-type screen over a million messages.

`run_lineage_search(conn, request, options)` runs in one hop on the reader thread:

1. Stream the matching message ids newest first (rowid order, which SQLite walks without sorting:
   the FTS index or, for the CJK LIKE fallback, the table backwards), stopping at `scan_cap`
   matches, at the time budget, or when the caller's `cancel` event is set (a progress handler
   interrupts the statement, so a stale search never holds the reader thread).
2. Map each hit's session to its lineage root (parent links, any edge kind) and keep one group
   per lineage, in the order their newest hit was found, up to `max_lineages`.
3. For the first `hits_per_lineage` hits of each group: role, time, session and a snippet whose
   matched words sit between `MARK_START` and `MARK_END` (found in the stored text by a pattern
   made from the query's words: FTS5's `snippet()` re-expands a prefix query per row), plus the
   titles of the lineage's root and compression tip.

The answer says whether the scan saw every match (`complete`) and, if not, why it stopped.
Nothing here is ranked: a lineage is as recent as its newest matching message.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from dataclasses import dataclass, field

from hermes_tui.store.codec import clipped_content_sql, decode_content, flatten_text
from hermes_tui.store.fts_query import OPERATORS, query_tokens
from hermes_tui.store.lineage_queries import LazyGraph, root_of, tip_of
from hermes_tui.store.models import MARK_END as MARK_END  # re-exported: the snippets' marks
from hermes_tui.store.models import MARK_START as MARK_START
from hermes_tui.store.schema import TRIGRAM_TABLE
from hermes_tui.store.search_plan import SearchRequest, like_condition
from hermes_tui.store.sqlite_io import placeholders, tuples

LIKE_SNIPPET_BEFORE = 40
LIKE_SNIPPET_CHARS = 160
LIKE_TEXT_CHARS = 4000
FETCH_ROWS = 256
PROGRESS_EVERY = 2000  # SQLite VM steps between two looks at the clock and the cancel event

STOP_CAP = "cap"
STOP_TIME = "time"
STOP_CANCELLED = "cancelled"

_FTS_QUERY_ERRORS = ("fts5", "syntax", "no such column", "unterminated", "unrecognized token")


@dataclass(frozen=True, slots=True)
class LineageSearchOptions:
    """How far one grouped search goes."""

    max_lineages: int = 50
    hits_per_lineage: int = 5
    scan_cap: int = 3000
    time_budget_s: float | None = 0.06  # None: no time limit (headless)
    cancel: threading.Event | None = None


@dataclass(frozen=True, slots=True)
class LineageHit:
    """One matching message: `snippet` marks matched words with MARK_START ... MARK_END."""

    id: int
    session_id: str
    session_title: str | None
    role: str
    timestamp: float
    tool_name: str | None
    snippet: str


@dataclass(frozen=True, slots=True)
class LineageResult:
    """Every match found in one lineage (a root and all its descendants)."""

    root_id: str
    tip_id: str  # the end of the root's compression chain
    title: str | None  # the tip's title, else the root's
    source: str
    hit_count: int  # matches found in this lineage (among those scanned)
    session_count: int
    newest: float
    hits: tuple[LineageHit, ...]  # the newest `hits_per_lineage`, with snippets


@dataclass(frozen=True, slots=True)
class LineageSearch:
    lineages: tuple[LineageResult, ...] = ()
    scanned: int = 0  # matching messages seen
    stopped: str = ""  # "" (every match seen), STOP_CAP, STOP_TIME or STOP_CANCELLED
    query_error: bool = False  # SQLite rejected every form of the query

    @property
    def complete(self) -> bool:
        return not self.stopped


@dataclass
class _Group:
    root: str
    hit_ids: list[int] = field(default_factory=list)
    count: int = 0
    sessions: set[str] = field(default_factory=set)


class _Stopper:
    """The progress handler: interrupts the running statement on cancel or after the deadline."""

    def __init__(self, options: LineageSearchOptions) -> None:
        self._cancel = options.cancel
        self._deadline = None if options.time_budget_s is None else time.monotonic() + options.time_budget_s
        self.reason = ""

    def __call__(self) -> int:
        if self._cancel is not None and self._cancel.is_set():
            self.reason = STOP_CANCELLED
        elif self._deadline is not None and time.monotonic() > self._deadline:
            self.reason = STOP_TIME
        return 1 if self.reason else 0


def _stream_ids(
    conn: sqlite3.Connection, sql: str, params: tuple, cap: int, stopper: _Stopper
) -> tuple[list[tuple[int, str]], str]:
    """(message id, session id) rows of `sql`, up to `cap`; and why the stream stopped early ("" if not)."""
    rows: list[tuple[int, str]] = []
    cursor = conn.cursor()
    cursor.row_factory = None
    conn.set_progress_handler(stopper, PROGRESS_EVERY)
    try:
        cursor.execute(sql, params)
        while len(rows) < cap:
            batch = cursor.fetchmany(min(FETCH_ROWS, cap - len(rows)))
            if not batch:
                return rows, ""
            rows.extend(batch)
        return rows, STOP_CAP
    except sqlite3.OperationalError:
        if stopper.reason:  # our own interrupt: keep what was found
            return rows, stopper.reason
        raise
    finally:
        conn.set_progress_handler(None, 0)
        cursor.close()


def _matching_ids(
    conn: sqlite3.Connection, req: SearchRequest, stopper: _Stopper, cap: int
) -> tuple[list[tuple[int, str]], str, str | None, bool]:
    """(rows, stop reason, the FTS expression that ran (None for LIKE), query rejected)."""
    if req.like_terms:
        condition, params = like_condition(req.like_terms, req.like_connectors)
        sql = (
            "SELECT m.id, m.session_id FROM messages m JOIN sessions s ON s.id = m.session_id"
            f" WHERE {condition}{req.where} ORDER BY m.id DESC"
        )
        rows, stopped = _stream_ids(conn, sql, (*params, *req.params), cap, stopper)
        return rows, stopped, None, False
    table = req.table
    sql = (
        f"SELECT {table}.rowid, m.session_id FROM {table} JOIN messages m ON m.id = {table}.rowid"
        f" JOIN sessions s ON s.id = m.session_id WHERE {table} MATCH ?{req.where} ORDER BY {table}.rowid DESC"
    )
    for match in req.matches:
        try:
            rows, stopped = _stream_ids(conn, sql, (match, *req.params), cap, stopper)
        except sqlite3.OperationalError as exc:
            if any(marker in str(exc).lower() for marker in _FTS_QUERY_ERRORS):
                continue  # not valid FTS5: try the next, safer form
            raise
        return rows, stopped, match, False
    return [], "", None, True


def _group(
    conn: sqlite3.Connection, rows: list[tuple[int, str]], options: LineageSearchOptions
) -> tuple[list[_Group], dict[str, str]]:
    """The lineage groups in the order found, and each group's compression tip (root -> tip)."""
    graph = LazyGraph(conn)
    roots: dict[str, str] = {}
    groups: dict[str, _Group] = {}
    for message_id, session_id in rows:
        root = roots.get(session_id)
        if root is None:
            root = roots[session_id] = root_of(graph, session_id)
        group = groups.get(root)
        if group is None:
            if len(groups) >= options.max_lineages:
                continue
            group = groups[root] = _Group(root)
        group.count += 1
        group.sessions.add(session_id)
        if len(group.hit_ids) < options.hits_per_lineage:
            group.hit_ids.append(message_id)
    tips = {group.root: tip_of(graph, group.root) for group in groups.values()}
    return list(groups.values()), tips


def _term_pattern(token: str) -> str | None:
    """A regex finding what one FTS5 query token matches (None for operators and empty tokens)."""
    if token in OPERATORS:
        return None
    prefix = token.endswith("*")
    words = [word for word in re.split(r"[^\w]+", token.strip('"*')) if word]
    if not words:
        return None
    body = r"\W+".join(re.escape(word) for word in words)  # a "quoted phrase" or a dotted term
    return rf"(?<!\w){body}" + (r"\w*" if prefix else r"(?!\w)")


def highlighter(req: SearchRequest, match: str | None) -> re.Pattern[str] | None:
    """A case-insensitive pattern for the words `req` matched (what a snippet highlights)."""
    if match is None or req.table == TRIGRAM_TABLE:  # LIKE terms and trigram tokens match as substrings
        terms = req.like_terms if match is None else tuple(query_tokens(match))
        parts = [re.escape(term.strip('"')) for term in terms if term not in OPERATORS and term.strip('"')]
    else:
        tokens = query_tokens(match)
        parts = []
        for index, token in enumerate(tokens):
            if index and tokens[index - 1] == "NOT":
                continue  # what NOT excludes is never in the text
            pattern = _term_pattern(token)
            if pattern is not None:
                parts.append(pattern)
    if not parts:
        return None
    return re.compile("|".join(f"(?:{part})" for part in parts), re.IGNORECASE)


def mark_matches(text: str, pattern: re.Pattern[str] | None) -> str:
    """`text` with each match of `pattern` between MARK_START and MARK_END."""
    if pattern is None:
        return text
    return pattern.sub(lambda found: f"{MARK_START}{found.group(0)}{MARK_END}" if found.group(0) else "", text)


def snippet_of(text: str, pattern: re.Pattern[str] | None) -> str:
    """About LIKE_SNIPPET_CHARS of `text` around its first match, the matches marked."""
    found = pattern.search(text) if pattern is not None else None
    start = max(0, found.start() - LIKE_SNIPPET_BEFORE) if found else 0
    piece = text[start : start + LIKE_SNIPPET_CHARS]
    lead = "…" if start else ""
    tail = "…" if start + LIKE_SNIPPET_CHARS < len(text) else ""
    return lead + mark_matches(piece, pattern) + tail


def _clean(text: str | None) -> str:
    return " ".join((text or "").replace("\x00json:", "").replace("\x00", "").split())


def _snippets(conn: sqlite3.Connection, pattern: re.Pattern[str] | None, ids: list[int]) -> dict[int, str]:
    """Snippets made here from the stored text: FTS5's `snippet()` re-expands a prefix query for
    every row it is asked about (seconds for a few hundred rows at a million messages)."""
    text_sql = f"{clipped_content_sql('content', LIKE_TEXT_CHARS)}, tool_name, substr(tool_calls, 1, {LIKE_TEXT_CHARS})"
    sql = f"SELECT id, {text_sql} FROM messages WHERE id IN ({placeholders(ids)})"
    found: dict[int, str] = {}
    for row_id, content, tool_name, tool_calls in tuples(conn, sql, ids):
        text = _clean(flatten_text(decode_content(content)))
        if pattern is not None and not pattern.search(text):  # the match is in the tool call
            text = _clean(" ".join(part for part in (text, tool_name, tool_calls) if part))
        found[row_id] = snippet_of(text, pattern)
    return found


def _results(
    conn: sqlite3.Connection, req: SearchRequest, match: str | None, groups: list[_Group], tips: dict[str, str]
) -> tuple[LineageResult, ...]:
    ids = [message_id for group in groups for message_id in group.hit_ids]
    if not ids:
        return ()
    details = {
        row[0]: row
        for row in tuples(
            conn,
            f"SELECT id, session_id, role, timestamp, tool_name FROM messages WHERE id IN ({placeholders(ids)})",
            ids,
        )
    }
    session_ids = sorted({sid for group in groups for sid in group.sessions} | set(tips) | set(tips.values()))
    sessions = {
        row[0]: row
        for row in tuples(
            conn, f"SELECT id, title, source FROM sessions WHERE id IN ({placeholders(session_ids)})", session_ids
        )
    }
    snippets = _snippets(conn, highlighter(req, match), ids)
    results: list[LineageResult] = []
    for group in groups:
        hits = []
        for message_id in group.hit_ids:
            row = details.get(message_id)
            if row is None:
                continue
            _id, session_id, role, timestamp, tool_name = row
            title = sessions.get(session_id, (None, None))[1]
            hits.append(
                LineageHit(
                    message_id, session_id, title, role, float(timestamp or 0), tool_name, snippets.get(message_id, "")
                )
            )
        if not hits:
            continue
        tip = tips.get(group.root, group.root)
        tip_title = sessions.get(tip, (None, None))[1]
        root_row = sessions.get(group.root, (None, None, ""))
        results.append(
            LineageResult(
                root_id=group.root,
                tip_id=tip,
                title=tip_title or root_row[1],
                source=str(root_row[2] or ""),
                hit_count=group.count,
                session_count=len(group.sessions),
                newest=max(hit.timestamp for hit in hits),
                hits=tuple(hits),
            )
        )
    return tuple(results)


def run_lineage_search(conn: sqlite3.Connection, req: SearchRequest, options: LineageSearchOptions) -> LineageSearch:
    """The grouped search (module docstring), on the reader's thread."""
    stopper = _Stopper(options)
    rows, stopped, match, rejected = _matching_ids(conn, req, stopper, max(1, options.scan_cap))
    if rejected:
        return LineageSearch(query_error=True)
    if stopped == STOP_CANCELLED:
        return LineageSearch(scanned=len(rows), stopped=STOP_CANCELLED)
    groups, tips = _group(conn, rows, options)
    results = _results(conn, req, match, groups, tips)
    return LineageSearch(results, scanned=len(rows), stopped=stopped)
