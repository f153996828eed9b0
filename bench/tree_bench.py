"""Benchmark (not a test): the Sessions tree with 10,000 sessions, as a power user drives it.

Run with `python -m bench.tree_bench` (`--messages`, `--sessions`, `--runs`). The database is the
store bench's synthetic home (bench/store_bench.py `generate`: compression chains of 1-4 links,
branches, "project N" / "branch N" titles), cached in bench/.out/. The real main screen runs under
Pilot at 120x40 with the preview reading that file. Each round measures, on the event loop:

  first paint: `LineageTree.set_nodes` of every session until the next frame is drawn (the app's
      `call_after_refresh` fires) — what "the tree is visible" waits for once the sessions are
      read; the read itself (`SessionDB.lineage_tree`, on the store's thread) is reported beside it;
  scrolling: one page down in the focused tree until drawn (the median of 20);
  filter: what one keystroke in the filter line does (`set_filter` with the text so far) until the
      filtered tree is drawn — the median and the worst over typing "project 12" and erasing it;
  expand all: "+" (building and expanding every row under the shown roots) until drawn;
  holding ↓: 80 key presses through Pilot, then how many preview reads were made.

Prints min / median / max over `--runs` rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from textual.app import App

from bench.store_bench import cached_store
from hermes_tui.screens.main import STYLES_PATH, MainScreen
from hermes_tui.store.db import SessionDB

FILTER_TEXT = "project 12"
HELD_ROWS = 80  # ↓ presses in a row (the first page of roots has 100 rows and a "more" row)


class TreeBenchApp(App[None]):
    CSS_PATH = STYLES_PATH

    def on_mount(self) -> None:
        self.push_screen(MainScreen())


async def painted(app: App[None]) -> None:
    """Until the screen has been refreshed after everything posted so far."""
    done = asyncio.Event()
    app.call_after_refresh(done.set)
    await done.wait()


async def timed(app: App[None], action: Any) -> float:
    """Seconds from running `action` until the next frame is drawn."""
    started = time.perf_counter()
    action()
    await painted(app)
    return time.perf_counter() - started


async def one_round(path: Path) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    db = await SessionDB.open(path, read_only=True)
    app = TreeBenchApp()
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            main = app.screen
            assert isinstance(main, MainScreen)
            tree = main.lineage
            main.tree_preview.loader = db.session_preview
            started = time.perf_counter()
            nodes = await db.lineage_tree()
            figures["read"] = time.perf_counter() - started
            current = max(nodes, key=lambda node: node.last_active).id
            figures["first paint"] = await timed(app, lambda: tree.set_nodes(nodes, current))
            tree.focus()
            await pilot.pause()

            figures["page down"] = statistics.median([await timed(app, tree.action_page_down) for _ in range(20)])

            typed = FILTER_TEXT
            prefixes = [typed[: i + 1] for i in range(len(typed))] + [typed[:i] for i in range(len(typed) - 1, -1, -1)]
            keys = [await timed(app, lambda p=prefix: tree.set_filter(p)) for prefix in prefixes]
            figures["filter key"] = statistics.median(keys)
            figures["filter worst key"] = max(keys)
            await pilot.pause()

            figures["expand all"] = await timed(app, tree.action_expand_all)
            figures["rows built"] = len(tree._rows_by_session)
            tree.action_collapse_all()
            tree.action_scroll_home()
            await pilot.pause()

            reads = main.tree_preview.reads
            await pilot.press(*(["down"] * HELD_ROWS))
            await pilot.pause(0.5)
            figures["preview reads"] = main.tree_preview.reads - reads
    finally:
        await db.close()
    return figures


def spread(values: list[float]) -> str:
    ms = [value * 1000 for value in values]
    return f"{min(ms):7.1f} / {statistics.median(ms):7.1f} / {max(ms):7.1f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    cached = cached_store(args.messages, args.sessions)
    rounds = [asyncio.run(one_round(cached)) for _ in range(args.runs)]
    print(f"{args.sessions:,} sessions, {args.messages:,} messages; min / median / max of {args.runs} rounds")
    for key in ("read", "first paint", "page down", "filter key", "filter worst key", "expand all"):
        print(f"  {key:<18} {spread([r[key] for r in rounds])}")
    print(f"  rows built by expand all: {rounds[0]['rows built']:,}")
    print(f"  preview reads after holding ↓ over {HELD_ROWS} rows: {[r['preview reads'] for r in rounds]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
