"""Anthropic prompt-caching breakpoints, strategy "system_and_3" (reference §9).

`apply_anthropic_cache_control` marks at most four breakpoints on a deep copy of OpenAI-format
messages: the system message (when it comes first) and the last three non-system messages. The
Anthropic wire translation carries the markers onto the content blocks it builds.
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
    """A deep copy of `messages` with cache_control on the system message and the last 3 others."""
    marked = copy.deepcopy(messages)
    if not marked:
        return marked
    for message in marked:
        _clear(message)
    if marked[0].get("role") == "system":
        _mark(marked[0], ttl, native_anthropic)
    others = [index for index, message in enumerate(marked) if message.get("role") != "system"]
    for index in others[-TAIL_BREAKPOINTS:]:
        _mark(marked[index], ttl, native_anthropic)
    return marked
