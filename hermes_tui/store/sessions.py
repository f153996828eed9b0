"""Session rows: creation, ending and reopening, counters, model/prompt updates, state_meta.

Owns the `sessions` and `state_meta` writes that are not about titles or lineage (reference
§2.4): `create_session` is `INSERT OR IGNORE` (with the working folder's git branch and repository
root, v21's columns, when known); `end_session` keeps the first reason; `update_token_counts`
increments (or sets, `absolute=True`), fills `model`/`billing_*` only when empty and, for an
increment, adds the call to the per-model `session_model_usage` row as Hermes does; the
compression-failure cooldown kept on the row (v21) so it survives a resume; the
orphaned-compression finalizer.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from hermes_tui.store.base import StoreBase, escape_like, row_dict
from hermes_tui.store.connection import fetch_in
from hermes_tui.store.edges import EdgeRecord, write_edge_record
from hermes_tui.store.titles import sanitize_title, title_conflict_message

ORPHAN_MAX_AGE_S = 7 * 24 * 3600
END_REASON_COMPRESSION = "compression"
END_REASON_BRANCHED = "branched"
END_REASON_ORPHANED = "orphaned_compression"

_TOKEN_COLUMNS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


# One API call added to the session's per-model row (Hermes's session_model_usage, v20), keyed by
# the model and billing route the session row holds now (after the UPDATE that filled them).
_MODEL_USAGE_SQL = """INSERT INTO session_model_usage (
    session_id, model, billing_provider, billing_base_url, billing_mode, input_tokens, output_tokens,
    cache_read_tokens, cache_write_tokens, reasoning_tokens, api_call_count, estimated_cost_usd,
    actual_cost_usd, cost_status, cost_source, first_seen, last_seen)
SELECT s.id, COALESCE(s.model, 'unknown'), COALESCE(s.billing_provider, ''), COALESCE(s.billing_base_url, ''),
    COALESCE(s.billing_mode, ''), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM sessions s WHERE s.id = ?
