"""Anthropic prompt caching, strategy "system_and_3" (reference §9, §11 case 28)."""

from __future__ import annotations

import copy
from typing import Any

from hermes_tui.core.providers.caching import apply_anthropic_cache_control

EPHEMERAL = {"type": "ephemeral"}


def conversation(turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "system prompt"}]
    for n in range(turns):
        messages.append({"role": "user", "content": f"question {n}"})
        messages.append({"role": "assistant", "content": f"answer {n}"})
    return messages


def markers(messages: list[dict[str, Any]]) -> list[int]:
    """Indexes of messages that carry a marker (top level or on a content part)."""
    found = []
    for index, message in enumerate(messages):
        content = message.get("content")
        in_parts = isinstance(content, list) and any(isinstance(p, dict) and "cache_control" in p for p in content)
        if "cache_control" in message or in_parts:
            found.append(index)
    return found


def test_system_plus_last_three_messages_at_most_four_breakpoints() -> None:
    messages = conversation(6)
    marked = apply_anthropic_cache_control(messages)
    assert markers(marked) == [0, len(messages) - 3, len(messages) - 2, len(messages) - 1]


def test_without_a_system_message_only_the_last_three() -> None:
    messages = conversation(4)[1:]
    assert markers(apply_anthropic_cache_control(messages)) == [
        len(messages) - 3,
        len(messages) - 2,
        len(messages) - 1,
    ]


def test_short_conversation_marks_what_exists() -> None:
    marked = apply_anthropic_cache_control([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}])
    assert markers(marked) == [0, 1]
    assert apply_anthropic_cache_control([]) == []


def test_string_content_becomes_a_marked_text_part() -> None:
    marked = apply_anthropic_cache_control([{"role": "user", "content": "hello"}])
    assert marked[0]["content"] == [{"type": "text", "text": "hello", "cache_control": EPHEMERAL}]


def test_list_content_marks_its_last_part() -> None:
    parts = [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "http://x/y.png"}}]
    marked = apply_anthropic_cache_control([{"role": "user", "content": parts}])
    assert "cache_control" not in marked[0]["content"][0]
    assert marked[0]["content"][1]["cache_control"] == EPHEMERAL


def test_empty_content_gets_a_top_level_marker() -> None:
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    marked = apply_anthropic_cache_control([{"role": "assistant", "content": None, "tool_calls": [call]}])
    assert marked[0]["cache_control"] == EPHEMERAL
    marked = apply_anthropic_cache_control([{"role": "assistant", "content": ""}])
    assert marked[0]["cache_control"] == EPHEMERAL


def test_tool_message_marker_only_on_the_native_layout() -> None:
    tool = {"role": "tool", "tool_call_id": "c", "content": "result"}
    native = apply_anthropic_cache_control([tool], native_anthropic=True)
    assert native[0]["cache_control"] == EPHEMERAL
    assert native[0]["content"] == "result"
    gateway = apply_anthropic_cache_control([tool], native_anthropic=False)
    assert "cache_control" not in gateway[0]


def test_one_hour_ttl() -> None:
    marked = apply_anthropic_cache_control(conversation(2), ttl="1h")
    assert marked[0]["content"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}


def test_input_is_not_mutated_and_markers_are_not_shared() -> None:
    messages = conversation(3)
    before = copy.deepcopy(messages)
    marked = apply_anthropic_cache_control(messages)
    assert messages == before
    marked[-1]["content"][0]["cache_control"]["ttl"] = "changed"
    assert marked[-2]["content"][0]["cache_control"] == EPHEMERAL


def test_reapplying_never_exceeds_four_breakpoints() -> None:
    once = apply_anthropic_cache_control(conversation(5))
    once.append({"role": "user", "content": "one more"})
    twice = apply_anthropic_cache_control(once)
    assert len(markers(twice)) == 4
    assert markers(twice) == [0, len(twice) - 3, len(twice) - 2, len(twice) - 1]
