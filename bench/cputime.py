"""Wall time and CPU time of the same piece of work, so every latency figure has its CPU beside it.

On a busy machine wall time is mostly waiting for a core; CPU time is what the work itself costs.
`Spent` holds both for one measured span: `cpu` is this process's CPU (every thread: the store's
SQLite threads included, `time.process_time`), `children` the CPU of child processes that ended
and were waited for during the span (`resource.getrusage(RUSAGE_CHILDREN)`: a whole `hermes-tui`
process run by the bench). `measure()` is the context manager that fills one; `timed(fn, runs)`
runs a function several times; `figure(samples)` is the one way the benches print them:
`min 1.2 / median 1.4 ms (CPU min 1.1 / median 1.2 ms)`.
"""

from __future__ import annotations

import contextlib
import resource
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass
class Spent:
    """Seconds of one span: wall clock, this process's CPU, and CPU of children reaped meanwhile."""

    wall: float = 0.0
    cpu: float = 0.0
    children: float = 0.0

    @property
    def total_cpu(self) -> float:
        return self.cpu + self.children


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@contextlib.contextmanager
def measure() -> Iterator[Spent]:
    """Fill a `Spent` with what the block took."""
    spent = Spent()
    wall, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
    try:
        yield spent
    finally:
        spent.wall = time.perf_counter() - wall
        spent.cpu = time.process_time() - cpu
        spent.children = _children_cpu() - children


def timed(fn: Callable[[], Any], runs: int) -> list[Spent]:
    """`runs` measured calls of `fn`."""
    samples = []
    for _ in range(max(1, runs)):
        with measure() as spent:
            fn()
        samples.append(spent)
    return samples


def _pair(values: Sequence[float], scale: float, digits: int) -> str:
    return f"min {min(values) * scale:.{digits}f} / median {statistics.median(values) * scale:.{digits}f}"


def figure(samples: Sequence[Spent], *, unit: str = "ms", digits: int = 1, children: bool = False) -> str:
    """`min W / median W ms (CPU min C / median C ms)`; `children=True` counts reaped children's CPU too."""
    scale = 1000.0 if unit == "ms" else 1.0
    walls = [sample.wall for sample in samples]
    cpus = [sample.total_cpu if children else sample.cpu for sample in samples]
    return f"{_pair(walls, scale, digits)} {unit} (CPU {_pair(cpus, scale, digits)} {unit})"


def cpu_figure(samples: Sequence[Spent], *, unit: str = "ms", digits: int = 1) -> str:
    """`CPU min C / median C ms` alone (beside a latency figure measured another way)."""
    scale = 1000.0 if unit == "ms" else 1.0
    return f"CPU {_pair([sample.cpu for sample in samples], scale, digits)} {unit}"
