"""Stop signals and a vanishing terminal, for the real TUI in a real terminal.

SIGTERM (tmux): the installed `hermes-tui` streams the demo model slowly; once the answer is on
screen the test sends SIGTERM to that process (the child of the pane's shell) and reads the exit
code the shell recorded, the saved partial answer and the session's end reason.

The terminal going away: `tmux kill-session` mid-stream, and again while the approval modal is
open, and a pseudo-terminal closed under the app without any SIGHUP (its writes just fail with
EIO). Each time the app must save, end the session "sighup" and be gone — the test waits on the
process with a generous hang guard and prints how long the exit took.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests.crash.helpers import PtyTerminal, cli_env, integrity, message_ids, poll, session_row, stored, stored_so_far
from tests.e2e.test_tmux import TMUX, TmuxSession
from tests.fake_llm import FakeLLMServer, Reply

LONG_ANSWER = " ".join(f"word{i}" for i in range(300))  # about 20 s at the pace below
HANG_GUARD_S = 30  # how long a process may take to go before the test calls it hung (not a timing goal)


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


def process_ended(pid: int) -> bool:
    """The process is gone, or a zombie waiting to be reaped (it has exited either way)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def tui_in_tmux(tmp_path: Path, server: FakeLLMServer) -> tuple[TmuxSession, Path, Path]:
    assert TMUX is not None, "tmux is required for the end-to-end test"
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    executable = Path(sys.executable).with_name("hermes-tui")
    command = f"sh -c '{executable} --home {home} --provider openai --base-url {server.base_url_openai}'"
    env = {"OPENAI_API_KEY": "sk-test", "HOME": str(tmp_path / "user-home"), "HERMES_TUI_DEMO_DELAY": "0"}
    session = TmuxSession(f"hermes-hup-{uuid.uuid4().hex[:8]}", command, project, env)
    session.wait_for(lambda s: "Review log" in s, what="the first frame")
    return session, home, project


def close_terminal_and_wait(session: TmuxSession, pid: int) -> float:
    started = time.monotonic()
    session.kill()
    try:
        poll(lambda: process_ended(pid), timeout=HANG_GUARD_S, what="the TUI to exit after its terminal closed")
    except AssertionError:
        os.kill(pid, signal.SIGKILL)  # a hung TUI must not outlive the test
        raise
    elapsed = time.monotonic() - started
    print(f"\nexit {elapsed:.2f} s after the terminal closed")
    return elapsed


def check_ended_by_hangup(home: Path) -> list[dict[str, object]]:
    assert integrity(home) == "ok"
    rows = stored(home)
    assert session_row(home, str(rows[0]["session_id"]))["end_reason"] == "sighup"
    ids, given = message_ids(home)
    assert ids == list(range(1, given + 1)), f"a saved row was deleted: {ids}, {given} given out"
    return rows


def test_closing_the_terminal_mid_stream_saves_the_answer_and_exits(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(Reply(text=LONG_ANSWER, chunk_size=4, delay_per_chunk=0.02))
    session, home, _ = tui_in_tmux(tmp_path, server)
    try:
        session.keys("tell me a long story", literal=True)
        session.keys("Enter")
        poll(lambda: [r for r in stored_so_far(home) if r["role"] == "assistant"], 30, "the answer to be saved")
        pid = only_child(pane_pid(session))
        close_terminal_and_wait(session, pid)
    finally:
        session.kill()
    rows = check_ended_by_hangup(home)
    assert [r["role"] for r in rows] == ["user", "assistant"]
    answer = str(rows[1]["content"])
    assert rows[1]["finish_reason"] == "interrupted" and answer and LONG_ANSWER.startswith(answer)


def test_closing_the_terminal_with_the_approval_modal_open_exits(tmp_path: Path, server: FakeLLMServer) -> None:
    marker = tmp_path / "project" / "ran.txt"
    command = json.dumps({"command": f"touch {marker}"})
    server.enqueue(Reply(text="May I run it?", tool_calls=[("call_ask", "terminal", command)]))
    session, home, _ = tui_in_tmux(tmp_path, server)
    try:
        session.keys("run the command", literal=True)
        session.keys("Enter")
        session.wait_for(lambda s: "Approval needed" in s, what="the approval modal")
        pid = only_child(pane_pid(session))
        close_terminal_and_wait(session, pid)
    finally:
        session.kill()
    rows = check_ended_by_hangup(home)
    assert [r["role"] for r in rows] == ["user", "assistant", "tool"]
    assert rows[2]["tool_call_id"] == "call_ask" and "interrupted" in str(rows[2]["content"])
    assert not marker.exists(), "the command was never approved"


def test_a_terminal_that_fails_writes_without_a_sighup_still_ends_the_app(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    """No SIGHUP at all (the terminal is not the app's controlling one): EIO on write is the only sign."""
    server.enqueue(Reply(text=LONG_ANSWER, chunk_size=4, delay_per_chunk=0.02))
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    env = cli_env({"HOME": str(tmp_path / "user-home"), "TERM": "xterm-256color"})
    argv = [sys.executable, "-m", "hermes_tui", "--home", str(home), "--provider", "openai"]
    terminal = PtyTerminal([*argv, "--base-url", server.base_url_openai], cwd=project, env=env)
    try:
        poll(lambda: terminal.shows("Ask anything"), timeout=60, what="the first frame")
        terminal.type("tell me a long story\r")
        poll(lambda: [r for r in stored_so_far(home) if r["role"] == "assistant"], 30, "the answer to be saved")
        started = time.monotonic()
        terminal.close()
        code = terminal.process.wait(timeout=HANG_GUARD_S)
        print(f"\nexit {time.monotonic() - started:.2f} s after the terminal failed")
    finally:
        terminal.stop()
    assert code == 129
    rows = check_ended_by_hangup(home)
    assert [r["role"] for r in rows] == ["user", "assistant"]
    assert rows[1]["finish_reason"] == "interrupted" and LONG_ANSWER.startswith(str(rows[1]["content"]))
