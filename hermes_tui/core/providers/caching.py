"""Anthropic prompt-caching breakpoints, strategy "system_and_3" (reference §9).

`apply_anthropic_cache_control` marks at most four breakpoints on a copy of OpenAI-format
messages: the system message (when it comes first) and the last three non-system messages. The
Anthropic wire translation carries the markers onto the content blocks it builds. Only the
messages it changes are copied (deeply); the rest are shared with the input, read-only.
"""

from __future__ import annotations

import copy
from typing import Any

MAX_BREAKPOINTS = 4
TAIL_BREAKPOINTS = 3


def cache_marker(ttl: str = "5m") -> dict[str, str]:
    """`{"type": "ephemeral"}`, with `"ttl": "1h"` for the one-hour cache (only "5m"/"1h" exist)."""
    marker = {"type": "ephemeral"}
    if ttl == "1h":
        marker["ttl"] = "1h"
    return marker


def _mark(message: dict[str, Any], ttl: str, native_anthropic: bool) -> None:
    content = message.get("content")
    if message.get("role") == "tool":
        if native_anthropic:
            message["cache_control"] = cache_marker(ttl)
        return  # OpenRouter-style payloads reject a marker on tool messages
    if content is None or content == "":
        message["cache_control"] = cache_marker(ttl)
    elif isinstance(content, str):
        message["content"] = [{"type": "text", "text": content, "cache_control": cache_marker(ttl)}]
    elif isinstance(content, list) and content:
        last = content[-1]
        if isinstance(last, dict):
            last["cache_control"] = cache_marker(ttl)
        else:
            content[-1] = {"type": "text", "text": str(last), "cache_control": cache_marker(ttl)}


def _has_marker(message: dict[str, Any]) -> bool:
    content = message.get("content")
    if "cache_control" in message:
        return True
    return isinstance(content, list) and any(isinstance(part, dict) and "cache_control" in part for part in content)


def _clear(message: dict[str, Any]) -> None:
    """Drop markers a message may already carry, so the total never passes four."""
    message.pop("cache_control", None)
    content = message.get("content")
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict):
                part.pop("cache_control", None)


def apply_anthropic_cache_control(
    messages: list[dict[str, Any]], ttl: str = "5m", *, native_anthropic: bool = True
) -> list[dict[str, Any]]:
    """A copy of `messages` with cache_control on the system message and the last 3 others.

    The messages it marks, and those carrying an old marker (cleared, so the total never passes
    four), are deep copies; the others are the input's own dicts, which callers must not change.
    """
    return marked_copy(messages, cache_targets(messages), ttl, native_anthropic=native_anthropic)


def cache_targets(messages: list[dict[str, Any]]) -> list[int]:
    """The positions "system_and_3" marks: a leading system message and the last 3 non-system messages."""
    if not messages:
        return []
    targets: list[int] = [0] if messages[0].get("role") == "system" else []
    return targets + last_non_system(messages, TAIL_BREAKPOINTS)


def last_non_system(messages: list[dict[str, Any]], count: int) -> list[int]:
    """The positions of the last `count` messages that are not system messages, in order."""
    found: list[int] = []
    for index in range(len(messages) - 1, -1, -1):
        if len(found) == count:
            break
        if messages[index].get("role") != "system":
            found.append(index)
    return found[::-1]


def marked_copy(
    messages: list[dict[str, Any]], targets: list[int], ttl: str = "5m", *, native_anthropic: bool = True
) -> list[dict[str, Any]]:
    """`messages` with a marker on each of `targets` and old markers cleared (copies where it changes them)."""
    marked = list(messages)
    chosen = set(targets)
    for index, message in enumerate(marked):
        if index in chosen or _has_marker(message):
            marked[index] = copy.deepcopy(message)
            _clear(marked[index])
    for index in targets:
        _mark(marked[index], ttl, native_anthropic)
    return marked
