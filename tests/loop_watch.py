"""How long work held the event loop, measured so that the figure means the same on a busy machine.

`LoopWatch` runs a ticker task beside the work and records the most CPU the loop's thread spent
between two of its wake-ups (`longest_held`). CPU, not wall time: work run on the loop shows up in
full, while waiting for the scheduler of a loaded machine, or for the interpreter lock while a
worker thread runs, costs the loop's thread nothing. Time the garbage collector spends on the
loop's thread is left out too: when a collection runs is the app's pacer's business
(`hermes_tui.gc_pacer`, tested on its own), not the work's.

A machine shared with other work still runs the same code more slowly (caches, memory bandwidth),
so a bound in milliseconds is not one either: `one_go_cpu` measures, in the test, a piece of work
done the way the old code did it, as the yardstick a bound is stated in.

`LoopTurns` needs no clock at all: it counts the turns other tasks got on the loop, for work that
must return to the loop between its slices (or, in one slice, must not).
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any


class LoopTurns:
    """A task that counts its turns on the event loop (`ticks`): work that never returns to the loop
    sees no change. Use `async with LoopTurns() as turns:` inside a coroutine."""

    def __init__(self) -> None:
        self.ticks = 0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            self.ticks += 1
            await asyncio.sleep(0)

    async def __aenter__(self) -> LoopTurns:
        self._task = asyncio.create_task(self._run())
        await asyncio.sleep(0)  # its first turn is over: `ticks` is 1
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


class CollectorClock:
    """CPU the garbage collector has spent on this thread since it was made (while installed)."""

    def __init__(self) -> None:
        self.spent = 0.0
        self._thread = threading.get_ident()
        self._started: float | None = None

    def _callback(self, phase: str, _info: dict[str, Any]) -> None:
        if threading.get_ident() != self._thread:
            return
        if phase == "start":
            self._started = time.thread_time()
        elif self._started is not None:
            self.spent += time.thread_time() - self._started
            self._started = None

    def __enter__(self) -> CollectorClock:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc_info: object) -> None:
        gc.callbacks.remove(self._callback)

    def work_cpu(self) -> float:
        """This thread's CPU so far, without the collector's."""
        return time.thread_time() - self.spent


class LoopWatch:
    """A task that wakes every `interval` seconds while the work runs and records `ticks`, the most
    CPU the loop's thread did work for between two wake-ups (`longest_held`) and the longest
    wall-clock pause (`longest_wall`, for messages only). Use `with LoopWatch() as watch:` inside a
    coroutine."""

    def __init__(self, interval: float = 0.001) -> None:
        self.interval = interval
        self.ticks = 0
        self.longest_held = 0.0
        self.longest_wall = 0.0
        self._clock = CollectorClock()
        self._last_cpu = self._last_wall = 0.0
        self._task: asyncio.Task[None] | None = None

    def _tick(self) -> None:
        cpu, wall = self._clock.work_cpu(), time.perf_counter()
        self.longest_held = max(self.longest_held, cpu - self._last_cpu)
        self.longest_wall = max(self.longest_wall, wall - self._last_wall)
        self._last_cpu, self._last_wall = cpu, wall

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            self._tick()
            self.ticks += 1

    def __enter__(self) -> LoopWatch:
        self._clock.__enter__()
        self._last_cpu, self._last_wall = self._clock.work_cpu(), time.perf_counter()
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._tick()  # a loop held until the very end shows as one long stretch, not as none
        if self._task is not None:
            self._task.cancel()
        self._clock.__exit__()

    def describe(self) -> str:
        return f"{self.longest_held * 1000:.0f} ms of CPU ({self.longest_wall * 1000:.0f} ms wall)"


def one_go_cpu(work: Callable[[], object], runs: int = 3) -> float:
    """The median CPU `work` takes on this thread, the collector's time left out."""
    spent = []
    with CollectorClock() as clock:
        for _ in range(runs):
            started = clock.work_cpu()
            work()
            spent.append(clock.work_cpu() - started)
    return statistics.median(spent)
