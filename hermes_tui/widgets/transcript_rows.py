"""The row widgets of the transcript: user prompts, streamed answers, notices, summaries, boundary.

Each row is built from a `TranscriptItem` (plain data), so `ConversationView` can drop rows that
scroll out of its window and rebuild them later. `AssistantMessage` owns the Markdown stream of one
answer: `sync()` writes what is new since the last call, `finish()` stops the stream and renders
the full text once (so an unclosed-then-closed code fence renders correctly).
"""

from __future__ import annotations

import asyncio

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from hermes_tui.widgets.tool_card import ToolCard
from hermes_tui.widgets.transcript import (
    KIND_ASSISTANT,
    KIND_NOTICE,
    KIND_SUMMARY,
    KIND_TOOL,
    KIND_USER,
    TranscriptItem,
)

NOTICE_ICONS = {
    "compression": "🗜",
    "rotation": "↻",
    "warning": "⚠",
    "error": "✗",
    "interrupted": "⏹",
    "info": "ℹ",
}
INTERRUPTED_MARKER = "⏹ interrupted — the answer stopped here"


def notice_icon(kind: str) -> str:
    return NOTICE_ICONS.get(kind, "•")


class UserMessage(Static):
    """What the user typed."""

    def __init__(self, item: TranscriptItem) -> None:
        super().__init__(item.text, markup=False, classes="user-message")
        self.item = item


class NoticeRow(Static):
    """A marker in the transcript: compression, session rotation, warning, info."""

    def __init__(self, item: TranscriptItem) -> None:
        kind = item.notice_kind or "info"
        super().__init__(f"{notice_icon(kind)} {item.text}", markup=False, classes=f"notice -{kind}")
        self.item = item


class CompactionSummary(Collapsible):
    """A compression summary (the handoff message), collapsed to one line by default."""

    def __init__(self, item: TranscriptItem) -> None:
        line_count = len(item.text.splitlines())
        super().__init__(
            Static(item.text, markup=False, classes="summary-body"),
            title=f"🗜 Compaction summary — earlier turns were compacted ({line_count} lines)",
            collapsed=True,
            classes="compaction-summary",
        )
        self.item = item


def _consume_outcome(task: asyncio.Task[None]) -> None:
    """Retrieve a background task's outcome so a failure on a removed widget is not reported later."""
    if not task.cancelled():
        task.exception()


def reasoning_title(text: str, streaming: bool) -> str:
    words = len(text.split())
    return f"{'Thinking…' if streaming else 'Reasoning'} ({words} words)"


