"""Full-text search over messages (reference §2.6), designed for a million rows.

Ordering rule (the physics: BM25 `ORDER BY rank` over a term matching a quarter of a million
rows costs hundreds of milliseconds, while the newest matches in rowid order cost well under
one): `sort=None` first probes how many rows match, reading at most RANK_PROBE_LIMIT + 1 rowids.
Up to RANK_PROBE_LIMIT matches are ranked by BM25; more than that are returned newest-first
(rowid descending over the FTS match, so SQLite stops after `limit` rows). `sort="rank"` always
ranks; `sort="newest"`/`"oldest"` order by insertion (rowid), which is Hermes's canonical order.

A filter by one role merges the matches with our role index (store.search_by_role), so a
common term no message of that role holds does not read every match's row.
CJK queries use the trigram index or a LIKE fallback (see fts_query; the fallback walks messages
newest-first by id and stops after the page). `search_lineages` groups the matches one row per
lineage for the search screen (store.search_lineages). Every hit carries
`context` (the previous and next message of the same session) and `lineage_root_id`. Like
Hermes's search, the rows an in-place compaction archived (`active = 0, compacted = 1`) are found,
rewound ones (`active = 0, compacted = 0`) are not (`StoreBase.visible_rows_sql`). A query
SQLite rejects even after sanitising returns [] — search never raises on user input. All the
statements of one search run in a single hop to the reader thread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from hermes_tui.store.base import StoreBase
from hermes_tui.store.codec import clipped_content_sql, decode_content, flatten_text, truncate
from hermes_tui.store.connection import placeholders, tuples
from hermes_tui.store.lineage_queries import ROOTS_SQL
from hermes_tui.store.search_by_role import role_index_exists, role_page_ids
from hermes_tui.store.search_lineages import LineageSearch, LineageSearchOptions, run_lineage_search
from hermes_tui.store.search_plan import SearchRequest, as_list, like_condition, plan_search, search_filters

RANK_PROBE_LIMIT = 2000
CONTEXT_CHARS = 200
LIKE_SCAN_CHARS = 4000
SNIPPET_TOKENS = 40
SORTS = (None, "rank", "newest", "oldest")

# The keys of every hit `search_messages` returns (the CLI's `search --json` contract is these,
# with `id` named `message_id`).
SEARCH_HIT_FIELDS = (
    "id",
    "session_id",
    "lineage_root_id",
    "role",
    "snippet",
    "timestamp",
    "tool_name",
    "source",
    "model",
    "session_started",
    "context",
)
# The columns a hit query selects, in order (parent_session_id is replaced by lineage_root_id).
_HIT_KEYS = (
    "id",
    "session_id",
    "role",
    "timestamp",
    "tool_name",
    "source",
    "model",
    "session_started",
    "parent_session_id",
    "snippet",
)
_HIT_COLUMNS = (
    "m.id, m.session_id, m.role, m.timestamp, m.tool_name, s.source, s.model, s.started_at, s.parent_session_id"
)

# Each hit's previous and next message in its session by (timestamp, id), in one statement.
# Long content is cut in SQL (JSON-sentinel content is kept whole so it can be decoded).
_NEIGHBOURS_SQL = """
WITH hits(id, session_id, ts) AS (SELECT id, session_id, timestamp FROM messages WHERE id IN ({marks})),
near(hit_id, position, nid) AS (
    SELECT h.id, 'before', (SELECT p.id FROM messages p
        WHERE p.session_id = h.session_id AND (p.timestamp, p.id) < (h.ts, h.id){active_p}
        ORDER BY p.timestamp DESC, p.id DESC LIMIT 1) FROM hits h
    UNION ALL
    SELECT h.id, 'after', (SELECT n.id FROM messages n
        WHERE n.session_id = h.session_id AND (n.timestamp, n.id) > (h.ts, h.id){active_n}
        ORDER BY n.timestamp, n.id LIMIT 1) FROM hits h
)
SELECT near.hit_id, near.position, m.id, m.role, {clipped}
FROM near JOIN messages m ON m.id = near.nid
"""
_FTS_QUERY_ERRORS = ("fts5", "syntax", "no such column", "unterminated", "unrecognized token")


def like_snippet(text: str, terms: Sequence[str]) -> str:
    """Hermes's LIKE-path snippet: 120 characters starting 40 before the first matching term."""
    positions = [text.find(term) for term in terms if term and term in text]
    start = max(0, min(positions) - 40) if positions else 0
    return text[start : start + 120]


