"""Keeping a state.db healthy: FTS optimize, VACUUM, pruning old ended sessions, integrity checks.

Pruning removes only *ended* sessions older than the retention window, with their messages
(the FTS triggers keep both indexes in step); surviving children of a pruned session lose
their parent link so foreign keys keep holding. `maybe_auto_prune_and_vacuum` runs at most
once per interval, gated on `state_meta.last_auto_prune`, and VACUUMs only after deletions.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from hermes_tui.store.connection import fetch_in
from hermes_tui.store.schema import FTS_TABLE, TRIGRAM_TABLE
from hermes_tui.store.sessions import SessionsMixin

LAST_AUTO_PRUNE_KEY = "last_auto_prune"
_PRUNE_BATCH = 500
SESSION_META_PREFIXES = ("edge", "goal", "compression")  # state_meta "<prefix>:<session id>" records


class MaintenanceMixin(SessionsMixin):
    async def optimize_fts(self) -> None:
        """Merge the FTS b-trees (`INSERT INTO t(t) VALUES('optimize')`) of both indexes."""
        tables = [t for t, ok in ((FTS_TABLE, self.fts_available), (TRIGRAM_TABLE, self.trigram_available)) if ok]

        def work(conn: sqlite3.Connection) -> None:
            for table in tables:
                conn.execute(f"INSERT INTO {table}({table}) VALUES('optimize')")

        if tables:
            await self._conns.write(work)

    async def vacuum(self) -> None:
        """Optimize FTS, checkpoint, then VACUUM (rewrites the file; slow on big databases)."""
        await self.optimize_fts()
        await self._conns.checkpoint()
        await self._conns.execute_outside_transaction("VACUUM")

    async def integrity_check(self) -> str:
        """SQLite's `PRAGMA integrity_check` verdict ("ok" when healthy)."""
        rows = await self._conns.fetchall("PRAGMA integrity_check")
        return "; ".join(str(row[0]) for row in rows)

    async def prune_sessions(self, older_than_days: float, source: str | None = None) -> int:
        """Delete ended sessions that started more than `older_than_days` ago; returns the count."""
        cutoff = time.time() - older_than_days * 86400
        source_sql = " AND source = ?" if source else ""
        params: tuple[Any, ...] = (cutoff, source) if source else (cutoff,)

        def work(conn: sqlite3.Connection) -> int:
            rows = fetch_in(
                conn,
                f"SELECT id FROM sessions WHERE ended_at IS NOT NULL AND started_at < ?{source_sql}",
                params,
            )
            doomed = [row["id"] for row in rows]
            for start in range(0, len(doomed), _PRUNE_BATCH):
                batch = doomed[start : start + _PRUNE_BATCH]
                marks = ", ".join("?" for _ in batch)
                conn.execute(
                    f"UPDATE sessions SET parent_session_id = NULL WHERE parent_session_id IN ({marks})"
                    f" AND id NOT IN ({marks})",
                    (*batch, *batch),
                )
                conn.execute(f"DELETE FROM messages WHERE session_id IN ({marks})", batch)
                conn.execute(f"DELETE FROM compression_locks WHERE session_id IN ({marks})", batch)
                # Parents and children can both be doomed: drop the links first, then the rows.
                conn.execute(f"UPDATE sessions SET parent_session_id = NULL WHERE id IN ({marks})", batch)
                conn.execute(f"DELETE FROM sessions WHERE id IN ({marks})", batch)
            return len(doomed)

        return await self._conns.write(work)

    async def delete_session(self, session_id: str) -> bool:
        """Delete one session and its messages; its children become roots. True when it existed.

        Its own `state_meta` records (edge, goal, compression: `<kind>:<id>`) go with it.
        """

        def work(conn: sqlite3.Connection) -> bool:
            conn.execute("UPDATE sessions SET parent_session_id = NULL WHERE parent_session_id = ?", (session_id,))
            conn.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
            conn.execute("DELETE FROM compression_locks WHERE session_id = ?", (session_id,))
            keys = [f"{prefix}:{session_id}" for prefix in SESSION_META_PREFIXES]
            conn.execute(f"DELETE FROM state_meta WHERE key IN ({', '.join('?' for _ in keys)})", keys)
            cursor = conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            return cursor.rowcount > 0

        return await self._conns.write(work)

    async def maybe_auto_prune_and_vacuum(
        self, retention_days: float = 90, min_interval_hours: float = 24, vacuum: bool = True
    ) -> int | None:
        """Prune (and VACUUM if rows went) at most once per interval; None when it did not run."""
        last = await self.get_meta(LAST_AUTO_PRUNE_KEY)
        now = time.time()
        try:
            if last is not None and now - float(last) < min_interval_hours * 3600:
                return None
        except ValueError:
            pass
        pruned = await self.prune_sessions(retention_days)
        await self.set_meta(LAST_AUTO_PRUNE_KEY, str(now))
        if pruned and vacuum:
            await self.vacuum()
        return pruned
