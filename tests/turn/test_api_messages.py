"""The per-call API copy on its own: the history is never modified; what providers reject is repaired."""

from __future__ import annotations

import copy
import json

from hermes_tui.core.context.offload import SLICE_ITEMS
from hermes_tui.core.turn.api_messages import (
    STUB_RESULT,
    HistoryRepair,
    build_api_messages,
    build_api_messages_in_slices,
    repair_history,
    repair_with_origins,
)
from tests.loop_watch import LoopTurns


def call(cid: str, name: str = "read_file", args: str = '{"b": 1, "a": 2}') -> dict:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


def test_system_prompt_first_flags_dropped_history_untouched() -> None:
    history = [
        {"role": "user", "content": "  hi  ", "_db_id": 4},
        {"role": "assistant", "content": "hello ", "_empty_recovery_synthetic": True},
    ]
    snapshot = copy.deepcopy(history)
    out = build_api_messages(history, "SYSTEM")
    assert history == snapshot
    assert out[0] == {"role": "system", "content": "SYSTEM"}
    assert out[1] == {"role": "user", "content": "hi"}
    assert all(not key.startswith("_") for message in out for key in message)


def test_tool_output_keeps_leading_indentation() -> None:
    out = build_api_messages(
        [
            {"role": "assistant", "content": "", "tool_calls": [call("c1")]},
            {"role": "tool", "content": "    indented\n", "tool_call_id": "c1"},
        ],
        None,
    )
    assert out[1]["content"] == "    indented"


def test_arguments_are_canonical_and_invalid_json_becomes_an_empty_object() -> None:
    out = build_api_messages(
        [
            {"role": "assistant", "content": "", "tool_calls": [call("c1"), call("c2", args="{broken")]},
            {"role": "tool", "content": "x", "tool_call_id": "c1"},
            {"role": "tool", "content": "y", "tool_call_id": "c2"},
        ],
        None,
    )
    args = [c["function"]["arguments"] for c in out[0]["tool_calls"]]
    assert args == ['{"a":2,"b":1}', "{}"]
    assert all(json.loads(a) is not None for a in args)


def test_repair_drops_stray_results_stubs_missing_ones_and_merges_users() -> None:
    repaired = repair_history(
        [
            {"role": "tool", "content": "orphan", "tool_call_id": "gone"},
            {"role": "user", "content": "one"},
            {"role": "user", "content": "two"},
            {"role": "assistant", "content": "", "tool_calls": [call("c1"), call("c2")]},
            {"role": "tool", "content": "r1", "tool_call_id": "c1"},
            {"role": "user", "content": "next"},
        ]
    )
    assert [m["role"] for m in repaired] == ["user", "assistant", "tool", "tool", "user"]
    assert repaired[0]["content"] == "one\n\ntwo"
    assert repaired[3] == {"role": "tool", "content": STUB_RESULT, "tool_call_id": "c2"}


def test_unanswered_calls_at_the_end_are_stubbed_and_list_contents_keep_their_parts() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    repaired = repair_history(
        [
            {"role": "user", "content": [{"type": "text", "text": "see"}, image]},
            {"role": "user", "content": "and this"},
            {"role": "assistant", "content": "", "tool_calls": [call("c9")]},
        ]
    )
    assert repaired[0]["content"][1] is image and repaired[0]["content"][2] == {"type": "text", "text": "and this"}
    assert repaired[-1]["tool_call_id"] == "c9" and repaired[-1]["content"] == STUB_RESULT


def test_extra_context_goes_to_the_last_user_message_of_the_copy_only() -> None:
    history = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "a"},
        {"role": "user", "content": "q"},
    ]
    out = build_api_messages(
        history, None, extra_user_context="[memory] likes tea", extra_messages=[{"role": "user", "content": "more"}]
    )
    assert out[2]["content"] == "q\n\n[memory] likes tea" and out[0]["content"] == "first"
    assert out[-1] == {"role": "user", "content": "more"} and history[2]["content"] == "q"


MESSY = [
    {"role": "tool", "content": "orphan", "tool_call_id": "gone"},
    {"role": "user", "content": " one "},
    {"role": "user", "content": "two"},
    {"role": "assistant", "content": "", "tool_calls": [call("c1"), call("c2")]},
    {"role": "tool", "content": "r1", "tool_call_id": "c1"},
    {"role": "user", "content": "next"},
    {"role": "user", "content": "and more"},
    {"role": "assistant", "content": "", "tool_calls": [call("c3")]},
    {"role": "tool", "content": "r3", "tool_call_id": "c3"},
    {"role": "tool", "content": "r3 again", "tool_call_id": "c3"},
    {"role": "assistant", "content": "done", "tool_calls": [call("c4")]},
]


def test_a_repair_fed_in_any_cut_gives_what_one_pass_gives() -> None:
    whole = repair_with_origins(MESSY)
    for cut in range(len(MESSY) + 1):
        for second in range(cut, len(MESSY) + 1):
            repair = HistoryRepair()
            repair.feed(MESSY[:cut])
            repair.feed(MESSY[cut:second])
            repair.feed(MESSY[second:])
            assert repair.finish() == whole, (cut, second)


async def test_the_sliced_build_gives_the_one_go_build_and_returns_to_the_loop_between_slices() -> None:
    history = MESSY * 200  # 2,200 messages: 9 slices
    async with LoopTurns() as turns:
        before = turns.ticks
        sliced = await build_api_messages_in_slices(history, "SYSTEM", extra_user_context="ctx")
        after = turns.ticks
    assert sliced == build_api_messages(history, "SYSTEM", extra_user_context="ctx")
    assert after - before >= len(history) // SLICE_ITEMS, "other tasks ran between the slices"