def _clean_snippet(text: str | None) -> str:
    return (text or "").replace("\x00json:", "").replace("\x00", "").strip()


def _fts_hits(conn: sqlite3.Connection, req: SearchRequest) -> list[dict[str, Any]]:
    table = req.table
    for match in req.matches:
        try:
            sort = req.sort
            if sort is None:
                probe = f"SELECT COUNT(*) FROM (SELECT rowid FROM {table} WHERE {table} MATCH ? LIMIT ?)"
                matched = tuples(conn, probe, (match, RANK_PROBE_LIMIT + 1))[0][0]
                sort = "rank" if matched <= RANK_PROBE_LIMIT else "newest"
            order = {"rank": "rank", "newest": f"{table}.rowid DESC", "oldest": f"{table}.rowid ASC"}[sort]
            select = (
                f"SELECT {_HIT_COLUMNS}, snippet({table}, 0, '>>>', '<<<', '...', {SNIPPET_TOKENS})"
                f" FROM {table} JOIN messages m ON m.id = {table}.rowid JOIN sessions s ON s.id = m.session_id"
            )
            if sort != "rank" and len(req.roles) == 1 and role_index_exists(conn):
                ids = role_page_ids(  # merged with the role index: never reads every match's row
                    conn,
                    table=table,
                    match=match,
                    role=req.roles[0],
                    where=req.where,
                    params=req.params,
                    page=req.page,
                    newest_first=sort == "newest",
                )
                sql = f"{select} WHERE {table} MATCH ? AND {table}.rowid IN ({placeholders(ids)}) ORDER BY {order}"
                rows = tuples(conn, sql, (match, *ids)) if ids else []
            else:
                sql = f"{select} WHERE {table} MATCH ?{req.where} ORDER BY {order} LIMIT ? OFFSET ?"
                rows = tuples(conn, sql, (match, *req.params, *req.page))
        except sqlite3.OperationalError as exc:
            if any(marker in str(exc).lower() for marker in _FTS_QUERY_ERRORS):
                continue  # the query text is not valid FTS5: try the next, safer form
            raise
        hits = [dict(zip(_HIT_KEYS, row, strict=True)) for row in rows]
        for hit in hits:
            hit["snippet"] = _clean_snippet(hit["snippet"])
        return hits
    return []


def _like_hits(conn: sqlite3.Connection, req: SearchRequest) -> list[dict[str, Any]]:
    """Short CJK terms: a LIKE scan, newest first by message id.

    Ordering by id (insertion order, which is timestamp order up to clock skew between writers)
    lets SQLite walk `messages` backwards and stop after the page; ordering by timestamp would
    scan and sort every row (1.2 s at a million messages) for the same hits.
    """
    terms = req.like_terms
    if not terms:
        return []
    condition, like_params = like_condition(terms, req.like_connectors)
    sql = (
        f"SELECT {_HIT_COLUMNS}, {clipped_content_sql('m.content', LIKE_SCAN_CHARS)}"
        f" FROM messages m JOIN sessions s ON s.id = m.session_id"
        f" WHERE {condition}{req.where} ORDER BY m.id {'ASC' if req.sort == 'oldest' else 'DESC'}"
        " LIMIT ? OFFSET ?"
    )
    hits = []
    for row in tuples(conn, sql, (*like_params, *req.params, *req.page)):
        hit = dict(zip(_HIT_KEYS, row, strict=True))
        hit["snippet"] = like_snippet(flatten_text(decode_content(hit["snippet"])), terms)
        hits.append(hit)
    return hits


def _attach_context(conn: sqlite3.Connection, hits: list[dict[str, Any]], visible: str | None) -> None:
    """`context`: the previous and next message of each hit's session by (timestamp, id), among the
    rows `visible` (over alias `m`) lets through (None: every row)."""
    ids = [hit["id"] for hit in hits]
    sql = _NEIGHBOURS_SQL.format(
        marks=placeholders(ids),
        active_p="" if visible is None else " AND " + visible.replace("m.", "p."),
        active_n="" if visible is None else " AND " + visible.replace("m.", "n."),
        clipped=clipped_content_sql("m.content", CONTEXT_CHARS + 1),
    )
    found: dict[int, dict[str, dict[str, Any]]] = {}
    for hit_id, position, nid, role, content in tuples(conn, sql, ids):
        text = truncate(flatten_text(decode_content(content)), CONTEXT_CHARS)
        found.setdefault(hit_id, {})[position] = {"id": nid, "role": role, "content": text, "position": position}
    for hit in hits:
        near = found.get(hit["id"], {})
        hit["context"] = [near[p] for p in ("before", "after") if p in near]


