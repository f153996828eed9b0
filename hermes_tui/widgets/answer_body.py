"""`AnswerBody`: an assistant answer's Markdown, as a run of segments, with a huge answer's middle left out.

The text is cut into segments at top-level block boundaries (`markdown_segments`); each shown
segment is one Markdown widget. Streaming appends only to the last segment, so a flush costs the
same whether the answer is 2 KB or 5 MB. Only the first `HEAD_CHARS` and the last `TAIL_CHARS`
(whole segments, at least one each) are on screen; the segments between them are replaced by a
`HiddenTextBar` ("… 120,100 lines, 4.8 MB not shown here — Enter or click: show all") that opens
the whole answer in the full-text viewer. So the widgets of one answer stay few however long it
grows, and the screen's layout cost with them. An answer that fits both budgets is shown whole,
and one without a clean cut (under ~2,000 characters) is a single Markdown document as before.
"""

from __future__ import annotations

import asyncio
import functools

from markdown_it import MarkdownIt
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Markdown

from hermes_tui.widgets.hidden_text import HiddenTextBar
from hermes_tui.widgets.markdown_segments import Segment, SegmentSplitter
from hermes_tui.widgets.transcript import ANSWER_HEAD_CHARS, ANSWER_TAIL_CHARS

HEAD_CHARS = ANSWER_HEAD_CHARS
TAIL_CHARS = ANSWER_TAIL_CHARS
SEGMENT_CLASS = "assistant-markdown"


@functools.cache
def shared_parser() -> MarkdownIt:
    """One Markdown parser for every segment: Textual builds a new one per update and append
    otherwise (~0.75 ms each, on every streaming flush). Parsing keeps no state between calls."""
    return MarkdownIt("gfm-like")


def shown_ranges(
    segments: list[Segment], head_chars: int = HEAD_CHARS, tail_chars: int = TAIL_CHARS
) -> tuple[int, int]:
    """(head_end, tail_start): segments [0, head_end) and [tail_start, n) are shown, those between not.

    The head is the longest run of closed segments from the start within `head_chars` (at least the
    first segment); the tail the longest run from the end within `tail_chars` (at least the last).
    """
    count = len(segments)
    head_end, used = 0, 0
    for index, segment in enumerate(segments):
        if index > 0 and (not segment.closed or used + len(segment.text) > head_chars):
            break
        used += len(segment.text)
        head_end = index + 1
    tail_start, used = count - 1, len(segments[-1].text)
    while tail_start > head_end and used + len(segments[tail_start - 1].text) <= tail_chars:
        tail_start -= 1
        used += len(segments[tail_start].text)
    return head_end, max(tail_start, head_end)


