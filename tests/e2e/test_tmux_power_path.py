"""End to end in a real terminal: the power user's path through the installed `hermes-tui` in tmux.

search (Ctrl+F) → open a message of a compressed session → the message cursor (F5) starts on it →
branch here (b) → send in the branch → compare with the parent (F3) → inspect the compression
(F4). The state.db is prepared beforehand through SessionDB (a session compressed into a child,
with its compression record). Like the other tmux test, a missing tmux fails loudly.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.power_data import CHILD, PARENT, build_power_home
from tests.e2e.test_tmux import TMUX, TmuxSession


def rows_of(state_db: Path, session_id: str) -> list[tuple]:
    con = sqlite3.connect(state_db)
    try:
        return con.execute("select * from messages where session_id = ? order by id", (session_id,)).fetchall()
    finally:
        con.close()


def last_line(screen: str) -> str:
    """The footer: the last line with something on it."""
    return next((line for line in reversed(screen.splitlines()) if line.strip()), "")


@pytest.fixture
def power_tui(tmp_path: Path) -> Iterator[tuple[TmuxSession, Path, Path]]:
    assert TMUX is not None, "tmux is required for the end-to-end test"
    home = tmp_path / "home"
    asyncio.run(build_power_home(home))
    project = tmp_path / "project"
    project.mkdir()
    rc_file = tmp_path / "exit-code"
    executable = Path(sys.executable).with_name("hermes-tui")
    command = f"sh -c '{executable} --home {home}; echo $? > {rc_file}'"
    session = TmuxSession(f"hermes-power-{uuid.uuid4().hex[:8]}", command, project, {"HERMES_TUI_DEMO_DELAY": "0"})
    try:
        yield session, home, rc_file
    finally:
        session.kill()


def test_search_open_branch_here_send_compare_inspect(power_tui: tuple[TmuxSession, Path, Path]) -> None:
    session, home, rc_file = power_tui
    state_db = home / "state.db"
    before = {sid: rows_of(state_db, sid) for sid in (PARENT, CHILD)}
    session.wait_for(lambda s: "Review log" in s and "threshold" in s, what="the first frame")

    session.keys("C-f")
    session.wait_for(lambda s: "Type to search every session" in s, what="the search screen")
    session.keys("which ones", literal=True)
    session.wait_for(lambda s: "1 lineage" in s, what="the search results")
    session.keys("Enter")
    session.wait_for(lambda s: "rodents #2" in s.splitlines()[0] and "Which ones?" in s, what="the session opened")

    session.keys("F5")
    session.wait_for(lambda s: "Branch here" in last_line(s), what="the message cursor and its keys")
    session.keys("b")
    session.wait_for(lambda s: "Branched into" in s and "message(s) kept" in s, what="the branch")

    session.keys("what about hamsters?", literal=True)
    session.keys("Enter")
    session.wait_for(lambda s: "start again." in s and "idle" in s.splitlines()[0], what="the answer in the branch")

    session.keys("F3")
    session.wait_for(lambda s: "Compare with" in s, what="the session picker")
    session.keys("Enter")  # the parent is offered first
    # Both parts drawn (a capture can fall between the frames that draw them), then the count checked.
    screen = session.wait_for(lambda s: "shared messages" in s and "diverged" in s, what="the comparison")
    assert "≡ 2 shared messages" in screen, screen
    session.keys("Escape")
    session.wait_for(lambda s: "shared messages" not in s, what="the comparison to close")

    session.keys("F4")
    screen = session.wait_for(
        lambda s: "Compression inspector" in s and "capybaras" in s and "Summarised messages (" in s,
        what="the inspector",
    )
    assert "Summarised messages (3)" in screen
    session.keys("Escape")
    session.wait_for(lambda s: "Compression inspector" not in s, what="the inspector to close")

    session.keys("C-q")
    deadline = time.monotonic() + 10
    while not rc_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert rc_file.read_text().strip() == "0"
    # The branch is stored under the compressed session; the parent and the child kept every row.
    con = sqlite3.connect(state_db)
    try:
        (branch,) = con.execute("select id from sessions where parent_session_id = ?", (CHILD,)).fetchone()
    finally:
        con.close()
    contents = [row[3] for row in rows_of(state_db, branch)]
    assert contents[:3] == ["tell me about animals", "Which ones?", "what about hamsters?"]
    assert {sid: rows_of(state_db, sid) for sid in (PARENT, CHILD)} == before