def _attach_roots(conn: sqlite3.Connection, hits: list[dict[str, Any]]) -> None:
    """`lineage_root_id`: the topmost ancestor of each hit's session (one query, only if needed)."""
    children = sorted({hit["session_id"] for hit in hits if hit["parent_session_id"]})
    roots: dict[str, str] = {}
    if children:
        for start, root, _depth in tuples(conn, ROOTS_SQL.format(marks=placeholders(children)), children):
            roots[start] = root
    for hit in hits:
        hit["lineage_root_id"] = roots.get(hit["session_id"], hit["session_id"])
        del hit["parent_session_id"]


def _run(conn: sqlite3.Connection, req: SearchRequest, visible: str) -> list[dict[str, Any]]:
    if req.sources and not tuples(
        conn, f"SELECT 1 FROM sessions WHERE source IN ({placeholders(req.sources)}) LIMIT 1", req.sources
    ):
        return []  # (otherwise every match of the term would be read to find that none passes)
    hits = _like_hits(conn, req) if req.like_terms else _fts_hits(conn, req)
    if hits:
        _attach_context(conn, hits, None if req.include_inactive else visible)
        _attach_roots(conn, hits)
    return hits


class SearchMixin(StoreBase):
    async def search_messages(
        self,
        query: str,
        source_filter: str | Sequence[str] | None = None,
        exclude_sources: Sequence[str] | None = None,
        role_filter: str | Sequence[str] | None = None,
        limit: int = 20,
        offset: int = 0,
        sort: str | None = None,
        include_inactive: bool = False,
        since: float | None = None,
        until: float | None = None,
    ) -> list[dict[str, Any]]:
        """Messages matching `query`, each with snippet, context and lineage root (module docstring).

        `since`/`until` (epoch seconds) keep messages with since <= timestamp < until.
        Hit keys: SEARCH_HIT_FIELDS. Raises ValueError only for an unknown `sort`.
        """
        query = (query or "").strip()
        if sort not in SORTS:
            raise ValueError(f"unknown sort {sort!r} (use rank, newest or oldest)")
        if not query or not self.fts_available or limit <= 0:
            return []
        visible = self.visible_rows_sql("m")
        where, params = search_filters(
            source_filter, exclude_sources, role_filter, include_inactive, since=since, until=until, visible=visible
        )
        req = plan_search(
            query,
            where=where,
            params=params,
            page=(int(limit), max(0, int(offset))),
            sort=sort,
            include_inactive=include_inactive,
            trigram_available=self.trigram_available,
            sources=tuple(as_list(source_filter)),
            roles=tuple(as_list(role_filter)),
        )
        if req is None:
            return []
        return await self._conns.read(lambda conn: _run(conn, req, visible))

    async def search_lineages(
        self,
        query: str,
        *,
        source_filter: str | Sequence[str] | None = None,
        role_filter: str | Sequence[str] | None = None,
        since: float | None = None,
        until: float | None = None,
        options: LineageSearchOptions | None = None,
    ) -> LineageSearch:
        """Matches of `query` grouped one row per lineage, newest first (`store.search_lineages`).

        Never raises on user input: a query with nothing searchable gives an empty answer, one
        SQLite rejects in every form an answer with `query_error` set.
        """
        query = (query or "").strip()
        if not query or not self.fts_available:
            return LineageSearch()
        visible = self.visible_rows_sql("m")
        where, params = search_filters(
            source_filter, None, role_filter, False, since=since, until=until, visible=visible
        )
        req = plan_search(
            query,
            where=where,
            params=params,
            page=(0, 0),
            sort="newest",
            include_inactive=False,
            trigram_available=self.trigram_available,
        )
        if req is None:
            return LineageSearch()
        chosen = options or LineageSearchOptions()
        return await self._conns.read(lambda conn: run_lineage_search(conn, req, chosen))
