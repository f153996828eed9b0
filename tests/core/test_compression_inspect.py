"""The compression inspector's data: a real compression (fake server, real state.db) read back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hermes_tui.core.commands import run_command
from hermes_tui.core.compression_inspect import (
    InspectError,
    compression_at_or_above,
    inspect_compression,
    reinjection_note,
    summarised_span,
)
from tests.core.helpers import make_agent, openai_choice
from tests.fake_llm import Fail, FakeLLMServer, Reply

SUMMARY = "## Active Task\nUser asked: 'keep going'\n## Goal\nShip the auth refactor."


async def _seeded(tmp_path: Path, server: FakeLLMServer, turns: int = 8):
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    for index in range(turns):
        server.enqueue(Reply(text=f"Answer {index}: " + "detail " * 300, usage=(1_000, 20, 0, 0)))
        assert (await agent.run_conversation(f"Question {index}: step {index}")).completed
    return agent, db, log


async def test_what_a_compression_did_is_read_back(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _ = await _seeded(tmp_path, server)
    parent = agent.session_id
    before = [dict(m) for m in agent.messages]
    server.enqueue(Reply(text=SUMMARY))
    outcome = await run_command(agent, "/compress the login flow")
    assert "Compressed" in outcome.output
    child = agent.session_id

    details = await inspect_compression(db, child)

    assert details.recorded and details.parent_id == parent and details.child_id == child
    assert details.reason == "manual" and details.focus_topic == "the login flow"
    assert details.fallback_used is False and details.summary_error is None
    assert details.tokens_before > details.tokens_after > 0 and 0 < details.saved_percent < 100
    assert details.summary.startswith("## Active Task") and "Ship the auth refactor." in details.summary
    # The summarised messages are the parent's own rows, in order, between the verbatim head and tail.
    texts = [m.text.strip() for m in details.summarised]
    assert texts and all(t in [str(b["content"]).strip() for b in before] for t in texts)
    first, last = details.summarised[0].index, details.summarised[-1].index
    assert [m.index for m in details.summarised] == list(range(first, last + 1))
    kept = [str(m.get("content")).strip() for m in agent.messages]
    assert not any(t in kept for t in texts if t.startswith("Question"))  # none survives verbatim
    assert all(m.message_id is not None for m in details.summarised)
    await agent.close()
    await db.close()


async def test_the_fallback_summary_is_reported(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _ = await _seeded(tmp_path, server)
    server.enqueue(Fail(500, "summary model down"))
    await run_command(agent, "/compress")
    details = await inspect_compression(db, agent.session_id)
    assert details.fallback_used is True and details.summary_error
    await agent.close()
    await db.close()


async def test_without_a_record_the_span_comes_from_the_histories(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _ = await _seeded(tmp_path, server)
    server.enqueue(Reply(text=SUMMARY))
    await run_command(agent, "/compress")
    child = agent.session_id
    recorded = await inspect_compression(db, child)
    con = sqlite3.connect(db.path)  # as Hermes would have left it: no record of ours
    con.execute("DELETE FROM state_meta WHERE key = ?", (f"compression:{child}",))
    con.commit()
    con.close()
    derived = await inspect_compression(db, child)
    assert not derived.recorded and derived.fallback_used is None and derived.reason is None
    assert [m.index for m in derived.summarised] == [m.index for m in recorded.summarised]
    assert derived.summary == recorded.summary
    await agent.close()
    await db.close()


async def test_the_compression_a_branch_carries_and_sessions_without_one(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _ = await _seeded(tmp_path, server)
    root = agent.session_id
    assert await compression_at_or_above(db, root) is None
    with pytest.raises(InspectError):
        await inspect_compression(db, root)
    server.enqueue(Reply(text=SUMMARY))
    await run_command(agent, "/compress")
    child = agent.session_id
    await run_command(agent, "/branch a fork")
    fork = agent.session_id
    assert await compression_at_or_above(db, child) == child
    assert await compression_at_or_above(db, fork) == child  # the fork keeps the child's summary
    with pytest.raises(InspectError):
        await inspect_compression(db, fork)  # a branch, not a compression
    await agent.close()
    await db.close()


def test_span_rules_on_plain_lists() -> None:
    head = [{"role": "user", "content": "q0"}, {"role": "assistant", "content": "a0"}]
    middle = [{"role": "user", "content": f"q{i}"} for i in range(1, 4)]
    tail = [{"role": "assistant", "content": "last"}]
    child = [*head, {"role": "user", "content": "[CONTEXT COMPACTION — REFERENCE ONLY] ..."}, *tail]
    assert summarised_span([*head, *middle, *tail], child, dropped=3) == (2, 5)
    assert summarised_span([*head, *middle, *tail], child, dropped=None) == (2, 5)


def test_reinjection_note_quotes_every_line() -> None:
    from hermes_tui.core.compression_inspect import SummarisedMessage

    note = reinjection_note(SummarisedMessage(4, "assistant", "line one\n\nline three", 17, 0), "parent-id")
    assert "summarised when session parent-id was compressed" in note
    assert note.endswith("> line one\n>\n> line three")
