"""LiveSession on its own, on a real state.db: each transition leaves the session consistent and says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.core import events as ev
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.session.live import LiveSession, SessionError
from hermes_tui.store.db import SessionDB
from hermes_tui.store.edges import EdgeRecord
from hermes_tui.store.models import EDGE_BRANCH
from tests.core.helpers import EventLog


@pytest.fixture
async def db(tmp_path: Path):
    database = await SessionDB.open(tmp_path / "state.db")
    yield database
    await database.close()


def live(db: SessionDB | None, log: EventLog, tmp_path: Path) -> LiveSession:
    return LiveSession(
        db=db, emitter=Emitter(log), source="cli", cwd=tmp_path, model=lambda: "m", build_prompt=lambda: "PROMPT"
    )


async def test_the_row_waits_for_the_first_write_and_takes_the_queued_title(db: SessionDB, tmp_path: Path) -> None:
    log = EventLog()
    session = live(db, log, tmp_path)
    await session.set_title("plans")
    assert log.of(ev.TitleChanged) == [ev.TitleChanged(session.id, "plans")]
    assert session.pending_title == "plans" and await db.get_session(session.id) is None
    assert session.unsaved_node() is not None and session.unsaved_node().title == "plans"
    await session.flush([{"role": "user", "content": "hi"}])
    row = await db.get_session(session.id)
    assert row["title"] == "plans" and session.row_created and session.pending_title is None
    assert session.unsaved_node() is None


async def test_a_title_taken_meanwhile_never_keeps_the_conversation_from_being_saved(
    db: SessionDB, tmp_path: Path
) -> None:
    log = EventLog()
    session = live(db, log, tmp_path)
    await session.set_title("shared")
    await db.create_session("other", "cli", title="shared")
    await session.flush([{"role": "user", "content": "hi"}])
    assert session.row_created and session.title is None
    assert [r["content"] for r in await db.get_messages(session.id)] == ["hi"]
    assert any("saving the session without it" in w.text for w in log.of(ev.Warning))


async def test_a_title_in_use_is_refused(db: SessionDB, tmp_path: Path) -> None:
    await db.create_session("other", "cli", title="taken")
    with pytest.raises(SessionError, match="already in use"):
        await live(db, EventLog(), tmp_path).set_title("taken")


async def test_start_child_ends_the_parent_and_writes_the_child_through_the_cursor(
    db: SessionDB, tmp_path: Path
) -> None:
    log = EventLog()
    session = live(db, log, tmp_path)
    history = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    session.commit(history)
    await session.flush()
    parent = session.id
    child = await session.start_child(
        edge=EDGE_BRANCH,
        branch_point=history[-1]["_db_id"],
        end_reason="branched",
        reason="branch",
        title="b #2",
        system_prompt="CHILD",
        messages=history,
        announce_history=True,
    )
    assert (await db.get_session(parent))["end_reason"] == "branched"
    assert await db.get_edge_record(child) == EdgeRecord(EDGE_BRANCH, parent, history[-1]["_db_id"])
    row = await db.get_session(child)
    assert (row["parent_session_id"], row["title"], row["system_prompt"]) == (parent, "b #2", "CHILD")
    assert [r["content"] for r in await db.get_messages(child)] == ["q", "a"]
    assert session.system_prompt == "CHILD" and session.parent_id == parent
    assert log.of(ev.SessionRotated)[-1] == ev.SessionRotated(parent, child, "branch", "b #2")
    assert log.of(ev.HistoryReplaced)[-1].session_id == child
    assert history[0].get("_db_id") != session.messages[0]["_db_id"]  # the parent's dicts are untouched


async def test_switch_to_loads_history_and_rewind_drops_it_in_memory_and_on_disk(db: SessionDB, tmp_path: Path) -> None:
    log = EventLog()
    first = live(db, log, tmp_path)
    first.commit([{"role": "user", "content": "one"}, {"role": "assistant", "content": "1"}])
    await first.flush()
    session = live(db, log, tmp_path)
    await session.switch_to(first.id)
    assert [m["content"] for m in session.messages] == ["one", "1"] and session.row_created
    session.commit([*session.messages, {"role": "user", "content": "two"}])
    await session.flush()
    await session.rewind(2)
    assert [r["content"] for r in await db.get_messages(first.id)] == ["one", "1"]
    assert log.of(ev.HistoryReplaced)[-1].reason == "undo"


async def test_start_fresh_ends_the_saved_session_and_forgets_everything(db: SessionDB, tmp_path: Path) -> None:
    log = EventLog()
    session = live(db, log, tmp_path)
    session.commit([{"role": "user", "content": "x"}])
    await session.flush()
    await session.prompt()
    session.todo.write([{"id": "1", "content": "t", "status": "pending"}])
    old = session.id
    await session.start_fresh("next")
    assert (await db.get_session(old))["end_reason"] == "new_session"
    assert session.id != old and session.messages == [] and session.system_prompt is None
    assert session.todo.is_empty() and session.title == "next" and not session.row_created


async def test_a_new_row_records_the_git_branch_and_repository_root_as_hermes_does(
    db: SessionDB, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/feature/login\n", encoding="utf-8")
    (repo / "src").mkdir()
    session = LiveSession(
        db=db, emitter=Emitter(EventLog()), source="cli", cwd=repo / "src", model=lambda: "m", build_prompt=lambda: "P"
    )
    await session.flush([{"role": "user", "content": "hi"}])
    row = await db.get_session(session.id)
    assert (row["git_branch"], row["git_repo_root"]) == ("feature/login", str(repo.resolve()))
    outside = live(db, EventLog(), tmp_path / "elsewhere")
    await outside.flush([{"role": "user", "content": "hi"}])
    row = await db.get_session(outside.id)
    assert (row["git_branch"], row["git_repo_root"]) == (None, None)  # Hermes's default: left NULL
