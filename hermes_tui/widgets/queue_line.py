"""`QueueLine`: one line under the prompt showing what waits for the running agent, and editing it.

Queued messages (sent one per turn when the running turn ends), /steer guidance that waits for
the next tool call, and a pending /stop. Hidden when nothing waits. The texts are the user's own,
shown as data (no markup) and cut to fit. With the focus (Tab from the prompt, or a click) the line
shows one queued message at a time: ↑/↓ choose it, Enter (or e) posts `EditRequested` — the app
puts it back into the prompt — and Delete (or d) posts `DropRequested`. `/queue` does the same by
number.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Static

from hermes_tui.widgets.formatting import cut

ITEM_WIDTH = 40
CHOSEN_WIDTH = 60


def queue_summary(queued: tuple[str, ...], steers: tuple[str, ...], stop_requested: bool) -> str:
    """The line's text, or "" when nothing waits."""
    parts: list[str] = []
    if stop_requested:
        parts.append("⏹ stopping after the current tool call")
    if steers:
        parts.append(f"⇢ steer waiting: {cut(steers[-1], ITEM_WIDTH)}")
    if queued:
        first = cut(queued[0], ITEM_WIDTH)
        more = f" (+{len(queued) - 1} more)" if len(queued) > 1 else ""
        parts.append(f"⏵ queued {len(queued)}: {first}{more} — /queue to edit")
    return " · ".join(parts)


def chosen_line(queued: tuple[str, ...], position: int) -> str:
    """The focused line: queued message `position` (1-based) and the keys that act on it."""
    text = cut(queued[position - 1], CHOSEN_WIDTH)
    return f"⏵ queued {position}/{len(queued)}: {text} — ↑↓ choose · Enter edit · Del remove"


class QueueLine(Static, can_focus=True):
    """What waits for the agent (hidden when nothing does); focused, it edits the queue."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "choose(-1)", "Previous queued message", show=False),
        Binding("down", "choose(1)", "Next queued message", show=False),
        Binding("enter,e", "edit", "Edit the queued message", id="queue-edit"),
        Binding("delete,d,backspace", "drop", "Remove it from the queue", id="queue-drop"),
    ]

    class EditRequested(Message):
        """Take queued message `position` (1-based) back into the prompt."""

        def __init__(self, position: int) -> None:
            super().__init__()
            self.position = position

    class DropRequested(Message):
        """Remove queued message `position` (1-based)."""

        def __init__(self, position: int) -> None:
            super().__init__()
            self.position = position

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", markup=False, id=id)
        self.display = False
        self.text = ""
        self.queued: tuple[str, ...] = ()
        self._steers: tuple[str, ...] = ()
        self._stop = False
        self.position = 1  # the queued message the focused line shows (1-based)

    def show(self, queued: tuple[str, ...], steers: tuple[str, ...], stop_requested: bool) -> None:
        self.queued, self._steers, self._stop = queued, steers, stop_requested
        self.position = max(1, min(self.position, len(queued)))
        self._render_line()

    def _render_line(self) -> None:
        if self.has_focus and self.queued:
            self.text = chosen_line(self.queued, self.position)
        else:
            self.text = queue_summary(self.queued, self._steers, self._stop)
        self.update(self.text)
        self.display = bool(self.text)
        if not self.display and self.has_focus:
            self.screen.focus_next()  # the line went away under the focus: on to the next pane

    def watch_has_focus(self, has_focus: bool) -> None:
        super().watch_has_focus(has_focus)
        self._render_line()

    def action_choose(self, step: int) -> None:
        if self.queued:
            self.position = (self.position - 1 + step) % len(self.queued) + 1
            self._render_line()

    def action_edit(self) -> None:
        if self.queued:
            self.post_message(self.EditRequested(self.position))

    def action_drop(self) -> None:
        if self.queued:
            self.post_message(self.DropRequested(self.position))
