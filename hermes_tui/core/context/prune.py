"""Phase 1 of compression: the cheap prune of old tool traffic (no LLM).

Owns `prune_old_tool_results`: deduplicate identical tool outputs (older copies become a marker),
replace old tool results by one-liners, strip screenshots from old tool results, and shrink the
string leaves of huge tool-call arguments while keeping them valid JSON (#11762). Works on shallow
copies; the input list and its dicts are never mutated. The protected head is left verbatim.

Cost model: one pass over the list for the dedup (a set of the contents themselves: the same
outcome as the reference's md5-prefix keys without hashing every output, and no false matches),
the call index only over the messages before the boundary, and per-message token costs only for
the messages the boundary walk reaches (`LazyCosts`).
"""

from __future__ import annotations

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
from hermes_tui.core.context.sizing import MessageCosts, message_budget_tokens, tool_call_arguments, tool_call_name
from hermes_tui.core.context.tool_oneliners import parse_tool_args, summarize_tool_result
from hermes_tui.core.messages import Message, is_image_part
from hermes_tui.store.models import SUMMARY_MARKERS, is_summary_text

assert len(PRUNED_TOOL_PLACEHOLDER) <= SUMMARIZE_MIN_CHARS  # _summarised_content relies on it
assert all(marker.startswith("[") for marker in SUMMARY_MARKERS)  # prune_pass's candidate check too

_KEY_EDGE = 48  # last characters of a tool output in its dedup key
_NO_CALL = ("", "")  # (name, arguments) of a result whose call is not in the history


class LazyCosts(dict[int, int]):
    """`message_budget_tokens` of `messages[i]`, computed on first use (walks read only the tail).

    A dict whose missing keys measure themselves: a repeated read is a plain dict lookup.
    """

    __slots__ = ("_messages",)

    def __init__(self, messages: Sequence[Message]) -> None:
        super().__init__()
        self._messages = messages

    def __missing__(self, index: int) -> int:
        value = self[index] = message_budget_tokens(self._messages[index])
        return value

    def rebased(self, messages: Sequence[Message]) -> LazyCosts:
        """Costs for `messages`, keeping what was measured for the entries that are the same objects."""
        other = LazyCosts(messages)
        old = self._messages
        other.update({i: value for i, value in self.items() if messages[i] is old[i]})
        return other


def tool_call_index(messages: Sequence[Message]) -> dict[str, tuple[str, str]]:
    """call id -> (tool name, arguments) for every assistant tool call (dict or object form)."""
    index: dict[str, tuple[str, str]] = {}
    for message in messages:
        calls = message.get("tool_calls")  # most messages have none: one lookup, then the role
        if not calls or message.get("role") != "assistant":
            continue
        for call in calls:
            if isinstance(call, dict):
                first, second = call.get("call_id"), call.get("id")
                function = call.get("function")
                if isinstance(function, dict):
                    name, arguments = function.get("name"), function.get("arguments")
                    entry = (name if isinstance(name, str) else "", arguments if isinstance(arguments, str) else "")
                else:
                    entry = (tool_call_name(call), tool_call_arguments(call))
            else:
                first, second = getattr(call, "call_id", None), getattr(call, "id", None)
                entry = (tool_call_name(call), tool_call_arguments(call))
            if first:
                index[str(first)] = entry
            if second:
                index[str(second)] = entry
    return index


def find_prune_boundary(
    messages: Sequence[Message], tail_token_budget: int | None, protect_last_n: int, costs: MessageCosts
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


def _strip_screenshots(content: list[Any]) -> list[Any] | None:
    if not any(is_image_part(part) for part in content):
        return None
    return [{"type": "text", "text": SCREENSHOT_REMOVED_PART} if is_image_part(part) else part for part in content]


def _one_liner(
    message: Message, content: str, calls: dict[str, tuple[str, str]], parsed: dict[str, dict[str, Any]]
) -> str | None:
    """The one-liner for an old tool result whose content is a plain str, or None to keep it."""
    if len(content) <= SUMMARIZE_MIN_CHARS or content.startswith("[Duplicate tool output"):
        return None  # (the legacy placeholder is shorter than the minimum too)
    cid = message.get("tool_call_id")
    name, arguments = calls.get(cid if type(cid) is str else str(cid or ""), _NO_CALL)
    if not name:
        name = str(message.get("tool_name") or "tool")
    args = parsed.get(arguments)
    if args is None:  # the same arguments recur (a file read again and again): parse each text once
        args = parsed[arguments] = parse_tool_args(arguments)
    return summarize_tool_result(name, arguments, content, parsed_args=args)


def _summarised_content(
    message: Message, calls: dict[str, tuple[str, str]], parsed: dict[str, dict[str, Any]]
) -> Any | None:
    """New content for an old tool result, or None to keep it. `parsed`: arguments parsed so far."""
    content = message.get("content")
    if type(content) is str:  # the common case first
        return _one_liner(message, content, calls, parsed)
    if isinstance(content, list):
        return _strip_screenshots(content)
    elif isinstance(content, dict):
        if content.get("_multimodal"):
            return SCREENSHOT_REMOVED_PREFIX + str(content.get("text_summary") or "")[:200]
        return None
    elif isinstance(content, str):  # a str subclass
        return _one_liner(message, content, calls, parsed)
    return None


def _has_long_arguments(calls: list[Any]) -> bool:
    """Whether a call (dict form) has arguments long enough to truncate: most have not."""
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        if isinstance(arguments, str) and len(arguments) > ARGS_TRUNCATE_TRIGGER:
            return True
    return False


def _truncated_calls(calls: list[Any]) -> list[Any] | None:
    """The calls with long arguments truncated, or None when none changed."""
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
    costs: MessageCosts | None = None,
) -> tuple[list[Message], int]:
    """Phase 1 over `messages[head_end:]`: returns (new list, number of messages changed)."""
    pruned = prune_pass(
        messages, head_end=head_end, tail_token_budget=tail_token_budget, protect_last_n=protect_last_n, costs=costs
    )
    return pruned.messages, pruned.changed


