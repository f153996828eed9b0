"""Durable edge kinds: how each child session was made, recorded when the child is created.

Hermes derives the kind of a parent -> child edge from the parent's `end_reason` and the
timestamps (reference §2.5, §3). That answer changes when the parent is resumed (resuming clears
`end_reason`), so a branch would turn into a plain child. We record the kind — compression,
branch or review — and the branch point (the `messages.id` of the last parent message the child
was made after; None when it starts before the parent's first message) in
`state_meta["edge:<child id>"]`, in the transaction that creates the child's row. Hermes's own
tables are untouched, so Hermes still reads the file. Lineage queries read these records first
and derive the kind only for sessions without one (the sessions Hermes made). A record whose
parent is not the session's current `parent_session_id` is ignored.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from hermes_tui.store.base import StoreBase
from hermes_tui.store.models import EDGE_BRANCH, EDGE_COMPRESSION, EDGE_REVIEW

EDGE_META_PREFIX = "edge:"
RECORDED_KINDS = (EDGE_COMPRESSION, EDGE_BRANCH, EDGE_REVIEW)

# Every record, read as one range of the state_meta primary key (';' sorts right after ':').
_ALL_RECORDS_SQL = "SELECT key, value FROM state_meta WHERE key >= 'edge:' AND key < 'edge;'"
_ONE_RECORD_SQL = "SELECT value FROM state_meta WHERE key = ?"


def edge_key(child_id: str) -> str:
    """The state_meta key of a child's edge record."""
    return f"{EDGE_META_PREFIX}{child_id}"


@dataclass(frozen=True, slots=True)
class EdgeRecord:
    """How a child session was made: its edge kind, its parent, and where it left the parent."""

    kind: str
    parent_id: str
    branch_point: int | None = None

    def to_json(self) -> str:
        return json.dumps({"kind": self.kind, "parent": self.parent_id, "branch_point": self.branch_point})

    @classmethod
    def from_json(cls, raw: object) -> EdgeRecord | None:
        """The record stored as `raw`, or None when it is not one (a damaged or foreign value)."""
        if not isinstance(raw, str):
            return None
        try:
            data = json.loads(raw)
        except ValueError:
            return None
        if not isinstance(data, dict):
            return None
        kind, parent, point = data.get("kind"), data.get("parent"), data.get("branch_point")
        if kind not in RECORDED_KINDS or not isinstance(parent, str) or not parent:
            return None
        if isinstance(point, bool) or not isinstance(point, int):
            point = None
        return cls(kind, parent, point)

    def applies_to(self, parent_id: str | None) -> bool:
        """Whether this record describes the edge to `parent_id` (the session's current parent)."""
        return parent_id is not None and parent_id == self.parent_id


def read_edge_records(conn: sqlite3.Connection) -> dict[str, EdgeRecord]:
    """Every recorded edge, by child id, read on `conn` (inside the caller's read)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    records: dict[str, EdgeRecord] = {}
    for key, value in cursor.execute(_ALL_RECORDS_SQL):
        record = EdgeRecord.from_json(value)
        if record is not None:
            records[str(key)[len(EDGE_META_PREFIX) :]] = record
    return records


def read_edge_record(conn: sqlite3.Connection | sqlite3.Cursor, child_id: str) -> EdgeRecord | None:
    """One child's recorded edge, read on `conn`; None when it has none."""
    row = conn.execute(_ONE_RECORD_SQL, (edge_key(child_id),)).fetchone()
    return EdgeRecord.from_json(row[0]) if row else None


def write_edge_record(conn: sqlite3.Connection, child_id: str, record: EdgeRecord) -> None:
    """Store `record` for `child_id` (inside the caller's write transaction)."""
    conn.execute(
        "INSERT INTO state_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (edge_key(child_id), record.to_json()),
    )


class EdgesMixin(StoreBase):
    async def get_edge_record(self, child_id: str) -> EdgeRecord | None:
        """The recorded edge of `child_id`, or None (a session Hermes made, or a root)."""
        return await self._conns.read(lambda conn: read_edge_record(conn, child_id))

    async def edge_records(self) -> dict[str, EdgeRecord]:
        """Every recorded edge, by child id."""
        return await self._conns.read(read_edge_records)
