"""Redacting structured things: stored rows, JSON texts (tool arguments, state_meta records) and documents."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator

import pytest

from hermes_tui.core.context.redact import set_redaction_enabled
from hermes_tui.core.context.redact_records import redact_json_text, redact_stored_row, redact_value

KEY = "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12"


@pytest.fixture
def redaction_off() -> Iterator[None]:
    set_redaction_enabled(False)
    try:
        yield
    finally:
        set_redaction_enabled(True)


def test_tool_arguments_stay_valid_json_with_every_string_masked_on_its_own() -> None:
    # An escaped newline before API_KEY= hides it from a search of the raw JSON text.
    raw = json.dumps({"path": ".env", "content": "A=1\nAPI_KEY=hunter2hunter2hunter2\n", "token": "abc123def"})
    out = redact_json_text(raw)
    parsed = json.loads(out)
    assert parsed == {"path": ".env", "content": "A=1\nAPI_KEY=***ter2\n", "token": "***"}


def test_secret_named_fields_are_masked_whole_and_placeholders_kept() -> None:
    value = {"password": "correct horse", "api-key": "short", "client_secret": "${CLIENT_SECRET}", "note": "fine"}
    assert redact_value(value) == {
        "password": "***",
        "api-key": "***",
        "client_secret": "${CLIENT_SECRET}",
        "note": "fine",
    }


def test_text_that_is_not_json_is_redacted_as_text() -> None:
    assert redact_json_text(f"{{broken {KEY}") == "{broken ***Kl12"


def test_clean_values_come_back_as_the_same_objects() -> None:
    document = {"sessions": [{"title": "fix the parser", "messages": [{"content": "token_count is 5"}]}]}
    assert redact_value(document) is document
    raw = '{"path":"src/app.py",  "limit": 20}'
    assert redact_json_text(raw) is raw  # formatting kept: nothing is re-serialised


def test_a_stored_row_is_masked_and_the_live_message_left_alone() -> None:
    live = {
        "role": "assistant",
        "content": f"use {KEY}",
        "reasoning": f"the key {KEY}",
        "reasoning_content": f"the key {KEY}",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "terminal", "arguments": json.dumps({"command": f"echo {KEY}"})},
            }
        ],
    }
    before = copy.deepcopy(live)
    row = redact_stored_row({**live})
    assert live == before
    assert row["content"] == "use ***Kl12" and row["reasoning"] == row["reasoning_content"] == "the key ***Kl12"
    call = row["tool_calls"][0]
    assert call["id"] == "call_1" and json.loads(call["function"]["arguments"]) == {"command": "echo ***Kl12"}


def test_a_signed_thinking_block_holding_a_secret_is_left_out_of_the_row() -> None:
    blocks = [
        {"type": "thinking", "thinking": f"I will use {KEY}", "signature": "c2lnMQ=="},
        {"type": "thinking", "thinking": "plain reasoning", "signature": "c2lnMg=="},
        {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"},
    ]
    row = redact_stored_row({"role": "assistant", "content": "", "reasoning_details": blocks})
    # A masked text would no longer match its signature and the provider would refuse it on replay.
    assert row["reasoning_details"] == blocks[1:]
    only = redact_stored_row({"role": "assistant", "reasoning_details": blocks[:1]})
    assert only["reasoning_details"] is None


def test_unsigned_reasoning_items_are_masked_and_opaque_payloads_kept() -> None:
    items = [
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": f"key {KEY}"}],
            "encrypted_content": "gAAAAB" + "x" * 40,
        }
    ]
    row = redact_stored_row({"role": "assistant", "codex_reasoning_items": items})
    assert row["codex_reasoning_items"][0]["summary"][0]["text"] == "key ***Kl12"
    assert row["codex_reasoning_items"][0]["encrypted_content"] == items[0]["encrypted_content"]


def test_with_the_switch_off_everything_is_verbatim(redaction_off: None) -> None:
    row = {"role": "user", "content": f"my key {KEY}"}
    assert redact_stored_row(dict(row)) == row
    assert redact_json_text(json.dumps({"token": KEY})) == json.dumps({"token": KEY})
    assert redact_value({"text": KEY}) == {"text": KEY}
