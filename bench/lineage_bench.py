"""Benchmark (not a test): keeping the Sessions tree up to date at the end of a turn, 10,000 sessions.

Run with `python -m bench.lineage_bench` (`--messages`, `--sessions`, `--runs`). The database is
the store bench's synthetic home (bench/store_bench.py `generate`), cached in bench/.out/ and
copied to a temporary folder for each run (this bench writes to it). Each round appends one
message to the current session, as a turn does, then brings the tree up to date:

  reread everything (what every turn did before): `lineage_tree()` — its cache is stale after our
      own commit — and `LineageTree.set_nodes` of every session;
  incremental (now): `external_change_version()` (unchanged: only we wrote), `lineage_node()` of
      the current session, `LineageTree.upsert` of that one node;
  after another process committed: the same check sees the change and reads everything again.

The database part runs on aiosqlite's thread; the tree part on the event loop (what a keystroke
waits for). Medians of `--runs` rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult

from bench.store_bench import cached_store
from hermes_tui.screens.main import STYLES_PATH
from hermes_tui.store.db import SessionDB
from hermes_tui.widgets.lineage_tree import LineageTree


class TreeApp(App[None]):
    CSS_PATH = STYLES_PATH

    def compose(self) -> ComposeResult:
        yield LineageTree(id="lineage")


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} ms"


async def rounds(path: Path, runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {
        key: [] for key in ("old db", "old ui", "new db", "new ui", "other db", "other ui")
    }
    db = await SessionDB.open(path)
    app = TreeApp()
    try:
        async with app.run_test(size=(80, 40)) as pilot:
            tree = app.query_one(LineageTree)
            nodes = await db.lineage_tree()
            current = max(nodes, key=lambda node: node.last_active).id
            tree.set_nodes(nodes, current)
            await pilot.pause()
            version = await db.external_change_version()
            for index in range(runs):
                await db.append_message(current, "user", f"one more turn {index}")
                started = time.perf_counter()
                nodes = await db.lineage_tree()
                middle = time.perf_counter()
                tree.set_nodes(nodes, current)
                times["old db"].append(middle - started)
                times["old ui"].append(time.perf_counter() - middle)
                await pilot.pause()

                await db.append_message(current, "assistant", f"answer {index}")
                started = time.perf_counter()
                changed = await db.external_change_version() != version
                node = await db.lineage_node(current)
                middle = time.perf_counter()
                assert not changed and node is not None
                tree.upsert(node)
                times["new db"].append(middle - started)
                times["new ui"].append(time.perf_counter() - middle)
                await pilot.pause()

                other = sqlite3.connect(path)  # another process's write, as far as SQLite can tell
                other.execute("UPDATE sessions SET title = ? WHERE id = ?", (f"renamed {index}", current))
                other.commit()
                other.close()
                started = time.perf_counter()
                changed = await db.external_change_version() != version
                assert changed
                nodes = await db.lineage_tree()
                version = await db.external_change_version()
                middle = time.perf_counter()
                tree.set_nodes(nodes, current)
                times["other db"].append(middle - started)
                times["other ui"].append(time.perf_counter() - middle)
                await pilot.pause()
    finally:
        await db.close()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    cached = cached_store(args.messages, args.sessions)
    with tempfile.TemporaryDirectory(prefix="lineage-bench-") as folder:
        path = Path(folder) / "state.db"
        shutil.copyfile(cached, path)
        times = asyncio.run(rounds(path, args.runs))
    rows: list[tuple[str, Any, Any]] = [
        ("reread everything (before)", times["old db"], times["old ui"]),
        ("incremental (now, our own commit)", times["new db"], times["new ui"]),
        ("after another process committed", times["other db"], times["other ui"]),
    ]
    print(f"{args.sessions:,} sessions, {args.messages:,} messages; medians of {args.runs} rounds")
    for label, db_times, ui_times in rows:
        print(f"  {label:<36} database {median_ms(db_times):>9}   tree on the event loop {median_ms(ui_times):>9}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
