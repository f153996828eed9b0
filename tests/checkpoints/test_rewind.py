"""Checkpoints taken by the real agent over several turns, then restored: every file's bytes and mode
come back exactly, files created since go, deleted ones return, the user's repository is untouched,
ignored files are never snapshotted, and a rollback can itself be rolled back."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

from hermes_tui.config import Settings
from hermes_tui.core import events as ev
from hermes_tui.core.commands import run_command
from tests.checkpoints.helpers import (
    folder_state,
    make_project,
    repo_fingerprint,
    store_paths,
    terminal_call,
    write_call,
)
from tests.core.helpers import make_agent, openai_choice
from tests.fake_llm import FakeLLMServer, Reply

IGNORED = ("ignored/cache.txt",)


def approving_settings() -> Settings:
    settings = Settings()
    return dataclasses.replace(settings, tools=dataclasses.replace(settings.tools, auto_approve=True))


def without(state: dict[str, tuple[str, bool]], names: tuple[str, ...]) -> dict[str, tuple[str, bool]]:
    return {path: value for path, value in state.items() if path not in names}


def user_message_ids(home: Path, session_id: str) -> list[int]:
    con = sqlite3.connect(home / "state.db")
    try:
        rows = con.execute(
            "select id from messages where session_id = ? and role = 'user' order by id", (session_id,)
        ).fetchall()
    finally:
        con.close()
    return [row[0] for row in rows]


async def test_rollback_restores_every_file_exactly_across_turns_and_is_undoable(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    repo_before = repo_fingerprint(project)
    states = [folder_state(project)]  # the folder as each turn found it
    turns = [
        [write_call("a1", "src/app.py", "def main():\n    return 2\n"), write_call("a2", "notes.txt", "first\n")],
        [terminal_call("b1", "rm README.md && chmod -x tools/run.sh && mkdir -p deep/er && printf x > deep/er/n.bin")],
        [write_call("c1", "notes.txt", "second\nline\n"), write_call("c2", "src/extra.py", "X = 1\n")],
    ]
    with FakeLLMServer() as server:
        agent, db, log = await make_agent(
            tmp_path, openai_choice(server.base_url_openai), cwd=project, settings=approving_settings()
        )
        try:
            for number, calls in enumerate(turns, 1):
                server.enqueue(Reply(tool_calls=calls), Reply(text=f"Turn {number} done."))
                result = await agent.run_conversation(f"turn {number}")
                assert result.completed, result.error
                (project / "ignored" / "cache.txt").write_text(f"cache after turn {number}\n", encoding="utf-8")
                states.append(folder_state(project))
            taken = log.of(ev.CheckpointTaken)
            assert [event.number for event in taken] == [1, 2, 3]
            home = tmp_path / "home"
            assert [event.message_id for event in taken] == user_message_ids(home, agent.session_id)
            checkpoints = await agent.checkpoints.list_for_session()
            assert [c.turn for c in checkpoints] == [1, 2, 3]
            for checkpoint in checkpoints:  # the project's .gitignore holds: the ignored folder is not in the store
                paths = store_paths(home, checkpoint.record.tree)
                assert "src/app.py" in paths and not any(p.startswith("ignored/") for p in paths)
                assert not any(p.startswith(".git/") for p in paths)
            found = await agent.checkpoints.checkpoint_for_message(taken[1].message_id)
            assert found is not None and found.number == 2

            latest = folder_state(project)
            restored = await run_command(agent, "/rollback 1")
            assert not restored.error, restored.output
            assert "/rollback 4 undoes this" in restored.output
            now = folder_state(project)
            assert without(now, IGNORED) == without(states[0], IGNORED)  # bytes and modes, exactly
            assert now["ignored/cache.txt"] == latest["ignored/cache.txt"]  # never snapshotted, left alone
            assert not (project / "deep").exists() and not (project / "notes.txt").exists()
            assert repo_fingerprint(project) == repo_before  # HEAD, refs, index and .git's files as they were

            undo = await run_command(agent, "/rollback 4")
            assert not undo.error, undo.output
            assert folder_state(project) == latest

            for number in (2, 3):
                outcome = await run_command(agent, f"/rollback {number}")
                assert not outcome.error, outcome.output
                assert without(folder_state(project), IGNORED) == without(states[number - 1], IGNORED)
            restores = log.of(ev.FilesRestored)
            assert [(e.number, e.undo_number) for e in restores] == [(1, 4), (4, 5), (2, 6), (3, 7)]
        finally:
            await agent.close()
            await db.close()


async def test_one_checkpoint_per_turn_however_many_changes_and_none_for_read_only_turns(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    with FakeLLMServer() as server:
        agent, db, log = await make_agent(
            tmp_path, openai_choice(server.base_url_openai), cwd=project, settings=approving_settings()
        )
        try:
            server.enqueue(
                Reply(tool_calls=[terminal_call("r1", "ls -la && git status && cat README.md | wc -l")]),
                Reply(tool_calls=[("r2", "read_file", '{"path": "README.md"}')]),
                Reply(text="Only looked."),
            )
            assert (await agent.run_conversation("look around")).completed
            assert log.of(ev.CheckpointTaken) == []
            before = folder_state(project)
            server.enqueue(
                Reply(tool_calls=[write_call("w1", "a.txt", "1\n")]),
                Reply(tool_calls=[terminal_call("w2", "touch b.txt")]),
                Reply(tool_calls=[write_call("w3", "a.txt", "2\n")]),
                Reply(text="Changed three times."),
            )
            assert (await agent.run_conversation("change things")).completed
            [taken] = log.of(ev.CheckpointTaken)
            assert taken.turn == 2
            listing = await run_command(agent, "/rollback")
            assert "#2" in listing.output and "before “change things”" in listing.output
            assert "2 files +1 −0" in listing.output  # since then: a.txt (one line) and an empty b.txt
            assert not (await run_command(agent, "/rollback 1")).error
            assert folder_state(project) == before
        finally:
            await agent.close()
            await db.close()


async def test_a_session_resumed_in_another_folder_keeps_each_folders_checkpoints_apart(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        folder.mkdir()
        (folder / "f.txt").write_text(f"{folder.name}\n", encoding="utf-8")
    with FakeLLMServer() as server:
        agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=first)
        server.enqueue(Reply(tool_calls=[write_call("a", "f.txt", "changed in first\n")]), Reply(text="Done."))
        try:
            assert (await agent.run_conversation("change first")).completed
            session = agent.session_id
        finally:
            await agent.close()
            await db.close()
        agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=second)
        server.enqueue(Reply(tool_calls=[write_call("b", "f.txt", "changed in second\n")]), Reply(text="Done."))
        try:
            await agent.resume(session)
            assert (await agent.run_conversation("change second")).completed
            [only] = await agent.checkpoints.list_for_session()
            assert only.turn == 2 and only.record.workdir == str(second.resolve())
            assert not (await run_command(agent, "/rollback 1")).error
        finally:
            await agent.close()
            await db.close()
        agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=first)
        try:
            await agent.resume(session)
            [mine] = await agent.checkpoints.list_for_session()
            assert mine.turn == 1 and mine.available
            assert not (await run_command(agent, "/rollback 1")).error
        finally:
            await agent.close()
            await db.close()
    assert (first / "f.txt").read_text() == "first\n" and (second / "f.txt").read_text() == "second\n"
