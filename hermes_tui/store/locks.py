"""The cross-process compression lock (`compression_locks`, reference §3).

One holder at a time per session id: expired rows are reclaimed (DELETE expired, INSERT OR
IGNORE, SELECT to verify, all in one `BEGIN IMMEDIATE`), so of concurrent acquirers — in this
process or another — exactly one wins. Releasing with the wrong holder changes nothing.
"""

from __future__ import annotations

import sqlite3
import time

from hermes_tui.store.base import StoreBase
from hermes_tui.store.connection import fetch_in

DEFAULT_LOCK_TTL_S = 300.0


class LocksMixin(StoreBase):
    async def acquire_compression_lock(self, session_id: str, holder: str, ttl: float = DEFAULT_LOCK_TTL_S) -> bool:
        """True when `holder` now holds the lock on `session_id` (an empty id is never locked)."""
        if not session_id or not holder:
            return False

        def work(conn: sqlite3.Connection) -> bool:
            now = time.time()
            conn.execute("DELETE FROM compression_locks WHERE session_id = ? AND expires_at <= ?", (session_id, now))
            conn.execute(
                "INSERT OR IGNORE INTO compression_locks (session_id, holder, acquired_at, expires_at)"
                " VALUES (?, ?, ?, ?)",
                (session_id, holder, now, now + ttl),
            )
            rows = fetch_in(conn, "SELECT holder FROM compression_locks WHERE session_id = ?", (session_id,))
            return bool(rows) and rows[0]["holder"] == holder

        return await self._conns.write(work)

    async def release_compression_lock(self, session_id: str, holder: str) -> bool:
        """Release the lock if `holder` holds it; True when a lock was released."""
        if not session_id or not holder:
            return False

        def work(conn: sqlite3.Connection) -> bool:
            cursor = conn.execute(
                "DELETE FROM compression_locks WHERE session_id = ? AND holder = ?", (session_id, holder)
            )
            return cursor.rowcount > 0

        return await self._conns.write(work)

    async def compression_lock_holder(self, session_id: str) -> str | None:
        """The current unexpired holder, if any."""
        return await self._conns.fetchvalue(
            "SELECT holder FROM compression_locks WHERE session_id = ? AND expires_at > ?",
            (session_id, time.time()),
        )
