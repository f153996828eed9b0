"""Benchmark (not a test): open a 10,000-message session on the MainScreen, then stream 1,000 deltas/s.

Run with `python -m bench.transcript_bench`. Prints the time to the first paint and until the
transcript settled, then the flush rate and event-loop stalls while streaming (a stall bounds how
late a keypress can be handled). Then a 200 KB answer streamed at 1,000 deltas/s (5 characters
each): how long the screen updates take by how long the answer already was — the cost of a frame
must not grow with it — and the full garbage collections meanwhile. Then a 5 MB answer arriving
at once, and an 11 MB history opening: how long until each is on screen.
(Keystroke-to-screen latency through the whole app is bench/latency_bench.py.)
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.screen import Screen

from hermes_tui.app import GC_TICK_S
from hermes_tui.gc_pacer import GcPacer
from hermes_tui.screens.main import STYLES_PATH, MainScreen
from hermes_tui.widgets.textual_workarounds import release_removed_widget_lines
from hermes_tui.widgets.transcript_rows import AssistantMessage

MESSAGES = 10_000
DELTAS_PER_SECOND = 1_000
STREAM_SECONDS = 2.0


def synthetic_history(count: int) -> list[dict[str, Any]]:
    """Turns of: a question, a tool call, its result, a Markdown answer with a list."""
    messages: list[dict[str, Any]] = []
    turn = 0
    while len(messages) < count:
        call = {"id": f"c{turn}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
        call["function"]["arguments"] = json.dumps({"path": f"src/m{turn}.py"})
        messages += [
            {"role": "user", "content": f"Question {turn}: how does module {turn} work?"},
            {"role": "assistant", "content": f"Let me look at **module {turn}**.", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{turn}", "content": "def f():\n    return 1\n" * 5},
            {"role": "assistant", "content": f"Module {turn} defines `f`, which returns 1.\n\n- one\n- two"},
        ]
        turn += 1
    return messages[:count]


class BenchApp(App[None]):
    """The main screen alone, with the garbage collection paced as HermesApp paces it."""

    CSS_PATH = STYLES_PATH

    def __init__(self) -> None:
        super().__init__()
        self.gc_pacer = GcPacer(release=release_removed_widget_lines)

    def get_default_screen(self) -> MainScreen:
        return MainScreen(provider_label="demo:hermes-demo", is_demo=True)

    def on_mount(self) -> None:
        self.gc_pacer.start()
        self.set_interval(GC_TICK_S, self.gc_pacer.tick)

    def on_unmount(self) -> None:
        self.gc_pacer.stop()


async def run() -> None:
    history = synthetic_history(MESSAGES)
    app = BenchApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        view = screen.conversation
        started = time.perf_counter()
        loading = view.load_history(history)
        while not view.mounted_rows:  # the newest rows come first, the earlier ones a few per frame
            await asyncio.sleep(0.001)
        painted = asyncio.Event()
        app.call_after_refresh(painted.set)
        await painted.wait()
        first_paint = time.perf_counter() - started
        await loading
        await pilot.pause()
        settled = time.perf_counter() - started
        print(
            f"open {MESSAGES:,} messages: first paint {first_paint:.2f} s, settled {settled:.2f} s, "
            f"{len(view.mounted_rows)} rows mounted of {len(view.items):,} items"
        )

        stalls: list[float] = []

        async def probe() -> None:
            while True:
                tick = time.perf_counter()
                await asyncio.sleep(0.005)
                stalls.append(time.perf_counter() - tick - 0.005)

        probe_task = asyncio.create_task(probe())
        view.begin_assistant()
        started = time.perf_counter()
        sent = 0
        while (elapsed := time.perf_counter() - started) < STREAM_SECONDS:
            while sent < int(elapsed * DELTAS_PER_SECOND):
                view.append_text(f"w{sent} " + ("\n\n" if sent % 60 == 59 else ""))
                sent += 1
            await asyncio.sleep(0.002)
        await view.end_assistant()
        elapsed = time.perf_counter() - started
        probe_task.cancel()
        stalls.sort()
        print(
            f"stream {sent:,} deltas in {elapsed:.2f} s: {view.flush_count} flushes "
            f"({view.flush_count / elapsed:.0f}/s); loop stall p50 {statistics.median(stalls) * 1000:.0f} ms, "
            f"p95 {stalls[int(len(stalls) * 0.95)] * 1000:.0f} ms, max {stalls[-1] * 1000:.0f} ms"
        )


LENGTH_BUCKETS = ((0, 10_000), (10_000, 75_000), (75_000, 200_001))
LONG_STREAM_CHARS = 200_000
LONG_DELTA_CHARS = 5
HUGE_ANSWER_CHARS = 5_000_000
HUGE_HISTORY_ANSWERS = 11  # of 1 MB each


def markdown_text(size: int) -> str:
    """Prose, fenced code and lists, like a long answer (bench.latency_bench streams it too)."""
    parts: list[str] = []
    length = index = 0
    while length < size:
        if index % 7 == 3:
            block = (
                "```python\n" + "".join(f"def step_{index}_{k}(v):\n    return v * {k}\n" for k in range(8)) + "```\n\n"
            )
        elif index % 7 == 5:
            block = "".join(f"- point {index}.{k} with **weight** and `code`\n" for k in range(5)) + "\n"
        else:
            block = f"Paragraph {index}: " + "the quick brown fox jumps over the lazy dog, again. " * 7 + "\n\n"
        parts.append(block)
        length += len(block)
        index += 1
    return "".join(parts)[:size]


class FrameTimer:
    """Times every screen update (layout and paint) and every full garbage collection."""

    def __init__(self, length: Callable[[], int]) -> None:
        self.frames: list[tuple[int, float]] = []  # (answer length, seconds)
        self.full_collections: list[float] = []
        self._length = length
        self._original = Screen._on_timer_update
        self._gc_started = 0.0

    def __enter__(self) -> FrameTimer:
        original, frames, length = self._original, self.frames, self._length

        def timed(screen: Screen[Any]) -> None:
            started = time.perf_counter()
            original(screen)
            frames.append((length(), time.perf_counter() - started))

        Screen._on_timer_update = timed  # type: ignore[method-assign]
        gc.callbacks.append(self._on_gc)
        return self

    def __exit__(self, *exc: object) -> None:
        Screen._on_timer_update = self._original  # type: ignore[method-assign]
        gc.callbacks.remove(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        elif info["generation"] == 2:
            self.full_collections.append(time.perf_counter() - self._gc_started)


def describe(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"p50 {statistics.median(ordered) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max {ordered[-1] * 1000:.0f} ms"


async def stream_long_answer() -> None:
    text = markdown_text(LONG_STREAM_CHARS)
    answer: list[Any] = []
    with FrameTimer(lambda: len(answer[0].text) if answer else 0) as timer:  # before the screen's timer exists
        app = BenchApp()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            view = app.screen.conversation  # type: ignore[attr-defined]
            view.add_user("Write the long report")
            view.begin_assistant()
            answer.append(view.items[-1])
            timer.frames.clear()
            timer.full_collections.clear()
            started = time.perf_counter()
            sent = 0
            while sent < len(text):
                due = min(len(text), int((time.perf_counter() - started) * DELTAS_PER_SECOND) * LONG_DELTA_CHARS)
                while sent < due:
                    view.append_text(text[sent : sent + LONG_DELTA_CHARS])
                    sent += LONG_DELTA_CHARS
                await asyncio.sleep(0.002)
            await view.end_assistant()
            elapsed = time.perf_counter() - started
            paced = app.gc_pacer.collections
        print(
            f"stream {len(text) // 1000} KB in {elapsed:.1f} s ({view.flush_count} flushes); "
            "screen updates by answer length:"
        )
        for low, high in LENGTH_BUCKETS:
            costs = [seconds for length, seconds in timer.frames if low <= length < high]
            print(f"  {low // 1000:>3}-{high // 1000} KB: {len(costs)} updates, {describe(costs)}")
        print(
            f"  full garbage collections: {len(timer.full_collections)} ({paced} paced), "
            f"{describe(timer.full_collections)}"
        )


async def painted(app: App[Any]) -> None:
    done = asyncio.Event()
    app.call_after_refresh(done.set)
    await done.wait()


async def rows_drawn(app: App[Any]) -> None:
    """Until every answer row has its Markdown mounted, then one more paint."""
    while True:
        rows = list(app.screen.query(AssistantMessage))
        views = [view for row in rows for view in row.query(".assistant-markdown")]
        if rows and views and all(view.is_mounted for view in views):
            break
        await asyncio.sleep(0.005)
    await painted(app)


async def huge_content() -> None:
    answer = markdown_text(HUGE_ANSWER_CHARS)
    app = BenchApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        view = app.screen.conversation  # type: ignore[attr-defined]
        started = time.perf_counter()
        view.begin_assistant()
        view.append_text(answer)
        await view.end_assistant()
        await rows_drawn(app)
        print(f"a {len(answer) / 1e6:.0f} MB answer: on screen after {time.perf_counter() - started:.2f} s")
    history: list[dict[str, Any]] = []
    one_mb = markdown_text(1_000_000)
    for index in range(HUGE_HISTORY_ANSWERS):
        history += [{"role": "user", "content": f"question {index}"}, {"role": "assistant", "content": one_mb}]
    app = BenchApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        view = app.screen.conversation  # type: ignore[attr-defined]
        started = time.perf_counter()
        await view.load_history(history)
        await rows_drawn(app)
        size = sum(len(message["content"]) for message in history) / 1e6
        print(
            f"an {size:.0f} MB history: on screen after {time.perf_counter() - started:.2f} s "
            f"({len(view.mounted_rows)} rows mounted of {len(view.items)})"
        )


async def main() -> None:
    await run()
    await stream_long_answer()
    await huge_content()


if __name__ == "__main__":
    asyncio.run(main())
