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
import os
import random
import sqlite3
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from hermes_tui.store.errors import SchemaTooOld, StoreError
from hermes_tui.store.extra_indexes import IndexBuilder
from hermes_tui.store.file_modes import make_private_dir, touch_private_file
from hermes_tui.store.regular_files import read_regular_head, sqlite_files_problem
from hermes_tui.store.schema import (
    OLDEST_READABLE_VERSION,
    SCHEMA_VERSION,
    SchemaState,
    ensure_schema,
    fts_support,
    readable_as_is,
    state_of,
)

log = logging.getLogger(__name__)

T = TypeVar("T")
# Hermes leaves `synchronous` at SQLite's default, FULL; the cost is measured in docs/PERFORMANCE.md
# (bench/durability_bench.py). Per connection: the file itself is unchanged.
SYNCHRONOUS = "FULL"

BUSY_TIMEOUT_S = 1.0
WRITE_ATTEMPTS = 15
RETRY_SLEEP_RANGE_S = (0.020, 0.150)
CHECKPOINT_EVERY_WRITES = 50
SQLITE_HEADER = b"SQLite format 3\x00"

_wal_fallback_warned: set[str] = set()

Params = Sequence[Any] | dict[str, Any]


def is_locked_error(exc: BaseException) -> bool:
    """True for SQLite's transient "database is locked" / "busy" failures."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    text = str(exc).lower()
    return "locked" in text or "busy" in text


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


def describe_error(path: Path, exc: BaseException) -> str:
    """One line naming the file and what SQLite said."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "file is not a database" in text or "malformed" in text:
        return f"{path}: not a usable SQLite database ({text})"
    return f"{path}: {text}"


