"""Pinned messages: kept verbatim by the next compression, remembered in state.db.

In memory a pinned message carries the flag `core.context.pins.PIN_KEY` (the compressor reads it);
in state.db the pins of a session are `state_meta["pins:<session id>"]`, a JSON list of the
`messages.id` rows pinned. `Pins` is the one owner of both: `pin`/`unpin` (idle only — a running
turn commits its own copy of the list), `restore` after a resume (the stored rows flagged again),
and `carry` after the conversation moved into another session (a compression child, a branch) or
lost messages (/undo): the record of the session now live is rewritten from the flags its messages
carry. Each change emits `PinsChanged`. A compaction summary cannot be pinned: the next summary
folds it in anyway.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from hermes_tui.core import events as ev
from hermes_tui.core.context.pins import is_pinned
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.messages import Message, content_text
from hermes_tui.core.session.live import LiveSession, SessionError
from hermes_tui.store.models import is_summary_text

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

PINS_PREFIX = "pins:"
BUSY = "a turn is running — pin or unpin when it has finished"


def pins_key(session_id: str) -> str:
    return f"{PINS_PREFIX}{session_id}"


def _row_id(message: Message) -> int | None:
    row_id = message.get("_db_id")
    return row_id if isinstance(row_id, int) and not isinstance(row_id, bool) else None


def pinned_row_ids(messages: list[Message]) -> list[int]:
    """The stored row ids of the pinned messages of `messages`, in order."""
    return [row_id for m in messages if is_pinned(m) and (row_id := _row_id(m)) is not None]


def parse_pins(raw: str | None) -> set[int]:
    """The row ids a stored record holds (a damaged record holds none)."""
    try:
        data = json.loads(raw) if raw else []
    except ValueError:
        return set()
    if not isinstance(data, list):
        return set()
    return {item for item in data if isinstance(item, int) and not isinstance(item, bool)}


async def save_pins(db: SessionDB | None, session_id: str, messages: list[Message]) -> None:
    """Write the record of `session_id` from the flags of `messages` (deleted when nothing is pinned)."""
    if db is None:
        return
    ids = pinned_row_ids(messages)
    if ids:
        await db.set_meta(pins_key(session_id), json.dumps(ids))
    else:
        await db.delete_meta(pins_key(session_id))


class Pins:
    """The pinned messages of the live session."""

    def __init__(self, *, session: LiveSession, emitter: Emitter, busy: Callable[[], bool]) -> None:
        self._session = session
        self._events = emitter
        self._busy = busy

    def indices(self) -> list[int]:
        """Positions in the live message list of the pinned messages."""
        return [i for i, m in enumerate(self._session.messages) if is_pinned(m)]

    def _announce(self) -> None:
        self._events.emit(ev.PinsChanged(self._session.id, tuple(self.indices())))

    def _check(self, index: int) -> Message:
        if self._busy():
            raise SessionError(BUSY)
        messages = self._session.messages
        if not 0 <= index < len(messages):
            raise SessionError(f"there is no message {index + 1} in this session ({len(messages)} messages)")
        return messages[index]

    async def pin(self, index: int, label: str = "") -> str:
        """Pin message `index` (of the live list): the next compression keeps it (and its tool-call group).
        `label` names it in the answer (default "message N")."""
        message = self._check(index)
        label = label or f"message {index + 1}"
        if message.get("role") == "system":
            raise SessionError("the system prompt is always kept; there is nothing to pin")
        if is_summary_text(content_text(message.get("content"))):
            raise SessionError("a compaction summary cannot be pinned: the next summary folds it in")
        if is_pinned(message):
            return f"{label.capitalize()} is pinned already."
        await self._session.flush()
        if _row_id(self._session.messages[index]) is None:
            raise SessionError(f"{label} is not saved in state.db yet, so it cannot be pinned")
        self._session.set_pinned(index, True)
        await self._save()
        return f"📌 Pinned {label}: the next compression keeps it verbatim."

    async def unpin(self, index: int, label: str = "") -> str:
        message = self._check(index)
        label = label or f"message {index + 1}"
        if not is_pinned(message):
            return f"{label.capitalize()} is not pinned."
        self._session.set_pinned(index, False)
        await self._save()
        return f"Unpinned {label}: the next compression may summarise it."

    async def _save(self) -> None:
        try:
            await save_pins(self._session.db, self._session.id, self._session.messages)
        except Exception as exc:
            self._events.warn(f"could not save the pinned messages: {exc}")
        self._announce()

    async def restore(self) -> int:
        """Flag the messages the stored record of the live session names (after a resume); how many."""
        db = self._session.db
        if db is None:
            return 0
        ids = parse_pins(await db.get_meta(pins_key(self._session.id)))
        marked = 0
        for index, message in enumerate(self._session.messages):
            if _row_id(message) in ids:
                self._session.set_pinned(index, True)
                marked += 1
        if marked:
            self._announce()
        return marked

    async def carry(self) -> None:
        """The live session changed (a branch, /undo): its record follows the flags its messages carry."""
        if self._session.row_created:
            try:
                await save_pins(self._session.db, self._session.id, self._session.messages)
            except Exception as exc:
                self._events.warn(f"could not save the pinned messages: {exc}")
        if self.indices():
            self._announce()
