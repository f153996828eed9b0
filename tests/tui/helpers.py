"""Test helpers for the TUI: host apps that load styles.tcss, polling waits, a text screen dump.

Widgets are tested inside small host Apps; waits poll a predicate (every 10 ms) instead of sleeping a
fixed time, with a timeout that only catches a hang (tests/waits.py).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from rich.console import Console
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, TextArea

from hermes_tui.screens.main import STYLES_PATH
from tests.waits import guard

FIXED_WALL_TIME = datetime(2026, 11, 26, 22, 15, 0)
FIXED_EPOCH = 1_795_731_300.0  # a fixed "now" for relative session ages


def fixed_wall_clock() -> datetime:
    return FIXED_WALL_TIME


def fixed_epoch_clock() -> float:
    return FIXED_EPOCH


class HostApp(App[Any]):
    """Hosts a few widgets with the real stylesheet; records every message it sees."""

    CSS_PATH = STYLES_PATH

    def __init__(self, make_widgets: Callable[[], Iterable[Widget]]) -> None:
        super().__init__()
        self._make_widgets = make_widgets

    def compose(self) -> ComposeResult:
        yield from self._make_widgets()


async def wait_until(pilot: Pilot, predicate: Callable[[], bool], timeout: float | None = None, what: str = "") -> None:
    """Let the app run until `predicate()` is true. A hang guard only: it fails after `guard(timeout)`
    seconds (at least a minute, whatever shorter `timeout` a caller passes), naming what it awaited."""
    limit = guard(timeout)
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {limit:.0f} s waiting for {what or predicate}")
        await pilot.pause(0.01)


def screen_text(app: App[Any]) -> str:
    """The current screen as plain text, the way a user reads it."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


def disable_cursor_blink(app: App[Any]) -> None:
    """Snapshots must not depend on the blink phase of text cursors."""
    for widget in app.screen.query(Input):
        widget.cursor_blink = False
    for area in app.screen.query(TextArea):  # the prompt
        area.cursor_blink = False


def widget_text(app: App[Any], widget: Widget) -> str:
    """The part of the screen a widget covers, as plain text, line by line."""
    region = widget.region
    lines = screen_text(app).splitlines()[region.y : region.bottom]
    return "\n".join(line[region.x : region.right].rstrip() for line in lines)
