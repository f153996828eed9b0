"""What the start-up database check costs on a big state.db, and what a user waits for because of it.

    python -m bench.check_bench [--runs N]

Uses the store bench's synthetic database (994,810 messages in 10,000 sessions, 1.4 GB; built by
`python -m bench.store_bench`, or by this bench when missing) through a home folder whose state.db
links to it. Measured:
- `store.check.quick_check` (the `PRAGMA quick_check` every command runs before it reads state.db
  or calls a model), in-process, warm page cache;
- the doctor's database checks (`store.check.inspect_database`: full integrity_check, both FTS
  indexes against messages, FTS5's own integrity-check), once;
- whole processes: `hermes-tui --version` with that home (it must not open the database) and
  `hermes-tui search COMMON`;
- the TUI's first frame through the CLI's start path (`cli.prepare`: settings, then the quick_check
  overlapping the import of the app, then the first refresh), on a fresh home and on the big one.
Budgets (DESIGN.md): --version < 0.3 s, first frame < 1.0 s, `hermes-tui search` < 1.5 s.
"""

from __future__ import annotations

import argparse
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.store_bench import COMMON_TERMS, bench_home, cached_store

FIRST_FRAME_VIA_CLI = r"""
import asyncio, sys, time
t0 = time.perf_counter()
from hermes_tui import cli
args = cli.parse_args(["--home", sys.argv[1]])
home, settings, choice = cli.prepare(args, warm_up=lambda: __import__("hermes_tui.app"))
checked = time.perf_counter() - t0
from hermes_tui.app import HermesApp
marks = {}

class TimedApp(HermesApp):
    def _start(self):  # HermesApp schedules this right after the first refresh (the first frame)
        marks["first"] = time.perf_counter() - t0
        super()._start()

app = TimedApp(home=home, settings=settings, choice=choice)

async def main():
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), 60)
        print(f"{checked:.4f} {marks['first']:.4f}")
asyncio.run(main())
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "HERMES_TUI_"))}
    return {**env, "HERMES_TUI_DEMO_DELAY": "0", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}


def _fmt(values: list[float], unit: float = 1000.0, suffix: str = "ms") -> str:
    med, lo, hi = (statistics.median(values) * unit, min(values) * unit, max(values) * unit)
    return f"median {med:.0f} {suffix} (min {lo:.0f}, max {hi:.0f})"


def time_quick_check(db: Path, runs: int) -> list[float]:
    from hermes_tui.store.check import quick_check

    times = []
    for _ in range(runs + 1):  # the first run only warms the page cache
        started = time.perf_counter()
        problem = quick_check(db)
        times.append(time.perf_counter() - started)
        assert problem is None, problem
    return times[1:]


def time_process(argv: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "hermes_tui", *argv], check=True, capture_output=True, env=_env())
        times.append(time.perf_counter() - started)
    return times


def time_first_frame(home: Path, runs: int) -> tuple[list[float], list[float]]:
    checks, firsts = [], []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", FIRST_FRAME_VIA_CLI, str(home)],
            check=True,
            capture_output=True,
            text=True,
            env=_env(),
        )
        checked, first = (float(x) for x in done.stdout.split()[-2:])
        checks.append(checked)
        firsts.append(first)
    return checks, firsts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    db = cached_store()
    home = bench_home(db)
    print(
        f"check bench — {time.strftime('%Y-%m-%d %H:%M')}, {platform.system()} {platform.release()},"
        f" {os.cpu_count()} cores, Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}"
    )
    print(f"database: {db.stat().st_size / 1e9:.2f} GB")
    print(f"quick_check, in-process: {_fmt(time_quick_check(db, args.runs))}")
    from hermes_tui.store.check import inspect_database

    started = time.perf_counter()
    findings = inspect_database(db)
    print(f"doctor database checks: {time.perf_counter() - started:.1f} s", end="")
    print(f" ({', '.join(f'{f.name} {f.status}' for f in findings)})")
    version = time_process(["--home", str(home), "--version"], args.runs)
    print(f"`hermes-tui --version` (big home), whole process: {_fmt(version)}")
    search = time_process(["--home", str(home), "search", COMMON_TERMS[0]], args.runs)
    print(f"`hermes-tui search {COMMON_TERMS[0]}` (big home), whole process: {_fmt(search)}")
    with tempfile.TemporaryDirectory() as fresh:
        checks, firsts = time_first_frame(Path(fresh) / "home", args.runs)
        print(f"TUI first frame via the CLI, fresh home: {_fmt(firsts)}; start path before the app {_fmt(checks)}")
    checks, firsts = time_first_frame(home, args.runs)
    print(f"TUI first frame via the CLI, big home: {_fmt(firsts)}; start path before the app {_fmt(checks)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
