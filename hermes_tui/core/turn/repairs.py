"""One-shot repairs of a rejected request (reference §6.1 items 7, 8, 11-13): fix what the provider named, once.

Each repair is a pure function over the conversation or the tool schemas; the retry loop applies
the one `recovery.Repair(kind)` names and calls again.

- `shrink_images`: images the provider refused as too large are downscaled and re-encoded to fit
  (`hermes_tui.core.turn.images`); one that cannot be decoded becomes a short text note.
- `strip_images`: a model that takes no images gets a short text note in place of each one.
  Both image repairs stay on for the provider that needed them and change only the request's API
  copy (`apply_image_quirks`): the stored conversation keeps its images.
- `text_tool_results`: tool results sent as content-part lists become plain text (images noted).
- `strip_reasoning`: replayed reasoning (thinking blocks with signatures, encrypted items) is
  removed from every message, so the provider sees none it could reject.
- `strip_schema_patterns`: `pattern` and `format` removed from the tool schemas (llama.cpp's
  grammar converter rejects most of them).

A repair returns how many things it changed; 0 means it had nothing to fix.
"""

from __future__ import annotations

import copy
from typing import Any

from hermes_tui.core.messages import Message, content_text
from hermes_tui.core.turn import images

IMAGE_DROPPED = images.UNDECODABLE_NOTE
TOOL_IMAGE_NOTE = "[image]"
REASONING_KEYS = ("reasoning_details", "codex_reasoning_items", "codex_message_items")
SCHEMA_KEYS = ("pattern", "format")
IMAGE_QUIRKS = frozenset({"shrink_images", "strip_images"})

shrink_images = images.shrink_images
strip_images = images.strip_images


def apply_image_quirks(
    messages: list[Message], quirks: set[str] | frozenset[str], image_limit: int | None = None
) -> int:
    """The image repairs a provider needed, applied to a request's API copy; how many images changed.

    `image_limit` is the per-image size the provider named (never above the common 5 MB cap).
    """
    if "strip_images" in quirks:
        return strip_images(messages)
    if "shrink_images" in quirks:
        return shrink_images(messages, min(image_limit or images.IMAGE_CAP_BYTES, images.IMAGE_CAP_BYTES))
    return 0


def text_tool_results(messages: list[Message]) -> int:
    """Tool results with list (or dict) content as plain strings (in place); the number changed."""
    changed = 0
    for index, message in enumerate(messages):
        if message.get("role") == "tool" and isinstance(message.get("content"), (list, dict)):
            messages[index] = {**message, "content": content_text(message["content"], TOOL_IMAGE_NOTE)}
            changed += 1
    return changed


def strip_reasoning(messages: list[Message]) -> int:
    """Remove replayed reasoning blocks from every message (in place); the number changed."""
    changed = 0
    for index, message in enumerate(messages):
        if any(key in message for key in REASONING_KEYS):
            messages[index] = {key: value for key, value in message.items() if key not in REASONING_KEYS}
            changed += 1
    return changed


def _strip_schema(node: Any) -> tuple[Any, int]:
    if isinstance(node, list):
        items = [_strip_schema(item) for item in node]
        return [item for item, _ in items], sum(count for _, count in items)
    if not isinstance(node, dict):
        return node, 0
    removed = 0
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in SCHEMA_KEYS and isinstance(value, str):
            removed += 1
            continue
        out[key], count = _strip_schema(value)
        removed += count
    return out, removed


def strip_schema_patterns(tools: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The tool schemas without string `pattern`/`format` keywords, and how many were removed."""
    stripped, removed = _strip_schema(copy.deepcopy(tools))
    return stripped, removed
