"""The session listing (`list_sessions_rich`, reference §2.5) behind /resume, /sessions and the CLI.

Rules: archived sessions are excluded unless asked; child sessions are hidden except branch
children (parent ended "branched", child started after); a compression root is shown as its
tip (the tip's id, title, counters, activity and preview, the root's `started_at`, plus
`_lineage_root_id`); ordering by last activity follows compression edges so a chain sorts by
its tip. Last activity is the newest message's timestamp, else `started_at`. Every row carries
`last_active`, `preview` and `lineage_root_id` (the topmost ancestor).

How a page is found without reading every session (one read transaction, so one snapshot):
walk `messages` newest-first by id in growing chunks, taking each session met for the first
time; map it to the listed session(s) it is the compression tip of, with its exact last
activity; take sessions without messages from `idx_sessions_started` down to the same point.
Message ids follow insertion order, and a message inserted later is never more than
CLOCK_SLACK_S older than one inserted before it (timestamps are taken just before the write
lock; writers retry for up to ~17 s). So once the walk has passed a message with timestamp T,
every session not yet met is last active before T + CLOCK_SLACK_S: the page is final as soon as
`offset + limit` listed sessions are more recent than that. A page that needs more than
WALK_MAX_ROWS messages and `limit=None` read every session instead. Ordering by `started_at`
(Hermes's default order) walks `idx_sessions_started` newest first and stops once the page is full.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hermes_tui.store.base import StoreBase
from hermes_tui.store.codec import clipped_content_sql, not_summary_sql, preview_of
from hermes_tui.store.connection import placeholders
from hermes_tui.store.edges import read_edge_records
from hermes_tui.store.lineage_queries import (
    LINK_COLUMNS,
    LazyGraph,
    LoadedGraph,
    SessionGraph,
    SessionLink,
    edge_of,
    root_of,
    tip_of,
    tipped_by,
)
from hermes_tui.store.models import EDGE_BRANCH, EDGE_ROOT

# Fields a compression root takes from its tip in the listing (the root keeps started_at).
TIP_FIELDS = (
    "id",
    "ended_at",
    "end_reason",
    "message_count",
    "tool_call_count",
    "title",
    "last_active",
    "preview",
    "model",
    "system_prompt",
    "cwd",
)

CLOCK_SLACK_S = 60.0
WALK_FIRST_CHUNK = 2048  # messages read by the first step of the walk (later steps: _next_chunk)
WALK_MAX_ROWS = 65536  # past this many messages, reading every session is cheaper than walking on
STARTED_STEP = 256  # sessions met per step by start, once every message has been walked
_BATCH = 500  # ids per IN (...) list

_NEWEST_SQL = "SELECT MAX(timestamp) FROM messages WHERE session_id = ?"
_CHUNK_SQL = (
    # NOT INDEXED: walk the rowid range, never a whole index for the GROUP BY. Rows: (session, count).
    "SELECT session_id, COUNT(*) FROM messages NOT INDEXED WHERE id >= ? AND id < ? GROUP BY session_id"
)
_BOUNDARY_SQL = "SELECT id, timestamp FROM messages WHERE id < ? ORDER BY id DESC LIMIT 1"
_BY_START_SQL = "SELECT id, started_at FROM sessions ORDER BY started_at DESC"
_ALL_SQL = f"""
SELECT {LINK_COLUMNS}, (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id)
FROM sessions s
"""
_DETAILS_SQL = """
SELECT s.*,
       (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id) AS last_message_at,
       (SELECT {clipped}
          FROM messages m WHERE m.session_id = s.id AND m.role = 'user' AND m.active = 1 AND {not_summary}
          ORDER BY m.timestamp, m.id LIMIT 1) AS first_user
