"""The two SQLite connections behind a SessionDB and the rules for using them.

Owns: opening a file (regular-file and header check, WAL with the DELETE fallback, foreign keys, schema v21,
`synchronous=FULL` on the writer as Hermes leaves it — measured at ~0.3 ms more per commit than
NORMAL, off the event loop, so we keep Hermes's durability (docs/PERFORMANCE.md);
a new file is created 0600 first, so SQLite gives its -wal and -shm the same private mode),
a writer connection where every write runs in `BEGIN IMMEDIATE` with Hermes's retry on
locked/busy (random 20-150 ms sleeps, 15 attempts) and a PASSIVE checkpoint every 50 writes
and on close, and a separate reader connection so reads never wait behind a writer (WAL).
A whole transaction, or a whole multi-statement read, runs as one call on the connection's
aiosqlite thread (through `Connection._execute`, the primitive aiosqlite's own methods queue
work with): one thread hop instead of one per statement.
A read-only open (`read_only=True`: the read commands, replay) has only the reader: no schema
work, no checkpoints, our extra indexes never built, and writes raise `StoreError`; it reads a
v14..v21 file as it is (`SchemaState.compacted` says whether `messages.compacted` exists).
Our two extra indexes (`store.extra_indexes`) are built only when asked (`start_extra_indexes`,
the TUI after its first screen): in the background, on the writer's thread, giving way to every
write of ours (the build is interrupted and retried once writes have paused).
Every connection opened here is remembered weakly: `stop_leftover_connections` ends the worker
threads of any left open, so a missed `close()` can never keep the process from exiting
(aiosqlite's worker threads are not daemons).
SQLite failures leave this module as `StoreError`, one line naming the file.
"""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
import threading
import time
import weakref
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from hermes_tui.store.errors import StoreError
from hermes_tui.store.extra_indexes import IndexBuilder
from hermes_tui.store.file_modes import make_private_dir, touch_private_file
from hermes_tui.store.schema import SchemaState, ensure_schema

# the synchronous helpers, re-exported: most of the store imports them from here
from hermes_tui.store.sqlite_io import BUSY_TIMEOUT_S as BUSY_TIMEOUT_S
from hermes_tui.store.sqlite_io import SQLITE_HEADER as SQLITE_HEADER
from hermes_tui.store.sqlite_io import Params as Params
from hermes_tui.store.sqlite_io import check_header as check_header
from hermes_tui.store.sqlite_io import connect_query_only as connect_query_only
from hermes_tui.store.sqlite_io import connect_read_only as connect_read_only
from hermes_tui.store.sqlite_io import describe_error as describe_error
from hermes_tui.store.sqlite_io import fetch_in as fetch_in
from hermes_tui.store.sqlite_io import inspect_read_only as inspect_read_only
from hermes_tui.store.sqlite_io import is_locked_error as is_locked_error
from hermes_tui.store.sqlite_io import placeholders as placeholders
from hermes_tui.store.sqlite_io import read_only_uri as read_only_uri
from hermes_tui.store.sqlite_io import tuples as tuples

log = logging.getLogger(__name__)

T = TypeVar("T")
# Hermes leaves `synchronous` at SQLite's default, FULL; the cost is measured in docs/PERFORMANCE.md
# (bench/durability_bench.py). Per connection: the file itself is unchanged.
SYNCHRONOUS = "FULL"

WRITE_ATTEMPTS = 15
RETRY_SLEEP_RANGE_S = (0.020, 0.150)
CHECKPOINT_EVERY_WRITES = 50
# a quick read (`StoreConnections.read(quick=True)`) runs on the calling thread for at most this much
# of its CPU, looked at every QUICK_CHECK_STEPS SQLite steps, before it moves to the reader's thread
QUICK_CPU_BUDGET_S = 0.005
QUICK_CHECK_STEPS = 500

_wal_fallback_warned: set[str] = set()


