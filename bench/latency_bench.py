"""Benchmark (not a test): keystroke-to-screen latency of the TUI in the situations users wait in.

Run with `python -m bench.latency_bench` (see `--help`; `--markdown` prints the table for
docs/PERFORMANCE.md). Budget in every situation: p95 < 50 ms and max < 100 ms.

Loop path (Textual Pilot, headless): the real HermesApp with a real state.db in a temporary home,
talking through the OpenAI SDK to the loopback fake server of the tests (tests/fake_llm.py), run in
a process of its own (as a real provider is: its work never shares the app's interpreter). A key
is sent the way the terminal driver sends one (`Driver.send_message` of a Key event) and timed
until the first frame composed after the prompt holds it (the compositor's update handed to
`App._display`), so the time includes waiting behind whatever the event loop was doing.
Situations:
  idle         nothing running;
  stream       a 200 KB Markdown answer streamed at ~1,000 deltas/s (20-character deltas), with
               the keys split by how long the answer already was (< 10 KB, > 150 KB);
  compress     a turn whose preflight compresses a 20,000-message history (agentic turns as in
               bench/context_bench.py), from Enter to the end of the turn;
  resume-open  opening the TUI on a 10,000-message session (`--resume`), from the first frame
               until the history is on screen (start-up itself is bench/startup.py's);
  resume-send  then sending a prompt in it, from Enter to the end of the turn (the context window
               is set large enough that this turn does not compress: that is `compress`);
  huge         a 5 MB answer (4,000-character deltas): seconds from Enter until it is on screen, then
               keys typed after it; an 11 MB history (11 answers of 1 MB) opened with `--resume`:
               seconds until it is on screen, then keys typed after it.

Beside each situation's latencies: the CPU this process (the app, its threads) spent on the whole
situation, and that per key (the terminal path's app is another process: n/a). `--load N` runs
every situation beside N busy processes (bench/load.py).

Terminal path (tmux, `--tmux`, on by default when tmux exists): the real `hermes-tui` command in a
120x40 tmux pane against the same fake server; a key is sent with `tmux send-keys` and timed until
`tmux capture-pane` shows it (polled every ~4 ms: a capture takes ~2 ms), so each figure also
holds one `send-keys` and up to one capture's delay. Situations: idle and the 200 KB stream.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import shutil
import string
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual import events

from bench.context_bench import agentic_history
from bench.cputime import measure
from bench.load import add_load_argument, describe_load, load_from
from bench.transcript_bench import markdown_text, synthetic_history
from hermes_tui.app import HermesApp
from hermes_tui.config import Home, ProviderChoice, Settings
from hermes_tui.store.db import SessionDB
from tests.fake_llm import FakeLLMServer, Reply

BUDGET_P95_MS = 50.0
BUDGET_MAX_MS = 100.0
STREAM_CHARS = 200_000
STREAM_DELTA_CHARS = 5
STREAM_DELTA_SECONDS = 0.001
COMPRESS_MESSAGES = 20_000
RESUME_MESSAGES = 10_000
HUGE_ANSWER_CHARS = 5_000_000
HUGE_CHUNK_CHARS = 4_000
HUGE_HISTORY_ANSWERS = 11  # of 1 MB each
SUMMARY = "## Active Task\nKeep fixing the failing tests.\n## Goal\nAll tests pass."
TYPED = string.ascii_lowercase
PROMPT_RESET_LENGTH = 30  # the tmux run clears its typing after this many keys
SIZE = (120, 40)
CAPTURE_GAP_S = 0.002  # between captures: one costs ~2 ms and 1.3 ms of CPU; polling flat out would take a core


@dataclass
class Result:
    situation: str
    latencies_ms: list[float] = field(default_factory=list)
    note: str = ""
    load_before: float = 0.0
    load_after: float = 0.0
    cpu_s: float | None = None  # this process's CPU over the whole situation (the app and its threads)

    def add(self, seconds: float) -> None:
        self.latencies_ms.append(seconds * 1000)

    def quantile(self, share: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")

    @property
    def within_budget(self) -> bool:
        return self.quantile(0.95) < BUDGET_P95_MS and max(self.latencies_ms, default=0) < BUDGET_MAX_MS

    def row(self) -> list[str]:
        values = self.latencies_ms
        return [
            self.situation,
            str(len(values)),
            f"{self.quantile(0.5):.0f}",
            f"{self.quantile(0.95):.0f}",
            f"{max(values, default=float('nan')):.0f}",
            "✓" if self.within_budget else "✗",
            f"{self.load_before:.1f}→{self.load_after:.1f}",
            "n/a" if self.cpu_s is None else f"{self.cpu_s:.2f}",
            "n/a" if self.cpu_s is None or not values else f"{self.cpu_s * 1000 / len(values):.1f}",
            self.note,
        ]


HEADER = ["situation", "keys", "p50 ms", "p95 ms", "max ms", "budget", "load", "CPU s", "CPU/key ms", "note"]


def gc_note(app: HermesApp) -> str:
    pacer = app.gc_pacer
    return f"{pacer.collections} paced full GCs, longest {pacer.longest_s * 1000:.0f} ms"


def load_average() -> float:
    return os.getloadavg()[0]


# --------------------------------------------------------------------------- the fake server process


def reply_step(spec: dict[str, Any]) -> Reply:
    text = markdown_text(spec["markdown"]) if "markdown" in spec else spec.get("text", "")
    return Reply(text=text, chunk_size=spec.get("chunk_size", 4), delay_per_chunk=spec.get("delay_per_chunk", 0.0))


def serve() -> int:
    """The child process: a FakeLLMServer scripted by JSON lines on stdin (`enqueue`, `requests`)."""
    with FakeLLMServer() as server:
        print(server.base_url_openai, flush=True)
        for line in sys.stdin:
            command = json.loads(line)
            if "enqueue" in command:
                server.enqueue(*(reply_step(spec) for spec in command["enqueue"]))
            print(json.dumps({"requests": len(server.requests)}), flush=True)
    return 0


class ServerProcess:
    """The fake LLM server in a child process, scripted over a pipe."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "bench.latency_bench", "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        self.base_url_openai = self._process.stdout.readline().strip()

    def _ask(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(command) + "\n")
        self._process.stdin.flush()
        return json.loads(self._process.stdout.readline())

    def enqueue(self, *replies: dict[str, Any]) -> None:
        self._ask({"enqueue": list(replies)})

    @property
    def request_count(self) -> int:
        return int(self._ask({})["requests"])

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=10)

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def stream_reply() -> dict[str, Any]:
    return {"markdown": STREAM_CHARS, "chunk_size": STREAM_DELTA_CHARS, "delay_per_chunk": STREAM_DELTA_SECONDS}


