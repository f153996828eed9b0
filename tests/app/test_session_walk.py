"""Issue 21 item 7 in the real app (Pilot, real Agent, real state.db): where the Sessions tree opens,
the lineage's compression count and token history, clicks in the tree, the side panel folding at
80×24, replay from the TUI, and the first screen's hints."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.config import Settings
from hermes_tui.widgets.lineage_tree import LineageTree
from tests.app.power_data import BRANCH, CHILD, OTHER, PARENT, ROOT, build_power_home
from tests.app.test_app import DEMO, submit
from tests.app.test_tree_actions import shown_ids
from tests.core.helpers import background_work
from tests.tui.helpers import wait_until

SIZE = (130, 44)


async def power_app_resuming(tmp_path: Path, resume: str | None) -> HermesApp:
    """The app over the power home (tests/app/power_data.py), opening `resume` if given."""
    home = await build_power_home(tmp_path / "home")
    settings = background_work(Settings(), auto_title=False, review=False)
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    return HermesApp(home=home, settings=settings, choice=DEMO, cwd=project, resume=resume)


def expanded(tree: LineageTree, session_id: str) -> bool:
    row = tree.tree_node_for(session_id)
    return row is not None and row.is_expanded


async def test_the_current_lineage_opens_expanded_with_the_cursor_on_it(tmp_path: Path) -> None:
    app = await power_app_resuming(tmp_path, ROOT)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), 10)
        tree = app.main.lineage
        assert app.agent.session_id == ROOT
        await wait_until(pilot, lambda: tree.cursor_node is tree.tree_node_for(ROOT), 5, "the cursor on ROOT")
        # its branch is in view without expanding anything; other lineages stay closed
        assert expanded(tree, ROOT) and BRANCH in shown_ids(tree)
        assert not expanded(tree, PARENT) and CHILD not in shown_ids(tree)

        await submit(pilot, app, f"/resume {PARENT}")  # followed to its compression tip
        await wait_until(pilot, lambda: app.agent.session_id == CHILD, 10, "the resume")
        await wait_until(pilot, lambda: tree.cursor_node is tree.tree_node_for(CHILD), 5, "the cursor on CHILD")
        assert expanded(tree, PARENT) and CHILD in shown_ids(tree) and OTHER in shown_ids(tree)
