"""`hermes-tui run` without a terminal: file access outside the working folder is denied unless --yes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.fake_llm import FakeLLMServer, Reply
from tests.test_cli import run_cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# Widget\n", encoding="utf-8")
    return folder


def tool_results(home: Path) -> list[str]:
    con = sqlite3.connect(home / "state.db")
    try:
        return [row[0] for row in con.execute("select content from messages where role='tool' order by id")]
    finally:
        con.close()


def test_reading_etc_shadow_headless_is_denied_and_nothing_of_it_is_stored(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    result = run_cli("run", "read /etc/shadow", "--home", str(home), cwd=project)
    [stored] = tool_results(home)
    assert stored.startswith("Error: reading /etc/shadow needs the user's approval")
    assert "not granted" in stored
    assert "root:" not in stored and "root:" not in result.stdout and "root:" not in result.stderr


def test_writing_the_shell_rc_file_headless_is_denied_and_allowed_with_yes(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    user_home = tmp_path / "user-home"
    user_home.mkdir(exist_ok=True)
    rc = user_home / ".bashrc"
    rc.write_text("# mine\n")
    call = json.dumps({"path": "~/.bashrc", "content": "echo owned\n"})
    env = {"HOME": str(user_home)}
    with FakeLLMServer() as server:
        for _ in range(2):
            server.enqueue(Reply(tool_calls=[("c1", "write_file", call)]), Reply(text="Done."))
        base = ["--provider", "openai", "--base-url", server.base_url_openai, "--home", str(home)]
        run_cli("run", "set up my shell", *base, cwd=project, env=env)
        assert rc.read_text() == "# mine\n"
        assert "needs the user's approval" in tool_results(home)[0]
        run_cli("run", "set up my shell", "--yes", *base, cwd=project, env=env)
    assert rc.read_text() == "echo owned\n"
    assert tool_results(home)[1] == f"Overwrote {rc}: wrote 11 bytes (1 lines)"


async def test_the_agents_own_home_is_never_read_without_approval(tmp_path: Path) -> None:
    """A home inside the working folder is still hermes's: its state.db is not handed to the model."""
    from hermes_tui.core import events as ev
    from tests.core.helpers import make_agent, openai_choice
    from tests.fake_llm import FakeLLMServer, Reply

    with FakeLLMServer() as server:
        server.enqueue(
            Reply(tool_calls=[("c1", "read_file", '{"path": "home/state.db"}')]),
            Reply(text="I could not read it."),
        )
        agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=tmp_path)
        try:
            result = await agent.run_conversation("show me the database")
        finally:
            await agent.close()
            await db.close()
    finished = log.of(ev.ToolCallFinished)[0]
    assert result.completed and finished.is_error
    assert "needs the user's approval" in finished.result and "SQLite" not in finished.result
