"""A full-text search filtered by one role, merged with the role index instead of reading every match.

Without it a common term whose matches all fail the role filter (a word users write, searched
among tool outputs) reads the row of every match to find that none passes: ~120 ms at a million
messages. `role_page_ids` asks SQLite for the intersection of the two rowid lists — the term's
full-text matches and the role's messages from our `idx_hermes_tui_messages_role` (schema) — as a
compound `INTERSECT` with an `ORDER BY` on the id, which SQLite runs as a merge of the two sorted
streams: no table row is read, and it stops after a batch or when either list ends. The rest of
the filters (active, source, dates) are then checked on that batch only, and further batches
follow from the last id until the page is full, so the page is exactly the one the plain join
gives (same order: newest or oldest first by id).

When the index is missing (a file another tool rebuilt and we have not opened for writing since),
the caller keeps the plain join.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from hermes_tui.store.schema import ROLE_INDEX, ROLE_KEY_SQL
from hermes_tui.store.sqlite_io import placeholders, tuples

FIRST_BATCH = 40  # intersection rows in the first step: a page of 20 with few other filters takes one
MAX_BATCH = 2_000  # each further step doubles, up to this


def role_index_exists(conn: sqlite3.Connection) -> bool:
    return bool(tuples(conn, "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (ROLE_INDEX,)))


def role_page_ids(
    conn: sqlite3.Connection,
    *,
    table: str,
    match: str,
    role: str,
    where: str,
    params: Sequence[Any],
    page: tuple[int, int],
    newest_first: bool,
) -> list[int]:
    """The ids of one page of `match` hits whose role is `role` and that pass `where` (over `m`, `s`)."""
    limit, offset = page
    wanted = limit + offset
    order, beyond = ("DESC", "<") if newest_first else ("ASC", ">")
    found: list[int] = []
    last: int | None = None
    size = max(FIRST_BATCH, 2 * wanted)
    while len(found) < wanted:
        fts_bound = f" AND rowid {beyond} ?" if last is not None else ""
        role_bound = f" AND id {beyond} ?" if last is not None else ""
        bound = (last,) if last is not None else ()
        sql = (
            f"SELECT rowid FROM {table} WHERE {table} MATCH ?{fts_bound}"
            f" INTERSECT SELECT id FROM messages INDEXED BY {ROLE_INDEX} WHERE {ROLE_KEY_SQL} = ?{role_bound}"
            f" ORDER BY 1 {order} LIMIT ?"
        )
        batch = [row[0] for row in tuples(conn, sql, (match, *bound, role, *bound, size))]
        if not batch:
            break
        found += _passing(conn, batch, where, params) if where else batch
        if len(batch) < size:
            break
        last = batch[-1]
        size = min(MAX_BATCH, 2 * size)
    return found[offset:wanted]


def _passing(conn: sqlite3.Connection, ids: list[int], where: str, params: Sequence[Any]) -> list[int]:
    """`ids` (in their order) whose message and session pass the " AND ..." clauses in `where`."""
    sql = (
        f"SELECT m.id FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.id IN ({placeholders(ids)}){where}"
    )
    passing = {row[0] for row in tuples(conn, sql, (*ids, *params))}
    return [message_id for message_id in ids if message_id in passing]