class AnswerBody(Vertical):
    """The Markdown of one answer: shown segments, and a "show all" bar for the ones left out."""

    def __init__(self, text: str, *, finished: bool, title: str = "Answer", classes: str = "answer-body") -> None:
        super().__init__(classes=classes)
        self._splitter = SegmentSplitter()
        self._splitter.feed(text)
        if finished:
            self._splitter.finish()
        self._views: dict[int, Markdown] = {}  # segment index -> its mounted Markdown
        self._rendered: dict[int, int] = {}  # segment index -> length of the source given to its view
        self._bar = HiddenTextBar(title, self.full_text, classes="answer-hidden")
        self._lock = asyncio.Lock()

    # ------------------------------------------------------------------ reading

    @property
    def segments(self) -> list[Segment]:
        return self._splitter.segments

    def full_text(self) -> str:
        """The whole answer received so far."""
        return "".join(segment.text for segment in self._splitter.segments)

    @property
    def shown_source(self) -> str:
        """The answer's text the shown segments render (without re-opened fences)."""
        segments = self._splitter.segments
        parts = []
        for index in sorted(self._views):
            prefix = segments[index].prefix
            parts.append(self._views[index].source[len(prefix) :])
        return "".join(parts)

    @property
    def hidden_chars(self) -> int:
        """How much of the answer the bar stands for."""
        return self._bar.hidden[0]

    @property
    def bar(self) -> HiddenTextBar:
        return self._bar

    @property
    def view_count(self) -> int:
        """How many Markdown segments are mounted."""
        return len(self._views)

    # ------------------------------------------------------------------ building

    def _target(self, index: int) -> str:
        """The source segment `index` should show now (an open segment's undecided end is held back)."""
        segment = self._splitter.segments[index]
        if segment.closed or index < len(self._splitter.segments) - 1:
            return segment.source
        return segment.prefix + segment.text[: self._splitter.settled_length]

    def _new_view(self, index: int) -> Markdown:
        source = self._target(index)
        view = Markdown(source, classes=SEGMENT_CLASS, parser_factory=shared_parser)
        self._views[index] = view
        self._rendered[index] = len(source)
        return view

    def compose(self) -> ComposeResult:
        head_end, tail_start = shown_ranges(self._splitter.segments)
        for index in range(head_end):
            yield self._new_view(index)
        self._set_hidden(head_end, tail_start)
        yield self._bar
        for index in range(tail_start, len(self._splitter.segments)):
            yield self._new_view(index)

    def _set_hidden(self, head_end: int, tail_start: int) -> None:
        hidden = self._splitter.segments[head_end:tail_start]
        self._bar.hidden = (sum(len(segment.text) for segment in hidden), sum(segment.lines for segment in hidden))

    # ------------------------------------------------------------------ streaming

    async def write(self, text: str) -> None:
        """Add streamed text: the last segment grows, new segments appear, old ones may leave the screen."""
        async with self._lock:
            first_changed = self._splitter.feed(text)
            await self._show_segments(first_changed)

    async def finish(self, text: str = "") -> None:
        """Add the last text, then render the last segment once more, whole (as a complete document)."""
        async with self._lock:
            first_changed = self._splitter.feed(text) if text else len(self._splitter.segments) - 1
            self._splitter.finish()
            last = len(self._splitter.segments) - 1
            await self._show_segments(first_changed)
            view = self._views.get(last)
            if view is not None and view.is_mounted:
                source = self._target(last)
                await view.update(source)
                self._rendered[last] = len(source)

    async def _show_segments(self, first_changed: int) -> None:
        if not self.is_mounted:
            return
        segments = self._splitter.segments
        head_end, tail_start = shown_ranges(segments)
        wanted = set(range(head_end)) | set(range(tail_start, len(segments)))
        leaving = []
        for index in [index for index in self._views if index not in wanted]:
            leaving.append(self._views.pop(index))
            self._rendered.pop(index, None)
        if leaving:
            await self.remove_children(leaving)
        for index in sorted(self._views):
            if index >= first_changed:
                await self._catch_up(index)
        self._set_hidden(head_end, tail_start)
        new_views = [self._new_view(index) for index in sorted(wanted - self._views.keys())]
        last_head = self._views.get(head_end - 1)
        if self._bar.display and last_head is not None and not self._bar_follows(last_head):
            self.move_child(self._bar, after=last_head)
        if new_views:
            await self.mount_all(new_views)

    def _bar_follows(self, view: Markdown) -> bool:
        """True when the bar is already right after `view` (moving it would cost a layout)."""
        children = list(self.children)
        position = children.index(view) if view in children else -2
        return children[position + 1 : position + 2] == [self._bar]

    async def _catch_up(self, index: int) -> None:
        """Bring one mounted segment's view up to its source: append what is new, or re-render if cut."""
        view = self._views[index]
        if not view.is_mounted:
            return
        source = self._target(index)
        rendered = self._rendered.get(index, 0)
        if len(source) > rendered:
            await view.append(source[rendered:])
        elif len(source) < rendered:
            await view.update(source)
        self._rendered[index] = len(source)
