"""A search filtered by one role, merged with our role index: the same pages as the plain join."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from hermes_tui.store import schema, search_by_role
from hermes_tui.store.db import SessionDB
from hermes_tui.store.search import RANK_PROBE_LIMIT
from tests.store.conftest import make_session, raw_execute

ROLES = ("user", "assistant", "tool")
WORDS = ("alpha", "beta", "gamma", "delta")


async def _fill(db: SessionDB, db_path: Path) -> None:
    """Sessions of two sources; messages of every role, some words everywhere, some never in tool output."""
    rng = random.Random(11)
    for index in range(6):
        await make_session(db, f"s{index}", source="cli" if index % 2 else "telegram")
        rows = []
        for n in range(RANK_PROBE_LIMIT // 3):  # together > RANK_PROBE_LIMIT: the newest-first path
            role = rng.choice(ROLES)
            words = [rng.choice(WORDS) for _ in range(3)] + ["common"]
            if role != "tool":
                words.append("chatter")  # a common word no tool output holds
            rows.append({"role": role, "content": f"{' '.join(words)} {index}-{n}"})
        await db.append_messages(f"s{index}", rows)
    # some messages switched off (a rewound branch), with the other filters in play
    raw_execute(db_path, "UPDATE messages SET active = 0 WHERE id % 7 = 0")
    assert schema.ROLE_INDEX in await db.build_extra_indexes()  # built after the open, on request


async def _hits(db: SessionDB, **kwargs) -> list[tuple]:
    return [(hit["id"], hit["role"], hit["snippet"]) for hit in await db.search_messages(**kwargs)]


CASES = [
    {"query": "chatter", "role_filter": "tool"},  # nothing passes: the slow shape before
    {"query": "common", "role_filter": "tool"},
    {"query": "common", "role_filter": "user", "limit": 50, "offset": 230},  # past several steps of the merge
    {"query": "alpha", "role_filter": "assistant", "sort": "oldest", "limit": 30, "offset": 10},
    {"query": "common", "role_filter": "tool", "source_filter": "telegram", "limit": 40, "offset": 190},
    {"query": "beta gamma", "role_filter": "user", "include_inactive": True, "sort": "newest"},
    {"query": "common", "role_filter": "tool", "until": 0.0},  # a date filter no message passes
]


@pytest.mark.slow  # seconds on its own: in `make test`, not the fast tier
@pytest.mark.parametrize("case", CASES)
async def test_role_filtered_pages_equal_the_plain_join(db: SessionDB, db_path: Path, case: dict) -> None:
    await _fill(db, db_path)
    with_index = await _hits(db, **case)
    raw_execute(db_path, f"DROP INDEX {schema.ROLE_INDEX}")  # the plain join, as before the index
    without_index = await _hits(db, **case)
    assert with_index == without_index
    roles = {role for _, role, _ in with_index}
    assert roles <= {case["role_filter"]}
    if case["query"] == "chatter" or "until" in case:
        assert with_index == []
    else:
        assert len(with_index) == case.get("limit", 20)


@pytest.mark.slow  # seconds on its own: in `make test`, not the fast tier
async def test_the_merge_reads_no_message_row_when_nothing_passes(db: SessionDB, db_path: Path) -> None:
    """The intersection comes from the two indexes alone: no table row is looked up."""
    await _fill(db, db_path)
    plan = raw_execute(
        db_path,
        "EXPLAIN QUERY PLAN SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'chatter'"
        f" INTERSECT SELECT id FROM messages INDEXED BY {schema.ROLE_INDEX} WHERE {schema.ROLE_KEY_SQL} = 'tool'"
        " ORDER BY 1 DESC",
    )
    details = [row[-1] for row in plan]
    assert any("MERGE (INTERSECT)" in detail for detail in details)
    assert any(f"INDEX {schema.ROLE_INDEX}" in detail for detail in details)
    assert not any(detail.startswith("SCAN messages") and "messages_fts" not in detail for detail in details)
    assert search_by_role.FIRST_BATCH < RANK_PROBE_LIMIT


async def test_no_other_lookup_by_role_is_planned_through_our_index(db: SessionDB, db_path: Path) -> None:
    """Our index serves only the query that names its expression: a lookup by session and role
    (ours or Hermes's) keeps Hermes's session index."""
    await _fill(db, db_path)
    for sql in (
        "SELECT id FROM messages WHERE session_id = 's1' AND role = 'user' ORDER BY timestamp LIMIT 1",
        "SELECT COUNT(*) FROM messages WHERE role = 'tool'",
    ):
        details = " ".join(row[-1] for row in raw_execute(db_path, f"EXPLAIN QUERY PLAN {sql}"))
        assert schema.ROLE_INDEX not in details


async def _traced(db: SessionDB, call) -> list[str]:
    """The statements a SessionDB call runs (expanded), on whichever of its connections answers."""
    statements: list[str] = []

    def trace(sql: str) -> None:
        if not sql.startswith(("PRAGMA", "--")):
            statements.append(sql)

    db._conns._quick_unusable = True  # every read on the reader, whose statements the trace sees
    await db._conns.reader.set_trace_callback(trace)
    try:
        await call()
    finally:
        await db._conns.reader.set_trace_callback(None)
        db._conns._quick_unusable = False
    return statements


@pytest.mark.parametrize("sort", ["newest", "oldest"])
async def test_a_rare_term_with_a_role_is_planned_through_the_fts_index_first(
    db: SessionDB, db_path: Path, sort: str
) -> None:
    """A handful of matches among thousands of that role's messages: look the term up and check each
    match's role — never walk every user message (what the merge with the role index did: ~50 ms at
    a million messages for a first page of 11 hits)."""
    await _fill(db, db_path)
    rare = [{"role": "user", "content": f"a quuxrare word {n}"} for n in range(3)]
    rare.append({"role": "assistant", "content": "quuxrare in an answer"})
    await db.append_messages("s2", rare)
    case = {"query": "quuxrare", "role_filter": "user", "sort": sort}
    statements = await _traced(db, lambda: db.search_messages(**case))
    plans = [raw_execute(db_path, f"EXPLAIN QUERY PLAN {sql}") for sql in statements]
    hit_plan = next(plan for plan, sql in zip(plans, statements, strict=True) if "snippet(" in sql)
    assert hit_plan[0][-1].startswith("SCAN messages_fts VIRTUAL TABLE"), hit_plan
    assert not any(schema.ROLE_INDEX in row[-1] for plan in plans for row in plan)  # the role list is not read
    hits = await _hits(db, **case)
    assert len(hits) == 3 and {role for _, role, _ in hits} == {"user"}
    raw_execute(db_path, f"DROP INDEX {schema.ROLE_INDEX}")
    assert await _hits(db, **case) == hits
