"""SIGTERM to the real TUI in a real terminal (tmux): the turn is interrupted and saved, exit 143.

The installed `hermes-tui` runs in tmux with the demo model streaming slowly; once the answer is
on screen the test sends SIGTERM to that process (found as the child of the pane's shell) and
reads the exit code the shell recorded, the saved partial answer and the session's end reason.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests.e2e.test_tmux import TMUX, TmuxSession


def pane_pid(session: TmuxSession) -> int:
    out = subprocess.run(
        [TMUX or "tmux", "list-panes", "-t", session.name, "-F", "#{pane_pid}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout.split()[0])


def only_child(pid: int) -> int:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    assert len(children) == 1, f"expected one child of the pane's shell, found {children}"
    return int(children[0])


def test_sigterm_interrupts_and_saves_the_turn_then_exits_143(tmp_path: Path) -> None:
    assert TMUX is not None, "tmux is required for the end-to-end test"
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    rc_file = tmp_path / "exit-code"
    executable = Path(sys.executable).with_name("hermes-tui")
    command = f"sh -c '{executable} --home {home}; echo $? > {rc_file}'"
    session = TmuxSession(f"hermes-sig-{uuid.uuid4().hex[:8]}", command, project, {"HERMES_TUI_DEMO_DELAY": "0.15"})
    try:
        session.wait_for(lambda s: "Review log" in s, what="the first frame")
        session.keys("tell me about yourself", literal=True)
        session.keys("Enter")
        session.wait_for(lambda s: "offline demo" in s, what="streaming to start")
        os.kill(only_child(pane_pid(session)), signal.SIGTERM)
        deadline = time.monotonic() + 15
        while not (rc_file.exists() and rc_file.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert rc_file.read_text().strip() == "143"
    finally:
        session.kill()
    con = sqlite3.connect(home / "state.db")
    try:
        rows = con.execute("select role, content, finish_reason from messages order by id").fetchall()
        reasons = [r[0] for r in con.execute("select end_reason from sessions")]
    finally:
        con.close()
    assert [r[0] for r in rows] == ["user", "assistant"]
    assert rows[1][2] == "interrupted" and rows[1][1].startswith("**Demo model.**")
    assert reasons == ["sigterm"]