def apply_wal_with_fallback(conn: sqlite3.Connection, label: str) -> str:
    """Use WAL; on filesystems that refuse it (NFS/SMB/FUSE) fall back to DELETE, warning once.

    A file already in WAL is used as is and never downgraded. Returns the journal mode in force.
    """
    current = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
    if current == "wal":
        return current
    try:
        return str(conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]).lower()
    except sqlite3.DatabaseError as exc:
        text = str(exc).lower()
        if "locking protocol" not in text and "not authorized" not in text:
            raise
        if label not in _wal_fallback_warned:
            _wal_fallback_warned.add(label)
            log.warning("%s: WAL journal unavailable here (%s); using journal_mode=DELETE", label, exc)
        return str(conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0]).lower()


def _prepare_file(path: Path) -> tuple[SchemaState, str]:
    """Synchronous open: header check, journal mode, schema; retried while another writer holds it."""
    check_header(path)
    try:
        touch_private_file(path)  # a new state.db (and so its -wal/-shm) is private from the start
    except OSError as exc:
        raise StoreError(f"{path}: cannot create ({exc.strerror or exc})") from None
    for attempt in range(WRITE_ATTEMPTS):
        conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            conn.execute("PRAGMA foreign_keys=ON")
            mode = apply_wal_with_fallback(conn, str(path))
            state = ensure_schema(conn, path.parent)
            return state, mode
        except sqlite3.Error as exc:
            if is_locked_error(exc) and attempt < WRITE_ATTEMPTS - 1:
                time.sleep(random.uniform(*RETRY_SLEEP_RANGE_S))
                continue
            raise StoreError(describe_error(path, exc)) from None
        finally:
            if conn is not None:
                conn.close()
    raise StoreError(f"{path}: database stayed locked")  # pragma: no cover - loop always returns


_OPENED: weakref.WeakSet[aiosqlite.Connection] = weakref.WeakSet()


def stop_leftover_connections() -> int:
    """Stop the worker thread of every connection still open; returns how many there were.

    For process exit only (the CLI's last step, the test session's end): the connections' SQLite
    handles are closed on their own threads, without an event loop.
    """
    leftover = [conn for conn in list(_OPENED) if getattr(conn, "_connection", None) is not None]
    for conn in leftover:
        # aiosqlite's own `stop()` wants an event loop for its future; at exit there may be none,
        # so the same close-then-stop step is queued here without one.
        conn._running = False
        conn._tx.put_nowait((None, _close_and_stop(conn)))
    for conn in leftover:
        conn._thread.join(timeout=2.0)
    return len(leftover)


def _close_and_stop(conn: aiosqlite.Connection) -> Callable[[], Any]:
    def close() -> Any:
        if conn._connection is not None:
            conn._connection.close()
            conn._connection = None
        return aiosqlite.core._STOP_RUNNING_SENTINEL

    return close


async def _open(database: str | Path, **kwargs: Any) -> aiosqlite.Connection:
    conn = await aiosqlite.connect(database, **kwargs)
    _OPENED.add(conn)
    return conn


