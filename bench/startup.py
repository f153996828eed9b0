"""Start-up figures: `hermes-tui --version` wall time and time to the TUI's first frame.

    python -m bench.startup [--runs N]

`--version` is timed as a whole process. The first frame is timed in-process from the start of
`import hermes_tui.app` to the first completed screen refresh of a headless run (Textual's
`App.run_test`; HermesApp starts its agent worker right after that refresh), with a fresh home
folder and the offline demo provider, in a fresh subprocess per run so every run pays the cold
import cost. "Agent ready" adds opening state.db and building the provider and the Agent.
Budgets (DESIGN.md): --version < 0.3 s, first frame < 1.0 s.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

FIRST_FRAME_SNIPPET = r"""
import asyncio, sys, time
t0 = time.perf_counter()
from hermes_tui.app import HermesApp
from hermes_tui.config import load_settings, resolve_home, resolve_provider
home = resolve_home(sys.argv[1]).ensure()
settings = load_settings(home, {}, env={})
choice = resolve_provider(settings, env={})
marks = {}

class TimedApp(HermesApp):
    def _start(self):  # HermesApp schedules this right after the first refresh (the first frame)
        marks["first"] = time.perf_counter() - t0
        super()._start()

app = TimedApp(home=home, settings=settings, choice=choice)

async def main():
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), 60)  # (a hang guard, not a budget)
        marks["ready"] = time.perf_counter() - t0
        print(f"{marks['first']:.4f} {marks['ready']:.4f}")
asyncio.run(main())
"""


def _time_version(runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "hermes_tui", "--version"], check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return times


def first_frame_once(env: dict[str, str] | None = None, cwd: str | None = None) -> tuple[float, float]:
    """One fresh process: seconds from `import hermes_tui.app` to the first frame, and to the agent ready.

    `env`/`cwd`: where the process finds hermes_tui (e.g. PYTHONPATH to a copy of the package); the
    default is this interpreter's installed hermes_tui with the current environment.
    """
    with tempfile.TemporaryDirectory() as home:
        out = subprocess.run(
            [sys.executable, "-c", FIRST_FRAME_SNIPPET, home],
            check=True,
            capture_output=True,
            text=True,
            env={**(os.environ if env is None else env), "HERMES_TUI_DEMO_DELAY": "0"},
            cwd=cwd,
        )
    first, ready = (float(x) for x in out.stdout.split()[-2:])
    return first, ready


def _time_first_frame(runs: int) -> tuple[list[float], list[float]]:
    firsts, readies = [], []
    for _ in range(runs):
        first, ready = first_frame_once()
        firsts.append(first)
        readies.append(ready)
    return firsts, readies


def _fmt(values: list[float]) -> str:
    med, lo, hi = (statistics.median(values) * 1000, min(values) * 1000, max(values) * 1000)
    return f"median {med:.0f} ms, min {lo:.0f} ms, max {hi:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    version = _time_version(args.runs)
    print(f"hermes-tui --version (whole process): {_fmt(version)}  [budget 300 ms]")
    first, ready = _time_first_frame(args.runs)
    print(f"first frame (import -> first refresh): {_fmt(first)}  [budget 1000 ms]")
    print(f"agent ready (DB open, provider built): {_fmt(ready)}")


if __name__ == "__main__":
    main()
