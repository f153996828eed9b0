"""`TranscriptWindow`: which transcript items are on screen — a bounded window over the whole conversation.

The conversation keeps every item as plain data (`items`, oldest first); only the slice
`items[first:end]` is mounted as widgets. This class decides which items join or leave that slice
— appending while following the bottom, paging earlier or later a page at a time, trimming the
window back to `window_size`, rebuilding it at the latest `history_window` items — and reports the
items that moved, so `ConversationView` only mounts and unmounts the matching rows. Rows are also
weighed (`shown_weight`: roughly the characters a row puts on screen), and the window holds at
most `weight_budget` of them, a rebuild or a page at most half that — at least one item always —
so a few huge messages never mount more widgets than many small ones. No Textual here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from hermes_tui.widgets.transcript import KIND_TOOL, TranscriptItem, shown_weight

MIN_WINDOW_SIZE = 2
DEFAULT_WEIGHT_BUDGET = 48_000


class TranscriptWindow:
    """Every transcript item, and the bounded run of them that is shown."""

    def __init__(
        self,
        *,
        window_size: int,
        history_window: int,
        page_size: int,
        weight_budget: int = DEFAULT_WEIGHT_BUDGET,
        weigh: Callable[[TranscriptItem], int] = shown_weight,
    ) -> None:
        """`window_size`: most rows shown at once; `history_window`: rows shown after a rebuild;
        `page_size`: rows one "load earlier/later" adds (both capped at `window_size`);
        `weight_budget`: most weight shown at once (`weigh` tells an item's)."""
        self.window_size = max(MIN_WINDOW_SIZE, window_size)
        self.history_window = max(1, min(history_window, self.window_size))
        self.page_size = max(1, min(page_size, self.window_size))
        self.weight_budget = max(1, weight_budget)
        self.page_budget = max(1, weight_budget // 2)
        self._weigh = weigh
        self.items: list[TranscriptItem] = []
        self.first = 0  # index in `items` of the first shown item
        self.end = 0  # index in `items` just past the last shown item
        self.rebuilding = False  # while true, new items wait as data (a rebuild is mounting rows)
        self._tools: dict[str, TranscriptItem] = {}

    # ------------------------------------------------------------------ what is shown

    @property
    def shown(self) -> list[TranscriptItem]:
        """The items in the window, oldest first."""
        return self.items[self.first : self.end]

    @property
    def size(self) -> int:
        """How many items the window holds."""
        return self.end - self.first

    @property
    def earlier_count(self) -> int:
        """How many items sit above the window."""
        return self.first

    @property
    def later_count(self) -> int:
        """How many items sit below the window (only while browsing back)."""
        return len(self.items) - self.end

    @property
    def at_latest(self) -> bool:
        """True when the newest item is in the window."""
        return self.end == len(self.items)

    @property
    def first_shown(self) -> TranscriptItem | None:
        return self.items[self.first] if self.first < self.end else None

    @property
    def last_shown(self) -> TranscriptItem | None:
        return self.items[self.end - 1] if self.first < self.end else None

    @property
    def can_grow_upward(self) -> bool:
        """True when earlier items exist and the window has room for some of them."""
        return (
            self.first > 0
            and self.size < self.window_size
            and self.weight(self.first - 1, self.end) <= self.weight_budget
        )

    def weight(self, start: int, end: int) -> int:
        """The weight of the items in [start, end)."""
        return sum(self._weigh(item) for item in self.items[start:end])

    def _first_within(self, start: int, end: int, budget: int) -> int:
        """The smallest index >= `start` (at most `end - 1`) from which the items up to `end` weigh <= `budget`."""
        total = self.weight(start, end)
        while total > budget and start < end - 1:
            total -= self._weigh(self.items[start])
            start += 1
        return start

    def _end_within(self, start: int, end: int, budget: int) -> int:
        """The largest index <= `end` (at least `start + 1`) up to which the items from `start` weigh <= `budget`."""
        total = self.weight(start, end)
        while total > budget and end > start + 1:
            end -= 1
            total -= self._weigh(self.items[end])
        return end

    def tool(self, call_id: str) -> TranscriptItem | None:
        """The item of a tool call, shown or not."""
        return self._tools.get(call_id)

    # ------------------------------------------------------------------ adding and removing items

    def append(self, item: TranscriptItem, *, following: bool) -> bool:
        """Add `item` at the end; True when it joins the window (the caller then shows its row).

        It stays data while a rebuild is under way, while the user browses earlier pages, or when
        the window is full and the user has scrolled up to read (`following` is False).
        """
        showing_latest = self.at_latest
        window_full = self.size >= self.window_size or self.weight(self.first, self.end) >= self.weight_budget
        self.items.append(item)
        if item.kind == KIND_TOOL and item.call_id:
            self._tools[item.call_id] = item
        if self.rebuilding or not showing_latest or (window_full and not following):
            return False
        self.end = len(self.items)
        return True

    def remove(self, item: TranscriptItem) -> bool:
        """Forget `item`; True when it was in the window (the caller removes its row)."""
        index = self.items.index(item)
        del self.items[index]
        if item.call_id and self._tools.get(item.call_id) is item:
            del self._tools[item.call_id]
        was_shown = self.first <= index < self.end
        if index < self.first:
            self.first -= 1
        if index < self.end:
            self.end -= 1
        return was_shown

    def replace(self, items: Iterable[TranscriptItem]) -> None:
        """Swap in a whole new transcript; call `reset_to_latest` next to choose the window."""
        self.items = list(items)
        self._tools = {item.call_id: item for item in self.items if item.kind == KIND_TOOL and item.call_id}

    # ------------------------------------------------------------------ moving the window

    def reset_to_latest(self) -> list[TranscriptItem]:
        """Show only the last `history_window` items (within the page budget); returns them (the rows to mount)."""
        self.end = len(self.items)
        self.first = self._first_within(max(0, self.end - self.history_window), self.end, self.page_budget)
        return self.shown

    def reset_around(self, index: int) -> list[TranscriptItem]:
        """Show up to `history_window` items with `index` a third of the way down; returns them."""
        index = max(0, min(index, len(self.items) - 1))
        self.first = max(0, index - self.history_window // 3)
        self.end = min(len(self.items), self.first + self.history_window)
        self.first = max(0, min(self.first, self.end - self.history_window))
        return self.shown

    def drop_above(self, new_first: int) -> list[TranscriptItem]:
        """Move the top of the window down to `new_first`; returns the items that left it."""
        if new_first <= self.first:
            return []
        gone = self.items[self.first : new_first]
        self.first = new_first
        return gone

    def drop_below(self, new_end: int) -> list[TranscriptItem]:
        """Move the bottom of the window up to `new_end`; returns the items that left it."""
        if new_end >= self.end:
            return []
        gone = self.items[new_end : self.end]
        self.end = new_end
        return gone

    def trim_top(self) -> list[TranscriptItem]:
        """Drop the oldest shown items beyond `window_size` or the weight budget; returns them."""
        start = max(self.first, self.end - self.window_size)
        return self.drop_above(self._first_within(start, self.end, self.weight_budget))

    def trim_bottom(self) -> list[TranscriptItem]:
        """Drop the newest shown items beyond `window_size` or the weight budget; returns them."""
        end = min(self.end, self.first + self.window_size)
        return self.drop_below(self._end_within(self.first, end, self.weight_budget))

    def page_earlier(self) -> list[TranscriptItem]:
        """Move the top of the window a page up; returns the items that joined (oldest first).

        The window may now exceed `window_size`; `trim_bottom` brings it back.
        """
        start = self._first_within(max(0, self.first - self.page_size), self.first, self.page_budget)
        joined = self.items[start : self.first]
        self.first = start
        return joined

    def grow_upward(self, rows: int | None = None) -> list[TranscriptItem]:
        """Add up to `rows` earlier items (default: a page) without passing `window_size`; returns them."""
        if not self.can_grow_upward:
            return []
        step = self.page_size if rows is None else max(1, rows)
        start = max(0, self.first - step, self.end - self.window_size)
        start = min(self.first, self._first_within(start, self.end, self.weight_budget))
        joined = self.items[start : self.first]
        self.first = start
        return joined

    def next_later_page(self) -> tuple[int, list[TranscriptItem]]:
        """The page below the window, not yet part of it: (its end index, its items).

        The caller mounts the rows, then calls `extend_to(end)`; items appended meanwhile stay data.
        """
        end = min(len(self.items), self.end + self.page_size)
        if end > self.end:
            end = self._end_within(self.end, end, self.page_budget)
        return end, self.items[self.end : end]

    def extend_to(self, end: int) -> list[TranscriptItem]:
        """The window now reaches `end`; returns the oldest items dropped to stay within `window_size`."""
        self.end = end
        return self.trim_top()
