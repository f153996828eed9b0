"""Once start-up is over the app hands back what opening a long session left behind: the store's
page caches and the heap's free pages (gc_pacer's trim, at a quiet tick)."""

from __future__ import annotations

from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.config import Home, Settings
from hermes_tui.store.db import SessionDB
from tests.app.test_app import DEMO
from tests.core.helpers import background_work
from tests.store.conftest import sqlite_memory_used
from tests.tui.helpers import wait_until


async def _store_session(home: Home) -> None:
    db = await SessionDB.open(home.state_db)
    try:
        await db.create_session("big", "tui", model="demo", title="big one")
        await db.append_messages(
            "big",
            [
                {"role": "user" if i % 2 == 0 else "assistant", "content": f"part {i} " + "words " * 400}
                for i in range(1_200)
            ],
        )
    finally:
        await db.close()


async def test_a_resumed_long_session_hands_its_page_caches_back_once_settled(tmp_path: Path) -> None:
    home = Home(tmp_path / "home").ensure()
    await _store_session(home)
    settings = background_work(Settings(), auto_title=False, review=False)
    app = HermesApp(home=home, settings=settings, choice=DEMO, resume="big", cwd=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.ready.is_set() and app.gc_pacer.started, 20, "start-up")
        # the 2.9 MB history was just read: its pages are in the reader's cache (2 MB) until the trim
        await wait_until(pilot, lambda: app.gc_pacer.trims == 1, 20, "the start-up trim")
        await wait_until(pilot, lambda: not any(w.is_running for w in app.workers if w.group == "trim"), 20, "the trim")
        assert sqlite_memory_used() < 1_000_000
        assert len(app.main.conversation.items) == 1_200  # nothing of the session went with it
