"""`ReviewLog`: the live log of what the agent did in the background, newest at the bottom.

Entries are timestamped (from an injectable clock, so tests and snapshots are deterministic) and
carry a kind icon and colour: compression, rotation, memory, skill, warning, info. The log keeps at
most `max_entries` entries; older ones fall off the top.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.widgets import RichLog

DEFAULT_MAX_ENTRIES = 500
KIND_ICONS = {
    "compression": "🗜",
    "rotation": "↻",
    "fallback": "↪",
    "memory": "✎",
    "skill": "✦",
    "warning": "⚠",
    "info": "ℹ",
}
KNOWN_KINDS = tuple(KIND_ICONS)


@dataclass(frozen=True)
class ReviewLogEntry:
    time: datetime
    kind: str
    text: str


class ReviewLog(RichLog):
    """Timestamped review entries (compression, rotation, memory, skill, warning, info)."""

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

    def add_entry(self, kind: str, text: str) -> None:
        """Append an entry stamped with the clock's time; unknown kinds are shown as info."""
        kind = kind if kind in KIND_ICONS else "info"
        entry = ReviewLogEntry(self.clock(), kind, text)
        overflowing = len(self._entries) == self._entries.maxlen
        self._entries.append(entry)
        if not self.is_mounted:
            return
        if overflowing:
            self._rewrite()
        else:
            self.write(self.entry_text(entry))

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
        return line

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
