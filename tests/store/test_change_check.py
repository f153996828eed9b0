"""The cheap checks the Sessions tree relies on: "did another process change the file?" and one node."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hermes_tui.store.db import SessionDB
from hermes_tui.store.models import EDGE_COMPRESSION, EDGE_ROOT
from tests.store.conftest import make_session, raw_execute


@pytest.mark.subprocess
async def test_our_own_writes_leave_the_version_alone_and_another_process_changes_it(
    db: SessionDB, db_path: Path
) -> None:
    before = await db.external_change_version()
    await make_session(db, "ours", title="ours")
    await db.append_message("ours", "user", "hello")
    await db.end_session("ours", "user_exit")
    assert await db.external_change_version() == before

    script = (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
        "c.execute(\"INSERT INTO sessions (id, source, started_at) VALUES ('theirs', 'cli', 1.0)\"); c.commit()"
    )
    subprocess.run([sys.executable, "-c", script, str(db_path)], check=True)
    after = await db.external_change_version()
    assert after != before
    assert await db.external_change_version() == after  # nothing new since


async def test_a_read_only_open_sees_commits_by_the_writer_elsewhere(db: SessionDB, db_path: Path) -> None:
    await make_session(db, "one")
    reader = await SessionDB.open(db_path, read_only=True)
    try:
        before = await reader.external_change_version()
        await make_session(db, "two")
        assert await reader.external_change_version() != before
    finally:
        await reader.close()


async def test_one_node_matches_the_whole_tree(db: SessionDB, db_path: Path) -> None:
    await make_session(db, "root", title="auth work")
    await db.append_message("root", "user", "Refactor the auth module\nplease")
    await db.end_session("root", "compression")
    await make_session(db, "child", parent_session_id="root", title="auth work #2")
    await db.append_message("child", "user", "summary of root")
    await db.append_message("child", "assistant", "done")
    tree = {node.id: node for node in await db.lineage_tree()}
    child = await db.lineage_node("child")
    root = await db.lineage_node("root")
    assert child == tree["child"] and child is not None and child.edge == EDGE_COMPRESSION
    assert child.message_count == 2 and child.preview == "summary of root"
    assert root == tree["root"] and root is not None and root.edge == EDGE_ROOT
    assert await db.lineage_node("missing") is None
    raw_execute(db_path, "DELETE FROM sessions WHERE id = 'root'")
    orphan = await db.lineage_node("child")
    assert orphan is not None and orphan.edge == EDGE_ROOT and orphan.parent_id is None
