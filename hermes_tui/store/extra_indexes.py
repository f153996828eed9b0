"""Our two extra indexes (`schema.OUR_INDEXES`), built after the open, in the background.

On a Hermes file they do not exist yet, and building them reads every message row: 4.9 s on the
first open of a 200k-message file, which used to stand between the user and the first screen
(and ran even for read-only commands). They only make queries faster — every query that uses one
checks first that it exists — so they are now built later, on request (`IndexBuilder.start`, the
TUI does it after its first screen; `build_now` for scripts and tests), never for a read-only open.

A build runs on the writer connection's thread inside `BEGIN IMMEDIATE`, holding the store's write
lock, so our own writes queue behind it instead of failing on a busy file. It gives way to them:
a write that wants the lock interrupts the build (a progress handler sees the flag within a few
thousand SQLite steps; the statement rolls back), and the build starts again once writes have
paused for `QUIET_BEFORE_RETRY_S`. A file another process holds locked is retried the same way; any
other failure leaves the index out, quietly. Nothing here ever raises to a caller.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from hermes_tui.store.schema import OUR_INDEXES

log = logging.getLogger(__name__)

T = TypeVar("T")
QUIET_BEFORE_RETRY_S = 2.0
PROGRESS_STEPS = 2000
MAX_ATTEMPTS = 50
_POLL_S = 0.1

RunOnWriter = Callable[[Callable[[sqlite3.Connection], Any]], Awaitable[Any]]


def missing_extra_indexes(conn: sqlite3.Connection) -> list[str]:
    """The names of our indexes the file does not have yet."""
    have = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    return [name for name in OUR_INDEXES if name not in have]


def _build_one(conn: sqlite3.Connection, name: str, stop: threading.Event) -> bool:
    """Create index `name` in one transaction; False when interrupted or the file is busy."""
    conn.set_progress_handler(lambda: 1 if stop.is_set() else 0, PROGRESS_STEPS)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(OUR_INDEXES[name])
        conn.execute("COMMIT")
        return True
    except sqlite3.OperationalError as exc:
        conn.set_progress_handler(None, 0)
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        text = str(exc).lower()
        if "interrupt" in text or "locked" in text or "busy" in text:
            return False
        raise
    finally:
        conn.set_progress_handler(None, 0)


class IndexBuilder:
    """Builds the missing extra indexes of one store, giving way to its writes."""

    def __init__(self, run_on_writer: RunOnWriter, write_lock: asyncio.Lock, last_write: Callable[[], float]) -> None:
        self._run = run_on_writer
        self._lock = write_lock
        self._last_write = last_write
        self._stop: threading.Event | None = None  # set while a build statement runs
        self._task: asyncio.Task[list[str]] | None = None
        self.built: list[str] = []
        self.attempts = 0  # build statements started (one per index, plus one per interruption)

    def interrupt(self) -> None:
        """A write wants the lock: stop the running build statement (it is retried later)."""
        if self._stop is not None:
            self._stop.set()

    def start(self) -> asyncio.Task[list[str]]:
        """Build in the background (once); the task's result is the names built."""
        if self._task is None:
            self._task = asyncio.ensure_future(self._build_all(quiet_s=QUIET_BEFORE_RETRY_S))
        return self._task

    async def build_now(self) -> list[str]:
        """Build every missing index now (retried at once after an interruption); the names built."""
        if self._task is not None:
            return await asyncio.shield(self._task)
        return await self._build_all(quiet_s=0.0)

    async def stop(self) -> None:
        """Stop a background build (the store is closing); waits until the writer's thread is free."""
        task, self._task = self._task, None
        if task is None or task.done():
            return
        self.interrupt()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def _build_all(self, *, quiet_s: float) -> list[str]:
        try:
            names = await self._run(missing_extra_indexes)
        except sqlite3.Error as exc:
            log.debug("extra indexes not checked: %s", exc)
            return []
        built = [name for name in names if await self._build_with_retries(name, quiet_s)]
        self.built.extend(built)
        return built

    async def _build_with_retries(self, name: str, quiet_s: float) -> bool:
        for _ in range(MAX_ATTEMPTS):
            await self._wait_for_quiet(quiet_s)
            async with self._lock:
                self.attempts += 1
                stop = self._stop = threading.Event()
                operation = asyncio.ensure_future(self._run(lambda conn, stop=stop: _build_one(conn, name, stop)))
                try:
                    built = await asyncio.shield(operation)
                except asyncio.CancelledError:
                    stop.set()  # the statement ends within a few thousand steps; the thread is then free
                    await asyncio.wait({operation})
                    if not operation.cancelled():
                        operation.exception()  # retrieved: a failure after the cancellation is not reported
                    raise
                except sqlite3.Error as exc:
                    log.debug("extra index %s not built: %s", name, exc)
                    return False
                finally:
                    self._stop = None
            if built:
                return True
        return False

    async def _wait_for_quiet(self, quiet_s: float) -> None:
        while quiet_s and time.monotonic() - self._last_write() < quiet_s:
            await asyncio.sleep(_POLL_S)
