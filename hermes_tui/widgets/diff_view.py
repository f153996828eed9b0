"""A file change drawn as a coloured unified diff: `diff_text` for a few rows, `DiffView` for a whole diff.

Both draw `DiffRow`s (`hermes_tui.widgets.diff_rows`): the file's title (its `+a` and `−b` in the
added and removed colours), hunk headers, added, removed and context lines, git's no-newline
marker and the size line of a binary or huge file, each role in the colour styles.tcss gives it.
`diff_text(rows, style_of)` is a Rich Text for a widget that renders a handful of rows itself (the
tool card, whose component classes supply `style_of`). `DiffView` is a scrollable view of any
number of rows that draws only the rows on screen (Textual's line API): long lines are not wrapped
but scroll sideways, so a 5,000-line diff scrolls as fast as a short one. The rows' text was made
safe when the rows were built, so it goes to the terminal as it is. `ShowWholeDiff` asks for the
viewer (`screens/diff.py`) on some changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from hermes_tui.widgets.diff_rows import ROLE_ADDED, ROLE_FILE, ROLE_REMOVED, ROLES, DiffRow

if TYPE_CHECKING:
    from hermes_tui.core.tools.file_diff import FileChange

_COUNTS = re.compile(r" (\+\d+) (−\d+)")


class ShowWholeDiff(Message):
    """Open the whole diff of some changes in the diff viewer (posted by a tool card)."""

    def __init__(self, title: str, changes: Sequence[FileChange]) -> None:
        super().__init__()
        self.title = title
        self.changes = tuple(changes)


def _count_spans(title: str) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Where the `+a` and `−b` of a title are (the last such pair: a path may hold one too)."""
    found = list(_COUNTS.finditer(title))
    if not found:
        return None
    match = found[-1]
    return match.span(1), match.span(2)


def append_title(text: Text, title: str, style_of: Callable[[str], Style]) -> None:
    """Add a file title to `text`, its counts in the added and removed colours."""
    start = len(text)
    text.append(title, style_of(ROLE_FILE))
    spans = _count_spans(title)
    if spans is not None:
        (added_start, added_end), (removed_start, removed_end) = spans
        text.stylize(style_of(ROLE_ADDED), start + added_start, start + added_end)
        text.stylize(style_of(ROLE_REMOVED), start + removed_start, start + removed_end)


def diff_text(rows: Iterable[DiffRow], style_of: Callable[[str], Style]) -> Text:
    """The rows as one Text, a row per line, long lines cut with an ellipsis (never wrapped)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    for index, row in enumerate(rows):
        if index:
            text.append("\n")
        if row.role == ROLE_FILE:
            append_title(text, row.text, style_of)
        else:
            text.append(row.text, style_of(row.role))
    return text


class DiffView(ScrollView, can_focus=True):
    """A whole diff, scrolled with the keys and the wheel; only the rows on screen are drawn."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"diff-view--{role}" for role in ROLES}

    def __init__(
        self, rows: Sequence[DiffRow], *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.rows = list(rows)
        self._widths = [cell_len(row.text) for row in self.rows]
        self.virtual_size = Size(max(self._widths, default=0), len(self.rows))

    def row_text(self, index: int) -> str:
        """The plain text of row `index` (tests and copy read it)."""
        return self.rows[index].text

    def _style(self, role: str) -> Style:
        return self.get_component_rich_style(f"diff-view--{role}", partial=True)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        if not 0 <= index < len(self.rows):
            return Strip.blank(width, base)
        row = self.rows[index]
        if row.role == ROLE_FILE:
            line = Text(end="")
            append_title(line, row.text, lambda role: base + self._style(role))
            segments = list(line.render(self.app.console))
        else:
            segments = [Segment(row.text, base + self._style(row.role))]
        strip = Strip(segments, self._widths[index])
        return strip.crop(scroll_x, scroll_x + width).adjust_cell_length(width, base)
