"""What reading the recorded edge kinds costs the lineage tree (store/edges.py).

    python -m bench.edge_records_bench [--sessions N] [--runs N]

Builds a state.db of N sessions (default 10,000), every second one a child with a recorded edge
(`state_meta["edge:<id>"]`), and times `SessionDB.lineage_tree()` read from scratch (the cache
emptied before each run) with the records, then again after deleting them (every edge derived,
as for a database Hermes wrote). Prints the best of the runs for each.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import tempfile
import time
from pathlib import Path

from hermes_tui.store.db import SessionDB
from hermes_tui.store.edges import EdgeRecord, edge_key


def build(path: Path, sessions: int) -> None:
    con = sqlite3.connect(path)
    now = time.time()
    rows = [(f"s{i:06d}", "cli", now + i, f"s{i - 1:06d}" if i % 2 else None) for i in range(sessions)]
    con.executemany("INSERT INTO sessions (id, source, started_at, parent_session_id) VALUES (?, ?, ?, ?)", rows)
    records = [(edge_key(sid), EdgeRecord("branch", parent, 1).to_json()) for sid, _, _, parent in rows if parent]
    con.executemany("INSERT INTO state_meta (key, value) VALUES (?, ?)", records)
    con.commit()
    con.close()


async def best_tree_ms(path: Path, runs: int) -> float:
    db = await SessionDB.open(path)
    best = float("inf")
    try:
        for _ in range(runs):
            db._tree_cache = None  # read from scratch, as after another process committed
            started = time.perf_counter()
            await db.lineage_tree()
            best = min(best, time.perf_counter() - started)
    finally:
        await db.close()
    return best * 1000


async def main(sessions: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "state.db"
        await (await SessionDB.open(path)).close()
        build(path, sessions)
        recorded = await best_tree_ms(path, runs)
        con = sqlite3.connect(path)
        con.execute("DELETE FROM state_meta WHERE key >= 'edge:' AND key < 'edge;'")
        con.commit()
        con.close()
        derived = await best_tree_ms(path, runs)
    print(f"lineage tree, {sessions:,} sessions, {sessions // 2:,} recorded edges: {recorded:.1f} ms")
    print(f"lineage tree, {sessions:,} sessions, every edge derived:        {derived:.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    asyncio.run(main(options.sessions, options.runs))
