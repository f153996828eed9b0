"""The summary-failure cooldown of a session, kept in state.db so it survives a resume (as Hermes does).

When the summary model fails, the compressor pauses automatic compression for 30-600 s. Hermes
keeps that pause on the session row (`sessions.compression_failure_cooldown_until` and
`compression_failure_error`, schema v21), so resuming the session does not hammer a model that
just failed. Until our store has those columns it lives in `state_meta["compression_cooldown:<id>"]`
as JSON `{"until": <epoch seconds>, "error": "<one line>"}`. `persist_cooldown` and `load_cooldown`
are the only two functions that know where it is stored: switching to the v21 columns changes
them alone. `CooldownKeeper` ties the live compressor to them: every change of the compressor's
cooldown is written (in the background, in order), and `restore()` loads the live session's.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

COOLDOWN_META_PREFIX = "compression_cooldown:"


def cooldown_key(session_id: str) -> str:
    return f"{COOLDOWN_META_PREFIX}{session_id}"


async def persist_cooldown(db: Any, session_id: str, until: float | None, error: str = "") -> None:
    """Store the session's cooldown end (wall clock, epoch seconds) and why; None clears it."""
    if until is None:
        await db.delete_meta(cooldown_key(session_id))
        return
    await db.set_meta(cooldown_key(session_id), json.dumps({"until": float(until), "error": error}))


async def load_cooldown(db: Any, session_id: str, now: float | None = None) -> tuple[float, str] | None:
    """(seconds left, error) of the session's stored cooldown, or None (none, over, or unreadable)."""
    raw = await db.get_meta(cooldown_key(session_id))
    try:
        data = json.loads(raw) if raw else None
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("until"), (int, float)):
        return None
    remaining = float(data["until"]) - (time.time() if now is None else now)
    return (remaining, str(data.get("error") or "")) if remaining > 0 else None


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
