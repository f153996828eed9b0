"""A branch we make carries Hermes's `_branched_from` marker, so Hermes lists it as a branch too
(the real Agent, demo model, real state.db)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from hermes_tui.core.commands import run_command
from tests.core.helpers import make_agent


def _model_config(db_path: Path, session_id: str) -> dict:
    conn = sqlite3.connect(db_path)
    try:
        (raw,) = conn.execute("SELECT model_config FROM sessions WHERE id = ?", (session_id,)).fetchone()
    finally:
        conn.close()
    return json.loads(raw)


async def test_branch_and_branch_at_write_branched_from_and_its_children_do_not_inherit_it(tmp_path: Path) -> None:
    agent, db, _log = await make_agent(tmp_path)
    for text in ("hello", "tell me more"):
        assert (await agent.run_conversation(text)).completed
    parent = agent.session_id
    assert not (await run_command(agent, "/branch")).error
    branch = agent.session_id
    assert (await agent.run_conversation("and in the branch?")).completed
    assert not (await run_command(agent, "/branch at 1 second")).error
    second = agent.session_id
    db_path = tmp_path / "home" / "state.db"
    await agent.close()
    await db.close()
    assert _model_config(db_path, branch)["_branched_from"] == parent
    assert _model_config(db_path, second)["_branched_from"] == branch  # a branch of the branch names its own parent
    # Hermes's own rule for a listed branch: the marker, whatever the parent's end reason says later.
    conn = sqlite3.connect(db_path)
    try:
        conn.execute("UPDATE sessions SET end_reason = 'tui_shutdown' WHERE id = ?", (parent,))
        conn.commit()
        marked = conn.execute(
            "SELECT id FROM sessions WHERE json_extract(COALESCE(model_config, '{}'), '$._branched_from') IS NOT NULL"
            " ORDER BY started_at"
        ).fetchall()
    finally:
        conn.close()
    assert [row[0] for row in marked] == [branch, second]