# --------------------------------------------------------------------------- loop path (Pilot)


class Typist:
    """A user typing into the prompt from outside the event loop; each key timed until a frame shows it.

    Keys are sent from a thread of their own, as the terminal driver's input thread sends them, so
    a key pressed while the event loop is busy waits for it — and that wait is measured.
    """

    def __init__(self, app: HermesApp) -> None:
        self.app = app
        self._target = 0  # the prompt length that shows the key in flight
        self._shown = threading.Event()
        self._shown_at = 0.0
        self._chars = 0
        self.last_key = (0.0, 0.0)  # (sent, shown) on perf_counter: the last key's wait, as it happened
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            target = self._target
            if renderable is not None and target and not self._shown.is_set() and len(app.main.prompt.value) >= target:
                self._shown_at = time.perf_counter()
                self._shown.set()
            original(screen, renderable)

        app._display = display  # type: ignore[method-assign]

    def _type(
        self,
        base: int,
        stop: threading.Event,
        result: Result,
        gap: tuple[float, float],
        on_key: Callable[[float], None],
    ) -> None:
        driver = self.app._driver
        assert driver is not None
        typed = 0
        while not stop.wait(random.uniform(*gap)):
            char = TYPED[self._chars % len(TYPED)]
            self._chars += 1
            typed += 1
            self._shown.clear()
            self._target = base + typed
            started = time.perf_counter()
            driver.send_message(events.Key(char, char))
            if not self._shown.wait(60):
                raise TimeoutError("a key never reached the screen")
            self.last_key = (started, self._shown_at)
            result.add(self._shown_at - started)
            on_key(self._shown_at - started)
        self._target = 0

    async def type_while(
        self,
        result: Result,
        until: Callable[[], bool],
        *,
        gap: tuple[float, float] = (0.02, 0.06),
        on_key: Callable[[float], None] = lambda _latency: None,
    ) -> None:
        """Type keys at random gaps (wall clock) until `until()` is true."""
        stop = threading.Event()
        base = len(self.app.main.prompt.value)
        thread = threading.Thread(target=self._type, args=(base, stop, result, gap, on_key), daemon=True)
        thread.start()
        while not until():
            await asyncio.sleep(0.01)
        stop.set()
        await asyncio.to_thread(thread.join)

    def send_key(self, key: str, char: str | None = None) -> None:
        driver = self.app._driver
        assert driver is not None
        driver.send_message(events.Key(key, char))


