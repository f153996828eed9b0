"""State.db upkeep at start-up, through the real CLI on real state.db files.

The orphaned-compression finalizer always runs; auto-prune runs when `[sessions] auto_prune` is on,
deletes only ended sessions older than `retention_days`, at most once per `min_interval_hours`,
and the start-up line on stderr says what was done.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

from hermes_tui.store.db import SessionDB
from tests.test_cli import run_cli

DAY = 86400.0


async def _seed(db_path: Path) -> None:
    """Sessions of every kind upkeep must judge, with real messages, then backdated."""
    db = await SessionDB.open(db_path)
    try:
        for sid in ("old_ended", "old_open", "new_ended", "parent", "orphan", "young_orphan", "live_child"):
            await db.create_session(sid, source="cli")
            await db.append_message(sid, "user", f"message of {sid}")
        await db.end_session("old_ended", "cli_close")
        await db.end_session("new_ended", "cli_close")
        await db.end_session("parent", "compression")
    finally:
        await db.close()
    con = sqlite3.connect(db_path)
    now = time.time()
    with con:
        for sid, age_days in (("old_ended", 120), ("old_open", 120), ("new_ended", 10), ("parent", 30)):
            con.execute("UPDATE sessions SET started_at = ? WHERE id = ?", (now - age_days * DAY, sid))
        for sid, age_days in (("orphan", 8), ("young_orphan", 2), ("live_child", 8)):
            con.execute(
                "UPDATE sessions SET started_at = ?, parent_session_id = 'parent' WHERE id = ?",
                (now - age_days * DAY, sid),
            )
        con.execute("UPDATE sessions SET api_call_count = 3 WHERE id = 'live_child'")  # it did work: not orphaned
    con.close()


def _sessions(db_path: Path) -> dict[str, str | None]:
    con = sqlite3.connect(db_path)
    try:
        return dict(con.execute("SELECT id, end_reason FROM sessions WHERE id NOT LIKE '2%'").fetchall())
    finally:
        con.close()


def _home(tmp_path: Path, config: str) -> Path:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text(config, encoding="utf-8")
    asyncio.run(_seed(home / "state.db"))
    return home


def test_start_up_finishes_orphans_and_prunes_old_ended_sessions_once_per_interval(tmp_path: Path) -> None:
    home = _home(tmp_path, "[sessions]\nauto_prune = true\nretention_days = 90\nauto_title = false\n")
    result = run_cli("run", "hello", "--provider", "demo", "--home", str(home), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    line = next(text for text in result.stderr.splitlines() if "auto-prune" in text)
    assert "removed 1 session ended and older than 90 days" in line
    assert "finished 1 orphaned compression session" in line
    assert _sessions(home / "state.db") == {
        "old_open": None,  # never ended: kept however old
        "new_ended": "cli_close",
        "parent": "compression",
        "orphan": "orphaned_compression",
        "young_orphan": None,  # under 7 days: it may still be resumed
        "live_child": None,
    }
    con = sqlite3.connect(home / "state.db")
    try:
        assert con.execute("SELECT COUNT(*) FROM messages WHERE session_id = 'old_ended'").fetchone() == (0,)
        fts = "SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH ?"
        assert con.execute(fts, ("old_ended",)).fetchone() == (0,), "the search index forgot it too"
        assert con.execute(fts, ("new_ended",)).fetchone() == (1,)
        last = float(con.execute("SELECT value FROM state_meta WHERE key = 'last_auto_prune'").fetchone()[0])
        assert abs(last - time.time()) < 120
        con.execute("UPDATE sessions SET started_at = ?, ended_at = ? WHERE id = 'new_ended'", (0, 1))
        con.commit()
    finally:
        con.close()
    again = run_cli("run", "hello again", "--provider", "demo", "--home", str(home), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "auto-prune" not in again.stderr and "orphaned" not in again.stderr, "within the interval: nothing runs"
    assert "new_ended" in _sessions(home / "state.db")


def test_auto_prune_is_off_by_default_and_the_finalizer_still_runs(tmp_path: Path) -> None:
    home = _home(tmp_path, "[sessions]\nauto_title = false\n")
    result = run_cli("run", "hello", "--provider", "demo", "--home", str(home), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "auto-prune" not in result.stderr
    assert "finished 1 orphaned compression session left by a crash" in result.stderr
    sessions = _sessions(home / "state.db")
    assert sessions["old_ended"] == "cli_close" and sessions["orphan"] == "orphaned_compression"
