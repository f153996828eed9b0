"""Steering a running agent through the real Agent and the fake server: /steer, /queue, /stop, /status.

A shell command's approval prompt holds a tool call open (the test's approver waits on an event),
so the commands arrive while the turn really is running, as they would from the TUI.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from hermes_tui.core import events as ev
from hermes_tui.core.commands import run_command, runs_while_busy
from hermes_tui.core.turn.steering import STOPPED_TOOL_RESULT
from tests.core.helpers import make_agent, openai_choice, rows, wait_until
from tests.fake_llm import FakeLLMServer, Hang, Reply


class HeldApproval:
    """An approver that holds each shell command until the test releases it (then allows it)."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.release = asyncio.Event()
        self.count = 0

    async def __call__(self, request) -> bool:
        self.count += 1
        self.asked.set()
        await self.release.wait()
        return True


def shell(call_id: str, command: str) -> tuple[str, str, str]:
    return (call_id, "terminal", json.dumps({"command": command}))


def tool_messages(body) -> list[dict]:
    return [m for m in body["messages"] if m.get("role") == "tool"]


async def test_steer_is_delivered_with_the_next_tool_result_and_stored(tmp_path: Path, server: FakeLLMServer) -> None:
    held = HeldApproval()
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), approver=held)
    server.enqueue(Reply(tool_calls=[shell("c1", "echo hi")]), Reply(text="Using the staging database."))
    turn = asyncio.ensure_future(agent.run_conversation("check the db"))
    await asyncio.wait_for(held.asked.wait(), 10)

    assert runs_while_busy("/steer x") and agent.busy
    outcome = await run_command(agent, "/steer use the staging database")
    assert outcome.output.startswith("⇢ Steer noted") and agent.steering.pending_steers == ("use the staging database",)
    held.release.set()
    result = await asyncio.wait_for(turn, 10)

    assert result.completed and result.final_response == "Using the staging database."
    delivered = tool_messages(server.requests[-1].body)[-1]["content"]
    assert delivered.endswith("\n\nUser guidance: use the staging database")
    stored = [r for r in await rows(db, agent.session_id) if r["role"] == "tool"]
    assert stored[-1]["content"].endswith("User guidance: use the staging database")
    assert agent.steering.pending_steers == ()
    assert any(e.text.startswith("Steer delivered") for e in log.of(ev.ReviewEntry))
    assert log.of(ev.QueueChanged)[0].steers == ("use the staging database",)
    await db.close()


async def test_a_steer_that_finds_no_tool_call_becomes_the_next_message(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    server.enqueue(Hang(seconds=0.5, first_text="Thinking", reply=Reply(text=" it over.")))
    turn = asyncio.ensure_future(agent.run_conversation("plan it"))
    await wait_until(lambda: bool(log.of(ev.TextDelta)), 10, "the first delta")
    await run_command(agent, "/steer keep it short")
    result = await asyncio.wait_for(turn, 10)
    assert result.completed and agent.steering.queued == ("keep it short",)
    assert await agent.next_turn(result) == "keep it short"
    assert agent.steering.queued == ()
    await db.close()


async def test_stop_finishes_the_running_tool_call_and_runs_nothing_after_it(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    held = HeldApproval()
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), approver=held)
    server.enqueue(Reply(tool_calls=[shell("c1", "echo one"), shell("c2", "echo two")]))
    turn = asyncio.ensure_future(agent.run_conversation("run both"))
    await asyncio.wait_for(held.asked.wait(), 10)
    assert (await run_command(agent, "/stop")).output.startswith("⏹ Stopping after the current tool call")
    held.release.set()
    result = await asyncio.wait_for(turn, 10)

    assert result.exit_reason == "stopped" and not result.completed and not result.interrupted
    assert held.count == 1 and [e.call_id for e in log.of(ev.ToolCallStarted)] == ["c1"]
    assert len(server.requests) == 1  # no model call after the stop
    results = {m["tool_call_id"]: m["content"] for m in agent.messages if m["role"] == "tool"}
    assert "one" in results["c1"] and results["c2"] == STOPPED_TOOL_RESULT
    assert log.of(ev.TurnFinished)[-1].exit_reason == "stopped"
    assert await agent.next_turn(result) is None
    # The next turn runs normally: a stop belongs to the turn it was given in.
    server.enqueue(Reply(text="Back again."))
    again = await agent.run_conversation("go on")
    assert again.completed and again.final_response == "Back again." and len(server.requests) == 2
    assert (await run_command(agent, "/stop")).output == "Nothing is running."
    await db.close()


async def test_queue_waits_for_the_turn_and_is_editable(tmp_path: Path, server: FakeLLMServer) -> None:
    held = HeldApproval()
    agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai), approver=held)
    server.enqueue(Reply(tool_calls=[shell("c1", "echo hi")]), Reply(text="First done."))
    turn = asyncio.ensure_future(agent.run_conversation("first"))
    await asyncio.wait_for(held.asked.wait(), 10)
    for text in ("/queue second", "/queue third", "/queue fourth"):
        assert (await run_command(agent, text)).output.startswith("Queued as #")
    listing = (await run_command(agent, "/queue")).output
    assert "1. second" in listing and "3. fourth" in listing
    assert (await run_command(agent, "/queue drop 2")).output == "Dropped “third” from the queue."
    edited = await run_command(agent, "/queue edit 2")
    assert edited.prefill == "fourth" and agent.steering.queued == ("second",)
    assert (await run_command(agent, "/queue drop 9")).error
    status = (await run_command(agent, "/status")).output
    assert "Turn: running" in status and "Queue: 1 message(s)" in status
    held.release.set()
    result = await asyncio.wait_for(turn, 10)

    assert await agent.next_turn(result) == "second"  # sent when the turn ends, one per turn
    assert await agent.next_turn(result) is None
    assert (await run_command(agent, "/queue now please")).send == "now please"  # idle: sent at once
    await run_command(agent, "/queue clear")
    assert agent.steering.queued == ()
    await db.close()


async def test_status_names_session_model_context_queue_and_goal(tmp_path: Path) -> None:
    agent, db, _log = await make_agent(tmp_path)
    await agent.run_conversation("hello")
    await run_command(agent, "/title status check")
    status = (await run_command(agent, "/status")).output
    assert f"Session {agent.session_id} “status check”" in status
    assert "Model demo:demo" in status and "Turn: idle" in status and "Goal: none" in status
    cleared = await run_command(agent, "/clear")
    assert cleared.clear_conversation and len(agent.messages) == 2  # the pane, never the session
    await db.close()
