"""FlushCursor on its own, against a real state.db: every message is written once, a failed write is retried."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.core.session.persistence import FlushCursor, to_row
from hermes_tui.store.db import SessionDB


@pytest.fixture
async def db(tmp_path: Path):
    database = await SessionDB.open(tmp_path / "state.db")
    await database.create_session("s1", "cli")
    yield database
    await database.close()


async def test_each_flush_writes_only_what_is_new_and_records_row_ids(db: SessionDB) -> None:
    cursor = FlushCursor()
    messages = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    assert await cursor.flush(db, "s1", messages) == 2
    assert await cursor.flush(db, "s1", messages) == 0
    messages.append({"role": "user", "content": "c"})
    assert await cursor.flush(db, "s1", messages) == 1
    stored = await db.get_messages("s1")
    assert [r["content"] for r in stored] == ["a", "b", "c"]
    assert [m["_db_id"] for m in messages] == [r["id"] for r in stored]


async def test_a_shorter_list_moves_the_cursor_down_so_nothing_new_is_skipped(db: SessionDB) -> None:
    cursor = FlushCursor()
    messages = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "(empty)"}]
    await cursor.flush(db, "s1", messages)
    shorter = messages[:1]  # in-memory scaffolding dropped after it was stored
    assert await cursor.flush(db, "s1", shorter) == 0
    shorter.append({"role": "assistant", "content": "real answer"})
    assert await cursor.flush(db, "s1", shorter) == 1
    assert [r["content"] for r in await db.get_messages("s1")][-1] == "real answer"


async def test_a_failed_write_leaves_the_cursor_so_the_next_flush_retries(db: SessionDB, tmp_path: Path) -> None:
    cursor = FlushCursor()
    messages = [{"role": "user", "content": "kept"}]
    with pytest.raises(Exception):  # noqa: B017 - any store error
        await cursor.flush(db, "no-such-session", messages)
    assert cursor.flushed == 0
    assert await cursor.flush(db, "s1", messages) == 1


async def test_without_a_database_the_cursor_just_advances() -> None:
    cursor = FlushCursor()
    assert await cursor.flush(None, "s1", [{"role": "user", "content": "x"}]) == 0
    assert cursor.flushed == 1


def test_images_never_reach_a_row_and_assistant_extras_are_kept() -> None:
    row = to_row(
        {
            "role": "user",
            "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:..."}}],
        }
    )
    assert row["content"] == "look\n[screenshot]"
    assistant = to_row({"role": "assistant", "content": "x", "reasoning": "because", "_db_id": 3})
    assert assistant["reasoning"] == "because" and "_db_id" not in assistant
    assert "reasoning" not in to_row({"role": "user", "content": "x", "reasoning": "not mine"})