def make_app(home: Home, server: ServerProcess, *, resume: str | None = None, context_length: int = 0) -> HermesApp:
    settings = Settings()
    settings.model.context_length = context_length
    choice = ProviderChoice("openai", "gpt-4o-mini", "k", server.base_url_openai, False)
    return HermesApp(home=home, settings=settings, choice=choice, resume=resume, cwd=home.root)


async def wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


async def wait_started(app: HermesApp, timeout: float = 60) -> None:
    """Until start-up is over: the agent ready, the SDK imported (a user takes longer to type a prompt)."""
    await asyncio.wait_for(app.ready.wait(), timeout)
    await wait_for(lambda: app.gc_pacer.started, timeout, "the end of start-up")


async def submit(app: HermesApp, probe: Typist, text: str) -> None:
    """Type a prompt (set directly) and press Enter through the driver; returns once the turn started."""
    before = app.turns.turn_runs
    app.main.prompt.value = text
    probe.send_key("enter")
    await wait_for(lambda: app.turns.turn_runs > before, 10, "the turn to start")


async def store_session(home: Home, session_id: str, messages: list[dict[str, Any]]) -> None:
    db = await SessionDB.open(home.state_db)
    try:
        await db.create_session(session_id, "tui", model="gpt-4o-mini", title=session_id)
        for start in range(0, len(messages), 1_000):
            await db.append_messages(session_id, messages[start : start + 1_000])
    finally:
        await db.close()


async def situation_idle(root: Path, server: ServerProcess, keys: int) -> Result:
    result = Result("idle")
    app = make_app(Home(root / "idle").ensure(), server)
    async with app.run_test(size=SIZE):
        await wait_started(app)
        typist = Typist(app)
        result.load_before = load_average()
        await typist.type_while(result, lambda: len(result.latencies_ms) >= keys)
        result.load_after = load_average()
    return result


async def situation_stream(root: Path, server: ServerProcess) -> list[Result]:
    size = f"{STREAM_CHARS // 1000} KB"
    whole = Result(f"stream {size} at 1,000 deltas/s")
    early, late = (
        Result(f"stream {size}, answer < 10 KB"),
        Result(f"stream {size}, answer > {STREAM_CHARS * 3 // 4000} KB"),
    )
    server.enqueue(stream_reply())
    app = make_app(Home(root / "stream").ensure(), server)
    async with app.run_test(size=SIZE):
        await wait_started(app)
        typist = Typist(app)
        convo = app.main.conversation

        def classify(latency: float) -> None:
            shown = len(convo.items[-1].text) if convo.items else 0
            if shown < 10_000:
                early.add(latency)
            elif shown > STREAM_CHARS * 3 // 4:
                late.add(latency)

        whole.load_before = load_average()
        await submit(app, typist, "Write the long report")
        started = time.perf_counter()
        await typist.type_while(whole, lambda: not app.turns.turn_running, on_key=classify)
        elapsed = time.perf_counter() - started
        whole.load_after = early.load_after = late.load_after = load_average()
        early.load_before = late.load_before = whole.load_before
        deltas = STREAM_CHARS // STREAM_DELTA_CHARS
        whole.note = (
            f"{deltas:,} deltas in {elapsed:.1f} s ({deltas / elapsed:,.0f}/s), {convo.flush_count} flushes; "
            f"{gc_note(app)}"
        )
    return [whole, early, late]


