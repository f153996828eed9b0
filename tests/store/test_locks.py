"""The compression lock (reference §3, §11 case 26)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from hermes_tui.store.db import SessionDB
from hermes_tui.store.locks import process_holder
from tests.store.conftest import raw_execute


async def test_second_holder_is_blocked_until_release(db: SessionDB) -> None:
    assert await db.acquire_compression_lock("s1", "holder-a") is True
    assert await db.acquire_compression_lock("s1", "holder-b") is False
    assert await db.compression_lock_holder("s1") == "holder-a"
    assert await db.release_compression_lock("s1", "holder-b") is False  # wrong holder: no-op
    assert await db.acquire_compression_lock("s1", "holder-b") is False
    assert await db.release_compression_lock("s1", "holder-a") is True
    assert await db.acquire_compression_lock("s1", "holder-b") is True
    assert await db.acquire_compression_lock("other-session", "holder-a") is True


async def test_expired_lock_is_reclaimable(db: SessionDB, db_path: Path) -> None:
    assert await db.acquire_compression_lock("s1", "crashed-process", ttl=300)
    raw_execute(db_path, "UPDATE compression_locks SET expires_at = expires_at - 301")
    assert await db.compression_lock_holder("s1") is None
    assert await db.acquire_compression_lock("s1", "successor") is True
    assert await db.compression_lock_holder("s1") == "successor"


async def test_empty_session_id_is_never_locked(db: SessionDB) -> None:
    assert await db.acquire_compression_lock("", "holder") is False
    assert await db.release_compression_lock("", "holder") is False


async def test_exactly_one_of_concurrent_acquirers_wins(db: SessionDB, db_path: Path) -> None:
    other = await SessionDB.open(db_path)  # a second connection pair, like another agent
    try:
        attempts = [(db if i % 2 else other).acquire_compression_lock("hot-session", f"holder-{i}") for i in range(12)]
        results = await asyncio.gather(*attempts)
    finally:
        await other.close()
    assert sum(results) == 1
    winner = f"holder-{results.index(True)}"
    assert await db.compression_lock_holder("hot-session") == winner


async def test_this_process_holds_one_lock_per_session_at_a_time(db: SessionDB, db_path: Path) -> None:
    """The default holder is this process: two of its paths still exclude each other, over both connections."""
    other = await SessionDB.open(db_path)
    try:
        results = await asyncio.gather(*(store.acquire_compression_lock("s1") for store in (db, other, db, other)))
        assert sum(results) == 1
        assert await db.compression_lock_holder("s1") == process_holder()
        assert await other.acquire_compression_lock("s1") is False
        assert await db.release_compression_lock("s1") is True
        assert await other.acquire_compression_lock("s1") is True
    finally:
        await other.close()


async def test_a_row_this_process_left_behind_is_taken_over(db: SessionDB, db_path: Path) -> None:
    raw_execute(
        db_path,
        "INSERT INTO compression_locks VALUES (?, ?, ?, ?)",
        ("s1", process_holder(), time.time(), time.time() + 300),
    )
    assert await db.acquire_compression_lock("s1") is True
    assert await db.acquire_compression_lock("s1") is False  # now a live acquisition holds it


async def test_an_unexpired_row_of_another_process_still_blocks(db: SessionDB, db_path: Path) -> None:
    raw_execute(
        db_path,
        "INSERT INTO compression_locks VALUES (?, ?, ?, ?)",
        ("s1", "pid=1:token=elsewhere", time.time(), time.time() + 300),
    )
    assert await db.acquire_compression_lock("s1") is False
    assert await db.compression_lock_holder("s1") == "pid=1:token=elsewhere"
