"""A compression interrupted by Ctrl-C leaves no lock behind (issue 17 item 8).

A real Agent on a real state.db and the fake server: the summary call hangs, the turn task is
cancelled the way Ctrl-C cancels it (Textual's worker cancels the task on every press, so a second
Ctrl-C can land while the lock is being released), and another connection holds SQLite's write
lock meanwhile so that the release has to wait. Afterwards the lock row is gone, "compression
cancelled" was said, and the next turn compresses. A lock row this process left behind is taken
over; one of another process still blocks.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest

from hermes_tui.core import events as ev
from hermes_tui.core.commands import run_command
from hermes_tui.store.locks import process_holder
from tests.core.helpers import EventLog, make_agent, openai_choice, wait_until
from tests.fake_llm import FakeLLMServer, Hang, Reply

SUMMARY = "## Active Task\nUser asked: 'continue'\n## Goal\nShip the auth refactor.\n## Completed Actions\n1. READ"
DETAIL = " The step reads the config, checks the token, and writes the session." * 30
CANCELLED = "Compression cancelled"
SKIPPED = "Skipping concurrent compression"


async def oversized_agent(tmp_path: Path, server: FakeLLMServer):
    """An agent whose history is far over the compression threshold (75 % of a 128K window): its next turn
    compresses first."""
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    for index in range(12):
        server.enqueue(Reply(text=f"Answer number {index}.{DETAIL}", usage=(1_000, 20, 0, 0)))
        assert (await agent.run_conversation(f"Question {index}: tell me about step {index}")).completed
    for message in agent.messages:
        if message["role"] == "assistant":
            message["content"] += " lorem ipsum dolor" * 2_500
    agent.meter.ledger.reset()
    return agent, db, log


def warnings(log: EventLog, needle: str) -> list[str]:
    return [w.text for w in log.of(ev.Warning) if needle in w.text]


async def next_turn_compresses(agent, server: FakeLLMServer, log: EventLog) -> None:
    before = agent.session_id
    log.clear()
    server.enqueue(Reply(text=SUMMARY), Reply(text="Fresh answer."))
    result = await agent.run_conversation("continue")
    assert result.final_response == "Fresh answer."
    assert [e.reason for e in log.of(ev.CompressionStarted)] == ["preflight"]
    assert agent.session_id != before and not warnings(log, SKIPPED)


async def test_ctrl_c_twice_during_a_preflight_compression_releases_its_lock(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    agent, db, log = await oversized_agent(tmp_path, server)
    session = agent.session_id
    requests = len(server.requests)
    server.enqueue(Hang(120, first_text=""))  # the summary call never answers
    turn = asyncio.ensure_future(agent.run_conversation("continue"))
    await server.wait_for_requests(requests + 1, timeout=30)
    assert await db.compression_lock_holder(session) == process_holder()

    other = sqlite3.connect(db.path, timeout=30, isolation_level=None)  # another program writing state.db
    try:
        other.execute("BEGIN IMMEDIATE")
        turn.cancel()  # Ctrl-C
        await wait_until(lambda: bool(warnings(log, CANCELLED)), timeout=30, what="compression cancelled")
        turn.cancel()  # a second Ctrl-C, while the release waits for the database
        other.execute("COMMIT")
    finally:
        other.close()
    result = await asyncio.wait_for(turn, 60)

    assert result.interrupted and agent.session_id == session
    assert await db.compression_lock_holder(session) is None
    finished = log.of(ev.CompressionFinished)
    assert finished and finished[-1].aborted
    assert "no messages were dropped" in warnings(log, CANCELLED)[0]
    await next_turn_compresses(agent, server, log)
    await db.close()


async def test_ctrl_c_during_a_manual_compress_releases_its_lock(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await oversized_agent(tmp_path, server)
    session = agent.session_id
    requests = len(server.requests)
    server.enqueue(Hang(120, first_text=""))
    command = asyncio.ensure_future(run_command(agent, "/compress"))
    await server.wait_for_requests(requests + 1, timeout=30)
    command.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(command, 60)
    assert await db.compression_lock_holder(session) is None
    assert warnings(log, CANCELLED)
    await next_turn_compresses(agent, server, log)
    await db.close()


def _insert_lock(path: Path, session_id: str, holder: str) -> None:
    now = time.time()
    con = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        con.execute(
            "INSERT INTO compression_locks (session_id, holder, acquired_at, expires_at) VALUES (?, ?, ?, ?)",
            (session_id, holder, now, now + 300),
        )
    finally:
        con.close()


async def test_a_lock_row_this_process_left_behind_is_taken_over(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await oversized_agent(tmp_path, server)
    _insert_lock(db.path, agent.session_id, process_holder())  # a release that could not run
    await next_turn_compresses(agent, server, log)
    await db.close()


async def test_a_lock_row_of_another_process_still_blocks(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await oversized_agent(tmp_path, server)
    session = agent.session_id
    _insert_lock(db.path, session, "pid=1:token=another-process")
    server.enqueue(Reply(text="Answer without compressing."))
    result = await agent.run_conversation("continue")
    assert result.final_response == "Answer without compressing." and agent.session_id == session
    assert warnings(log, SKIPPED)
    await db.close()
