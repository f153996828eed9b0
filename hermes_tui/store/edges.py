"""Durable edge kinds: how each child session was made, recorded when the child is created.

Hermes derives the kind of a parent -> child edge from the parent's `end_reason` and the
timestamps (reference §2.5, §3). That answer changes when the parent is resumed (resuming clears
`end_reason`), so a branch would turn into a plain child. We record the kind — compression,
branch, review or background (a /background turn) — and the branch point (the `messages.id` of
the last parent message the child was made after; None when it starts before the parent's first
message) in
`state_meta["edge:<child id>"]`, in the transaction that creates the child's row. Hermes's own
tables are untouched, so Hermes still reads the file.

Newer Hermes marks a child in `sessions.model_config` (JSON) when it makes it: `_branched_from`,
`_delegate_from` or `_reset_from`, each naming the parent. Those markers are read as records too
(`marker_edge`), after ours; a branch we make also carries `_branched_from` (`child_model_config`),
so Hermes keeps listing it. Lineage queries read these records first and derive the kind only for
sessions without one (older Hermes sessions). A record whose parent is not the session's current
`parent_session_id` is ignored.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from hermes_tui.store.base import StoreBase
from hermes_tui.store.models import (
    EDGE_BACKGROUND,
    EDGE_BRANCH,
    EDGE_COMPRESSION,
    EDGE_DELEGATE,
    EDGE_RESET,
    EDGE_REVIEW,
)

EDGE_META_PREFIX = "edge:"
RECORDED_KINDS = (EDGE_COMPRESSION, EDGE_BRANCH, EDGE_REVIEW, EDGE_BACKGROUND)

# The model_config keys Hermes marks a child with, and the edge kind each names (first match wins).
MARKER_KINDS: tuple[tuple[str, str], ...] = (
    ("_branched_from", EDGE_BRANCH),
    ("_delegate_from", EDGE_DELEGATE),
    ("_reset_from", EDGE_RESET),
)
# Markers that describe how one session was made, so its children never inherit them.
_PER_SESSION_MARKERS = ("_branched_from", "_reset_from")

# Every record, read as one range of the state_meta primary key (';' sorts right after ':').
_ALL_RECORDS_SQL = "SELECT key, value FROM state_meta WHERE key >= 'edge:' AND key < 'edge;'"
_ONE_RECORD_SQL = "SELECT value FROM state_meta WHERE key = ?"
# Children whose model_config may carry a marker (`instr` is NULL, so false, without a config).
# model_config comes before system_prompt in the row, so this never reads a prompt's overflow pages.
_ALL_MARKERS_SQL = (
    "SELECT id, parent_session_id, model_config FROM sessions"
    " WHERE parent_session_id IS NOT NULL AND instr(model_config, '_from') > 0"
)
_ONE_MARKER_SQL = "SELECT parent_session_id, model_config FROM sessions WHERE id = ?"


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


def _config_dict(model_config: object) -> dict[str, object] | None:
    if isinstance(model_config, dict):
        return model_config
    if not isinstance(model_config, str) or not model_config:
        return None
    try:
        data = json.loads(model_config)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def marker_edge(model_config: object) -> EdgeRecord | None:
    """The edge a Hermes model_config marker names (`_branched_from`, …), or None (none, or not JSON)."""
    if isinstance(model_config, str) and "_from" not in model_config:
        return None  # the common case, without parsing
    data = _config_dict(model_config)
    if data is None:
        return None
    for key, kind in MARKER_KINDS:
        parent = data.get(key)
        if isinstance(parent, str) and parent:
            return EdgeRecord(kind, parent)
    return None


def child_model_config(parent_config: object, kind: str, parent_id: str) -> str | None:
    """The model_config a child we make stores: the parent's, without the markers that described
    how the parent was made, plus `_branched_from` when the child is a branch (as Hermes writes it)."""
    data = _config_dict(parent_config)
    if data is None:
        if kind != EDGE_BRANCH:
            return parent_config if isinstance(parent_config, str) else None
        data = {}
    config = {key: value for key, value in data.items() if key not in _PER_SESSION_MARKERS}
    if kind == EDGE_BRANCH:
        config["_branched_from"] = parent_id
    return json.dumps(config)


def read_edge_records(conn: sqlite3.Connection) -> dict[str, EdgeRecord]:
    """Every recorded edge, by child id, read on `conn` (inside the caller's read): ours, else the
    model_config marker that names the child's current parent."""
    cursor = conn.cursor()
    cursor.row_factory = None
    records: dict[str, EdgeRecord] = {}
    for child_id, parent_id, model_config in cursor.execute(_ALL_MARKERS_SQL):
        record = marker_edge(model_config)
        if record is not None and record.applies_to(parent_id):
            records[str(child_id)] = record
    for key, value in cursor.execute(_ALL_RECORDS_SQL):
        record = EdgeRecord.from_json(value)
        if record is not None:
            records[str(key)[len(EDGE_META_PREFIX) :]] = record
    return records


def read_edge_record(conn: sqlite3.Connection | sqlite3.Cursor, child_id: str) -> EdgeRecord | None:
    """One child's recorded edge (ours, else its model_config marker), read on `conn`; None when it has none."""
    row = conn.execute(_ONE_RECORD_SQL, (edge_key(child_id),)).fetchone()
    record = EdgeRecord.from_json(row[0]) if row else None
    if record is not None:
        return record
    row = conn.execute(_ONE_MARKER_SQL, (child_id,)).fetchone()
    if row is None:
        return None
    marked = marker_edge(row[1])
    return marked if marked is not None and marked.applies_to(row[0]) else None


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
