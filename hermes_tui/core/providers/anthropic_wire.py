"""Translate canonical OpenAI-format messages and tool schemas into Anthropic Messages API shapes.

Owns the edge between the two formats (no SDK import): the system prompt is lifted out of the
first message; assistant tool calls become `tool_use` blocks (arguments parsed; invalid JSON gives
an empty input plus a text block keeping the raw text); tool results become `tool_result` blocks
in user turns, consecutive ones merged into one user message; image parts become `image` blocks;
`cache_control` markers (see `caching`) are carried onto the blocks they belong to.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from hermes_tui.core.messages import IMAGE_PART_TYPES, content_text

_DATA_URL = re.compile(r"^data:(?P<media>[\w.+/-]+)?(?:;[\w=.+-]+)*;base64,(?P<data>.*)$", re.DOTALL)
_UNDERSCORE = "_"


@dataclass
class AnthropicPayload:
    """The translated request: `system` blocks (None when there is no system prompt), messages, tools."""

    system: list[dict[str, Any]] | None
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]


# --------------------------------------------------------------------------- blocks


def _text_block(text: str, cache_control: Any = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": text}
    if cache_control:
        block["cache_control"] = cache_control
    return block


def _image_url(part: dict[str, Any]) -> str:
    value = part.get("image_url")
    if isinstance(value, dict):
        value = value.get("url")
    if value is None:
        value = part.get("url")
    return str(value or "")


def image_block(part: dict[str, Any]) -> dict[str, Any]:
    """An Anthropic image block for an OpenAI/Responses image part (data URL or http URL)."""
    if part.get("type") == "image" and isinstance(part.get("source"), dict):
        block = {"type": "image", "source": dict(part["source"])}
    else:
        url = _image_url(part)
        match = _DATA_URL.match(url)
        if match:
            media = match.group("media") or "image/png"
            block = {
                "type": "image",
                "source": {"type": "base64", "media_type": media, "data": match.group("data")},
            }
        elif url.startswith(("http://", "https://")):
            block = {"type": "image", "source": {"type": "url", "url": url}}
        else:
            return _text_block("[image omitted: unsupported image reference]", part.get("cache_control"))
    if part.get("cache_control"):
        block["cache_control"] = part["cache_control"]
    return block


def content_blocks(content: Any) -> list[dict[str, Any]]:
    """Text and image blocks for a message content value; empty text is dropped (the API rejects it)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [_text_block(content)] if content else []
    if isinstance(content, dict):
        text = content_text(content)
        return [_text_block(text)] if text else []
    blocks: list[dict[str, Any]] = []
    pending_marker: Any = None
    for part in content if isinstance(content, list) else [content]:
        if isinstance(part, str):
            if part:
                blocks.append(_text_block(part))
            continue
        if not isinstance(part, dict):
            continue
        if part.get("type") in IMAGE_PART_TYPES:
            blocks.append(image_block(part))
        elif isinstance(part.get("text"), str):
            if part["text"]:
                blocks.append(_text_block(part["text"], part.get("cache_control")))
            elif part.get("cache_control"):
                pending_marker = part["cache_control"]
    if pending_marker and blocks:
        blocks[-1].setdefault("cache_control", pending_marker)
    return blocks


def _parse_arguments(raw: Any) -> tuple[dict[str, Any], str | None]:
    """(input object, raw text when it was not a JSON object)."""
    if isinstance(raw, dict):
        return raw, None
    text = "" if raw is None else str(raw)
    if not text.strip():
        return {}, None
    try:
        parsed = json.loads(text)
    except (ValueError, TypeError):
        return {}, text
    if isinstance(parsed, dict):
        return parsed, None
    return {}, text


