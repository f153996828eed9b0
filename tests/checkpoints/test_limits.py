"""When a checkpoint cannot or must not be taken the turn carries on and the user is told once:
no git on PATH, a folder over max_files, files over max_file_mb. The store is isolated from the
user's git set-up (environment, global config), and the hermes home inside the folder is never in it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from hermes_tui.config import CheckpointsSettings, Settings
from hermes_tui.core import events as ev
from hermes_tui.core.checkpoints.manager import NO_GIT
from hermes_tui.core.commands import run_command
from tests.checkpoints.helpers import folder_state, make_project, repo_fingerprint, store_paths, write_call
from tests.core.helpers import make_agent, openai_choice
from tests.fake_llm import FakeLLMServer, Reply


def with_checkpoints(**values: object) -> Settings:
    return dataclasses.replace(Settings(), checkpoints=CheckpointsSettings(**values))  # type: ignore[arg-type]


async def run_turns(agent: object, server: FakeLLMServer, writes: list[tuple[str, str]]) -> None:
    for number, (path, content) in enumerate(writes, 1):
        server.enqueue(Reply(tool_calls=[write_call(f"w{number}", path, content)]), Reply(text="Written."))
        result = await agent.run_conversation(f"write {path}")  # type: ignore[attr-defined]
        assert result.completed, result.error


async def test_without_git_on_path_turns_go_on_and_the_user_is_told_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path)
    no_git = tmp_path / "bin-without-git"
    no_git.mkdir()
    monkeypatch.setenv("PATH", str(no_git))
    with FakeLLMServer() as server:
        agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=project)
        try:
            await run_turns(agent, server, [("a.txt", "a\n"), ("b.txt", "b\n")])
            rollback = await run_command(agent, "/rollback 1")
        finally:
            await agent.close()
            await db.close()
    assert (project / "a.txt").read_text() == "a\n" and (project / "b.txt").read_text() == "b\n"
    assert [w.text for w in log.of(ev.Warning)] == [NO_GIT]
    assert log.of(ev.CheckpointTaken) == []
    assert rollback.error and "needs git" in rollback.output


async def test_a_folder_over_max_files_is_not_snapshotted_and_the_review_log_says_so_once(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    for number in range(6):
        (project / f"extra{number}.txt").write_text(f"{number}\n", encoding="utf-8")
    with FakeLLMServer() as server:
        agent, db, log = await make_agent(
            tmp_path, openai_choice(server.base_url_openai), cwd=project, settings=with_checkpoints(max_files=5)
        )
        try:
            await run_turns(agent, server, [("a.txt", "a\n"), ("b.txt", "b\n")])
        finally:
            await agent.close()
            await db.close()
    assert log.of(ev.CheckpointTaken) == []
    notes = [e.text for e in log.of(ev.ReviewEntry) if "No checkpoint" in e.text]
    assert len(notes) == 1 and "more than 5 files" in notes[0]
    assert (project / "b.txt").read_text() == "b\n"


async def test_a_file_over_max_file_mb_is_left_out_and_left_alone_by_a_restore(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    big = project / "big.bin"
    big.write_bytes(b"\x01" * 5000)
    growing = project / "growing.txt"
    growing.write_text("small\n", encoding="utf-8")
    with FakeLLMServer() as server:
        agent, db, log = await make_agent(
            tmp_path, openai_choice(server.base_url_openai), cwd=project, settings=with_checkpoints(max_file_mb=0.001)
        )
        try:
            before = folder_state(project)
            await run_turns(agent, server, [("src/app.py", "changed\n")])
            [taken] = log.of(ev.CheckpointTaken)
            assert taken.left_out == 1
            [checkpoint] = await agent.checkpoints.list_for_session()
            assert "big.bin" not in store_paths(tmp_path / "home", checkpoint.record.tree)
            assert "growing.txt" in store_paths(tmp_path / "home", checkpoint.record.tree)
            big.write_bytes(b"\x02" * 6000)
            growing.write_text("big\n" * 2000, encoding="utf-8")  # a tracked file grows over the cap
            await run_turns(agent, server, [("notes.txt", "notes\n")])
            second = log.of(ev.CheckpointTaken)[-1]
            assert second.number == 2 and second.left_out == 2
            [_first, checkpoint] = await agent.checkpoints.list_for_session()
            paths = store_paths(tmp_path / "home", checkpoint.record.tree)
            assert "growing.txt" not in paths and "big.bin" not in paths and "src/app.py" in paths
            assert not (await run_command(agent, "/rollback 1")).error
        finally:
            await agent.close()
            await db.close()
    after = folder_state(project)
    assert {k: v for k, v in after.items() if k != "big.bin"} == {k: v for k, v in before.items() if k != "big.bin"}
    assert big.read_bytes() == b"\x02" * 6000  # never in a checkpoint: left as it is
    assert growing.read_text() == "small\n"  # checkpoint 1 held it small: it comes back so


async def test_the_store_ignores_the_users_git_environment_and_global_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path)
    fingerprint = repo_fingerprint(project)
    user_home = tmp_path / "user-home"
    user_home.mkdir(exist_ok=True)
    (user_home / "attributes").write_text("*.py filter=broken\n", encoding="utf-8")
    (user_home / ".gitconfig").write_text(  # a set-up that would break snapshots or leak into them
        "[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = /nonexistent/gpg\n"
        f"[core]\n\tattributesFile = {user_home / 'attributes'}\n\thooksPath = /nonexistent/hooks\n"
        '[filter "broken"]\n\tclean = false\n\trequired = true\n',
        encoding="utf-8",
    )
    leaking = {
        "GIT_DIR": str(project / ".git"),
        "GIT_WORK_TREE": str(project),
        "GIT_INDEX_FILE": str(project / ".git" / "index"),
        "GIT_OBJECT_DIRECTORY": str(project / ".git" / "objects"),
    }
    for name, value in leaking.items():
        monkeypatch.setenv(name, value)
    with FakeLLMServer() as server:
        agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=project)
        try:
            await run_turns(agent, server, [("notes.txt", "n\n")])
            [checkpoint] = await agent.checkpoints.list_for_session()
        finally:
            await agent.close()
            await db.close()
    for name in leaking:
        monkeypatch.delenv(name)
    assert log.of(ev.Warning) == []
    assert "src/app.py" in store_paths(tmp_path / "home", checkpoint.record.tree)
    assert repo_fingerprint(project) == fingerprint


async def test_the_hermes_home_inside_the_working_folder_is_never_snapshotted(tmp_path: Path) -> None:
    (tmp_path / "code.txt").write_text("code\n", encoding="utf-8")
    with FakeLLMServer() as server:
        agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=tmp_path)
        try:
            await run_turns(agent, server, [("code.txt", "changed\n")])
            [checkpoint] = await agent.checkpoints.list_for_session()
            assert not (await run_command(agent, "/rollback 1")).error
            assert (tmp_path / "home" / "state.db").is_file()
        finally:
            await agent.close()
            await db.close()
    paths = store_paths(tmp_path / "home", checkpoint.record.tree)
    assert "code.txt" in paths and not any(p.startswith("home/") for p in paths)
    assert (tmp_path / "code.txt").read_text() == "code\n"