class PrunePass:
    """What phase 1 produced: the new list, how many messages changed, and the indices (at or
    after the head) whose new content may be a handoff summary, oldest first."""

    __slots__ = ("changed", "messages", "summary_candidates")

    def __init__(self, messages: list[Message], changed: int, summary_candidates: list[int]) -> None:
        self.messages = messages
        self.changed = changed
        self.summary_candidates = summary_candidates


def prune_pass(
    messages: Sequence[Message],
    *,
    head_end: int,
    tail_token_budget: int | None,
    protect_last_n: int,
    costs: MessageCosts | None = None,
) -> PrunePass:
    """Phase 1 in one walk from the newest message back to the head.

    Dedup (pass 1) runs newest to oldest over everything after the head; the one-liner (pass 2)
    and argument (pass 3) rewrites touch only messages before the boundary and depend on nothing
    but the message itself (and the dedup already done to it), so they share the walk. On the way
    it notes which messages could be a handoff summary, so phase 2 need not walk again.
    """
    result = list(messages)
    n = len(result)
    if costs is None:
        costs = LazyCosts(result)
    boundary = find_prune_boundary(result, tail_token_budget, protect_last_n, costs)
    calls = tool_call_index(result)
    changed = 0
    candidates: list[int] = []
    parsed: dict[str, dict[str, Any]] = {}
    # Pass 1 keys: a cheap key (length and last characters) picks the few outputs to compare in
    # full, so no output is hashed whole (the same outcome as keying by the content itself).
    seen: dict[tuple[int, str], list[str]] = {}
    for i in range(n - 1, head_end - 1, -1):
        message = result[i]
        content = message.get("content")
        role = message.get("role")
        if role == "tool":
            if isinstance(content, str) and len(content) >= DEDUP_MIN_CHARS:
                # Pass 1: the newest copy of an identical output survives.
                key = (len(content), content[-_KEY_EDGE:])
                bucket = seen.get(key)
                if bucket is None:
                    seen[key] = [content]
                elif content in bucket:
                    message = result[i] = {**message, "content": DUPLICATE_TOOL_OUTPUT}
                    content = DUPLICATE_TOOL_OUTPUT
                    changed += 1
                else:
                    bucket.append(content)
            if i < boundary:  # pass 2
                if type(content) is str:
                    new_content = _one_liner(message, content, calls, parsed)
                else:
                    new_content = _summarised_content(message, calls, parsed)
                if new_content is not None:
                    if message is messages[i]:
                        changed += 1
                    message = result[i] = {**message, "content": new_content}
                    content = new_content
        elif i < boundary and role == "assistant":
            tool_calls = message.get("tool_calls")
            if isinstance(tool_calls, list) and _has_long_arguments(tool_calls):
                new_calls = _truncated_calls(tool_calls)  # pass 3
                if new_calls is not None:
                    result[i] = {**message, "tool_calls": new_calls}
                    changed += 1
        if type(content) is str:
            if content:
                lead = content[0]
                if lead == "[":
                    if content.startswith(SUMMARY_MARKERS):
                        candidates.append(i)
                elif lead.isspace() and is_summary_text(content):
                    candidates.append(i)
        elif content is not None and (not isinstance(content, str) or is_summary_text(content)):
            candidates.append(i)  # list or dict content (phase 2 reads its text), or a str subclass
    candidates.reverse()
    return PrunePass(result, changed, candidates)
