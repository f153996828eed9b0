"""Redaction of structured things on their way out: stored message rows, JSON records, export documents.

`redact_sensitive_text` (redact.py) masks secrets in one text. Here it is applied to what
hermes-tui writes or prints, structure kept:
- `redact_stored_row(row)`: a message row as `to_row` builds it — content, reasoning, the
  arguments of each tool call (as JSON: each string masked on its own, so an escaped newline
  before `API_KEY=` hides nothing and the result still parses) and the provider reasoning blocks.
  A signed thinking block whose text held a secret is left out of the row: its signature would
  no longer match the masked text, and a provider refuses a tampered block on replay.
- `redact_value(value)`: any JSON-like value (export documents, `--json` payloads).
- `redact_json_text(raw)`: a JSON text (state_meta records, tool arguments); not JSON -> as text.
Unchanged input comes back as the same object, so clean messages cost a pre-check per string.
All of it is off when the switch is (`redaction_enabled()`).
"""

from __future__ import annotations

import json
from typing import Any

from hermes_tui.core.context.redact import is_placeholder, mask_token, redact_sensitive_text, redaction_enabled

# Fields whose whole value is a credential, in any JSON we redact (compared lower-cased, '-' as '_').
_SECRET_FIELDS = frozenset(
    {
        "api_key", "apikey", "token", "secret", "password", "passwd", "access_token", "refresh_token",
        "auth_token", "id_token", "bearer", "client_secret", "private_key", "authorization",
        "secret_value", "raw_secret", "secret_input", "key_material",
    }
)  # fmt: skip
# Opaque provider data inside reasoning blocks: signatures and encrypted payloads, never user text.
_OPAQUE_FIELDS = frozenset({"signature", "data", "encrypted_content", "id"})
_REASONING_FIELDS = ("reasoning_details", "codex_reasoning_items", "codex_message_items")
_CALL_IDS = frozenset({"id", "call_id"})  # a tool call's id pairs it with its result: never touched


def _secret_field(name: str) -> bool:
    return name.lower().replace("-", "_") in _SECRET_FIELDS


def _redact_text(text: str) -> str:
    """`text` redacted; `text` itself (the same object) when nothing was masked."""
    redacted = redact_sensitive_text(text)
    return text if redacted == text else redacted


def _redact(value: Any, keep: frozenset[str]) -> Any:
    """`value` with its strings redacted; the same object when nothing changed."""
    if isinstance(value, str):
        return _redact_text(value)
    if isinstance(value, list):
        items = [_redact(item, keep) for item in value]
        return value if all(new is old for new, old in zip(items, value, strict=True)) else items
    if isinstance(value, dict):
        changed: dict[str, Any] = {}
        for key, item in value.items():
            if key in keep or not isinstance(key, str):
                continue
            if isinstance(item, str) and _secret_field(key) and item and not is_placeholder(item):
                new = mask_token(item)
            elif key == "arguments" and isinstance(item, str):
                new = _redact_json_text(item)
            else:
                new = _redact(item, keep)
            if new is not item:
                changed[key] = new
        return {**value, **changed} if changed else value
    return value


def _redact_json_text(raw: str) -> str:
    try:
        value = json.loads(raw)
    except ValueError:
        return _redact_text(raw)
    redacted = _redact(value, frozenset())
    return raw if redacted is value else json.dumps(redacted, ensure_ascii=False)


def redact_value(value: Any) -> Any:
    """A JSON-like value (dicts, lists, strings, numbers) with every secret masked."""
    if not redaction_enabled():
        return value
    return _redact(value, frozenset())


def redact_json_text(raw: str) -> str:
    """A JSON text with every secret in its strings masked (still valid JSON); other text as text."""
    if not redaction_enabled() or not isinstance(raw, str) or not raw:
        return raw
    return _redact_json_text(raw)


def _redact_reasoning_blocks(blocks: Any) -> Any:
    if not isinstance(blocks, list):
        return _redact(blocks, _OPAQUE_FIELDS)
    kept: list[Any] = []
    changed = False
    for block in blocks:
        new = _redact(block, _OPAQUE_FIELDS)
        if new is not block:
            changed = True
            if isinstance(block, dict) and block.get("signature"):
                continue  # signed text that no longer matches its signature: leave the block out
        kept.append(new)
    return kept if changed else blocks


def redact_stored_row(row: dict[str, Any]) -> dict[str, Any]:
    """`row` (the keyword arguments of one stored message) with its secrets masked, in place.

    Nested values are replaced, never changed, so the live message `row` was made from keeps
    what the model saw this turn.
    """
    if not redaction_enabled():
        return row
    for key in ("content", "reasoning", "reasoning_content"):
        if isinstance(row.get(key), str):
            row[key] = _redact_text(row[key])
    if row.get("tool_calls"):
        row["tool_calls"] = _redact(row["tool_calls"], _CALL_IDS)  # each call's "arguments" as JSON
    for key in _REASONING_FIELDS:
        if row.get(key):
            row[key] = _redact_reasoning_blocks(row[key]) or None  # None when every block was left out
    return row
