"""The event loop keeps running while the core works on a long history (issue 9, item 1).

A real Agent on a real state.db resumes a 20,000-message session and runs a turn that compresses
it, against the loopback fake server, while a ticker task measures the longest pause between its
wake-ups. Before the CPU work moved to worker threads (or slices) the turn held the loop for about a second.
What is measured is the CPU time the event loop's thread spends between two wake-ups of the ticker
(`time.thread_time`), not the wall-clock pause: work run on the loop shows up in full, while waiting
for a busy machine's scheduler or for the GIL (a worker thread running) costs the loop thread no CPU.
So the check means the same on an idle laptop and on a loaded CI machine. The wall-clock figures are
in docs/PERFORMANCE.md (`python -m bench.responsiveness_bench loop`).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from bench.context_bench import agentic_history
from hermes_tui.core import events as ev
from hermes_tui.core.context.tokens import estimate_request_tokens_rough
from hermes_tui.core.turn.api_messages import build_api_messages
from hermes_tui.gc_pacer import GcPacer
from tests.core.helpers import make_agent, openai_choice, wait_until
from tests.fake_llm import FakeLLMServer, Hang, Reply

HISTORY = 20_000
LONGER = 60_000  # for the single steps: at this size each one holds the loop > 100 ms when run inline
MAX_GAP_S = 0.1  # the loop's thread must never work this long at a stretch (measured: ~15-50 ms, see the bench)
SUMMARY = "## Active Task\nUser asked: 'hello again'\n## Goal\nKeep going."


class LoopWatch:
    """A task that wakes every millisecond and records the most CPU the loop's thread used between two
    wake-ups (`longest`: how long the loop was held by work), and the longest wall-clock pause."""

    def __init__(self) -> None:
        self.longest = 0.0
        self.longest_wall = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        last, last_cpu = time.perf_counter(), time.thread_time()
        while True:
            await asyncio.sleep(0.001)
            now, now_cpu = time.perf_counter(), time.thread_time()
            self.longest = max(self.longest, now_cpu - last_cpu)
            self.longest_wall = max(self.longest_wall, now - last)
            last, last_cpu = now, now_cpu

    async def __aenter__(self) -> LoopWatch:
        self._task = asyncio.create_task(self._tick())
        await asyncio.sleep(0.01)
        self.longest = self.longest_wall = 0.0
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        await asyncio.sleep(0.005)  # let the ticker wake once more: it measures the last pause too
        self._task.cancel()


async def _long_session(tmp_path: Path, server: FakeLLMServer):
    """An agent whose previous session holds HISTORY messages, warmed up and back in a new session."""
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    server.enqueue(Reply(text="hi"))
    assert (await agent.run_conversation("hello")).completed  # the SDK client is built and warm
    long_id = agent.session_id
    await db.append_messages(long_id, agentic_history(HISTORY)[1:])
    await agent.new_session()
    return agent, db, log, long_id


async def test_resume_and_a_compressing_turn_on_20k_messages_never_hold_the_loop(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    agent, db, log, long_id = await _long_session(tmp_path, server)
    async with LoopWatch() as watch:
        await agent.resume(long_id)
    assert len(agent.messages) == HISTORY + 1
    assert watch.longest < MAX_GAP_S, f"resume held the event loop {watch.longest * 1000:.0f} ms"

    server.enqueue(Reply(text=SUMMARY), Reply(text="Back on track."))
    async with LoopWatch() as watch:
        result = await agent.run_conversation("hello again")
    assert result.completed and result.final_response == "Back on track."
    assert agent.session_id != long_id, "the 20,000-message history was compressed into a child session"
    assert len(agent.messages) < 1_000
    assert len(log.of(ev.CompressionFinished)) == 1
    assert watch.longest < MAX_GAP_S, f"the turn held the event loop {watch.longest * 1000:.0f} ms"
    await db.close()


async def test_ctrl_c_during_the_compression_of_a_long_history_stops_the_turn_at_once(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    agent, db, log, long_id = await _long_session(tmp_path, server)
    await agent.resume(long_id)
    server.enqueue(Hang(600.0))  # the summary call would never answer anyway
    turn = asyncio.create_task(agent.run_conversation("hello again"))
    await wait_until(lambda: bool(log.of(ev.CompressionStarted)), timeout=10, what="compression to start")
    cancelled_at = time.perf_counter()
    turn.cancel()
    result = await asyncio.wait_for(turn, timeout=10)
    stopped_after = time.perf_counter() - cancelled_at
    assert result.interrupted and not result.completed
    assert agent.session_id == long_id, "an interrupted compression leaves the conversation where it was"
    # at once, not when the summary answers (how fast: bench/responsiveness_bench.py, not a test on a loaded machine)
    assert stopped_after < 10, f"the turn took {stopped_after * 1000:.0f} ms to stop after Ctrl-C"
    await db.close()


async def test_the_request_copy_of_a_long_history_never_holds_the_loop(tmp_path: Path) -> None:
    """The call site builds the API copy a slice at a time: same messages as building it in one go.

    The copy is built on the loop's thread now, so a full garbage collection its allocations set
    off would land there too (240 ms with the whole test suite's objects alive). The TUI holds
    those for a pause in typing (`GcPacer.hold`, from mount): so does this test.
    """
    from hermes_tui.core.turn.calls import build_request
    from hermes_tui.core.turn.state import TurnState

    agent, db, _ = await make_agent(tmp_path)
    history = agentic_history(LONGER)[1:]
    state = TurnState(user_message="next")
    state.messages = history
    deps = agent._turn_deps()
    pacer = GcPacer()
    pacer.hold()
    try:
        async with LoopWatch() as watch:
            request = await build_request(state, deps)
    finally:
        pacer.stop()
    assert request.messages == build_api_messages(history, deps.session.system_prompt)
    assert watch.longest < MAX_GAP_S, f"building the request held the loop {watch.longest * 1000:.0f} ms"
    await db.close()


async def test_measuring_a_long_history_in_a_worker_gives_the_same_estimate(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path)
    history = agentic_history(LONGER)
    async with LoopWatch() as watch:
        await agent.meter.prepare(history)
    assert watch.longest < MAX_GAP_S
    assert agent.meter.ledger.unmeasured(history) == 0
    expected = estimate_request_tokens_rough(history, agent.session.system_prompt or "", agent.tool_schemas)
    assert agent.meter.estimate(history) == expected
    await db.close()