class AssistantMessage(Vertical):
    """One assistant answer: optional reasoning (dimmed, collapsed), Markdown text, interrupted marker."""

    def __init__(self, item: TranscriptItem) -> None:
        super().__init__(classes="assistant-message")
        self.item = item
        self._lock = asyncio.Lock()
        self._stream: MarkdownStream | None = None
        self._shown_text_len = 0
        self._shown_reasoning = ""

    def compose(self) -> ComposeResult:
        if self.item.reasoning:
            yield self._make_reasoning()
        self._shown_text_len = len(self.item.text)
        yield Markdown(self.item.text, classes="assistant-markdown")
        if self.item.interrupted:
            yield self._make_marker()

    @staticmethod
    def _make_marker() -> Static:
        return Static(INTERRUPTED_MARKER, markup=False, classes="interrupted-marker")

    def _make_reasoning(self) -> Collapsible:
        self._shown_reasoning = self.item.reasoning
        return Collapsible(
            Static(self.item.reasoning, markup=False, classes="reasoning-body"),
            title=reasoning_title(self.item.reasoning, self.item.streaming),
            collapsed=True,
            classes="reasoning",
        )

    def on_mount(self) -> None:
        self._sync_classes()
        self.call_later(self._catch_up)

    def on_unmount(self) -> None:
        """A row dropped from the window mid-stream stops its stream task (the text stays in the item)."""
        if self._stream is not None:
            stream, self._stream = self._stream, None
            task = asyncio.get_running_loop().create_task(stream.stop())
            task.add_done_callback(_consume_outcome)

    async def _catch_up(self) -> None:
        """An answer that finished while this row was mounting gets its final render now."""
        if self.item.streaming:
            return
        missing_marker = self.item.interrupted and not self.query(".interrupted-marker")
        if missing_marker or self._shown_text_len != len(self.item.text):
            await self.finish()

    def _sync_classes(self) -> None:
        self.set_class(self.item.streaming, "-streaming")
        self.set_class(self.item.interrupted, "-interrupted")

    @property
    def markdown(self) -> Markdown:
        return self.query_one(".assistant-markdown", Markdown)

    @property
    def shown_source(self) -> str:
        """The Markdown source on screen so far ("" before the row is composed)."""
        found = self.query(".assistant-markdown")
        return found.first(Markdown).source if found else ""

    async def _show_reasoning(self) -> None:
        if not self.item.reasoning:
            return
        if self.item.reasoning == self._shown_reasoning:
            title = reasoning_title(self.item.reasoning, self.item.streaming)
            for collapsible in self.query(".reasoning").results(Collapsible):
                collapsible.title = title
            return
        existing = self.query(".reasoning")
        if not existing:
            await self.mount(self._make_reasoning(), before=self.markdown)
            return
        collapsible = existing.first(Collapsible)
        collapsible.title = reasoning_title(self.item.reasoning, self.item.streaming)
        collapsible.query_one(".reasoning-body", Static).update(self.item.reasoning)
        self._shown_reasoning = self.item.reasoning

    async def sync(self) -> None:
        """Put on screen whatever text and reasoning arrived since the last call."""
        async with self._lock:
            if not (self.is_mounted and self.is_attached):
                return
            await self._show_reasoning()
            new_text = self.item.text[self._shown_text_len :]
            if new_text:
                if self._stream is None:
                    self._stream = Markdown.get_stream(self.markdown)
                self._shown_text_len = len(self.item.text)
                await self._stream.write(new_text)

    async def finish(self) -> None:
        """Stop streaming and render the complete answer once."""
        async with self._lock:
            if self._stream is not None:
                stream, self._stream = self._stream, None
                await stream.stop()
            if not (self.is_mounted and self.is_attached):
                return  # not mounted yet: _catch_up renders the final text
            await self._show_reasoning()
            await self.markdown.update(self.item.text)
            self._shown_text_len = len(self.item.text)
            if self.item.interrupted and not self.query(".interrupted-marker"):
                await self.mount(self._make_marker())
            self._sync_classes()


class WindowBoundary(Static):
    """A row at an edge of the mounted window: how many items lie beyond it and how to load them.

    `direction` is "earlier" (above the window) or "later" (below it, while browsing back).
    """

    class LoadPage(Message):
        """The user asked for the next page beyond this boundary."""

        def __init__(self, direction: str) -> None:
            super().__init__()
            self.direction = direction

    count: reactive[int] = reactive(0)

    def __init__(self, direction: str) -> None:
        super().__init__("", markup=False, classes=f"window-boundary -{direction}")
        self.direction = direction

    def watch_count(self, count: int) -> None:
        self.display = count > 0
        noun = "message" if count == 1 else "messages"
        if self.direction == "earlier":
            self.update(f"▲ {count} earlier {noun} — press ↑ at top / click to load more")
        else:
            self.update(f"▼ {count} later {noun} — press ↓ at bottom / click to load more, End for the latest")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.LoadPage(self.direction))


def build_row(item: TranscriptItem) -> Widget:
    """The widget that shows `item`."""
    if item.kind == KIND_USER:
        return UserMessage(item)
    if item.kind == KIND_ASSISTANT:
        return AssistantMessage(item)
    if item.kind == KIND_TOOL:
        return ToolCard(item)
    if item.kind == KIND_SUMMARY:
        return CompactionSummary(item)
    if item.kind == KIND_NOTICE:
        return NoticeRow(item)
    raise ValueError(f"unknown transcript item kind: {item.kind!r}")
