"""Synchronous SQLite helpers the whole store shares, with no event loop in sight.

Owns: one-line errors (`describe_error`, `is_locked_error`), the header check run before SQLite
opens anything (`check_header`: a FIFO there would block the open for ever), the connections that
cannot change a file (`connect_read_only`, `connect_query_only`) and the read-only look at a
file's schema (`inspect_read_only`), and the row helpers work functions use (`tuples`,
`fetch_in`, `placeholders`). Apart from `store.connection` (the async connections, aiosqlite) so
a read that needs no event loop — `hermes-tui search` — imports neither asyncio nor aiosqlite;
`store.connection` re-exports all of it.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from hermes_tui.store.errors import SchemaTooOld, StoreError
from hermes_tui.store.regular_files import SQLITE_HEADER, read_regular_head, sqlite_files_problem
from hermes_tui.store.schema import (
    OLDEST_READABLE_VERSION,
    SCHEMA_VERSION,
    SchemaState,
    fts_support,
    readable_as_is,
    state_of,
)

BUSY_TIMEOUT_S = 1.0

Params = Sequence[Any] | dict[str, Any]


def is_locked_error(exc: BaseException) -> bool:
    """True for SQLite's transient "database is locked" / "busy" failures."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def describe_error(path: Path, exc: BaseException) -> str:
    """One line naming the file and what SQLite said."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "file is not a database" in text or "malformed" in text:
        return f"{path}: not a usable SQLite database ({text})"
    return f"{path}: {text}"


def check_header(path: Path) -> None:
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
    check_header(path)
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
    check_header(path)
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


def inspect_read_only(path: Path) -> tuple[SchemaState, str, str | None]:
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


def fetch_in(conn: sqlite3.Connection, sql: str, params: Params = ()) -> list[sqlite3.Row]:
    """All rows of a statement run on `conn` (inside write transactions)."""
    return conn.execute(sql, params).fetchall()


def tuples(conn: sqlite3.Connection, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
    """Rows as plain tuples (inside `StoreConnections.read` work functions)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, params).fetchall()


def placeholders(values: Iterable[Any]) -> str:
    """`?, ?, ?` for an IN (...) list."""
    return ", ".join("?" for _ in values)