async def rows_on_screen(app: HermesApp) -> None:
    """Until the last answer's Markdown is mounted and painted once more."""
    from hermes_tui.widgets.transcript_rows import AssistantMessage

    def drawn() -> bool:
        rows = list(app.main.conversation.query(AssistantMessage))
        views = [view for row in rows for view in row.query(".assistant-markdown")]
        return bool(rows and views and all(view.is_mounted for view in views))

    await wait_for(drawn, 60, "the answer on screen")
    done = asyncio.Event()
    app.call_after_refresh(done.set)
    await done.wait()


async def situation_huge(root: Path, server: ServerProcess, keys: int) -> list[Result]:
    """A 5 MB answer arriving, then typing; an 11 MB history opening, then typing."""
    answer = Result(f"after a {HUGE_ANSWER_CHARS // 1_000_000} MB answer")
    history_result = Result(f"after opening an {HUGE_HISTORY_ANSWERS} MB history")
    server.enqueue({"markdown": HUGE_ANSWER_CHARS, "chunk_size": HUGE_CHUNK_CHARS})
    app = make_app(Home(root / "huge").ensure(), server)
    async with app.run_test(size=SIZE):
        await wait_started(app)
        typist = Typist(app)
        started = time.perf_counter()
        await submit(app, typist, "Print the whole log")
        await wait_for(lambda: not app.turns.turn_running, 120, "the answer")
        await rows_on_screen(app)
        shown = time.perf_counter() - started
        answer.load_before = load_average()
        await typist.type_while(answer, lambda: len(answer.latencies_ms) >= keys)
        answer.load_after = load_average()
        answer.note = f"answer on screen {shown:.2f} s after Enter ({HUGE_CHUNK_CHARS:,}-character deltas)"
    home = Home(root / "huge-history").ensure()
    one_mb = markdown_text(1_000_000)
    messages: list[dict[str, Any]] = []
    for index in range(HUGE_HISTORY_ANSWERS):
        messages += [{"role": "user", "content": f"question {index}"}, {"role": "assistant", "content": one_mb}]
    await store_session(home, "huge-history", messages)
    app = make_app(home, server, resume="huge-history", context_length=4_000_000)
    started = time.perf_counter()
    async with app.run_test(size=SIZE):
        await wait_for(lambda: app.ready.is_set() and len(app.main.conversation.items) > 0, 60, "the history")
        await rows_on_screen(app)
        opened = time.perf_counter() - started
        await wait_started(app)
        typist = Typist(app)
        history_result.load_before = load_average()
        await typist.type_while(history_result, lambda: len(history_result.latencies_ms) >= keys)
        history_result.load_after = load_average()
        history_result.note = f"history on screen {opened:.2f} s after the app started (first frame included)"
    return [answer, history_result]


async def situation_compress(root: Path, server: ServerProcess, rounds: int) -> Result:
    result = Result(f"turn compressing {COMPRESS_MESSAGES:,} messages")
    history = agentic_history(COMPRESS_MESSAGES + 1)[1:]
    notes = []
    for round_index in range(rounds):
        home = Home(root / f"compress-{round_index}").ensure()
        await store_session(home, "big-history", history)
        server.enqueue({"text": SUMMARY}, {"text": SUMMARY}, {"text": "Done: all tests pass now."})
        app = make_app(home, server, resume="big-history")
        async with app.run_test(size=SIZE):
            await wait_started(app)
            await wait_for(lambda app=app: len(app.main.conversation.items) > 0, 30, "the history")
            typist = Typist(app)
            await asyncio.sleep(0.5)
            result.load_before = result.load_before or load_average()
            started = time.perf_counter()
            await submit(app, typist, "Fix the remaining failures")
            await typist.type_while(result, lambda app=app: not app.turns.turn_running)
            compressed = app.agent is not None and app.agent.session_id != "big-history"
            notes.append(f"{time.perf_counter() - started:.1f} s{'' if compressed else ' (NOT compressed)'}")
    result.load_after = load_average()
    result.note = f"{rounds} turns: {', '.join(notes)}"
    return result


