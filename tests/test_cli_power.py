"""`hermes-tui -c/--continue [title]` and the headless goal loop, through the real entry point (real processes)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.test_cli import run_cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# Widget\n\nA widget that counts things.\n", encoding="utf-8")
    return folder


def run_json(*args: str, cwd: Path) -> dict:
    result = run_cli("run", *args, "--json", cwd=cwd)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_continue_picks_the_most_recent_session_or_the_newest_with_a_title(tmp_path: Path, project: Path) -> None:
    home = str(tmp_path / "home")
    first = run_json("hello", "--home", home, cwd=project)["session_id"]
    assert run_cli("run", "/title widget notes", "--resume", first, "--home", home, cwd=project).returncode == 0
    second = run_json("another topic", "--home", home, cwd=project)["session_id"]
    assert second != first

    again = run_json("-c", "more please", "--home", home, cwd=project)  # `run -c PROMPT`: the most recent
    assert again["session_id"] == second
    titled = run_json("--continue", "widget notes", "more about widgets", "--home", home, cwd=project)
    assert titled["session_id"] == first
    con = sqlite3.connect(Path(home) / "state.db")
    try:
        users = [r[0] for r in con.execute("select content from messages where session_id=? and role='user'", (first,))]
    finally:
        con.close()
    assert users == ["hello", "more about widgets"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["run", "-c", "no such title", "hi"], "no session matches 'no such title'"),
        (["run", "-c", "hi", "--resume", "abc"], "--continue and --resume both choose a session"),
        (["run"], "the following arguments are required: prompt"),
        (["sessions", "-c"], "does not apply to `sessions`"),
    ],
)
def test_continue_mistakes_are_one_line_and_exit_2(tmp_path: Path, project: Path, args: list[str], needle: str) -> None:
    home = str(tmp_path / "home")
    run_json("hello", "--home", home, cwd=project)
    result = run_cli(*args, "--home", home, cwd=project)
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if not line.startswith("[demo]")]  # the demo's notice
    assert lines == [f"hermes-tui: error: {lines[0].partition('error: ')[2]}"] and needle in lines[0]


def test_continue_with_nothing_to_continue(tmp_path: Path, project: Path) -> None:
    result = run_cli("run", "-c", "hi", "--home", str(tmp_path / "home"), cwd=project)
    assert result.returncode == 2 and "there is no session to continue yet" in result.stderr


def test_headless_goal_runs_until_the_judge_says_done(tmp_path: Path, project: Path) -> None:
    home = str(tmp_path / "home")
    result = run_cli("run", "/goal read README.md", "--home", home, cwd=project)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("⚑ Goal set") and "A widget that counts things." in result.stdout
    con = sqlite3.connect(Path(home) / "state.db")
    try:
        (raw,) = con.execute("select value from state_meta where key like 'goal:%'").fetchone()
    finally:
        con.close()
    assert json.loads(raw)["status"] == "done"
