"""Transcript rows mapped to the history's messages (`hermes_tui.widgets.message_links`), however the rows came."""

from __future__ import annotations

from hermes_tui.core.context.markers import SUMMARY_PREFIX
from hermes_tui.widgets.message_links import copy_text, link_holds, link_items, message_index_for
from hermes_tui.widgets.transcript import KIND_NOTICE, KIND_TOOL, TranscriptItem, history_to_items


def call(call_id: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": "read_file", "arguments": '{"path": "x"}'}}


def stored(messages: list[dict], first_id: int = 100) -> list[dict]:
    return [{**message, "_db_id": first_id + index} for index, message in enumerate(messages)]


HISTORY = stored(
    [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "let me look", "tool_calls": [call("a"), call("b")]},
        {"role": "tool", "tool_call_id": "a", "content": "alpha"},
        {"role": "tool", "tool_call_id": "b", "content": "beta"},
        {"role": "assistant", "content": "done"},
        {"role": "tool", "tool_call_id": "zz", "content": "a result whose call is gone"},
        {"role": "user", "content": "middle question"},
        {"role": "assistant", "content": "middle answer"},
        {"role": "user", "content": "last question"},
        {"role": "assistant", "content": "last answer"},
    ]
)


def test_history_items_carry_their_message_index_and_row_id() -> None:
    items = history_to_items(HISTORY)
    shown = [(item.kind, item.message_index, item.message_id) for item in items]
    assert shown[:5] == [
        ("user", 0, 100),
        ("assistant", 1, 101),
        ("tool", 1, 101),  # a tool card names the assistant message that made the call
        ("tool", 1, 101),
        ("assistant", 4, 104),
    ]
    assert shown[5] == ("tool", 5, 105)  # an orphan result shows on a card of its own
    assert all(link_holds(item, HISTORY) for item in items)


def live_transcript() -> list[TranscriptItem]:
    """The rows as a live run built them: no links, a notice in between."""
    items = history_to_items(HISTORY)
    for item in items:
        item.message_index = item.message_id = None
    items.insert(6, TranscriptItem(kind=KIND_NOTICE, text="Context compressed"))
    return items


def test_live_rows_are_linked_from_both_ends_and_summarised_rows_stay_unlinked() -> None:
    items = live_transcript()
    # A compression kept the head and the tail; the middle turned into a summary (new row ids).
    compressed = stored(
        [
            *[{k: v for k, v in m.items() if k != "_db_id"} for m in HISTORY[:6]],
            {"role": "user", "content": f"{SUMMARY_PREFIX}\nthe middle"},
            {"role": "user", "content": "last question"},
            {"role": "assistant", "content": "last answer"},
        ],
        first_id=500,
    )
    assert link_items(items, compressed) == 8
    by_text = {item.text or item.call_id: item for item in items}
    assert (by_text["first"].message_index, by_text["first"].message_id) == (0, 500)
    assert by_text["b"].message_index == 1 and by_text["done"].message_index == 4
    assert (by_text["last answer"].message_index, by_text["last answer"].message_id) == (8, 508)
    assert by_text["middle question"].message_index is None  # summarised away: no message to point at
    assert message_index_for(by_text["middle answer"], items, compressed) is None
    notice = next(item for item in items if item.kind == KIND_NOTICE)
    assert notice.message_index is None and message_index_for(notice, items, compressed) is None


def test_a_stale_link_is_caught_by_its_row_id_and_linked_again() -> None:
    items = history_to_items(HISTORY)
    answer = items[-1]
    moved = [{"role": "user", "content": "a message inserted before", "_db_id": 7}, *HISTORY]
    assert not link_holds(answer, moved)  # same position, another row
    assert message_index_for(answer, items, moved) == 10
    unsaved = [{k: v for k, v in m.items() if k != "_db_id"} for m in HISTORY]
    fresh = history_to_items(unsaved)
    assert link_holds(fresh[-1], unsaved)  # no row ids yet: role and text decide
    assert not link_holds(fresh[-1], [*unsaved[:-1], {"role": "assistant", "content": "something else"}])


def test_copy_gives_the_stored_text_or_the_tool_call_and_its_result() -> None:
    items = history_to_items(HISTORY)
    assert copy_text(items[1], HISTORY) == "let me look"
    card_b = next(item for item in items if item.kind == KIND_TOOL and item.call_id == "b")
    assert copy_text(card_b, HISTORY) == 'read_file({"path": "x"})\n\nbeta'
    loose = TranscriptItem(kind="user", text="not linked")
    assert copy_text(loose, HISTORY) == "not linked"
