"""/background TEXT: a side turn in its own child session, running while the conversation goes on,
reported to the Review log (real Agent, real SDK client against the fake server, real state.db)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from hermes_tui.core import events as ev
from hermes_tui.core.commands import run_command
from hermes_tui.store.models import EDGE_BACKGROUND
from tests.core.helpers import make_agent, openai_choice, wait_until
from tests.fake_llm import FakeLLMServer, Hang, Reply


def _background_entries(log) -> list[ev.ReviewEntry]:
    return [e for e in log.of(ev.ReviewEntry) if e.kind == "background"]


async def test_a_background_turn_runs_beside_the_conversation(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    server.enqueue(Reply(text="main answer"))
    await agent.run_conversation("the main conversation")
    main = agent.session_id

    release = threading.Event()
    rest = Reply(text="\n1. OOM\n2. disk\n3. ssh")
    server.enqueue(Hang(30, first_text="Found 3 errors:", reply=rest, release=release))
    started = await run_command(agent, "/bg analyse the logs")
    assert not started.error and "Background #1 started in session" in started.output
    run = agent.background.runs[0]
    await server.wait_for_requests(2)  # the side turn is streaming (and hangs)
    assert run.running and not _background_entries(log)

    server.enqueue(Reply(text="second main answer"))
    result = await agent.run_conversation("meanwhile, in the main session")  # not blocked by the side turn
    assert result.completed and run.running
    release.set()
    await wait_until(lambda: bool(_background_entries(log)), timeout=10, what="the background report")

    entry = _background_entries(log)[0]
    assert entry.text.startswith(f"✅ Background #1 ({run.session_id}) done: Found 3 errors:")
    assert entry.detail.splitlines() == ["Found 3 errors:", "1. OOM", "2. disk", "3. ssh"]
    side_request = server.requests[1].body["messages"]
    assert [m["role"] for m in side_request] == ["system", "user"]  # it knows only its prompt
    assert side_request[1]["content"] == "analyse the logs"

    row = await db.get_session(run.session_id)
    assert row["parent_session_id"] == main and row["source"] == "background"
    assert row["end_reason"] == "background_done" and row["system_prompt"]
    stored = [(m["role"], m["content"]) for m in await db.get_messages(run.session_id)]
    assert stored[0] == ("user", "analyse the logs") and stored[-1][0] == "assistant"
    node = next(n for n in await db.lineage_tree() if n.id == run.session_id)
    assert node.parent_id == main and node.edge == EDGE_BACKGROUND
    assert await db.get_compression_tip(main) == main  # a side session never continues the chain
    assert "analyse the logs" not in [m.get("content") for m in agent.messages]
    assert agent.session_id == main
    listing = (await run_command(agent, "/background")).output
    assert f"#1 done     {run.session_id}" in listing
    await agent.close()
    await db.close()


async def test_closing_the_agent_stops_a_running_background_turn(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    server.enqueue(Hang(600))
    await run_command(agent, "/background a very long job")
    await server.wait_for_requests(1)
    run = agent.background.runs[0]
    await asyncio.wait_for(agent.close(), 10)
    assert not run.running
    assert _background_entries(log)[0].text.startswith(f"⏹ Background #1 ({run.session_id}) stopped")
    assert (await db.get_session(run.session_id))["parent_session_id"] is None  # the live session had no row
    await db.close()


async def test_background_needs_a_prompt(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path)
    assert "usage: /background TEXT" in (await run_command(agent, "/background")).output
    assert agent.background.runs == []
    await agent.close()
    await db.close()
