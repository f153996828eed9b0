"""Benchmark (not a test): what the stream guard costs per event (issue 23, item 2).

Run with `python -m bench.guard_bench`. The guard reads an SDK stream stand-in whose events are all
ready at once (a fast stream's gathered read), calling `progress()` for each as the providers do,
so only the guard's own work is measured: the loop, the deadline and the alarm. Before, each event
was awaited inside its own `asyncio.timeout_at` scope (a timer armed and dropped per event); now
one alarm serves the whole stream. `--scopes` measures that old way beside it, on the same events.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator
from typing import Any

from bench.cputime import figure, measure
from hermes_tui.core.providers.stream_guard import GuardedStream, StreamTimeouts

EVENTS = 40_000  # a 200 KB answer in 5-character deltas


class ReadyEvents:
    """An SDK stream stand-in with `count` events, each ready when asked for."""

    def __init__(self, count: int) -> None:
        self.left = count

    def __aiter__(self) -> AsyncIterator[int]:
        return self

    async def __anext__(self) -> int:
        if self.left == 0:
            raise StopAsyncIteration
        self.left -= 1
        return self.left


async def through_guard(count: int) -> None:
    guard = GuardedStream(StreamTimeouts(), "http://model.test")
    async for _event in guard.items(ReadyEvents(count)):
        guard.progress()


async def through_scopes(count: int) -> None:
    """The old way: every event awaited in a timeout scope of its own."""
    loop = asyncio.get_running_loop()
    events: Any = ReadyEvents(count)
    while True:
        try:
            async with asyncio.timeout_at(loop.time() + 30.0):
                await events.__anext__()
        except StopAsyncIteration:
            return


async def run(runs: int, scopes: bool) -> None:
    kinds = [("one alarm per stream (now)", through_guard)]
    if scopes:
        kinds.append(("a timeout scope per event (before)", through_scopes))
    for label, reader in kinds:
        spans = []
        for _ in range(runs):
            with measure() as spent:
                await reader(EVENTS)
            spans.append(spent)
        print(f"{label}: {EVENTS:,} events, {figure(spans)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scopes", action="store_true", help="measure a timeout scope per event too")
    args = parser.parse_args()
    asyncio.run(run(args.runs, args.scopes))


if __name__ == "__main__":
    main()
