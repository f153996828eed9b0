"""The conversation transcript as plain data, and its conversion from OpenAI-format history.

`ConversationView` keeps every item of the conversation here (cheap dataclasses) and mounts
widgets only for a bounded window of them; widgets are (re)built from these items at any time.
Nothing here imports Textual.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hermes_tui.core.messages import content_text
from hermes_tui.store.models import is_summary_text

if TYPE_CHECKING:
    from hermes_tui.core.tools.file_diff import FileChange

KIND_USER = "user"
KIND_ASSISTANT = "assistant"
KIND_TOOL = "tool"
KIND_NOTICE = "notice"
KIND_SUMMARY = "summary"

TOOL_RUNNING = "running"
TOOL_OK = "ok"
TOOL_ERROR = "error"
TOOL_NO_RESULT = "no-result"

IMAGE_PLACEHOLDER = "[image]"

# How much of an item its row shows at most (the rest waits behind a "show all" affordance), and
# what a row costs to keep on screen, in characters: the window of mounted rows is bounded by both.
ANSWER_HEAD_CHARS = 2_000  # the start of a long answer that stays on screen
ANSWER_TAIL_CHARS = 4_000  # the end of a long answer that stays on screen (where it streams)
ANSWER_SHOWN_CHARS = 2 * (ANSWER_HEAD_CHARS + ANSWER_TAIL_CHARS)  # whole segments can overshoot both
PLAIN_PREVIEW_CHARS = 8_000  # a longer user message or reasoning shows its start only
ROW_WEIGHT = 200  # what any row costs, however short

_item_keys = itertools.count(1)


@dataclass(eq=False, slots=True)
class TranscriptItem:
    """One row of the transcript: a user message, an answer, a tool call, a notice or a summary."""

    kind: str
    text: str = ""
    reasoning: str = ""
    streaming: bool = False
    interrupted: bool = False
    # tool calls
    call_id: str = ""
    name: str = ""
    arguments: str = ""
    result: str | None = None
    tool_status: str = TOOL_RUNNING
    duration_s: float | None = None
    changes: tuple[FileChange, ...] = ()  # the files the call changed (live calls; history does not keep them)
    # notices: "compression" | "rotation" | "warning" | "info" | ...
    notice_kind: str = ""
    # where the item's message sits in the session's history (`Agent.messages`): its index and its
    # state.db row id; None until known (a live row is linked when the message cursor needs it,
    # `hermes_tui.widgets.message_links`). A tool card names the assistant message that made the call.
    message_index: int | None = None
    message_id: int | None = None
    key: int = field(default_factory=lambda: next(_item_keys))


def shown_weight(item: TranscriptItem) -> int:
    """What an item's row costs on screen, in characters shown (collapsed rows cost the least)."""
    if item.kind in (KIND_TOOL, KIND_SUMMARY):
        return ROW_WEIGHT
    limit = ANSWER_SHOWN_CHARS if item.kind == KIND_ASSISTANT else PLAIN_PREVIEW_CHARS
    return ROW_WEIGHT + min(len(item.text), limit)


def message_text(content: Any) -> str:
    """The readable text of a message's `content` (string, None, list of parts, or envelope dict)."""
    return content_text(content, image_placeholder=IMAGE_PLACEHOLDER)


def looks_like_error_result(text: str) -> bool:
    """Tool results the registry produces for failures ("Error…", unknown tool, denied command)."""
    stripped = text.lstrip()
    return (
        stripped.startswith("Error")
        or stripped.startswith("Command denied")
        or (stripped.startswith("Tool '") and "does not exist" in stripped[:200])
    )


def _tool_call_fields(call: Any) -> tuple[str, str, str]:
    """(id, name, arguments) of one OpenAI-format tool call; tolerant of odd shapes."""
    if not isinstance(call, dict):
        return "", "tool", ""
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    call_id = str(call.get("call_id") or call.get("id") or "")
    name = str(function.get("name") or call.get("name") or "tool")
    arguments = function.get("arguments", call.get("arguments", ""))
    if not isinstance(arguments, str):
        try:
            arguments = json.dumps(arguments)
        except (TypeError, ValueError):
            arguments = str(arguments)
    return call_id, name, arguments


def history_to_items(messages: Iterable[Any]) -> list[TranscriptItem]:
    """Turn OpenAI-format messages into transcript items; tool results are paired to their card.

    System and `session_meta` rows are skipped, as is anything that is not a message dict. Each
    item carries the position in `messages` and the row id of its message.
    """
    items: list[TranscriptItem] = []
    open_calls: dict[str, TranscriptItem] = {}
    for position, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        text = message_text(message.get("content"))
        first_new = len(items)
        if role == "user":
            kind = KIND_SUMMARY if is_summary_text(text) else KIND_USER
            items.append(TranscriptItem(kind=kind, text=text))
        elif role == "assistant":
            _add_assistant(message, text, items, open_calls)
        elif role == "tool":
            _add_tool_result(message, text, items, open_calls)
        row_id = message.get("_db_id")
        for item in items[first_new:]:
            item.message_index = position
            item.message_id = row_id if isinstance(row_id, int) else None
    for item in open_calls.values():
        item.tool_status = TOOL_NO_RESULT
    return items


def _add_assistant(
    message: dict[str, Any], text: str, items: list[TranscriptItem], open_calls: dict[str, TranscriptItem]
) -> None:
    if is_summary_text(text):
        items.append(TranscriptItem(kind=KIND_SUMMARY, text=text))
        text = ""
    reasoning = message.get("reasoning") or message.get("reasoning_content") or ""
    if not isinstance(reasoning, str):
        reasoning = ""
    interrupted = bool(message.get("_interrupted")) or message.get("finish_reason") == "interrupted"
    if text.strip() or reasoning.strip() or interrupted:
        items.append(TranscriptItem(kind=KIND_ASSISTANT, text=text, reasoning=reasoning, interrupted=interrupted))
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        call_id, name, arguments = _tool_call_fields(call)
        card = TranscriptItem(kind=KIND_TOOL, call_id=call_id, name=name, arguments=arguments)
        items.append(card)
        if call_id:
            open_calls[call_id] = card
        else:
            card.tool_status = TOOL_NO_RESULT  # no id: no result can ever be paired with it


def _add_tool_result(
    message: dict[str, Any], text: str, items: list[TranscriptItem], open_calls: dict[str, TranscriptItem]
) -> None:
    call_id = str(message.get("tool_call_id") or "")
    card = open_calls.pop(call_id, None)
    if card is None:  # a result whose call we never saw: show it on a card of its own
        card = TranscriptItem(kind=KIND_TOOL, call_id=call_id, name=str(message.get("tool_name") or "tool"))
        items.append(card)
    card.result = text
    is_error = bool(message.get("_is_error") or message.get("is_error")) or looks_like_error_result(text)
    card.tool_status = TOOL_ERROR if is_error else TOOL_OK
