"""What the app does so a keystroke reaches the screen soon: quicker frames, a collection right after a key,
worker threads that hand the interpreter back sooner."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path

import pytest
from textual import events
from textual import screen as textual_screen
from textual.pilot import Pilot

from hermes_tui.app import LOOP_SWITCH_INTERVAL_S, HermesApp
from hermes_tui.gc_pacer import GcPacer
from hermes_tui.widgets.textual_workarounds import FRAMES_PER_SECOND, quicker_frames
from tests.app.test_app import make_app
from tests.tui.helpers import wait_until
from tests.waits import HANG_GUARD_S


@pytest.fixture
def restored_period():
    period = textual_screen.UPDATE_PERIOD
    yield
    textual_screen.UPDATE_PERIOD = period


async def pacer_with_a_collection_due(app: HermesApp, pilot: Pilot[int], *, timer_s: float) -> GcPacer:
    """Once start-up is over: the app's pacer with a full collection always due, and the timer's rules
    (`quiet_s`, `max_delay_s`) set to `timer_s`."""
    await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
    await wait_until(pilot, lambda: app.gc_pacer.started, 10, "the end of start-up")
    pacer = app.gc_pacer
    pacer.quiet_s = pacer.max_delay_s = timer_s
    pacer.due_after = 0
    return pacer


async def test_screens_draw_from_a_quicker_timer(tmp_path: Path, restored_period: None) -> None:
    # After a long frame Textual's timer skips a period: 60 periods a second made the next frame
    # (the one echoing a key typed meanwhile) wait 17-33 ms; at 240 it waits 4-8 ms.
    textual_screen.UPDATE_PERIOD = 1 / 60
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await pilot.press("a")
        assert app.main.prompt.value == "a"
        assert app.screen._update_timer._interval == pytest.approx(1 / FRAMES_PER_SECOND)


def test_a_textual_fps_set_by_the_user_wins(monkeypatch: pytest.MonkeyPatch, restored_period: None) -> None:
    textual_screen.UPDATE_PERIOD = 1 / 60
    monkeypatch.setenv("TEXTUAL_FPS", "30")
    quicker_frames()
    period = textual_screen.UPDATE_PERIOD
    assert period == pytest.approx(1 / 60)  # left alone: Textual read TEXTUAL_FPS itself
    monkeypatch.delenv("TEXTUAL_FPS")
    quicker_frames()
    period = textual_screen.UPDATE_PERIOD
    assert period == pytest.approx(1 / FRAMES_PER_SECOND)


async def test_a_due_collection_runs_after_a_key_without_waiting_for_a_pause(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        pacer = await pacer_with_a_collection_due(app, pilot, timer_s=3600.0)  # the timer alone never collects
        before = pacer.collections
        await pilot.press("x")
        await wait_until(pilot, lambda: pacer.collections > before, 5, "a collection after the key")
        assert app.main.prompt.value == "x"


async def test_worker_threads_hand_the_interpreter_back_within_a_millisecond_while_the_app_runs(
    tmp_path: Path,
) -> None:
    before = sys.getswitchinterval()
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)):
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        assert sys.getswitchinterval() == pytest.approx(LOOP_SWITCH_INTERVAL_S)
    assert sys.getswitchinterval() == pytest.approx(before)


async def test_a_key_from_the_driver_thread_holds_a_due_collection_before_the_loop_has_seen_it(
    tmp_path: Path,
) -> None:
    # The terminal driver's input thread hands a key over (`send_message`); the event loop hears of
    # it one or two iterations later. A due collection that ran in between held the key for all of it.
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        pacer = await pacer_with_a_collection_due(app, pilot, timer_s=0.0)  # no key on its way: a tick collects
        driver = app._driver
        assert driver is not None

        def key_sent_while_the_loop_is_held() -> tuple[bool, bool, str]:
            # Runs on the event loop, which cannot run what the driver's thread schedules until this returns.
            thread = threading.Thread(target=driver.send_message, args=(events.Key("z", "z"),))
            thread.start()
            thread.join(HANG_GUARD_S)
            return pacer.input_pending, pacer.tick(), app.main.prompt.value

        collections = pacer.collections
        pending, collected, prompt = key_sent_while_the_loop_is_held()
        assert prompt == ""  # the loop has not handled the key yet
        assert pending and not collected and pacer.collections == collections
        await wait_until(pilot, lambda: app.main.prompt.value == "z", 10, "the key in the prompt")


async def test_each_key_is_counted_once_however_it_arrives(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        pacer = app.gc_pacer
        keys = pacer.keys
        await pilot.press("a", "b", "c")  # through the driver: counted in its thread
        app.post_message(events.Key("d", "d"))  # posted on the loop: counted there
        await wait_until(pilot, lambda: app.main.prompt.value == "abcd", 10, "the keys in the prompt")
        assert pacer.keys - keys == 4 and app.input_arrivals.in_flight == 0
        await wait_until(pilot, lambda: not pacer.input_pending, 10, "every key's frame")


async def test_a_key_counts_as_drawn_only_once_a_frame_is_written_after_it(tmp_path: Path) -> None:
    # Screen updates run their after-refresh callbacks whether they drew anything or not; a key
    # counted as drawn before it was let a due collection run in front of its frame.
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        pacer = await pacer_with_a_collection_due(app, pilot, timer_s=3600.0)  # only the key's echo collects
        collections = pacer.collections
        with app.batch_update():  # no frame is written while it lasts
            await pilot.press("q")
            await wait_until(pilot, lambda: app.main.prompt.value == "q", 10, "the key in the prompt")
            for _ in range(3):
                await pilot.pause()  # screen updates come and go, drawing nothing
            assert pacer.input_pending and pacer.echoed < pacer.keys
            assert pacer.collections == collections
        await wait_until(pilot, lambda: pacer.echoed == pacer.keys, 10, "the key's frame")
        await wait_until(pilot, lambda: pacer.collections > collections, 10, "the collection after it")
