"""Compression chains, branches, resolution and the listing (reference §2.5, §3, §11 case 25)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.store.db import SessionDB
from hermes_tui.store.errors import AmbiguousSession, SessionNotFound
from hermes_tui.store.models import EDGE_BRANCH, EDGE_COMPRESSION, EDGE_OTHER, EDGE_ROOT
from tests.store.conftest import make_session, raw_execute


async def _chain(db: SessionDB) -> None:
    """root -(compression)-> mid -(compression)-> tip, plus a delegate child of root started before
    root ended, and a 'work' session branched into 'alt'."""
    await make_session(db, "root", title="auth work", model="m")
    await db.append_message("root", "user", "Refactor the auth module\nplease")
    await make_session(db, "delegate", parent_session_id="root", source="tool")
    await db.append_message("delegate", "user", "subagent task")
    await db.end_session("root", "compression")
    await make_session(db, "mid", parent_session_id="root", title="auth work #2", model="m")
    await db.append_message("mid", "user", "summary of root")
    await db.end_session("mid", "compression")
    await make_session(db, "tip", parent_session_id="mid", title="auth work #3", model="m2", cwd="/tip")
    await db.append_message("tip", "user", "x" * 80)
    await make_session(db, "work", title="work")
    await db.append_message("work", "user", "choose a database")
    await db.end_session("work", "branched")
    await make_session(db, "alt", parent_session_id="work", title="work (branch)")
    await db.append_message("alt", "user", "choose a database")


async def test_compression_tip_walks_the_chain_and_ignores_delegates(db: SessionDB) -> None:
    await _chain(db)
    assert await db.get_compression_tip("root") == "tip"
    assert await db.get_compression_tip("mid") == "tip"
    assert await db.get_compression_tip("tip") == "tip"
    assert await db.get_compression_tip("work") == "work"  # branched, not compressed
    assert await db.get_compression_tip("unknown") == "unknown"


async def test_listing_projects_tips_shows_branches_hides_other_children(db: SessionDB) -> None:
    await _chain(db)
    rows = await db.list_sessions_rich()
    by_id = {row["id"]: row for row in rows}
    assert set(by_id) == {"tip", "work", "alt"}
    tip = by_id["tip"]
    root = await db.get_session("root")
    assert tip["title"] == "auth work #3" and tip["model"] == "m2" and tip["cwd"] == "/tip"
    assert tip["started_at"] == root["started_at"]
    assert tip["_lineage_root_id"] == "root" and tip["lineage_root_id"] == "root"
    assert tip["preview"] == "x" * 60 + "..."
    assert by_id["alt"]["lineage_root_id"] == "work"
    assert by_id["work"]["preview"] == "choose a database"
    assert rows[0]["id"] == "alt"  # most recently active first


async def test_listing_without_projection_and_with_children(db: SessionDB) -> None:
    await _chain(db)
    plain = await db.list_sessions_rich(project_compression_tips=False)
    assert {row["id"] for row in plain} == {"root", "work", "alt"}
    root = next(row for row in plain if row["id"] == "root")
    assert root["preview"] == "Refactor the auth module please" and "_lineage_root_id" not in root
    everything = await db.list_sessions_rich(include_children=True, project_compression_tips=False, limit=None)
    assert {row["id"] for row in everything} == {"root", "delegate", "mid", "tip", "work", "alt"}
    by_start = await db.list_sessions_rich(order_by_last_active=False)
    assert [row["id"] for row in by_start] == ["alt", "work", "tip"]


async def test_listing_filters_sources_archived_and_pages(db: SessionDB) -> None:
    await _chain(db)
    await make_session(db, "gw", source="telegram")
    await make_session(db, "old", title="archived one")
    await db.set_session_archived("old")
    ids = [row["id"] for row in await db.list_sessions_rich(limit=None)]
    assert "old" not in ids and "gw" in ids
    assert "old" in [row["id"] for row in await db.list_sessions_rich(include_archived=True, limit=None)]
    assert [row["id"] for row in await db.list_sessions_rich(source_filter="telegram")] == ["gw"]
    assert "gw" not in [row["id"] for row in await db.list_sessions_rich(exclude_sources=["telegram"])]
    first, second = await db.list_sessions_rich(limit=2), await db.list_sessions_rich(limit=2, offset=2)
    assert len(first) == 2 and not {r["id"] for r in first} & {r["id"] for r in second}


async def test_listing_orders_chains_by_their_tips_activity(db: SessionDB, db_path: Path) -> None:
    await _chain(db)
    await make_session(db, "newer", title="started later")
    raw_execute(db_path, "UPDATE sessions SET started_at = started_at + 1000 WHERE id = 'newer'")
    await db.append_message("tip", "assistant", "fresh activity on the tip")
    raw_execute(db_path, "UPDATE messages SET timestamp = timestamp + 5000 WHERE session_id = 'tip'")
    ids = [row["id"] for row in await db.list_sessions_rich()]
    assert ids[0] == "tip" and ids[1] == "newer"


async def test_lineage_tree_chain_and_root(db: SessionDB) -> None:
    await _chain(db)
    edges = {node.id: (node.parent_id, node.edge) for node in await db.lineage_tree()}
    assert edges == {
        "root": (None, EDGE_ROOT),
        "delegate": ("root", EDGE_OTHER),
        "mid": ("root", EDGE_COMPRESSION),
        "tip": ("mid", EDGE_COMPRESSION),
        "work": (None, EDGE_ROOT),
        "alt": ("work", EDGE_BRANCH),
    }
    assert await db.lineage_chain("tip") == ["root", "mid", "tip"]
    assert await db.lineage_root("alt") == "work"
    assert await db.lineage_root("unknown") == "unknown"
    assert await db.lineage_chain("unknown") == []


async def test_resolve_session_follows_ids_prefixes_titles_and_tips(db: SessionDB) -> None:
    await _chain(db)
    assert await db.resolve_session("root") == "tip"
    assert await db.resolve_session("tip") == "tip"
    assert await db.resolve_session("  [auth work]  ") == "tip"
    assert await db.resolve_session('"work"') == "work"
    assert await db.resolve_session("del") == "delegate"
    assert await db.resolve_session("root", follow_tip=False) == "root"
    with pytest.raises(SessionNotFound, match="no session matches 'nothing'"):
        await db.resolve_session("nothing")
    with pytest.raises(SessionNotFound):
        await db.resolve_session("  ")


async def test_ambiguous_prefix_is_reported_unless_a_title_matches(db: SessionDB) -> None:
    await make_session(db, "20260101_000000_aaaaaa")
    await make_session(db, "20260101_000000_aaaabb")
    with pytest.raises(AmbiguousSession, match="matches several sessions"):
        await db.resolve_session("20260101_000000_aaaa")
    assert await db.resolve_session_id("20260101_000000_aaaa") is None
    assert await db.resolve_session_id("20260101_000000_aaaab") == "20260101_000000_aaaabb"
    assert await db.resolve_session_id("2026%") is None  # wildcards are literal
    await make_session(db, "other", title="20260101_000000_aaaa")
    assert await db.resolve_session("20260101_000000_aaaa") == "other"


async def test_resume_redirects_an_empty_root_to_its_descendant_with_messages(db: SessionDB) -> None:
    await make_session(db, "empty-root")
    await db.end_session("empty-root", "compression")
    await make_session(db, "empty-child", parent_session_id="empty-root")
    await make_session(db, "full-grandchild", parent_session_id="empty-child")
    await db.append_message("full-grandchild", "user", "hello")
    assert await db.resolve_resume_session_id("empty-root") == "full-grandchild"
    assert await db.resolve_resume_session_id("full-grandchild") == "full-grandchild"
    await make_session(db, "alone")
    assert await db.resolve_resume_session_id("alone") == "alone"


async def test_conversation_with_ancestors_concatenates_the_compression_chain(db: SessionDB) -> None:
    await make_session(db, "a")
    await db.append_messages("a", [{"role": "user", "content": "task"}, {"role": "assistant", "content": "done"}])
    await db.end_session("a", "compression")
    await make_session(db, "b", parent_session_id="a")
    await db.append_messages(
        "b",
        [
            {"role": "user", "content": "next"},
            {"role": "user", "content": "next"},
            {"role": "assistant", "content": "ok"},
        ],
    )
    merged = await db.get_messages_as_conversation("b", include_ancestors=True)
    assert [m["content"] for m in merged] == ["task", "done", "next", "ok"]
    assert [m["content"] for m in await db.get_messages_as_conversation("b")] == ["next", "next", "ok"]


async def test_parent_cycles_do_not_hang_lineage_walks(db: SessionDB, db_path: Path) -> None:
    await make_session(db, "x")
    await make_session(db, "y", parent_session_id="x")
    raw_execute(db_path, "UPDATE sessions SET parent_session_id = 'y' WHERE id = 'x'")
    assert set(await db.lineage_chain("x")) == {"x", "y"}
    assert await db.get_compression_tip("x") == "x"
    assert len(await db.lineage_tree()) == 2


async def test_listing_and_tree_follow_writes_from_another_connection(db: SessionDB, db_path: Path) -> None:
    await make_session(db, "mine", title="mine")
    await db.append_message("mine", "user", "first words")
    assert [row["id"] for row in await db.list_sessions_rich()] == ["mine"]
    other = await SessionDB.open(db_path)  # like a Hermes gateway writing to the same file
    try:
        await make_session(other, "theirs", title="theirs")
        await other.append_message("theirs", "user", "their words")
        assert [row["id"] for row in await db.list_sessions_rich()] == ["theirs", "mine"]
        await other.end_session("mine", "compression")
        await make_session(other, "mine-2", parent_session_id="mine", title="mine #2")
        await other.append_message("mine-2", "user", "continued")
        rows = await db.list_sessions_rich()
        assert [(row["id"], row["lineage_root_id"]) for row in rows] == [("mine-2", "mine"), ("theirs", "theirs")]
        tree = {node.id: node for node in await db.lineage_tree()}
        assert tree["mine-2"].edge == EDGE_COMPRESSION and tree["mine-2"].preview == "continued"
        await other.delete_session("theirs")
    finally:
        await other.close()
    assert [row["id"] for row in await db.list_sessions_rich()] == ["mine-2"]


async def test_listing_and_tree_follow_our_own_writes(db: SessionDB) -> None:
    await make_session(db, "a")
    await make_session(db, "b")
    assert [node.preview for node in await db.lineage_tree()] == ["", ""]
    await db.append_message("a", "user", "hello from a")
    assert [row["id"] for row in await db.list_sessions_rich()] == ["a", "b"]
    assert {node.id: node.preview for node in await db.lineage_tree()}["a"] == "hello from a"
    await db.append_message("b", "user", "hello from b")
    assert [row["id"] for row in await db.list_sessions_rich()] == ["b", "a"]
    await db.set_session_title("a", "renamed")
    await db.set_session_archived("b")
    rows = await db.list_sessions_rich()
    assert [(row["id"], row["title"]) for row in rows] == [("a", "renamed")]
    await db.replace_messages("a", [{"role": "user", "content": "rewritten"}])
    assert {node.id: node.preview for node in await db.lineage_tree()}["a"] == "rewritten"


async def test_changes_without_new_rows_from_another_connection_show_at_once(db: SessionDB, db_path: Path) -> None:
    await make_session(db, "keep")
    await make_session(db, "hide")
    assert {node.id for node in await db.lineage_tree()} == {"keep", "hide"}
    assert [row["id"] for row in await db.list_sessions_rich()] == ["hide", "keep"]
    other = await SessionDB.open(db_path)
    try:
        await other.set_session_archived("hide")
        await other.set_session_title("keep", "renamed elsewhere")
    finally:
        await other.close()
    rows = await db.list_sessions_rich()
    assert [(row["id"], row["title"]) for row in rows] == [("keep", "renamed elsewhere")]
    tree = {node.id: node for node in await db.lineage_tree(include_archived=False)}
    assert set(tree) == {"keep"} and tree["keep"].title == "renamed elsewhere"
