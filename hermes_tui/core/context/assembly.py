"""Phase 4 of compression: put head, summary and tail back together into a valid conversation.

Owns the system-prompt compaction note, the summary message's role (chosen so no two adjacent
messages share a role, merging into the first tail message when neither role fits), the END marker,
`sanitize_tool_pairs` (no orphan tool results, a stub result for every unanswered call) and
`strip_historical_media` (only the newest user image survives). Never mutates its input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hermes_tui.core.context.markers import (
    HISTORICAL_IMAGE_PLACEHOLDER,
    MISSING_TOOL_RESULT_STUB,
    SUMMARY_END_MARKER,
    SYSTEM_COMPACTION_NOTE,
)
from hermes_tui.core.messages import Message, content_text, is_image_part


def _call_ids(message: Message) -> list[tuple[str, ...]]:
    """For each tool call of an assistant message, the ids a result may answer it by."""
    groups: list[tuple[str, ...]] = []
    for call in message.get("tool_calls") or []:
        if isinstance(call, dict):
            ids = (call.get("call_id"), call.get("id"))
        else:
            ids = (getattr(call, "call_id", None), getattr(call, "id", None))
        group = tuple(dict.fromkeys(str(cid) for cid in ids if cid))
        if group:
            groups.append(group)
    return groups


def sanitize_tool_pairs(messages: Sequence[Message], stub_text: str = MISSING_TOOL_RESULT_STUB) -> list[Message]:
    """Drop tool results whose call is gone; add a stub result right after every unanswered call."""
    known: set[str] = set()
    for message in messages:
        if message.get("role") == "assistant":
            for group in _call_ids(message):
                known.update(group)
    kept = [m for m in messages if m.get("role") != "tool" or str(m.get("tool_call_id") or "") in known]
    answered = {str(m.get("tool_call_id")) for m in kept if m.get("role") == "tool"}
    result: list[Message] = []
    for message in kept:
        result.append(message)
        if message.get("role") != "assistant":
            continue
        for group in _call_ids(message):
            if not answered.intersection(group):
                result.append({"role": "tool", "content": stub_text, "tool_call_id": group[0]})
                answered.add(group[0])
    return result


def drop_orphan_results(tail: Sequence[Message], head: Sequence[Message]) -> list[Message]:
    """The tail without tool results whose call survives neither in the head nor in the tail."""
    known: set[str] = set()
    for message in (*head, *tail):
        if message.get("role") == "assistant":
            for group in _call_ids(message):
                known.update(group)
    return [m for m in tail if m.get("role") != "tool" or str(m.get("tool_call_id") or "") in known]


def _with_system_note(system: Message) -> Message:
    content = system.get("content")
    if isinstance(content, list):
        if any(SYSTEM_COMPACTION_NOTE in str(part.get("text", "")) for part in content if isinstance(part, dict)):
            return system
        return {**system, "content": [*content, {"type": "text", "text": SYSTEM_COMPACTION_NOTE}]}
    text = content if isinstance(content, str) else content_text(content)
    if SYSTEM_COMPACTION_NOTE in text:
        return system
    return {**system, "content": f"{text}\n\n{SYSTEM_COMPACTION_NOTE}" if text else SYSTEM_COMPACTION_NOTE}


def choose_summary_role(last_head_role: str, first_tail_role: str) -> tuple[str, bool]:
    """(role for a standalone summary message, merge into the first tail message instead)."""
    role = "user" if last_head_role in ("assistant", "tool") else "assistant"
    if role == first_tail_role:
        flipped = "assistant" if role == "user" else "user"
        if flipped == last_head_role:
            return role, True
        role = flipped
    return role, False


def _prepend_summary(message: Message, summary: str) -> Message:
    lead = f"{summary}\n\n{SUMMARY_END_MARKER}"
    content = message.get("content")
    if isinstance(content, list):
        return {**message, "content": [{"type": "text", "text": lead}, *content]}
    text = content if isinstance(content, str) else content_text(content)
    return {**message, "content": f"{lead}\n\n{text}" if text else lead}


def assemble(head: Sequence[Message], summary: str, tail: Sequence[Message]) -> list[Message]:
    """head + summary + tail, with the system note, role selection/merge and END marker applied."""
    head = [dict(m) for m in head]
    tail = [dict(m) for m in drop_orphan_results(tail, head)]
    if head and head[0].get("role") == "system":
        head[0] = _with_system_note(head[0])
    last_head_role = str(head[-1].get("role")) if head else "user"
    first_tail_role = str(tail[0].get("role")) if tail else "user"
    role, merge = choose_summary_role(last_head_role, first_tail_role)
    if merge and tail:
        tail[0] = _prepend_summary(tail[0], summary)
        return sanitize_tool_pairs([*head, *tail])
    content = f"{summary}\n\n{SUMMARY_END_MARKER}" if role == "user" else summary
    return sanitize_tool_pairs([*head, {"role": role, "content": content}, *tail])


def _strip_images(content: Any) -> Any:
    if not isinstance(content, list) or not any(is_image_part(part) for part in content):
        return content
    return [{"type": "text", "text": HISTORICAL_IMAGE_PLACEHOLDER} if is_image_part(part) else part for part in content]


def strip_historical_media(messages: Sequence[Message]) -> list[Message]:
    """Replace every image before the newest image-bearing user message with a text placeholder."""
    anchor = -1
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, list) and any(map(is_image_part, content)):
            anchor = i
            break
    if anchor <= 0:
        return list(messages)
    result = list(messages)
    for i in range(anchor):
        stripped = _strip_images(result[i].get("content"))
        if stripped is not result[i].get("content"):
            result[i] = {**result[i], "content": stripped}
    return result
