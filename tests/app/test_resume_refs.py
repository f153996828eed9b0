"""`hermes-tui --resume REF` in the TUI: the tail the status bar shows opens that session; an unknown
reference is an error on screen and no session is made (checked in state.db with sqlite3)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.config import Home, Settings
from hermes_tui.store.db import SessionDB
from hermes_tui.widgets.formatting import short_session_id
from tests.core.helpers import DEMO, background_work
from tests.tui.helpers import wait_until
from tests.waits import HANG_GUARD_S

STORED = "20261201_123139_e87044"


async def _home_with_one_session(tmp_path: Path) -> Home:
    home = Home(tmp_path / "home").ensure()
    db = await SessionDB.open(home.state_db)
    try:
        await db.create_session(STORED, "tui", model="demo", title="Read README.md")
        await db.append_message(STORED, "user", "read README.md")
        await db.append_message(STORED, "assistant", "It says hello.")
    finally:
        await db.close()
    return home


def _app(tmp_path: Path, home: Home, resume: str) -> HermesApp:
    settings = background_work(Settings(), auto_title=False, review=False)
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    return HermesApp(home=home, settings=settings, choice=DEMO, cwd=project, resume=resume)


def _ids(home: Home) -> list[str]:
    con = sqlite3.connect(home.state_db)
    try:
        return [row[0] for row in con.execute("SELECT id FROM sessions")]
    finally:
        con.close()


async def test_the_shown_tail_resumes_that_session(tmp_path: Path) -> None:
    home = await _home_with_one_session(tmp_path)
    app = _app(tmp_path, home, short_session_id(STORED))
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        assert app.agent.session_id == STORED
        await wait_until(pilot, lambda: len(app.agent.messages) == 2, 5, "the stored history")


async def test_an_unknown_reference_is_an_error_on_screen_and_no_session_is_made(tmp_path: Path) -> None:
    home = await _home_with_one_session(tmp_path)
    app = _app(tmp_path, home, "e8704x")
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await wait_until(
            pilot,
            lambda: any("no session matches 'e8704x'" in n.message for n in app._notifications),
            5,
            "the error notification",
        )
        assert app.agent.session_id != STORED and not app.agent.session.row_created
        await pilot.press("ctrl+q")
    assert _ids(home) == [STORED]
