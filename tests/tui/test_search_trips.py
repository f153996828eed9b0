"""Search as you type makes one trip to the store's thread per search, however much it reads.

On a busy machine every trip is two waits for a core, so a keystroke's search must not add a trip
per statement (it runs several: the matches, the lineages, the hits, the snippets, the titles).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App

from hermes_tui.screens.main import STYLES_PATH
from hermes_tui.screens.search import SearchScreen
from hermes_tui.store.db import SessionDB
from tests.app.power_data import build_power_home

from .helpers import fixed_wall_clock, wait_until


class SearchHost(App[Any]):
    CSS_PATH = STYLES_PATH


async def test_each_typed_query_is_one_trip_to_the_store(tmp_path: Path) -> None:
    home = await build_power_home(tmp_path / "home")
    db = await SessionDB.open(home.state_db)
    app = SearchHost()
    try:
        async with app.run_test(size=(110, 34)) as pilot:
            screen = SearchScreen(db, clock=fixed_wall_clock)
            app.push_screen(screen)
            await wait_until(pilot, lambda: screen.shown_query == "", 10, "the empty search")
            typed = ""
            for key in "platypus":
                searches, hops = screen.searches_run, db.store_hops
                await pilot.press(key)
                typed += key
                await wait_until(pilot, lambda t=typed: screen.shown_query == t, 10, f"results for {typed!r}")
                ran = screen.searches_run - searches
                assert db.store_hops - hops == ran, f"{db.store_hops - hops} trips for {ran} search(es) of {typed!r}"
            assert screen.searches_run >= len(typed) - 2 and screen.rows  # searched as typed; found its lineage
    finally:
        await db.close()
