"""strip_trailing_scaffolding: empty-response scaffolding never reaches the database (§11 case 21)."""

from __future__ import annotations

from hermes_tui.core.context import strip_trailing_scaffolding

from .helpers import assistant, user


def test_trailing_synthetic_and_sentinel_messages_are_dropped() -> None:
    messages = [
        user("hi"),
        assistant("real answer"),
        {"role": "assistant", "content": "(empty)", "_empty_recovery_synthetic": True},
        {
            "role": "user",
            "content": "You just executed tool calls but returned an empty response.",
            "_empty_recovery_synthetic": True,
        },
        {"role": "assistant", "content": "(empty)", "_empty_terminal_sentinel": True},
    ]
    assert strip_trailing_scaffolding(messages) == messages[:2]
    assert len(messages) == 5  # the input list is not modified


def test_genuine_empty_answer_and_earlier_scaffolding_are_kept() -> None:
    genuine = assistant("(empty)")
    messages = [
        user("a"),
        {"role": "assistant", "content": "thinking", "_thinking_prefill": True},
        user("b"),
        genuine,
    ]
    assert strip_trailing_scaffolding(messages) == messages
    assert strip_trailing_scaffolding([]) == []
