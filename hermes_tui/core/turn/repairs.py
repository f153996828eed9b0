"""One-shot repairs of a rejected request (reference §6.1 items 7, 8, 11-13): fix what the provider named, once.

Each repair is a pure function over the conversation or the tool schemas; the retry loop applies
the one `recovery.Repair(kind)` names and calls again.

- `shrink_images`: images the provider refused as too large. Data-URL images over the per-image
  cap are replaced by a short text note (no image codec ships with hermes-tui, so an image is
  dropped rather than re-encoded); when none is over the cap (a dimension limit), every data-URL
  image but the newest is dropped, then that one too if it was the only one.
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

from hermes_tui.core.messages import Message, content_text, is_image_part

IMAGE_CAP_BYTES = 5 * 1024 * 1024  # Anthropic's per-image limit, the strictest common one
IMAGE_DROPPED = "[image omitted: the provider rejected it as too large]"
TOOL_IMAGE_NOTE = "[image]"
REASONING_KEYS = ("reasoning_details", "codex_reasoning_items", "codex_message_items")
SCHEMA_KEYS = ("pattern", "format")


def _image_url(part: dict[str, Any]) -> str:
    value = part.get("image_url")
    if isinstance(value, dict):
        value = value.get("url")
    source = part.get("source")
    if value is None and isinstance(source, dict) and source.get("type") == "base64":
        return f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}"
    return str(value or "")


def _decoded_size(url: str) -> int:
    payload = url.partition(",")[2]
    return len(payload) * 3 // 4


def _data_url_images(messages: list[Message]) -> list[tuple[int, int]]:
    """(message index, part index) of every data-URL image, oldest first."""
    found = []
    for m_index, message in enumerate(messages):
        content = message.get("content")
        if isinstance(content, list):
            for p_index, part in enumerate(content):
                if is_image_part(part) and _image_url(part).startswith("data:"):
                    found.append((m_index, p_index))
    return found


def shrink_images(messages: list[Message]) -> int:
    """Drop the data-URL images the provider could not take (in place); the number dropped."""
    images = _data_url_images(messages)
    oversized = [(m, p) for m, p in images if _decoded_size(_image_url(messages[m]["content"][p])) > IMAGE_CAP_BYTES]
    targets = oversized or (images[:-1] if len(images) > 1 else images)
    for m_index, p_index in targets:
        content = list(messages[m_index]["content"])
        content[p_index] = {"type": "text", "text": IMAGE_DROPPED}
        messages[m_index] = {**messages[m_index], "content": content}
    return len(targets)


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
