"""`search_read_only`: one full-text search of a state.db, synchronously, for `hermes-tui search`.

A whole `hermes-tui search` process is mostly start-up: the interpreter, then imports. Through
`SessionDB` the command imported every part of the store (sessions, lineage, listing, insights,
maintenance...), asyncio and aiosqlite, started an event loop and a worker thread — for one
query that takes about a millisecond. This opens the file read-only exactly as `SessionDB.open(
read_only=True)` does (the same schema look, `SchemaTooOld` for a file too old to read as it is,
the same `mode=ro`/`immutable` rules), plans the search with the same function
(`store.search.plan_messages_search`) and runs the same statements (`run_messages_search`) on a
stdlib connection of this thread: the hits are those `SessionDB.search_messages` returns.
Nothing here imports asyncio.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hermes_tui.store.errors import StoreError
from hermes_tui.store.search import plan_messages_search, run_messages_search
from hermes_tui.store.sqlite_io import BUSY_TIMEOUT_S, describe_error, inspect_read_only, is_locked_error

ATTEMPTS = 15  # as the async reader: a lock (a WAL being recovered) is waited out, then reported
RETRY_SLEEP_RANGE_S = (0.020, 0.150)


def _connect(path: Path, uri: str | None) -> sqlite3.Connection:
    """The reader `SessionDB.open(read_only=True)` would open: by URI, or the path with query_only."""
    if uri is not None:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    else:
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA query_only=ON")
    return conn


def search_read_only(
    path: str | Path,
    query: str,
    *,
    source_filter: str | Sequence[str] | None = None,
    role_filter: str | Sequence[str] | None = None,
    limit: int = 20,
    sort: str | None = None,
    since: float | None = None,
    until: float | None = None,
) -> list[dict[str, Any]]:
    """`SessionDB.search_messages(...)` on `path` opened read-only, on this thread.

    Raises StoreError (SchemaTooOld included) as `SessionDB.open(path, read_only=True)` would, and
    for a file SQLite cannot read; ValueError only for an unknown `sort`.
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise StoreError(f"no session database at {path}")
    schema, _mode, uri = inspect_read_only(path)
    planned = plan_messages_search(
        schema,
        query,
        source_filter=source_filter,
        role_filter=role_filter,
        limit=limit,
        sort=sort,
        since=since,
        until=until,
    )
    if planned is None:
        return []
    for attempt in range(ATTEMPTS):
        conn: sqlite3.Connection | None = None
        try:
            conn = _connect(path, uri)
            return run_messages_search(conn, planned)
        except sqlite3.Error as exc:
            if is_locked_error(exc) and attempt < ATTEMPTS - 1:
                time.sleep(random.uniform(*RETRY_SLEEP_RANGE_S))
                continue
            raise StoreError(describe_error(path, exc)) from None
        finally:
            if conn is not None:
                conn.close()
    raise StoreError(f"{path}: database stayed locked")  # pragma: no cover - the loop always returns
