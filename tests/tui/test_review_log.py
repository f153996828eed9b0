"""ReviewLog: timestamped entries with kind icons, newest at the bottom, bounded."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

from hermes_tui.widgets.review_log import ReviewLog

from .helpers import HostApp, screen_text


def ticking_clock() -> Iterator[datetime]:
    moment = datetime(2026, 11, 26, 9, 0, 0)
    while True:
        yield moment
        moment += timedelta(seconds=61)


def log_host(max_entries: int = 500) -> HostApp:
    ticks = ticking_clock()
    return HostApp(lambda: [ReviewLog(id="review-log", max_entries=max_entries, clock=lambda: next(ticks))])


async def test_entries_are_stamped_and_iconed_newest_at_the_bottom() -> None:
    app = log_host()
    async with app.run_test(size=(70, 12)) as pilot:
        log = app.query_one(ReviewLog)
        log.add_entry("compression", "compressed 40 → 12 messages")
        log.add_entry("rotation", "now in session 2c1332")
        log.add_entry("memory", "saved: prefers uv over pip")
        log.add_entry("skill", "learned: release checklist")
        log.add_entry("warning", "summary model failed; used fallback")
        log.add_entry("info", "review finished")
        await pilot.pause()
        lines = [line for line in screen_text(app).splitlines() if ":" in line]
        assert [line.strip("│ ") for line in lines] == [
            "09:00:00 🗜 compressed 40 → 12 messages",
            "09:01:01 ↻ now in session 2c1332",
            "09:02:02 ✎ saved: prefers uv over pip",
            "09:03:03 ✦ learned: release checklist",
            "09:04:04 ⚠ summary model failed; used fallback",
            "09:05:05 ℹ review finished",
        ]


async def test_kinds_have_their_own_colours_and_unknown_kinds_count_as_info() -> None:
    app = log_host()
    async with app.run_test() as pilot:
        log = app.query_one(ReviewLog)
        log.add_entry("compression", "a")
        log.add_entry("warning", "b")
        log.add_entry("mystery", "c")
        await pilot.pause()
        entries = log.entries
        assert [entry.kind for entry in entries] == ["compression", "warning", "info"]
        icon_colours = {
            log.entry_text(entry).get_style_at_offset(app.console, len("09:00:00 ")).color for entry in entries
        }
        assert len(icon_colours) == 3


async def test_the_log_keeps_at_most_max_entries() -> None:
    app = log_host(max_entries=5)
    async with app.run_test(size=(70, 20)) as pilot:
        log = app.query_one(ReviewLog)
        for index in range(12):
            log.add_entry("info", f"entry {index}")
        await pilot.pause()
        assert [entry.text for entry in log.entries] == [f"entry {index}" for index in range(7, 12)]
        text = screen_text(app)
        assert "entry 6" not in text and "entry 7" in text and "entry 11" in text


async def test_entries_added_before_mount_are_shown() -> None:
    ticks = ticking_clock()
    review_log = ReviewLog(id="review-log", clock=lambda: next(ticks))
    review_log.add_entry("info", "queued early")
    app = HostApp(lambda: [review_log])
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "09:00:00 ℹ queued early" in screen_text(app)


async def test_long_entries_wrap_inside_a_narrow_log() -> None:
    app = log_host()
    app.CSS = "#review-log { width: 30; }"
    async with app.run_test(size=(60, 12)) as pilot:
        log = app.query_one(ReviewLog)
        log.add_entry("memory", "remembered that the user deploys with make release on fridays")
        await pilot.pause()
        text = screen_text(app)
        assert "fridays" in text
        assert log.virtual_size.width <= log.scrollable_content_region.width
