"""What Hermes's durability costs: message appends through SessionDB with `synchronous` FULL vs NORMAL.

    python -m bench.durability_bench [--appends N] [--runs N]

Hermes leaves `PRAGMA synchronous` at SQLite's default, FULL (an fsync of the WAL on every commit);
hermes-tui matches it (store/connection.py). This bench measures what that costs per commit on
this machine against NORMAL (fsync only at checkpoints): each run appends N messages one commit
at a time, as a turn's flushes and the partial saver do, into a fresh state.db in a temp folder.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from hermes_tui.store import connection
from hermes_tui.store.db import SessionDB


async def one_run(mode: str, appends: int) -> list[float]:
    connection.SYNCHRONOUS = mode
    with tempfile.TemporaryDirectory() as folder:
        db = await SessionDB.open(Path(folder) / "state.db")
        try:
            await db.create_session("bench", source="cli")
            times = []
            for n in range(appends):
                started = time.perf_counter()
                await db.append_message("bench", "assistant", f"part {n} of a streamed answer " * 20)
                times.append((time.perf_counter() - started) * 1000)
            return times
        finally:
            await db.close()


async def main(appends: int, runs: int) -> None:
    default = connection.SYNCHRONOUS
    print(f"{appends} appends per run, {runs} runs; ms per append (one commit each)")
    for mode in ("FULL", "NORMAL"):
        samples: list[float] = []
        for _ in range(runs):
            samples += await one_run(mode, appends)
        samples.sort()
        p95 = samples[int(len(samples) * 0.95)]
        print(f"synchronous={mode:<6}  p50 {statistics.median(samples):6.2f}  p95 {p95:6.2f}  max {samples[-1]:6.2f}")
    connection.SYNCHRONOUS = default


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.appends, args.runs))
