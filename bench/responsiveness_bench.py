"""Responsiveness figures (issue 9): event-loop pauses, compression against the reference, search
shapes and listings at a million messages.

    python -m bench.responsiveness_bench [loop] [compress] [search] [--runs N] [--load N] [--db PATH]

- loop: a real Agent resumes a 20,000-message session and runs a turn that compresses it (the
  OpenAI SDK against the loopback fake server), while a ticker measures the longest pause of the
  event loop; also a Ctrl-C during that compression (time until the turn has stopped).
- compress: phases 1–2 + assembly (prune, boundaries, rehydration, phase 4 and the effectiveness
  size) of ours against `bench.compress_reference` on the same agentic histories (2,000 and
  20,000 messages), after checking both give the same conversation; and our whole compress()
  CPU with an instant summariser.
- search: every query shape on the store bench's 1M-message file, in process (first page) and as
  a whole `hermes-tui search` process; listing 50 sessions by activity and by start.
Each figure is the minimum and median of `--runs` repetitions (a shared 2-core machine: the
minimum is the cost, the median what a user meets), wall time with the CPU time beside it (this
process's; a whole process's own for `hermes-tui search`). `--load N` measures beside N busy
processes (bench/load.py); the load average is printed with the figures. `--db` searches another
store-bench file (e.g. one built with `--sessions 20000`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.cputime import Spent, measure
from bench.load import add_load_argument, describe_load, load_from

SUMMARY = "## Active Task\nUser asked: 'hello again'\n## Goal\nKeep going."
REPO = Path(__file__).resolve().parents[1]


def fmt(values: list[float], unit: float = 1000.0, digits: int = 1) -> str:
    return f"min {min(values) * unit:.{digits}f} / median {statistics.median(values) * unit:.{digits}f}"


def fmt_spent(spans: list[Spent], unit: float = 1000.0, digits: int = 1, *, children: bool = False) -> str:
    """`min W / median W (CPU min C / median C)` of measured spans, in `unit` (1000: ms)."""
    cpu = [span.total_cpu if children else span.cpu for span in spans]
    return f"{fmt([span.wall for span in spans], unit, digits)} (CPU {fmt(cpu, unit, digits)})"


# --------------------------------------------------------------------------- loop


async def _loop_once(history: int) -> tuple[float, float, float, float, float, float]:
    from bench.context_bench import agentic_history
    from hermes_tui.core import events as ev
    from tests.core.helpers import make_agent, openai_choice, wait_until
    from tests.fake_llm import FakeLLMServer, Hang, Reply

    longest = 0.0

    async def tick() -> None:
        nonlocal longest
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            longest = max(longest, now - last)
            last = now

    with FakeLLMServer() as server, tempfile.TemporaryDirectory() as tmp:
        agent, db, log = await make_agent(Path(tmp), openai_choice(server.base_url_openai))
        server.enqueue(Reply(text="hi"))
        await agent.run_conversation("hello")
        long_id = agent.session_id
        await db.append_messages(long_id, agentic_history(history)[1:])
        await agent.new_session()
        server.enqueue(Reply(text="hi"))
        await agent.run_conversation("hello")
        second_id = agent.session_id  # a second long session, for the Ctrl-C measure
        await db.append_messages(second_id, agentic_history(history)[1:])
        await agent.new_session()
        ticker = asyncio.create_task(tick())
        await asyncio.sleep(0.02)
        longest = 0.0
        started, cpu = time.perf_counter(), time.process_time()
        await agent.resume(long_id)
        await asyncio.sleep(0.005)
        resume_gap, resume_s, resume_cpu = longest, time.perf_counter() - started, time.process_time() - cpu
        longest = 0.0
        server.enqueue(Reply(text=SUMMARY), Reply(text="Back on track."))
        cpu = time.process_time()
        result = await agent.run_conversation("hello again")
        turn_cpu = time.process_time() - cpu  # the fake server runs in this process too: its share is in it
        await asyncio.sleep(0.005)
        turn_gap = longest
        assert result.completed and agent.session_id != long_id
        # Ctrl-C during the next compression of the same history.
        await agent.resume(second_id)
        server.enqueue(Hang(30.0))
        log.clear()
        turn = asyncio.create_task(agent.run_conversation("and again"))
        await wait_until(lambda: bool(log.of(ev.CompressionStarted)), timeout=30)
        cancelled = time.perf_counter()
        turn.cancel()
        await turn
        stop_s = time.perf_counter() - cancelled
        ticker.cancel()
        await db.close()
    return resume_gap, turn_gap, stop_s, resume_s, resume_cpu, turn_cpu


def bench_loop(runs: int) -> list[tuple[str, str]]:
    from hermes_tui.app import LOOP_SWITCH_INTERVAL_S
    from hermes_tui.gc_pacer import GcPacer

    # As in the TUI (HermesApp sets both at mount): CPython's automatic full collections are off,
    # so the pauses measured are the core's work — left on, a full collection (30-37 ms here) lands
    # somewhere in the resume; the app runs them itself at a pause in typing or right after a key —
    # and the switch interval is the app's (CPython's 5 ms default gave 15-18 ms pauses in the
    # resume while a worker thread held the interpreter).
    pacer = GcPacer()
    pacer.hold()
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(LOOP_SWITCH_INTERVAL_S)
    try:
        samples = [asyncio.run(_loop_once(20_000)) for _ in range(runs)]
    finally:
        sys.setswitchinterval(switch_interval)
        pacer.stop()
    return [
        (
            "longest event-loop pause: resume a 20,000-message session",
            fmt([s[0] for s in samples]) + f" ms (the resume: CPU {fmt([s[4] for s in samples])} ms)",
        ),
        (
            "longest event-loop pause: a turn that compresses it (fake server)",
            fmt([s[1] for s in samples]) + f" ms (the turn: CPU {fmt([s[5] for s in samples])} ms, server included)",
        ),
        ("Ctrl-C during that compression until the turn stopped", fmt([s[2] for s in samples]) + " ms"),
    ]


# --------------------------------------------------------------------------- compress


def _timed(fn: Callable[[], Any], runs: int) -> list[Spent]:
    out = []
    for _ in range(runs):
        with measure() as spent:
            fn()
        out.append(spent)
    return out


def bench_compress(runs: int) -> list[tuple[str, str]]:
    from bench.compress_reference import reference_compress
    from bench.context_bench import agentic_history
    from hermes_tui.core.context import ContextCompressor
    from hermes_tui.core.context.assembly import assemble, strip_historical_media
    from hermes_tui.core.context.tokens import estimate_messages_tokens_rough

    summary = "[CONTEXT COMPACTION — REFERENCE ONLY] summary\n## Active Task\nNone"

    async def instant(prompt: str, max_tokens: int) -> str:
        return "## Active Task\nNone"

    rows = []
    for size in (2_000, 20_000):
        history = agentic_history(size)
        compressor = ContextCompressor(200_000, summarize=instant)

        def ours(h: list[dict[str, Any]] = history, c: ContextCompressor = compressor) -> list[dict[str, Any]]:
            plan = c.plan(h)
            assert plan is not None
            out = strip_historical_media(assemble(plan.head, summary, plan.tail))
            estimate_messages_tokens_rough(out)
            return out

        reference, details = reference_compress(history, summary)
        assert ours() == reference, "ours and the reference disagree"
        ref_times, our_times = [], []
        for _ in range(runs):  # interleaved, so load hits both alike
            ref_times += _timed(lambda h=history: reference_compress(h, summary), 1)
            our_times += _timed(ours, 1)
        ref_cpu = [span.cpu for span in ref_times]
        our_cpu = [span.cpu for span in our_times]
        ratio_min = min(ref_cpu) / min(our_cpu)
        ratio_med = statistics.median(ref_cpu) / statistics.median(our_cpu)
        rows.append(
            (
                f"phases 1–2 + assembly, {size:,} messages: reference / ours",
                f"{fmt_spent(ref_times)} / {fmt_spent(our_times)} ms → CPU {ratio_min:.2f}× (min),"
                f" {ratio_med:.2f}× (median); same result, tail {details['tail']} messages",
            )
        )
        whole = _timed(lambda h=history, c=compressor: asyncio.run(c.compress(h, current_tokens=300_000)), runs)
        rows.append((f"whole compress() with an instant summariser, {size:,} messages", fmt_spent(whole) + " ms"))
    return rows


# --------------------------------------------------------------------------- search and listing

SHAPES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("rare term", {"query": "quuxrare07"}),
    ("common term", {"query": "session"}),
    ("phrase", {"query": '"session update"'}),
    ("two common terms", {"query": "session value"}),
    ("prefix", {"query": "upda*"}),
    ("CJK, 1 character", {"query": "数"}),
    ("CJK, 2 characters", {"query": "数据"}),
    ("CJK, 3+ characters", {"query": "数据库"}),
    ("common, role=user", {"query": "session", "role_filter": "user"}),
    ("common, role=tool (no tool message has it)", {"query": "session", "role_filter": "tool"}),
    ("common, source=cron (no such session)", {"query": "session", "source_filter": "cron"}),
    ("rare, source=cli", {"query": "quuxrare07", "source_filter": "cli"}),
    ("rare, role=user, newest first", {"query": "quuxrare07", "role_filter": "user", "sort": "newest"}),
    ("CJK 2 characters, role=user", {"query": "数据", "role_filter": "user"}),
    ("common term, 5th page", {"query": "session", "offset": 80}),
)


async def _search_in_process(path: Path, runs: int) -> list[tuple[str, str]]:
    from hermes_tui.store.db import SessionDB

    rows = []
    db = await SessionDB.open(path)
    try:
        for label, kwargs in SHAPES:
            await db.search_messages(**kwargs)
            times = []
            for _ in range(runs):
                with measure() as spent:
                    hits = await db.search_messages(**kwargs)
                times.append(spent)
            rows.append((f"search first page, {label}", f"{fmt_spent(times)} ms ({len(hits)} hits)"))
        for label, kwargs in (("by last activity", {}), ("by start", {"order_by_last_active": False})):
            times = []
            for _ in range(runs):
                with measure() as spent:
                    await db.list_sessions_rich(limit=50, **kwargs)
                times.append(spent)
            rows.append((f"list 50 sessions {label}", fmt_spent(times) + " ms"))
    finally:
        await db.close()
    return rows


def bench_search(runs: int, path: Path | None = None) -> list[tuple[str, str]]:
    from bench.store_bench import bench_home

    path = path or REPO / "bench" / ".out" / "store_1000000_10000.db"
    if not path.exists():
        return [("search", f"skipped: run `python -m bench.store_bench` first to build {path.name}")]
    rows = asyncio.run(_search_in_process(path, runs))
    home = bench_home(path)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for label, query in (("common term", "session"), ("CJK, 2 characters", "数据"), ("rare term", "quuxrare07")):
        walls = []
        for _ in range(runs):
            with measure() as spent:
                subprocess.run(
                    [sys.executable, "-m", "hermes_tui", "--home", str(home), "search", query],
                    check=True,
                    stdout=subprocess.DEVNULL,
                    env=env,
                )
            walls.append(spent)
        rows.append((f"`hermes-tui search` whole process, {label}", fmt_spent(walls, 1.0, 3, children=True) + " s"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", choices=("loop", "compress", "search", []), default=[])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--db", type=Path, help="the store-bench database to search (default: the 1M / 10k one)")
    add_load_argument(parser)
    args = parser.parse_args()
    parts = args.parts or ["loop", "compress", "search"]
    runs = max(1, args.runs)
    rows: list[tuple[str, str]] = []
    with load_from(args):
        print(f"{describe_load(args.load)}; Python {sys.version.split()[0]}", flush=True)
        if "compress" in parts:
            rows += bench_compress(runs)
        if "loop" in parts:
            rows += bench_loop(max(1, runs // 2))
        if "search" in parts:
            rows += bench_search(runs, args.db)
        for label, value in rows:
            print(f"| {label} | {value} |")
        print(describe_load(args.load))


if __name__ == "__main__":
    main()
