"""How message values are stored and read back, exactly as Hermes stores them.

Owns: the `"\\x00json:"` content sentinel for list/dict content, the plain-JSON text columns
(`tool_calls`, `reasoning_details`, `codex_*`), the memory-context stripping applied to restored
conversation text (`sanitize_context`) and the one-line previews used by listings.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hermes_tui.store.models import SUMMARY_MARKERS

JSON_CONTENT_SENTINEL = "\x00json:"

MULTIMODAL_PLACEHOLDER = "[multimodal content]"

# Injected memory blocks must never come back as conversation text (reference §2.5).
_MEMORY_BLOCK = re.compile(r"<\s*memory-context\s*>.*?<\s*/\s*memory-context\s*>", re.IGNORECASE | re.DOTALL)
_MEMORY_NOTE = re.compile(
    r"\[System note:\s*The following is recalled memory context,\s*NOT new user input\.[^\]]*\]\s*",
    re.IGNORECASE,
)
_MEMORY_FENCE_TAG = re.compile(r"<\s*/?\s*memory-context\s*>", re.IGNORECASE)


# NUL-safe SQL test for the sentinel: SQLite's text functions stop at the leading NUL.
SENTINEL_SQL = "substr(CAST({column} AS BLOB), 1, 6) = X'006A736F6E3A'"


def not_summary_sql(column: str) -> str:
    """SQL that is true unless `column` holds a compression handoff (previews show real questions)."""
    return " AND ".join(f"{column} NOT LIKE '{marker}%'" for marker in SUMMARY_MARKERS)


def clipped_content_sql(column: str, chars: int) -> str:
    """SQL for `column` cut to `chars` characters; JSON-sentinel content is kept whole (decodable)."""
    return f"CASE WHEN {SENTINEL_SQL.format(column=column)} THEN {column} ELSE substr({column}, 1, {chars}) END"


def encode_content(content: Any) -> str | None:
    """Text for the `content` column: strings as is, lists/dicts behind the JSON sentinel."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list | dict):
        return JSON_CONTENT_SENTINEL + json.dumps(content, ensure_ascii=False)
    return str(content)


def decode_content(stored: str | None) -> Any:
    """The value `encode_content` stored; a damaged sentinel payload is returned as text."""
    if stored is None or not stored.startswith(JSON_CONTENT_SENTINEL):
        return stored
    try:
        return json.loads(stored[len(JSON_CONTENT_SENTINEL) :])
    except ValueError:
        return stored[len(JSON_CONTENT_SENTINEL) :]


def encode_json_field(value: Any) -> str | None:
    """Plain JSON text for `tool_calls`, `reasoning_details`, `codex_*` (strings kept as given)."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def decode_json_field(stored: str | None) -> Any:
    """Parsed JSON for a JSON text column; text that is not JSON comes back unchanged."""
    if stored is None or stored == "":
        return None if stored is None else stored
    try:
        return json.loads(stored)
    except ValueError:
        return stored


def json_object(stored: str | None) -> dict[str, Any] | None:
    """A stored JSON object (a state_meta record), or None when it is missing, damaged or not an object."""
    if not stored:
        return None
    try:
        data = json.loads(stored)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def flatten_text(content: Any) -> str:
    """Searchable/displayable text of any content: list parts joined, images as a placeholder."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return str(content.get("text_summary") or content.get("text") or MULTIMODAL_PLACEHOLDER)
    if isinstance(content, list):
        texts = [
            part["text"] if isinstance(part, dict) else part
            for part in content
            if isinstance(part, str) or (isinstance(part, dict) and isinstance(part.get("text"), str))
        ]
        joined = "\n".join(t for t in texts if t)
        return joined or MULTIMODAL_PLACEHOLDER
    return str(content)


def sanitize_context(text: str) -> str:
    """Remove injected `<memory-context>` blocks, the recalled-memory note and stray fence tags."""
    text = _MEMORY_BLOCK.sub("", text)
    text = _MEMORY_NOTE.sub("", text)
    return _MEMORY_FENCE_TAG.sub("", text)


def preview_of(stored_content: str | None, width: int = 60) -> str:
    """Hermes's listing preview: first `width` chars, newlines as spaces, "..." when longer."""
    text = flatten_text(decode_content(stored_content)).replace("\r", " ").replace("\n", " ").strip()
    if len(text) > width:
        return text[:width] + "..."
    return text


def truncate(text: str, limit: int) -> str:
    """`text` cut to `limit` chars with "..." when it was longer."""
    return text if len(text) <= limit else text[:limit] + "..."
