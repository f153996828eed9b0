"""Pruning, vacuum, FTS optimize and the auto-prune gate (reference §2.3)."""

from __future__ import annotations

import time
from pathlib import Path

from hermes_tui.store.db import SessionDB
from hermes_tui.store.maintenance import LAST_AUTO_PRUNE_KEY
from tests.store.conftest import make_session, raw_execute

OLD = 200 * 86400


async def _aged(db: SessionDB, db_path: Path) -> None:
    """old-ended (parent of keep-child), old-open, recent-ended, keep-child (recent, open)."""
    for sid in ("old-ended", "old-open", "recent-ended"):
        await make_session(db, sid)
        await db.append_message(sid, "user", f"text of {sid} with aardvark")
    await db.end_session("old-ended", "compression")
    await db.end_session("recent-ended", "cli_close")
    await make_session(db, "keep-child", parent_session_id="old-ended")
    raw_execute(db_path, "UPDATE sessions SET started_at = started_at - ? WHERE id LIKE 'old-%'", (OLD,))


async def test_prune_removes_only_old_ended_sessions_and_keeps_foreign_keys(db: SessionDB, db_path: Path) -> None:
    await _aged(db, db_path)
    assert await db.prune_sessions(older_than_days=90) == 1
    remaining = {row[0] for row in raw_execute(db_path, "SELECT id FROM sessions")}
    assert remaining == {"old-open", "recent-ended", "keep-child"}
    assert (await db.get_session("keep-child"))["parent_session_id"] is None
    assert {h["session_id"] for h in await db.search_messages("aardvark")} == {"old-open", "recent-ended"}
    assert raw_execute(db_path, "PRAGMA foreign_key_check") == []
    assert await db.integrity_check() == "ok"


async def test_auto_prune_runs_once_per_interval_and_vacuums(db: SessionDB, db_path: Path) -> None:
    await _aged(db, db_path)
    assert await db.maybe_auto_prune_and_vacuum(retention_days=90, min_interval_hours=24) == 1
    assert float(await db.get_meta(LAST_AUTO_PRUNE_KEY)) <= time.time()
    assert await db.maybe_auto_prune_and_vacuum(retention_days=90, min_interval_hours=24) is None
    await db.set_meta(LAST_AUTO_PRUNE_KEY, str(time.time() - 25 * 3600))
    assert await db.maybe_auto_prune_and_vacuum(retention_days=90, min_interval_hours=24) == 0


async def test_vacuum_and_optimize_keep_search_working(db: SessionDB) -> None:
    await make_session(db, "s1")
    await db.append_messages("s1", [{"role": "user", "content": f"row {i} pangolin"} for i in range(50)])
    await db.optimize_fts()
    await db.vacuum()
    assert len(await db.search_messages("pangolin", limit=100)) == 50
    await db.append_message("s1", "user", "after vacuum pangolin")
    assert len(await db.search_messages("pangolin", limit=100)) == 51


async def test_delete_session_orphans_children_cleanly(db: SessionDB, db_path: Path) -> None:
    await make_session(db, "parent")
    await db.append_message("parent", "user", "bye")
    await make_session(db, "child", parent_session_id="parent")
    assert await db.delete_session("parent") is True
    assert await db.delete_session("parent") is False
    assert (await db.get_session("child"))["parent_session_id"] is None
    assert raw_execute(db_path, "SELECT COUNT(*) FROM messages") == [(0,)]
