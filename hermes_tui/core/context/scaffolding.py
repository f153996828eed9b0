"""Trailing scaffolding removal before a conversation is persisted (reference §8 step 2, §11 case 21).

Owns `strip_trailing_scaffolding(messages)`: the empty-response recovery messages the loop appends
(`_empty_recovery_synthetic`, `_empty_terminal_sentinel`, `_thinking_prefill`) are in-memory only, so
they are dropped from the end of the list; a genuine assistant "(empty)" without a flag is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from hermes_tui.core.messages import Message

SCAFFOLDING_FLAGS: tuple[str, ...] = (
    "_empty_recovery_synthetic",
    "_empty_terminal_sentinel",
    "_thinking_prefill",
)


def is_scaffolding(message: Message) -> bool:
    return any(message.get(flag) for flag in SCAFFOLDING_FLAGS)


def strip_trailing_scaffolding(messages: Sequence[Message]) -> list[Message]:
    """A new list without the scaffolding messages at its end (the input is not modified)."""
    end = len(messages)
    while end > 0 and is_scaffolding(messages[end - 1]):
        end -= 1
    return list(messages[:end])
