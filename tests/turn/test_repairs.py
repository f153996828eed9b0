"""The one-shot repairs on their own: what each changes in the conversation or the tool schemas."""

from __future__ import annotations

from hermes_tui.core.providers.anthropic_wire import to_anthropic
from hermes_tui.core.turn import repairs

BIG = "data:image/png;base64," + "A" * (8 * 1024 * 1024)
SMALL = "data:image/png;base64,iVBORw0KGgo="


def image(url: str) -> dict:
    return {"type": "image_url", "image_url": {"url": url}}


def test_oversized_images_are_dropped_with_a_note_and_the_rest_kept() -> None:
    messages = [{"role": "user", "content": [{"type": "text", "text": "look"}, image(BIG), image(SMALL)]}]
    assert repairs.shrink_images(messages) == 1
    parts = messages[0]["content"]
    assert parts[0]["text"] == "look" and parts[1]["text"] == repairs.IMAGE_DROPPED and parts[2] == image(SMALL)


def test_when_no_image_is_over_the_cap_all_but_the_newest_go() -> None:
    messages = [
        {"role": "user", "content": [image(SMALL)]},
        {"role": "assistant", "content": "seen"},
        {"role": "user", "content": [image(SMALL), {"type": "text", "text": "and this"}]},
    ]
    assert repairs.shrink_images(messages) == 1
    assert messages[0]["content"][0]["text"] == repairs.IMAGE_DROPPED
    assert messages[2]["content"][0] == image(SMALL)


def test_tool_results_become_text_and_images_are_noted() -> None:
    messages = [
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "shot:"}, image(SMALL)]},
        {"role": "tool", "tool_call_id": "c2", "content": "plain"},
    ]
    assert repairs.text_tool_results(messages) == 1
    assert messages[0]["content"] == "shot:\n[image]" and messages[1]["content"] == "plain"


def test_replayed_reasoning_is_stripped_everywhere_and_the_text_kept() -> None:
    detail = [{"type": "thinking", "thinking": "x", "signature": "sig"}]
    messages = [
        {"role": "assistant", "content": "a", "reasoning": "x", "reasoning_details": detail},
        {"role": "user", "content": "b"},
    ]
    assert repairs.strip_reasoning(messages) == 1
    assert messages[0] == {"role": "assistant", "content": "a", "reasoning": "x"}


def test_schema_patterns_go_but_properties_named_pattern_stay() -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "t",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "pattern": {"type": "string", "pattern": "^\\d+$"},
                        "when": {"type": "string", "format": "date-time"},
                    },
                },
            },
        }
    ]
    stripped, removed = repairs.strip_schema_patterns(tools)
    properties = stripped[0]["function"]["parameters"]["properties"]
    assert removed == 2 and properties == {"pattern": {"type": "string"}, "when": {"type": "string"}}
    assert tools[0]["function"]["parameters"]["properties"]["when"]["format"] == "date-time", "input untouched"


def test_signed_thinking_is_replayed_first_and_thinking_only_turns_are_dropped() -> None:
    signed = [{"type": "thinking", "thinking": "y", "signature": "t"}]
    payload = to_anthropic(
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "", "reasoning_details": signed},
            {
                "role": "assistant",
                "content": "ok",
                "reasoning_details": [*signed, {"type": "thinking", "thinking": "z"}],
            },
        ]
    )
    assert payload.messages[1] == {"role": "assistant", "content": [*signed, {"type": "text", "text": "ok"}]}
    assert len(payload.messages) == 2
