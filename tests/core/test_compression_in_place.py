"""`compression.in_place`: Hermes's in-place compaction, end to end against the fake server and a real DB.

One session id for life: every stored live row becomes `active = 0, compacted = 1` and the compacted
list the new live rows, in one transaction, as Hermes's `archive_and_compact`; no child, no end reason,
no "#N". The record goes to `state_meta["compaction:<id>"]`; the inspector reads the session itself.
Our default stays rotation (tests/core/test_compression_rotation.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from hermes_tui.config import Settings
from hermes_tui.core import events as ev
from hermes_tui.core.commands import run_command
from hermes_tui.core.compression_inspect import compression_at_or_above, details_text, inspect_compression
from tests.core.helpers import make_agent, openai_choice
from tests.core.test_compression_rotation import SUMMARY, _seed_turns
from tests.fake_llm import Fail, FakeLLMServer, Reply
from tests.store.conftest import raw_execute


def in_place() -> Settings:
    settings = Settings()
    settings.compression.in_place = True
    return settings


async def test_threshold_compaction_in_place_keeps_the_session_and_its_rows(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=in_place())
    await _seed_turns(agent, server, 6)
    await run_command(agent, "/title auth refactor")
    session = agent.session_id
    stored_before = raw_execute(db.path, "SELECT id FROM messages WHERE session_id = ? ORDER BY id", (session,))
    log.clear()
    threshold = agent.compressor.threshold_tokens
    server.enqueue(
        Reply(tool_calls=[("c1", "read_file", '{"path": "nothing.txt"}')], usage=(threshold + 5_000, 30, 0, 0)),
        Reply(text=SUMMARY),
        Reply(text="Done after compaction.", usage=(9_000, 15, 0, 0)),
    )
    result = await agent.run_conversation("Now refactor auth.py to JWT")

    assert result.completed and result.final_response == "Done after compaction."
    assert agent.session_id == session == result.session_id  # one id for life
    row = await db.get_session(session)
    assert row["end_reason"] is None and row["title"] == "auth refactor" and row["parent_session_id"] is None
    assert not log.of(ev.SessionRotated)
    finished = log.of(ev.CompressionFinished)[-1]
    assert finished.in_place and finished.session_id == session and not finished.aborted
    # Every row stored before (and the turn's own, flushed first) is kept, compacted; the live rows
    # are the summary, the kept tail and the answer.
    compacted = raw_execute(
        db.path, "SELECT id FROM messages WHERE session_id = ? AND active = 0 AND compacted = 1", (session,)
    )
    assert {r[0] for r in stored_before} <= {r[0] for r in compacted}
    live = await db.get_messages_as_conversation(session)
    summaries = [m for m in live if str(m["content"]).startswith("[CONTEXT COMPACTION")]
    assert len(summaries) == 1 and live[0]["content"] == "Question 0: tell me about step 0"  # the head is kept
    assert live[-1]["content"] == "Done after compaction."
    assert row["message_count"] == len(live)
    assert [m.get("_db_id") for m in agent.messages] == [m["_db_id"] for m in live]
    # the old turns are still found, the record names the compaction, the tree counts it
    assert any(hit["session_id"] == session for hit in await db.search_messages("Question 0"))
    record = json.loads(await db.get_meta(f"compaction:{session}"))
    assert record["in_place"] is True and record["in_place_count"] == 1 and record["reason"] == "threshold"
    assert await db.get_meta(f"compression:{session}") is None
    assert (await db.lineage_node(session)).compactions == 1
    await db.close()


async def test_manual_compress_in_place_then_resume_reads_the_compacted_list(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=in_place())
    await _seed_turns(agent, server, 6)
    session = agent.session_id
    server.enqueue(Reply(text=SUMMARY))
    outcome = await run_command(agent, "/compress")
    assert "Compacted in place" in outcome.output and session in outcome.output
    assert agent.session_id == session
    compacted_count = await db.count_compacted(session)
    assert compacted_count == 12
    # The next turn is appended after the new live rows: nothing is written twice.
    server.enqueue(Reply(text="Next answer."))
    await agent.run_conversation("and then?")
    live = await db.get_messages_as_conversation(session)
    assert [m["content"] for m in live[-2:]] == ["and then?", "Next answer."]
    assert len({m["content"] for m in live}) == len(live)
    assert await db.count_compacted(session) == compacted_count
    # /undo rewinds the live rows only; the compacted record stays
    await run_command(agent, "/undo")
    assert await db.count_compacted(session) == compacted_count
    # A fresh agent resuming the session continues from the compacted list, as Hermes would.
    other, _db2, _ = await make_agent(tmp_path / "again", openai_choice(server.base_url_openai), db=db)
    await other.resume(session)
    assert any("[CONTEXT COMPACTION" in str(m["content"]) for m in other.messages)  # alone or merged
    assert len(other.messages) == len(await db.get_messages_as_conversation(session))
    await db.close()


async def test_a_second_compaction_is_counted_and_the_inspector_shows_the_replaced_rows(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=in_place())
    await _seed_turns(agent, server, 6)
    session = agent.session_id
    server.enqueue(Reply(text=SUMMARY))
    await run_command(agent, "/compress")
    await _seed_turns(agent, server, 5)
    server.enqueue(Reply(text=SUMMARY + "\n2. second pass"))
    await run_command(agent, "/compress")
    assert await db.compaction_count(session) == 2
    record = json.loads(await db.get_meta(f"compaction:{session}"))
    assert record["in_place_count"] == 2
    assert await compression_at_or_above(db, session) == session
    details = await inspect_compression(db, session)
    assert details.in_place and details.compactions == 2 and details.recorded
    assert details.child_id == details.parent_id == session
    assert len(details.summarised) == await db.count_compacted(session)
    assert any("Question 0" in m.text for m in details.summarised)
    assert "second pass" in details.summary
    text = details_text(details)
    assert text.startswith(f"Compacted in place: {session}") and "(2×)" in text
    await db.close()


async def test_a_summary_failure_cooldown_survives_a_resume(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=in_place())
    await _seed_turns(agent, server, 6)
    session = agent.session_id
    server.enqueue(Fail(500, "summary model down"))
    await run_command(agent, "/compress")
    stored = await db.get_compression_failure_cooldown(session)
    assert stored is not None and "summary model down" in (stored[1] or "")
    # Another agent (a resume in a new process) honours it: its automatic compaction waits out the pause.
    other, _db2, other_log = await make_agent(tmp_path / "again", openai_choice(server.base_url_openai), db=db)
    await other.resume(session)
    first = len(server.requests)
    server.enqueue(
        Reply(
            tool_calls=[("c1", "read_file", '{"path": "nothing.txt"}')],
            usage=(other.compressor.threshold_tokens + 5_000, 30, 0, 0),
        ),
        Reply(text="Answered during the cooldown."),
    )
    result = await other.run_conversation("keep going")
    assert result.final_response == "Answered during the cooldown."
    # automatic compression stays paused for the rest of the cooldown: no compaction, no summary call
    assert not other_log.of(ev.CompressionFinished)
    assert not any("TURNS TO SUMMARIZE" in json.dumps(r.body) for r in server.requests[first:])
    await db.close()
