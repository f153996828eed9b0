"""Work that waits (a long history's conversion, the tree's database reads) stays off the app's
queue: keys still reach the prompt meanwhile, and what came after it is shown after it, in order."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widget import Widget

import hermes_tui.widgets.conversation as conversation_module
from hermes_tui.app import HermesApp
from hermes_tui.config import Home, Settings
from hermes_tui.core import events as ev
from hermes_tui.store.db import SessionDB
from hermes_tui.ui.presenter import LONG_HISTORY
from tests.app.test_app import DEMO, make_app
from tests.core.helpers import background_work
from tests.tui.helpers import wait_until
from tests.waits import HANG_GUARD_S


async def store_long_session(home: Home, count: int) -> None:
    db = await SessionDB.open(home.state_db)
    try:
        await db.create_session("long-one", "tui", model="demo", title="long one")
        messages: list[dict[str, Any]] = []
        for turn in range(count // 2):
            messages += [
                {"role": "user", "content": f"question {turn}"},
                {"role": "assistant", "content": f"answer {turn}"},
            ]
        await db.append_messages("long-one", messages)
    finally:
        await db.close()


@contextlib.asynccontextmanager
async def app_converting_a_held_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[HermesApp, Pilot[int], threading.Event]]:
    """The app running, resuming a long session whose conversion (the real one) has run and waits for
    `release` (set on the way out whatever happens) to hand its items back."""
    home = Home(tmp_path / "home").ensure()
    await store_long_session(home, LONG_HISTORY + 200)
    entered, release = threading.Event(), threading.Event()
    convert = conversation_module.history_items

    def gated(messages: list[dict[str, Any]]) -> Any:
        items = convert(messages)
        if len(messages) >= LONG_HISTORY:
            entered.set()
            release.wait(HANG_GUARD_S)
        return items

    monkeypatch.setattr(conversation_module, "history_items", gated)
    settings = background_work(Settings(), auto_title=False, review=False)
    app = HermesApp(home=home, settings=settings, choice=DEMO, resume="long-one", cwd=tmp_path)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, entered.is_set, 20, "the conversion to start")
            yield app, pilot, release
    finally:
        release.set()


async def test_keys_and_later_events_while_a_long_history_converts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with app_converting_a_held_history(tmp_path, monkeypatch) as (app, pilot, release):
        held = [worker for worker in app.workers if worker.group == "history"]
        # named by us: Textual's default description is repr() of the work, the whole history
        assert held and all(len(worker.description) < 100 for worker in held)
        await pilot.press("z")  # the app's queue is free while the thread converts
        assert app.main.prompt.value == "z"
        app._sink(ev.Warning("after the history"))
        await pilot.pause()
        assert not any(item.text == "after the history" for item in app.main.conversation.items)
        release.set()
        await wait_until(pilot, lambda: len(app.main.conversation.items) > LONG_HISTORY, 20, "the history")
        await wait_until(
            pilot, lambda: app.main.conversation.items[-1].text == "after the history", 10, "the held warning"
        )
        assert app.main.conversation.items[-2].text == f"answer {(LONG_HISTORY + 200) // 2 - 1}"


async def test_closing_while_a_long_history_converts_shows_nothing_and_raises_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with app_converting_a_held_history(tmp_path, monkeypatch) as (app, pilot, release):
        app._sink(ev.TitleChanged("long-one", "renamed meanwhile"))
        await pilot.pause()
        app.exit()
        release.set()  # the conversion ends after the app began closing
    assert app.return_code in (0, None)
    assert app._exception is None


class HoldsTheClose(Widget):
    """A widget that takes its time to close: the screen it is on stays half taken down (being
    closed, some of its widgets gone) until `may_close` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.may_close = asyncio.Event()

    async def on_unmount(self) -> None:
        await asyncio.wait_for(self.may_close.wait(), HANG_GUARD_S)


async def test_events_held_behind_a_history_are_not_written_into_the_closing_review_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The conversion ends while the app closes, after the Review log was taken down: the lines held
    behind the history must not be written into it (they raised KeyError: 'review-log--time')."""
    async with app_converting_a_held_history(tmp_path, monkeypatch) as (app, pilot, release):
        log, holder = app.main.review_log, HoldsTheClose()
        await app.main.mount(holder)
        app._sink(ev.ReviewEntry("info", "held behind the history"))
        app._sink(ev.Warning("also held"))
        await pilot.pause()
        assert "held behind the history" not in [entry.text for entry in log.entries]  # it waits its turn

        async def release_once_the_log_is_down() -> None:
            while log.is_attached:
                await asyncio.sleep(0)
            release.set()  # the history is shown (and what it held released) while the screen closes
            while any(worker.group == "history" for worker in app.workers):
                await asyncio.sleep(0.01)
            holder.may_close.set()

        releasing = asyncio.create_task(release_once_the_log_is_down())
    # leaving the block closed the app (run_test re-raises what a handler or worker raised meanwhile)
    await asyncio.wait_for(releasing, HANG_GUARD_S)
    assert app._exception is None


async def test_background_refreshes_run_in_order_without_holding_keys(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    ran: list[str] = []
    first_may_end = asyncio.Event()

    async def slow(name: str) -> None:  # a tree refresh waiting on a busy database
        ran.append(f"{name} started")
        await first_may_end.wait()
        ran.append(f"{name} done")

    async def quick(name: str) -> None:
        ran.append(name)

    async with app.run_test(size=(100, 30)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        app.sessions_tree.in_background(slow, "tree")
        app.sessions_tree.in_background(quick, "goal")
        await wait_until(pilot, lambda: ran == ["tree started"], 5, "the first refresh")
        await pilot.press("k")  # the app's queue is free meanwhile
        assert app.main.prompt.value == "k"
        assert ran == ["tree started"]  # the second waits for the first
        first_may_end.set()
        await wait_until(pilot, lambda: ran == ["tree started", "tree done", "goal"], 5, "both, in order")


async def test_a_core_event_that_comes_while_the_app_closes_is_dropped_quietly(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)):
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        session_id = app.agent.session_id if app.agent is not None else ""
    assert not app.screen_stack  # closed: a turn's last events (a title, a warning) may still come
    await app.presenter.show(ev.TitleChanged(session_id, "a title from the turn that just ended"))
    await app.presenter.show(ev.Warning("late"))
    assert app._exception is None
