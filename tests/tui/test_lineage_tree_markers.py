"""The Sessions tree draws Hermes's marked children as their own kinds: ⇢ a delegation, ↺ a reset,
⑂ a branch — and the ◆ tip stays on the compression chain's real continuation (a real state.db)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.style import Style

from hermes_tui.store.db import SessionDB
from hermes_tui.widgets.lineage_tree import LineageTree
from tests.hermes_v21 import BRANCH, CHAIN_TIP, v21_copy

from .helpers import HostApp, fixed_epoch_clock


class TreeHost(HostApp):
    def __init__(self, **options: Any) -> None:
        super().__init__(lambda: [LineageTree(id="lineage", clock=fixed_epoch_clock, **options)])


def label(tree: LineageTree, session_id: str) -> str:
    tree_node = tree.tree_node_for(session_id)
    assert tree_node is not None, f"{session_id} is not in the tree"
    return tree.render_label(tree_node, Style(), Style()).plain


async def test_delegation_reset_and_hermes_branch_rows(tmp_path: Path) -> None:
    db = await SessionDB.open(v21_copy(tmp_path))
    try:
        await db.create_session("p", "cli", title="plan the move")
        await db.end_session("p", "compression")
        await db.create_session("p_a", "cli", parent_session_id="p", title="plan the move #2")
        reset, delegation = {"_reset_from": "p"}, {"_delegate_from": "p"}
        await db.create_session("p_r", "cli", parent_session_id="p", title="fresh start", model_config=reset)
        await db.create_session("p_d", "tool", parent_session_id="p", title="list tables", model_config=delegation)
        nodes = await db.lineage_tree()
    finally:
        await db.close()
    app = TreeHost()
    async with app.run_test(size=(120, 30)) as pilot:
        tree = app.query_one(LineageTree)
        tree.set_nodes(nodes, "p_a")
        for session_id in ("p_r", "p_d", BRANCH):
            tree.reveal(session_id)
        await pilot.pause()
        assert "⇣ #2 plan the move #2" in label(tree, "p_a") and "◆tip" in label(tree, "p_a")
        assert "↺ fresh start" in label(tree, "p_r") and "◆" not in label(tree, "p_r")
        assert "⇢ list tables" in label(tree, "p_d") and "◆" not in label(tree, "p_d")
        assert "⑂ pick a database (postgres" in label(tree, BRANCH)
        assert "⇣ #2 pick a database #2" in label(tree, CHAIN_TIP)
