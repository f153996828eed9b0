"""What a cheap store call costs, and how much of it is the trip to the store's thread (issue 23).

    python -m bench.hop_bench [--db PATH] [--calls N] [--load N]

Every SessionDB read runs on its connection's thread (aiosqlite): the event loop queues the work,
the thread runs it, and the answer comes back through the loop. On a quiet machine the trip costs
tens of microseconds; on a busy one each side waits for a core. Measured on the store bench's
file (1,000,000 messages), each as wall and CPU per call (min / median / p95 of `--calls`):
- the trip alone (a no-op on the reader's thread);
- `get_session` and `get_meta` (a primary-key lookup each) and rare-term searches, through
  SessionDB, as quick reads (answered on the event loop's thread, `StoreConnections.read(quick=True)`)
  and, interleaved with them, with every read making the trip (as before);
- get_session's statement run synchronously with a stdlib connection (what Hermes's synchronous
  `SessionDB` does);
- `store_hops`: SessionDB's count of trips, for one search-as-you-type query (`search_lineages`).
Run it once as is and once with `--load 4` to see what a busy machine adds.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench.cputime import Spent, measure
from bench.load import add_load_argument, describe_load, load_from
from hermes_tui.store.db import SessionDB

DEFAULT_DB = Path(__file__).resolve().parent / ".out" / "store_1000000_10000.db"


def _row(label: str, spans: list[Spent]) -> str:
    walls = sorted(span.wall * 1000 for span in spans)
    cpus = sorted(span.cpu * 1000 for span in spans)
    p95 = walls[min(len(walls) - 1, int(len(walls) * 0.95))]
    return (
        f"{label:<58} wall {walls[0]:6.3f} / {statistics.median(walls):6.3f} / {p95:7.3f} ms"
        f"   CPU {cpus[0]:6.3f} / {statistics.median(cpus):6.3f} ms"
    )


async def _spans(call: Callable[[], Awaitable[Any]], calls: int) -> list[Spent]:
    await call()
    out = []
    for _ in range(calls):
        with measure() as spent:
            await call()
        out.append(spent)
        await asyncio.sleep(0.002)  # calls apart, as a user's are: each one meets the machine afresh
    return out


def _sync_spans(call: Callable[[], Any], calls: int) -> list[Spent]:
    call()
    out = []
    for _ in range(calls):
        with measure() as spent:
            call()
        out.append(spent)
        time.sleep(0.002)
    return out


async def _both(conns: Any, call: Callable[[], Awaitable[Any]], calls: int) -> tuple[list[Spent], list[Spent]]:
    """The same call with quick reads on and with every read making the trip, interleaved (the load
    meets both alike)."""
    quick: list[Spent] = []
    trip: list[Spent] = []
    await call()
    for _ in range(calls):
        for forced, out in ((False, quick), (True, trip)):
            conns._quick_unusable = forced
            with measure() as spent:
                await call()
            out.append(spent)
            await asyncio.sleep(0.002)  # calls apart, as a user's are: each one meets the machine afresh
    conns._quick_unusable = False
    return quick, trip


async def run(path: Path, calls: int) -> list[str]:
    db = await SessionDB.open(path, read_only=True)
    raw = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        session_id = raw.execute("SELECT id FROM sessions ORDER BY started_at DESC LIMIT 1").fetchone()[0]
        reader = db._conns.reader
        rows = [
            _row(
                "the trip alone (a no-op on the reader's thread)",
                await _spans(lambda: reader._execute(lambda conn: None, reader._conn), calls),
            ),
            _row(
                "get_session's SELECT, synchronous on the loop thread (Hermes)",
                _sync_spans(
                    lambda: raw.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchall(), calls
                ),
            ),
        ]
        for label, call in (
            ("get_session", lambda: db.get_session(session_id)),
            ("get_meta", lambda: db.get_meta("hop-bench")),
            (
                "rare term, role=user, newest first",
                lambda: db.search_messages("quuxrare07", role_filter="user", sort="newest"),
            ),
            ("rare term (search_messages)", lambda: db.search_messages("quuxrare07")),
        ):
            quick, trip = await _both(db._conns, call, calls)
            rows.append(_row(f"{label}: quick read (now)", quick))
            rows.append(_row(f"{label}: through the reader's thread (before)", trip))
        before = db.store_hops
        await db.search_lineages("quuxrare07")
        rows.append(f"store trips for one search-as-you-type query (search_lineages): {db.store_hops - before}")
        return rows
    finally:
        raw.close()
        await db.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--db", type=Path, default=DEFAULT_DB, help="a store-bench database")
    parser.add_argument("--calls", type=int, default=200)
    add_load_argument(parser)
    args = parser.parse_args(argv)
    if not args.db.exists():
        print(f"{args.db} is missing: build it with `python -m bench.store_bench`", file=sys.stderr)
        return 2
    with load_from(args):
        print(describe_load(args.load), flush=True)
        for line in asyncio.run(run(args.db, max(10, args.calls))):
            print(line)
        print(describe_load(args.load))
    return 0


if __name__ == "__main__":
    sys.exit(main())
