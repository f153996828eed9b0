"""The data migrations Hermes runs when it upgrades an older `state.db` to v21 (the column changes
are `schema`'s declarative reconcile), run in the same transaction when we upgrade a file.

They are Hermes's own steps, so a file we upgrade holds what Hermes would have made of it, and
Hermes — which gates these on the stored version — never needs to run them later:

- v16: child sessions that are neither branches nor compression continuations are delegate
  (subagent) runs, tagged `model_config._delegate_from = <parent>`; small untitled parentless
  sessions with tool messages and no children are tagged `'__orphaned__'`. Hermes tells a branch
  by its `_branched_from` marker or the old end-reason rule (parent ended "branched", child
  started after); ours carry an edge record (`state_meta["edge:<id>"]`) instead, which survives a
  resumed parent. So before Hermes's rule runs, our recorded branches get the marker Hermes reads,
  and our recorded compression children are left untagged, as they are continuations.
- v18: gateway metadata copied from `<home>/sessions/sessions.json` when that file exists.
- v20: one `session_model_usage` row per session with token totals, seeded from the session row.

A step that cannot run (a JSON function missing, a damaged sessions.json) is skipped, as Hermes
skips it: the upgrade itself never fails over one.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from hermes_tui.store.regular_files import read_regular_bytes

SESSIONS_JSON_MAX_BYTES = 64 << 20
_EDGE_RECORDS = "SELECT key, value FROM state_meta WHERE key >= 'edge:' AND key < 'edge;'"

# Hermes's rules: a branch child (marker, or the old end-reason rule) and a compression child.
_BRANCH_CHILD = (
    "json_extract(COALESCE({a}.model_config, '{{}}'), '$._branched_from') IS NOT NULL"
    " OR EXISTS (SELECT 1 FROM sessions p WHERE p.id = {a}.parent_session_id"
    " AND p.end_reason = 'branched' AND {a}.started_at >= p.ended_at)"
)
_COMPRESSION_CHILD = (
    "EXISTS (SELECT 1 FROM sessions p WHERE p.id = {a}.parent_session_id AND p.end_reason = 'compression')"
)


def _ephemeral_child(alias: str) -> str:
    return (
        f"({alias}.parent_session_id IS NOT NULL AND NOT ({_BRANCH_CHILD.format(a=alias)})"
        f" AND NOT ({_COMPRESSION_CHILD.format(a=alias)}))"
    )


def _recorded_edges(conn: sqlite3.Connection) -> dict[str, tuple[str, str]]:
    """Our edge records: child id -> (kind, parent id)."""
    edges: dict[str, tuple[str, str]] = {}
    for key, value in conn.execute(_EDGE_RECORDS).fetchall():
        try:
            data = json.loads(value) if isinstance(value, str) else None
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("kind"), str) and isinstance(data.get("parent"), str):
            edges[str(key)[len("edge:") :]] = (data["kind"], data["parent"])
    return edges


def _v16_delegates(conn: sqlite3.Connection) -> None:
    valid = "json_valid(COALESCE(model_config, '{}'))"
    edges = _recorded_edges(conn)
    for child, (kind, parent) in edges.items():
        if kind == "branch":
            conn.execute(
                "UPDATE sessions SET model_config = json_set(COALESCE(model_config, '{}'), '$._branched_from', ?)"
                f" WHERE id = ? AND parent_session_id = ? AND {valid}"
                " AND json_extract(COALESCE(model_config, '{}'), '$._branched_from') IS NULL",
                (parent, child, parent),
            )
    continuations = [child for child, (kind, parent) in edges.items() if kind == "compression"]
    keep = f" AND id NOT IN ({', '.join('?' for _ in continuations)})" if continuations else ""
    conn.execute(
        "UPDATE sessions SET model_config = json_set(COALESCE(model_config, '{}'), '$._delegate_from',"
        f" parent_session_id) WHERE parent_session_id IS NOT NULL AND {valid}"
        " AND json_extract(COALESCE(model_config, '{}'), '$._delegate_from') IS NULL"
        f" AND {_ephemeral_child('sessions')}{keep}",
        continuations,
    )
    conn.execute(
        "UPDATE sessions SET model_config = json_set(COALESCE(model_config, '{}'), '$._delegate_from', '__orphaned__')"
        f" WHERE parent_session_id IS NULL AND {valid}"
        " AND json_extract(COALESCE(model_config, '{}'), '$._delegate_from') IS NULL"
        " AND json_extract(COALESCE(model_config, '{}'), '$._branched_from') IS NULL"
        " AND title IS NULL AND message_count <= 25"
        " AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = sessions.id AND m.role = 'tool')"
        " AND NOT EXISTS (SELECT 1 FROM sessions ch WHERE ch.parent_session_id = sessions.id)"
    )


def _v18_gateway_metadata(conn: sqlite3.Connection, home: Path | None) -> None:
    if home is None:
        return
    try:
        data = json.loads(read_regular_bytes(home / "sessions" / "sessions.json", limit=SESSIONS_JSON_MAX_BYTES))
    except (OSError, ValueError):
        return
    if not isinstance(data, dict):
        return
    for key, entry in data.items():
        if str(key).startswith("_") or not isinstance(entry, dict) or not entry.get("session_id"):
            continue
        origin: Any = entry.get("origin")
        origin = origin if isinstance(origin, dict) else None
        finalized = 1 if entry.get("expiry_finalized") or entry.get("memory_flushed") else 0
        conn.execute(
            "UPDATE sessions SET session_key = COALESCE(session_key, ?), chat_id = COALESCE(chat_id, ?),"
            " chat_type = COALESCE(chat_type, ?), thread_id = COALESCE(thread_id, ?),"
            " display_name = COALESCE(display_name, ?), origin_json = COALESCE(origin_json, ?),"
            " expiry_finalized = CASE WHEN COALESCE(expiry_finalized, 0) = 0 AND ? = 1 THEN 1"
            " ELSE expiry_finalized END WHERE id = ?",
            (
                entry.get("session_key") or key,
                origin.get("chat_id") if origin else None,
                entry.get("chat_type"),
                origin.get("thread_id") if origin else None,
                entry.get("display_name"),
                json.dumps(origin) if origin else None,
                finalized,
                str(entry["session_id"]),
            ),
        )


_V20_SEED = """INSERT OR IGNORE INTO session_model_usage (
    session_id, model, billing_provider, billing_base_url, billing_mode, api_call_count, input_tokens,
    output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd,
    actual_cost_usd, cost_status, cost_source, first_seen, last_seen)