async def situation_resume(root: Path, server: ServerProcess, rounds: int) -> list[Result]:
    opening = Result(f"open a {RESUME_MESSAGES:,}-message session (--resume)")
    sending = Result(f"send in the resumed {RESUME_MESSAGES:,}-message session")
    history = synthetic_history(RESUME_MESSAGES)
    opened, turns = [], []
    opening.load_before = load_average()
    for round_index in range(rounds):
        home = Home(root / f"resume-{round_index}").ensure()
        await store_session(home, "long-session", history)
        server.enqueue({"text": "Here is the answer to your question."})
        app = make_app(home, server, resume="long-session", context_length=4_000_000)
        async with app.run_test(size=SIZE):
            await wait_for(lambda app=app: app.main.prompt.region.area > 0, 30, "the first frame")
            typist = Typist(app)
            started = time.perf_counter()
            await typist.type_while(
                opening, lambda app=app: app.ready.is_set() and len(app.main.conversation.items) > 0
            )
            opened.append(time.perf_counter() - started)
            await wait_started(app)
            await asyncio.sleep(0.5)
            sending.load_before = sending.load_before or load_average()
            started = time.perf_counter()
            await submit(app, typist, "What changed in module 3?")
            await typist.type_while(sending, lambda app=app: not app.turns.turn_running)
            turns.append(time.perf_counter() - started)
    opening.load_after = sending.load_after = load_average()
    opening.note = "history on screen after " + ", ".join(f"{seconds:.2f}" for seconds in opened) + " s"
    sending.note = "turns of " + ", ".join(f"{seconds:.2f}" for seconds in turns) + " s"
    return [opening, sending]


# --------------------------------------------------------------------------- terminal path (tmux)


class TmuxPane:
    """The real `hermes-tui` in a detached tmux session."""

    def __init__(self, home: Path, server: ServerProcess) -> None:
        self.name = f"hermes-latency-{os.getpid()}"
        env = {
            "HERMES_TUI_HOME": str(home),
            "HERMES_TUI_PROVIDER": "openai",
            "HERMES_TUI_MODEL": "gpt-4o-mini",
            "HERMES_TUI_BASE_URL": server.base_url_openai,
            "OPENAI_API_KEY": "k",
            "TERM": "xterm-256color",
        }
        command = " ".join(
            [*(f"{key}={value}" for key, value in env.items()), str(Path(sys.executable).parent / "hermes-tui")]
        )
        width, height = SIZE
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), f"env {command}"],
            check=True,
        )

    def capture(self) -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name], check=True, capture_output=True, text=True
        ).stdout

    def send(self, *keys: str, literal: bool = False) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *(["-l"] if literal else []), *keys], check=True)

    def wait_for(self, predicate: Callable[[str], bool], timeout: float) -> float:
        """Poll the pane until `predicate(text)`; returns when it first held (perf_counter)."""
        deadline = time.perf_counter() + timeout
        while True:
            text = self.capture()
            now = time.perf_counter()
            if predicate(text):
                return now
            if now > deadline:
                raise TimeoutError("the pane never showed what was expected")
            time.sleep(CAPTURE_GAP_S)

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], check=False, capture_output=True)


class TmuxTyping:
    """Keystrokes into the pane's prompt, each timed until the pane shows it."""

    MARK = "zq"

    def __init__(self, pane: TmuxPane) -> None:
        self.pane = pane
        self.typed = ""
        self._chars = 0

    def _restart(self) -> None:
        if self.typed:
            self.pane.send("C-u")
            self.pane.wait_for(lambda text: self.MARK + self.typed not in text, 30)
        self.typed = ""
        self.pane.send(self.MARK, literal=True)
        self.pane.wait_for(lambda text: self.MARK in text, 30)

    def press(self) -> float:
        if not self.typed or len(self.typed) >= PROMPT_RESET_LENGTH:
            self._restart()
        char = TYPED[self._chars % len(TYPED)]
        self._chars += 1
        expected = self.MARK + self.typed + char
        started = time.perf_counter()
        self.pane.send(char, literal=True)
        shown = self.pane.wait_for(lambda text: expected in text, 30)
        self.typed += char
        return shown - started

    def clear(self) -> None:
        if self.typed:
            self.pane.send("C-u")
            self.pane.wait_for(lambda text: self.MARK + self.typed not in text, 30)
            self.typed = ""