def _check_header(path: Path) -> None:
    """The file (when it exists) and its -wal/-shm/-journal are regular files and it starts as SQLite does.

    Checked before SQLite opens anything: a FIFO there would block the open for ever.
    """
    if path.is_dir():
        raise StoreError(f"{path}: is a directory, not a SQLite database")
    problem = sqlite_files_problem(path)
    if problem:
        raise StoreError(f"{problem}; state.db and its -wal, -shm and -journal files must be plain files")
    try:
        head = read_regular_head(path, len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if head and head != SQLITE_HEADER[: len(head)]:
        raise StoreError(f"{path}: not a SQLite database (unexpected file header)")


def _prepare_file(path: Path) -> tuple[SchemaState, str]:
    """Synchronous open: header check, journal mode, schema; retried while another writer holds it."""
    _check_header(path)
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


def read_only_uri(path: Path, *, immutable: bool = False) -> str:
    """The `file:` URI that opens `path` without ever writing it."""
    return path.resolve().as_uri() + ("?immutable=1" if immutable else "?mode=ro")


def connect_read_only(path: Path, *, timeout: float = BUSY_TIMEOUT_S) -> tuple[sqlite3.Connection, str]:
    """A stdlib connection that cannot write `path`, and the URI it used.

    `mode=ro` first. In a folder we cannot write, a WAL file without its -shm cannot be opened
    that way; then it is opened `immutable` — safe only because nobody can be writing it (a
    writer would need the -wal and -shm there): a non-empty -wal means recent commits are not in
    the main file yet, and that case is a StoreError asking for write access instead.
    Raises StoreError (missing file, not SQLite, unreadable).
    """
    if not path.exists():
        raise StoreError(f"no session database at {path}")
    _check_header(path)
    uri = read_only_uri(path)
    conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return conn, uri
    except sqlite3.Error as exc:
        conn.close()
        if not _is_read_only_error(exc):
            raise StoreError(describe_error(path, exc)) from None
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise StoreError(
            f"{path}: recent changes are still in {wal.name} and this folder is read-only;"
            " open it once with write access"
        )
    uri = read_only_uri(path, immutable=True)
    conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        conn.close()
        raise StoreError(describe_error(path, exc)) from None
    return conn, uri


def connect_query_only(path: Path, *, timeout: float = BUSY_TIMEOUT_S) -> sqlite3.Connection:
    """A stdlib connection that only reads `path` and leaves no -wal/-shm behind.

    Where we may write, a normal connection with `query_only` (the last connection to close
    checkpoints and removes the -wal and -shm, as any of ours does); elsewhere
    `connect_read_only`. Raises StoreError (missing file, not SQLite, unreadable).
    """
    if not _may_write(path):
        return connect_read_only(path, timeout=timeout)[0]
    if not path.exists():
        raise StoreError(f"no session database at {path}")
    _check_header(path)
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
    try:
        conn.execute("PRAGMA query_only=ON")
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        conn.close()
        raise StoreError(describe_error(path, exc)) from None
    return conn


def _is_read_only_error(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text


def _may_write(path: Path) -> bool:
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


def _inspect_read_only(path: Path) -> tuple[SchemaState, str, str | None]:
    """Schema state, journal mode and the URI of a file opened read-only (None: a plain `query_only`
    connection, where we may write, so closing it leaves no -wal/-shm behind); SchemaTooOld if it
    cannot be read as it is."""
    if _may_write(path):
        conn, uri = connect_query_only(path), None
    else:
        conn, uri = connect_read_only(path)
    try:
        fts, trigram = fts_support()
        stored = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] if _has_table(conn) else None
        if not readable_as_is(conn, fts, trigram):
            found = f"schema v{stored}" if stored else "an older schema"
            raise SchemaTooOld(
                f"{path}: has {found} and needs an upgrade to v{SCHEMA_VERSION} (a read-only open reads"
                f" v{OLDEST_READABLE_VERSION} and later), but it is read-only here; open it once with write access"
            )
        mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
        return state_of(conn, fts, trigram), mode, uri
    except sqlite3.Error as exc:
        raise StoreError(describe_error(path, exc)) from None
    finally:
        conn.close()


def _has_table(conn: sqlite3.Connection, name: str = "schema_version") -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


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
    ) -> None:
        self.path = path
        self.writer = writer
        self.reader = reader
        self.schema = schema
        self.journal_mode = journal_mode
        self._write_lock = asyncio.Lock()
        self._writes = 0
        self._last_write = 0.0  # time.monotonic() of the last write of ours
        self._closed = False
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
        schema, mode, uri = await asyncio.to_thread(_inspect_read_only, path)
        try:
            if uri is None:
                reader = await _open(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            else:
                reader = await _open(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            reader.row_factory = sqlite3.Row
            await reader.execute("PRAGMA query_only=ON")
        except sqlite3.Error as exc:
            raise StoreError(describe_error(path, exc)) from None
        return cls(path, None, reader, schema, mode)

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
            try:
                await writer.execute_fetchall(sql, params)
            except sqlite3.Error as exc:
                raise StoreError(describe_error(self.path, exc)) from None

    # ------------------------------------------------------------------ reads

    async def fetchall(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """All rows of a read on the reader connection (never waits behind a WAL writer)."""
        return await self.read(lambda conn: conn.execute(sql, params).fetchall())

    async def read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work(conn)` on the reader's own thread: several statements for one thread hop.

        aiosqlite runs every call as a function queued to the connection's thread; this queues
        ours the same way (its `_execute` primitive), so a search's four statements cost one hop
        instead of four. `work` must only read.
        """
        self._ensure_open()
        reader = self.reader
        for attempt in range(WRITE_ATTEMPTS):
            try:
                return await reader._execute(work, reader._conn)
            except sqlite3.Error as exc:
                if is_locked_error(exc) and attempt < WRITE_ATTEMPTS - 1:
                    await asyncio.sleep(random.uniform(*RETRY_SLEEP_RANGE_S))
                    continue
                raise StoreError(describe_error(self.path, exc)) from None
        raise StoreError(f"{self.path}: database stayed locked")  # pragma: no cover

    async def fetchone(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None

    async def fetchvalue(self, sql: str, params: Params = ()) -> Any:
        row = await self.fetchone(sql, params)
        return None if row is None else row[0]

    async def external_data_version(self) -> int:
        """A number that changes when another connection (another process) commits, never for our writes.

        It is `PRAGMA data_version` of the writer: SQLite changes it only for commits made by other
        connections, and our reader never commits. Opened read-only, the reader's (nothing of
        ours writes then). One pragma on the connection's thread, whatever the file's size.
        """
        self._ensure_open()
        conn = self.writer if self.writer is not None else self.reader
        try:
            return int(await conn._execute(_data_version, conn._conn))
        except sqlite3.Error as exc:
            raise StoreError(describe_error(self.path, exc)) from None

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
            await self.checkpoint()
            for conn in (self.reader, self.writer):
                if conn is None:
                    continue
                try:
                    await conn.close()
                except (sqlite3.Error, ValueError):
                    pass


def _data_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def fetch_in(conn: sqlite3.Connection, sql: str, params: Params = ()) -> list[sqlite3.Row]:
    """All rows of a statement run on `conn` (inside write transactions)."""
    return conn.execute(sql, params).fetchall()


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


def tuples(conn: sqlite3.Connection, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
    """Rows as plain tuples (inside `StoreConnections.read` work functions)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, params).fetchall()


def placeholders(values: Iterable[Any]) -> str:
    """`?, ?, ?` for an IN (...) list."""
    return ", ".join("?" for _ in values)
