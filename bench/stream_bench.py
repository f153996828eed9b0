"""Benchmark (not a test): what streaming a long answer costs, and what it does to keys (issue 23).

Run with `python -m bench.stream_bench` (`--load N`: N busy processes beside it; `--before REF`:
the commit measured as "before", default the one this work started from; `--no-before`: only the
tree this file is in). One command measures both trees in the same run, interleaved: "before" is a
`git archive` of REF unpacked in a temporary folder with this file copied in, and each tree is
measured in a child process started in its root, so it imports its own `hermes_tui`.

In each child: the real HermesApp (headless, `run_test`, as bench/latency_bench.py), a real
state.db, the OpenAI SDK against the loopback fake server of the tests in a process of its own,
which streams a 200 KB Markdown answer in 5-character deltas on an absolute schedule of 1,000 a
second (a slow sleep does not lower the rate; only an app that reads too slowly does). It prints

- the process's CPU (every thread; the server is another process) per 1,000 deltas and per 100 KB
  of answer drawn, from Enter until the whole answer is on screen, in a stream with no keys;
- deltas/s delivered (reaching the app's event sink) and drawn (until the answer is on screen);
- key latency (a key sent as the terminal driver sends it, until the first frame showing it:
  bench/latency_bench.Typist) p50/p95/max idle, during the first 2 s of a stream, and over the whole
  stream; full collections that ran while a key waited for its frame (`gc.callbacks`).

Budgets (issue 23, item 2): CPU at most half of before's; first 2 s of the stream within idle p95
+ 50 ms (a quiet machine); with `--load` at 2x the cores, stream p95 at most 2x idle p95; delivery
keeps up with 1,000 deltas/s (at least 95 % of it); no collection in front of a key's frame.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent  # the tree this file belongs to
BEFORE_REF = "28eca66"  # main when this work started
CHARS = 200_000
DELTA_CHARS = 5
DELTA_S = 0.001
FIRST_S = 2.0
IDLE_KEYS = 100
ASKED_RATE = 1 / DELTA_S


# --------------------------------------------------------------------------- the fake server's process


def serve() -> int:
    """The child's child: a FakeLLMServer (this tree's) streaming one paced answer per line on stdin."""
    from bench.transcript_bench import markdown_text
    from tests.fake_llm import FakeLLMServer, Reply

    with FakeLLMServer() as server:
        print(server.base_url_openai, flush=True)
        for line in sys.stdin:
            size = int(json.loads(line)["chars"])
            server.enqueue(Reply(text=markdown_text(size), chunk_size=DELTA_CHARS, delay_per_chunk=DELTA_S, paced=True))
            print("{}", flush=True)
    return 0


class Server:
    def __init__(self, server_root: Path) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "bench.stream_bench", "--serve"],
            cwd=server_root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        self.base_url_openai = self._process.stdout.readline().strip()

    def enqueue(self, chars: int) -> None:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps({"chars": chars}) + "\n")
        self._process.stdin.flush()
        self._process.stdout.readline()

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=10)


# --------------------------------------------------------------------------- one tree, in a child process


class FullCollections:
    """Spans of full (oldest-generation) collections, from `gc.callbacks`."""

    def __init__(self) -> None:
        self.spans: list[tuple[float, float]] = []
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.spans.append((self._began, time.perf_counter()))

    def within(self, start: float, end: float) -> int:
        return sum(1 for began, ended in self.spans if began >= start and ended <= end)


def quantiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"n": 0, "p50": float("nan"), "p95": float("nan"), "max": float("nan")}
    pick = lambda share: ordered[min(len(ordered) - 1, int(share * len(ordered)))]  # noqa: E731
    return {"n": len(ordered), "p50": pick(0.5), "p95": pick(0.95), "max": ordered[-1]}


async def measure_tree(server_root: Path, chars: int) -> dict[str, Any]:
    from bench.latency_bench import Result, Typist, make_app, rows_on_screen, submit, wait_for, wait_started
    from hermes_tui.app import HermesApp
    from hermes_tui.config import Home
    from hermes_tui.core import events as ev

    arrivals: list[tuple[float, int]] = []  # (when, characters) of each text delta reaching the app's sink
    original_sink = HermesApp._sink

    def counting_sink(self: HermesApp, event: ev.Event) -> None:
        if isinstance(event, ev.TextDelta):
            arrivals.append((time.perf_counter(), len(event.text)))
        original_sink(self, event)

    HermesApp._sink = counting_sink  # type: ignore[method-assign]
    collections = FullCollections()
    gc.callbacks.append(collections)
    server = Server(server_root)
    root = Path(tempfile.mkdtemp(prefix="stream-bench-"))
    out: dict[str, Any] = {}
    try:
        # idle keys
        idle = Result("idle")
        app = make_app(Home(root / "idle").ensure(), server)  # type: ignore[arg-type]
        async with app.run_test(size=(120, 40)):
            await wait_started(app)
            await Typist(app).type_while(idle, lambda: len(idle.latencies_ms) >= IDLE_KEYS)
        out["idle"] = quantiles(idle.latencies_ms)

        # a stream without keys: CPU and rates
        arrivals.clear()
        server.enqueue(chars)
        app = make_app(Home(root / "cpu").ensure(), server)  # type: ignore[arg-type]
        async with app.run_test(size=(120, 40)):
            await wait_started(app)
            convo = app.main.conversation
            cpu0, wall0, collected0 = time.process_time(), time.perf_counter(), len(collections.spans)
            await submit(app, Typist(app), "Write the long report")
            await wait_for(lambda: not app.turns.turn_running, 600, "the end of the stream")
            await rows_on_screen(app)
            drawn_at = time.perf_counter()
            cpu = time.process_time() - cpu0
            shown = len(convo.items[-1].text) if convo.items else 0
            spans = collections.spans[collected0:]
            out["cpu"] = {
                "cpu_s": cpu,
                "wall_s": drawn_at - wall0,
                "chars_shown": shown,
                "deltas": len(arrivals),
                "chars_delivered": sum(size for _when, size in arrivals),
                "delivery_s": arrivals[-1][0] - arrivals[0][0] if len(arrivals) > 1 else float("nan"),
                "drawn_s": drawn_at - arrivals[0][0] if arrivals else float("nan"),
                "flushes": getattr(convo, "flush_count", 0),
                "full_gcs": len(spans),
                "longest_gc_ms": max((end - began for began, end in spans), default=0.0) * 1000,
            }

        # a stream with keys: latencies
        arrivals.clear()
        server.enqueue(chars)
        whole, first = Result("stream"), Result("first")
        key_spans: list[tuple[float, float]] = []
        app = make_app(Home(root / "keys").ensure(), server)  # type: ignore[arg-type]
        async with app.run_test(size=(120, 40)):
            await wait_started(app)
            typist = Typist(app)
            submitted = time.perf_counter()

            def classify(latency: float) -> None:
                # The key's own times, not "now - latency": this thread may wake well after the
                # frame (a collection that started right after the echo holds the interpreter), and
                # a span rebuilt from now would then swallow that collection as one in front of it.
                now = time.perf_counter()
                sent, shown = getattr(typist, "last_key", (now - latency, now))  # an older tree's Typist: rebuilt
                key_spans.append((sent, shown))
                began = arrivals[0][0] if arrivals else submitted
                if sent - began <= FIRST_S:
                    first.add(latency)

            await submit(app, typist, "Write the long report")
            cpu0 = time.process_time()
            await typist.type_while(whole, lambda: not app.turns.turn_running, on_key=classify)
            out["keys_cpu_s"] = time.process_time() - cpu0
        out["stream"] = quantiles(whole.latencies_ms)
        out["first"] = quantiles(first.latencies_ms)
        out["gcs_in_front_of_keys"] = sum(collections.within(start, end) for start, end in key_spans)
    finally:
        server.close()
        gc.callbacks.remove(collections)
        shutil.rmtree(root, ignore_errors=True)
    return out


# --------------------------------------------------------------------------- the parent: both trees, one table


def before_tree(ref: str, folder: Path) -> Path:
    """`git archive` of `ref` unpacked in `folder`, with this bench copied in."""
    archive = subprocess.run(["git", "-C", str(HERE), "archive", ref], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    shutil.copy(Path(__file__), folder / "bench" / "stream_bench.py")
    return folder


def run_child(tree: Path, chars: int) -> dict[str, Any]:
    out = tree / f"stream-bench-{os.getpid()}.json"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.stream_bench",
            "--child",
            str(out),
            "--server-root",
            str(HERE),
            "--chars",
            str(chars),
        ],
        cwd=tree,
        check=True,
    )
    data = json.loads(out.read_text())
    out.unlink()
    return data


def figures(data: dict[str, Any]) -> dict[str, float]:
    cpu = data["cpu"]
    deltas = max(1, cpu["deltas"])
    return {
        "cpu_per_1000": cpu["cpu_s"] * 1000 / deltas * 1000,  # ms
        "cpu_per_100kb": cpu["cpu_s"] * 100_000 / max(1, cpu["chars_shown"]),  # s
        "delivered": (deltas - 1) / cpu["delivery_s"] if cpu["delivery_s"] == cpu["delivery_s"] else float("nan"),
        "drawn": deltas / cpu["drawn_s"],
    }


def print_report(results: dict[str, list[dict[str, Any]]], load: int) -> None:
    def fmt(q: dict[str, float]) -> str:
        return f"{q['p50']:.0f} / {q['p95']:.0f} / {q['max']:.0f} ({q['n']})"

    names = list(results)
    rows: list[tuple[str, list[str], str]] = []
    per = {name: [figures(run) for run in runs] for name, runs in results.items()}

    def each(name: str, key: str, spec: str) -> str:
        return ", ".join(format(f[key], spec) for f in per[name])

    def budget_cpu() -> str:
        if "before" not in per or "after" not in per:
            return "≤ half of before"
        best_after = min(f["cpu_per_1000"] for f in per["after"])
        best_before = min(f["cpu_per_1000"] for f in per["before"])
        verdict = "✓" if best_after <= best_before / 2 else "✗"
        return f"≤ half of before: {best_after / best_before:.0%} of before {verdict}"

    rows.append(("CPU ms per 1,000 deltas", [each(n, "cpu_per_1000", ".0f") for n in names], budget_cpu()))
    rows.append(("CPU s per 100 KB drawn", [each(n, "cpu_per_100kb", ".2f") for n in names], "≤ half of before"))
    rows.append(
        (
            "deltas/s delivered",
            [each(n, "delivered", ",.0f") for n in names],
            f"≥ {0.95 * ASKED_RATE:,.0f} (asked {ASKED_RATE:,.0f})",
        )
    )
    rows.append(("deltas/s drawn (to the answer on screen)", [each(n, "drawn", ",.0f") for n in names], "—"))
    rows.append(
        (
            "flushes / full GCs (longest ms)",
            [
                ", ".join(
                    f"{r['cpu']['flushes']} / {r['cpu']['full_gcs']} ({r['cpu']['longest_gc_ms']:.0f})"
                    for r in results[n]
                )
                for n in names
            ],
            "—",
        )
    )
    rows.append(
        ("keys idle p50 / p95 / max ms (n)", [", ".join(fmt(r["idle"]) for r in results[n]) for n in names], "—")
    )
    for label, key in (("keys, first 2 s of the stream", "first"), ("keys, whole stream", "stream")):
        cells = []
        for n in names:
            cells.append(", ".join(fmt(r[key]) for r in results[n]))
        if key == "first":
            budget = "p95 and max ≤ idle p95 + 50 ms (quiet machine): " + "; ".join(
                f"{n} {'✓' if all(r['first']['max'] <= r['idle']['p95'] + 50 for r in results[n]) else '✗'}"
                for n in names
            )
        else:
            budget = "p95 ≤ 2× idle p95 (with --load 2× cores): " + "; ".join(
                f"{n} {'✓' if all(r['stream']['p95'] <= 2 * r['idle']['p95'] for r in results[n]) else '✗'}"
                for n in names
            )
        rows.append((f"{label} p50 / p95 / max ms (n)", cells, budget))
    rows.append(
        (
            "full GCs while a key waited for its frame",
            [", ".join(str(r["gcs_in_front_of_keys"]) for r in results[n]) for n in names],
            "0",
        )
    )
    header = ("measure", names, "budget")
    width = max(len(row[0]) for row in [header, *rows])
    cols = [max(len(row[1][i]) for row in [header, *rows]) for i in range(len(names))]
    for label, cells, budget in [header, *rows]:
        print(label.ljust(width), *(cell.ljust(cols[i]) for i, cell in enumerate(cells)), budget, sep="  ")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--before", default=BEFORE_REF, help="the commit measured as before (default %(default)s)")
    parser.add_argument("--no-before", action="store_true", help="measure only this tree")
    parser.add_argument("--rounds", type=int, default=1, help="before/after pairs, interleaved")
    parser.add_argument("--chars", type=int, default=CHARS, help="the answer's length")
    parser.add_argument("--json", action="store_true", help="also print the raw figures")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--server-root", help=argparse.SUPPRESS)
    from bench.load import add_load_argument, describe_load, load_from

    add_load_argument(parser)
    args = parser.parse_args(argv)
    if args.serve:
        return serve()
    if args.child:
        data = asyncio.run(measure_tree(Path(args.server_root), args.chars))
        Path(args.child).write_text(json.dumps(data))
        return 0
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}; load average {os.getloadavg()}", flush=True)
    results: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="stream-bench-before-") as folder, load_from(args):
        print(describe_load(args.load), flush=True)
        trees = [("after", HERE)]
        if not args.no_before:
            trees.insert(0, ("before", before_tree(args.before, Path(folder))))
        for _round in range(max(1, args.rounds)):
            for name, tree in trees:
                print(f"measuring {name} ({tree}) …", flush=True)
                results.setdefault(name, []).append(run_child(tree, args.chars))
        print(describe_load(args.load), flush=True)
    print(
        f"before = {args.before} (git archive); after = {HERE}; "
        f"{args.chars:,} characters in {DELTA_CHARS}-character deltas"
    )
    print_report(results, args.load)
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
