"""Newer Hermes's edge markers in sessions.model_config: `_branched_from`, `_delegate_from`,
`_reset_from` — each its own edge kind, none of them ever a compression chain's tip — on the
state.db today's Hermes wrote and on sessions marked that way by hand."""

from __future__ import annotations

import json
from pathlib import Path

from hermes_tui.store.db import SessionDB
from hermes_tui.store.edges import child_model_config
from hermes_tui.store.models import EDGE_BRANCH, EDGE_COMPRESSION, EDGE_DELEGATE, EDGE_RESET
from tests.hermes_v21 import BRANCH, CHAIN_ROOT, CHAIN_TIP, v21_copy


async def test_a_branch_hermes_made_is_a_branch_after_its_parent_was_re_ended(tmp_path: Path) -> None:
    db = await SessionDB.open(v21_copy(tmp_path))
    try:
        edges = {node.id: node.edge for node in await db.lineage_tree()}
        assert edges[BRANCH] == EDGE_BRANCH  # its parent ended "tui_shutdown", not "branched"
        assert edges[CHAIN_TIP] == EDGE_COMPRESSION
        listed = [row["id"] for row in await db.list_sessions_rich()]
        assert BRANCH in listed and CHAIN_TIP in listed  # branches are listed, as Hermes lists them
        assert await db.get_compression_tip(CHAIN_ROOT) == CHAIN_TIP
    finally:
        await db.close()


async def _chain_with_marked_siblings(db: SessionDB) -> None:
    """p ended "compression" -> p_a its continuation; then, later, a reset and a delegation of p."""
    await db.create_session("p", "cli", title="plan the move")
    await db.append_message("p", "user", "plan the move to postgres")
    await db.end_session("p", "compression")
    await db.create_session("p_a", "cli", parent_session_id="p", title="plan the move #2")
    await db.append_message("p_a", "user", "go on with the plan")
    await db.create_session("p_r", "cli", parent_session_id="p", model_config={"_reset_from": "p"})
    await db.append_message("p_r", "user", "start over, keep the chain")
    await db.create_session("p_d", "tool", parent_session_id="p", model_config={"_delegate_from": "p", "x": 1})
    await db.append_message("p_d", "user", "subagent: list the tables")


async def test_delegation_and_reset_children_are_their_own_kinds_and_never_the_tip(db: SessionDB) -> None:
    await _chain_with_marked_siblings(db)
    edges = {node.id: node.edge for node in await db.lineage_tree()}
    assert (edges["p_a"], edges["p_r"], edges["p_d"]) == (EDGE_COMPRESSION, EDGE_RESET, EDGE_DELEGATE)
    assert await db.get_compression_tip("p") == "p_a"
    assert await db.resolve_session("plan the move") == "p_a"
    first = (await db.list_sessions_rich(limit=1))[0]
    assert first["id"] == "p_a" and first["lineage_root_id"] == "p"  # the chain is shown as its real tip
    everything = {row["id"]: row for row in await db.list_sessions_rich(limit=None)}
    assert everything["p_a"]["lineage_root_id"] == "p"
    one = await db.lineage_node("p_r")
    assert one is not None and one.edge == EDGE_RESET


async def test_a_marker_naming_another_parent_is_ignored(db: SessionDB) -> None:
    await db.create_session("a", "cli")
    await db.create_session("b", "cli", parent_session_id="a", model_config={"_branched_from": "someone else"})
    await db.create_session("c", "cli", parent_session_id="a", model_config="{not json _from")
    edges = {node.id: node.edge for node in await db.lineage_tree()}
    assert edges["b"] == edges["c"] == "other"


def test_a_child_config_keeps_the_settings_and_marks_only_a_branch() -> None:
    parent = json.dumps({"max_iterations": 90, "_branched_from": "grandparent", "_delegate_from": "boss"})
    branch = json.loads(child_model_config(parent, EDGE_BRANCH, "parent") or "")
    assert branch == {"max_iterations": 90, "_branched_from": "parent", "_delegate_from": "boss"}
    continuation = json.loads(child_model_config(parent, EDGE_COMPRESSION, "parent") or "")
    assert continuation == {"max_iterations": 90, "_delegate_from": "boss"}
    assert json.loads(child_model_config(None, EDGE_BRANCH, "p") or "") == {"_branched_from": "p"}
    assert child_model_config(None, EDGE_COMPRESSION, "p") is None
