"""The row widgets of the transcript: user prompts, streamed answers, notices, summaries, boundary.

Each row is built from a `TranscriptItem` (plain data), so `ConversationView` can drop rows that
scroll out of its window and rebuild them later. `AssistantMessage` streams one answer into an
`AnswerBody` (Markdown segments: each flush re-renders only the last one, and a huge answer shows
its start and end with a "show all" bar between). Very long user messages and reasoning show their
start and a "show all" affordance too; `ShowFullText` opens the whole text in the viewer.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from hermes_tui.lazy_imports import import_off_loop
from hermes_tui.widgets.hidden_text import (
    HiddenTextBar,
    ShowFullText,
    hidden_summary,
    text_preview,
)
from hermes_tui.widgets.tool_card import ToolCard
from hermes_tui.widgets.transcript import (
    KIND_ASSISTANT,
    KIND_NOTICE,
    KIND_SUMMARY,
    KIND_TOOL,
    KIND_USER,
    PLAIN_PREVIEW_CHARS,
    TranscriptItem,
)

if TYPE_CHECKING:  # the Markdown stack: imported with the first answer, or after the first frame
    from hermes_tui.widgets.answer_body import AnswerBody

ANSWER_MODULE = "hermes_tui.widgets.answer_body"


async def import_answer_module() -> None:
    """Import the Markdown stack in a thread before answer rows are built on the loop. On the loop it
    took ~40 ms with a resumed session's first rows (compiled, a quiet machine); and while the
    warm-up's thread was importing it, the loop waited for that thread's import lock. Nothing to do
    once it is imported."""
    await import_off_loop(ANSWER_MODULE)


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
    """What the user typed; a very long text shows its start, and Enter or a click shows all of it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "show_all", "Show the whole message", show=False),
    ]

    def __init__(self, item: TranscriptItem) -> None:
        shown, hidden_chars, hidden_lines = text_preview(item.text)
        self.truncated = hidden_chars > 0
        if self.truncated:
            shown = f"{shown}\n{hidden_summary(hidden_chars, hidden_lines)}"
        super().__init__(shown, markup=False, classes="user-message")
        self.item = item
        self.can_focus = self.truncated

    def action_show_all(self) -> None:
        if self.truncated:
            self.post_message(ShowFullText("Your message", self.item.text))

    def on_click(self, event: events.Click) -> None:
        if self.truncated:
            event.stop()
            self.action_show_all()


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


def reasoning_title(text: str, streaming: bool, words: int | None = None) -> str:
    count = len(text.split()) if words is None else words
    return f"{'Thinking…' if streaming else 'Reasoning'} ({count} words)"


class WordCounter:
    """Counts the words of a text that only grows, reading each new part once."""

    def __init__(self) -> None:
        self.words = 0
        self._length = 0
        self._ends_in_word = False

    def count(self, text: str) -> int:
        new = text[self._length :]
        if new:
            self.words += len(new.split())
            if self._ends_in_word and not new[0].isspace():
                self.words -= 1  # the new part continues the last word
            self._ends_in_word = not new[-1].isspace()
            self._length = len(text)
        return self.words


class AssistantMessage(Vertical):
    """One assistant answer: optional reasoning (dimmed, collapsed), Markdown text, interrupted marker.

    The text lives in an `AnswerBody` (segments; a huge answer shows its start and end and a
    "show all" bar). `sync()` hands it what arrived since the last call, `finish()` the rest and
    renders the last segment once more, whole (so an unclosed-then-closed code fence renders right).
    """

    def __init__(self, item: TranscriptItem) -> None:
        super().__init__(classes="assistant-message")
        self.item = item
        self._lock = asyncio.Lock()
        from hermes_tui.widgets.answer_body import AnswerBody

        self._body = AnswerBody(item.text, finished=not item.streaming)
        self._fed = len(item.text)  # how much of item.text the body was given
        self._shown_reasoning = -1  # length of the reasoning last shown (-1: none yet)
        self._words = WordCounter()

    def compose(self) -> ComposeResult:
        if self.item.reasoning:
            yield self._make_reasoning()
        yield self._body
        if self.item.interrupted:
            yield self._make_marker()

    @staticmethod
    def _make_marker() -> Static:
        return Static(INTERRUPTED_MARKER, markup=False, classes="interrupted-marker")

    def _reasoning_title(self) -> str:
        return reasoning_title(self.item.reasoning, self.item.streaming, self._words.count(self.item.reasoning))

    def _make_reasoning(self) -> Collapsible:
        shown, hidden_chars, hidden_lines = text_preview(self.item.reasoning)
        self._shown_reasoning = len(self.item.reasoning)
        bar = HiddenTextBar("Reasoning", lambda: self.item.reasoning, classes="reasoning-hidden")
        bar.hidden = (hidden_chars, hidden_lines)
        return Collapsible(
            Static(shown, markup=False, classes="reasoning-body"),
            bar,
            title=self._reasoning_title(),
            collapsed=True,
            classes="reasoning",
        )

    def on_mount(self) -> None:
        self._sync_classes()
        self.call_later(self._catch_up)

    async def _catch_up(self) -> None:
        """An answer that finished while this row was mounting gets its final render now (its reasoning
        too: a tool-calling answer may have no text at all)."""
        if self.item.streaming:
            return
        missing_marker = self.item.interrupted and not self.query(".interrupted-marker")
        missing_reasoning = bool(self.item.reasoning) and self._shown_reasoning != len(self.item.reasoning)
        if missing_marker or missing_reasoning or self._fed != len(self.item.text):
            await self.finish()

    def _sync_classes(self) -> None:
        self.set_class(self.item.streaming, "-streaming")
        self.set_class(self.item.interrupted, "-interrupted")

    @property
    def body(self) -> AnswerBody:
        return self._body

    @property
    def shown_source(self) -> str:
        """The answer's Markdown on screen so far ("" before the row is composed)."""
        return self._body.shown_source

    async def _show_reasoning(self) -> None:
        reasoning = self.item.reasoning
        if not reasoning:
            return
        existing = self.query(".reasoning")
        if not existing:
            await self.mount(self._make_reasoning(), before=self._body)
            return
        collapsible = existing.first(Collapsible)
        collapsible.title = self._reasoning_title()
        if len(reasoning) == self._shown_reasoning:
            return
        shown, hidden_chars, hidden_lines = text_preview(reasoning)
        body = collapsible.query_one(".reasoning-body", Static)
        if self._shown_reasoning <= PLAIN_PREVIEW_CHARS:  # the shown start still changes
            body.update(shown)
        collapsible.query_one(".reasoning-hidden", HiddenTextBar).hidden = (hidden_chars, hidden_lines)
        self._shown_reasoning = len(reasoning)

    def _new_text(self) -> str:
        new_text = self.item.text[self._fed :]
        self._fed = len(self.item.text)
        return new_text

    async def sync(self) -> None:
        """Put on screen whatever text and reasoning arrived since the last call."""
        async with self._lock:
            if not (self.is_mounted and self.is_attached):
                return
            await self._show_reasoning()
            new_text = self._new_text()
            if new_text:
                await self._body.write(new_text)

    async def finish(self) -> None:
        """Stop streaming and render the end of the answer once, whole."""
        async with self._lock:
            if not (self.is_mounted and self.is_attached):
                return  # not mounted yet: _catch_up renders the final text
            await self._show_reasoning()
            await self._body.finish(self._new_text())
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
