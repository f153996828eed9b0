"""The Sessions tree driven from the keyboard in the real app (Pilot, real Agent with the demo model,
real state.db): the preview, rename, branch, export, copy id, archive, delete, filter, expand/collapse."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from textual.widgets._footer import FooterKey

from hermes_tui.app import HermesApp
from hermes_tui.screens.help import help_key_sections
from hermes_tui.screens.main import MainScreen
from hermes_tui.screens.tree_dialogs import ArchiveScreen, DeleteScreen, RenameScreen
from hermes_tui.store.models import EDGE_BRANCH, EDGE_ROOT
from hermes_tui.widgets.lineage_tree import LineageTree
from tests.app.power_data import BRANCH, CHILD, CJK, DEEP, HOSTILE, OTHER, PARENT, ROOT
from tests.app.test_app import db_rows, submit, wait_turn
from tests.app.test_power_flows import power_app
from tests.tui.helpers import screen_text, wait_until, widget_text
from tests.waits import HANG_GUARD_S

SIZE = (130, 44)


def notified(app: HermesApp) -> list[str]:
    return [notification.message for notification in app._notifications]


async def highlight(pilot, app: HermesApp, session_id: str) -> LineageTree:
    """Focus the tree and put its cursor on `session_id` (building the path to it)."""
    tree = app.main.lineage
    tree.focus()
    tree.reveal(session_id)
    await wait_until(pilot, lambda: tree.cursor_node is tree.tree_node_for(session_id), 5, f"{session_id} highlighted")
    return tree


def shown_ids(tree: LineageTree) -> set[str]:
    """The sessions with a row the user can see (every ancestor expanded)."""
    shown: set[str] = set()
    stack = list(tree.root.children)
    while stack:
        row = stack.pop()
        if row.data is not None and row.data.session is not None:
            shown.add(row.data.session.id)
        if row.is_expanded:
            stack.extend(row.children)
    return shown


async def test_the_preview_follows_the_cursor_with_first_and_last_user_message(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        preview = app.main.tree_preview
        assert not preview.display or not app.main.sessions_pane.has_class("-active")  # hidden until the tree is used
        await highlight(pilot, app, PARENT)
        await wait_until(pilot, lambda: PARENT in widget_text(app, preview), 5, "the preview of the parent")
        text = widget_text(app, preview)
        assert "rodents" in text
        assert "first “tell me about animals”" in text and "last  “and beavers?”" in text
        assert "8 msgs · 0 in / 0 out tokens" in text and "ended" in text and "· compression" in text
        assert "#1 of 2 in its compression chain" in text

        await highlight(pilot, app, CHILD)
        await wait_until(pilot, lambda: CHILD in widget_text(app, preview), 5, "the preview to follow")
        assert "#2 of 2 in its compression chain" in widget_text(app, preview)

        # Holding ↓: one read once the cursor rests, not one per row (a roomy debounce: a loaded
        # machine must not turn the key repeat into pauses).
        tree = app.main.lineage
        tree.action_expand_all()
        await pilot.pause()
        preview.debounce_s = 0.5
        reads = preview.reads
        for _ in range(6):
            tree.action_cursor_down()
        await pilot.pause()
        resting = tree.highlighted_session()
        assert resting is not None
        await wait_until(pilot, lambda: preview.shown_id == resting.id, 5, "the preview of where the cursor rests")
        assert preview.reads - reads == 1, preview.reads - reads


async def test_rename_refuses_a_title_in_use_with_one_line_and_renames_otherwise(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await highlight(pilot, app, OTHER)
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, RenameScreen), 5, "the rename dialog")
        field = app.screen.query_one("#rename-input")
        assert field.value == "animal facts"
        field.value = "rodents"  # PARENT's title
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("Not renamed" in n for n in notified(app)), 5, "the refusal")
        refusal = next(n for n in notified(app) if "Not renamed" in n)
        assert "\n" not in refusal and "already in use" in refusal and PARENT in refusal
        assert db_rows(app, "select title from sessions where id = ?", OTHER) == [("animal facts",)]
        assert app.focused is app.main.prompt  # back from the dialog: the prompt, not the tree

        await highlight(pilot, app, OTHER)
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, RenameScreen), 5, "the rename dialog again")
        app.screen.query_one("#rename-input").value = "  animal   trivia "
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.main.lineage.session(OTHER).title == "animal trivia", 5, "the new title")
        assert db_rows(app, "select title from sessions where id = ?", OTHER) == [("animal trivia",)]
        assert "animal trivia" in widget_text(app, app.main.lineage)


async def test_delete_says_what_happens_to_the_children_and_does_it(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        tree = await highlight(pilot, app, ROOT)
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, DeleteScreen), 5, "the confirmation")
        dialog_text = app.screen.text
        assert f"Delete “pick a database” ({ROOT})?" in dialog_text
        assert "Its 4 messages are removed from state.db" in dialog_text
        assert "Its 1 child session stays and become top-level sessions" in dialog_text
        assert "⑂ pick a database (sqlite)" in dialog_text
        await pilot.press("n")  # cancel: nothing happens
        await wait_until(pilot, lambda: app.screen is app.main, 5, "back")
        assert db_rows(app, "select count(*) from sessions where id = ?", ROOT) == [(1,)]
        assert app.focused is app.main.prompt

        await highlight(pilot, app, ROOT)
        await pilot.press("delete")
        await wait_until(pilot, lambda: isinstance(app.screen, DeleteScreen), 5, "the confirmation again")
        await pilot.press("y")
        await wait_until(pilot, lambda: tree.session(ROOT) is None, 5, "the row to go")
        assert db_rows(app, "select count(*) from sessions where id = ?", ROOT) == [(0,)]
        assert db_rows(app, "select count(*) from messages where session_id = ?", ROOT) == [(0,)]
        assert db_rows(app, "select parent_session_id from sessions where id = ?", BRANCH) == [(None,)]
        assert db_rows(app, "select count(*) from state_meta where key like ?", f"%:{ROOT}") == [(0,)]
        branch = tree.session(BRANCH)
        assert branch is not None and branch.parent_id is None and branch.edge == EDGE_ROOT
        assert tree.tree_node_for(BRANCH) in list(tree.root.children)  # now a top-level row
        assert any("Deleted “pick a database”" in n and "now top-level" in n for n in notified(app))


async def test_the_session_you_are_in_cannot_be_deleted(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await submit(pilot, app, "hello")
        await wait_turn(pilot, app)
        await app.sessions_tree.refresh()
        current = app.agent.session_id
        await highlight(pilot, app, current)
        await pilot.press("d")
        await wait_until(pilot, lambda: any("session you are in" in n for n in notified(app)), 5, "the refusal")
        assert not isinstance(app.screen, DeleteScreen)
        assert db_rows(app, "select count(*) from sessions where id = ?", current) == [(1,)]


async def test_filter_as_you_type_keeps_matches_with_their_ancestors(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        tree = await highlight(pilot, app, OTHER)
        everything = shown_ids(tree)
        await pilot.press("slash")
        pane = app.main.sessions_pane
        await wait_until(pilot, lambda: app.focused is pane.filter_input, 5, "the filter line")
        await pilot.press(*"#2")  # only the compression continuation "rodents #2" matches…
        await wait_until(pilot, lambda: tree.filter_query == "#2", 5, "the filter")
        assert {PARENT, CHILD} <= shown_ids(tree)  # …shown under its parent
        assert not shown_ids(tree) & {OTHER, ROOT, BRANCH, DEEP, CJK, HOSTILE}
        assert tree.match_count == 1 and tree.border_subtitle == "1 match"

        await pilot.press("escape")
        await wait_until(pilot, lambda: app.focused is tree and tree.filter_query == "", 5, "the filter cleared")
        assert not pane.filter_input.display
        assert everything <= shown_ids(tree)

        for query, expected in (("数据", CJK), ("[b]bold", HOSTILE), ("PICK A", ROOT)):
            await pilot.press("slash")
            await wait_until(pilot, lambda: app.focused is pane.filter_input, 5, "the filter line")
            await pilot.press(*query)
            await wait_until(pilot, lambda q=query: tree.filter_query == q, 5, f"filtering by {query}")
            assert expected in shown_ids(tree), query
            assert OTHER not in shown_ids(tree)
            await pilot.press("enter")  # back to the tree, the filter kept
            await wait_until(pilot, lambda: app.focused is tree, 5, "back to the tree")
            assert tree.filter_query == query
            pane.close_filter(clear=True)
        assert "[b]bold[/b]" in widget_text(app, tree)  # the hostile title is text, not markup


async def test_children_are_built_on_expand_and_expand_all_collapse_all(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        tree = await highlight(pilot, app, PARENT)
        assert tree.tree_node_for(CHILD) is None  # not built until its parent opens
        await pilot.press("space")
        await wait_until(pilot, lambda: tree.tree_node_for(CHILD) is not None, 5, "the child row")
        assert CHILD in shown_ids(tree)

        await pilot.press("minus")
        await wait_until(pilot, lambda: CHILD not in shown_ids(tree), 5, "everything collapsed")
        assert tree.highlighted_session().id == PARENT
        assert tree.tree_node_for(BRANCH) is None
        await pilot.press("plus")
        await wait_until(pilot, lambda: {CHILD, BRANCH} <= shown_ids(tree), 5, "everything expanded")


async def test_archive_hides_the_session_until_shown_and_unarchive_brings_it_back(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        tree = await highlight(pilot, app, OTHER)
        await pilot.press("a")  # asks first
        await wait_until(pilot, lambda: isinstance(app.screen, ArchiveScreen), 5, "the archive question")
        assert f"Archive “animal facts” ({OTHER})?" in app.screen.text and "nothing is deleted" in app.screen.text
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is app.main, 5, "back")
        assert db_rows(app, "select archived from sessions where id = ?", OTHER) == [(0,)]
        assert tree.tree_node_for(OTHER) is not None

        await highlight(pilot, app, OTHER)
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, ArchiveScreen), 5, "the archive question again")
        await pilot.press("y")
        await wait_until(pilot, lambda: tree.tree_node_for(OTHER) is None, 5, "the archived row to hide")
        assert db_rows(app, "select archived from sessions where id = ?", OTHER) == [(1,)]
        assert any("Archived “animal facts”" in n and "Shift+A" in n for n in notified(app))
        listed = {row["id"] for row in await app.db.list_sessions_rich(limit=None)}
        assert OTHER not in listed  # Hermes's listings leave it out too

        tree.focus()
        await pilot.press("A")
        await wait_until(pilot, lambda: "archived" in widget_text(app, tree), 5, "archived sessions shown")
        await highlight(pilot, app, OTHER)
        await pilot.press("a")  # unarchiving asks nothing
        await wait_until(
            pilot, lambda: db_rows(app, "select archived from sessions where id = ?", OTHER) == [(0,)], 5, "unarchive"
        )
        await pilot.press("A")
        await wait_until(pilot, lambda: not tree.show_archived, 5, "archived hidden again")
        assert tree.tree_node_for(OTHER) is not None  # no longer archived: still there


async def test_export_writes_the_session_to_the_cwd_and_copy_id_fills_the_clipboard(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await highlight(pilot, app, PARENT)
        await pilot.press("e")
        target = app.cwd / f"hermes-{PARENT}.json"
        await wait_until(pilot, target.exists, 5, "the export file")
        document = json.loads(target.read_text(encoding="utf-8"))
        assert document["sessions"][0]["id"] == PARENT and len(document["sessions"][0]["messages"]) == 8
        await wait_until(pilot, lambda: any(f"Saved session {PARENT} (8 messages)" in n for n in notified(app)), 5, "")
        await pilot.press("e")  # never overwrites
        await wait_until(pilot, lambda: any("exists already" in n for n in notified(app)), 5, "the refusal")

        await pilot.press("c")
        await wait_until(pilot, lambda: app.clipboard == PARENT, 5, "the id on the clipboard")
        assert any(f"Copied session id {PARENT}" in n for n in notified(app))


async def test_branch_from_the_tree_resumes_that_session_and_branches_it(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        tree = await highlight(pilot, app, OTHER)
        await pilot.press("b")
        await wait_until(
            pilot, lambda: app.agent.session.parent_id == OTHER and not app.turns.command_running, 10, "the branch"
        )
        branch = app.agent.session_id
        assert app.agent.session.title == "animal facts #2"
        await wait_until(pilot, lambda: tree.session(branch) is not None, 5, "the branch in the tree")
        node = tree.session(branch)
        assert node.edge == EDGE_BRANCH and node.parent_id == OTHER
        assert "⑂ animal facts #2" in widget_text(app, tree)
        assert db_rows(app, "select end_reason from sessions where id = ?", OTHER) == [("branched",)]
        assert app.main.status_bar.session_title == "animal facts #2"


async def test_branch_resume_the_parent_and_branch_again_keeps_both_branch_marks(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await submit(pilot, app, "hello")
        await wait_turn(pilot, app)
        parent = app.agent.session_id
        await submit(pilot, app, "/branch first")
        await wait_until(
            pilot, lambda: app.agent.session_id != parent and not app.turns.command_running, 10, "branch 1"
        )
        first = app.agent.session_id
        await submit(pilot, app, f"/resume {parent}")
        await wait_until(pilot, lambda: app.agent.session_id == parent and not app.turns.command_running, 10, "resume")
        await submit(pilot, app, "and one more thing")
        await wait_turn(pilot, app)
        await submit(pilot, app, "/branch second")
        await wait_until(
            pilot, lambda: app.agent.session_id != parent and not app.turns.command_running, 10, "branch 2"
        )
        second = app.agent.session_id
        tree = app.main.lineage
        await wait_until(pilot, lambda: tree.session(second) is not None, 5, "the second branch in the tree")
        tree.reveal(first, move_cursor=False)
        await pilot.pause()
        text = widget_text(app, tree)
        assert "⑂ first" in text and "⑂ second" in text
        first_node, second_node = tree.session(first), tree.session(second)
        assert first_node.edge == second_node.edge == EDGE_BRANCH
        assert first_node.branch_point is not None and second_node.branch_point is not None
        assert first_node.branch_point < second_node.branch_point  # each its own branch point


async def test_the_tree_keys_are_in_the_footer_when_it_has_focus_and_in_the_help(tmp_path: Path) -> None:
    wanted = {"Rename", "Branch", "Export", "Copy id", "Archive/unarchive", "Delete", "Filter"}
    sessions = next(section for section in help_key_sections([MainScreen]) if section.title == "In Sessions")
    described = {row.description for row in sessions.rows}
    assert wanted | {"Show archived", "Expand all", "Collapse all"} <= described
    app = await power_app(tmp_path)
    async with app.run_test(size=(160, 44)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        footer = lambda: {key.description for key in app.main.query(FooterKey)}  # noqa: E731
        assert not wanted & footer()  # the prompt has focus: not the tree's keys
        await highlight(pilot, app, OTHER)
        await wait_until(pilot, lambda: wanted <= footer(), 5, "the tree's keys in the footer")
        await wait_until(pilot, lambda: "Filter" in screen_text(app), 5, "the footer drawn with the tree's keys")
