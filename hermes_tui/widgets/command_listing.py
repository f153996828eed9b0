"""`CommandListing`: a command shown whole for approval — every line numbered, long lines folded,
flagged spans highlighted where they are.

Owns the layout of a command's text as `text_safety.approval_view` made it safe (every control
and format character an escape): one row per line, more when a line is wider than the listing
(the continuation rows carry "↪" in the gutter instead of a number), tabs expanded to the next
multiple of four, escapes in their own colour and every span the risk check flagged
(`danger.Risk`, offsets in the command, mapped into the shown text) in the danger colour. It
answers on which row each flagged line starts (`flagged_rows`), so the approval screen can say
when one is out of view. Its colours are its component classes, set in styles.tcss.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import get_character_cell_size
from rich.text import Text
from textual.geometry import Size
from textual.widget import Widget

from hermes_tui.core.tools.danger import Risk
from hermes_tui.text_safety import ApprovalView

TAB_SIZE = 4
MIN_TEXT_WIDTH = 8
CONTINUATION = "↪"


@dataclass(frozen=True)
class FlaggedLine:
    """A line holding at least one flagged span: its number (from 1), the row it starts on, the reasons."""

    line: int
    row: int
    reasons: tuple[str, ...]


@dataclass
class _Layout:
    """The listing folded for one width."""

    text: Text
    first_row: list[int]  # the row each line starts on
    folds: list[list[int]]  # for each line, the offsets (in its expanded text) where a new row starts


def _expanded(line: str) -> tuple[str, list[int] | None]:
    """`line` with tabs expanded, and where each of its characters went (None: nowhere else)."""
    if "\t" not in line:
        return line, None
    out: list[str] = []
    moved: list[int] = []
    column = 0
    for ch in line:
        moved.append(column)
        if ch == "\t":
            width = TAB_SIZE - column % TAB_SIZE
            out.append(" " * width)
            column += width
        else:
            out.append(ch)
            column += 1
    moved.append(column)
    return "".join(out), moved


def _local(offset: int, line_start: int, line: str, moved: list[int] | None) -> int:
    """An offset in the shown text as an offset in one line's expanded text (clipped to the line)."""
    offset = min(max(offset - line_start, 0), len(line))
    return moved[offset] if moved is not None else offset


def _fold_offsets(text: str, width: int) -> list[int]:
    """Offsets in `text` where a row of `width` cells ends and the next begins."""
    if text.isascii():
        return list(range(width, len(text), width))
    offsets: list[int] = []
    cells = 0
    for index, ch in enumerate(text):
        size = get_character_cell_size(ch)
        if cells + size > width and index > 0:
            offsets.append(index)
            cells = 0
        cells += size
    return offsets


class CommandListing(Widget):
    """The numbered, folded, highlighted lines of one command (see the module docstring)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "command-listing--gutter",
        "command-listing--risk",
        "command-listing--escape",
    }

    def __init__(self, view: ApprovalView, risks: Sequence[Risk], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view
        lines = view.text.split("\n")
        if len(lines) > 1 and lines[-1] == "":
            lines.pop()  # a final newline ends the last line; it does not start another
        self.lines = lines
        self.line_starts: list[int] = []
        offset = 0
        for line in lines:
            self.line_starts.append(offset)
            offset += len(line) + 1
        spans = [(view.view_offset(risk.start), view.view_offset(risk.end), risk.reason) for risk in risks]
        self.spans = sorted(((start, max(end, start + 1), reason) for start, end, reason in spans), key=lambda s: s[:2])
        self._layouts: dict[int, _Layout] = {}

    @property
    def line_count(self) -> int:
        return len(self.lines)

    @property
    def gutter_width(self) -> int:
        return len(str(self.line_count)) + 3  # "12 │ "

    def line_of(self, view_offset: int) -> int:
        """The index of the line holding a character of the shown text."""
        return max(bisect.bisect_right(self.line_starts, view_offset) - 1, 0)

    # ------------------------------------------------------------------ layout

    def _text_width(self, width: int) -> int:
        return max(width - self.gutter_width, MIN_TEXT_WIDTH)

    def _layout(self, width: int) -> _Layout:
        layout = self._layouts.get(width)
        if layout is None:
            layout = self._layouts[width] = self._build(width)
        return layout

    def _build(self, width: int) -> _Layout:
        text_width = self._text_width(width)
        digits = self.gutter_width - 3
        gutter_style = self.get_component_rich_style("command-listing--gutter", partial=True)
        risk_style = self.get_component_rich_style("command-listing--risk", partial=True)
        escape_style = self.get_component_rich_style("command-listing--escape", partial=True)
        escapes = [(shown, shown + length) for _, shown, length in self.view.escapes]
        out = Text(no_wrap=True, overflow="crop", end="")
        first_row: list[int] = []
        folds: list[list[int]] = []
        row = 0
        for index, line in enumerate(self.lines):
            start = self.line_starts[index]
            end = start + len(line)
            shown, moved = _expanded(line)
            styled = Text(shown, no_wrap=True, end="")

            for ranges, style in ((escapes, escape_style), ([(s, e) for s, e, _ in self.spans], risk_style)):
                for span_start, span_end in ranges:
                    if span_start < end and span_end > start:
                        first, last = _local(span_start, start, line, moved), _local(span_end, start, line, moved)
                        styled.stylize(style, first, last)
            offsets = _fold_offsets(shown, text_width)
            first_row.append(row)
            folds.append(offsets)
            for part, piece in enumerate(styled.divide(offsets) if offsets else [styled]):
                if row:
                    out.append("\n")
                label = f"{index + 1:>{digits}}" if part == 0 else f"{CONTINUATION:>{digits}}"
                out.append(f"{label} │ ", gutter_style)
                out.append(piece)
                row += 1
        return _Layout(out, first_row, folds)

    def flagged_rows(self, width: int) -> list[FlaggedLine]:
        """Each line holding a flagged span, the row its first span starts on, and its reasons."""
        layout = self._layout(width)
        found: dict[int, tuple[int, list[str]]] = {}
        for span_start, _, reason in self.spans:
            index = self.line_of(span_start)
            line = self.lines[index]
            _, moved = _expanded(line)
            column = min(span_start - self.line_starts[index], len(line))
            column = moved[column] if moved is not None else column
            row = layout.first_row[index] + bisect.bisect_right(layout.folds[index], column)
            first, reasons = found.setdefault(index, (row, []))
            if reason not in reasons:
                reasons.append(reason)
            found[index] = (min(first, row), reasons)
        return [FlaggedLine(index + 1, row, tuple(reasons)) for index, (row, reasons) in sorted(found.items())]

    # ------------------------------------------------------------------ Textual

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._layout(width).text.plain.count("\n") + 1

    def render(self) -> Text:
        return self._layout(self.size.width).text

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._layouts.clear()  # the component styles may have changed (a theme switch)
