"""Pruning by age, as Hermes does: folders untouched for retention_days (or gone) leave the store,
snapshots older than that leave a folder's chain (the newest stays), and git collects their objects;
/rollback then calls such a checkpoint expired instead of failing."""

from __future__ import annotations

import time
from pathlib import Path

from hermes_tui.core.checkpoints.store import Caps, ShadowStore, Snapshot
from hermes_tui.core.commands import run_command
from tests.checkpoints.helpers import make_project, write_call
from tests.core.helpers import make_agent, openai_choice
from tests.fake_llm import FakeLLMServer, Reply

CAPS = Caps(max_file_bytes=10 * 1024 * 1024, max_files=1000)
DAY = 86400


async def test_old_snapshots_and_stale_folders_are_pruned_and_collected(tmp_path: Path) -> None:
    store = ShadowStore(tmp_path / "home" / "checkpoints")
    active, stale, gone = (tmp_path / name for name in ("active", "stale", "gone"))
    for folder in (active, stale, gone):
        folder.mkdir()
        (folder / "f.txt").write_text(f"{folder.name} one\n", encoding="utf-8")
    later = time.time() + 8 * DAY
    old_active = await store.snapshot(active, "one", CAPS)
    (active / "f.txt").write_text("active two\n", encoding="utf-8")
    new_active = await store.snapshot(active, "two", CAPS, now=later)  # touched "today", eight days on
    stale_snap = await store.snapshot(stale, "one", CAPS)
    gone_snap = await store.snapshot(gone, "one", CAPS, now=later)
    (gone / "f.txt").unlink()
    gone.rmdir()
    assert isinstance(old_active, Snapshot) and isinstance(new_active, Snapshot)
    assert isinstance(stale_snap, Snapshot) and isinstance(gone_snap, Snapshot)
    trees = [old_active.tree, new_active.tree, stale_snap.tree, gone_snap.tree]
    assert await store.existing_trees(trees) == set(trees)

    report = await store.prune(7, now=later)

    assert (report.folders_dropped, report.snapshots_dropped, report.collected) == (2, 1, True)
    assert await store.existing_trees(trees) == {new_active.tree}
    assert not store.prune_due(now=later + 3600)  # at most once a day
    again = await store.snapshot(active, "three", CAPS, now=later)  # the rewritten chain still takes snapshots
    assert isinstance(again, Snapshot) and again.tree == new_active.tree


async def test_a_pruned_checkpoint_is_listed_as_expired_and_cannot_be_restored(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    with FakeLLMServer() as server:
        agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=project)
        try:
            server.enqueue(Reply(tool_calls=[write_call("a", "a.txt", "a\n")]), Reply(text="Done."))
            assert (await agent.run_conversation("write a")).completed
            await agent.checkpoints.store.prune(7, now=time.time() + 8 * DAY)
            listing = await run_command(agent, "/rollback")
            restore = await run_command(agent, "/rollback 1")
        finally:
            await agent.close()
            await db.close()
    assert "expired" in listing.output
    assert restore.error and "has expired" in restore.output
    assert (project / "a.txt").read_text() == "a\n"
