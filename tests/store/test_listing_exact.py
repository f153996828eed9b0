"""The listing's page equals the listing computed from scratch (reference §2.5), whatever the walk does.

Files are written the way Hermes writes them (stdlib sqlite3, messages inserted as they happen,
so ids follow time up to a few seconds of clock skew). The expected listing is computed here
independently, in plain Python over every row: visible sessions, compression tips (latest
continuation, at most 100 hops), last activity = newest message timestamp else `started_at`,
newest first. The walk's step sizes are shrunk so small files take many steps, and its id budget
is shrunk to force the read-everything path too.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hermes_tui.store import listing
from hermes_tui.store.db import SessionDB

MAX_HOPS = 100


@dataclass
class _Row:
    id: str
    parent: str | None
    source: str
    started: float
    ended: float | None = None
    reason: str | None = None
    archived: int = 0
    title: str | None = None
    stamps: list[float] = field(default_factory=list)


def _continuation(parent: _Row | None, child: _Row) -> bool:
    return (
        parent is not None
        and parent.reason == "compression"
        and parent.ended is not None
        and child.started >= parent.ended
    )


def _expected(
    rows: dict[str, _Row],
    *,
    include_children: bool = False,
    include_archived: bool = False,
    sources: frozenset[str] = frozenset(),
    excluded: frozenset[str] = frozenset(),
    by_activity: bool = True,
) -> list[tuple[str, str]]:
    """(listed id, tip id) best first, computed from every row."""
    children: dict[str, list[_Row]] = {}
    for row in rows.values():
        if row.parent in rows:
            children.setdefault(row.parent, []).append(row)

    def following(sid: str) -> str | None:
        after = [c for c in children.get(sid, []) if _continuation(rows[sid], c)]
        return max(after, key=lambda c: (c.started, c.id)).id if after else None

    def tip(sid: str) -> str:
        current, seen = sid, {sid}
        for _ in range(MAX_HOPS):
            nxt = following(current)
            if nxt is None or nxt in seen:
                break
            seen.add(nxt)
            current = nxt
        return current

    def visible(row: _Row) -> bool:
        parent = rows.get(row.parent) if row.parent else None
        if parent is None:
            return True
        return parent.reason == "branched" and parent.ended is not None and row.started >= parent.ended

    keyed = []
    for row in rows.values():
        if (row.archived and not include_archived) or (sources and row.source not in sources):
            continue
        if row.source in excluded or not (include_children or visible(row)):
            continue
        end = rows[tip(row.id)]
        key = (max(end.stamps) if end.stamps else end.started) if by_activity else row.started
        keyed.append((key, row.id, end.id))
    keyed.sort(reverse=True)
    return [(sid, end) for _, sid, end in keyed]


def _write(path: Path, rows: dict[str, _Row], messages: list[tuple[str, float]]) -> None:
    """Sessions, then messages in the given (insertion) order, with the stdlib driver."""
    conn = sqlite3.connect(path)
    conn.executemany(
        "INSERT INTO sessions (id, source, parent_session_id, started_at, ended_at, end_reason, archived, title,"
        " system_prompt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (r.id, r.source, r.parent, r.started, r.ended, r.reason, r.archived, r.title, "You are Hermes. " * 400)
            for r in rows.values()
        ],
    )
    conn.executemany(
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)",
        [
            (sid, "user" if i % 2 == 0 else "assistant", f"message {i} of {sid}", ts)
            for i, (sid, ts) in enumerate(messages)
        ],
    )
    conn.commit()
    conn.close()


def _random_home(seed: int) -> tuple[dict[str, _Row], list[tuple[str, float]]]:
    """Roots, compression chains (some retried, some with an empty tip), branches, delegates,
    orphans, archived and gateway sessions, and an interleaved message history."""
    rng = random.Random(seed)
    rows: dict[str, _Row] = {}
    clock = 1_700_000_000.0
    open_rows: list[_Row] = []
    messages: list[tuple[str, float]] = []
    for n in range(90):
        clock += rng.uniform(1, 400)
        sid = f"s{n:03d}"
        kind = rng.random()
        parent: _Row | None = rng.choice(list(rows.values())) if rows else None
        if parent is not None and kind < 0.35:  # continuation or branch of an ended session
            if parent.ended is None:
                parent.ended, parent.reason = clock - rng.uniform(0, 1), rng.choice(["compression", "branched"])
            row = _Row(sid, parent.id, parent.source, clock if parent.ended <= clock else parent.ended)
        elif parent is not None and kind < 0.45:  # a delegate started while its parent ran
            row = _Row(sid, parent.id, "tool", clock)
        elif kind < 0.48:
            row = _Row(sid, "deleted-parent", "cli", clock)  # its parent row is gone: shown as a root
        else:
            row = _Row(sid, None, rng.choice(["cli", "cli", "cli", "telegram"]), clock)
        row.archived = int(rng.random() < 0.1)
        row.title = f"title {n}" if rng.random() < 0.7 else None
        rows[sid] = row
        open_rows.append(row)
        for _ in range(rng.choice([0, 0, 1, 3, 8, 20])):  # interleaved activity, in insertion order
            target = rng.choice(open_rows[-6:])
            clock += rng.uniform(0.1, 30)
            skew = rng.uniform(-listing.CLOCK_SLACK_S / 2, 0) if rng.random() < 0.1 else 0.0
            stamp = clock + skew
            target.stamps.append(stamp)
            messages.append((target.id, stamp))
    return rows, messages


@pytest.fixture
def small_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listing, "WALK_FIRST_CHUNK", 4)


def _pairs(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(row.get("_lineage_root_id", row["id"]), row["id"]) for row in rows]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
async def test_pages_equal_the_listing_computed_from_every_row(db_path: Path, seed: int, small_steps: None) -> None:
    store = await SessionDB.open(db_path)
    await store.close()
    rows, messages = _random_home(seed)
    _write(db_path, rows, messages)
    expected = _expected(rows)
    assert len(expected) > 30
    async with await SessionDB.open(db_path) as db:
        for limit, offset in ((1, 0), (5, 0), (10, 7), (50, 0), (3, len(expected) - 2)):
            assert _pairs(await db.list_sessions_rich(limit=limit, offset=offset)) == expected[offset : offset + limit]
        assert _pairs(await db.list_sessions_rich(limit=None)) == expected
        everything = _expected(rows, include_children=True, include_archived=True)
        got = await db.list_sessions_rich(limit=20, include_children=True, include_archived=True)
        assert _pairs(got) == everything[:20]
        plain = await db.list_sessions_rich(limit=20, project_compression_tips=False)
        assert [(row["id"], row["id"]) for row in plain] == [(sid, sid) for sid, _ in expected[:20]]
        gateway = _expected(rows, sources=frozenset({"telegram"}))
        assert _pairs(await db.list_sessions_rich(limit=5, source_filter="telegram")) == gateway[:5]
        no_gateway = _expected(rows, excluded=frozenset({"telegram"}))
        assert _pairs(await db.list_sessions_rich(limit=8, exclude_sources=["telegram"])) == no_gateway[:8]
        by_start = _expected(rows, by_activity=False)
        assert _pairs(await db.list_sessions_rich(limit=10, order_by_last_active=False)) == by_start[:10]


async def test_rows_carry_the_tips_activity_and_a_page_past_the_walk_budget_is_exact(
    db_path: Path, small_steps: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await SessionDB.open(db_path)
    await store.close()
    rows, messages = _random_home(7)
    _write(db_path, rows, messages)
    expected = _expected(rows)
    async with await SessionDB.open(db_path) as db:
        page = await db.list_sessions_rich(limit=25)
        for row, (_listed, tip) in zip(page, expected[:25], strict=True):
            end = rows[tip]
            assert row["last_active"] == (max(end.stamps) if end.stamps else end.started)
        monkeypatch.setattr(listing, "WALK_MAX_ROWS", 8)  # the walk gives up: every session is read
        assert _pairs(await db.list_sessions_rich(limit=25, offset=3)) == expected[3:28]


async def test_pages_stay_exact_across_gaps_left_by_deleted_sessions(db_path: Path, small_steps: None) -> None:
    store = await SessionDB.open(db_path)
    await store.close()
    rows, messages = _random_home(5)
    _write(db_path, rows, messages)
    busiest = sorted(rows.values(), key=lambda row: len(row.stamps), reverse=True)[:6]
    async with await SessionDB.open(db_path) as db:
        for gone in busiest:
            assert await db.delete_session(gone.id)
            del rows[gone.id]
            for row in rows.values():
                if row.parent == gone.id:
                    row.parent = None  # its children become roots
        expected = _expected(rows)
        for limit, offset in ((1, 0), (12, 0), (20, 10)):
            assert _pairs(await db.list_sessions_rich(limit=limit, offset=offset)) == expected[offset : offset + limit]


async def test_sessions_without_messages_interleave_by_their_start(db_path: Path, small_steps: None) -> None:
    store = await SessionDB.open(db_path)
    await store.close()
    base = 1_700_000_000.0
    rows = {
        "old-busy": _Row("old-busy", None, "cli", base),
        "empty-new": _Row("empty-new", None, "cli", base + 500),
        "chain": _Row("chain", None, "cli", base + 10, ended=base + 100, reason="compression"),
        "chain-tip": _Row("chain-tip", "chain", "cli", base + 300),  # just compressed: no messages yet
        "quiet": _Row("quiet", None, "cli", base + 20),
    }
    messages = [("quiet", base + 30), ("chain", base + 90)] + [("old-busy", base + 600 + i) for i in range(40)]
    for sid, stamp in messages:
        rows[sid].stamps.append(stamp)
    _write(db_path, rows, messages)
    async with await SessionDB.open(db_path) as db:
        listed = await db.list_sessions_rich(limit=None)
        assert [row["id"] for row in listed] == ["old-busy", "empty-new", "chain-tip", "quiet"]
        assert listed[2]["last_active"] == base + 300 and listed[2]["_lineage_root_id"] == "chain"
        assert _pairs(await db.list_sessions_rich(limit=3)) == _expected(rows)[:3]


async def test_a_chain_longer_than_the_hop_limit_lists_the_same_tip_resume_uses(db_path: Path) -> None:
    store = await SessionDB.open(db_path)
    await store.close()
    base = 1_700_000_000.0
    rows: dict[str, _Row] = {}
    for n in range(MAX_HOPS + 5):
        parent = f"c{n - 1:03d}" if n else None
        rows[f"c{n:03d}"] = _Row(
            f"c{n:03d}", parent, "cli", base + 10 * n, ended=base + 10 * n + 5, reason="compression"
        )
    rows[f"c{MAX_HOPS + 4:03d}"].ended = rows[f"c{MAX_HOPS + 4:03d}"].reason = None
    messages = [(sid, row.started + 1) for sid, row in rows.items()]
    for sid, stamp in messages:
        rows[sid].stamps.append(stamp)
    _write(db_path, rows, messages)
    async with await SessionDB.open(db_path) as db:
        [row] = await db.list_sessions_rich()
        assert row["id"] == await db.get_compression_tip("c000") == f"c{MAX_HOPS:03d}"
        assert _pairs([row]) == _expected(rows)


async def test_a_message_stamped_later_than_rows_inserted_after_it_still_counts(
    db_path: Path, small_steps: None
) -> None:
    # Timestamps are taken before the write lock, so a row can land after rows stamped later.
    store = await SessionDB.open(db_path)
    await store.close()
    base = 1_700_000_000.0
    rows = {sid: _Row(sid, None, "cli", base) for sid in ("late-stamped", "middle", "newest-rows")}
    messages = [("late-stamped", base + 120)]
    messages += [("middle", base + 90 + i) for i in range(4)]
    messages += [("newest-rows", base + 100 + i) for i in range(4)]  # 20 s "older" than late-stamped's row
    for sid, stamp in messages:
        rows[sid].stamps.append(stamp)
    _write(db_path, rows, messages)
    async with await SessionDB.open(db_path) as db:
        assert [row["id"] for row in await db.list_sessions_rich(limit=1)] == ["late-stamped"]
        assert _pairs(await db.list_sessions_rich(limit=3)) == _expected(rows)


@pytest.mark.parametrize("seed", [5, 6])
async def test_pages_by_start_time_equal_the_listing_from_every_row_even_with_ties(db_path: Path, seed: int) -> None:
    """Hermes's default order walks sessions newest start first and stops at the page: every
    page, filter and tie of start times gives what sorting all sessions gives."""
    store = await SessionDB.open(db_path)
    await store.close()
    rows, messages = _random_home(seed)
    starts = sorted({row.started for row in rows.values()})
    for index, row in enumerate(sorted(rows.values(), key=lambda r: r.id)):
        if index % 3 == 0:  # a third of the sessions share a start with another one
            row.started = starts[(index * 7) % len(starts)]
    _write(db_path, rows, messages)
    expected = _expected(rows, by_activity=False)
    async with await SessionDB.open(db_path) as db:
        for limit, offset in ((1, 0), (7, 0), (10, 13), (50, 0), (4, len(expected) - 2)):
            got = await db.list_sessions_rich(limit=limit, offset=offset, order_by_last_active=False)
            assert _pairs(got) == expected[offset : offset + limit]
        assert _pairs(await db.list_sessions_rich(limit=None, order_by_last_active=False)) == expected
        gateway = _expected(rows, sources=frozenset({"telegram"}), by_activity=False)
        got = await db.list_sessions_rich(limit=5, source_filter="telegram", order_by_last_active=False)
        assert _pairs(got) == gateway[:5]
        everything = _expected(rows, include_children=True, include_archived=True, by_activity=False)
        got = await db.list_sessions_rich(
            limit=12, include_children=True, include_archived=True, order_by_last_active=False
        )
        assert _pairs(got) == everything[:12]
