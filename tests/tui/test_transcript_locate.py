"""Which transcript item shows a stored message (for opening a search hit in the conversation)."""

from __future__ import annotations

from hermes_tui.transcript_locate import item_index_for_message, message_index_for_id, message_index_for_text
from hermes_tui.widgets.transcript import history_to_items

CALL = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
HISTORY = [
    {"role": "user", "content": "read it", "_db_id": 11},
    {"role": "assistant", "content": "", "tool_calls": [CALL], "_db_id": 12},
    {"role": "tool", "tool_call_id": "c1", "content": "file text", "_db_id": 13},
    {"role": "assistant", "content": "", "_db_id": 14},  # an empty answer shows no row
    {"role": "assistant", "content": "It says hello.", "_db_id": 15},
]


def test_each_message_maps_to_the_item_showing_it() -> None:
    items = history_to_items(HISTORY)
    found = [item_index_for_message(HISTORY, index) for index in range(len(HISTORY))]
    assert found == [0, 1, 1, 2, 2]
    assert items[found[2]].call_id == "c1"  # the tool result is on its call's card
    assert items[found[4]].text == "It says hello."
    assert item_index_for_message(HISTORY, 9) is None and item_index_for_message([], 0) is None


def test_finding_a_stored_message_by_id_or_by_its_text() -> None:
    assert message_index_for_id(HISTORY, 15) == 4 and message_index_for_id(HISTORY, 99) is None
    assert message_index_for_text(HISTORY, "assistant", "…says   hello.") == 4  # a snippet, cut and spaced
    assert message_index_for_text(HISTORY, "user", "hello") is None
