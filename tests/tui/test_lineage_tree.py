"""LineageTree: structure from parent ids, typed edges, the current session, tips, laziness, choosing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rich.style import Style
from textual.widgets.tree import TreeNode

from hermes_tui.store.models import EDGE_BRANCH, EDGE_COMPRESSION, EDGE_OTHER, EDGE_ROOT
from hermes_tui.widgets.lineage_tree import LineageEntry, LineageTree

from .helpers import FIXED_EPOCH, HostApp, fixed_epoch_clock, wait_until
from .sample_data import (
    AUTH_2,
    AUTH_3,
    AUTH_ROOT,
    DB_BRANCH,
    DB_ROOT,
    LOOSE,
    REVIEW_FORK,
    node,
    sample_lineage,
)


class TreeHost(HostApp):
    def __init__(self, **options: Any) -> None:
        super().__init__(lambda: [LineageTree(id="lineage", clock=fixed_epoch_clock, **options)])
        self.chosen: list[str] = []

    def on_lineage_tree_session_chosen(self, message: LineageTree.SessionChosen) -> None:
        self.chosen.append(message.session_id)


def label(tree: LineageTree, session_id: str) -> str:
    tree_node = tree.tree_node_for(session_id)
    assert tree_node is not None, f"{session_id} is not in the tree"
    return tree.render_label(tree_node, Style(), Style()).plain


def session_ids(nodes: list[TreeNode[LineageEntry]]) -> list[str]:
    return [n.data.session.id for n in nodes if n.data is not None and n.data.session is not None]


async def test_the_tree_follows_parent_ids_with_roots_newest_first() -> None:
    app = TreeHost()
    async with app.run_test(size=(100, 30)) as pilot:
        tree = app.query_one(LineageTree)
        tree.set_nodes(sample_lineage(), AUTH_3)
        await pilot.pause()
        assert session_ids(list(tree.root.children)) == [LOOSE, DB_ROOT, AUTH_ROOT]
        auth_root = tree.tree_node_for(AUTH_ROOT)
        auth_2 = tree.tree_node_for(AUTH_2)
        assert auth_root is not None and auth_2 is not None
        assert session_ids(list(auth_root.children)) == [AUTH_2]
        assert session_ids(list(auth_2.children)) == [AUTH_3]


async def test_edges_are_drawn_by_kind_with_the_compression_number() -> None:
    app = TreeHost()
    async with app.run_test(size=(120, 30)) as pilot:
        tree = app.query_one(LineageTree)
        tree.set_nodes(sample_lineage(), DB_BRANCH)
        tree.reveal(AUTH_3)
        await pilot.pause()
        assert "⇣ #2 refactor auth #2" in label(tree, AUTH_2)
        assert "⇣ #3 refactor auth #3" in label(tree, AUTH_3)
        assert "⑂ pick a database (postgres b…" in label(tree, DB_BRANCH)
        assert "↳ background review" in label(tree, REVIEW_FORK)
        root_label = label(tree, AUTH_ROOT)
        assert "⇣" not in root_label and "⑂" not in root_label and "↳" not in root_label
        # edge kinds are styled differently
        colours = set()
        for session_id, glyph in ((AUTH_2, "⇣"), (DB_BRANCH, "⑂"), (REVIEW_FORK, "↳")):
            text = tree.render_label(tree.tree_node_for(session_id), Style(), Style())  # type: ignore[arg-type]
            colours.add(text.get_style_at_offset(app.console, text.plain.index(glyph)).color)
        assert len(colours) == 3


async def test_labels_show_short_id_message_count_and_relative_age() -> None:
    app = TreeHost()
    async with app.run_test(size=(120, 30)) as pilot:
        tree = app.query_one(LineageTree)
        tree.set_nodes(sample_lineage(), None)
        await pilot.pause()
        assert label(tree, AUTH_ROOT).endswith("refactor auth  0e10db · 16 msgs · 1h")
        assert label(tree, LOOSE).endswith("what is the capital of Fran…  95d92f · 4 msgs · now")


async def test_the_current_session_is_marked_its_ancestors_expanded_and_the_cursor_on_it() -> None:
    app = TreeHost()
    async with app.run_test(size=(120, 30)) as pilot:
        tree = app.query_one(LineageTree)
        tree.set_nodes(sample_lineage(), AUTH_3)
        await wait_until(pilot, lambda: tree.cursor_node is tree.tree_node_for(AUTH_3), what="cursor on current")
        assert "● ⇣ #3" in label(tree, AUTH_3)
        assert "●" not in label(tree, AUTH_2)
        assert tree.tree_node_for(AUTH_ROOT).is_expanded  # type: ignore[union-attr]
        assert tree.tree_node_for(AUTH_2).is_expanded  # type: ignore[union-attr]
        assert not tree.tree_node_for(DB_ROOT).is_expanded  # type: ignore[union-attr]
        current = tree.render_label(tree.tree_node_for(AUTH_3), Style(), Style())  # type: ignore[arg-type]
        title_at = current.plain.index("refactor auth #3")
        assert current.get_style_at_offset(app.console, title_at).bold


async def test_only_the_newest_session_of_a_compression_chain_is_the_tip() -> None:
    app = TreeHost()
    async with app.run_test(size=(120, 30)) as pilot:
        tree = app.query_one(LineageTree)
        tree.set_nodes(sample_lineage(), AUTH_3)
        await pilot.pause()
        assert "◆tip" in label(tree, AUTH_3)
        assert "◆tip" not in label(tree, AUTH_2)
        assert "◆tip" not in label(tree, AUTH_ROOT)


async def test_children_are_built_only_when_their_parent_is_expanded() -> None:
    app = TreeHost()
    async with app.run_test(size=(120, 30)) as pilot:
        tree = app.query_one(LineageTree)
        tree.set_nodes(sample_lineage(), None)
        await pilot.pause()
        assert tree.tree_node_for(DB_BRANCH) is None
        db_root = tree.tree_node_for(DB_ROOT)
        assert db_root is not None and db_root.allow_expand
        tree.move_cursor(db_root)
        tree.focus()
        await pilot.press("space")
        await wait_until(pilot, lambda: tree.tree_node_for(DB_BRANCH) is not None, what="children of the branch root")
        assert session_ids(list(db_root.children)) == [DB_BRANCH, REVIEW_FORK]


async def test_enter_and_double_click_choose_a_session_a_click_only_moves_the_cursor() -> None:
    app = TreeHost()
    async with app.run_test(size=(120, 30)) as pilot:
        tree = app.query_one(LineageTree)
        tree.set_nodes(sample_lineage(), AUTH_3)
        await wait_until(pilot, lambda: tree.cursor_node is tree.tree_node_for(AUTH_3))
        tree.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.chosen == [AUTH_3], what="SessionChosen on Enter")
        loose = tree.tree_node_for(LOOSE)
        assert loose is not None
        top = tree.content_region.y - tree.region.y
        await pilot.click(LineageTree, offset=(8, top + loose.line - round(tree.scroll_y)))
        await wait_until(pilot, lambda: tree.cursor_node is loose, what="the cursor on the clicked row")
        await pilot.pause()
        assert app.chosen == [AUTH_3]  # one click selects, it does not open
        await pilot.double_click(LineageTree, offset=(8, top + loose.line - round(tree.scroll_y)))
        await wait_until(pilot, lambda: app.chosen == [AUTH_3, LOOSE], what="SessionChosen on a double click")


async def test_thousands_of_sessions_build_a_capped_list_with_a_more_row() -> None:
    sessions = [
        node(f"20260101_000000_{index:06x}", None, EDGE_ROOT, f"session {index}", hours_ago=index, messages=2)
        for index in range(5_000)
    ]
    chain_parent = sessions[4_000].id
    current = node("20260101_000000_ffffff", chain_parent, EDGE_COMPRESSION, "deep", hours_ago=0.1)
    app = TreeHost(root_limit=50)
    async with app.run_test(size=(100, 30)) as pilot:
        tree = app.query_one(LineageTree)
        tree.set_nodes([*sessions, current], current.id)
        await pilot.pause()
        top_level = list(tree.root.children)
        # 50 newest roots, the current session's (old) root, and the "more" row
        assert len(top_level) == 52
        more = top_level[-1]
        assert more.data is not None and more.data.session is None
        assert "… 4949 more sessions" in tree.render_label(more, Style(), Style()).plain
        assert tree.tree_node_for(current.id) is not None
        tree.select_node(more)
        await wait_until(pilot, lambda: len(tree.root.children) == 102, what="the next batch of roots")


def test_compression_numbers_follow_the_chain() -> None:
    tree = LineageTree(clock=lambda: FIXED_EPOCH)
    chain = [node("s_000001", None, EDGE_ROOT, "a", hours_ago=5)]
    for index in range(2, 7):
        chain.append(node(f"s_{index:06d}", chain[-1].id, EDGE_COMPRESSION, "a", hours_ago=5 - index * 0.1))
    branch = node("s_branch", chain[2].id, EDGE_BRANCH, "b", hours_ago=1)
    after_branch = node("s_after", branch.id, EDGE_COMPRESSION, "b", hours_ago=0.5)
    orphan = node("s_orphan", "s_missing", EDGE_COMPRESSION, "c", hours_ago=0.2)
    tree._sessions = {n.id: n for n in [*chain, branch, after_branch, orphan]}
    assert [tree.chain_index(n.id) for n in chain] == [1, 2, 3, 4, 5, 6]
    assert tree.chain_index(branch.id) == 1
    assert tree.chain_index(after_branch.id) == 2
    assert tree.chain_index(orphan.id) == 2


async def test_parent_cycles_and_odd_titles_do_not_hide_or_break_sessions() -> None:
    looped_a = node("20260101_000000_aaaaaa", "20260101_000000_bbbbbb", EDGE_BRANCH, "[bold]a[/", hours_ago=3)
    looped_b = node("20260101_000000_bbbbbb", "20260101_000000_aaaaaa", EDGE_BRANCH, "b", hours_ago=2)
    self_parent = node("20260101_000000_cccccc", "20260101_000000_cccccc", EDGE_OTHER, None, hours_ago=1)
    app = TreeHost()
    async with app.run_test(size=(100, 20)) as pilot:
        tree = app.query_one(LineageTree)
        tree.set_nodes([looped_a, looped_b, self_parent], looped_b.id)
        await wait_until(pilot, lambda: tree.cursor_node is tree.tree_node_for(looped_b.id), what="cursor on b")
        for session in (looped_a, looped_b, self_parent):
            assert tree.tree_node_for(session.id) is not None
        assert "[bold]a[/" in label(tree, looped_a.id)
        assert "(untitled)" in label(tree, self_parent.id)


async def test_a_new_compression_child_joins_its_chain_as_the_tip_without_a_rebuild() -> None:
    app = TreeHost()
    async with app.run_test(size=(120, 30)) as pilot:
        tree = app.query_one(LineageTree)
        tree.set_nodes(sample_lineage(), AUTH_3)
        db_root = tree.tree_node_for(DB_ROOT)
        assert db_root is not None
        db_root.expand()  # the user opened another subtree: an update must not close it
        await pilot.pause()
        auth_4 = node("20261126_235900_abcdef", AUTH_3, EDGE_COMPRESSION, "refactor auth #4", hours_ago=0.01)
        tree.upsert(auth_4)
        tree.set_current(auth_4.id)
        await wait_until(pilot, lambda: tree.cursor_node is tree.tree_node_for(auth_4.id), what="cursor on the child")
        new_row = tree.tree_node_for(auth_4.id)
        assert new_row is not None and new_row.parent is tree.tree_node_for(AUTH_3)
        assert "● ⇣ #4 refactor auth #4" in label(tree, auth_4.id) and "◆tip" in label(tree, auth_4.id)
        assert "◆tip" not in label(tree, AUTH_3) and "●" not in label(tree, AUTH_3)
        assert db_root.is_expanded and tree.tree_node_for(DB_BRANCH) is not None


async def test_the_current_sessions_row_follows_its_count_title_and_activity() -> None:
    app = TreeHost()
    async with app.run_test(size=(120, 30)) as pilot:
        tree = app.query_one(LineageTree)
        tree.set_nodes(sample_lineage(), DB_ROOT)
        await pilot.pause()
        assert session_ids(list(tree.root.children)) == [LOOSE, DB_ROOT, AUTH_ROOT]
        current = tree.session(DB_ROOT)
        assert current is not None
        tree.upsert(replace(current, message_count=6, last_active=FIXED_EPOCH + 600))
        await pilot.pause()
        assert session_ids(list(tree.root.children)) == [DB_ROOT, LOOSE, AUTH_ROOT]  # newest activity first
        assert label(tree, DB_ROOT).endswith("pick a database  90f304 · 6 msgs · now")
        tree.upsert(replace(tree.session(DB_ROOT), title="choose a datastore"))  # type: ignore[arg-type]
        await pilot.pause()
        assert "● choose a datastore" in label(tree, DB_ROOT)


async def test_a_new_root_session_appears_first_and_the_more_row_counts_the_rest() -> None:
    sessions = [
        node(f"20260101_000000_{index:06x}", None, EDGE_ROOT, f"session {index}", hours_ago=index + 1, messages=2)
        for index in range(30)
    ]
    app = TreeHost(root_limit=10)
    async with app.run_test(size=(100, 30)) as pilot:
        tree = app.query_one(LineageTree)
        tree.set_nodes(sessions, sessions[0].id)
        await pilot.pause()
        fresh = node("20260101_000000_ffffff", None, EDGE_ROOT, None, hours_ago=0, messages=0, preview="(new)")
        tree.upsert(fresh)
        tree.set_current(fresh.id)
        await pilot.pause()
        top_level = list(tree.root.children)
        assert session_ids(top_level)[:2] == [fresh.id, sessions[0].id]
        assert len(session_ids(top_level)) == 11
        more = top_level[-1]
        assert more.data is not None and more.data.session is None
        assert "… 20 more sessions" in tree.render_label(more, Style(), Style()).plain
        assert "● (new)" in label(tree, fresh.id)