FROM sessions s WHERE s.id IN ({marks})
""".replace("{clipped}", clipped_content_sql("m.content", 200)).replace("{not_summary}", not_summary_sql("m.content"))


def _as_list(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


@dataclass(frozen=True)
class _Filter:
    """Which sessions the listing shows (everything but the ordering and the page)."""

    sources: frozenset[str]
    excluded: frozenset[str]
    include_archived: bool
    include_children: bool

    def shows(self, graph: SessionGraph, session_id: str) -> bool:
        link = graph.link(session_id)
        if link is None or (link.archived and not self.include_archived):
            return False
        if (self.sources and link.source not in self.sources) or link.source in self.excluded:
            return False
        return self.include_children or edge_of(graph, session_id) in (EDGE_ROOT, EDGE_BRANCH)


# A listed session: (sort key, listed id, the id of its compression tip).
_Entry = tuple[float, str, str]


def _best_first(entries: list[_Entry]) -> list[_Entry]:
    return sorted(entries, key=lambda entry: (entry[0], entry[1]), reverse=True)


def _next_chunk(walked: int, found: int, wanted: int) -> int:
    """Message ids for the next step: what the rate so far (`found` final entries in `walked`
    messages) says the page still needs, plus a fifth; at least half a first chunk, at most four
    times what was read so far (or a first chunk)."""
    ceiling = max(WALK_FIRST_CHUNK, 4 * walked)
    if found == 0:
        return ceiling
    needed = int(walked * wanted / found * 1.2) - walked
    return min(max(needed, WALK_FIRST_CHUNK // 2), ceiling)


class _RecentWalk:
    """One newest-first walk over messages and session starts (see the module docstring)."""

    def __init__(self, conn: sqlite3.Connection, shown: _Filter) -> None:
        self.graph = LazyGraph(conn)
        self.shown = shown
        self.entries: dict[str, _Entry] = {}
        self.walked = 0  # messages read so far
        self._met: set[str] = set()
        self._cursor = conn.cursor()
        self._cursor.row_factory = None
        self._top = int(self._cursor.execute("SELECT COALESCE(MAX(id), 0) FROM messages").fetchone()[0]) + 1
        self._message_bound = math.inf  # sessions with messages not met yet were last active before it
        self._by_start = conn.cursor()
        self._by_start.row_factory = None
        self._by_start.execute(_BY_START_SQL)
        self._pending: tuple[str, float] | None = self._by_start.fetchone()  # next by start, not met

    def close(self) -> None:
        self._by_start.close()

    @property
    def messages_left(self) -> bool:
        return self._top > 1

    @property
    def exhausted(self) -> bool:
        return not self.messages_left and self._pending is None

    def meet(self, session_id: str) -> None:
        """Record the listed sessions `session_id` is the compression tip of, keyed by its activity."""
        if session_id in self._met:
            return
        self._met.add(session_id)
        link = self.graph.link(session_id)
        if link is None:
            return  # messages of a session row that no longer exists
        listed = [sid for sid in tipped_by(self.graph, session_id) if self.shown.shows(self.graph, sid)]
        if listed:
            newest = self._cursor.execute(_NEWEST_SQL, (session_id,)).fetchone()[0]
            key = float(newest) if newest is not None else link.started_at
            for sid in listed:
                self.entries[sid] = (key, sid, session_id)

    def read_messages(self, ids: int) -> None:
        """Meet the sessions of the next `ids` message ids down, then every session started after
        what that leaves as the bound."""
        low = max(1, self._top - ids)
        for session_id, count in self._cursor.execute(_CHUNK_SQL, (low, self._top)).fetchall():
            self.meet(session_id)
            self.walked += int(count)
        boundary = self._cursor.execute(_BOUNDARY_SQL, (low,)).fetchone()
        if boundary is None:
            self._top, self._message_bound = 1, -math.inf
            return
        self._top = int(boundary[0]) + 1  # the next step starts at the next row: ids deleted below are skipped
        self._message_bound = float(boundary[1]) + CLOCK_SLACK_S
        while self._pending is not None and self._pending[1] > self._message_bound:
            self._meet_pending()

    def read_started(self, count: int) -> None:
        """Meet the next `count` sessions by start (once every session with messages is met)."""
        self._message_bound = -math.inf
        for _ in range(count):
            if self._pending is None:
                break
            self._meet_pending()

    def _meet_pending(self) -> None:
        assert self._pending is not None
        self.meet(self._pending[0])
        self._pending = self._by_start.fetchone()

    def final(self) -> list[_Entry]:
        """Entries no session left unmet can outrank: each has a later activity than any of those."""
        floor = max(self._message_bound, float(self._pending[1]) if self._pending is not None else -math.inf)
        return [entry for entry in self.entries.values() if entry[0] > floor]


def _walk_recent(conn: sqlite3.Connection, shown: _Filter, wanted: int) -> tuple[SessionGraph, list[_Entry]] | None:
    """The `wanted` most recently active listed sessions, best first (module docstring).

    None when the walk would pass WALK_MAX_ROWS messages: the caller reads every session.
    """
    walk = _RecentWalk(conn, shown)
    try:
        chunk = WALK_FIRST_CHUNK
        while True:
            if walk.messages_left:
                if walk.walked >= WALK_MAX_ROWS:
                    return None
                walk.read_messages(min(chunk, max(WALK_FIRST_CHUNK, WALK_MAX_ROWS - walk.walked)))
            else:
                walk.read_started(STARTED_STEP)
            final = walk.final()
            if len(final) >= wanted or walk.exhausted:
                return walk.graph, _best_first(final)[:wanted]
            chunk = _next_chunk(walk.walked, len(final), wanted)
    finally:
        walk.close()


def _walk_by_start(conn: sqlite3.Connection, shown: _Filter, wanted: int) -> tuple[SessionGraph, list[_Entry]]:
    """The `wanted` listed sessions that started last, best first: sessions are read newest start
    first through `idx_sessions_started` until the page is full (and no tie with its last entry
    is left), so a page reads ~`wanted` sessions, not all of them."""
    graph = LazyGraph(conn)
    cursor = conn.cursor()
    cursor.row_factory = None
    entries: list[_Entry] = []
    try:
        cursor.execute(_BY_START_SQL)
        while True:
            rows = cursor.fetchmany(STARTED_STEP)
            if not rows:
                break
            for session_id, started_at in rows:
                if len(entries) >= wanted and started_at != entries[-1][0]:
                    return graph, _best_first(entries)[:wanted]
                if shown.shows(graph, session_id):
                    link = graph.link(session_id)
                    assert link is not None
                    entries.append((link.started_at, session_id, tip_of(graph, session_id)))
    finally:
        cursor.close()
    return graph, _best_first(entries)[:wanted]


def _read_everything(conn: sqlite3.Connection, shown: _Filter, by_activity: bool) -> tuple[SessionGraph, list[_Entry]]:
    """Every listed session, best first, from one pass over all sessions."""
    cursor = conn.cursor()
    cursor.row_factory = None
    rows = cursor.execute(_ALL_SQL).fetchall()
    graph = LoadedGraph((SessionLink.from_row(row) for row in rows), read_edge_records(conn))
    newest = {row[0]: row[7] for row in rows}
    entries: list[_Entry] = []
    for session_id, link in graph.links.items():
        if not shown.shows(graph, session_id):
            continue
        tip = tip_of(graph, session_id)
        if by_activity:
            # A compression chain sorts by its tip's activity (whether or not it is projected).
            tip_newest = newest.get(tip)
            key = float(tip_newest) if tip_newest is not None else graph.links[tip].started_at
        else:
            key = link.started_at
        entries.append((key, session_id, tip))
    return graph, _best_first(entries)


def _details(conn: sqlite3.Connection, ids: list[str]) -> dict[str, dict[str, Any]]:
    """Full rows for `ids`, with `last_active` and `preview`."""
    details: dict[str, dict[str, Any]] = {}
    cursor = conn.cursor()
    cursor.row_factory = None
    for start in range(0, len(ids), _BATCH):
        batch = ids[start : start + _BATCH]
        rows = cursor.execute(_DETAILS_SQL.format(marks=placeholders(batch)), batch).fetchall()
        names = [column[0] for column in cursor.description]
        for row in rows:
            entry = dict(zip(names, row, strict=True))
            entry["last_active"] = entry.pop("last_message_at") or entry["started_at"]
            first_user = entry.pop("first_user")
            entry["preview"] = preview_of(first_user) if first_user else ""
            details[entry["id"]] = entry
    return details


def _rows(
    graph: SessionGraph, page: list[_Entry], details: dict[str, dict[str, Any]], project: bool
) -> list[dict[str, Any]]:
    """The page's rows: each listed session's own row, projected onto its tip when asked."""
    result: list[dict[str, Any]] = []
    for _key, listed, tip in page:
        item = dict(details[listed])
        if project and tip != listed:
            projected = details[tip]
            for field in TIP_FIELDS:
                item[field] = projected[field]
            item["_lineage_root_id"] = listed
        item["lineage_root_id"] = root_of(graph, listed)
        result.append(item)
    return result


def _listing(
    conn: sqlite3.Connection, shown: _Filter, start: int, limit: int | None, project: bool, by_activity: bool
) -> list[dict[str, Any]]:
    """One page, read in one transaction (a consistent snapshot of the file)."""
    conn.execute("BEGIN")
    try:
        found = None
        if limit is not None and by_activity:
            found = _walk_recent(conn, shown, start + limit)
        elif limit is not None:
            found = _walk_by_start(conn, shown, start + limit)
        graph, ordered = found if found is not None else _read_everything(conn, shown, by_activity)
        page = ordered[start:] if limit is None else ordered[start : start + limit]
        wanted = sorted({listed for _, listed, _ in page} | {tip for _, _, tip in page if project})
        return _rows(graph, page, _details(conn, wanted), project)
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


class ListingMixin(StoreBase):
    async def list_sessions_rich(
        self,
        limit: int | None = 20,
        offset: int = 0,
        source_filter: str | Sequence[str] | None = None,
        exclude_sources: Sequence[str] | None = None,
        include_archived: bool = False,
        project_compression_tips: bool = True,
        order_by_last_active: bool = True,
        include_children: bool = False,
    ) -> list[dict[str, Any]]:
        """Recent sessions for pickers and listings (see the module docstring). `limit=None`: all."""
        shown = _Filter(
            sources=frozenset(_as_list(source_filter)),
            excluded=frozenset(_as_list(exclude_sources)),
            include_archived=include_archived,
            include_children=include_children,
        )
        start = max(0, int(offset))
        size = None if limit is None else max(0, int(limit))
        if size == 0:
            return []
        return await self._conns.read(
            lambda conn: _listing(conn, shown, start, size, project_compression_tips, order_by_last_active)
        )
