"""The summary-failure cooldown of a session, kept in state.db so it survives a resume (as Hermes does).

When the summary model fails, the compressor pauses automatic compression for 30-600 s. Hermes
keeps that pause on the session row (`sessions.compression_failure_cooldown_until` and
`compression_failure_error`, schema v21), and so do we (`SessionDB.record_compression_failure_cooldown`
and its two siblings): resuming the session does not hammer a model that just failed, and Hermes
resuming our session sees the same pause. `persist_cooldown` and `load_cooldown` are the only two
functions that know where it is stored. `CooldownKeeper` ties the live compressor to them: every
change of the compressor's cooldown is written (in the background, in order), and `restore()` loads
the live session's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


async def persist_cooldown(db: Any, session_id: str, until: float | None, error: str = "") -> None:
    """Store the session's cooldown end (wall clock, epoch seconds) and why; None clears it."""
    if until is None:
        await db.clear_compression_failure_cooldown(session_id)
        return
    await db.record_compression_failure_cooldown(session_id, float(until), error or None)


async def load_cooldown(db: Any, session_id: str, now: float | None = None) -> tuple[float, str] | None:
    """(seconds left, error) of the session's stored cooldown, or None (none, over, or unreadable)."""
    stored = await db.get_compression_failure_cooldown(session_id)
    if stored is None:
        return None
    until, error = stored
    remaining = float(until) - (time.time() if now is None else now)
    return (remaining, str(error or "")) if remaining > 0 else None


class CooldownKeeper:
    """Writes the compressor's cooldown for the live session and restores it when one is resumed."""

    def __init__(self, compressor: Any, db: Any, session_id: Callable[[], str]) -> None:
        self._compressor = compressor
        self._db = db
        self._session_id = session_id
        self._writes: asyncio.Task[None] | None = None
        compressor.on_cooldown = self._changed

    def _changed(self, until: float | None, error: str) -> None:
        """The compressor entered (until = epoch seconds) or left (None) a cooldown."""
        previous, session_id = self._writes, self._session_id()

        async def write() -> None:
            if previous is not None:
                await asyncio.gather(previous, return_exceptions=True)  # keep the writes in order
            try:
                await persist_cooldown(self._db, session_id, until, error)
            except Exception as exc:  # a busy or read-only store only loses the pause across a resume
                log.warning("could not store the compression cooldown: %s", exc)

        self._writes = asyncio.get_running_loop().create_task(write(), name="compression-cooldown")

    async def restore(self) -> float:
        """Load the live session's stored cooldown into the compressor; the seconds left (0 without one)."""
        await self.flush()
        try:
            stored = await load_cooldown(self._db, self._session_id())
        except Exception as exc:
            log.warning("could not read the compression cooldown: %s", exc)
            return 0.0
        if stored is None:
            return 0.0
        remaining, error = stored
        self._compressor.restore_cooldown(remaining, error)
        return remaining

    async def flush(self) -> None:
        """Wait for the writes already started."""
        if self._writes is not None:
            await asyncio.gather(self._writes, return_exceptions=True)
