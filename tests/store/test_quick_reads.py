"""Cheap reads answered on the calling thread (`read(quick=True)`), without the trip to the reader's.

On a busy machine the trip is two waits for a core (p95 of 44-80 ms measured with four busy
processes, for a read of 0.2 ms). A quick read must give the same answer as the trip, never wait
for a writer, and move to the reader's thread whenever answering here is not sound or not cheap.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

from hermes_tui.store.db import SessionDB
from tests.store.conftest import make_session, raw_execute, sqlite_memory_used

# a read that runs well past the quick budget: counting to ten million in a recursive query
LONG_READ = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000000) SELECT COUNT(*) FROM n"


async def _seeded(db: SessionDB) -> None:
    await make_session(db, "s1", title="first")
    await db.append_messages("s1", [{"role": "user", "content": "a quuxrare question"}])
    await db.set_meta("k", "v")


async def test_cheap_reads_make_no_trip_and_answer_as_the_trip_does(db: SessionDB) -> None:
    await _seeded(db)
    hops = db.store_hops
    session = await db.get_session("s1")
    meta = await db.get_meta("k")
    hits = await db.search_messages("quuxrare", role_filter="user")
    assert db.store_hops == hops  # all three answered on this thread
    db._conns._quick_unusable = True  # the same reads through the reader's thread
    assert (await db.get_session("s1"), await db.get_meta("k")) == (session, meta)
    assert await db.search_messages("quuxrare", role_filter="user") == hits
    assert db.store_hops == hops + 3
    assert session is not None and session["title"] == "first" and meta == "v" and len(hits) == 1


async def test_searches_whose_cost_no_budget_can_stop_make_the_trip(db: SessionDB) -> None:
    """A prefix or a forced BM25 ranking spends its time inside FTS5, between two of SQLite's steps:
    never tried on the calling thread (it could hold the event loop past the budget)."""
    await _seeded(db)
    hops = db.store_hops
    assert len(await db.search_messages("quux*")) == 1
    assert len(await db.search_messages("quuxrare", sort="rank")) == 1
    assert db.store_hops == hops + 2


async def test_a_long_read_moves_to_the_readers_thread_with_the_same_answer(db: SessionDB) -> None:
    hops = db.store_hops
    rows = await db._conns.read(lambda conn: conn.execute(LONG_READ).fetchall(), quick=True)
    assert rows[0][0] == 10_000_000
    assert db.store_hops == hops + 1  # stopped here after its CPU budget, then answered there


async def test_a_quick_read_never_waits_for_another_writer(db: SessionDB, db_path: Path) -> None:
    """Another connection holds the write lock with an uncommitted change: the read answers at once
    with the committed state (WAL), on this thread."""
    await _seeded(db)
    other = sqlite3.connect(db_path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("UPDATE sessions SET title = 'uncommitted' WHERE id = 's1'")
        hops = db.store_hops
        session = await asyncio.wait_for(db.get_session("s1"), timeout=10)
        assert session is not None and session["title"] == "first"
        assert db.store_hops == hops
    finally:
        other.execute("ROLLBACK")
        other.close()


async def test_outside_wal_every_read_makes_the_trip(db_path: Path) -> None:
    """A file in rollback-journal mode: a reader there can wait for a writer, so never on this thread."""
    store = await SessionDB.open(db_path)
    await _seeded(store)
    await store.close()
    raw_execute(db_path, "PRAGMA journal_mode=DELETE")
    reader = await SessionDB.open(db_path, read_only=True)
    try:
        assert reader.journal_mode == "delete"
        hops = reader.store_hops
        session = await reader.get_session("s1")
        assert session is not None and session["title"] == "first"
        assert reader.store_hops == hops + 1
    finally:
        await reader.close()


async def test_another_thread_makes_the_trip(db: SessionDB) -> None:
    """The quick connection belongs to the thread that opened it; a call from another thread's
    event loop is answered by the reader's thread instead."""
    await _seeded(db)
    assert await db.get_meta("k") == "v"  # opens this thread's quick connection
    found: list[object] = []

    def elsewhere() -> None:
        found.append(asyncio.run(db.get_meta("k")))

    hops = db.store_hops
    thread = threading.Thread(target=elsewhere)
    thread.start()
    await asyncio.to_thread(thread.join, 30)
    assert found == ["v"]
    assert db.store_hops == hops + 1


async def test_release_caches_hands_back_what_a_long_read_cached_and_reads_go_on(db: SessionDB) -> None:
    await make_session(db, "long", title="long")
    await db.append_messages("long", [{"role": "user", "content": f"line {i} " + "x" * 2_000} for i in range(1_500)])
    baseline = sqlite_memory_used()
    assert len(await db.get_messages("long")) == 1_500
    filled = sqlite_memory_used()
    assert filled > baseline + 1_000_000  # the reader's page cache holds the pages it read
    await db.release_caches()
    assert sqlite_memory_used() < filled - 1_000_000
    assert len(await db.get_messages("long")) == 1_500  # the next read refills what it needs
    await db.close()
    await db.release_caches()  # quitting meanwhile: nothing to do, nothing raised
