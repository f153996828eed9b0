"""Writing the conversation to state.db through the flush cursor (reference §8 step 2, #860).

The cursor remembers how much of the live message list is already stored, so flushing after every
tool round, on interrupt and at the end of a turn never writes a row twice; a child session created
by compression starts with the cursor at 0 and so receives the whole compressed list. `to_row` is
the one mapping from a canonical message to a stored row: images never reach the database (list
content is stored as its text parts, with "[screenshot]" where an image was).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_tui.core.messages import Message, content_text

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

SCREENSHOT_PLACEHOLDER = "[screenshot]"
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
    return row


class FlushCursor:
    """How far the live message list has been written to the current session.

    `flushed` counts the leading messages already stored. Only the live session moves it: forward on
    a flush, to the list's length when a stored history is loaded or rewound, to 0 when a child
    session must receive the whole list. If the list became shorter than the cursor (in-memory
    scaffolding dropped after it was stored) the cursor follows it down, so nothing new is skipped.
    """

    def __init__(self, flushed: int = 0) -> None:
        self.flushed = flushed

    def reset(self, flushed: int = 0) -> None:
        self.flushed = max(0, flushed)

    def pending(self, messages: list[Message]) -> list[Message]:
        """The messages not yet written."""
        return messages[min(self.flushed, len(messages)) :]

    async def flush(self, db: SessionDB | None, session_id: str, messages: list[Message]) -> int:
        """Append the pending messages to `session_id`; returns how many rows were written.

        Each written message gets its row id as `_db_id` (what /undo rewinds to). A failed write
        raises and leaves the cursor where it was, so the next flush retries the same messages.
        """
        pending = self.pending(messages)
        if db is None or not pending:
            self.flushed = len(messages)
            return 0
        ids = await db.append_messages(session_id, [to_row(m) for m in pending])
        for message, row_id in zip(pending, ids, strict=False):
            message["_db_id"] = row_id
        self.flushed = len(messages)
        return len(pending)
