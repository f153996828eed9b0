"""Cutting a Markdown answer into segments at top-level block boundaries, as it streams in.

An answer is shown as a run of small Markdown widgets ("segments") instead of one big one, so that
an append re-renders only the last segment, and a huge answer can leave its middle out of the
screen. A cut is made only where it cannot change how the text renders: after a blank line,
outside a code fence, before a line that starts a new top-level block (not indented, not a list
item, not a table row). A segment that finds no such place within `hard_chars` is cut at a line
end anyway — inside a code fence the next segment re-opens the fence (`Segment.prefix`) — and one
enormous line is cut at a space, or anywhere. Short answers stay one segment, rendered exactly as a
single Markdown document would be. No Textual here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SEGMENT_TARGET_CHARS = 2_000
"""A segment is closed at the first clean block boundary past this many characters."""
SEGMENT_HARD_CHARS = 8_000
"""…or at a line end (or a space) once it reaches this many, clean boundary or not."""

_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})")
_LIST_MARKER = re.compile(r"(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_UNDECIDED_PREFIX = 11  # a partial line shorter than this may still turn into a list marker ("123456789. ")


@dataclass
class Segment:
    """One segment: its share of the answer's text, and a synthetic opening it needs to render alone."""

    text: str
    prefix: str = ""  # a re-opened code fence (not part of the answer)
    closed: bool = False  # no more text will join this segment
    lines: int = 0  # newlines in `text`, counted when the segment closed

    @property
    def source(self) -> str:
        """The Markdown this segment renders."""
        return self.prefix + self.text


@dataclass(frozen=True)
class _Fence:
    char: str
    length: int
    opening: str  # the opening line, newline included

    def closed_by(self, line: str) -> bool:
        stripped = line.strip()
        return (
            len(line) - len(line.lstrip(" ")) <= 3
            and len(stripped) >= self.length
            and stripped == self.char * len(stripped)
        )


def _fence_opened_by(line: str) -> _Fence | None:
    match = _FENCE_OPEN.match(line)
    if match is None:
        return None
    marker = match.group(1)
    if marker[0] == "`" and "`" in line[match.end() :]:
        return None  # a backtick fence's info string may not contain backticks: this is inline code
    opening = line if line.endswith("\n") else line + "\n"
    return _Fence(marker[0], len(marker), opening.lstrip(" "))


def _starts_top_level_block(line: str) -> bool | None:
    """Whether a line after a blank line begins a block that a cut before it cannot change.

    None when the line is too short to tell yet (it may still become a list marker).
    """
    if not line or line[0] in " \t\n|":
        return False
    if _LIST_MARKER.match(line):
        return False
    if not line.endswith("\n") and len(line) < _UNDECIDED_PREFIX:
        return None
    return True


class SegmentSplitter:
    """Cuts a growing Markdown text into `segments`; only the last one (the open one) still grows."""

    def __init__(self, *, target_chars: int = SEGMENT_TARGET_CHARS, hard_chars: int = SEGMENT_HARD_CHARS) -> None:
        self.target_chars = max(1, target_chars)
        self.hard_chars = max(self.target_chars + 1, hard_chars)
        self.segments: list[Segment] = [Segment("")]
        # The scan of the open segment: where its next unread line starts, the code fence open there,
        # and whether the line before it was blank.
        self._scan = 0
        self._fence: _Fence | None = None
        self._prev_blank = False
        self._mid_line = False  # the open segment starts inside a line cut for its length
        self._undecided = False  # the open segment's last, partial line may still be cut off
        self._finished = False

    @property
    def settled_length(self) -> int:
        """How much of the open segment's text is sure to stay in it (safe to render now)."""
        opened = self.segments[-1]
        return self._scan if self._undecided and not self._finished else len(opened.text)

    def finish(self) -> None:
        """No more text comes: the open segment keeps whatever it holds."""
        self._finished = True
        last = self.segments[-1]
        last.closed = True
        last.lines = last.text.count("\n")

    def feed(self, text: str) -> int:
        """Add `text` at the end; returns the index of the first segment that changed (later ones are new)."""
        first_changed = len(self.segments) - 1
        if not text:
            return first_changed
        if self._finished:
            raise ValueError("the text was finished; nothing can be added")
        opened = self.segments[-1]
        buffer = opened.text + text
        prefix = opened.prefix
        start = 0  # where the open segment begins in `buffer`
        scan = self._scan
        done: list[Segment] = []

        def cut(at: int) -> None:
            nonlocal start, prefix
            text = buffer[start:at]
            done.append(Segment(text, prefix, closed=True, lines=text.count("\n")))
            start = at
            prefix = self._fence.opening if self._fence is not None else ""

        while True:
            newline = buffer.find("\n", scan)
            line_end = len(buffer) if newline == -1 else newline + 1
            line = buffer[scan:line_end]
            decision = self._is_clean_cut(scan - start, line)
            if decision is True:
                cut(scan)
                self._prev_blank = False
            if newline == -1:
                self._undecided = decision is None
                break
            self._read_line(line)
            scan = line_end
            if scan - start >= self.hard_chars:
                cut(scan)
                self._prev_blank = False
        while len(buffer) - start >= self.hard_chars:  # an enormous last line
            if scan > start:  # first close the segment before it, at its start
                cut(scan)
                continue
            window = buffer[start + self.target_chars : start + self.hard_chars]
            space = window.rfind(" ")
            cut(start + self.target_chars + (space + 1 if space >= 0 else len(window)))
            scan = start  # the rest of the line starts the next segment
            self._mid_line = True
            self._prev_blank = False
            self._undecided = False
        self.segments[-1] = done[0] if done else Segment(buffer[start:], prefix)
        if done:
            self.segments.extend(done[1:])
            self.segments.append(Segment(buffer[start:], prefix))
        self._scan = scan - start
        return first_changed

    def _is_clean_cut(self, offset: int, line: str) -> bool | None:
        """True when the open segment may end right before `line` (which starts `offset` chars into it)."""
        if offset < self.target_chars or self._fence is not None or not self._prev_blank:
            return False
        return _starts_top_level_block(line)

    def _read_line(self, line: str) -> None:
        """Update the fence and blank-line state with one complete line."""
        if self._mid_line:  # the rest of a line cut for its length: it opens or closes nothing
            self._mid_line = False
            self._prev_blank = False
            return
        if self._fence is None:
            self._fence = _fence_opened_by(line)
        elif self._fence.closed_by(line):
            self._fence = None
        self._prev_blank = self._fence is None and not line.strip()


def split_segments(text: str) -> list[Segment]:
    """The segments of a whole text (as streaming it in one piece would cut it)."""
    splitter = SegmentSplitter()
    splitter.feed(text)
    splitter.finish()
    return splitter.segments
