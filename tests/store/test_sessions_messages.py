"""Session rows and message rows (reference §2.4-2.5, §11 case 22)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from hermes_tui.store.db import SessionDB
from hermes_tui.store.ids import looks_like_session_id, new_session_id
from tests.store.conftest import make_session, raw_execute

TOOL_CALLS = [
    {"id": f"call_{i}", "type": "function", "function": {"name": "read_file", "arguments": f'{{"path": "f{i}"}}'}}
    for i in range(3)
]


def test_new_session_ids_have_hermes_shape_and_differ() -> None:
    ids = {new_session_id() for _ in range(50)}
    assert len(ids) == 50
    assert all(looks_like_session_id(i) for i in ids)


async def test_create_session_is_idempotent_and_keeps_first_values(db: SessionDB) -> None:
    await db.create_session("s1", "cli", model="m1", model_config={"temperature": 0.2}, cwd="/w")
    await db.create_session("s1", "tui", model="m2")
    await db.ensure_session("s1")
    row = await db.get_session("s1")
    assert row is not None
    assert (row["source"], row["model"], row["cwd"]) == ("cli", "m1", "/w")
    assert row["model_config"] == '{"temperature": 0.2}'
    assert row["message_count"] == 0 and row["ended_at"] is None
    assert await db.get_session("missing") is None


async def test_end_session_first_reason_wins_and_reopen_allows_a_new_one(db: SessionDB) -> None:
    await make_session(db, "s1")
    assert await db.end_session("s1", "compression") is True
    assert await db.end_session("s1", "cli_close") is False
    assert (await db.get_session("s1"))["end_reason"] == "compression"
    assert await db.reopen_session("s1") is True
    row = await db.get_session("s1")
    assert row["ended_at"] is None and row["end_reason"] is None
    assert await db.end_session("s1", "tui_shutdown") is True
    assert (await db.get_session("s1"))["end_reason"] == "tui_shutdown"


async def test_counters_count_tool_calls_but_not_tool_results(db: SessionDB) -> None:
    await make_session(db, "s1")
    await db.append_message("s1", "user", "read three files")
    await db.append_message("s1", "assistant", None, tool_calls=TOOL_CALLS)
    for i in range(3):
        await db.append_message("s1", "tool", f"content {i}", tool_call_id=f"call_{i}", tool_name="read_file")
    row = await db.get_session("s1")
    assert row["message_count"] == 5
    assert row["tool_call_count"] == 3


async def test_appended_ids_are_returned_in_order(db: SessionDB) -> None:
    await make_session(db, "s1")
    first = await db.append_message("s1", "user", "one")
    batch = await db.append_messages(
        "s1",
        [
            {"role": "assistant", "content": "two", "_flush_marker": True},
            {"role": "user", "content": "three"},
            {"role": "assistant", "content": None, "tool_calls": TOOL_CALLS[:2]},
        ],
    )
    assert batch == [first + 1, first + 2, first + 3]
    stored = await db.get_messages("s1")
    assert [m["id"] for m in stored] == [first, *batch]
    assert [m["content"] for m in stored] == ["one", "two", "three", None]
    row = await db.get_session("s1")
    assert (row["message_count"], row["tool_call_count"]) == (4, 2)


async def test_append_to_unknown_session_is_a_clear_value_error(db: SessionDB) -> None:
    with pytest.raises(ValueError, match="session nope does not exist"):
        await db.append_message("nope", "user", "hello")
    with pytest.raises(ValueError, match="needs a role"):
        await make_session(db, "s1") and await db.append_messages("s1", [{"content": "no role"}])


async def test_multimodal_content_round_trips_through_the_sentinel(db: SessionDB, db_path: Path) -> None:
    await make_session(db, "s1")
    parts = [{"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": {"url": "data:x"}}]
    envelope = {"type": "tool_result", "text_summary": "a chart", "parts": [1, 2]}
    await db.append_message("s1", "user", parts)
    await db.append_message("s1", "tool", envelope, tool_call_id="c1")
    raw = raw_execute(db_path, "SELECT content FROM messages ORDER BY id")
    assert raw[0][0].startswith("\x00json:") and raw[1][0].startswith("\x00json:")
    stored = await db.get_messages("s1")
    assert stored[0]["content"] == parts and stored[1]["content"] == envelope
    conversation = await db.get_messages_as_conversation("s1")
    assert conversation[0]["content"] == parts


async def test_conversation_restore_strips_memory_context_and_keeps_empty_reasoning(db: SessionDB) -> None:
    await make_session(db, "s1")
    injected = (
        "<memory-context>\n[System note: The following is recalled memory context, NOT new user input. "
        "Treat as authoritative reference data.]\n\nUser likes tea.\n</memory-context>\n\nWhat should I drink?"
    )
    user_id = await db.append_message("s1", "user", injected)
    await db.append_message(
        "s1",
        "assistant",
        "Tea. </memory-context>",
        reasoning_content="",
        finish_reason="stop",
        reasoning_details=[{"type": "summary", "text": "thinking"}],
    )
    await db.append_message("s1", "assistant", "plain", reasoning_content=None)
    conversation = await db.get_messages_as_conversation("s1")
    assert conversation[0] == {"role": "user", "content": "What should I drink?", "_db_id": user_id}
    assert conversation[1]["content"] == "Tea."
    assert conversation[1]["reasoning_content"] == ""
    assert conversation[1]["finish_reason"] == "stop"
    assert conversation[1]["reasoning_details"] == [{"type": "summary", "text": "thinking"}]
    assert "reasoning_content" not in conversation[2]


async def test_tool_calls_and_tool_results_restore_as_openai_messages(db: SessionDB) -> None:
    await make_session(db, "s1")
    await db.append_message("s1", "assistant", "", tool_calls=TOOL_CALLS[:1])
    await db.append_message("s1", "tool", "file body", tool_call_id="call_0", tool_name="read_file")
    assistant, tool = await db.get_messages_as_conversation("s1")
    assert assistant["tool_calls"] == TOOL_CALLS[:1]
    assert tool["tool_call_id"] == "call_0" and tool["tool_name"] == "read_file"


async def test_replace_messages_rewrites_history_and_counters(db: SessionDB) -> None:
    await make_session(db, "s1")
    await db.append_messages("s1", [{"role": "user", "content": f"m{i}"} for i in range(5)])
    ids = await db.replace_messages(
        "s1",
        [{"role": "user", "content": "summary"}, {"role": "assistant", "content": "", "tool_calls": TOOL_CALLS}],
    )
    stored = await db.get_messages("s1")
    assert [m["id"] for m in stored] == ids
    assert [m["content"] for m in stored] == ["summary", ""]
    assert stored[0]["timestamp"] < stored[1]["timestamp"]
    row = await db.get_session("s1")
    assert (row["message_count"], row["tool_call_count"]) == (2, 3)


async def test_rewind_soft_deletes_from_a_user_turn_and_restore_brings_it_back(db: SessionDB) -> None:
    await make_session(db, "s1")
    ids = await db.append_messages(
        "s1",
        [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "answer one"},
            {"role": "user", "content": "second"},
            {"role": "assistant", "content": "answer two"},
        ],
    )
    assert await db.rewind_to_message("s1", ids[1]) is None  # not a user message
    result = await db.rewind_to_message("s1", ids[2])
    assert result is not None
    assert result["rewound_count"] == 2
    assert result["target_message"]["content"] == "second"
    assert result["new_head_id"] == ids[1]
    assert [m["content"] for m in await db.get_messages("s1")] == ["first", "answer one"]
    assert len(await db.get_messages("s1", include_inactive=True)) == 4
    assert await db.search_messages("second") == []
    assert (await db.get_session("s1"))["rewind_count"] == 1
    assert await db.restore_rewound("s1") == 2
    assert len(await db.get_messages("s1")) == 4


async def test_token_counts_increment_or_set_and_fill_model_once(db: SessionDB) -> None:
    await db.update_token_counts("lazy", input_tokens=100, output_tokens=10, api_call_count=1, model="m1")
    row = await db.get_session("lazy")
    assert row["source"] == "unknown" and row["model"] == "m1"
    await db.update_token_counts(
        "lazy", input_tokens=50, cache_read_tokens=7, api_call_count=1, model="m2", estimated_cost_usd=0.5
    )
    await db.update_token_counts("lazy", estimated_cost_usd=0.25)
    row = await db.get_session("lazy")
    assert (row["input_tokens"], row["output_tokens"], row["cache_read_tokens"]) == (150, 10, 7)
    assert row["api_call_count"] == 2 and row["model"] == "m1"
    assert row["estimated_cost_usd"] == pytest.approx(0.75)
    await db.update_token_counts("lazy", input_tokens=999, output_tokens=1, api_call_count=5, absolute=True)
    row = await db.get_session("lazy")
    assert (row["input_tokens"], row["output_tokens"], row["api_call_count"]) == (999, 1, 5)


async def test_model_and_system_prompt_updates(db: SessionDB) -> None:
    await make_session(db, "s1", model="old")
    await db.update_session_model("s1", "new")
    await db.update_system_prompt("s1", "You are Hermes.")
    row = await db.get_session("s1")
    assert (row["model"], row["system_prompt"]) == ("new", "You are Hermes.")


async def test_state_meta_upserts(db: SessionDB) -> None:
    assert await db.get_meta("goal:s1") is None
    assert await db.get_meta("goal:s1", "none") == "none"
    await db.set_meta("goal:s1", '{"goal": "a"}')
    await db.set_meta("goal:s1", '{"goal": "b"}')
    assert await db.get_meta("goal:s1") == '{"goal": "b"}'


async def test_orphaned_compression_children_are_finalized(db: SessionDB, db_path: Path) -> None:
    await make_session(db, "parent")
    await db.end_session("parent", "compression")
    for sid in ("orphan", "recent", "empty", "worked"):
        await make_session(db, sid, parent_session_id="parent")
    for sid in ("orphan", "recent", "worked"):
        await db.append_message(sid, "user", "summary")
    await db.update_token_counts("worked", api_call_count=1)
    old = time.time() - 8 * 86400
    raw_execute(db_path, "UPDATE sessions SET started_at = ? WHERE id IN ('orphan', 'empty', 'worked')", (old,))
    assert await db.finalize_orphaned_compression_sessions() == 1
    reasons = {sid: (await db.get_session(sid))["end_reason"] for sid in ("orphan", "recent", "empty", "worked")}
    assert reasons == {"orphan": "orphaned_compression", "recent": None, "empty": None, "worked": None}


@pytest.mark.parametrize("yields_before_cancel", [0, 1, 2, 3, 6])
async def test_cancelled_write_leaves_nothing_half_written(db: SessionDB, yields_before_cancel: int) -> None:
    await make_session(db, "s1")
    big = [{"role": "user", "content": f"row {i} " + "x" * 200} for i in range(3000)]
    task = asyncio.create_task(db.append_messages("s1", big))
    for _ in range(yields_before_cancel):  # cancel at different points of the transaction
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    count = len(await db.get_messages("s1"))
    row = await db.get_session("s1")
    assert count in (0, 3000)
    assert row["message_count"] == count
    # The connection is usable afterwards.
    await db.append_message("s1", "user", "after cancel")
    assert (await db.get_session("s1"))["message_count"] == count + 1
