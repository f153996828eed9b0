"""Benchmark (not a test): the power-user screens at scale.

    python -m bench.power_bench [--skip-search] [--typing-gap-ms 120]

1. Search as you type on the 1,000,000-message store bench DB (bench/.out/, built by
   `bench.store_bench` when missing): the real SearchScreen over SessionDB, keys typed one by one
   through Pilot. For each keystroke: the line reaching the screen (Input.Changed) -> that line's
   results painted (the refresh after they were set; the 15 ms debounce included). Meanwhile a ticker
   on the event loop records how late it wakes (a stall delays every keypress and repaint).
   Budgets: each keystroke's results < 100 ms; no stall > 50 ms while typing.
2. Compare two 2,000-message branches (1,000 shared): `load_comparison` (both read from state.db
   and compared), the pure `compare_histories`, and the CompareScreen until its first rows are
   painted. Budget < 500 ms.
3. Open a search hit 9,000 messages deep in a 10,000-message session in the real app: search
   choice -> resumed, revealed and marked on screen. Budget < 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App

from bench.store_bench import cached_store
from hermes_tui.screens.main import STYLES_PATH

QUERIES = ["lineage branch", "quuxrare07", "session update", "role:user cache", "数据库索引", "东京"]
TICK_S = 0.005


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> str:
    return f"p50 {statistics.median(values):.1f} ms, p95 {pct(values, 0.95):.1f} ms, max {max(values):.1f} ms"


class Ticker:
    """How late the event loop wakes a task that sleeps TICK_S (the loop's longest stall)."""

    def __init__(self) -> None:
        self.lateness: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(TICK_S)
            self.lateness.append((time.perf_counter() - started - TICK_S) * 1000)

    def start(self) -> None:
        self.lateness.clear()
        self._task = asyncio.create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


class Host(App[Any]):
    CSS_PATH = STYLES_PATH


async def wait_for(predicate: Callable[[], bool], pilot: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the bench waited too long")
        await pilot.pause(0.001)


# --------------------------------------------------------------------------- 1. search as you type


def timed_search_screen(db: Any) -> Any:
    """The real SearchScreen, noting when each line arrived (the key's Input.Changed) and when its
    results were painted (the refresh after they were set), so Pilot's own pauses do not count."""
    from hermes_tui.screens.search import SearchScreen

    class TimedSearch(SearchScreen):
        def __init__(self) -> None:
            super().__init__(db)
            self.arrived: dict[str, float] = {}
            self.painted: dict[str, float] = {}

        def _schedule(self, line: str) -> None:
            self.arrived[line] = time.perf_counter()
            super()._schedule(line)

        def _show(self, line: str, *args: Any, **kwargs: Any) -> None:
            super()._show(line, *args, **kwargs)
            self.call_after_refresh(lambda: self.painted.setdefault(line, time.perf_counter()))

    return TimedSearch()


async def bench_search(gap_ms: float) -> dict[str, Any]:
    from hermes_tui.store.db import SessionDB

    db = await SessionDB.open(cached_store())
    per_key: dict[str, list[float]] = {}
    ticker = Ticker()
    app = Host()
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = timed_search_screen(db)
            app.push_screen(screen)
            await pilot.pause()
            for query in QUERIES:
                box = screen.query_one("#search-input")
                box.value = ""
                await wait_for(lambda: screen.shown_query == "", pilot)
                ticker.start()
                line = ""
                for char in query:
                    line += char
                    await pilot.press(char if char != " " else "space")
                    await wait_for(lambda line=line: line in screen.painted, pilot)
                    per_key.setdefault(query, []).append((screen.painted[line] - screen.arrived[line]) * 1000)
                    await asyncio.sleep(gap_ms / 1000)  # the user's typing speed
                screen.arrived.clear()
                screen.painted.clear()
                ticker.stop()
                per_key[query + " (stalls)"] = list(ticker.lateness)
            # Fast typing: every key 20 ms apart, results only for the last line.
            box.value = ""
            await wait_for(lambda: screen.shown_query == "", pilot)
            searches_before = screen.searches_run
            ticker.start()
            started = time.perf_counter()
            for char in "compression summary":
                await pilot.press(char if char != " " else "space")
                await asyncio.sleep(0.02)
            await wait_for(lambda: "compression summary" in screen.painted, pilot)
            ticker.stop()
            fast = {
                "typing_ms": (time.perf_counter() - started) * 1000,
                "last_key_to_results_ms": (
                    screen.painted["compression summary"] - screen.arrived["compression summary"]
                )
                * 1000,
                "searches_run": screen.searches_run - searches_before,
                "stall_max_ms": max(ticker.lateness),
            }
    finally:
        await db.close()
    return {"per_key": per_key, "fast": fast}


# --------------------------------------------------------------------------- 2. compare


async def bench_compare(folder: Path, runs: int) -> dict[str, Any]:
    from hermes_tui.core.branch_compare import compare_histories, load_comparison
    from hermes_tui.screens.compare import CompareScreen
    from hermes_tui.store.db import SessionDB

    db = await SessionDB.open(folder / "compare.db")
    shared = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"shared message {i} " + "word " * 40}
        for i in range(1000)
    ]
    for name in ("left", "right"):
        own = [
            {"role": "user" if i % 2 == 0 else "assistant", "content": f"{name} message {i} " + "text " * 40}
            for i in range(1000)
        ]
        await db.create_session(name, "cli", title=f"{name} branch")
        await db.append_messages(name, [*shared, *own])
    loads, pures = [], []
    for _ in range(runs):
        started = time.perf_counter()
        loaded = await load_comparison(db, "left", "right")
        loads.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        compare_histories(loaded.left.messages, loaded.right.messages)
        pures.append((time.perf_counter() - started) * 1000)
    screens = []
    app = Host()
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(runs):
            started = time.perf_counter()
            screen = CompareScreen(db, "left", "right")
            app.push_screen(screen)
            await wait_for(lambda screen=screen: screen.is_mounted and screen.turns_list.option_count > 0, pilot)
            await pilot.pause()
            screens.append((time.perf_counter() - started) * 1000)
            app.pop_screen()
            await pilot.pause()
    await db.close()
    assert loaded.comparison.shared_count == 1000 and len(loaded.comparison.pairs) == 500
    return {"load_and_compare": loads, "pure_compare": pures, "screen_first_rows": screens}


