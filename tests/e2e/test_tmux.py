"""End to end in a real terminal: the installed `hermes-tui` in tmux, driven with send-keys, read with capture-pane.

Covers what only a real terminal proves: the four panes paint, typing goes to the prompt, a streamed
answer arrives, Ctrl-C mid-stream marks it interrupted and keeps it in state.db, Ctrl-Q exits 0.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.waits import guard

TMUX = shutil.which("tmux")  # .ci/run installs it when missing; the test fails loudly rather than skip


class TmuxSession:
    def __init__(self, name: str, command: str, cwd: Path, env: dict[str, str]) -> None:
        self.name = name
        exports = " ".join(f"{k}={v}" for k, v in env.items())
        subprocess.run(
            [
                TMUX or "tmux",
                "new-session",
                "-d",
                "-s",
                name,
                "-x",
                "140",
                "-y",
                "40",
                "-c",
                str(cwd),
                # the app must see tmux's 140×40: a COLUMNS/LINES left in the tmux server's environment (a
                # library of the test process sets them with putenv) would make it draw 80×24
                f"env -u COLUMNS -u LINES {exports} {command}",
            ],
            check=True,
            env={k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")},
        )

    def screen(self) -> str:
        out = subprocess.run(
            [TMUX or "tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True, check=False
        )
        return out.stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        args = [TMUX or "tmux", "send-keys", "-t", self.name]
        if literal:
            args.append("-l")
        subprocess.run([*args, *keys], check=True)

    def wait_for(self, predicate: Callable[[str], bool], timeout: float | None = None, what: str = "") -> str:
        deadline = time.monotonic() + guard(timeout)  # a hang guard only (tests/waits.py)
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; screen was:\n{screen}")

    def kill(self) -> None:
        subprocess.run([TMUX or "tmux", "kill-session", "-t", self.name], check=False, capture_output=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# Sprocket\n\nThe sprocket spins.\n", encoding="utf-8")
    return folder


@pytest.fixture
def tui(tmp_path: Path, project: Path) -> Iterator[tuple[TmuxSession, Path, Path]]:
    assert TMUX is not None, "tmux is required for the end-to-end test"
    home = tmp_path / "home"
    rc_file = tmp_path / "exit-code"
    executable = Path(sys.executable).with_name("hermes-tui")
    command = f"sh -c '{executable} --home {home}; echo $? > {rc_file}'"
    session = TmuxSession(f"hermes-e2e-{uuid.uuid4().hex[:8]}", command, project, {"HERMES_TUI_DEMO_DELAY": "0.15"})
    try:
        yield session, home, rc_file
    finally:
        session.kill()


def test_real_terminal_stream_interrupt_and_quit(tui: tuple[TmuxSession, Path, Path]) -> None:
    session, home, rc_file = tui
    first = session.wait_for(lambda s: "Review log" in s and "threshold" in s, what="the first frame and gauge")
    for title in ("Conversation", "Sessions", "Context", "Review log"):
        assert title in first
    assert "DEMO" in first and "threshold" in first

    session.keys("read README.md", literal=True)
    session.keys("Enter")
    session.wait_for(
        lambda s: "The sprocket spins." in s and "read_file" in s and "idle" in s.splitlines()[0],
        what="the tool round trip to finish",
    )

    session.keys("tell me about yourself", literal=True)
    session.keys("Enter")
    session.wait_for(lambda s: "offline demo" in s, what="streaming to start")
    session.keys("C-c")
    screen = session.wait_for(lambda s: "interrupted" in s, what="the interrupted marker")
    assert "offline demo" in screen  # the partial answer stays on screen

    con = sqlite3.connect(home / "state.db")
    try:
        rows = con.execute("select content, finish_reason from messages where role='assistant' order by id").fetchall()
    finally:
        con.close()
    assert rows[-1][1] == "interrupted" and rows[-1][0].startswith("**Demo model.**")

    session.keys("C-q")
    deadline = time.monotonic() + 10
    while not rc_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert rc_file.read_text().strip() == "0"
    con = sqlite3.connect(home / "state.db")
    try:
        reasons = {r[0] for r in con.execute("select end_reason from sessions")}
    finally:
        con.close()
    assert reasons == {"tui_shutdown"}
