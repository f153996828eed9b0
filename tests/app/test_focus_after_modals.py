"""Keys typed after a modal closes are text for the prompt, never a Sessions-tree action (issue 17 item 7).

Closing Compare or Search opened from the Sessions tree used to leave the focus on the tree, whose
one-letter keys act at once: typing `/rollback` + Enter opened a filter, branched and archived. Now
every screen that closes hands the focus to the prompt, and the tree's action keys work only once
focus has moved to it on purpose (Tab, a click). Real app, demo model, real state.db (Pilot).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.command import CommandPalette
from textual.widgets._footer import FooterKey

from hermes_tui.app import HermesApp
from hermes_tui.screens.compare import CompareScreen
from hermes_tui.screens.help import HelpScreen
from hermes_tui.screens.learning import LearningScreen
from hermes_tui.screens.search import SearchScreen
from hermes_tui.screens.session_picker import SessionPickerScreen
from hermes_tui.screens.tree_dialogs import ArchiveScreen, DeleteScreen, RenameScreen
from tests.app.power_data import BRANCH, OTHER, ROOT
from tests.app.test_app import db_rows
from tests.app.test_power_flows import power_app
from tests.app.test_tree_actions import highlight
from tests.tui.helpers import wait_until
from tests.waits import HANG_GUARD_S

SIZE = (130, 44)
TREE_KEYS = {"Rename", "Branch", "Export", "Copy id", "Archive/unarchive", "Delete", "Filter"}


def sessions_state(app: HermesApp) -> list[tuple[Any, ...]]:
    """Every session's id, title and archived flag: what a stray tree key would change."""
    return db_rows(app, "select id, title, archived from sessions order by id")


def answers(app: HermesApp) -> str:
    """The notices and notifications the app has shown."""
    notices = [item.text for item in app.main.conversation.items]
    return "\n".join([*notices, *(notification.message for notification in app._notifications)])


def footer_keys(app: HermesApp) -> set[str]:
    return {key.description for key in app.main.query(FooterKey)}


async def test_typing_after_compare_from_the_tree_goes_to_the_prompt_and_nothing_branches(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        before, current = sessions_state(app), app.agent.session_id
        tree = await highlight(pilot, app, BRANCH)
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), 5, "the picker")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), 5, "the comparison")
        await wait_until(pilot, lambda: app.screen.loaded is not None, 5, "the sessions to load")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main, 5, "back to the main screen")

        await pilot.press(*"/rollback")
        assert app.focused is app.main.prompt and app.main.prompt.value == "/rollback"
        assert not tree.keys_armed and not TREE_KEYS & footer_keys(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: "No checkpoints" in answers(app), 5, "the answer to /rollback")
        await wait_until(pilot, lambda: not app.turns.command_running, 5, "the command to finish")
        assert app.screen is app.main and app.main.prompt.value == ""
        assert not app.main.sessions_pane.filter_input.display  # "/" opened no filter
        assert sessions_state(app) == before  # nothing branched, archived or renamed
        assert app.agent.session_id == current


MODALS: list[tuple[str, str, type, str]] = [
    # (what, the key that opens it from the tree, the screen, the key that closes it)
    ("rename", "r", RenameScreen, "escape"),
    ("delete", "d", DeleteScreen, "n"),
    ("archive", "a", ArchiveScreen, "n"),
    ("search", "ctrl+f", SearchScreen, "escape"),
    ("compare's picker", "f3", SessionPickerScreen, "escape"),
    ("help", "f1", HelpScreen, "escape"),
    ("memory & skills", "f2", LearningScreen, "escape"),
    ("palette", "ctrl+p", CommandPalette, "escape"),
]


async def test_after_any_modal_the_prompt_has_the_focus_and_the_tree_keys_rest(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        before = sessions_state(app)
        for what, opener, screen_type, closer in MODALS:
            tree = await highlight(pilot, app, ROOT)
            await wait_until(pilot, lambda t=tree: t.keys_armed and footer_keys(app) >= TREE_KEYS, 5, f"armed: {what}")
            await pilot.press(opener)
            await wait_until(pilot, lambda t=screen_type: isinstance(app.screen, t), 5, what)
            await pilot.press(closer)
            await wait_until(pilot, lambda: app.screen is app.main, 5, f"{what} closed")
            assert app.focused is app.main.prompt, what
            assert not tree.keys_armed, what
            await pilot.press("b", "a")  # "branch", "archive" on the tree: here, just text
            assert app.main.prompt.value == "ba", what
            app.main.prompt.value = ""
        assert sessions_state(app) == before
        assert not app.turns.command_running


async def test_tab_or_a_click_to_the_tree_arms_its_keys_again(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        tree = await highlight(pilot, app, OTHER)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), 5, "the help")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.focused is app.main.prompt, 5, "the prompt")
        for _ in range(10):  # Tab along the panes until the tree has the focus
            if app.focused is tree:
                break
            await pilot.press("tab")
        assert app.focused is tree
        await wait_until(pilot, lambda: tree.keys_armed and footer_keys(app) >= TREE_KEYS, 5, "the keys armed")
        await pilot.press("c")
        await wait_until(pilot, lambda: app.clipboard == tree.highlighted_session().id, 5, "the id copied")

        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), 5, "the help again")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.focused is app.main.prompt, 5, "the prompt again")
        await pilot.click(tree)
        await wait_until(pilot, lambda: app.focused is tree and tree.keys_armed, 5, "the click to arm the tree")
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, ArchiveScreen), 5, "the archive question")