# --------------------------------------------------------------------------- 3. open deep


async def bench_open_deep(folder: Path, runs: int) -> list[float]:
    from hermes_tui.app import HermesApp
    from hermes_tui.config import Home, ProviderChoice, Settings
    from hermes_tui.screens.search import SearchChoice
    from hermes_tui.store.db import SessionDB

    home = Home(folder / "home").ensure()
    db = await SessionDB.open(home.state_db)
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " + "body " * 30}
        for i in range(10_000)
    ]
    messages[1000]["content"] = "the hit, nine thousand messages back"
    await db.create_session("deep", "cli", title="deep session")
    ids = await db.append_messages("deep", messages)
    await db.close()
    times = []
    for _ in range(runs):
        app = HermesApp(home=home, settings=Settings(), choice=ProviderChoice("demo", "demo", "", "", True, "bench"))
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), 30)
            convo = app.main.conversation
            started = time.perf_counter()
            app.navigation.open_at_message(SearchChoice("deep", ids[1000], "user", "the hit"))
            await wait_for(
                lambda app=app, convo=convo: app.agent.session_id == "deep" and bool(convo.query(".-marked")),
                pilot,
                30,
            )
            await pilot.pause()
            times.append((time.perf_counter() - started) * 1000)
            assert convo.later_count > 8_000
    return times


# --------------------------------------------------------------------------- report


async def run(args: argparse.Namespace) -> None:
    if not args.skip_search:
        found = await bench_search(args.typing_gap_ms)
        print(f"1. search as you type on {cached_store().name} (keys {args.typing_gap_ms:.0f} ms apart)")
        keys: list[float] = []
        stalls: list[float] = []
        for query, values in found["per_key"].items():
            if query.endswith("(stalls)"):
                stalls += values
                continue
            keys += values
            print(f"   {query!r:20} key -> results painted: {summary(values)}")
        print(f"   every keystroke, line -> its results painted: {summary(keys)}  (budget < 100 ms)")
        print(f"   event-loop lateness while typing: {summary(stalls)}  (budget: no stall > 50 ms)")
        fast = found["fast"]
        print(
            f"   fast typing (20 ms apart): last key -> results {fast['last_key_to_results_ms']:.1f} ms,"
            f" {fast['searches_run']} searches for 19 keys, max stall {fast['stall_max_ms']:.1f} ms"
        )
    with tempfile.TemporaryDirectory() as tmp:
        compared = await bench_compare(Path(tmp), args.runs)
        print("2. compare two 2,000-message branches (1,000 shared)")
        print(f"   read both from state.db + compare: {summary(compared['load_and_compare'])}  (budget < 500 ms)")
        print(f"   compare_histories alone: {summary(compared['pure_compare'])}")
        print(f"   CompareScreen to its first rows painted: {summary(compared['screen_first_rows'])}")
        opened = await bench_open_deep(Path(tmp), max(3, args.runs // 2))
        print("3. open a search hit 9,000 messages back in a 10,000-message session (real app)")
        print(f"   choice -> resumed, revealed, marked and painted: {summary(opened)}  (budget < 1 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-search", action="store_true", help="skip the 1M-message search part")
    parser.add_argument("--typing-gap-ms", type=float, default=120.0, help="pause between keys (default 120)")
    parser.add_argument("--runs", type=int, default=7)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
