"""The state.db today's Hermes (a7ef17da7, schema v21) wrote, as a test fixture: ids and a temp copy.

`tests/fixtures/hermes_home_v21/state.db` was written by Hermes's own SessionDB (see
/work/shared/fixtures/hermes_home_v21/README.md for the script): an in-place compaction, a rotation
chain "pick a database" -> "pick a database #2", and a branch recorded with `_branched_from`
whose parent was re-ended `tui_shutdown` later.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

V21_DB = Path(__file__).parent / "fixtures" / "hermes_home_v21" / "state.db"

IN_PLACE = "20261128_101500_a1b2c3"  # "refactor auth", compacted in place
CHAIN_ROOT = "20261129_090000_d4e5f6"  # "pick a database", ended "compression"
CHAIN_TIP = "20261129_093000_0a1b2c"  # "pick a database #2"
BRANCH = "20261130_140000_b3c4d5"  # "pick a database (postgres branch)", _branched_from CHAIN_TIP


def v21_copy(folder: Path) -> Path:
    """A writable copy of the v21 state.db in `folder` (the original stays untouched)."""
    target = folder / "hermes-v21" / "state.db"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(V21_DB, target)
    target.chmod(0o600)
    return target


def v21_message(session_id: str, index: int = 0) -> str:
    """The content of a session's `index`-th live message, read with the stdlib driver."""
    conn = sqlite3.connect(f"file:{V21_DB}?mode=ro&immutable=1", uri=True)  # leaves no -wal/-shm beside it
    try:
        rows = conn.execute(
            "SELECT content FROM messages WHERE session_id = ? AND active = 1 ORDER BY id", (session_id,)
        ).fetchall()
    finally:
        conn.close()
    return str(rows[index][0])
