"""`ConversationView`: the windowed, streaming transcript of the current session.

Every item of the conversation lives in a plain-data list (`items`); only a bounded window of it is
mounted as widgets — `TranscriptWindow` decides which items that is, this view mounts and unmounts
their rows. A boundary row above the window ("N earlier messages — press ↑ at top / click
to load more") mounts earlier pages on demand; paging back far enough drops the newest rows and
shows a matching boundary below ("N later messages …", End jumps back to the latest), so the number
of mounted rows never exceeds `window_size`. Live answers stream into their row's `AnswerBody`
(Markdown segments; only the last one is re-rendered, and a huge answer keeps only its start and
end on screen); deltas are buffered and flushed at most ~30 times per second, spaced wider by
`FlushPolicy` when the loop is late or busy or a key waits for its frame (`flush_policy`), so a
fast model never starves keyboard input: the rendering gives way, and no text is dropped. "Show all" affordances
post `ShowFullText`, which goes up to the screen (the main screen opens the full-text viewer).
The view follows the bottom with `anchor()` only while the user is at the bottom. The message
cursor (`MessageCursor`, keys in `ConversationKeys`) selects a message to branch from, edit and
resend, or copy; every item carries its message's place in the session's history for that
(`TranscriptItem.message_index`). The rows of pinned messages (`show_pinned`: their state.db rows)
carry a "📌 pinned" line above them, rows mounted later included. `set_display` applies
/reasoning show|hide and the /verbose tool-progress mode to every row, present and future.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.timer import Timer
from textual.widget import Widget

from hermes_tui.text_safety import visible, visible_in
from hermes_tui.widgets.conversation_keys import ConversationKeys
from hermes_tui.widgets.flush_policy import MIN_INTERVAL_S, FlushPolicy, PendingText
from hermes_tui.widgets.message_cursor import MessageCursor
from hermes_tui.widgets.tool_card import ToolCard
from hermes_tui.widgets.transcript import (
    KIND_ASSISTANT,
    KIND_NOTICE,
    KIND_TOOL,
    KIND_USER,
    TOOL_ERROR,
    TOOL_OK,
    TranscriptItem,
    history_to_items,
)
from hermes_tui.widgets.transcript_rows import AssistantMessage, WindowBoundary, build_row, import_answer_module
from hermes_tui.widgets.transcript_window import TranscriptWindow

if TYPE_CHECKING:
    from hermes_tui.core.tools.file_diff import FileChange

DEFAULT_WINDOW_SIZE = 100
DEFAULT_HISTORY_WINDOW = 6  # rows a reopened history mounts (more, this many at a time, while they don't fill the view)
DEFAULT_PAGE_SIZE = 30
PINNED_TITLE = "📌 pinned"  # above a pinned message's row
FIRST_ROWS = 4  # rows of a rebuilt window mounted in its first frame (the newest: the bottom of the view)
ROWS_PER_FRAME = 2  # then the earlier rows, this many per frame
FILL_GROUP = "fill-view"  # the worker that mounts earlier rows until they fill a tall view
DEFAULT_FLUSH_INTERVAL = MIN_INTERVAL_S  # the fastest flush rate: ~30 per second (FlushPolicy spaces them)
BRANCH_NOTE = (
    "A new branch whose history runs up to and including the selected message (past a tool call's"
    " results); the original session stays as it was."
)
EDIT_NOTE = "On your message: a branch whose history ends before it, with its text in the prompt to change and send."


def history_items(messages: list[dict[str, Any]]) -> list[TranscriptItem]:
    """The transcript items of a history, made safe to show (pure: fine in a worker thread)."""
    return history_to_items(visible_in(messages))


class ConversationView(ConversationKeys, VerticalScroll):
    """The conversation: user prompts, streamed answers, tool cards and notices."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "previous", "Previous message (cursor off: scroll up)", show=False),
        Binding("down,j", "next", "Next message (cursor off: scroll down)", show=False),
        Binding("pageup", "page(-1)", "A page of messages back", show=False),
        Binding("pagedown", "page(1)", "A page of messages on", show=False),
        Binding("home,g", "first", "First message (cursor off: the top)", show=False),
        Binding("end,G", "last", "Last message (cursor off: the latest)", show=False),
        Binding("b", "branch_here", "Branch here", id="message-branch", tooltip=BRANCH_NOTE),
        Binding("e", "edit_resend", "Edit & resend", id="message-edit", tooltip=EDIT_NOTE),
        Binding("c", "copy_message", "Copy", id="message-copy"),
        Binding("p", "replay_turn", "Replay this turn on…", id="message-replay"),
        Binding("enter", "open_message", "Open the message", show=False),
        Binding("escape", "leave_cursor", "Back to the prompt", id="message-cursor-leave"),
    ]

    def __init__(
        self,
        *,
        window_size: int = DEFAULT_WINDOW_SIZE,
        history_window: int = DEFAULT_HISTORY_WINDOW,
        page_size: int = DEFAULT_PAGE_SIZE,
        flush_interval: float = DEFAULT_FLUSH_INTERVAL,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._window = TranscriptWindow(window_size=window_size, history_window=history_window, page_size=page_size)
        self.flush_interval = flush_interval
        self.flush_policy = FlushPolicy(min_interval_s=flush_interval)
        self._flush_due = 0.0  # when the flush timer was set to fire (perf_counter)
        self._rows: dict[int, Widget] = {}  # item key -> row widget (mounted, or mounting)
        self._active: TranscriptItem | None = None
        self._pending_text = PendingText()
        self._pending_reasoning = PendingText()
        self._flush_timer: Timer | None = None
        self._earlier = WindowBoundary("earlier")
        self._later = WindowBoundary("later")
        self._window_lock = asyncio.Lock()  # one rebuild at a time
        self._rebuilds = 0  # windows rebuilt so far (a filling view stops when another rebuild came)
        self.flush_count = 0  # flushes that reached the screen (for tests and benchmarks)
        self.cursor = MessageCursor(self)
        self._history_load: AwaitComplete | None = None
        self._keypress_seen = False  # a key came since the last flush or row batch (see note_keypress)
        self._pinned_ids: frozenset[int] = frozenset()  # state.db rows of the pinned messages
        self._tool_progress = "all"  # off | new | all | verbose (`set_display`)

    # ------------------------------------------------------------------ introspection

    @property
    def window_size(self) -> int:
        """The most rows mounted at once."""
        return self._window.window_size

    @property
    def history_window(self) -> int:
        """How many rows a loaded history (or a jump back to the latest) mounts."""
        return self._window.history_window

    @property
    def page_size(self) -> int:
        """How many rows one "load earlier/later" mounts."""
        return self._window.page_size

    @property
    def items(self) -> list[TranscriptItem]:
        """Every transcript item, mounted or not (oldest first). Read-only by convention."""
        return self._window.items

    @property
    def earlier_count(self) -> int:
        """How many items sit above the mounted window."""
        return self._window.earlier_count

    @property
    def later_count(self) -> int:
        """How many items sit below the mounted window (only while browsing back)."""
        return self._window.later_count

    @property
    def at_latest(self) -> bool:
        """True when the newest item is in the mounted window."""
        return self._window.at_latest

    @property
    def mounted_rows(self) -> list[Widget]:
        """The row widgets currently mounted, in order."""
        return [child for child in self.children if not isinstance(child, WindowBoundary)]

    @property
    def boundary(self) -> WindowBoundary:
        """The boundary row above the window."""
        return self._earlier

    @property
    def later_boundary(self) -> WindowBoundary:
        """The boundary row below the window."""
        return self._later

    @property
    def is_following(self) -> bool:
        """True while the user is at the bottom (or everything fits): new rows keep the view at the end."""
        return self.max_scroll_y == 0 or self.scroll_y >= self.max_scroll_y - 1

    @property
    def is_streaming(self) -> bool:
        return self._active is not None

    def streamed_text(self) -> str:
        """The full text of the answer being streamed (flushed or not), or ""."""
        if self._active is None:
            return ""
        return self._active.text + self._pending_text.peek()

    def tool_card(self, call_id: str) -> ToolCard | None:
        """The mounted card of a tool call, if it is in the window."""
        item = self._window.tool(call_id)
        row = self._rows.get(item.key) if item is not None else None
        return row if isinstance(row, ToolCard) else None

    # ------------------------------------------------------------------ lifecycle

    def compose(self) -> Iterable[Widget]:
        yield self._earlier
        yield self._later

    def on_mount(self) -> None:
        unmounted = [row for row in self._rows.values() if not row.is_attached]
        if unmounted:  # items added before the view was on screen
            self.mount_all(unmounted, before=self._later)
        self.anchor()
        self.watch(self.screen, "focused", self._focus_moved, init=False)

    def _sync_boundaries(self) -> None:
        self._earlier.count = self._window.earlier_count
        self._later.count = self._window.later_count

    # ------------------------------------------------------------------ adding items

    def _append(self, item: TranscriptItem) -> None:
        following = self.is_following
        if not self._window.append(item, following=following):
            # rebuilding, browsing back, or reading up in a full window: keep it as data for now
            self._sync_boundaries()
            return
        row = build_row(item)
        self._rows[item.key] = row
        self._dress(item, row)
        if self.is_attached:
            self.mount(row, before=self._later)
            if following:
                self._unmount(self._window.trim_top())  # the window grew too tall: drop the oldest rows

    def _unmount(self, items: Sequence[TranscriptItem]) -> None:
        """Remove the rows of `items` (items that left the window) and update the boundary rows."""
        doomed = [row for item in items if (row := self._rows.pop(item.key, None)) is not None]
        if doomed:
            self.remove_children(doomed)
        if items:
            self._sync_boundaries()

    def add_user(self, text: str) -> None:
        """Show what the user submitted (jumping back to the latest messages if browsing)."""
        self._finish_active_quietly()
        if not self.at_latest:
            self.jump_to_latest()
        self._append(TranscriptItem(kind=KIND_USER, text=visible(text)))

    def begin_assistant(self) -> None:
        """Start a new streamed answer (an unfinished previous one is finished first)."""
        self._finish_active_quietly()
        self._active = TranscriptItem(kind=KIND_ASSISTANT, streaming=True)
        self.flush_policy.restart()
        self._append(self._active)

    def append_text(self, delta: str) -> None:
        """Add streamed answer text; it reaches the screen with the next flush."""
        if not delta:
            return
        if self._active is None:
            self.begin_assistant()
        self._pending_text.add(visible(delta))
        self._schedule_flush()

    def append_reasoning(self, delta: str) -> None:
        """Add streamed reasoning (shown dimmed and collapsed above the answer)."""
        if not delta:
            return
        if self._active is None:
            self.begin_assistant()
        self._pending_reasoning.add(visible(delta))
        self._schedule_flush()

    def end_assistant(self, interrupted: bool = False) -> AwaitComplete:
        """Finish the streamed answer; an interrupted one stays with an "interrupted" marker."""
        item = self._active
        if item is None:
            return AwaitComplete.nothing()
        self._active = None
        self._cancel_flush_timer()
        self._commit_pending(item)
        item.streaming = False
        item.interrupted = interrupted
        if not (item.text.strip() or item.reasoning.strip() or interrupted):
            return self._drop_item(item)  # a tool-calls-only turn leaves no empty answer behind
        row = self._rows.get(item.key)
        if isinstance(row, AssistantMessage) and row.is_attached:
            return AwaitComplete(row.finish())
        return AwaitComplete.nothing()

    def _finish_active_quietly(self) -> None:
        if self._active is not None:
            self.end_assistant()

    def _drop_item(self, item: TranscriptItem) -> AwaitComplete:
        self._window.remove(item)
        self._sync_boundaries()
        row = self._rows.pop(item.key, None)
        if row is not None and row.is_attached:
            return AwaitComplete(row.remove())
        return AwaitComplete.nothing()

    def add_tool_call(self, call_id: str, name: str, arguments: str) -> None:
        """Show a tool call as a running card."""
        self._append(TranscriptItem(kind=KIND_TOOL, call_id=call_id, name=visible(name), arguments=visible(arguments)))

    def finish_tool_call(
        self, call_id: str, result: str, is_error: bool, duration_s: float, changes: Sequence[FileChange] = ()
    ) -> None:
        """Show the result of a tool call, and the files it changed, on its card (a card is created if
        the call was never seen)."""
        result = visible(result)
        item = self._window.tool(call_id)
        if item is None:
            self.add_tool_call(call_id, "tool", "")
            item = self._window.tool(call_id)
            assert item is not None
        row = self._rows.get(item.key)
        if isinstance(row, ToolCard):
            row.finish(result, is_error, duration_s, changes)
        else:
            item.result = result
            item.duration_s = duration_s
            item.changes = tuple(changes)
            item.tool_status = TOOL_ERROR if is_error else TOOL_OK

    def add_notice(self, kind: str, text: str) -> None:
        """A marker in the transcript: "compression", "rotation", "warning", "info"…"""
        self._append(TranscriptItem(kind=KIND_NOTICE, notice_kind=kind, text=visible(text)))

    # ------------------------------------------------------------------ streaming flushes

    def _schedule_flush(self) -> None:
        if self._flush_timer is None and self.is_attached:
            self._set_flush_timer(self.flush_policy.delay_s)

    def _set_flush_timer(self, delay: float) -> None:
        self._flush_due = time.perf_counter() + delay
        self._flush_timer = self.set_timer(delay, self._flush)

    def _cancel_flush_timer(self) -> None:
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None

    def _commit_pending(self, item: TranscriptItem) -> None:
        if self._pending_text:
            item.text += self._pending_text.take()
        if self._pending_reasoning:
            item.reasoning += self._pending_reasoning.take()

    async def _flush(self) -> None:
        self._flush_timer = None
        item = self._active
        if item is None:
            return
        row = self._rows.get(item.key)
        if row is None:  # outside the window (the user is browsing back): keep it as data
            self._commit_pending(item)
            return
        if not isinstance(row, AssistantMessage) or not row.is_mounted:
            self._schedule_flush()  # the row is still mounting: try again next tick
            return
        wait = self.flush_policy.when_due(self._flush_due)
        if wait > 0:  # a key waits to be drawn: its frame goes first, without a layout
            self._set_flush_timer(wait)
            return
        self.flush_policy.flushed()
        self._commit_pending(item)
        self.flush_count += 1
        started = time.perf_counter()
        await row.sync()
        self.call_after_refresh(self._note_flush_cost, started)

    def _note_flush_cost(self, started: float) -> None:
        self.flush_policy.note_cost(time.perf_counter() - started)

    # ------------------------------------------------------------------ history and paging

    def load_history(
        self, messages: list[dict[str, Any]], items: list[TranscriptItem] | None = None, *, in_thread: bool = False
    ) -> AwaitComplete:
        """Replace the transcript with OpenAI-format messages; only the last page is mounted.

        `items` are the messages already converted (`history_items`); `in_thread` converts them in
        a worker thread (10,000 messages take 30-45 ms). `history_loaded()` waits for either.
        """
        self._history_load = AwaitComplete(self._load_history(messages, items, in_thread))
        return self._history_load

    async def _load_history(
        self, messages: list[dict[str, Any]], items: list[TranscriptItem] | None, in_thread: bool
    ) -> None:
        if items is None:
            items = await asyncio.to_thread(history_items, messages) if in_thread else history_items(messages)
            if not self.is_attached:  # the app closed while the thread converted
                return
        await self._replace_items(items)

    async def history_loaded(self) -> None:
        """Wait until the last `load_history` is on screen."""
        if self._history_load is not None:
            await self._history_load

    def clear(self) -> AwaitComplete:
        """Empty the transcript."""
        return AwaitComplete(self._replace_items([]))

    async def _replace_items(self, items: list[TranscriptItem]) -> None:
        async with self._window_lock:  # taken first: a reveal asked for meanwhile comes after this
            if any(item.kind == KIND_ASSISTANT for item in items):
                await import_answer_module()  # off the loop: keys typed while a session opens go on
            self._cancel_flush_timer()
            self._active = None
            self._pending_text.clear()
            self._pending_reasoning.clear()
            self._window.replace(items)
            await self._rebuild_at_latest()

    async def _show_latest(self) -> None:
        async with self._window_lock:
            await self._rebuild_at_latest()

    async def _rebuild_at_latest(self) -> None:
        """Mount the last `history_window` items (and nothing else), following the bottom.

        The newest `FIRST_ROWS` rows come first; the earlier ones are mounted above them a few per
        frame, so no frame has to style and lay out the whole page (20 restored rows took one
        50-70 ms frame, and a key typed meanwhile waited for all of it).
        """
        self._rebuilds += 1
        self._window.rebuilding = True
        try:
            self._rows = {}
            rows = self._build_rows(self._window.reset_to_latest())
            earlier, newest = rows[:-FIRST_ROWS], rows[-FIRST_ROWS:]
            # Rows on screen are swapped for the new ones in one update (no empty frame between);
            # into an empty view (start-up) they come as they mount: an update held for the whole
            # mount (20-30 ms) held every key typed meanwhile too.
            replacing = self.app.batch_update() if self.mounted_rows else contextlib.nullcontext()
            with replacing:
                await self.remove_children(self.mounted_rows)
                self._sync_boundaries()
                if newest:
                    await self.mount_all(newest, before=self._later)
            while earlier and self.is_attached:
                await self._next_frame()
                earlier, batch = earlier[:-ROWS_PER_FRAME], earlier[-ROWS_PER_FRAME:]
                await self.mount_all(batch, after=self._earlier)
        finally:
            self._window.rebuilding = False
        if not self.at_latest:  # items that arrived while the window was rebuilt
            await self._mount_later_page()
        self.anchor()
        self.call_after_refresh(self._start_filling)

    def _start_filling(self) -> None:
        # A worker of its own, not the screen's after-refresh callback: it waits for frames, and the
        # screen runs the next frame's callbacks only after this one returned.
        self.run_worker(self._fill_viewport(), group=FILL_GROUP, exclusive=True)

    def note_keypress(self) -> None:
        """A key was pressed: the next streaming flush waits `KEY_FRAME_S` and a rebuilt window's
        next batch of rows a frame, so the frame that shows the key has nothing to lay out (such a
        frame took 15-25 ms, and the key waited for it on top of the one in progress)."""
        self._keypress_seen = True
        self.flush_policy.note_key()

    async def _next_frame(self) -> None:
        """Until the screen has drawn what was mounted so far — and, after a keypress, one frame more
        (only one: keys typed without a pause slow the rows down, never stop them)."""
        for _ in range(2):
            drawn = asyncio.Event()
            self.call_after_refresh(drawn.set)
            await drawn.wait()
            if not self._keypress_seen:
                return
            self._keypress_seen = False

    async def _fill_viewport(self) -> None:
        """A tall view with short rows: mount earlier rows, `ROWS_PER_FRAME` a frame, until they fill it
        (or run out). A page mounted in one go held keys typed while a session opened for 200-400 ms.
        Each batch is grown and mounted under the window's lock, and none once the window was rebuilt
        since (a message opened far back: rows of the old window must not join the new one, and
        growing above the message would push it out of view before the scroll caught up)."""
        rebuilds = self._rebuilds
        while True:
            async with self._window_lock:
                if not (
                    rebuilds == self._rebuilds
                    and self._window.can_grow_upward
                    and self.is_attached
                    and self._rows_height() < self.scrollable_content_region.height
                ):
                    return
                new_rows = self._build_rows(self._window.grow_upward(ROWS_PER_FRAME))
                await self.mount_all(new_rows, after=self._earlier)
                self._sync_boundaries()
            await self._next_frame()  # measured again once the new rows are laid out; keys go first

    def _rows_height(self) -> int:
        """Lines the mounted rows take (with their margins), whatever the scroll position."""
        shown = [child for child in self.children if child.display and child.region]
        if not shown:
            return 0
        top = min(child.region.y - child.styles.margin.top for child in shown)
        bottom = max(child.region.bottom + child.styles.margin.bottom for child in shown)
        return bottom - top

    def reveal_item(self, index: int) -> AwaitComplete:
        """Show the item at `index`, however far back, scrolled into view and marked (class "-marked");
        the message cursor starts there."""
        return AwaitComplete(self._reveal(index))

    async def _reveal(self, index: int, *, mark: bool = True) -> None:
        async with self._window_lock:
            if not 0 <= index < len(self._window.items):
                return
            self._rebuilds += 1
            self._window.rebuilding = True
            try:
                self._rows = {}
                rows = self._build_rows(self._window.reset_around(index))
                with self.app.batch_update():
                    await self.remove_children(self.mounted_rows)
                    self._sync_boundaries()
                    await self.mount_all(rows, before=self._later)
            finally:
                self._window.rebuilding = False
            self.release_anchor()
            item = self._window.items[index]
            target = self._rows.get(item.key)
            if not mark:
                return
            for row in self.query(".-marked"):
                row.remove_class("-marked")
            self.cursor.note_revealed(item)
            if target is not None:
                target.add_class("-marked")
                self.call_after_refresh(self._keep_in_view, target, True)

    def jump_to_latest(self) -> AwaitComplete:
        """Show the newest messages again (after browsing back) and follow the bottom."""
        if self._window.rebuilding:
            return AwaitComplete.nothing()  # a rebuild is under way; it ends at the latest item
        if self.at_latest:
            self.anchor()
            return AwaitComplete.nothing()
        return AwaitComplete(self._show_latest())

    def load_earlier(self) -> AwaitComplete:
        """Mount the previous page above the window, keeping the reading position."""
        if self._window.earlier_count == 0:
            return AwaitComplete.nothing()
        return AwaitComplete(self._mount_earlier_page())

    async def _mount_earlier_page(self) -> None:
        if self._window.earlier_count == 0 or self._window.rebuilding:
            return
        top = self._window.first_shown
        anchor_row = self._rows.get(top.key) if top is not None else None
        new_rows = self._build_rows(self._window.page_earlier())
        self.release_anchor()
        await self.mount_all(new_rows, after=self._earlier)
        self._unmount(self._window.trim_bottom())
        self._sync_boundaries()
        if anchor_row is not None:
            self.call_after_refresh(self._keep_in_view, anchor_row, True)

    def load_later(self) -> AwaitComplete:
        """Mount the next page below the window (while browsing back)."""
        if self.at_latest or self._window.rebuilding:
            return AwaitComplete.nothing()
        return AwaitComplete(self._mount_later_page())

    async def _mount_later_page(self) -> None:
        if self.at_latest:
            return
        bottom = self._window.last_shown
        anchor_row = self._rows.get(bottom.key) if bottom is not None else None
        end, new_items = self._window.next_later_page()
        new_rows = self._build_rows(new_items)
        await self.mount_all(new_rows, before=self._later)
        # only now: items appended during the mount stay data until the next page
        self._unmount(self._window.extend_to(end))
        self._sync_boundaries()
        if self.at_latest:
            self.anchor()
        elif anchor_row is not None:
            self.call_after_refresh(self._keep_in_view, anchor_row, False)

    def _build_rows(self, items: Sequence[TranscriptItem]) -> list[Widget]:
        """Row widgets for `items`, registered as part of the window (the caller mounts them)."""
        rows = [build_row(item) for item in items]
        for item, row in zip(items, rows, strict=True):
            self._rows[item.key] = row
            self._dress(item, row)
        return rows

    def _dress(self, item: TranscriptItem, row: Widget) -> None:
        """What a new row shows beyond its item: the cursor's marks, 📌, the tool-progress mode."""
        self.cursor.decorate(item, row)
        self._mark_pinned(item, row)
        if isinstance(row, ToolCard):
            if self._tool_progress == "verbose":
                row.expanded = True
            row.set_class(self._tool_progress == "new" and self._repeats_previous_tool(item), "-repeat")

    def _repeats_previous_tool(self, item: TranscriptItem) -> bool:
        """The tool call before `item` in the transcript called the same tool (hidden in "new" mode)."""
        items = self._window.items
        try:
            at = items.index(item)
        except ValueError:
            return False
        previous = next((other for other in reversed(items[:at]) if other.kind == KIND_TOOL), None)
        return previous is not None and previous.name == item.name

    # ------------------------------------------------------------------ what is shown (/reasoning, /verbose)

    def set_display(self, *, show_reasoning: bool, tool_progress: str) -> None:
        """Show or hide reasoning blocks; tool cards as Hermes's /verbose mode says: off (none), new
        (repeats of the previous tool hidden), all, verbose (every card expanded)."""
        self._tool_progress = tool_progress
        self.set_class(not show_reasoning, "-hide-reasoning")
        self.set_class(tool_progress == "off", "-tools-off")
        for item, row in self.shown_rows():
            if isinstance(row, ToolCard):
                if tool_progress == "verbose":
                    row.expanded = True
                row.set_class(tool_progress == "new" and self._repeats_previous_tool(item), "-repeat")

    # ------------------------------------------------------------------ pinned messages

    def show_pinned(self, message_ids: Iterable[int]) -> None:
        """Mark the rows of the messages stored as `message_ids` pinned (and no others)."""
        self._pinned_ids = frozenset(message_ids)
        for item, row in self.shown_rows():
            self._mark_pinned(item, row)

    def is_marked_pinned(self, item: TranscriptItem) -> bool:
        row = self.row_for(item)
        return row is not None and row.has_class("-pinned")

    def _mark_pinned(self, item: TranscriptItem, row: Widget) -> None:
        pinned = item.message_id is not None and item.message_id in self._pinned_ids
        if pinned:
            row.border_title = PINNED_TITLE
        elif row.has_class("-pinned"):
            row.border_title = None
        row.set_class(pinned, "-pinned")

    def _keep_in_view(self, row: Widget, top: bool) -> None:
        if row.is_attached:
            if top:
                self.scroll_to_widget(row, animate=False, top=True)
            else:
                self.scroll_to_widget(row, animate=False)
            self._unscroll_past_top()

    def _unscroll_past_top(self) -> None:
        """Rows that fit the view: never leave it scrolled above its content (Textual's clamp allows
        a negative offset while the content is shorter than the view)."""
        if self.scroll_y < 0 or self.max_scroll_y <= 0:
            self.set_scroll(None, 0)

    # ------------------------------------------------------------------ rows for the message cursor

    def row_for(self, item: TranscriptItem) -> Widget | None:
        """The mounted row of `item`, if it is in the window."""
        row = self._rows.get(item.key)
        return row if row is not None and row.is_attached else None

    def shown_rows(self) -> list[tuple[TranscriptItem, Widget]]:
        """The items of the window with their mounted rows, oldest first."""
        return [(item, row) for item in self._window.shown if (row := self.row_for(item)) is not None]

    def row_is_visible(self, row: Widget) -> bool:
        """True when some of `row` is inside the viewport."""
        region = row.virtual_region
        top = self.scroll_offset.y
        return region.height > 0 and region.bottom > top and region.y < top + self.scrollable_content_region.height

    def keep_row_in_view(self, row: Widget) -> None:
        """Scroll just enough to show `row` (its top, when it is taller than the view)."""
        if row.is_attached and self.max_scroll_y > 0:  # when every row fits, all are in view already
            self.release_anchor()
            self.scroll_to_widget(row, animate=False)
            self._unscroll_past_top()

    async def show_item(self, index: int) -> None:
        """Make sure the item at `index` has a mounted row: the next page when it is close, else a
        window rebuilt around it."""
        window = self._window
        if window.first <= index < window.end:
            return
        if window.first - window.page_size <= index < window.first:
            await self._mount_earlier_page()
        elif window.end <= index < window.end + window.page_size and not self.at_latest:
            await self._mount_later_page()
        if not window.first <= index < window.end:
            await self._reveal(index, mark=False)

    def on_window_boundary_load_page(self, event: WindowBoundary.LoadPage) -> None:
        event.stop()
        if event.direction == "earlier":
            self.load_earlier()
        else:
            self.load_later()
