"""Branches keep their kind and branch point; branching from any message (the real Agent, demo model, real state.db)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from hermes_tui.core import events as ev
from hermes_tui.core.commands import run_command
from hermes_tui.core.session.live import SessionError
from hermes_tui.store.export import build_export
from hermes_tui.store.models import EDGE_BRANCH, EDGE_COMPRESSION
from tests.core.helpers import make_agent, rows


async def _chat(agent, *texts: str) -> None:
    for text in texts:
        result = await agent.run_conversation(text)
        assert result.completed, result.error


def _node(nodes, session_id):
    return next(node for node in nodes if node.id == session_id)


async def test_branches_keep_their_edge_and_branch_point_after_the_parent_is_resumed(tmp_path: Path) -> None:
    agent, db, _log = await make_agent(tmp_path)
    await _chat(agent, "hello", "tell me more")
    parent = agent.session_id
    first_point = (await rows(db, parent))[-1]["id"]
    assert not (await run_command(agent, "/branch")).error
    first_branch = agent.session_id

    assert not (await run_command(agent, f"/resume {parent}")).error  # reopens the parent: end_reason cleared
    await _chat(agent, "and one more thing")
    second_point = (await rows(db, parent))[-1]["id"]
    assert not (await run_command(agent, "/branch second try")).error
    second_branch = agent.session_id

    nodes = await agent.lineage()
    first, second = _node(nodes, first_branch), _node(nodes, second_branch)
    assert (first.edge, first.parent_id, first.branch_point) == (EDGE_BRANCH, parent, first_point)
    assert (second.edge, second.parent_id, second.branch_point) == (EDGE_BRANCH, parent, second_point)
    assert first_point < second_point

    # The listing shows both branches (branch children are listed; "other" children are not).
    listed = {row["id"] for row in await db.list_sessions_rich(limit=None)}
    assert {parent, first_branch, second_branch} <= listed
    # An export of the first branch calls it a branch, too.
    document = await build_export(db, first_branch)
    assert document["sessions"][0]["edge"] == EDGE_BRANCH
    await agent.close()
    await db.close()


async def test_hermes_tables_are_untouched_and_a_damaged_record_falls_back_to_derivation(tmp_path: Path) -> None:
    agent, db, _log = await make_agent(tmp_path)
    await _chat(agent, "hello")
    parent = agent.session_id
    await run_command(agent, "/branch")
    child = agent.session_id
    await agent.close()
    await db.close()

    con = sqlite3.connect(tmp_path / "home" / "state.db")
    try:
        stored = con.execute("select value from state_meta where key = ?", (f"edge:{child}",)).fetchone()[0]
        assert json.loads(stored)["kind"] == "branch" and json.loads(stored)["parent"] == parent
        columns = {row[1] for row in con.execute("pragma table_info(sessions)")}
        assert "edge" not in columns and "branch_point" not in columns  # Hermes's schema, column for column
        con.execute("update state_meta set value = 'not json' where key = ?", (f"edge:{child}",))
        con.execute("update sessions set ended_at = NULL, end_reason = NULL where id = ?", (parent,))
        con.commit()
    finally:
        con.close()

    agent, db, _log = await make_agent(tmp_path)
    node = _node(await agent.lineage(), child)
    # no record of ours: read as a session Hermes made — its `_branched_from` marker says branch
    assert node.edge == EDGE_BRANCH and node.branch_point is None
    await db.close()


async def test_a_compression_child_records_its_edge(tmp_path: Path) -> None:
    agent, db, _log = await make_agent(tmp_path)
    await _chat(agent, *(f"read README{i}.md" for i in range(12)))
    parent = agent.session_id
    outcome = await run_command(agent, "/compress")
    assert "Compressed" in outcome.output, outcome.output
    record = await db.get_edge_record(agent.session_id)
    assert record is not None and (record.kind, record.parent_id) == (EDGE_COMPRESSION, parent)
    assert record.branch_point == (await rows(db, parent))[-1]["id"]
    await db.close()


async def test_branch_here_keeps_history_through_the_message_and_leaves_the_original_alone(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("alpha\nbeta\n", encoding="utf-8")
    agent, db, log = await make_agent(tmp_path)
    await _chat(agent, "read notes.md", "hello again", "one last thing")
    original = agent.session_id
    before = [dict(m) for m in agent.messages]
    assert [m["role"] for m in before[:4]] == ["user", "assistant", "tool", "assistant"]

    # On the assistant message that called the tool: its result comes along, never a dangling call.
    result = await agent.branch_at(1)
    assert result.kept == 3 and result.prefill is None and result.parent_id == original
    assert [m["role"] for m in agent.messages] == ["user", "assistant", "tool"]
    assert [r["content"] for r in await rows(db, result.session_id)] == [m["content"] for m in before[:3]]
    assert result.branch_point == before[2]["_db_id"]
    assert log.of(ev.HistoryReplaced)[-1].session_id == result.session_id
    node = _node(await agent.lineage(), result.session_id)
    assert (node.edge, node.branch_point) == (EDGE_BRANCH, before[2]["_db_id"])
    # The original is untouched: every message still there and active.
    assert [r["content"] for r in await rows(db, original)] == [m["content"] for m in before]

    # The branch is a live session: a turn continues it.
    await _chat(agent, "continue in the branch")
    assert [m["role"] for m in agent.messages][-2:] == ["user", "assistant"]
    assert len(await rows(db, original)) == len(before)
    await db.close()


async def test_edit_and_resend_branches_before_the_user_message_and_returns_its_text(tmp_path: Path) -> None:
    agent, db, _log = await make_agent(tmp_path)
    await _chat(agent, "first question", "second question")
    original = agent.session_id
    second_user = [i for i, m in enumerate(agent.messages) if m["role"] == "user"][1]

    result = await agent.branch_at(second_user, edit=True, name="reworded")
    assert result.prefill == "second question" and result.title == "reworded"
    assert [m["content"] for m in agent.messages if m["role"] == "user"] == ["first question"]
    assert len(agent.messages) == second_user
    assert (await db.get_session(result.session_id))["title"] == "reworded"
    await _chat(agent, "second question, reworded")
    assert [r["content"] for r in await rows(db, original) if r["role"] == "user"] == [
        "first question",
        "second question",
    ]
    # /undo keeps its meaning: it rewinds the live branch, never the original.
    undone = await run_command(agent, "/undo")
    assert undone.prefill == "second question, reworded"
    assert len(await rows(db, original)) == 4
    await db.close()


async def test_editing_the_first_message_gives_an_empty_branch(tmp_path: Path) -> None:
    agent, db, _log = await make_agent(tmp_path)
    await _chat(agent, "only question")
    result = await agent.branch_at(0, edit=True)
    assert result.prefill == "only question" and result.kept == 0 and result.branch_point is None
    assert agent.messages == []
    assert _node(await agent.lineage(), result.session_id).edge == EDGE_BRANCH
    await db.close()


async def test_bad_branch_points_are_clear_errors(tmp_path: Path) -> None:
    agent, db, _log = await make_agent(tmp_path)
    with pytest.raises(SessionError, match="nothing to branch"):
        await agent.branch_at(0)
    await _chat(agent, "hello")
    session = agent.session_id
    with pytest.raises(SessionError, match="no message #7"):
        await agent.branch_at(7)
    with pytest.raises(SessionError, match="only a user message"):
        await agent.branch_at(1, edit=True)
    with pytest.raises(SessionError, match="no message #-1"):
        await agent.branch_at(-1)
    assert agent.session_id == session  # nothing moved
    await db.close()


async def test_branch_at_and_edit_slash_forms_count_user_turns_as_history_numbers_them(tmp_path: Path) -> None:
    agent, db, _log = await make_agent(tmp_path)
    await _chat(agent, "one", "two", "three")
    history = await run_command(agent, "/history")
    assert "#1 user: one" in history.output and "#3 user: three" in history.output

    at = await run_command(agent, "/branch at 2 two-turns")
    assert not at.error and "two-turns" in at.output and at.prefill is None
    assert [m["content"] for m in agent.messages if m["role"] == "user"] == ["one", "two"]
    assert agent.messages[-1]["role"] == "assistant"

    edit = await run_command(agent, "/branch edit 2")
    assert not edit.error and edit.prefill == "two"
    assert [m["content"] for m in agent.messages if m["role"] == "user"] == ["one"]

    for bad, why in (("/branch at 9", "no turn 9"), ("/branch edit x", "usage: /branch edit N")):
        outcome = await run_command(agent, bad)
        assert outcome.error and why in outcome.output, outcome.output
    await db.close()


async def test_a_cut_inside_a_tool_call_group_keeps_the_group_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("alpha\n", encoding="utf-8")
    agent, db, _log = await make_agent(tmp_path)
    await _chat(agent, "read notes.md")
    assert [m["role"] for m in agent.messages] == ["user", "assistant", "tool", "assistant"]
    result = await agent.branch_at(2)  # on the tool result itself: nothing more to complete
    assert result.completed_group == 0 and "tool result" not in result.message
    await run_command(agent, f"/resume {result.parent_id}")
    result = await agent.branch_at(1)  # on the call: its result comes along, and the line says so
    assert result.completed_group == 1 and result.kept == 3
    assert "3 message(s) kept, through the 1 tool result(s) of that call" in result.message
    await db.close()


async def test_a_compaction_summary_cannot_be_edited_but_can_be_branched_at(tmp_path: Path) -> None:
    from hermes_tui.core.context.markers import SUMMARY_PREFIX
    from hermes_tui.core.session.branching import cut_for

    history = [{"role": "user", "content": f"{SUMMARY_PREFIX}\nearlier turns"}, {"role": "user", "content": "go on"}]
    with pytest.raises(SessionError, match="compaction summary cannot be edited"):
        cut_for(history, 0, edit=True)
    assert cut_for(history, 0, edit=False) == 1
    assert cut_for(history, 1, edit=True) == 1
