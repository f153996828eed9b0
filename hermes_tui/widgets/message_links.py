"""Which message of the session's history a transcript item shows (no Textual).

The conversation's rows are not the history's messages: notices have no message, an assistant
message can show as an answer plus a card per tool call, a tool result joins its call's card, and
the window mounts only some rows. So each `TranscriptItem` carries its message's position in
`Agent.messages` (`message_index`) and state.db row id (`message_id`), set when a history is
loaded (`history_to_items`). Rows that streamed in during this run start without them, and a
compression replaces the history under rows already shown; `message_index_for(item, items,
messages)` checks an item's link against the history (by row id when both have one, else by role
and text) and, when it does not hold, links every item again (`link_items`): the transcript and
the history are matched from both ends (like a diff trims a common prefix and suffix), so the
rows a compression summarised away stay unlinked rather than pointing at some other message.
`copy_text` is what "copy" puts on the clipboard.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hermes_tui.text_safety import visible, visible_in
from hermes_tui.widgets.transcript import (
    KIND_ASSISTANT,
    KIND_SUMMARY,
    KIND_TOOL,
    KIND_USER,
    TranscriptItem,
    history_to_items,
    message_text,
)

MESSAGE_KINDS = frozenset({KIND_USER, KIND_ASSISTANT, KIND_TOOL, KIND_SUMMARY})
"""The kinds of item that show a message of the history (notices do not)."""


def shows_message(item: TranscriptItem) -> bool:
    return item.kind in MESSAGE_KINDS


def _same_item(shown: TranscriptItem, canonical: TranscriptItem) -> bool:
    """True when a transcript item and an item built from the history show the same thing."""
    if shown.kind != canonical.kind:
        return False
    if shown.kind == KIND_TOOL:
        return bool(shown.call_id) and shown.call_id == canonical.call_id
    return shown.text.strip() == canonical.text.strip()


def _calls_of(message: dict[str, Any]) -> set[str]:
    calls = message.get("tool_calls")
    found: set[str] = set()
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict):
            found.add(str(call.get("call_id") or call.get("id") or ""))
    return found


def link_holds(item: TranscriptItem, messages: Sequence[dict[str, Any]]) -> bool:
    """True when `item`'s link still names the message it shows."""
    index = item.message_index
    if index is None or not 0 <= index < len(messages) or not isinstance(messages[index], dict):
        return False
    message = messages[index]
    row_id = message.get("_db_id")
    if item.message_id is not None and isinstance(row_id, int):
        return row_id == item.message_id
    role = message.get("role")
    if item.kind == KIND_TOOL:
        if role == "tool":
            return str(message.get("tool_call_id") or "") == item.call_id
        return role == "assistant" and item.call_id in _calls_of(message)
    if item.kind == KIND_USER and role != "user":
        return False
    if item.kind == KIND_ASSISTANT and role != "assistant":
        return False
    return visible(message_text(message.get("content"))).strip() == item.text.strip()


def link_items(items: Sequence[TranscriptItem], messages: Sequence[dict[str, Any]]) -> int:
    """Link every message item of the transcript to the history again; returns how many are linked.

    Items matched from the end (the newest rows) and from the start get the position and row id
    of their message; the ones in between (summarised by a compression, or not saved) get None.
    """
    canonical = history_to_items(visible_in(list(messages)))
    shown = [item for item in items if shows_message(item)]
    linked: dict[int, TranscriptItem] = {}  # id(shown item) -> its canonical twin
    back = 0
    while back < min(len(shown), len(canonical)) and _same_item(shown[-1 - back], canonical[-1 - back]):
        linked[id(shown[-1 - back])] = canonical[-1 - back]
        back += 1
    front = 0
    room = min(len(shown), len(canonical)) - back
    while front < room and _same_item(shown[front], canonical[front]):
        linked[id(shown[front])] = canonical[front]
        front += 1
    for item in shown:
        twin = linked.get(id(item))
        item.message_index = twin.message_index if twin is not None else None
        item.message_id = twin.message_id if twin is not None else None
    return len(linked)


def message_index_for(
    item: TranscriptItem, items: Sequence[TranscriptItem], messages: Sequence[dict[str, Any]]
) -> int | None:
    """The position in `messages` of the message `item` shows, linking the transcript again if
    needed; None when it is not in this history (a notice, or a row a compression summarised)."""
    if not shows_message(item):
        return None
    if not link_holds(item, messages):
        link_items(items, messages)
    return item.message_index if link_holds(item, messages) else None


def copy_text(item: TranscriptItem, messages: Sequence[dict[str, Any]]) -> str:
    """The text "copy" puts on the clipboard: the stored message's text when the item is linked
    (the tool's result for a tool card), else what the row shows."""
    index = item.message_index if link_holds(item, messages) else None
    if item.kind == KIND_TOOL:
        call = f"{item.name}({item.arguments})" if item.arguments else item.name
        result = item.result if item.result is not None else ""
        for message in messages[index + 1 :] if index is not None else ():
            if message.get("role") != "tool":
                break
            if str(message.get("tool_call_id") or "") == item.call_id:
                result = message_text(message.get("content"))
                break
        return f"{call}\n\n{result}" if result else call
    if index is not None:
        return message_text(messages[index].get("content"))
    return item.text