SELECT id, COALESCE(model, 'unknown'), COALESCE(billing_provider, ''), COALESCE(billing_base_url, ''),
    COALESCE(billing_mode, ''), COALESCE(api_call_count, 0), COALESCE(input_tokens, 0),
    COALESCE(output_tokens, 0), COALESCE(cache_read_tokens, 0), COALESCE(cache_write_tokens, 0),
    COALESCE(reasoning_tokens, 0), COALESCE(estimated_cost_usd, 0), COALESCE(actual_cost_usd, 0),
    cost_status, cost_source, started_at, COALESCE(ended_at, started_at)
FROM sessions
WHERE COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0) + COALESCE(cache_read_tokens, 0)
    + COALESCE(cache_write_tokens, 0) + COALESCE(reasoning_tokens, 0) > 0"""


def run_data_migrations(conn: sqlite3.Connection, old_version: int, home: Path | None) -> None:
    """Hermes's data migrations for a file that was at `old_version` (inside the upgrade's transaction)."""
    steps = (
        (16, lambda: _v16_delegates(conn)),
        (18, lambda: _v18_gateway_metadata(conn, home)),
        (20, lambda: conn.execute(_V20_SEED)),
    )
    for version, step in steps:
        if old_version < version:
            try:
                step()
            except sqlite3.OperationalError:
                pass  # as Hermes: a step this SQLite cannot run is skipped, the upgrade goes on
