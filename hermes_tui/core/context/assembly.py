"""Phase 4 of compression: put head, summary and tail back together into a valid conversation.

Owns the system-prompt compaction note, the summary message's role (chosen so no two adjacent
messages share a role — always "user" when it would otherwise be the first visible message or when
no user turn survives in head or tail — merging into the first tail message when neither role
fits, in Hermes's form: that message's text under MERGED_PRIOR_CONTEXT_HEADER, the delimiter, the
summary), the END marker after every summary,
`sanitize_tool_pairs` (no orphan tool results, a stub result for every unanswered call) and
`strip_historical_media` (only the newest user image survives). Never mutates its input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hermes_tui.core.context.markers import (
    HISTORICAL_IMAGE_PLACEHOLDER,
    MERGED_PRIOR_CONTEXT_HEADER,
    MERGED_SUMMARY_DELIMITER,
    MISSING_TOOL_RESULT_STUB,
    SUMMARY_END_MARKER,
    SYSTEM_COMPACTION_NOTE,
)
from hermes_tui.core.messages import Message, content_text, is_image_part


def _call_ids(message: Message) -> list[tuple[str, ...]]:
    """For each tool call of an assistant message, the ids a result may answer it by."""
    groups: list[tuple[str, ...]] = []
    for call in message.get("tool_calls") or ():
        if isinstance(call, dict):
            first, second = call.get("call_id"), call.get("id")
        else:
            first, second = getattr(call, "call_id", None), getattr(call, "id", None)
        if first:
            first = str(first)
            if second and str(second) != first:
                groups.append((first, str(second)))
            else:
                groups.append((first,))
        elif second:
            groups.append((str(second),))
    return groups


def _call_groups(messages: Sequence[Message]) -> list[list[tuple[str, ...]] | None]:
    """`_call_ids` of each assistant message (None for the others), aligned with `messages`."""
    return [_call_ids(m) if m.get("role") == "assistant" else None for m in messages]


def _known_ids(groups: Sequence[list[tuple[str, ...]] | None]) -> set[str]:
    known: set[str] = set()
    for message_groups in groups:
        if message_groups:
            for group in message_groups:
                known.update(group)
    return known


def _answered(messages: Sequence[Message], known: set[str]) -> tuple[list[int], set[str]]:
    """(indices of the messages to keep: no tool result whose call is unknown, the ids answered)."""
    kept: list[int] = []
    answered: set[str] = set()
    for i, message in enumerate(messages):
        if message.get("role") == "tool":
            cid = str(message.get("tool_call_id") or "")
            if cid not in known:
                continue
            answered.add(cid)
        kept.append(i)
    return kept, answered


def _with_stubs(
    messages: Sequence[Message],
    groups: Sequence[list[tuple[str, ...]] | None],
    known: set[str],
    stub_text: str,
) -> list[Message]:
    kept, answered = _answered(messages, known)
    result: list[Message] = []
    for i in kept:
        result.append(messages[i])
        message_groups = groups[i]
        if not message_groups:
            continue
        for group in message_groups:
            if answered.isdisjoint(group):
                result.append({"role": "tool", "content": stub_text, "tool_call_id": group[0]})
                answered.add(group[0])
    return result


def sanitize_tool_pairs(messages: Sequence[Message], stub_text: str = MISSING_TOOL_RESULT_STUB) -> list[Message]:
    """Drop tool results whose call is gone; add a stub result right after every unanswered call."""
    groups = _call_groups(messages)
    return _with_stubs(messages, groups, _known_ids(groups), stub_text)


def drop_orphan_results(tail: Sequence[Message], head: Sequence[Message]) -> list[Message]:
    """The tail without tool results whose call survives neither in the head nor in the tail."""
    known = _known_ids(_call_groups([*head, *tail]))
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


def choose_summary_role(last_head_role: str, first_tail_role: str, *, force_user: bool = False) -> tuple[str, bool]:
    """(role for a standalone summary message, merge into the first tail message instead).

    `force_user` pins the role to "user": when the summary would be the first message after the
    system prompt (providers reject a conversation that starts with the assistant) or when no user
    message survives in head or tail (some servers reject a request without one).
    """
    role = "user" if force_user or last_head_role in ("assistant", "tool") else "assistant"
    if role == first_tail_role:
        flipped = "assistant" if role == "user" else "user"
        if force_user or flipped == last_head_role:
            return role, True
        role = flipped
    return role, False


def _merge_summary(message: Message, summary: str) -> Message:
    """`message` with the summary merged in: its own text first, as reference, then the summary."""
    closing = f"\n\n{MERGED_SUMMARY_DELIMITER}\n\n{summary}\n\n{SUMMARY_END_MARKER}"
    opening = f"{MERGED_PRIOR_CONTEXT_HEADER}\n"
    content = message.get("content")
    if isinstance(content, list):
        merged: Any = [{"type": "text", "text": opening}, *content, {"type": "text", "text": closing}]
    else:
        text = "" if content is None else content if isinstance(content, str) else content_text(content)
        merged = f"{opening}{text}{closing}"
    return {**message, "content": merged}


def _has_user(messages: Sequence[Message]) -> bool:
    return any(message.get("role") == "user" for message in messages)


def assemble(head: Sequence[Message], summary: str, tail: Sequence[Message]) -> list[Message]:
    """head + summary + tail, with the system note, role selection/merge and END marker applied.

    Tool pairs come out valid (`sanitize_tool_pairs`' rules, each message's call ids read once):
    results whose call is in neither head nor tail are dropped, unanswered calls get a stub.
    """
    head_groups = _call_groups(head)
    tail_groups = _call_groups(tail)
    known = _known_ids(head_groups)
    known |= _known_ids(tail_groups)
    force_user = not _has_user(head) and not _has_user(tail)
    head = [dict(m) for m in head]
    kept = [i for i, m in enumerate(tail) if m.get("role") != "tool" or str(m.get("tool_call_id") or "") in known]
    tail_messages = [dict(tail[i]) for i in kept]
    tail_groups = [tail_groups[i] for i in kept]
    if head and head[0].get("role") == "system":
        head[0] = _with_system_note(head[0])
    last_head_role = str(head[-1].get("role")) if head else "user"
    first_tail_role = str(tail_messages[0].get("role")) if tail_messages else "user"
    force_user = force_user or last_head_role == "system"
    role, merge = choose_summary_role(last_head_role, first_tail_role, force_user=force_user)
    if merge and tail_messages:
        tail_messages[0] = _merge_summary(tail_messages[0], summary)
        middle: list[Message] = []
    else:
        middle = [{"role": role, "content": f"{summary}\n\n{SUMMARY_END_MARKER}"}]
    messages = [*head, *middle, *tail_messages]
    groups = [*head_groups, *([None] * len(middle)), *tail_groups]
    return _with_stubs(messages, groups, known, MISSING_TOOL_RESULT_STUB)


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
