"""Sanitiser throughput: how fast untrusted text is made inert (for a terminal) and valid (on arrival).

    python -m bench.text_safety_bench [--runs N]

`visible` runs on every streamed delta in the TUI and headless, so it is measured both on whole
texts (1 MB: English prose and code, mixed-script text, text with an escape sequence every ~45
characters) and as a stream of small deltas (4 and 40 characters, the sizes providers send),
where the per-call cost dominates. Alongside: `valid_unicode` (every text arrival),
`StreamAccumulator.feed` per text delta (arrival + bookkeeping), `json_for_terminal` on a 1 MB
JSON dump, and `approval_view` on a 1 KB command. Figures are MB of UTF-8 per second (best run).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

from hermes_tui.core.providers.base import StreamText
from hermes_tui.core.turn.streaming import StreamAccumulator
from hermes_tui.text_safety import approval_view, json_for_terminal, valid_unicode, visible

MB = 1_000_000


def prose(size: int) -> str:
    """English prose and code as a model writes them: the README and our own sources, repeated."""
    root = Path(__file__).resolve().parents[1]
    sample = (root / "README.md").read_text(encoding="utf-8") + (root / "hermes_tui" / "cli.py").read_text()
    return (sample * (size // len(sample) + 1))[:size]


def mixed(size: int) -> str:
    sample = "Résumé of the café test — 桂林山水甲天下 🏞, naïve Ωmega; مرحبا بالعالم. "
    return (sample * (size // len(sample) + 1))[:size]


def hostile(size: int) -> str:
    sample = "Normal model output follows here, then an escape sequence\x1b]0;title\x07 and \x1b[2K more. " * 2
    return (sample * (size // len(sample) + 1))[:size]


def best_rate(work: Callable[[], object], megabytes: float, runs: int) -> float:
    """The best of `runs` timings of `work`, as MB per second."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return megabytes / best


def deltas(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def stream_rate(pieces: list[str], runs: int) -> tuple[float, float]:
    """(MB/s, deltas/s) of `visible` over a stream of deltas."""
    megabytes = sum(len(p.encode()) for p in pieces) / MB

    def work() -> None:
        for piece in pieces:
            visible(piece)

    rate = best_rate(work, megabytes, runs)
    return rate, rate * MB / (megabytes * MB / len(pieces))


def feed_rate(pieces: list[str], runs: int) -> float:
    megabytes = sum(len(p.encode()) for p in pieces) / MB
    events = [StreamText(p) for p in pieces]

    def work() -> None:
        acc = StreamAccumulator()
        for event in events:
            acc.feed(event)

    return best_rate(work, megabytes, runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    runs = max(1, args.runs)
    texts = {"prose + code": prose(MB), "mixed scripts": mixed(MB // 2), "escape every ~45 chars": hostile(MB)}
    print(f"# text_safety_bench — Python {platform.python_version()} on {platform.machine()}, best of {runs}")
    print("| measure | MB/s |")
    print("|---|---|")
    for name, text in texts.items():
        size = len(text.encode()) / MB
        print(f"| visible, 1 MB {name} | {best_rate(lambda t=text: visible(t), size, runs):,.0f} |")
    for size in (4, 40):
        rate, per_second = stream_rate(deltas(texts["prose + code"], size), runs)
        print(f"| visible, {size}-char deltas | {rate:,.0f} ({per_second / 1e6:.1f} M deltas/s) |")
    rate, per_second = stream_rate(deltas(texts["escape every ~45 chars"], 40), runs)
    print(f"| visible, 40-char deltas with escapes | {rate:,.0f} ({per_second / 1e6:.1f} M deltas/s) |")
    prose_text = texts["prose + code"]
    print(f"| valid_unicode, 1 MB prose + code | {best_rate(lambda: valid_unicode(prose_text), 1.0, runs):,.0f} |")
    print(f"| StreamAccumulator.feed, 40-char deltas | {feed_rate(deltas(prose_text, 40), runs):,.0f} |")
    rows = [{"role": "assistant", "content": t} for t in deltas(texts["mixed scripts"], 500)]
    dumped = json.dumps(rows, ensure_ascii=False)
    size = len(dumped.encode()) / MB
    rate = best_rate(lambda: json_for_terminal(dumped), size, runs)
    print(f"| json_for_terminal, {size:.1f} MB mixed-script JSON | {rate:,.0f} |")
    command = ("rm -rf build/ && make install \x1b[2K\r " * 30)[:1000]
    rate = best_rate(lambda: [approval_view(command) for _ in range(100)], 0.1, runs)
    print(f"| approval_view, 1 KB command | {rate:,.0f} ({rate * 1000:,.0f} commands/s) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