def tmux_situations(root: Path, server: ServerProcess, keys: int) -> list[Result]:
    idle, stream = Result("tmux: idle"), Result("tmux: stream 200 KB at 1,000 deltas/s")
    pane = TmuxPane(root / "tmux-home", server)
    try:
        pane.wait_for(lambda text: "Ask anything" in text, 60)
        time.sleep(2.0)  # the start-up worker opens the database and imports the SDK
        typing = TmuxTyping(pane)
        idle.load_before = load_average()
        for _ in range(keys):
            time.sleep(random.uniform(0.02, 0.06))
            idle.add(typing.press())
        idle.load_after = load_average()
        typing.clear()
        server.enqueue(stream_reply())
        requests = server.request_count
        stream.load_before = load_average()
        pane.send("Write the long report", literal=True)
        pane.send("Enter")
        pane.wait_for(lambda _text: server.request_count > requests, 30)
        started = time.perf_counter()
        expected_seconds = STREAM_CHARS / STREAM_DELTA_CHARS * STREAM_DELTA_SECONDS
        while time.perf_counter() - started < expected_seconds:
            time.sleep(random.uniform(0.02, 0.06))
            stream.add(typing.press())
        stream.load_after = load_average()
        stream.note = f"keys during the first {expected_seconds:.0f} s of the stream"
        pane.send("C-q")
    finally:
        pane.close()
    return [idle, stream]


# --------------------------------------------------------------------------- report


def print_table(results: list[Result], markdown: bool) -> None:
    rows = [HEADER, *(result.row() for result in results)]
    if markdown:
        print("| " + " | ".join(HEADER) + " |")
        print("|" + "|".join("---" for _ in HEADER) + "|")
        for row in rows[1:]:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))


async def run_loop(
    root: Path, server: ServerProcess, situations: list[str], keys: int, rounds: int, resume_rounds: int
) -> list[Result]:
    results: list[Result] = []
    runs: list[tuple[str, Callable[[], Any]]] = [
        ("idle", lambda: situation_idle(root, server, keys)),
        ("stream", lambda: situation_stream(root, server)),
        ("huge", lambda: situation_huge(root, server, keys)),
        ("compress", lambda: situation_compress(root, server, rounds)),
        ("resume", lambda: situation_resume(root, server, resume_rounds)),
    ]
    for name, run in runs:
        if name not in situations:
            continue
        with measure() as spent:  # the CPU a situation took, beside its latencies
            outcome = await run()
        produced = outcome if isinstance(outcome, list) else [outcome]
        for result in produced:
            result.cpu_s = spent.cpu / len(produced)  # a situation's parts share its CPU evenly
        results.extend(produced)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--situations", default="idle,stream,huge,compress,resume", help="comma-separated")
    parser.add_argument("--keys", type=int, default=100, help="keys pressed in the idle situations")
    parser.add_argument("--rounds", type=int, default=3, help="turns in the compress situation")
    parser.add_argument(
        "--resume-rounds",
        type=int,
        default=10,
        help="sessions opened (and a turn sent in each) in the resume situations: each gives only 2-4 keys,"
        " and a p95 needs a few dozen",
    )
    parser.add_argument("--no-tmux", action="store_true", help="skip the terminal run")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--json", action="store_true", help="also print every latency as JSON")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)  # the fake server's process
    add_load_argument(parser)
    args = parser.parse_args(argv)
    if args.serve:
        return serve()
    situations = [name.strip() for name in args.situations.split(",") if name.strip()]
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load average {' '.join(f'{value:.2f}' for value in os.getloadavg())}",
        flush=True,
    )
    random.seed(7)
    with (
        load_from(args),
        tempfile.TemporaryDirectory(prefix="latency-bench-") as folder,
        ServerProcess() as server,
    ):
        print(describe_load(args.load), flush=True)
        root = Path(folder)
        results = asyncio.run(run_loop(root, server, situations, args.keys, args.rounds, args.resume_rounds))
        if not args.no_tmux and shutil.which("tmux"):
            results.extend(tmux_situations(root, server, args.keys))
        print(describe_load(args.load))
    print_table(results, args.markdown)
    if args.json:
        print(json.dumps({result.situation: [round(v, 2) for v in result.latencies_ms] for result in results}))
    return 0 if all(result.within_budget for result in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
