"""Text left off the screen: the "show all" bar of a long message, and the message that opens it whole.

Huge texts (a 5 MB answer, a pasted log) are shown in part — the start, and for answers the end —
with a `HiddenTextBar` where the rest would be: "… 120,100 lines (4.8 MB) not shown here — Enter or
click: show all". The bar is focusable (Tab reaches it), and Enter, Space or a click posts
`ShowFullText`, which the main screen answers by opening the full-text viewer. `text_preview`
cuts a plain text to its start for such a display.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from hermes_tui.widgets.transcript import PLAIN_PREVIEW_CHARS


class ShowFullText(Message):
    """Open the viewer on a whole text (posted by a "show all" affordance)."""

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title = title
        self.text = text


def size_label(chars: int) -> str:
    """A character count people can read: "812 characters", "48 KB", "4.8 MB"."""
    if chars < 10_000:
        return f"{chars:,} character{'s' if chars != 1 else ''}"
    if chars < 1_000_000:
        return f"{chars / 1000:.0f} KB"
    return f"{chars / 1_000_000:.1f} MB"


def hidden_summary(chars: int, lines: int) -> str:
    """What a "show all" bar says about the part left out."""
    line_part = f"{lines:,} line{'s' if lines != 1 else ''}, " if lines else ""
    return f"… {line_part}{size_label(chars)} not shown here — Enter or click: show all"


def text_preview(text: str, limit: int = PLAIN_PREVIEW_CHARS) -> tuple[str, int, int]:
    """(the start of `text` to show, characters left out, lines left out); the cut is at a line end
    when one is near the limit."""
    if len(text) <= limit:
        return text, 0, 0
    cut = text.rfind("\n", limit // 2, limit)
    cut = limit if cut < 0 else cut + 1
    return text[:cut].rstrip("\n"), len(text) - cut, text.count("\n", cut) + 1


class HiddenTextBar(Static, can_focus=True):
    """A row standing for text that is not shown; Enter, Space or a click shows all of it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "show_all", "Show the whole text", show=False),
        Binding("space", "show_all", "Show the whole text", show=False),
    ]

    hidden: reactive[tuple[int, int]] = reactive((0, 0))

    def __init__(self, title: str, full_text: Callable[[], str], *, classes: str = "") -> None:
        super().__init__("", markup=False, classes=f"hidden-text-bar {classes}".strip())
        self.title = title
        self._full_text = full_text
        self.display = False

    def watch_hidden(self, hidden: tuple[int, int]) -> None:
        chars, lines = hidden
        self.display = chars > 0
        self.update(hidden_summary(chars, lines))

    def action_show_all(self) -> None:
        self.post_message(ShowFullText(self.title, self._full_text()))

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_show_all()
