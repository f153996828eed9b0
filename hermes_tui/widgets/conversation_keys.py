"""`ConversationKeys`: what the conversation's keys and clicks do (mixed into `ConversationView`).

With the message cursor off (the conversation merely focused), ↑/↓ scroll — at the top or bottom
of the mounted window they load the neighbouring page — PgUp/PgDn scroll a page, Home goes to the
top and End back to the latest messages. With the cursor on (F5, or a click on a message) the same
keys, and k/j/g/G, move the cursor between messages (`MessageCursor`); a message taller than the
view scrolls before the cursor leaves it. On the selected message: b branch here, e edit and
resend (a user message only), c copy, Enter opens it; Esc turns the cursor off and returns to the
prompt, as does focus moving anywhere else. The keys themselves are `ConversationView.BINDINGS`
(Textual reads bindings from widget classes only); the actions on a message are offered only
while the cursor is on (`check_action`), so the footer shows them exactly then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.widget import Widget

from hermes_tui.widgets.hidden_text import ShowFullText
from hermes_tui.widgets.message_cursor import (
    ACTION_BRANCH,
    ACTION_COPY,
    ACTION_EDIT,
    ACTION_REPLAY,
    MessageActionRequested,
    MessageCursor,
)
from hermes_tui.widgets.message_links import shows_message
from hermes_tui.widgets.tool_card import ToolCard
from hermes_tui.widgets.transcript import TranscriptItem

if TYPE_CHECKING:
    from textual.await_complete import AwaitComplete
    from textual.geometry import Offset, Region
    from textual.screen import Screen

    from hermes_tui.widgets.transcript_window import TranscriptWindow

CURSOR_ACTIONS = frozenset(
    {"branch_here", "edit_resend", "copy_message", "replay_turn", "open_message", "leave_cursor"}
)


class ConversationKeys:
    """The key and click handlers of `ConversationView` (which provides the attributes below)."""

    cursor: MessageCursor
    _window: TranscriptWindow

    if TYPE_CHECKING:  # what ConversationView (a VerticalScroll) provides

        @property
        def at_latest(self) -> bool: ...
        @property
        def scroll_offset(self) -> Offset: ...
        @property
        def scrollable_content_region(self) -> Region: ...
        @property
        def has_focus_within(self) -> bool: ...
        @property
        def screen(self) -> Screen[object]: ...

        scroll_y: float
        max_scroll_y: float

        def load_earlier(self) -> AwaitComplete: ...
        def load_later(self) -> AwaitComplete: ...
        def jump_to_latest(self) -> AwaitComplete: ...
        def scroll_up(self, *, animate: bool = ...) -> None: ...
        def scroll_down(self, *, animate: bool = ...) -> None: ...
        def scroll_page_up(self, *, animate: bool = ...) -> None: ...
        def scroll_page_down(self, *, animate: bool = ...) -> None: ...
        def scroll_home(self, *, animate: bool = ...) -> None: ...
        def scroll_end(self, *, animate: bool = ...) -> None: ...
        def focus(self, scroll_visible: bool = ...) -> object: ...
        def blur(self) -> object: ...
        def post_message(self, message: object) -> bool: ...

    # ------------------------------------------------------------------ the cursor off: scrolling

    def action_scroll_up_or_load(self) -> None:
        """↑: scroll up; at the top, load the previous page."""
        if self.scroll_y <= 0 and self._window.earlier_count > 0:
            self.load_earlier()
        else:
            self.scroll_up()

    def action_scroll_down_or_load(self) -> None:
        """↓: scroll down; at the bottom while browsing back, load the next page."""
        if self.scroll_y >= self.max_scroll_y and not self.at_latest:
            self.load_later()
        else:
            self.scroll_down()

    def action_jump_to_latest(self) -> None:
        if self.at_latest:
            self.scroll_end(animate=False)
        else:
            self.jump_to_latest()

    # ------------------------------------------------------------------ the cursor on and off

    def start_cursor(self) -> None:
        """Focus the conversation with the message cursor on (F5)."""
        self.focus(scroll_visible=False)
        self.cursor.start()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The actions on the selected message exist while the cursor is on; "edit" only on a prompt."""
        if action not in CURSOR_ACTIONS:
            return True
        if not self.cursor.active or self.cursor.selected is None:
            return False
        if action == "edit_resend" and not self.cursor.on_user_message:
            return None  # shown, greyed out: only the user's own messages can be edited
        return True

    def _focus_moved(self, focused: Widget | None) -> None:
        if focused is not None and focused is not self and self not in focused.ancestors:
            self.cursor.stop()

    def action_leave_cursor(self) -> None:
        """Esc: the cursor off, back to the prompt."""
        self.cursor.stop()
        self.screen.focus_next("PromptInput")

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """A click on a message selects it (and turns the cursor on)."""
        widget = event.widget
        while widget is not None and widget.parent is not self:
            widget = widget.parent if isinstance(widget.parent, Widget) else None
        item = getattr(widget, "item", None)
        if isinstance(item, TranscriptItem) and shows_message(item):
            self.cursor.active = True
            self.cursor.select(item)

    # ------------------------------------------------------------------ moving

    def _selected_row_continues(self, direction: int) -> bool:
        """True when the selected row goes on beyond the viewport in `direction` (a long message)."""
        row = self.cursor.row()
        if row is None:
            return False
        region, top = row.virtual_region, self.scroll_offset.y
        if direction > 0:
            return region.bottom > top + self.scrollable_content_region.height
        return region.y < top

    async def action_previous(self) -> None:
        """↑ / k: the previous message (a long selected one scrolls first); scroll with the cursor off."""
        if not self.cursor.active:
            self.action_scroll_up_or_load()
        elif self._selected_row_continues(-1):
            self.scroll_up(animate=False)
        else:
            await self.cursor.move(-1)

    async def action_next(self) -> None:
        """↓ / j: the next message (a long selected one scrolls first); scroll with the cursor off."""
        if not self.cursor.active:
            self.action_scroll_down_or_load()
        elif self._selected_row_continues(1):
            self.scroll_down(animate=False)
        else:
            await self.cursor.move(1)

    async def action_page(self, direction: int) -> None:
        """PgUp / PgDn: about a screenful of messages; scroll a page with the cursor off."""
        if self.cursor.active:
            await self.cursor.page(direction)
        elif direction > 0:
            self.scroll_page_down(animate=False)
        else:
            self.scroll_page_up(animate=False)

    async def action_first(self) -> None:
        if self.cursor.active:
            await self.cursor.first()
        else:
            self.scroll_home(animate=False)

    async def action_last(self) -> None:
        if self.cursor.active:
            await self.cursor.last()
        else:
            self.action_jump_to_latest()

    # ------------------------------------------------------------------ on the selected message

    def _request(self, action: str) -> None:
        if self.cursor.selected is not None:
            self.post_message(MessageActionRequested(self.cursor.selected, action))

    def action_branch_here(self) -> None:
        self._request(ACTION_BRANCH)

    def action_edit_resend(self) -> None:
        self._request(ACTION_EDIT)

    def action_copy_message(self) -> None:
        self._request(ACTION_COPY)

    def action_replay_turn(self) -> None:
        self._request(ACTION_REPLAY)

    def action_open_message(self) -> None:
        """Enter: a tool card opens or closes; any other message shows whole in the viewer."""
        item, row = self.cursor.selected, self.cursor.row()
        if isinstance(row, ToolCard):
            row.action_toggle()
        elif item is not None:
            self.post_message(ShowFullText("Message", item.text))
