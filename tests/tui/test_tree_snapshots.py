"""SVG snapshots of the Sessions tree with the preview of its highlighted session, at 120x40 and 80x24.

The sessions come from a real state.db (tests/app/power_data.py, fixed ids and times); the
preview reads it through `SessionDB.session_preview`. Clocks are fixed and dates shown in UTC,
so every run draws the same. Generate with `pytest tests/tui/test_tree_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot

from hermes_tui.screens.main import STYLES_PATH, MainScreen
from hermes_tui.store.db import SessionDB
from tests.app.power_data import PARENT, build_power_home

from .helpers import disable_cursor_blink, fixed_epoch_clock, fixed_wall_clock, wait_until


class TreeSnapshotApp(App[Any]):
    """The main screen with the sessions of a real state.db; the database closes with the app."""

    CSS_PATH = STYLES_PATH

    def __init__(self, home_root: Path) -> None:
        super().__init__()
        self.home_root = home_root
        self.db: SessionDB | None = None

    def on_mount(self) -> None:
        self.push_screen(MainScreen(wall_clock=fixed_wall_clock, epoch_clock=fixed_epoch_clock))

    async def on_unmount(self) -> None:
        if self.db is not None:
            await self.db.close()


async def show_tree_with_preview(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, TreeSnapshotApp)
    home = await build_power_home(app.home_root)
    app.db = await SessionDB.open(home.state_db)
    await pilot.pause()
    main = app.screen
    assert isinstance(main, MainScreen)
    main.status_bar.set_provider("demo", "hermes-demo")
    main.status_bar.set_session(PARENT, "rodents")
    main.review_log.add_entry("rotation", "session continues as d00006")
    main.tree_preview.loader = app.db.session_preview
    main.tree_preview.zone = UTC
    main.lineage.set_nodes(await app.db.lineage_tree(), None)
    main.lineage.focus()
    main.lineage.reveal(PARENT)
    await wait_until(pilot, lambda: main.tree_preview.shown_id == PARENT, 5, "the preview")
    disable_cursor_blink(app)
    await pilot.pause()


@pytest.mark.parametrize("size", [(120, 40), (90, 24)])  # narrower, the side panel folds by itself
def test_sessions_tree_with_its_preview(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    assert snap_compare(TreeSnapshotApp(tmp_path / "home"), terminal_size=size, run_before=show_tree_with_preview)