def _tool_use_blocks(tool_calls: list[Any]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for position, call in enumerate(tool_calls):
        if not isinstance(call, dict):
            continue
        function = call.get("function") or {}
        name = str(function.get("name") or call.get("name") or "")
        call_id = str(call.get("call_id") or call.get("id") or f"toolu_missing_{position}")
        arguments, invalid = _parse_arguments(function.get("arguments", call.get("arguments")))
        if invalid is not None:
            blocks.append(_text_block(f"[tool call {name} had invalid JSON arguments: {invalid}]"))
        blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": arguments})
    return blocks


def _thinking_blocks(details: Any) -> list[dict[str, Any]]:
    """The signed thinking blocks an assistant message kept, first in its content, as Anthropic expects them back."""
    if not isinstance(details, list):
        return []
    blocks: list[dict[str, Any]] = []
    for item in details:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "thinking" and item.get("signature"):
            blocks.append(
                {"type": "thinking", "thinking": str(item.get("thinking") or ""), "signature": item["signature"]}
            )
        elif item.get("type") == "redacted_thinking" and item.get("data"):
            blocks.append({"type": "redacted_thinking", "data": item["data"]})
    return blocks


def _tool_result_block(message: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": str(message.get("tool_call_id") or "")}
    content = message.get("content")
    if isinstance(content, list):
        parts = content_blocks(content)
        if parts:
            block["content"] = parts
    else:
        text = content_text(content)
        if text:
            block["content"] = text
    return block


# --------------------------------------------------------------------------- messages


def _system_blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    blocks = [block for block in content_blocks(message.get("content")) if block["type"] == "text"]
    if message.get("cache_control") and blocks:
        blocks[-1].setdefault("cache_control", message["cache_control"])
    return blocks


def _wire_message(message: dict[str, Any]) -> dict[str, Any] | None:
    role = message.get("role")
    marker = message.get("cache_control")
    if role == "tool":
        blocks = [_tool_result_block(message)]
        wire_role = "user"
    elif role == "assistant":
        blocks = _thinking_blocks(message.get("reasoning_details")) + content_blocks(message.get("content"))
        blocks += _tool_use_blocks(list(message.get("tool_calls") or []))
        wire_role = "assistant"
    else:  # user, and any later "system" message (kept as user text so nothing is lost)
        blocks = content_blocks(message.get("content"))
        wire_role = "user"
    if not blocks or all(block.get("type") in ("thinking", "redacted_thinking") for block in blocks):
        return None  # nothing, or a thinking-only turn (Hermes drops those from the request copy)
    markable = [block for block in blocks if block.get("type") not in ("thinking", "redacted_thinking")]
    if marker and markable:
        markable[-1].setdefault("cache_control", marker)
    return {"role": wire_role, "content": blocks}


def merge_same_role(wire: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Merge consecutive same-role turns; in user turns tool_result blocks go first."""
    merged: list[dict[str, Any]] = []
    for message in wire:
        if merged and merged[-1]["role"] == message["role"]:
            merged[-1]["content"].extend(message["content"])
        else:
            merged.append({"role": message["role"], "content": list(message["content"])})
    for message in merged:
        if message["role"] == "user":
            message["content"].sort(key=lambda block: block.get("type") != "tool_result")
    return merged


def to_anthropic_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI function-tool schemas as Anthropic tool definitions."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        function = tool.get("function", tool) if isinstance(tool, dict) else {}
        name = function.get("name")
        if not name:
            continue
        schema = function.get("parameters") or {"type": "object", "properties": {}}
        definition: dict[str, Any] = {"name": name, "input_schema": schema}
        if function.get("description"):
            definition["description"] = function["description"]
        out.append(definition)
    return out


def split_system(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """(the system blocks of a leading system message or None, the messages after it)."""
    if messages and messages[0].get("role") == "system":
        return _system_blocks(messages[0]) or None, messages[1:]
    return None, messages


def wire_one(message: Any) -> dict[str, Any] | None:
    """One canonical message as an Anthropic message (before same-role merging); None: left out."""
    if not isinstance(message, dict):
        return None
    clean = {key: value for key, value in message.items() if not key.startswith(_UNDERSCORE)}
    return _wire_message(clean)


def assemble_payload(
    system: list[dict[str, Any]] | None, translated: list[dict[str, Any] | None], tools: list[dict[str, Any]] | None
) -> AnthropicPayload:
    """The request from the system blocks and the messages `wire_one` translated, in order."""
    wire = [message for message in translated if message is not None]
    return AnthropicPayload(system=system, messages=merge_same_role(wire), tools=to_anthropic_tools(tools or []))


def to_anthropic(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> AnthropicPayload:
    """Translate a canonical conversation (system first, if any) into an Anthropic request."""
    system, rest = split_system(messages)
    return assemble_payload(system, [wire_one(message) for message in rest], tools)
