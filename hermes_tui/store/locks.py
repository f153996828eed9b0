"""The cross-process compression lock (`compression_locks`, reference §3).

One holder at a time per session id: expired rows are reclaimed (DELETE expired, INSERT OR
IGNORE, SELECT to verify, all in one `BEGIN IMMEDIATE`), so of concurrent acquirers — in this
process or another — exactly one wins. Releasing with the wrong holder changes nothing.

The holder is this process by default (`process_holder()`: pid and a token drawn once per
process, so a reused pid is never mistaken for us). Inside the process, the sessions a live
acquisition holds are remembered (per database file); a row with our holder that no live
acquisition holds was left behind — by a release that could not run — and is taken over at once
instead of blocking every compression of that session until its TTL runs out. Rows of other
processes still wait for their TTL.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import threading
import time

from hermes_tui.store.base import StoreBase
from hermes_tui.store.connection import fetch_in

DEFAULT_LOCK_TTL_S = 300.0

_process: tuple[int, str] | None = None  # (pid, holder), redrawn in a forked child
_held_here: set[tuple[str, str]] = set()  # (database file, session id) a live acquisition of ours holds
_held_guard = threading.Lock()


def process_holder() -> str:
    """This process's holder name: `pid=<pid>:token=<random, drawn once per process>`."""
    global _process
    pid = os.getpid()
    if _process is None or _process[0] != pid:
        _process = (pid, f"pid={pid}:token={secrets.token_hex(6)}")
    return _process[1]


class LocksMixin(StoreBase):
    def _lock_key(self, session_id: str) -> tuple[str, str]:
        return (os.path.realpath(self._conns.path), session_id)

    async def acquire_compression_lock(
        self, session_id: str, holder: str | None = None, ttl: float = DEFAULT_LOCK_TTL_S
    ) -> bool:
        """True when `holder` (default: this process) now holds the lock on `session_id`.

        An empty id is never locked. A row of `holder`'s own that no live acquisition of this
        process holds is stale and taken over.
        """
        holder = holder or process_holder()
        if not session_id:
            return False
        ours = holder == process_holder()
        key = self._lock_key(session_id)
        if ours:
            with _held_guard:
                if key in _held_here:  # another path of this process is compressing it now
                    return False
                _held_here.add(key)

        def work(conn: sqlite3.Connection) -> bool:
            now = time.time()
            conn.execute("DELETE FROM compression_locks WHERE session_id = ? AND expires_at <= ?", (session_id, now))
            conn.execute("DELETE FROM compression_locks WHERE session_id = ? AND holder = ?", (session_id, holder))
            conn.execute(
                "INSERT OR IGNORE INTO compression_locks (session_id, holder, acquired_at, expires_at)"
                " VALUES (?, ?, ?, ?)",
                (session_id, holder, now, now + ttl),
            )
            rows = fetch_in(conn, "SELECT holder FROM compression_locks WHERE session_id = ?", (session_id,))
            return bool(rows) and rows[0]["holder"] == holder

        won = False
        try:
            won = await self._conns.write(work)
        finally:
            if ours and not won:  # (cancelled after the commit: the row is stale, the next acquire takes it)
                with _held_guard:
                    _held_here.discard(key)
        return won

    async def release_compression_lock(self, session_id: str, holder: str | None = None) -> bool:
        """Release the lock if `holder` (default: this process) holds it; True when a lock was released."""
        holder = holder or process_holder()
        if not session_id:
            return False

        def work(conn: sqlite3.Connection) -> bool:
            cursor = conn.execute(
                "DELETE FROM compression_locks WHERE session_id = ? AND holder = ?", (session_id, holder)
            )
            return cursor.rowcount > 0

        try:
            return await self._conns.write(work)
        finally:
            if holder == process_holder():
                with _held_guard:
                    _held_here.discard(self._lock_key(session_id))

    async def compression_lock_holder(self, session_id: str) -> str | None:
        """The current unexpired holder, if any."""
        return await self._conns.fetchvalue(
            "SELECT holder FROM compression_locks WHERE session_id = ? AND expires_at > ?",
            (session_id, time.time()),
        )
