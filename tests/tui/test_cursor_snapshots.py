"""SVG snapshot of the message cursor: a selected message in the conversation and the footer's keys for it.

Generate the baseline with `pytest tests/tui/test_cursor_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Footer

from hermes_tui.screens.main import STYLES_PATH
from hermes_tui.widgets.conversation import ConversationView

from .helpers import wait_until
from .sample_data import sample_history


class CursorSnapshotApp(App[Any]):
    CSS_PATH = STYLES_PATH

    def compose(self) -> ComposeResult:
        yield ConversationView(id="conversation")
        yield Footer()


def test_the_cursor_on_a_message_with_its_footer_keys(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        view = pilot.app.query_one(ConversationView)
        await view.load_history(sample_history())
        await pilot.pause()
        view.start_cursor()
        await pilot.press("up", "up")
        await wait_until(pilot, lambda: bool(view.query(".-cursor")), what="the cursor's mark")
        await pilot.pause()

    assert snap_compare(CursorSnapshotApp(), terminal_size=(90, 30), run_before=run_before)
