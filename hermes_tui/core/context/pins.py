"""Pinned messages as the compressor sees them: which messages the next compression keeps verbatim.

A pinned message carries the in-memory flag `PIN_KEY` (underscore keys are never sent or stored;
the state.db form is `core/session/pins.py`). The compressor treats pinned messages like its
protected head and tail: phase 1 leaves them as they are, and a pinned message in the summarised
middle is kept, in order, right after the summary. A tool call and its results travel together, so
pinning any message of an assistant's tool-call group keeps the whole group (`pinned_indices`).
"""

from __future__ import annotations

from collections.abc import Sequence

from hermes_tui.core.messages import Message

PIN_KEY = "_pinned"


def is_pinned(message: Message) -> bool:
    return message.get(PIN_KEY) is True


def _group_of(messages: Sequence[Message], index: int) -> range:
    """The tool-call group `index` belongs to (the assistant with tool calls and its results), or itself."""
    start = index
    while start > 0 and messages[start].get("role") == "tool":
        start -= 1
    owner = messages[start]
    if owner.get("role") != "assistant" or not owner.get("tool_calls"):
        return range(index, index + 1)
    end = start + 1
    while end < len(messages) and messages[end].get("role") == "tool":
        end += 1
    return range(start, end)


def pinned_indices(messages: Sequence[Message]) -> list[int]:
    """Ascending indices to keep verbatim: every pinned message with the rest of its tool-call group."""
    keep: set[int] = set()
    for index, message in enumerate(messages):
        if message.get(PIN_KEY) is True and index not in keep:
            keep.update(_group_of(messages, index))
    return sorted(keep)
