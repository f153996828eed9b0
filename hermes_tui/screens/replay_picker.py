"""`ReplayPickerScreen`: which route a stored turn is replayed on ("Replay turn N on …").

One row per route (`replay_session.replay_routes`: the model in use, the configured fallbacks,
the demo model); Enter or a click answers that route's index, Esc answers None. The heading names
the session and the turn; everything shown is data (`markup=False`).
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static


class ReplayPickerScreen(ModalScreen[int | None]):
    """Pick the provider:model a turn is sent to again."""

    AUTO_FOCUS = "#replay-routes"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="replay-cancel")]

    def __init__(self, heading: str, routes: list[str]) -> None:
        super().__init__()
        self.heading = heading
        self.routes = routes

    def compose(self) -> ComposeResult:
        with Vertical(id="replay-dialog", classes="tree-dialog") as dialog:
            dialog.border_title = "Replay on …"
            yield Static(self.heading, markup=False, id="replay-heading")
            yield OptionList(*self.routes, id="replay-routes")
            yield Static("Enter replays on that route · Esc cancels", markup=False, classes="tree-dialog-hint")

    @on(OptionList.OptionSelected, "#replay-routes")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_index)

    def action_cancel(self) -> None:
        self.dismiss(None)
