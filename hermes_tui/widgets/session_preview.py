"""`SessionPreviewPanel`: what the Sessions tree's highlighted session holds, before opening it.

Shows the title, the id, when it started / ended (and why) / was last active, its message count,
its input and output tokens, its place in its compression chain, and its first and last user
messages (clipped, made visible-safe with `text_safety.visible`, never read as markup).

It follows the cursor without stalling the UI: `follow(session_id)` only (re)starts a short
timer; when the cursor has rested for DEBOUNCE_S the preview is read from the store (on the
store's reader thread, through `loader`) in an exclusive worker, so a newer request cancels an
older one, and an answer for a session the cursor has left is dropped. Holding ↓ over thousands
of sessions costs one read when the key is released. `reads` and `dropped` count for tests.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from hermes_tui.text_safety import visible
from hermes_tui.widgets.formatting import cut, format_age, format_tokens

if TYPE_CHECKING:  # the store's preview reader is loaded with the store, after the first frame
    from hermes_tui.store.preview import SessionPreview

DEBOUNCE_S = 0.12
UNSAVED = "Not saved yet — its row is written with the first message."

PreviewLoader = Callable[[str], Awaitable["SessionPreview | None"]]


def _when(epoch: float, zone: tzinfo | None) -> str:
    return datetime.fromtimestamp(epoch, zone).strftime("%Y-%m-%d %H:%M")


def preview_text(preview: SessionPreview, *, now: float, zone: tzinfo | None = None, width: int = 40) -> Text:
    """The panel's text for one session (every stored string shown as data), most telling lines
    first — on a short terminal the dates are what gets cut. User messages get two lines of `width`."""
    text = Text()
    text.append(cut(visible(preview.title or "(untitled)"), max(8, width - 9)), style="bold")
    if preview.archived:
        text.append(" archived", style="italic")
    text.append(f"\n{preview.id}\n", style="dim")
    room = max(16, 2 * width - 10)
    for label, message in (("first", preview.first_user), ("last ", preview.last_user)):
        text.append(f"{label} ", style="dim")
        text.append(f"“{cut(visible(message), room)}”\n" if message else "—\n")
    noun = "msg" if preview.message_count == 1 else "msgs"
    text.append(f"{preview.message_count} {noun} · ")
    text.append(f"{format_tokens(preview.input_tokens)} in / {format_tokens(preview.output_tokens)} out tokens\n")
    text.append(_chain_line(preview) + "\n")
    age = format_age(now - preview.last_active)
    text.append(f"active  {age if age == 'now' else age + ' ago'}\n")
    text.append(f"started {_when(preview.started_at, zone)}\n")
    if preview.ended_at is not None:
        reason = f" · {visible(preview.end_reason)}" if preview.end_reason else ""
        text.append(f"ended   {_when(preview.ended_at, zone)}{reason}\n")
    text.rstrip()
    return text


def _chain_line(preview: SessionPreview) -> str:
    before, after = preview.compressions_before, preview.compressions_after
    if not before and not after:
        return "no compression in its chain"
    total = before + after
    return f"⇣ #{before + 1} of {total + 1} in its compression chain"


class SessionPreviewPanel(Static):
    """The preview under the Sessions tree (see the module docstring)."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.time,
        zone: tzinfo | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__("", markup=False, id=id, classes=classes)
        self.loader: PreviewLoader | None = None
        self.clock = clock
        self.zone = zone
        self.wanted: str | None = None  # the session the cursor is on
        self.shown_id: str | None = None  # the session the panel shows
        self.debounce_s = DEBOUNCE_S
        self.reads = 0
        self.dropped = 0
        self._timer: Timer | None = None

    def follow(self, session_id: str | None, note: str = "") -> None:
        """The cursor moved to `session_id`; show it once the cursor rests (`note`: a text to show
        at once instead of reading, for rows that are not sessions)."""
        self.wanted = session_id
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if session_id is None or note:
            self.shown_id = session_id
            self.update(note)
            return
        self._timer = self.set_timer(self.debounce_s, self._read_wanted)

    def _read_wanted(self) -> None:
        self._timer = None
        if self.wanted is not None and self.loader is not None:
            # a callable, not a coroutine: a worker cancelled before it starts leaves nothing un-awaited
            self.run_worker(functools.partial(self._read, self.wanted), group="session-preview", exclusive=True)

    async def _read(self, session_id: str) -> None:
        assert self.loader is not None
        self.reads += 1
        try:
            preview = await self.loader(session_id)
        except Exception as exc:  # a broken file: one line, never a traceback
            preview, error = None, f"Cannot read this session: {exc}"
        else:
            error = ""
        if session_id != self.wanted:
            self.dropped += 1  # the cursor moved on meanwhile
            return
        self.shown_id = session_id
        if preview is None:
            self.update(Text(visible(error or UNSAVED)))
            return
        width = self.content_region.width or 40
        self.update(preview_text(preview, now=self.clock(), zone=self.zone, width=width))

    def refresh_preview(self) -> None:
        """Read the shown session again (after an action changed it)."""
        if self.wanted is not None:
            self.follow(self.wanted)
