"""`FullTextView`: a whole text of any size (megabytes), scrolled line by line, wrapped to the width.

Only the rows on screen are drawn (Textual's line API), so scrolling a 5 MB text costs what
scrolling a short one does. The text is cut into rows for the current width in a worker thread
(`wrap_rows`), again on each width change; until the rows are ready the view says so. The usual
scrolling keys work (↑ ↓ PgUp PgDn Home End) and the mouse wheel. Control characters are drawn as
visible symbols (␛, ␍, …): the rows go to the terminal as they are, so nothing in them may act
on it.
"""

from __future__ import annotations

import asyncio

from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

TAB_SIZE = 4
WAITING_TEXT = "Laying out the text…"


def _control_pictures() -> dict[int, str]:
    table = {code: chr(0x2400 + code) for code in range(0x20) if code not in (0x09, 0x0A)}
    table[0x7F] = "\u2421"  # ␡
    table.update({code: f"\\x{code:02x}" for code in range(0x80, 0xA0)})
    return table


_VISIBLE_CONTROLS = _control_pictures()


def visible_text(text: str) -> str:
    """`text` with every control character (but newline and tab) drawn as a visible symbol."""
    return text.translate(_VISIBLE_CONTROLS)


def _wrap_line(line: str, width: int) -> list[str]:
    if line.isascii():
        rows: list[str] = []
        while len(line) > width:
            cut = line.rfind(" ", 1, width + 1)
            if cut <= 0:
                cut = width
            rows.append(line[:cut])
            line = line[cut:].lstrip(" ")
        rows.append(line)
        return rows
    return chop_cells(line, width) or [""]


def wrap_rows(text: str, width: int) -> list[str]:
    """The rows `text` takes at `width` cells: lines wrapped at spaces (ASCII) or at the width."""
    width = max(1, width)
    rows: list[str] = []
    for line in visible_text(text).split("\n"):
        if "\t" in line:
            line = line.expandtabs(TAB_SIZE)
        if len(line) <= width and (line.isascii() or cell_len(line) <= width):
            rows.append(line)
        else:
            rows.extend(_wrap_line(line, width))
    return rows


class FullTextView(ScrollView, can_focus=True):
    """A read-only, wrapped view of a whole text; only visible rows are drawn."""

    def __init__(
        self, text: str, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.text = text
        self.rows: list[str] = []
        self._wrapped_width = -1
        self._wrap_task: asyncio.Task[None] | None = None

    @property
    def ready(self) -> bool:
        """True once the rows for the current width are laid out."""
        return self._wrapped_width == self._text_width() and self._wrap_task is None

    def _text_width(self) -> int:
        return max(1, self.scrollable_content_region.width)

    def on_resize(self) -> None:
        self._schedule_wrap()

    def on_mount(self) -> None:
        self._schedule_wrap()

    def _schedule_wrap(self) -> None:
        width = self._text_width()
        if width == self._wrapped_width or not self.is_attached:
            return
        if self._wrap_task is not None:
            self._wrap_task.cancel()
        self._wrap_task = asyncio.get_running_loop().create_task(self._wrap(width))

    async def _wrap(self, width: int) -> None:
        rows = await asyncio.to_thread(wrap_rows, self.text, width)
        self._wrap_task = None
        self.rows = rows
        self._wrapped_width = width
        self.virtual_size = Size(width, len(rows))
        self.refresh()
        self.call_after_refresh(self._schedule_wrap)  # resized meanwhile: wrap again

    def on_unmount(self) -> None:
        if self._wrap_task is not None:
            self._wrap_task.cancel()
            self._wrap_task = None

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        style = self.rich_style
        if self._wrapped_width < 0:
            text = WAITING_TEXT if y == 0 else ""
            return Strip([Segment(text, style)]).adjust_cell_length(width, style)
        index = self.scroll_offset.y + y
        row = self.rows[index] if 0 <= index < len(self.rows) else ""
        return Strip([Segment(row, style)]).adjust_cell_length(width, style)
