"""Session moves through the slash commands: /new, /resume, /branch, /title, /undo, /retry (reference §3, §10)."""

from __future__ import annotations

from pathlib import Path

from hermes_tui.core import events as ev
from hermes_tui.core.commands import ShowHelp, help_text, run_command
from hermes_tui.headless import headless_command
from tests.core.helpers import DEMO, make_agent, rows


async def _chat(agent, *texts: str) -> None:
    for text in texts:
        result = await agent.run_conversation(text)
        assert result.completed, result.error


async def test_new_ends_old_session_and_starts_fresh(tmp_path: Path) -> None:
    agent, db, log = await make_agent(tmp_path, DEMO)
    await _chat(agent, "hello")
    old = agent.session_id
    outcome = await run_command(agent, "/new sprint planning")
    assert not outcome.error and agent.session_id != old and agent.messages == []
    assert (await db.get_session(old))["end_reason"] == "new_session"
    rotated = log.of(ev.SessionRotated)[-1]
    assert (rotated.old, rotated.new, rotated.reason) == (old, agent.session_id, "new_session")
    # The new row is created lazily, with the queued title, on the first message.
    assert await db.get_session(agent.session_id) is None
    await _chat(agent, "first message")
    row = await db.get_session(agent.session_id)
    assert row["title"] == "sprint planning" and row["parent_session_id"] is None
    await db.close()


async def test_reset_alias_and_title_conflict(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path, DEMO)
    await _chat(agent, "hello")
    assert not (await run_command(agent, "/title alpha")).error
    conflict = await run_command(agent, "/reset alpha")
    assert conflict.error and "already in use" in conflict.output
    assert not (await run_command(agent, "/reset")).error
    await db.close()


async def test_resume_by_number_prefix_and_title_reopens_target(tmp_path: Path) -> None:
    agent, db, log = await make_agent(tmp_path, DEMO)
    await _chat(agent, "about databases")
    await run_command(agent, "/title db chat")
    first = agent.session_id
    await run_command(agent, "/new")
    await _chat(agent, "about editors")
    second = agent.session_id

    listing = await run_command(agent, "/resume")
    assert first in listing.output and second in listing.output and not listing.error

    outcome = await run_command(agent, "/resume db chat")
    assert outcome.output.startswith("↻ Resumed session") and agent.session_id == first
    assert [m["content"] for m in agent.messages if m["role"] == "user"] == ["about databases"]
    assert (await db.get_session(second))["end_reason"] == "resumed_other"
    assert (await db.get_session(first))["end_reason"] is None  # reopened
    assert log.of(ev.HistoryReplaced)[-1].session_id == first

    # The shortest prefix (at least date, time and one hex digit) that only the second id has:
    # both ids may come from the same second, so a fixed length could be ambiguous.
    prefix = next(second[:n] for n in range(17, len(second) + 1) if not first.startswith(second[:n]))
    await run_command(agent, f"/resume {prefix}")
    assert agent.session_id == second
    await run_command(agent, "/resume 2")  # number indexes the recent list
    assert agent.session_id == first
    # Continuing a resumed session appends to it without duplicating old rows.
    await _chat(agent, "one more question")
    assert [r["content"] for r in await rows(db, first) if r["role"] == "user"] == [
        "about databases",
        "one more question",
    ]
    await db.close()


async def test_resume_unknown_and_ambiguous_are_clear_errors(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path, DEMO)
    await _chat(agent, "x")
    missing = await run_command(agent, "/resume no-such-session")
    assert missing.error and "no-such-session" in missing.output
    await run_command(agent, "/new")
    await _chat(agent, "y")
    ambiguous = await run_command(agent, "/resume 2026")  # every id starts with the year
    assert ambiguous.error
    await db.close()


async def test_branch_copies_history_into_a_visible_child(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path, DEMO)
    await _chat(agent, "pick a database", "compare them")
    await run_command(agent, "/title db choice")
    parent = agent.session_id
    outcome = await run_command(agent, "/branch")
    child = agent.session_id
    assert not outcome.error and child != parent and "⑂" in outcome.output
    child_row = await db.get_session(child)
    assert child_row["parent_session_id"] == parent and child_row["title"] == "db choice #2"
    assert (await db.get_session(parent))["end_reason"] == "branched"
    parent_rows = await rows(db, parent)
    child_rows = await rows(db, child)
    assert [r["content"] for r in child_rows] == [r["content"] for r in parent_rows]
    listed = {row["id"] for row in await db.list_sessions_rich(limit=20)}
    assert {parent, child} <= listed  # branch children stay visible (hermes-agent#20856)
    await _chat(agent, "go with postgres")
    assert len(await rows(db, child)) == len(child_rows) + 2 and len(await rows(db, parent)) == len(parent_rows)
    named = await run_command(agent, "/fork experiment")
    assert (await db.get_session(agent.session_id))["title"] == "experiment" and not named.error
    await db.close()


async def test_branch_with_nothing_to_copy_says_so(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path, DEMO)
    outcome = await run_command(agent, "/branch")
    assert outcome.error and "nothing to branch" in outcome.output
    await db.close()


async def test_undo_soft_rewinds_and_returns_the_text(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path, DEMO)
    await _chat(agent, "first", "second", "third")
    outcome = await run_command(agent, "/undo 2")
    assert outcome.prefill == "second"
    assert [m["content"] for m in agent.messages if m["role"] == "user"] == ["first"]
    active = await rows(db, agent.session_id)
    assert [r["content"] for r in active if r["role"] == "user"] == ["first"]
    everything = await db.get_messages(agent.session_id, include_inactive=True)
    assert len(everything) == 6  # soft delete: rows kept, marked inactive
    assert (await db.get_session(agent.session_id))["rewind_count"] == 1
    await _chat(agent, "replacement")
    assert [r["content"] for r in await rows(db, agent.session_id) if r["role"] == "user"] == ["first", "replacement"]
    await db.close()


async def test_retry_resends_the_last_message(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path, DEMO)
    await _chat(agent, "hello", "what can you do?")
    outcome = await run_command(agent, "/retry")
    assert outcome.send == "what can you do?"
    assert [m["content"] for m in agent.messages if m["role"] == "user"] == ["hello"]
    await db.close()


async def test_title_show_set_and_sanitise(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path, DEMO)
    shown = await run_command(agent, "/title")
    assert "(untitled)" in shown.output
    await run_command(agent, "/title  my\u200b project\u202e ")
    await _chat(agent, "hi")
    assert (await db.get_session(agent.session_id))["title"] == "my project"
    too_long = await run_command(agent, "/title " + "x" * 101)
    assert too_long.error
    await db.close()


async def test_history_sessions_usage_help_and_unknown(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path, DEMO)
    await _chat(agent, "hello there")
    history = await run_command(agent, "/history")
    assert "user: hello there" in history.output
    usage = await run_command(agent, "/usage")
    assert "Current context" in usage.output and agent.session_id in usage.output
    assert (await run_command(agent, "/help", interactive=True)).intent == ShowHelp()
    assert (await headless_command(agent, "/help")).output == help_text()  # headless prints the command list
    unknown = await run_command(agent, "/frobnicate")
    assert unknown.error and "/help" in unknown.output
    assert (await run_command(agent, "/quit")).quit
    await db.close()


async def test_close_ends_the_live_session_with_the_front_end_reason(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path, DEMO)
    await _chat(agent, "bye soon")
    session = agent.session_id
    await agent.close("tui_shutdown")
    assert (await db.get_session(session))["end_reason"] == "tui_shutdown"
    await db.close()
