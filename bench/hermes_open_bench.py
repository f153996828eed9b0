"""The first open of a big state.db that Hermes wrote: what the user waits for, before and after.

    python -m bench.hermes_open_bench [--messages 200000] [--runs 3]

Builds (once, cached in the temp folder) a file with exactly Hermes's v21 schema and no index of
ours — as Hermes leaves it — holding `--messages` messages in sessions of 100, with realistic text
(both FTS indexes filled by Hermes's triggers). Each run opens a fresh copy. Measured:
- before: the open as it was — our two extra indexes created inside the open, so the first screen
  (and every read-only command) waited for them;
- after: `SessionDB.open` now (no index of ours), then the background build the TUI starts after
  its first screen (`start_extra_indexes`), timed on its own;
- read-only commands: `hermes-tui sessions` and `hermes-tui search` as whole processes, and
  whether state.db is byte-for-byte and mtime unchanged afterwards (they must never write).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = tuple(
    [
        "refresh",
        "token",
        "rotate",
        "session",
        "store",
        "sqlite",
        "index",
        "search",
        "compaction",
        "summary",
        "branch",
        "lineage",
        "tree",
        "provider",
        "fallback",
        "model",
        "context",
        "window",
        "threshold",
        "tool",
        "result",
        "file",
        "patch",
        "terminal",
        "memory",
        "skill",
    ]
)
PER_SESSION = 100


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


async def _create(path: Path) -> None:
    from hermes_tui.store.db import SessionDB

    db = await SessionDB.open(path)  # the v21 schema, exactly Hermes's (and no index of ours)
    await db.close()


def build(path: Path, messages: int) -> None:
    asyncio.run(_create(path))
    rng = random.Random(7)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    now = time.time() - messages
    sessions = max(1, messages // PER_SESSION)
    with conn:
        for s in range(sessions):
            sid = f"20261101_{s:06d}_{s % 0xFFFFFF:06x}"
            conn.execute(
                "INSERT INTO sessions (id, source, model, started_at, message_count, title)"
                " VALUES (?, 'cli', 'm', ?, ?, ?)",
                (sid, now + s * PER_SESSION, PER_SESSION, f"session {s}"),
            )
            rows = [
                (
                    sid,
                    "user" if i % 2 == 0 else "assistant",
                    _text(rng, 40 if i % 2 == 0 else 90),
                    now + s * PER_SESSION + i,
                )
                for i in range(PER_SESSION)
            ]
            conn.executemany("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)", rows)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def cached_file(messages: int) -> Path:
    path = Path(tempfile.gettempdir()) / f"hermes-tui-bench-hermes-v21-{messages}.db"
    if not path.exists():
        started = time.perf_counter()
        partial = path.with_suffix(".partial")
        for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
            leftover.unlink(missing_ok=True)
        build(partial, messages)
        partial.rename(path)
        print(f"built {path} ({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - started:.0f} s")
    return path


def fresh_home(source: Path, root: Path) -> Path:
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    root.chmod(0o700)
    shutil.copyfile(source, root / "state.db")
    (root / "state.db").chmod(0o600)
    return root


async def open_before(path: Path) -> float:
    """The open as it was: the extra indexes were created inside it."""
    from hermes_tui.store.db import SessionDB

    started = time.perf_counter()
    db = await SessionDB.open(path)
    await db.build_extra_indexes()
    elapsed = time.perf_counter() - started
    await db.close()
    return elapsed


async def open_after(path: Path) -> tuple[float, float]:
    """(the open now, the background build the TUI starts after its first screen)."""
    from hermes_tui.store.db import SessionDB

    started = time.perf_counter()
    db = await SessionDB.open(path)
    opened = time.perf_counter() - started
    started = time.perf_counter()
    task = db._conns.start_extra_indexes()
    assert task is not None
    built = await task
    assert built, "the copy already had our indexes"
    background = time.perf_counter() - started
    await db.close()
    return opened, background


def read_command(home: Path, *args: str) -> tuple[float, bool]:
    db = home / "state.db"
    data, stamp = db.read_bytes(), db.stat().st_mtime_ns
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "HERMES_TUI_"))}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "hermes_tui", "--home", str(home), *args], env=env, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - started
    assert result.returncode == 0, result.stderr
    unchanged = db.read_bytes() == data and db.stat().st_mtime_ns == stamp
    leftovers = [p.name for p in home.iterdir() if p.name.startswith("state.db") and p.name != "state.db"]
    return elapsed, unchanged and not leftovers


def _median(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} s (min {min(values):.2f}, max {max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    source = cached_file(args.messages)
    work = Path(tempfile.mkdtemp(prefix="hermes-open-bench-"))
    machine = platform.processor() or platform.machine()
    print(f"{machine} · Python {platform.python_version()} · SQLite {sqlite3.sqlite_version}")
    print(
        f"file: {args.messages:,} messages, {source.stat().st_size / 1e6:.0f} MB, Hermes's v21 schema, no index of ours"
    )
    before, after, background, sessions, search = [], [], [], [], []
    all_unchanged = True
    try:
        for _ in range(args.runs):
            before.append(asyncio.run(open_before(fresh_home(source, work / "before") / "state.db")))
            opened, built = asyncio.run(open_after(fresh_home(source, work / "after") / "state.db"))
            after.append(opened)
            background.append(built)
            home = fresh_home(source, work / "read")
            for command, times in ((("sessions",), sessions), (("search", "compaction"), search)):
                elapsed, unchanged = read_command(home, *command)
                times.append(elapsed)
                all_unchanged = all_unchanged and unchanged
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"first open, before (our indexes built inside it): {_median(before)}")
    print(f"first open, after:                               {_median(after)}")
    print(f"  the background build after the first screen:   {_median(background)}")
    print(f"hermes-tui sessions (whole process):             {_median(sessions)}")
    print(f"hermes-tui search compaction (whole process):    {_median(search)}")
    print(f"read-only commands left state.db unchanged (bytes, mtime, no -wal/-shm): {all_unchanged}")


if __name__ == "__main__":
    main()
