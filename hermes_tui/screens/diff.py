"""`DiffScreen`: the whole diff of a tool call's file changes, opened from its card (`a`).

A title line (the tool, how many files, lines added and removed, how many rows), the diff in a
`DiffView` (coloured, only the rows on screen drawn, long lines scrolled sideways) and a footer.
Esc or q closes it and returns to the conversation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Static

from hermes_tui.text_safety import visible
from hermes_tui.widgets.diff_rows import diff_rows, files_line
from hermes_tui.widgets.diff_view import DiffView

if TYPE_CHECKING:
    from hermes_tui.core.tools.file_diff import FileChange


class DiffScreen(Screen[None]):
    """Every file a call changed, as one scrollable coloured diff."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="diff-close"),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, title: str, changes: Sequence[FileChange]) -> None:
        super().__init__(classes="diff-screen")
        self.title_text = title
        self.changes = tuple(changes)
        self.rows = list(diff_rows(self.changes))

    def compose(self) -> ComposeResult:
        heading = f"{visible(self.title_text)} — {files_line(self.changes)}, {len(self.rows):,} rows"
        yield Static(heading, markup=False, classes="diff-screen-title")
        yield DiffView(self.rows, classes="diff-screen-view")
        yield Footer()

    def on_mount(self) -> None:
        self.view.focus()

    @property
    def view(self) -> DiffView:
        return self.query_one(DiffView)

    def action_close(self) -> None:
        self.dismiss(None)
