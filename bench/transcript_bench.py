"""Benchmark (not a test): open a 10,000-message session on the MainScreen, then stream 1,000 deltas/s.

Run with `python -m bench.transcript_bench`. Prints the time to the first paint and until the
transcript settled, then the flush rate and event-loop stalls while streaming (a stall bounds how
late a keypress can be handled).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from typing import Any

from textual.app import App

from hermes_tui.screens.main import STYLES_PATH, MainScreen

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
    CSS_PATH = STYLES_PATH

    def get_default_screen(self) -> MainScreen:
        return MainScreen(provider_label="demo:hermes-demo", is_demo=True)


async def run() -> None:
    history = synthetic_history(MESSAGES)
    app = BenchApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        view = screen.conversation
        started = time.perf_counter()
        await view.load_history(history)
        painted = asyncio.Event()
        app.call_after_refresh(painted.set)
        await painted.wait()
        first_paint = time.perf_counter() - started
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


if __name__ == "__main__":
    asyncio.run(run())
