"""`hermes-tui --resume REF` in the TUI: the tail the status bar shows opens that session; an unknown
reference ends the app with one line (exit 2) and no session is made (checked in state.db with sqlite3);
/resume inside the TUI takes every id form, and says what it cannot resolve."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.config import Home, Settings
from hermes_tui.store.db import SessionDB
from hermes_tui.widgets.formatting import short_session_id
from hermes_tui.widgets.transcript import KIND_NOTICE
from tests.app.test_app import submit, wait_exit
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


async def test_an_unknown_reference_ends_the_app_with_one_line_and_exit_2_and_no_session_is_made(
    tmp_path: Path,
) -> None:
    home = await _home_with_one_session(tmp_path)
    app = _app(tmp_path, home, "e8704x")
    async with app.run_test(size=(120, 40)):
        await wait_exit(app, timeout=10)
    # the CLI prints `startup_error` as its one line on stderr and exits 2 (cli._launch_tui), as for a bad state.db
    assert app.startup_error is not None and "no session matches 'e8704x'" in app.startup_error
    assert "\n" not in app.startup_error
    assert _ids(home) == [STORED]


async def _home_with_sessions(tmp_path: Path, sessions: list[tuple[str, str]]) -> Home:
    home = Home(tmp_path / "home").ensure()
    db = await SessionDB.open(home.state_db)
    try:
        for session_id, title in sessions:
            await db.create_session(session_id, "tui", model="demo", title=title)
            await db.append_message(session_id, "user", f"hello from {title}")
    finally:
        await db.close()
    return home


def _notices(app: HermesApp) -> list[str]:
    return [item.text for item in app.main.conversation.items if item.kind == KIND_NOTICE]


async def test_resume_takes_every_id_form_and_says_what_it_cannot_resolve(tmp_path: Path) -> None:
    other = "20261202_090000_a1b2c3"
    third = "20261202_091500_a1f00d"
    sessions = [(STORED, "Read README.md"), (other, "Fix the gadget"), (third, "Notes")]
    home = await _home_with_sessions(tmp_path, sessions)
    app = _app(tmp_path, home, "")
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        fresh = app.agent.session_id
        for reference, expected in (
            ("e87044", STORED),  # the tail the status bar shows
            ("20261202_0900", other),  # a prefix
            ("Notes", third),  # a title
            (STORED, STORED),  # the full id
        ):
            await submit(pilot, app, f"/resume {reference}")
            await wait_until(pilot, lambda e=expected: app.agent.session_id == e, 10, f"/resume {reference}")
            await wait_until(pilot, lambda: not app.turns.busy, 10, "the command to end")
        shown = len(_notices(app))
        await submit(pilot, app, "/resume zzzz99")
        await wait_until(pilot, lambda: len(_notices(app)) > shown, 10, "the unknown reference's notice")
        assert "no session matches 'zzzz99'" in _notices(app)[-1] and app.agent.session_id == STORED
        await wait_until(pilot, lambda: not app.turns.busy, 10, "the command to end")
        await submit(pilot, app, "/resume 20261202")  # the prefix of two ids: ambiguous, both named
        await wait_until(pilot, lambda: len(_notices(app)) > shown + 1, 10, "the ambiguous reference's notice")
        assert other in _notices(app)[-1] and third in _notices(app)[-1] and app.agent.session_id == STORED
        await pilot.press("ctrl+q")
    assert sorted(_ids(home)) == sorted([STORED, other, third]) and fresh not in _ids(home)
