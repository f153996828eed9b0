"""Search grouped by lineage (the search screen's query): grouping, tips, filters, CJK, stopping early."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from hermes_tui.store.db import SessionDB
from hermes_tui.store.search_lineages import (
    MARK_END,
    MARK_START,
    STOP_CANCELLED,
    STOP_CAP,
    STOP_TIME,
    LineageSearchOptions,
)
from tests.store.conftest import make_session, raw_execute
from tests.store.test_search import NASTY_QUERIES

DAY = 86400.0


async def _lineage_with_a_compression_and_a_branch(db: SessionDB) -> None:
    """root -(compression)-> cont -(branch)-> fork, each with a message about the parser."""
    await make_session(db, "root", title="parser work")
    await db.append_message("root", "user", "the parser drops trailing commas")
    await db.end_session("root", "compression")
    await make_session(db, "cont", parent_session_id="root", title="parser work #2")
    await db.append_message("cont", "assistant", "fixed the parser; commas survive now")
    await db.end_session("cont", "branched")
    await make_session(db, "fork", parent_session_id="cont", title="parser work (fork)")
    await db.append_message("fork", "user", "what if the parser streamed instead?")


async def test_one_row_per_lineage_newest_first_with_the_compression_tip(db: SessionDB) -> None:
    await make_session(db, "older", title="old chat")
    await db.append_message("older", "user", "a parser from long ago")
    await _lineage_with_a_compression_and_a_branch(db)
    await make_session(db, "other", title="unrelated")
    await db.append_message("other", "user", "nothing to see")

    found = await db.search_lineages("parser")

    assert found.complete and found.scanned == 4
    assert [row.root_id for row in found.lineages] == ["root", "older"]
    row = found.lineages[0]
    assert row.tip_id == "cont"  # the end of the root's compression chain
    assert row.title == "parser work #2"
    assert row.hit_count == 3 and row.session_count == 3
    assert [hit.session_id for hit in row.hits] == ["fork", "cont", "root"]  # newest first
    assert row.hits[0].role == "user" and row.hits[0].session_title == "parser work (fork)"
    assert f"{MARK_START}parser{MARK_END}" in row.hits[0].snippet


async def test_hits_per_lineage_and_lineage_cap(db: SessionDB) -> None:
    for index in range(4):
        await make_session(db, f"s{index}")
        await db.append_messages(f"s{index}", [{"role": "user", "content": f"kiwi number {n}"} for n in range(3)])
    found = await db.search_lineages("kiwi", options=LineageSearchOptions(max_lineages=2, hits_per_lineage=2))
    assert [row.root_id for row in found.lineages] == ["s3", "s2"]
    assert all(len(row.hits) == 2 and row.hit_count == 3 for row in found.lineages)


async def test_role_source_and_date_filters(db: SessionDB, db_path: Path) -> None:
    await make_session(db, "cli-session", source="cli")
    await db.append_message("cli-session", "user", "mango question")
    await db.append_message("cli-session", "assistant", "mango answer")
    await make_session(db, "tui-session", source="tui")
    await db.append_message("tui-session", "user", "mango again")
    raw_execute(db_path, "UPDATE messages SET timestamp = 1000.0 WHERE session_id = 'cli-session'")

    by_role = await db.search_lineages("mango", role_filter=["assistant"])
    assert [hit.role for row in by_role.lineages for hit in row.hits] == ["assistant"]
    by_source = await db.search_lineages("mango", source_filter=["tui"])
    assert [row.root_id for row in by_source.lineages] == ["tui-session"]
    recent = await db.search_lineages("mango", since=2000.0)
    assert [row.root_id for row in recent.lineages] == ["tui-session"]
    old = await db.search_lineages("mango", until=2000.0)
    assert [row.root_id for row in old.lineages] == ["cli-session"]
    # The plain hit search takes the same date bounds.
    assert [h["session_id"] for h in await db.search_messages("mango", until=2000.0)] == ["cli-session"] * 2


async def test_prefix_and_phrase_queries_mark_what_matched(db: SessionDB) -> None:
    await make_session(db, "s1")
    await db.append_message("s1", "user", "Sessions are stored; a session_id names each. Sessionless? No.")
    found = await db.search_lineages("sess*")
    snippet = found.lineages[0].hits[0].snippet
    assert f"{MARK_START}Sessions{MARK_END}" in snippet
    assert f"{MARK_START}Sessionless{MARK_END}" in snippet
    phrase = await db.search_lineages('"are stored"')
    assert f"{MARK_START}are stored{MARK_END}" in phrase.lineages[0].hits[0].snippet
    excluded = await db.search_lineages("stored NOT names")
    assert excluded.lineages == ()


@pytest.mark.parametrize("query", ["数据库索引", "东京"])  # trigram index / LIKE fallback (2 characters)
async def test_cjk_queries(db: SessionDB, query: str) -> None:
    await make_session(db, "cjk", title="旅行")
    await db.append_message("cjk", "user", "东京的天气怎么样？数据库索引的设计需要考虑查询模式")
    await make_session(db, "latin")
    await db.append_message("latin", "user", "nothing in Chinese here")
    found = await db.search_lineages(query)
    assert [row.root_id for row in found.lineages] == ["cjk"]
    assert f"{MARK_START}{query}{MARK_END}" in found.lineages[0].hits[0].snippet


async def test_a_match_inside_a_tool_call_shows_the_call(db: SessionDB) -> None:
    await make_session(db, "s1")
    call = [{"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": '{"command": "zebractl"}'}}]
    await db.append_message("s1", "assistant", "", tool_calls=call)
    found = await db.search_lineages("zebractl")
    assert f"{MARK_START}zebractl{MARK_END}" in found.lineages[0].hits[0].snippet


async def test_the_scan_stops_at_the_cap_and_says_so(db: SessionDB) -> None:
    await make_session(db, "s1")
    await db.append_messages("s1", [{"role": "user", "content": f"plum {n}"} for n in range(10)])
    found = await db.search_lineages("plum", options=LineageSearchOptions(scan_cap=3))
    assert found.stopped == STOP_CAP and not found.complete and found.scanned == 3
    assert found.lineages[0].hit_count == 3


async def test_a_stale_search_is_cancelled_and_a_slow_one_stops_on_time(db: SessionDB) -> None:
    await make_session(db, "s1")
    await db.append_messages("s1", [{"role": "user", "content": f"pear {n} 梨子"} for n in range(3000)])
    cancel = threading.Event()
    cancel.set()
    cancelled = await db.search_lineages("pear", options=LineageSearchOptions(cancel=cancel, scan_cap=10_000))
    assert cancelled.stopped == STOP_CANCELLED and cancelled.lineages == ()
    # The LIKE fallback walks the table: with no time at all it stops at the first look at the clock.
    late = await db.search_lineages("梨子", options=LineageSearchOptions(time_budget_s=0.0, scan_cap=10_000))
    assert late.stopped == STOP_TIME and late.scanned < 3000
    unbounded = await db.search_lineages("梨子", options=LineageSearchOptions(time_budget_s=None, scan_cap=10_000))
    assert unbounded.complete and unbounded.scanned == 3000
    # The reader is left without a progress handler: the next search runs to its end.
    assert (await db.search_lineages("pear", options=LineageSearchOptions(scan_cap=10_000))).scanned == 3000


async def test_awkward_queries_never_raise(db: SessionDB) -> None:
    await make_session(db, "s1")
    await db.append_message("s1", "user", "hello C problem unterminated")
    for query in NASTY_QUERIES:
        found = await db.search_lineages(query)
        assert found.stopped == ""
    assert [row.root_id for row in (await db.search_lineages("(problem")).lineages] == ["s1"]


async def test_inactive_messages_are_not_found(db: SessionDB) -> None:
    await make_session(db, "s1")
    first = await db.append_message("s1", "user", "apricot one")
    await db.append_message("s1", "assistant", "apricot two")
    await db.rewind_to_message("s1", first)  # soft rewind: both become inactive
    assert (await db.search_lineages("apricot")).lineages == ()
