"""SVG snapshots of the power-user screens: search, compare, compression inspector, session picker.

Each screen runs over a real state.db (tests/app/power_data.py: fixed ids and timestamps) in a host
app with the real stylesheet; the search screen's clock is fixed, so ages draw the same every run.
Regenerate with `pytest tests/tui/test_power_snapshots.py --snapshot-update` and look at each SVG.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen

from hermes_tui.screens.compare import CompareScreen
from hermes_tui.screens.compression_inspector import CompressionInspectorScreen
from hermes_tui.screens.main import STYLES_PATH
from hermes_tui.screens.search import SearchScreen
from hermes_tui.screens.session_picker import SessionPickerScreen
from hermes_tui.store.db import SessionDB
from tests.app.power_data import BRANCH, CHILD, ROOT, build_power_home

from .helpers import disable_cursor_blink, fixed_wall_clock, wait_until


class PowerHost(App[Any]):
    """A plain background with one power-user screen pushed over it; owns the database."""

    CSS_PATH = STYLES_PATH

    def __init__(self, home_root: Path) -> None:
        super().__init__()
        self.home_root = home_root
        self.db: SessionDB | None = None

    async def open_db(self) -> SessionDB:
        home = await build_power_home(self.home_root)
        self.db = await SessionDB.open(home.state_db)
        return self.db

    async def on_unmount(self) -> None:
        if self.db is not None:
            await self.db.close()


def _snap(snap_compare: Any, tmp_path: Path, make: Any, ready: Any, size: tuple[int, int] = (110, 34)) -> bool:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, PowerHost)
        db = await app.open_db()
        screen: Screen[Any] = await make(db)
        app.push_screen(screen)
        await wait_until(pilot, lambda: ready(screen), 10, "the screen's data")
        disable_cursor_blink(app)
        await pilot.pause()

    return snap_compare(PowerHost(tmp_path / "home"), terminal_size=size, run_before=run_before)


def test_search_screen(snap_compare: Any, tmp_path: Path) -> None:
    async def make(db: SessionDB) -> Screen[Any]:
        return SearchScreen(db, "platypus", clock=fixed_wall_clock)

    assert _snap(snap_compare, tmp_path, make, lambda s: s.shown_query == "platypus")


def test_compare_screen(snap_compare: Any, tmp_path: Path) -> None:
    async def make(db: SessionDB) -> Screen[Any]:
        return CompareScreen(db, ROOT, BRANCH)

    assert _snap(snap_compare, tmp_path, make, lambda s: s.loaded is not None)


def test_compression_inspector(snap_compare: Any, tmp_path: Path) -> None:
    async def make(db: SessionDB) -> Screen[Any]:
        return CompressionInspectorScreen(db, CHILD)

    assert _snap(snap_compare, tmp_path, make, lambda s: s.details is not None)


def test_session_picker(snap_compare: Any, tmp_path: Path) -> None:
    async def make(db: SessionDB) -> Screen[Any]:
        nodes = await db.lineage_tree()
        return SessionPickerScreen(nodes, BRANCH, "A: pick a database (sqlite) — choose B")

    assert _snap(snap_compare, tmp_path, make, lambda s: bool(s.shown), size=(100, 24))


@pytest.mark.parametrize("size", [(80, 24)])
def test_search_screen_small_terminal(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    async def make(db: SessionDB) -> Screen[Any]:
        return SearchScreen(db, "platypus", clock=fixed_wall_clock)

    assert _snap(snap_compare, tmp_path, make, lambda s: s.shown_query == "platypus", size=size)
