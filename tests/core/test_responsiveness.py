"""The event loop keeps running while the core works on a long history (issue 9, item 1).

A real Agent on a real state.db resumes a 20,000-message session and runs a turn that compresses
it, against the loopback fake server, while a ticker task measures the longest stretch the loop's
thread worked between its wake-ups. Before the CPU work moved to worker threads (or slices) the
turn held the loop for about a second. The stretch is counted in the loop thread's CPU without
the collector's (tests/loop_watch.py), and the bound is the CPU a one-go request build of the same
20,000 messages takes in the same test, so the check means the same on an idle laptop and on a
loaded CI machine. The wall-clock figures are in docs/PERFORMANCE.md
(`python -m bench.responsiveness_bench loop`).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from bench.context_bench import agentic_history
from hermes_tui.core import events as ev
from hermes_tui.core.context.tokens import estimate_request_tokens_rough
from hermes_tui.core.turn.api_messages import build_api_messages
from tests.core.helpers import make_agent, openai_choice, wait_until
from tests.fake_llm import FakeLLMServer, Hang, Reply
from tests.loop_watch import LoopWatch, one_go_cpu

HISTORY = 20_000
LONGER = 60_000  # for the single steps: at this size each one holds the loop for a long time when run inline
SUMMARY = "## Active Task\nUser asked: 'hello again'\n## Goal\nKeep going."


def yardstick() -> float:
    """The bound every check here states: the CPU that building the request copy of a
    HISTORY-message session in one go takes on this machine now, as every call did before the
    copy was built in slices (measured quiet: ~90-160 ms; the stretches below: ~1-25 ms)."""
    history = agentic_history(HISTORY)
    return one_go_cpu(lambda: build_api_messages(history, "You are a coding agent."))


def held_too_long(watch: LoopWatch, bound: float, what: str) -> str:
    return f"{what} held the event loop {watch.describe()}; building a request in one go takes {bound * 1000:.0f} ms"


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
    bound = yardstick()
    with LoopWatch() as watch:
        await agent.resume(long_id)
    assert len(agent.messages) == HISTORY + 1
    assert watch.longest_held < bound, held_too_long(watch, bound, "resume")

    server.enqueue(Reply(text=SUMMARY), Reply(text="Back on track."))
    with LoopWatch() as watch:
        result = await agent.run_conversation("hello again")
    assert result.completed and result.final_response == "Back on track."
    assert agent.session_id != long_id, "the 20,000-message history was compressed into a child session"
    assert len(agent.messages) < 1_000
    assert len(log.of(ev.CompressionFinished)) == 1
    assert watch.longest_held < bound, held_too_long(watch, bound, "the turn")
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
    """The call site cleans and repairs the API copy a slice at a time: same messages as building it
    in one go. (A collection its allocations set off lands on the loop too; the TUI holds those for
    a pause in typing with `GcPacer.hold`, and the watch leaves the collector's time out.)"""
    from hermes_tui.core.turn.calls import build_request
    from hermes_tui.core.turn.state import TurnState

    agent, db, _ = await make_agent(tmp_path)
    history = agentic_history(LONGER)[1:]
    state = TurnState(user_message="next")
    state.messages = history
    deps = agent._turn_deps()
    bound = yardstick()
    with LoopWatch() as watch:
        request = await build_request(state, deps)
    assert request.messages == build_api_messages(history, deps.session.system_prompt)
    assert watch.longest_held < bound, held_too_long(watch, bound, f"building the request of {LONGER:,} messages")
    await db.close()


async def test_measuring_a_long_history_in_a_worker_gives_the_same_estimate(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path)
    history = agentic_history(LONGER)
    bound = yardstick()
    with LoopWatch() as watch:
        await agent.meter.prepare(history)
    assert watch.longest_held < bound, held_too_long(watch, bound, f"measuring {LONGER:,} messages")
    assert agent.meter.ledger.unmeasured(history) == 0
    expected = estimate_request_tokens_rough(history, agent.session.system_prompt or "", agent.tool_schemas)
    assert agent.meter.estimate(history) == expected
    await db.close()
