"""Helpers over the canonical message format (OpenAI chat dicts, as in Hermes).

A message is `{"role", "content", "tool_calls"?, "tool_call_id"?, "tool_name"?}`; `content` is a
string, None, or a list of parts (`{"type": "text", "text"}`, image parts). Keys starting with an
underscore are in-memory flags: never sent to a provider, never persisted.

How a history changes (what the per-message caches — the token ledger, the request copy, the
encoded request body — rely on to do per-call work in proportion to what changed): a message in a
history is never edited in place except among the newest `CHANGING_TAIL` positions (a streamed
answer, recovery scaffolding, a steer, row ids); any other change puts a new dict at its position
(and the owner, `LiveSession`, bumps its `history_revision`) or builds a new list of new dicts
(compression, branch, resume) or shortens the list (rewind).
"""

from __future__ import annotations

from typing import Any

IMAGE_PART_TYPES = frozenset({"image_url", "input_image", "image"})

Message = dict[str, Any]

CHANGING_TAIL = 16  # the newest positions of a history that may still change in place


def is_image_part(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") in IMAGE_PART_TYPES


def content_text(content: Any, image_placeholder: str = "") -> str:
    """The text of a content value: strings as is, list parts joined by newlines.

    Image parts become `image_placeholder` (skipped when it is empty); dict content (the
    multimodal tool envelope) yields its `text_summary` or `text`.
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return str(content.get("text_summary") or content.get("text") or "")
    if isinstance(content, list):
        pieces: list[str] = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif is_image_part(part):
                if image_placeholder:
                    pieces.append(image_placeholder)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                pieces.append(part["text"])
        return "\n".join(pieces)
    return str(content)


def public_copy(message: Message) -> Message:
    """A shallow copy without the in-memory underscore flags."""
    return {k: v for k, v in message.items() if not k.startswith("_")}


def tool_call_ids(message: Message) -> list[str]:
    """Ids of an assistant message's tool calls (`call_id` first, then `id`)."""
    ids: list[str] = []
    for call in message.get("tool_calls") or []:
        if isinstance(call, dict):
            cid = call.get("call_id") or call.get("id")
        else:
            cid = getattr(call, "call_id", None) or getattr(call, "id", None)
        if cid:
            ids.append(str(cid))
    return ids
