"""`FullTextScreen`: the whole of a long message, opened from its "show all" bar.

A title line (what the text is, its size), the text in a `FullTextView` (wrapped, drawn only where
it is on screen, so a 5 MB answer scrolls as fast as a short one), and a footer with the keys.
Esc or q closes it and returns to the conversation.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Static

from hermes_tui.widgets.full_text_view import FullTextView, visible_text
from hermes_tui.widgets.hidden_text import size_label


class FullTextScreen(Screen[None]):
    """A whole text, scrollable with the keys and the mouse wheel."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="close-full-text"),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__(classes="full-text-screen")
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        lines = self.text.count("\n") + 1
        heading = f"{visible_text(self.title_text)} — {lines:,} lines, {size_label(len(self.text))}"
        yield Static(heading, markup=False, classes="full-text-title")
        yield FullTextView(self.text, classes="full-text-view")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(FullTextView).focus()

    @property
    def view(self) -> FullTextView:
        return self.query_one(FullTextView)

    def action_close(self) -> None:
        self.dismiss(None)
