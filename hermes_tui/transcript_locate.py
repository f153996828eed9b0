"""Where a stored message sits in the conversation's transcript (no Textual).

The conversation shows transcript items (`widgets.transcript.history_to_items`): a user message is
one item, an assistant message one item plus a card per tool call, and a tool result joins the card
of its call. `item_index_for_message(messages, index)` gives the item that shows `messages[index]`,
and `message_index_for_id(messages, message_id)` finds a stored message (`_db_id`) in the live list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hermes_tui.text_safety import visible_in
from hermes_tui.widgets.transcript import KIND_TOOL, history_to_items, message_text


def message_index_for_id(messages: Sequence[dict[str, Any]], message_id: int) -> int | None:
    """The position of the message stored with row id `message_id`, or None."""
    for index, message in enumerate(messages):
        if message.get("_db_id") == message_id:
            return index
    return None


def message_index_for_text(messages: Sequence[dict[str, Any]], role: str, text: str) -> int | None:
    """The last message with this role whose text contains `text` (a copy kept by a branch or a
    compression has another row id), or None."""
    needle = " ".join(text.replace("…", " ").split())
    if not needle:
        return None
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") == role and needle in " ".join(message_text(message.get("content")).split()):
            return index
    return None


def item_index_for_message(messages: Sequence[dict[str, Any]], index: int) -> int | None:
    """The index of the transcript item showing `messages[index]` (None when out of range or empty).

    A tool result maps to its call's card; a message that shows no item of its own (an empty
    answer) maps to the next item, or the last one.
    """
    if not 0 <= index < len(messages):
        return None
    before = history_to_items(visible_in(list(messages[:index])))
    message = messages[index]
    if message.get("role") == "tool":
        call_id = str(message.get("tool_call_id") or "")
        for position in range(len(before) - 1, -1, -1):
            item = before[position]
            if item.kind == KIND_TOOL and item.call_id == call_id:
                return position
    total = len(history_to_items(visible_in(list(messages))))
    if total == 0:
        return None
    return min(len(before), total - 1)
