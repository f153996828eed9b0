"""Health checks of a state.db that never change it: the start-up quick check and the doctor's checks.

Owns `quick_check(path)` — `PRAGMA quick_check` on a connection that cannot change the file
(`query_only`, or opened read-only where we may not write), giving one line for a damaged file or
None, and skipped when the file was found clean and has not been written since — and
`start_quick_check(path)`, the same in a background thread so that it overlaps the start-up
imports (SQLite releases the GIL while it checks); `.result()` waits.
And `inspect_database(path)` for `hermes-tui doctor`: the full `PRAGMA integrity_check`, the
schema version, and both FTS indexes (present, their three triggers each, exactly the rows of
`messages` with the text the triggers index, and FTS5's own integrity-check, which needs a
connection that could write: it runs in a transaction that is rolled back, and is skipped when
the file is read-only). Everything here is synchronous stdlib sqlite3.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.store.connection import BUSY_TIMEOUT_S, connect_query_only, is_locked_error
from hermes_tui.store.errors import StoreError
from hermes_tui.store.schema import (
    CORE_TABLES,
    FTS_TABLE,
    FTS_TRIGGERS,
    INDEXED_TEXT_SQL,
    OLDEST_READABLE_VERSION,
    SCHEMA_VERSION,
    TABLES_AFTER_V14,
    TRIGRAM_TABLE,
    fts_support,
    needs_schema_work,
)

OK = "ok"
NOTE = "note"  # worth knowing, with its fix; not a problem (exit 0)
WARNING = "warning"
PROBLEM = "problem"

INTEGRITY_MAX_ERRORS = 100
# Checks read every page once; memory-mapping the file (up to SQLite's default cap of ~2 GB)
# saves the copy into the page cache: ~25 % faster on a 1.4 GB file.
CHECK_MMAP_BYTES = 2_147_418_112


@dataclass(frozen=True)
class Finding:
    """One line of a health report: what was checked, how it went, and the detail."""

    name: str
    status: str  # OK | WARNING | PROBLEM
    detail: str


# --------------------------------------------------------------------------- quick check


def _first_problem(rows: list[tuple[str, ...]]) -> str:
    """The first meaningful line of quick_check/integrity_check output (skips the '*** in database' header)."""
    for row in rows:
        for line in str(row[0]).splitlines():
            line = line.strip()
            if line and not line.startswith("***"):
                return line
    return str(rows[0][0]).strip() if rows else "unknown problem"


def _damaged(path: Path, detail: str) -> str:
    return f"{path} is damaged ({detail}); run `hermes-tui doctor` for a full report"


def quick_check(path: Path) -> str | None:
    """None when `path` is missing, healthy or busy; otherwise one line saying it is damaged.

    Opens the file read-only (nothing is created or changed). A header that is not SQLite's is
    reported as damage too; a file locked by a writer in rollback-journal mode is not checked.
    """
    path = Path(path)
    if not path.exists():
        return None
    state = file_state(path)
    if state is not None and _recorded_clean_state(path) == state:
        return None  # checked clean and not written since: reading every page again tells nothing new
    try:
        conn = connect_query_only(path)
    except StoreError as exc:
        return _damaged(path, str(exc).removeprefix(f"{path}: "))
    try:
        conn.execute(f"PRAGMA mmap_size={CHECK_MMAP_BYTES}")
        rows = conn.execute("PRAGMA quick_check(1)").fetchall()
    except sqlite3.Error as exc:
        if is_locked_error(exc):
            return None
        return _damaged(path, str(exc).splitlines()[0])
    finally:
        conn.close()
    if rows == [("ok",)]:
        if state is not None and file_state(path) == state:
            _record_clean_state(path, state)
        return None
    return _damaged(path, _first_problem(rows))


# The start-up check reads every page (~0.55 s per GB), which would dominate a read command on a
# large home. A clean result is remembered with the file's state — identity, size and times of
# state.db and of its WAL, which every commit changes — in our cache folder (never beside
# state.db), so the check re-runs whenever anything was written since, and is skipped otherwise.
# `hermes-tui doctor` always checks in full.


def file_state(path: Path) -> str | None:
    """A fingerprint of `path` and its WAL that changes with every write (None if unreadable)."""
    parts = []
    for candidate in (path, path.with_name(path.name + "-wal")):
        try:
            st = candidate.stat()
        except FileNotFoundError:
            parts.append("-")
            continue
        except OSError:
            return None
        parts.append(f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}")
    return "|".join(parts)


def _record_path(path: Path) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    key = hashlib.sha1(str(path.resolve()).encode("utf-8", "surrogatepass")).hexdigest()
    return Path(base) / "hermes-tui" / "checked" / key


def _recorded_clean_state(path: Path) -> str | None:
    try:
        return _record_path(path).read_text(encoding="utf-8").strip() or None
    except (OSError, ValueError):
        return None


def _record_clean_state(path: Path, state: str) -> None:
    try:
        record = _record_path(path)
        record.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = record.with_name(f"{record.name}.{os.getpid()}.tmp")
        tmp.write_text(state, encoding="utf-8")
        os.replace(tmp, record)
    except OSError:
        pass  # no record: the next start checks again


class PendingCheck:
    """`quick_check(path)` running in a daemon thread; `result()` waits for its answer."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.seconds = 0.0
        self._result: str | None = None
        self._thread = threading.Thread(target=self._run, name="hermes-quick-check", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        started = time.perf_counter()
        try:
            self._result = quick_check(self.path)
        except Exception as exc:  # any failure to check is reported, never raised in a thread
            self._result = _damaged(self.path, f"{type(exc).__name__}: {exc}")
        self.seconds = time.perf_counter() - started

    def result(self, timeout: float | None = None) -> str | None:
        """Wait for the check (at most `timeout` seconds: None then means 'not finished')."""
        self._thread.join(timeout)
        return None if self._thread.is_alive() else self._result

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()


def start_quick_check(path: Path) -> PendingCheck:
    """Start `quick_check(path)` in the background (see PendingCheck)."""
    return PendingCheck(path)


# --------------------------------------------------------------------------- doctor


def _integrity(conn: sqlite3.Connection) -> Finding:
    """The full `PRAGMA integrity_check`. When SQLite gives up part-way (a page it cannot read),
    the check is run again stopping at the first problem, which names the page."""
    conn.execute(f"PRAGMA mmap_size={CHECK_MMAP_BYTES}")
    try:
        rows = conn.execute(f"PRAGMA integrity_check({INTEGRITY_MAX_ERRORS})").fetchall()
    except sqlite3.Error as exc:
        stopped = str(exc).splitlines()[0]
        try:
            first = conn.execute("PRAGMA integrity_check(1)").fetchall()
        except sqlite3.Error:
            first = []
        if not first or first == [("ok",)]:
            return Finding("integrity", PROBLEM, f"PRAGMA integrity_check failed: {stopped}")
        return Finding("integrity", PROBLEM, f"first problem: {_first_problem(first)}; then SQLite stopped: {stopped}")
    if rows == [("ok",)]:
        return Finding("integrity", OK, "PRAGMA integrity_check: ok")
    return Finding("integrity", PROBLEM, _summary(rows))


def _summary(rows: list[tuple[str, ...]]) -> str:
    more = "+" if len(rows) >= INTEGRITY_MAX_ERRORS else ""
    return f"{len(rows)}{more} problem(s); first: {_first_problem(rows)}"


def _tables(conn: sqlite3.Connection, kind: str) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = ?", (kind,))}


def _schema(conn: sqlite3.Connection, fts: bool, trigram: bool) -> Finding:
    tables = _tables(conn, "table")
    missing = sorted(set(CORE_TABLES) - set(TABLES_AFTER_V14) - tables)
    if missing:
        return Finding("schema", PROBLEM, f"missing tables: {', '.join(missing)} (the next open creates them)")
    row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    version = None if row is None or row[0] is None else int(row[0])
    if version is None:
        return Finding("schema", PROBLEM, f"no schema version recorded (the next open records v{SCHEMA_VERSION})")
    if version > SCHEMA_VERSION:
        return Finding("schema", WARNING, f"v{version}, newer than the v{SCHEMA_VERSION} this version knows")
    if OLDEST_READABLE_VERSION <= version < SCHEMA_VERSION:  # older Hermes's (and ours): it works as it is
        return Finding("schema", OK, f"v{version}; read as it is, upgraded to v{SCHEMA_VERSION} by the next write")
    if version < SCHEMA_VERSION:
        return Finding("schema", WARNING, f"v{version}; the next open upgrades it to v{SCHEMA_VERSION}")
    if needs_schema_work(conn, fts, trigram):
        return Finding("schema", OK, f"v{version}; the next open adds missing columns, indexes or triggers")
    return Finding("schema", OK, f"v{version}")


def _count(conn: sqlite3.Connection, sql: str) -> int:
    return int(conn.execute(sql).fetchone()[0])


def _fts5_self_check(path: Path, table: str) -> str:
    """FTS5's own 'integrity-check' (index vs. its stored text); '' when fine, else the problem."""
    if not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        return "skipped: read-only"
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    try:
        conn.execute("BEGIN")
        try:
            conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
        finally:
            conn.execute("ROLLBACK")
    except sqlite3.Error as exc:
        if is_locked_error(exc):
            return "skipped: the database is busy"
        return f"FTS5 integrity-check failed: {str(exc).splitlines()[0]}"
    finally:
        conn.close()
    return ""


def _fts(conn: sqlite3.Connection, path: Path, table: str, available: bool) -> Finding:
    name = f"FTS {table}"
    tables = _tables(conn, "table")
    if not available:
        what = "FTS5" if table == FTS_TABLE else "the FTS5 trigram tokenizer"
        if table in tables:
            return Finding(name, WARNING, f"present, but this SQLite lacks {what}; search cannot use it")
        return Finding(name, WARNING, f"absent: this SQLite lacks {what} (search uses a slower fallback)")
    if table not in tables:
        return Finding(name, PROBLEM, "missing (the next open creates and fills it)")
    triggers = set(FTS_TRIGGERS[table]) - _tables(conn, "trigger")
    problems = []
    if triggers:
        problems.append(f"missing triggers {', '.join(sorted(triggers))}")
    indexed = INDEXED_TEXT_SQL.format(p="m.")
    unindexed = _count(conn, f"SELECT COUNT(*) FROM messages WHERE id NOT IN (SELECT rowid FROM {table})")
    orphans = _count(conn, f"SELECT COUNT(*) FROM {table} WHERE rowid NOT IN (SELECT id FROM messages)")
    stale = _count(
        conn, f"SELECT COUNT(*) FROM messages m JOIN {table} f ON f.rowid = m.id WHERE f.content IS NOT ({indexed})"
    )
    for count, what in (
        (unindexed, "message(s) not indexed"),
        (orphans, "row(s) for deleted messages"),
        (stale, "row(s) with outdated text"),
    ):
        if count:
            problems.append(f"{count:,} {what}")
    own = _fts5_self_check(path, table)
    if own and not own.startswith("skipped"):
        problems.append(own)
    if problems:
        return Finding(name, PROBLEM, "; ".join(problems) + " (search can miss or misreport these messages)")
    rows = _count(conn, f"SELECT COUNT(*) FROM {table}")
    note = f"; FTS5 integrity-check {own}" if own else "; FTS5 integrity-check ok"
    return Finding(name, OK, f"{rows:,} rows, matching messages; triggers present{note}")


def inspect_database(path: Path) -> list[Finding]:
    """Every doctor check of the file at `path` (read-only; see the module docstring)."""
    path = Path(path)
    try:
        conn = connect_query_only(path)
    except StoreError as exc:
        return [Finding("state.db", PROBLEM, str(exc))]
    try:
        findings = [_integrity(conn)]
        try:
            fts, trigram = fts_support()
            findings.append(_schema(conn, fts, trigram))
            if {"messages"} <= _tables(conn, "table"):
                findings.append(_fts(conn, path, FTS_TABLE, fts))
                findings.append(_fts(conn, path, TRIGRAM_TABLE, trigram))
                sessions = _count(conn, "SELECT COUNT(*) FROM sessions") if "sessions" in _tables(conn, "table") else 0
                messages = _count(conn, "SELECT COUNT(*) FROM messages")
                size = path.stat().st_size
                findings.append(
                    Finding("contents", OK, f"{messages:,} messages in {sessions:,} sessions, {size / 1e6:,.1f} MB")
                )
        except sqlite3.Error as exc:
            findings.append(Finding("tables", PROBLEM, f"cannot be read to the end: {str(exc).splitlines()[0]}"))
        return findings
    finally:
        conn.close()
