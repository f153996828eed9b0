"""A loaded machine on demand: N busy processes the bench starts and stops itself (`--load N`).

Power users run the agent while builds and test suites keep the cores busy; a figure measured on a
quiet machine does not show what they meet. `busy_processes(n)` starts `n` processes, each a
pure-Python spin loop (one core's worth of work each, like a compiler or a test runner), and
ends them when the block ends — normally, on an exception or on Ctrl-C. A spinner also watches
its parent: if the bench itself is killed (SIGKILL, a closed terminal) it exits within a few
milliseconds on its own, so no spinner outlives the run.

`add_load_argument(parser)` adds `--load N` to a bench's parser; `load_from(args)` is the context
manager to run the measurements in (no processes for the default, 0). `describe_load(n)` is the
line a bench prints beside its figures: the spinners and the load average.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator

# The spinner: work in short stretches, and stop as soon as the process that started it is gone.
_SPIN = """
import os, sys
parent = int(sys.argv[1])
while os.getppid() == parent:
    n = 0
    for _ in range(20000):
        n += 1
"""
_STOP_WAIT_S = 5.0


@contextlib.contextmanager
def busy_processes(count: int) -> Iterator[list[int]]:
    """`count` spinning processes for the duration of the block; yields their pids."""
    spinners: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(max(0, count)):
            spinners.append(
                subprocess.Popen(
                    [sys.executable, "-c", _SPIN, str(os.getpid())],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        yield [spinner.pid for spinner in spinners]
    finally:
        for spinner in spinners:
            if spinner.poll() is None:
                spinner.kill()
        for spinner in spinners:
            with contextlib.suppress(subprocess.TimeoutExpired):
                spinner.wait(timeout=_STOP_WAIT_S)


def add_load_argument(parser: argparse.ArgumentParser) -> None:
    """`--load N`: run the measurements with N busy processes beside them (default 0: as the machine is)."""
    parser.add_argument(
        "--load",
        type=int,
        default=0,
        metavar="N",
        help="start N busy processes (pure-Python spin loops) for the measurements, stopped at the end",
    )


def load_from(args: argparse.Namespace) -> contextlib.AbstractContextManager[list[int]]:
    """The context to measure in: `busy_processes(args.load)`."""
    return busy_processes(int(getattr(args, "load", 0) or 0))


def describe_load(count: int) -> str:
    """`--load 4 (4 busy processes); load average 4.10 2.30 1.50` — what the figures were measured under."""
    try:
        average = "load average " + " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        average = "load average unknown"
    spinners = f"--load {count} ({count} busy processes)" if count else "--load 0 (no busy processes of ours)"
    return f"{spinners}; {average}; {os.cpu_count()} cores"
