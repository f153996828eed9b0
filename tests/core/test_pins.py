"""/pin and /unpin through the real Agent: a pinned message survives /compress verbatim, stays pinned in
the child session (state_meta), is listed by the inspector, and comes back pinned after a resume."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

from hermes_tui.core import events as ev
from hermes_tui.core.commands import run_command
from hermes_tui.core.compression_inspect import inspect_compression
from hermes_tui.core.context.pins import is_pinned
from hermes_tui.core.context_report import turn_positions
from hermes_tui.core.messages import content_text
from tests.core.helpers import make_agent, openai_choice, wait_until
from tests.fake_llm import FakeLLMServer, Hang, Reply

SUMMARY = "## Active Task\nKeep going\n## Goal\nShip it."
PINNED_TEXT = "Question 2: step 2"


async def _seeded(tmp_path: Path, server: FakeLLMServer, turns: int = 8):
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    for index in range(turns):
        server.enqueue(Reply(text=f"Answer {index}: " + "detail " * 300, usage=(1_000, 20, 0, 0)))
        assert (await agent.run_conversation(f"Question {index}: step {index}")).completed
    return agent, db, log


async def test_a_pinned_message_survives_compression_and_stays_pinned(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await _seeded(tmp_path, server)
    pinned = await run_command(agent, "/pin #3")  # turn 3's user message
    assert not pinned.error and "Pinned message #3" in pinned.output, pinned.output
    assert log.of(ev.PinsChanged)[-1].indices == (4,)
    parent = agent.session_id
    parent_row = agent.messages[4]["_db_id"]
    assert json.loads(await db.get_meta(f"pins:{parent}")) == [parent_row]

    preview = (await run_command(agent, "/compress preview")).output
    assert "kept verbatim: the first 3, 1 pinned and the last" in preview, preview
    server.enqueue(Reply(text=SUMMARY))
    assert "Compressed" in (await run_command(agent, "/compress")).output
    child = agent.session_id
    assert child != parent
    kept = [m for m in agent.messages if content_text(m.get("content")) == PINNED_TEXT]
    assert len(kept) == 1 and is_pinned(kept[0])  # verbatim, and still pinned in the child
    summary_at = next(i for i, m in enumerate(agent.messages) if "Ship it." in content_text(m.get("content")))
    assert summary_at < agent.messages.index(kept[0])
    assert json.loads(await db.get_meta(f"pins:{child}")) == [kept[0]["_db_id"]]
    assert log.of(ev.PinsChanged)[-1].session_id == child

    details = await inspect_compression(db, child)
    assert [m.text for m in details.pinned] == [PINNED_TEXT]
    assert PINNED_TEXT not in [m.text for m in details.summarised]
    assert "Question 3: step 3" in [m.text for m in details.summarised]  # its neighbour was summarised
    inspected = await run_command(agent, "/inspect")
    assert "Pinned (kept verbatim after the summary):" in (await _headless(agent, "/inspect"))
    assert not inspected.error
    await agent.close()

    again, _db2, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai), db=db)
    await again.resume(child)
    assert [content_text(again.messages[i]["content"]) for i in again.pins.indices()] == [PINNED_TEXT]
    listed = await run_command(again, "/pin")
    assert "Pinned (1)" in listed.output and PINNED_TEXT in listed.output
    ref = listed.output.splitlines()[1].split()[0]
    unpinned = await run_command(again, f"/unpin {ref}")
    assert "Unpinned" in unpinned.output and again.pins.indices() == []
    assert await db.get_meta(f"pins:{child}") is None
    await again.close()
    await db.close()


async def _headless(agent, text: str) -> str:
    from hermes_tui.headless import headless_command

    return (await headless_command(agent, text)).output


async def test_what_cannot_be_pinned(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _ = await _seeded(tmp_path, server, turns=6)
    server.enqueue(Reply(text=SUMMARY))
    await run_command(agent, "/compress")
    at = next(i for i, m in enumerate(agent.messages) if "Ship it." in content_text(m.get("content")))
    turn, position = turn_positions(agent.messages)[at]
    summary_ref = f"#{turn}.{position}" if position else f"#{turn}"
    refused = await run_command(agent, f"/pin {summary_ref}")
    assert refused.error and "a compaction summary cannot be pinned" in refused.output
    for bad, why in (("/pin #99", "there is no message #99"), ("/pin x", "is not a message reference")):
        outcome = await run_command(agent, bad)
        assert outcome.error and why in outcome.output, outcome.output

    release = threading.Event()
    server.enqueue(Hang(30, release=release))
    turn = asyncio.create_task(agent.run_conversation("a long one"))
    await wait_until(lambda: agent.busy and len(server.requests) >= 1, what="the turn to be running")
    busy = await run_command(agent, "/pin #1")
    assert busy.error and "a turn is running" in busy.output
    release.set()
    await turn
    await agent.close()
    await db.close()


async def test_the_gauge_counts_a_pin_at_once(tmp_path: Path, server: FakeLLMServer) -> None:
    """A pin replaces an old message with a flagged copy; the per-call estimate, which otherwise only
    looks at the newest messages, sees it through the session's history revision."""
    from hermes_tui.core.context.tokens import estimate_request_tokens_rough

    agent, _db, _log = await _seeded(tmp_path, server, turns=12)  # turn 2 is older than the newest 16
    session = agent.session
    before = agent.meter.estimate()
    assert not (await run_command(agent, "/pin #2")).error
    expected = estimate_request_tokens_rough(session.messages, session.system_prompt or "", agent.tool_schemas)
    assert agent.meter.estimate() == expected != before
