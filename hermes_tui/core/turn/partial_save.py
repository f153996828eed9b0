"""Saving an answer while it streams, so a crash keeps it (crash safety beyond Hermes).

`PartialSaver` runs beside one turn. Every `PARTIAL_SAVE_SECONDS` it hands the live session the
text the current API call has streamed so far; the session's flush cursor stores it as one
assistant row marked "interrupted" and rewrites that row in place as more arrives
(`core.session.persistence`). A process that dies mid-answer — SIGKILL, a power cut — so leaves
the prompt and the answer up to the last half second in state.db, and `--resume` continues from
there. When writes get slow (a huge answer re-indexed for search on each rewrite) the saves are
spaced out so they never take more than `MAX_WRITE_SHARE` of the time. A failed save is warned
about once per turn; the turn goes on and the next tick tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from hermes_tui.core.emitter import Emitter
from hermes_tui.core.messages import Message
from hermes_tui.core.turn.deps import TurnSession
from hermes_tui.core.turn.state import TurnState

PARTIAL_SAVE_SECONDS = 0.5
MAX_WRITE_SHARE = 0.2


class PartialSaver:
    """Stores the streaming answer of one turn at a steady pace until stopped."""

    def __init__(
        self,
        session: TurnSession,
        state: TurnState,
        events: Emitter,
        *,
        interval: float | None = None,
    ) -> None:
        self._session = session
        self._state = state
        self._events = events
        self._interval = PARTIAL_SAVE_SECONDS if interval is None else interval
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._warned = False

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="partial-save")

    async def stop(self) -> None:
        """Let a save in progress finish, then end; safe to call when never started."""
        self._stopping.set()
        task, self._task = self._task, None
        if task is not None:
            with contextlib.suppress(Exception):
                await task

    def _snapshot(self) -> tuple[list[Message], str] | None:
        """The list the answer streams after and the text so far; None when nothing visible streams."""
        acc = self._state.acc
        if acc is None or not acc.delivered_text:
            return None
        return self._state.messages, acc.text

    async def _run(self) -> None:
        wait = self._interval
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), wait)
            if self._stopping.is_set():
                return
            started = time.monotonic()
            try:
                await self._session.save_partial(self._snapshot)
            except Exception as exc:
                if not self._warned:
                    self._warned = True
                    self._events.warn(f"could not save the answer so far to state.db: {exc}")
            spent = time.monotonic() - started
            wait = max(self._interval, spent * (1 - MAX_WRITE_SHARE) / MAX_WRITE_SHARE)