async def _connect(path: Path, *, read_only: bool) -> aiosqlite.Connection:
    conn = await _open(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    conn.row_factory = sqlite3.Row
    await conn.execute("PRAGMA foreign_keys=ON")
    if read_only:
        await conn.execute("PRAGMA query_only=ON")
    else:
        # Hermes's durability: SQLite's default FULL (the WAL is synced at every commit, so a
        # committed message survives power loss); set explicitly because builds may default lower.
        await conn.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
    return conn


class StoreConnections:
    """A writer and a reader connection to one state.db file."""

    def __init__(
        self,
        path: Path,
        writer: aiosqlite.Connection | None,
        reader: aiosqlite.Connection,
        schema: SchemaState,
        journal_mode: str,
        reader_uri: str | None = None,
    ) -> None:
        self.path = path
        self.writer = writer
        self.reader = reader
        self.schema = schema
        self.journal_mode = journal_mode
        self._reader_uri = reader_uri  # how the reader was opened, when not by path (read-only opens)
        self._quick: sqlite3.Connection | None = None  # the event loop thread's own reader (quick reads)
        self._quick_thread: int | None = None
        self._quick_unusable = journal_mode != "wal"  # only WAL readers never wait for a writer
        self.quick_reads = 0  # reads answered on the calling thread, without a trip
        self._write_lock = asyncio.Lock()
        self._writes = 0
        self._last_write = 0.0  # time.monotonic() of the last write of ours
        self._closed = False
        self.hops = 0  # trips to a connection's thread and back (a cheap call's fixed cost; tests, benches)
        self.extra_indexes = IndexBuilder(self._run_on_writer, self._write_lock, lambda: self._last_write)

    @classmethod
    async def open(cls, path: Path, *, read_only: bool = False) -> StoreConnections:
        """Open (creating if needed) and bring to schema v21; `read_only` opens an existing file as is."""
        path = Path(path).expanduser()
        if read_only:
            return await cls._open_read_only(path)
        try:
            make_private_dir(path.parent)
        except OSError as exc:
            raise StoreError(f"{path}: cannot create its folder ({exc.strerror or exc})") from None
        schema, mode = await asyncio.to_thread(_prepare_file, path)
        writer = reader = None
        try:
            writer = await _connect(path, read_only=False)
            reader = await _connect(path, read_only=True)
        except sqlite3.Error as exc:
            for conn in (writer, reader):
                if conn is not None:
                    await conn.close()
            raise StoreError(describe_error(path, exc)) from None
        return cls(path, writer, reader, schema, mode)

    @classmethod
    async def _open_read_only(cls, path: Path) -> StoreConnections:
        schema, mode, uri = await asyncio.to_thread(inspect_read_only, path)
        try:
            if uri is None:
                reader = await _open(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            else:
                reader = await _open(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            reader.row_factory = sqlite3.Row
            await reader.execute("PRAGMA query_only=ON")
        except sqlite3.Error as exc:
            raise StoreError(describe_error(path, exc)) from None
        return cls(path, None, reader, schema, mode, reader_uri=uri)

    @property
    def read_only(self) -> bool:
        return self.writer is None

    # ------------------------------------------------------------------ writes

    async def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work(conn)` in one `BEGIN IMMEDIATE` transaction, retrying while locked.

        The whole transaction (BEGIN, `work`, COMMIT or ROLLBACK) runs in one hop on the writer's
        thread, so it is atomic: `work` must be synchronous and safe to re-run (a failed attempt
        is rolled back). A caller cancelled mid-write gets CancelledError only once the
        transaction has settled — committed in full or not at all.
        """
        self._ensure_open()
        return await self._write(work)

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        writer = self._writer()
        self.extra_indexes.interrupt()  # a background index build gives way to every write
        async with self._write_lock:
            for attempt in range(WRITE_ATTEMPTS):
                self.hops += 1
                try:
                    result = await self._settled(writer._execute(_transaction, writer._conn, work))
                except sqlite3.Error as exc:
                    if is_locked_error(exc) and attempt < WRITE_ATTEMPTS - 1:
                        await asyncio.sleep(random.uniform(*RETRY_SLEEP_RANGE_S))
                        continue
                    raise StoreError(describe_error(self.path, exc)) from None
                self._writes += 1
                self._last_write = time.monotonic()
                if self._writes % CHECKPOINT_EVERY_WRITES == 0:
                    await self.checkpoint()
                return result
        raise StoreError(f"{self.path}: database stayed locked")  # pragma: no cover

    @staticmethod
    async def _settled(operation: Awaitable[T]) -> T:
        """Await `operation`; if cancelled meanwhile, let it finish first, then re-raise."""
        task = asyncio.ensure_future(operation)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            await asyncio.wait({task})
            if not task.cancelled():
                task.exception()  # retrieved: an error after cancellation is not reported twice
            raise

    def _writer(self) -> aiosqlite.Connection:
        if self.writer is None:
            raise StoreError(f"{self.path}: opened read-only; nothing can be saved")
        return self.writer

    async def _run_on_writer(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work(conn)` on the writer's thread, outside any transaction (the index builder's own)."""
        writer = self._writer()
        self.hops += 1
        return await writer._execute(work, writer._conn)

    def start_extra_indexes(self) -> asyncio.Task[list[str]] | None:
        """Build our missing extra indexes in the background (never for a read-only open)."""
        if self.writer is None or self._closed:
            return None
        return self.extra_indexes.start()

    async def checkpoint(self) -> None:
        """PASSIVE WAL checkpoint: copies what it can without waiting for readers."""
        if self.writer is None:
            return
        self.hops += 1
        try:
            await self.writer.execute_fetchall("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as exc:
            log.debug("checkpoint skipped: %s", exc)

    async def execute_outside_transaction(self, sql: str, params: Params = ()) -> None:
        """Statements that cannot run in a transaction (VACUUM); serialized with writes."""
        self._ensure_open()
        writer = self._writer()
        self.extra_indexes.interrupt()
        async with self._write_lock:
            self.hops += 1
            try:
                await writer.execute_fetchall(sql, params)
            except sqlite3.Error as exc:
                raise StoreError(describe_error(self.path, exc)) from None

    # ------------------------------------------------------------------ reads

    async def fetchall(self, sql: str, params: Params = (), *, quick: bool = False) -> list[sqlite3.Row]:
        """All rows of a read on the reader connection (never waits behind a WAL writer); `quick`: see `read`."""
        return await self.read(lambda conn: conn.execute(sql, params).fetchall(), quick=quick)

    async def read(self, work: Callable[[sqlite3.Connection], T], *, quick: bool = False) -> T:
        """Run `work(conn)` on the reader's own thread: several statements for one thread hop.

        aiosqlite runs every call as a function queued to the connection's thread; this queues
        ours the same way (its `_execute` primitive), so a search's four statements cost one hop
        instead of four. `work` must only read.

        `quick=True` (a read that normally takes well under a millisecond: a row by its key, a
        first page of search hits) first tries it on the calling thread with a connection of that
        thread's own — no trip at all, which on a busy machine costs two waits for a core, tens of
        milliseconds — and moves it to the reader's thread if it runs past QUICK_CPU_BUDGET_S of
        CPU, meets a lock, or the file is not in WAL mode (`_read_here`).
        """
        self._ensure_open()
        if quick:
            answered, result = self._read_here(work)
            if answered:
                return result
        reader = self.reader
        for attempt in range(WRITE_ATTEMPTS):
            self.hops += 1
            try:
                return await reader._execute(work, reader._conn)
            except sqlite3.Error as exc:
                if is_locked_error(exc) and attempt < WRITE_ATTEMPTS - 1:
                    await asyncio.sleep(random.uniform(*RETRY_SLEEP_RANGE_S))
                    continue
                raise StoreError(describe_error(self.path, exc)) from None
        raise StoreError(f"{self.path}: database stayed locked")  # pragma: no cover

    async def fetchone(self, sql: str, params: Params = (), *, quick: bool = False) -> sqlite3.Row | None:
        rows = await self.fetchall(sql, params, quick=quick)
        return rows[0] if rows else None

    async def fetchvalue(self, sql: str, params: Params = (), *, quick: bool = False) -> Any:
        row = await self.fetchone(sql, params, quick=quick)
        return None if row is None else row[0]

    def _read_here(self, work: Callable[[sqlite3.Connection], T]) -> tuple[bool, Any]:
        """(True, `work(conn)`) run on the calling thread, or (False, None): do it on the reader's thread.

        Sound because in WAL mode a reader never waits for a writer (the connection's busy timeout
        is 0, so a rare lock — a WAL being recovered — gives way at once), the connection is only
        ever used by the thread that opened it (another thread makes the trip), and a progress
        handler stops the read once it has used QUICK_CPU_BUDGET_S of this thread's CPU (its result,
        even one a `work` caught the interruption of, is then discarded and the read made anew on
        the reader's thread). `work` only reads, so running it twice is harmless.
        """
        conn = self._quick_connection()
        if conn is None:
            return False, None
        deadline = time.thread_time() + QUICK_CPU_BUDGET_S
        over = False

        def progress() -> int:
            nonlocal over
            over = over or time.thread_time() > deadline
            return 1 if over else 0

        try:
            conn.set_progress_handler(progress, QUICK_CHECK_STEPS)
            result = work(conn)
        except sqlite3.OperationalError as exc:
            if over or is_locked_error(exc):
                return False, None
            raise StoreError(describe_error(self.path, exc)) from None
        except sqlite3.ProgrammingError:
            return False, None  # e.g. used from another thread than its own: the reader's thread answers
        except sqlite3.Error as exc:
            raise StoreError(describe_error(self.path, exc)) from None
        finally:
            try:
                conn.set_progress_handler(None, 0)
            except sqlite3.Error:
                pass
        if over:
            return False, None
        self.quick_reads += 1
        return True, result

    def _quick_connection(self) -> sqlite3.Connection | None:
        """The calling thread's own read connection (opened on first use), or None where there is none."""
        if self._quick_unusable:
            return None
        if self._quick is None:
            try:
                if self._reader_uri is not None:
                    conn = sqlite3.connect(self._reader_uri, uri=True, timeout=0, isolation_level=None)
                else:
                    conn = sqlite3.connect(self.path, timeout=0, isolation_level=None)
                conn.row_factory = sqlite3.Row
                conn.execute("PRAGMA query_only=ON")
            except sqlite3.Error:
                self._quick_unusable = True  # the trip it is, for this file
                return None
            self._quick, self._quick_thread = conn, threading.get_ident()
        if threading.get_ident() != self._quick_thread:
            return None
        return self._quick

    async def external_data_version(self) -> int:
        """A number that changes when another connection (another process) commits, never for our writes.

        It is `PRAGMA data_version` of the writer: SQLite changes it only for commits made by other
        connections, and our reader never commits. Opened read-only, the reader's (nothing of
        ours writes then). One pragma on the connection's thread, whatever the file's size.
        """
        self._ensure_open()
        conn = self.writer if self.writer is not None else self.reader
        self.hops += 1
        try:
            return int(await conn._execute(_data_version, conn._conn))
        except sqlite3.Error as exc:
            raise StoreError(describe_error(self.path, exc)) from None

    async def release_caches(self) -> None:
        """Hand each connection's page cache back (`PRAGMA shrink_memory`), e.g. after a long
        history was read: SQLite keeps up to its cache_size (2 MB) per connection otherwise, and
        the next read fills it again as it needs."""
        if self._closed:
            return
        for conn in (self.reader, self.writer):
            if conn is None:
                continue
            self.hops += 1
            try:
                await conn._execute(_shrink_memory, conn._conn)
            except (sqlite3.Error, ValueError):
                pass  # closing meanwhile: nothing to hand back
        quick = self._quick if threading.get_ident() == self._quick_thread else None
        if quick is not None:
            try:
                _shrink_memory(quick)
            except sqlite3.Error:
                pass

    # ------------------------------------------------------------------ lifecycle

    def _ensure_open(self) -> None:
        if self._closed:
            raise StoreError(f"{self.path}: the session database is closed")

    @property
    def closed(self) -> bool:
        return self._closed

    async def close(self) -> None:
        """Checkpoint (PASSIVE) and close both connections; safe to call twice."""
        if self._closed:
            return
        if self.writer is not None:
            await self.extra_indexes.stop()
        async with self._write_lock:
            self._closed = True
            if self._quick is not None:
                try:
                    self._quick.close()
                except sqlite3.Error:
                    pass  # another thread's: its handle goes with the object
                self._quick = None
            await self.checkpoint()
            for conn in (self.reader, self.writer):
                if conn is None:
                    continue
                try:
                    await conn.close()
                except (sqlite3.Error, ValueError):
                    pass


def _shrink_memory(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA shrink_memory")


def _data_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def _transaction(conn: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    """BEGIN IMMEDIATE, `work`, COMMIT — or ROLLBACK on any error (runs on the writer's thread)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = work(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return result
