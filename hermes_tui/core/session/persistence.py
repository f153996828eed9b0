"""Writing the conversation to state.db through the flush cursor (reference §8 step 2, #860).

The cursor remembers how much of the live message list is already stored, so flushing at the start
of a turn (the user's prompt), after every tool round, on interrupt and at the end of a turn never
writes a row twice; a child session created by compression starts with the cursor at 0 and so
receives the whole compressed list. `to_row` is the one mapping from a canonical message to a
stored row: images never reach the database (list content is stored as its text parts, with
"[screenshot]" where an image was), and secrets never do (`stored_text`, `redact_stored_row`:
masked in the row, while the live message the model reads this turn keeps them; a resumed
session reads the masked form).

The answer being streamed is stored before it ends (crash safety, beyond Hermes): `save_partial`
appends one assistant row holding the text so far with finish_reason "interrupted" — what a reader
finds if the process dies — and later calls rewrite that row's content in place. The row takes the
position the streamed message will have in the list, so the next flush settles it: if an assistant
message (not recovery scaffolding) now sits there, the row is rewritten as that message and counts
as flushed (it keeps its id, the `_db_id` /undo rewinds to); otherwise the stream was not kept (a
retry, a failure) and the row is deleted. Either way nothing is stored twice and the stored rows
stay a valid Hermes history at every moment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_tui.core.context.redact import redact_sensitive_text
from hermes_tui.core.context.redact_records import redact_stored_row
from hermes_tui.core.context.scaffolding import is_scaffolding, strip_trailing_scaffolding
from hermes_tui.core.messages import Message, content_text

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

SCREENSHOT_PLACEHOLDER = "[screenshot]"
INTERRUPTED = "interrupted"  # the finish_reason of an answer that stopped before it ended
_ASSISTANT_ONLY = (
    "reasoning",
    "reasoning_content",
    "reasoning_details",
    "codex_reasoning_items",
    "codex_message_items",
)


def storable_content(content: Any) -> str | None:
    """The content as stored: strings unchanged; lists/envelopes flattened without base64."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, dict) and content.get("_multimodal"):
        return str(content.get("text_summary") or "") or None
    text = content_text(content, image_placeholder=SCREENSHOT_PLACEHOLDER)
    return text or None


def to_row(message: Message) -> dict[str, Any]:
    """The `append_message` keyword arguments for one canonical message."""
    row: dict[str, Any] = {
        "role": message.get("role", "user"),
        "content": storable_content(message.get("content")),
        "tool_name": message.get("tool_name"),
        "tool_calls": message.get("tool_calls") or None,
        "tool_call_id": message.get("tool_call_id"),
        "finish_reason": message.get("finish_reason"),
    }
    if row["role"] == "assistant":
        for key in _ASSISTANT_ONLY:
            if message.get(key) is not None:
                row[key] = message[key]
    return redact_stored_row(row)


def stored_text(text: str) -> str:
    """An answer's text as its row stores it while it streams (secrets masked)."""
    return redact_sensitive_text(text)


@dataclass
class PartialRow:
    """The stored row of the answer being streamed: its id, its place in the list, the text it holds."""

    row_id: int
    position: int
    text: str


class FlushCursor:
    """How far the live message list has been written to the current session.

    `flushed` counts the leading messages already stored. Only the live session moves it: forward on
    a flush, to the list's length when a stored history is loaded or rewound, to 0 when a child
    session must receive the whole list. If the list became shorter than the cursor (in-memory
    scaffolding dropped after it was stored) the cursor follows it down, so nothing new is skipped.
    `partial` is the row of the answer being streamed, until a flush settles it.
    """

    def __init__(self, flushed: int = 0) -> None:
        self.flushed = flushed
        self.partial: PartialRow | None = None

    def reset(self, flushed: int = 0) -> None:
        """Move the cursor (a new list); an unsettled partial row is forgotten, stored as interrupted."""
        self.flushed = max(0, flushed)
        self.partial = None

    def pending(self, messages: list[Message]) -> list[Message]:
        """The messages not yet written."""
        return messages[min(self.flushed, len(messages)) :]

    async def flush(self, db: SessionDB | None, session_id: str, messages: list[Message]) -> int:
        """Append the pending messages to `session_id`; returns how many rows were written.

        Each written message gets its row id as `_db_id` (what /undo rewinds to). A partial row is
        settled in the same transaction (see the module docstring). A failed write raises and
        leaves the cursor where it was, so the next flush retries the same messages.
        """
        if db is None:
            self.flushed = len(messages)
            return 0
        partial = self.partial
        if partial is None:
            pending = self.pending(messages)
            if pending:
                self._took_ids(pending, await db.append_messages(session_id, [to_row(m) for m in pending]))
            self.flushed = len(messages)
            return len(pending)
        kept = self._streamed_message(partial, messages)
        pending = messages[partial.position + 1 :] if kept is not None else self.pending(messages)
        rows = [to_row(m) for m in pending]
        ids = await db.settle_row_and_append(session_id, partial.row_id, None if kept is None else to_row(kept), rows)
        if kept is not None:
            kept["_db_id"] = partial.row_id
        self._took_ids(pending, ids)
        self.partial = None
        self.flushed = len(messages)
        return len(pending) + (kept is not None)

    async def save_partial(self, db: SessionDB, session_id: str, messages: list[Message], text: str) -> None:
        """Store `text`, the answer streamed so far after `messages`, as an interrupted assistant row.

        The first call appends, in one transaction, what is pending before the streamed answer (not
        trailing recovery scaffolding, which the answer replaces) and the row; later calls only
        rewrite its content, and only when the text changed.
        """
        partial = self.partial
        if partial is not None:
            if text != partial.text:
                await db.update_message_content(session_id, partial.row_id, stored_text(text))
                partial.text = text
            return
        kept = strip_trailing_scaffolding(messages)
        before = kept[self.flushed :]
        row = {"role": "assistant", "content": stored_text(text), "finish_reason": INTERRUPTED}
        ids = await db.append_messages(session_id, [*(to_row(m) for m in before), row])
        self._took_ids(before, ids)
        self.flushed = max(self.flushed, len(kept))
        self.partial = PartialRow(ids[-1], self.flushed, text)

    async def discard_partial(self, db: SessionDB | None, session_id: str) -> None:
        """Delete an unsettled partial row (a turn whose end is deliberately not stored)."""
        partial, self.partial = self.partial, None
        if db is not None and partial is not None:
            await db.delete_message(session_id, partial.row_id)

    def _streamed_message(self, partial: PartialRow, messages: list[Message]) -> Message | None:
        """The message the streamed answer became, if it sits where its row was written; else None."""
        position = partial.position
        if position != self.flushed or position >= len(messages):
            return None
        message = messages[position]
        return message if message.get("role") == "assistant" and not is_scaffolding(message) else None

    @staticmethod
    def _took_ids(messages: list[Message], ids: list[int]) -> None:
        for message, row_id in zip(messages, ids, strict=False):
            message["_db_id"] = row_id