ON CONFLICT(session_id, model, billing_provider, billing_base_url, billing_mode) DO UPDATE SET
    api_call_count = api_call_count + excluded.api_call_count,
    input_tokens = input_tokens + excluded.input_tokens,
    output_tokens = output_tokens + excluded.output_tokens,
    cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
    reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
    estimated_cost_usd = estimated_cost_usd + excluded.estimated_cost_usd,
    actual_cost_usd = actual_cost_usd + excluded.actual_cost_usd,
    cost_status = COALESCE(excluded.cost_status, cost_status),
    cost_source = COALESCE(excluded.cost_source, cost_source),
    last_seen = excluded.last_seen"""


class SessionsMixin(StoreBase):
    async def create_session(
        self,
        session_id: str,
        source: str,
        model: str | None = None,
        model_config: dict[str, Any] | str | None = None,
        system_prompt: str | None = None,
        parent_session_id: str | None = None,
        cwd: str | None = None,
        title: str | None = None,
        edge: EdgeRecord | None = None,
        git_branch: str | None = None,
        git_repo_root: str | None = None,
    ) -> str:
        """Create the row if it does not exist yet (idempotent); returns `session_id`.

        `edge` records how a child was made (`state_meta["edge:<id>"]`, store/edges.py), written
        in the same transaction as the row. Raises ValueError for an empty id, an unknown parent,
        or a title another session uses.
        """
        if not session_id:
            raise ValueError("a session id is required")
        config_text = json.dumps(model_config) if isinstance(model_config, dict) else model_config
        clean_title = sanitize_title(title) if title is not None else None

        def work(conn: sqlite3.Connection) -> str:
            if parent_session_id is not None and not fetch_in(
                conn, "SELECT 1 FROM sessions WHERE id = ?", (parent_session_id,)
            ):
                raise ValueError(f"parent session {parent_session_id} does not exist")
            if clean_title is not None:
                taken = fetch_in(conn, "SELECT id FROM sessions WHERE title = ? AND id != ?", (clean_title, session_id))
                if taken:
                    raise ValueError(title_conflict_message(clean_title, taken[0]["id"]))
            cursor = conn.execute(
                "INSERT OR IGNORE INTO sessions (id, source, model, model_config, system_prompt,"
                " parent_session_id, started_at, cwd, title, git_branch, git_repo_root)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    source or "unknown",
                    model,
                    config_text,
                    system_prompt,
                    parent_session_id,
                    time.time(),
                    cwd,
                    clean_title,
                    git_branch or None,
                    git_repo_root or None,
                ),
            )
            if edge is not None and cursor.rowcount > 0:
                write_edge_record(conn, session_id, edge)
            return session_id

        return await self._conns.write(work)

    async def ensure_session(self, session_id: str, source: str = "unknown", **fields: Any) -> str:
        """Same as `create_session`: make sure the row exists."""
        return await self.create_session(session_id, source, **fields)

    async def get_session(self, session_id: str) -> dict[str, Any] | None:
        """The session row as a dict, or None."""
        return row_dict(await self._conns.fetchone("SELECT * FROM sessions WHERE id = ?", (session_id,)))

    async def session_exists(self, session_id: str) -> bool:
        return await self._conns.fetchone("SELECT 1 FROM sessions WHERE id = ?", (session_id,)) is not None

    async def end_session(self, session_id: str, reason: str) -> bool:
        """Mark the session ended with `reason`; the first reason wins. True when it changed."""

        def work(conn: sqlite3.Connection) -> bool:
            cursor = conn.execute(
                "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL",
                (time.time(), reason, session_id),
            )
            return cursor.rowcount > 0

        return await self._conns.write(work)

    async def reopen_session(self, session_id: str) -> bool:
        """Clear `ended_at`/`end_reason` so the session can continue (and be ended again)."""

        def work(conn: sqlite3.Connection) -> bool:
            cursor = conn.execute("UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?", (session_id,))
            return cursor.rowcount > 0

        return await self._conns.write(work)

    async def set_session_archived(self, session_id: str, archived: bool = True) -> bool:
        def work(conn: sqlite3.Connection) -> bool:
            cursor = conn.execute("UPDATE sessions SET archived = ? WHERE id = ?", (1 if archived else 0, session_id))
            return cursor.rowcount > 0

        return await self._conns.write(work)

    async def update_token_counts(
        self,
        session_id: str,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        reasoning_tokens: int = 0,
        estimated_cost_usd: float | None = None,
        actual_cost_usd: float | None = None,
        cost_status: str | None = None,
        cost_source: str | None = None,
        pricing_version: str | None = None,
        billing_provider: str | None = None,
        billing_base_url: str | None = None,
        billing_mode: str | None = None,
        api_call_count: int = 0,
        model: str | None = None,
        absolute: bool = False,
    ) -> None:
        """Add per-call deltas (default) or set absolute totals; creates the row if missing.

        `model` and `billing_*` only fill empty values; costs add up (or are set when absolute).
        """
        counts = (input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens)
        if absolute:
            token_sql = ", ".join(f"{col} = ?" for col in _TOKEN_COLUMNS)
            api_sql = "api_call_count = ?"
            cost_sql = (
                "estimated_cost_usd = COALESCE(?, estimated_cost_usd), actual_cost_usd = COALESCE(?, actual_cost_usd)"
            )
        else:
            token_sql = ", ".join(f"{col} = COALESCE({col}, 0) + ?" for col in _TOKEN_COLUMNS)
            api_sql = "api_call_count = COALESCE(api_call_count, 0) + ?"
            cost_sql = (
                "estimated_cost_usd = CASE WHEN ? IS NULL THEN estimated_cost_usd"
                " ELSE COALESCE(estimated_cost_usd, 0) + ? END,"
                " actual_cost_usd = CASE WHEN ? IS NULL THEN actual_cost_usd"
                " ELSE COALESCE(actual_cost_usd, 0) + ? END"
            )
        cost_params: tuple[Any, ...] = (
            (estimated_cost_usd, actual_cost_usd)
            if absolute
            else (estimated_cost_usd, estimated_cost_usd, actual_cost_usd, actual_cost_usd)
        )
        sql = (
            f"UPDATE sessions SET {token_sql}, {api_sql}, {cost_sql},"
            " cost_status = COALESCE(?, cost_status), cost_source = COALESCE(?, cost_source),"
            " pricing_version = COALESCE(?, pricing_version),"
            " model = COALESCE(model, ?), billing_provider = COALESCE(billing_provider, ?),"
            " billing_base_url = COALESCE(billing_base_url, ?), billing_mode = COALESCE(billing_mode, ?)"
            " WHERE id = ?"
        )
        params = (
            *counts,
            api_call_count,
            *cost_params,
            cost_status,
            cost_source,
            pricing_version,
            model,
            billing_provider,
            billing_base_url,
            billing_mode,
            session_id,
        )

        usage = (*counts, api_call_count, float(estimated_cost_usd or 0.0), float(actual_cost_usd or 0.0))
        record_usage = not absolute and any(usage)

        def work(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT OR IGNORE INTO sessions (id, source, started_at) VALUES (?, 'unknown', ?)",
                (session_id, time.time()),
            )
            conn.execute(sql, params)
            if record_usage:
                now = time.time()
                conn.execute(_MODEL_USAGE_SQL, (*usage, cost_status, cost_source, now, now, session_id))

        await self._conns.write(work)

    # ------------------------------------------------------------------ compression-failure cooldown (v21)

    async def record_compression_failure_cooldown(self, session_id: str, until: float, error: str | None) -> None:
        """Keep the summary model's failure cooldown on the row, so a resumed session honours it."""
        await self._update_columns(
            session_id, {"compression_failure_cooldown_until": until, "compression_failure_error": error}
        )

    async def clear_compression_failure_cooldown(self, session_id: str) -> None:
        await self._update_columns(
            session_id, {"compression_failure_cooldown_until": None, "compression_failure_error": None}
        )

    async def get_compression_failure_cooldown(self, session_id: str) -> tuple[float, str | None] | None:
        """(until, error) of a cooldown still running, else None (also for a v14 file read as it is)."""
        if not self.has_compacted_column:  # a v14 file: none of v21's columns
            return None
        row = await self._conns.fetchone(
            "SELECT compression_failure_cooldown_until, compression_failure_error FROM sessions WHERE id = ?",
            (session_id,),
        )
        if row is None or row[0] is None or float(row[0]) <= time.time():
            return None
        return float(row[0]), row[1]

    async def update_system_prompt(self, session_id: str, system_prompt: str) -> None:
        """Store the full assembled system prompt of the session."""
        await self._update_column(session_id, "system_prompt", system_prompt)

    async def update_session_model(self, session_id: str, model: str) -> None:
        """Overwrite the session's model (after /model)."""
        await self._update_column(session_id, "model", model)

    async def update_session_cwd(self, session_id: str, cwd: str) -> None:
        await self._update_column(session_id, "cwd", cwd)

    async def _update_column(self, session_id: str, column: str, value: Any) -> None:
        await self._update_columns(session_id, {column: value})

    async def _update_columns(self, session_id: str, values: dict[str, Any]) -> None:
        assignments = ", ".join(f"{column} = ?" for column in values)

        def work(conn: sqlite3.Connection) -> None:
            conn.execute(f"UPDATE sessions SET {assignments} WHERE id = ?", (*values.values(), session_id))

        await self._conns.write(work)

    # ------------------------------------------------------------------ state_meta

    async def get_meta(self, key: str, default: str | None = None) -> str | None:
        """A `state_meta` value, or `default`."""
        value = await self._conns.fetchvalue("SELECT value FROM state_meta WHERE key = ?", (key,))
        return default if value is None else str(value)

    async def set_meta(self, key: str, value: str | None) -> None:
        """UPSERT a `state_meta` value."""

        def work(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO state_meta (key, value) VALUES (?, ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

        await self._conns.write(work)

    async def meta_with_prefix(self, prefix: str, limit: int = 1000) -> list[tuple[str, str]]:
        """(key, value) of the `state_meta` rows whose key starts with `prefix`, newest key last."""
        rows = await self._conns.fetchall(
            "SELECT key, value FROM state_meta WHERE key LIKE ? ESCAPE '\\' ORDER BY key DESC LIMIT ?",
            (escape_like(prefix) + "%", int(limit)),
        )
        return [(str(row[0]), str(row[1])) for row in reversed(rows)]

    async def delete_meta(self, key: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM state_meta WHERE key = ?", (key,))

        await self._conns.write(work)

    # ------------------------------------------------------------------ orphans

    async def finalize_orphaned_compression_sessions(self, max_age_s: float = ORPHAN_MAX_AGE_S) -> int:
        """End (`orphaned_compression`) stale compression children that never made an API call.

        Matches sessions older than `max_age_s` with no end_reason, api_call_count 0, messages,
        and a parent that ended with "compression". Returns how many were finalized.
        """
        cutoff = time.time() - max_age_s

        def work(conn: sqlite3.Connection) -> int:
            cursor = conn.execute(
                "UPDATE sessions SET end_reason = ?, ended_at = COALESCE(ended_at, ?)"
                " WHERE end_reason IS NULL AND COALESCE(api_call_count, 0) = 0 AND started_at < ?"
                " AND EXISTS (SELECT 1 FROM sessions p WHERE p.id = sessions.parent_session_id"
                "             AND p.end_reason = ?)"
                " AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = sessions.id)",
                (END_REASON_ORPHANED, time.time(), cutoff, END_REASON_COMPRESSION),
            )
            return cursor.rowcount

        return await self._conns.write(work)
