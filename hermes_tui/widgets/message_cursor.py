"""The conversation's message cursor: which message is selected, and moving it across the window.

`MessageCursor` belongs to a `ConversationView` (which declares the keys and calls in here). It
selects transcript items that show a message of the history (user prompts, answers, tool cards,
compaction summaries — not notices), marks the selected row (class "-cursor") while the cursor is
on, and moves the selection by one message, a page of them, or to either end. Moving past the
mounted window first mounts the neighbouring page (as scrolling does), or rebuilds the window
around the target when it is further away, so the cursor reaches any message however far back.
The view re-marks rows it rebuilds (`decorate`). The actions on the selection ("branch here",
"edit and resend", "copy") are posted as `MessageActionRequested` for the app to carry out.
"""

from __future__ import annotations

from typing import Protocol

from textual.await_complete import AwaitComplete
from textual.css.query import DOMQuery
from textual.message import Message
from textual.widget import Widget

from hermes_tui.widgets.message_links import shows_message
from hermes_tui.widgets.transcript import KIND_USER, TranscriptItem

CURSOR_CLASS = "-cursor"
ACTION_BRANCH = "branch"
ACTION_EDIT = "edit"
ACTION_COPY = "copy"
ACTION_REPLAY = "replay"


class MessageActionRequested(Message):
    """The user asked for `action` (branch / edit / copy / replay) on the message `item` shows."""

    def __init__(self, item: TranscriptItem, action: str) -> None:
        super().__init__()
        self.item = item
        self.action = action


class CursorHost(Protocol):
    """What the cursor needs of its conversation view."""

    @property
    def items(self) -> list[TranscriptItem]: ...
    @property
    def at_latest(self) -> bool: ...
    def row_for(self, item: TranscriptItem) -> Widget | None: ...
    def shown_rows(self) -> list[tuple[TranscriptItem, Widget]]: ...
    def row_is_visible(self, row: Widget) -> bool: ...
    def keep_row_in_view(self, row: Widget) -> None: ...
    async def show_item(self, index: int) -> None: ...
    def jump_to_latest(self) -> AwaitComplete: ...
    def query(self, selector: str) -> DOMQuery[Widget]: ...
    def call_after_refresh(self, callback: object, *args: object) -> bool: ...
    def refresh_bindings(self) -> None: ...


class MessageCursor:
    """The selected message of one conversation view, and the moves between messages."""

    def __init__(self, view: CursorHost) -> None:
        self._view = view
        self.selected: TranscriptItem | None = None
        self.active = False
        self._hint = 0  # where `selected` was last found in the view's items

    # ------------------------------------------------------------------ state

    @property
    def position(self) -> int | None:
        """The index of the selected item in the view's items (None when nothing is selected)."""
        item, items = self.selected, self._view.items
        if item is None:
            return None
        if self._hint < len(items) and items[self._hint] is item:
            return self._hint
        for index in range(len(items) - 1, -1, -1):
            if items[index] is item:
                self._hint = index
                return index
        self.selected = None  # it left the transcript (a new history was loaded)
        return None

    @property
    def on_user_message(self) -> bool:
        return self.selected is not None and self.selected.kind == KIND_USER

    def row(self) -> Widget | None:
        """The mounted row of the selected item, if it is in the window."""
        return self._view.row_for(self.selected) if self.selected is not None else None

    def decorate(self, item: TranscriptItem, row: Widget) -> None:
        """A row was (re)built: mark it if it shows the selection."""
        if self.active and item is self.selected:
            row.add_class(CURSOR_CLASS)

    def _paint(self) -> None:
        for row in self._view.query(f".{CURSOR_CLASS}"):
            row.remove_class(CURSOR_CLASS)
        row = self.row()
        if self.active and row is not None:
            row.add_class(CURSOR_CLASS)
            self._view.call_after_refresh(self._view.keep_row_in_view, row)
        self._view.refresh_bindings()

    def select(self, item: TranscriptItem) -> None:
        """Select `item` (already in the window) and show it."""
        self.selected = item
        self._paint()

    def note_revealed(self, item: TranscriptItem) -> None:
        """A message was opened from elsewhere (a search hit): the cursor starts there next time."""
        self.selected = item

    # ------------------------------------------------------------------ on and off

    def start(self) -> None:
        """Turn the cursor on: the last selection if still there, else the bottom message on screen."""
        self.active = True
        if self.position is None or self.row() is None:
            self.selected = self._starting_item()
        self._paint()

    def stop(self) -> None:
        """Turn the cursor off (the selection is kept for next time)."""
        if self.active:
            self.active = False
            self._paint()

    def _starting_item(self) -> TranscriptItem | None:
        view = self._view
        visible = [item for item, row in view.shown_rows() if shows_message(item) and view.row_is_visible(row)]
        if visible:
            return visible[-1]
        shown = [item for item, _row in view.shown_rows() if shows_message(item)]
        return shown[-1] if shown else None

    # ------------------------------------------------------------------ moves

    def _target(self, start: int, steps: int) -> int:
        """The index `steps` messages away from `start` (notices skipped), stopping at either end."""
        items, step = self._view.items, 1 if steps > 0 else -1
        target, index, remaining = start, start, abs(steps)
        while remaining and 0 <= index + step < len(items):
            index += step
            if shows_message(items[index]):
                target, remaining = index, remaining - 1
        return target

    async def move(self, steps: int) -> None:
        """Select the message `steps` away (negative: earlier), mounting its page when needed."""
        position = self.position
        if position is None or self.row() is None:
            self.start()
            return
        target = self._target(position, steps)
        if target != position:
            await self._go(target)

    async def page(self, direction: int) -> None:
        """Move by about the number of messages on screen."""
        view = self._view
        on_screen = sum(1 for item, row in view.shown_rows() if shows_message(item) and view.row_is_visible(row))
        await self.move(direction * max(1, on_screen - 1))

    async def first(self) -> None:
        self.active = True
        target = self._target(-1, 1)
        if 0 <= target < len(self._view.items):
            await self._go(target)

    async def last(self) -> None:
        self.active = True
        view = self._view
        if not view.at_latest:
            await view.jump_to_latest()
        target = self._target(len(view.items), -1)
        if 0 <= target < len(view.items):
            await self._go(target)

    async def _go(self, index: int) -> None:
        await self._view.show_item(index)
        self._hint = index
        self.select(self._view.items[index])
