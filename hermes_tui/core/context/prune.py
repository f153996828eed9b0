"""Phase 1 of compression: the cheap prune of old tool traffic (no LLM).

Owns `prune_old_tool_results`: deduplicate identical tool outputs (older copies become a marker),
replace old tool results by one-liners, strip screenshots from old tool results, and shrink the
string leaves of huge tool-call arguments while keeping them valid JSON (#11762). Works on shallow
copies; the input list and its dicts are never mutated. The protected head is left verbatim.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from hermes_tui.core.context.constants import (
    ARGS_LEAF_MAX,
    ARGS_TRUNCATE_TRIGGER,
    DEDUP_MIN_CHARS,
    SUMMARIZE_MIN_CHARS,
)
from hermes_tui.core.context.markers import (
    DUPLICATE_TOOL_OUTPUT,
    PRUNED_TOOL_PLACEHOLDER,
    SCREENSHOT_REMOVED_PART,
    SCREENSHOT_REMOVED_PREFIX,
    TRUNCATED_LEAF_SUFFIX,
)
from hermes_tui.core.context.sizing import message_budget_tokens, tool_call_arguments, tool_call_name
from hermes_tui.core.context.tool_oneliners import summarize_tool_result
from hermes_tui.core.messages import Message, is_image_part


def tool_call_index(messages: Sequence[Message]) -> dict[str, tuple[str, str]]:
    """call id -> (tool name, arguments) for every assistant tool call (dict or object form)."""
    index: dict[str, tuple[str, str]] = {}
    for message in messages:
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict):
                ids = (call.get("call_id"), call.get("id"))
            else:
                ids = (getattr(call, "call_id", None), getattr(call, "id", None))
            entry = (tool_call_name(call), tool_call_arguments(call))
            for cid in ids:
                if cid:
                    index[str(cid)] = entry
    return index


def find_prune_boundary(
    messages: Sequence[Message], tail_token_budget: int | None, protect_last_n: int, costs: Sequence[int]
) -> int:
    """Index before which old tool results may be pruned: the tail within the token budget, but at
    least `protect_last_n` messages, stays untouched."""
    n = len(messages)
    min_protect = min(protect_last_n, n)
    if not tail_token_budget or tail_token_budget <= 0:
        return max(0, n - protect_last_n)
    total = 0
    count = 0
    for i in range(n - 1, -1, -1):
        cost = costs[i]
        if total + cost > tail_token_budget and count >= min_protect:
            break
        total += cost
        count += 1
    return n - max(count, min_protect)


def truncate_tool_arguments(arguments: str) -> str:
    """Arguments > 500 chars with every string leaf > 200 chars cut to 200 + "...[truncated]".

    The result is always valid JSON when the input was; anything else is returned unchanged.
    """
    if not isinstance(arguments, str) or len(arguments) <= ARGS_TRUNCATE_TRIGGER:
        return arguments
    try:
        parsed = json.loads(arguments)
        shrunk = _shrink_leaves(parsed)
        return json.dumps(shrunk, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):
        return arguments


def _shrink_leaves(value: Any) -> Any:
    if isinstance(value, str):
        return value[:ARGS_LEAF_MAX] + TRUNCATED_LEAF_SUFFIX if len(value) > ARGS_LEAF_MAX else value
    if isinstance(value, dict):
        return {key: _shrink_leaves(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shrink_leaves(item) for item in value]
    return value


def _tool_name_for(message: Message, calls: dict[str, tuple[str, str]]) -> tuple[str, str]:
    cid = str(message.get("tool_call_id") or "")
    name, arguments = calls.get(cid, ("", ""))
    return name or str(message.get("tool_name") or "tool"), arguments


def _strip_screenshots(content: list[Any]) -> list[Any] | None:
    if not any(is_image_part(part) for part in content):
        return None
    return [{"type": "text", "text": SCREENSHOT_REMOVED_PART} if is_image_part(part) else part for part in content]


def _summarised_content(message: Message, calls: dict[str, tuple[str, str]]) -> Any | None:
    """New content for an old tool result, or None to keep it."""
    content = message.get("content")
    if isinstance(content, list):
        return _strip_screenshots(content)
    if isinstance(content, dict):
        if content.get("_multimodal"):
            return SCREENSHOT_REMOVED_PREFIX + str(content.get("text_summary") or "")[:200]
        return None
    if not isinstance(content, str) or not content:
        return None
    if content == PRUNED_TOOL_PLACEHOLDER or content.startswith("[Duplicate tool output"):
        return None
    if len(content) <= SUMMARIZE_MIN_CHARS:
        return None
    name, arguments = _tool_name_for(message, calls)
    return summarize_tool_result(name, arguments, content)


def _truncated_calls(message: Message) -> list[Any] | None:
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return None
    changed = False
    new_calls: list[Any] = []
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        if isinstance(arguments, str) and len(arguments) > ARGS_TRUNCATE_TRIGGER:
            shrunk = truncate_tool_arguments(arguments)
            if shrunk != arguments:
                call = {**call, "function": {**function, "arguments": shrunk}}
                changed = True
        new_calls.append(call)
    return new_calls if changed else None


def prune_old_tool_results(
    messages: Sequence[Message],
    *,
    head_end: int,
    tail_token_budget: int | None,
    protect_last_n: int,
    costs: Sequence[int] | None = None,
) -> tuple[list[Message], int]:
    """Phase 1 over `messages[head_end:]`: returns (new list, number of messages changed)."""
    result = list(messages)
    n = len(result)
    if costs is None:
        costs = [message_budget_tokens(message) for message in result]
    calls = tool_call_index(result)
    boundary = find_prune_boundary(result, tail_token_budget, protect_last_n, costs)
    changed: set[int] = set()

    # Pass 1: deduplicate identical tool outputs over the whole list (newest copy survives).
    seen: set[str] = set()
    for i in range(n - 1, head_end - 1, -1):
        message = result[i]
        content = message.get("content")
        if message.get("role") != "tool" or not isinstance(content, str) or len(content) < DEDUP_MIN_CHARS:
            continue
        key = hashlib.md5(content.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        if key in seen:
            result[i] = {**message, "content": DUPLICATE_TOOL_OUTPUT}
            changed.add(i)
        else:
            seen.add(key)

    # Passes 2 and 3: one-liners for old tool results, shrunk arguments for old tool calls.
    for i in range(head_end, boundary):
        message = result[i]
        role = message.get("role")
        if role == "tool":
            new_content = _summarised_content(message, calls)
            if new_content is not None:
                result[i] = {**message, "content": new_content}
                changed.add(i)
        elif role == "assistant" and message.get("tool_calls"):
            new_calls = _truncated_calls(message)
            if new_calls is not None:
                result[i] = {**message, "tool_calls": new_calls}
                changed.add(i)
    return result, len(changed)
