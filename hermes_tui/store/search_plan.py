"""What one full-text search will run, decided before it goes to the reader thread.

Owns `SearchRequest` (the WHERE filters, the page, the FTS expressions to try in order or the
LIKE terms of the CJK fallback) and `plan_search`, which turns what a user typed plus the role,
source and date filters into one. Both `search_messages` (hits) and `search_lineages` (hits
grouped by lineage) build their requests here, so the two always agree on what matches.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hermes_tui.store.base import escape_like
from hermes_tui.store.codec import SENTINEL_SQL
from hermes_tui.store.connection import placeholders
from hermes_tui.store.fts_query import plan_cjk_query, quote_all_terms, sanitize_fts5_query
from hermes_tui.store.schema import FTS_TABLE, TRIGRAM_TABLE


@dataclass(frozen=True)
class SearchRequest:
    """One search, fully decided: run `matches` against `table`, or LIKE `like_terms` when set."""

    where: str
    params: tuple[Any, ...]
    page: tuple[int, int]
    sort: str | None
    include_inactive: bool
    table: str = FTS_TABLE
    matches: tuple[str, ...] = ()  # FTS expressions to try in order
    like_terms: tuple[str, ...] = ()
    like_connectors: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # the source filter: a search of no such session is empty at once
    roles: tuple[str, ...] = ()  # the role filter: one role is searched through the role index


def as_list(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return [str(v) for v in value if str(v).strip()]


def search_filters(
    source_filter: str | Sequence[str] | None,
    exclude_sources: Sequence[str] | None,
    role_filter: str | Sequence[str] | None,
    include_inactive: bool,
    since: float | None = None,
    until: float | None = None,
    visible: str = "m.active = 1",
) -> tuple[str, list[Any]]:
    """The " AND ..." clauses (over `m` messages and `s` sessions) and their parameters.

    `visible` is the row filter unless `include_inactive` (`StoreBase.visible_rows_sql`: live rows
    and rows an in-place compaction archived, never rewound ones). `since` and `until` bound the
    message's timestamp: since <= timestamp < until.
    """
    clauses: list[str] = []
    params: list[Any] = []
    if not include_inactive:
        clauses.append(visible)
    for column, values, negate in (
        ("s.source", as_list(source_filter), False),
        ("s.source", as_list(exclude_sources), True),
        ("m.role", as_list(role_filter), False),
    ):
        if values:
            clauses.append(f"{column} {'NOT IN' if negate else 'IN'} ({placeholders(values)})")
            params.extend(values)
    if since is not None:
        clauses.append("m.timestamp >= ?")
        params.append(float(since))
    if until is not None:
        clauses.append("m.timestamp < ?")
        params.append(float(until))
    return (" AND " + " AND ".join(clauses)) if clauses else "", params


def like_condition(terms: Sequence[str], connectors: Sequence[str]) -> tuple[str, list[Any]]:
    """The parenthesised LIKE condition (over `m` messages) for the CJK fallback, and its parameters.

    Each term must appear in the content, the tool name or the tool calls (inside JSON-sentinel
    content too); terms are joined by their connectors ("AND", "OR", "AND NOT").
    """
    sentinel = SENTINEL_SQL.format(column="m.content")
    clause = (
        "(m.content LIKE ? ESCAPE '\\' OR m.tool_name LIKE ? ESCAPE '\\' OR m.tool_calls LIKE ? ESCAPE '\\'"
        f" OR ({sentinel} AND instr(CAST(m.content AS BLOB), CAST(? AS BLOB)) > 0))"
    )
    parts = [clause]
    params: list[Any] = []
    for index, term in enumerate(terms):
        pattern = f"%{escape_like(term)}%"
        params.extend((pattern, pattern, pattern, term))
        if index:
            parts.append(f" {connectors[index - 1]} {clause}")
    return f"({''.join(parts)})", params


def plan_search(
    query: str,
    *,
    where: str,
    params: Sequence[Any],
    page: tuple[int, int],
    sort: str | None,
    include_inactive: bool,
    trigram_available: bool,
    sources: tuple[str, ...] = (),
    roles: tuple[str, ...] = (),
) -> SearchRequest | None:
    """The request for `query` (already stripped), or None when nothing searchable is left.

    CJK text uses the trigram index when every CJK word has at least three characters (and the
    index exists), else LIKE terms; anything else is an FTS5 expression (sanitised, then the
    all-terms-quoted form SQLite always accepts).
    """
    base: dict[str, Any] = {
        "where": where,
        "params": tuple(params),
        "page": page,
        "sort": sort,
        "include_inactive": include_inactive,
        "sources": sources,
        "roles": roles,
    }
    plan = plan_cjk_query(query)
    if plan is not None and not (plan.use_trigram and trigram_available):
        if not plan.terms:
            return None
        return SearchRequest(**base, like_terms=plan.terms, like_connectors=plan.connectors)
    if plan is not None:
        return SearchRequest(**base, table=TRIGRAM_TABLE, matches=(plan.trigram_query,))
    candidates = [m for m in (sanitize_fts5_query(query), quote_all_terms(query)) if m]
    if not candidates:
        return None
    return SearchRequest(**base, matches=tuple(dict.fromkeys(candidates)))
