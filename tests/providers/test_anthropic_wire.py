"""Canonical (OpenAI-format) conversation -> Anthropic Messages API shapes."""

from __future__ import annotations

from hermes_tui.core.providers.anthropic_wire import image_block, to_anthropic, to_anthropic_tools


def call(call_id: str, name: str, arguments: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_system_is_lifted_out_and_absent_when_missing() -> None:
    payload = to_anthropic([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}])
    assert payload.system == [{"type": "text", "text": "be brief"}]
    assert payload.messages == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert to_anthropic([{"role": "user", "content": "hi"}]).system is None


def test_invalid_tool_arguments_become_an_empty_input_and_keep_the_raw_text() -> None:
    payload = to_anthropic(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "", "tool_calls": [call("t1", "terminal", '{"command": "ls')]},
            {"role": "tool", "tool_call_id": "t1", "content": "Error: Invalid JSON arguments."},
        ]
    )
    assistant = payload.messages[1]["content"]
    assert assistant[-1] == {"type": "tool_use", "id": "t1", "name": "terminal", "input": {}}
    assert '{"command": "ls' in assistant[0]["text"]


def test_non_object_and_empty_arguments() -> None:
    payload = to_anthropic(
        [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [call("a", "f", "[1, 2]"), call("b", "g", "")],
            },
        ]
    )
    blocks = payload.messages[1]["content"]
    tool_uses = [b for b in blocks if b["type"] == "tool_use"]
    assert [b["input"] for b in tool_uses] == [{}, {}]
    assert any(b["type"] == "text" and "[1, 2]" in b["text"] for b in blocks)


def test_tool_results_merge_with_the_following_user_turn_results_first() -> None:
    payload = to_anthropic(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [call("a", "f", "{}")]},
            {"role": "tool", "tool_call_id": "a", "content": "done"},
            {"role": "user", "content": "and now?"},
        ]
    )
    assert [m["role"] for m in payload.messages] == ["user", "assistant", "user"]
    assert [b["type"] for b in payload.messages[2]["content"]] == ["tool_result", "text"]


def test_images_in_user_and_tool_content() -> None:
    payload = to_anthropic(
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "what is this?"},
                    {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/AAA="}},
                    {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
                ],
            },
            {"role": "assistant", "content": None, "tool_calls": [call("s", "screenshot", "{}")]},
            {
                "role": "tool",
                "tool_call_id": "s",
                "content": [{"type": "input_image", "image_url": "data:image/png;base64,iVBOR"}],
            },
        ]
    )
    user = payload.messages[0]["content"]
    assert user[1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/AAA="},
    }
    assert user[2] == {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}}
    result = payload.messages[2]["content"][0]
    assert result["content"] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}}
    ]


def test_unusable_image_reference_becomes_a_note_not_a_crash() -> None:
    assert image_block({"type": "image_url", "image_url": {"url": "file:///etc/passwd"}})["type"] == "text"


def test_empty_messages_and_empty_text_parts_are_dropped() -> None:
    payload = to_anthropic(
        [
            {"role": "user", "content": [{"type": "text", "text": ""}, {"type": "text", "text": "real"}]},
            {"role": "assistant", "content": ""},
            {"role": "user", "content": "again"},
        ]
    )
    assert payload.messages == [
        {"role": "user", "content": [{"type": "text", "text": "real"}, {"type": "text", "text": "again"}]}
    ]


def test_underscore_flags_never_reach_the_wire() -> None:
    payload = to_anthropic([{"role": "user", "content": "hi", "_empty_recovery_synthetic": True}])
    assert payload.messages == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


def test_tool_schemas() -> None:
    tools = [
        {
            "type": "function",
            "function": {"name": "todo", "parameters": {"type": "object", "properties": {}}},
        },
        {"type": "function", "function": {"name": "bare"}},
        {"type": "function", "function": {"description": "nameless is skipped"}},
    ]
    assert to_anthropic_tools(tools) == [
        {"name": "todo", "input_schema": {"type": "object", "properties": {}}},
        {"name": "bare", "input_schema": {"type": "object", "properties": {}}},
    ]
