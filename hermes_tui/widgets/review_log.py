"""`ReviewLog`: the live log of what the agent did in the background, newest at the bottom.

Entries are timestamped (from an injectable clock, so tests and snapshots are deterministic) and
carry a kind icon and colour: compression, rotation, memory, skill, warning, info, files (what a
turn changed), rewind. The log keeps at most `max_entries` entries; older ones fall off the top. An
entry that comes before the log is mounted, or while the app takes it down, is kept without being
drawn. An entry may carry a detail (a self-review's diff of the files it changed, a turn's diff): its
line ends with "⧉ changes", a click on the line —
or Enter for the newest such entry — posts `DetailRequested`, and the app opens the detail.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import RichLog

from hermes_tui.text_safety import visible

DEFAULT_MAX_ENTRIES = 500
KIND_ICONS = {
    "compression": "🗜",
    "rotation": "↻",
    "fallback": "↪",
    "memory": "✎",
    "skill": "✦",
    "warning": "⚠",
    "info": "ℹ",
    "files": "✎",  # the files a turn changed
    "rewind": "⏪",  # a rewind to an earlier turn (files, conversation or both)
    "background": "⇄",  # a /background turn reported back
}
KNOWN_KINDS = tuple(KIND_ICONS)
DETAIL_MARK = "  ⧉ changes"


@dataclass(frozen=True)
class ReviewLogEntry:
    time: datetime
    kind: str
    text: str
    detail: str = ""
    key: str = ""  # e.g. the self-review run's state_meta key


class ReviewLog(RichLog):
    """Timestamped review entries (compression, rotation, memory, skill, warning, info)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_latest_detail", "Show the latest review's changes", show=False),
    ]

    class DetailRequested(Message):
        """The user asked to see an entry's detail (a self-review's diff)."""

        def __init__(self, entry: ReviewLogEntry) -> None:
            super().__init__()
            self.entry = entry

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "review-log--time",
        *(f"review-log--{kind}" for kind in KNOWN_KINDS),
    }

    def __init__(
        self,
        *,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        clock: Callable[[], datetime] = datetime.now,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(wrap=True, min_width=1, markup=False, highlight=False, name=name, id=id, classes=classes)
        self.clock = clock
        self._entries: deque[ReviewLogEntry] = deque(maxlen=max(1, max_entries))
        self._rendered_width = 0

    @property
    def entries(self) -> list[ReviewLogEntry]:
        """The entries kept, oldest first."""
        return list(self._entries)

    def add_entry(self, kind: str, text: str, *, detail: str = "", key: str = "", time: datetime | None = None) -> None:
        """Append an entry stamped with the clock's time (or `time`); unknown kinds are shown as info."""
        kind = kind if kind in KIND_ICONS else "info"
        entry = ReviewLogEntry(time or self.clock(), kind, visible(text), visible(detail) if detail else detail, key)
        overflowing = len(self._entries) == self._entries.maxlen
        self._entries.append(entry)
        if not self._can_write:
            return
        if overflowing:
            self._rewrite()
        else:
            self.write(self.entry_text(entry))

    @property
    def _can_write(self) -> bool:
        """Lines can be drawn: mounted (earlier entries are drawn on mount) and not being taken down.
        While the app closes, its widgets are removed one by one and a removed log has lost its
        styles: an entry that comes then (one held behind a long history) is kept, not drawn."""
        return self.is_mounted and self.is_attached and self.app.is_running

    def clear_entries(self) -> None:
        self._entries.clear()
        self.clear()

    def entry_text(self, entry: ReviewLogEntry) -> Text:
        """One entry as shown: "14:03:07 🗜 text"."""
        line = Text()
        line.append(entry.time.strftime("%H:%M:%S") + " ", self.get_component_rich_style("review-log--time"))
        kind_style = self.get_component_rich_style(f"review-log--{entry.kind}", partial=True)
        line.append(KIND_ICONS[entry.kind] + " ", kind_style)
        line.append(entry.text, kind_style if entry.kind == "warning" else "")
        if entry.detail:
            line.append(DETAIL_MARK, self.get_component_rich_style("review-log--time"))
            line.stylize(Style(meta={"review_entry": id(entry)}))
        return line

    def _entry_by_id(self, ident: object) -> ReviewLogEntry | None:
        return next((entry for entry in self._entries if id(entry) == ident), None)

    def on_click(self, event: events.Click) -> None:
        entry = self._entry_by_id(event.style.meta.get("review_entry"))
        if entry is not None:
            event.stop()
            self.post_message(self.DetailRequested(entry))

    def action_open_latest_detail(self) -> None:
        entry = next((e for e in reversed(self._entries) if e.detail), None)
        if entry is not None:
            self.post_message(self.DetailRequested(entry))

    def _rewrite(self) -> None:
        self.clear()
        for entry in self._entries:
            self.write(self.entry_text(entry))

    def on_mount(self) -> None:
        if self._entries:
            self._rewrite()

    def on_resize(self, event: events.Resize) -> None:
        # wrapped lines were cut for the old width: lay them out again
        if event.size.width != self._rendered_width:
            self._rendered_width = event.size.width
            if self._entries:
                self._rewrite()
