"""Every stop signal at every hard moment of a turn, in both front-ends, on fresh and resumed sessions.

SIGINT, SIGTERM and SIGHUP × three moments × `hermes-tui run` and the TUI (on a pseudo-terminal)
× a fresh session and one resumed with --resume: 36 real processes against the loopback fake
server, each stopped by a real signal at a moment the test waits for (never a sleep):

- "stream end": the whole answer has streamed and the stream has ended. The test holds state.db's
  write lock as the stream ends, so the program is caught on its first write after the stream
  (the call's token counts), and sends the signal there — the moment the answer arrived in full
  but was not yet part of the turn's history.
- "mid tool": a shell command (approved by --yes) is running.
- "after tool": the command's result is stored and the next model call is not answered yet.

After each: the exit code is 128 + N, the session's end reason is the signal's, the answer (or
the tool round) is stored exactly once, the message ids have no hole (no saved row was deleted
and replaced), the counters match the rows, and `run` says on stderr what was really stored.
"""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.crash.helpers import (
    PtyTerminal,
    WriteLock,
    cli_env,
    integrity,
    message_ids,
    poll,
    process_group_alive,
    run_args,
    run_cli,
    session_row,
    signal_delivered,
    stored,
    stored_so_far,
    waits_for_the_database,
)
from tests.fake_llm import FakeLLMServer, Hang, Reply, Stall

ANSWER = " ".join(f"word{i}" for i in range(40))
PROMPT = "go on please"
SIGNALS = {signal.SIGINT: "interrupted", signal.SIGTERM: "sigterm", signal.SIGHUP: "sighup"}
MOMENTS = ("stream end", "mid tool", "after tool")
EXIT_GUARD_S = 30  # a hang guard, not a timing assertion


@dataclass
class Template:
    """A home holding one finished session, copied for every resumed case."""

    home: Path
    session_id: str
    rows: int


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, module_server: FakeLLMServer) -> Template:
    root = tmp_path_factory.mktemp("template")
    home, project = root / "home", root / "project"
    project.mkdir()
    module_server.enqueue(Reply(text="The first answer."))
    done = run_cli(home, module_server.base_url_openai, "a first question", cwd=project)
    assert done.returncode == 0, done.stderr
    rows = stored(home)
    return Template(home, rows[0]["session_id"], len(rows))


@dataclass
class Run:
    """One stopped process: what it printed, how it ended, where its rows are."""

    home: Path
    project: Path
    pid: int
    process: subprocess.Popen[Any]
    terminal: PtyTerminal | None = None

    def wait(self) -> tuple[int, str]:
        if self.terminal is not None:
            return self.process.wait(timeout=EXIT_GUARD_S), ""
        _, err = self.process.communicate(timeout=EXIT_GUARD_S)
        return self.process.returncode, err

    def stop(self) -> None:
        if self.terminal is not None:
            self.terminal.stop()
        elif self.process.poll() is None:
            self.process.kill()
            self.process.communicate(timeout=10)


def start(front: str, home: Path, project: Path, url: str, resume: str | None) -> Run:
    flags = ["--yes", *(["--resume", resume] if resume else [])]
    env = cli_env({"HOME": str(project.parent / "user-home"), "TERM": "xterm-256color"})
    if front == "headless":
        process = subprocess.Popen(
            run_args(home, url, PROMPT, *flags),
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        return Run(home, project, process.pid, process)
    argv = [sys.executable, "-m", "hermes_tui", "--home", str(home), "--provider", "openai", "--base-url", url]
    terminal = PtyTerminal([*argv, *flags], cwd=project, env=env)
    try:
        poll(lambda: terminal.shows("Ask anything"), timeout=60, what="the TUI's first frame")
        terminal.type(PROMPT + "\r")
    except BaseException:
        terminal.stop()
        raise
    return Run(home, project, terminal.process.pid, terminal.process, terminal)


def this_turn(run: Run, before: int) -> list[dict[str, Any]]:
    return stored_so_far(run.home)[before:]


def stop_at_stream_end(run: Run, signum: int, before: int, release: threading.Event) -> None:
    poll(
        lambda: [r for r in this_turn(run, before) if r["role"] == "assistant" and r["content"] == ANSWER],
        timeout=60,
        what="the whole answer to be saved while the stream is open",
    )
    with WriteLock(run.home):
        release.set()  # the stream ends; the program's next write waits for the lock
        poll(lambda: waits_for_the_database(run.pid), timeout=60, what="the program to write after the stream")
        run.process.send_signal(signum)
        poll(lambda: signal_delivered(run.pid), timeout=60, what="the signal to be delivered")


def _describe(home: Path, rows: list[dict[str, Any]]) -> str:
    """What state.db holds, for a failed count: each row's session, id and role, each session's counters."""
    con = sqlite3.connect(f"file:{home / 'state.db'}?mode=ro", uri=True)
    try:
        sessions = con.execute("SELECT id, parent_session_id, message_count, end_reason FROM sessions").fetchall()
        every = con.execute("SELECT id, session_id, role, active, substr(content, 1, 40) FROM messages").fetchall()
    finally:
        con.close()
    shown = [(r["id"], r["session_id"], r["role"]) for r in rows]
    return f"active rows {shown}; every row {every}; sessions {sessions}"


def check_common(run: Run, signum: int, code: int, before: int) -> list[dict[str, Any]]:
    assert code == 128 + signum, f"exit {code}"
    assert integrity(run.home) == "ok"
    rows = stored(run.home)
    ids, given = message_ids(run.home)
    assert ids == list(range(1, given + 1)), f"a saved row was deleted: ids {ids}, {given} given out"
    session = session_row(run.home, rows[0]["session_id"])
    assert session["end_reason"] == SIGNALS[signum]
    assert session["message_count"] == len(rows), _describe(run.home, rows)
    calls = sum(len(json.loads(r["tool_calls"])) for r in rows if r["tool_calls"] and r["role"] == "assistant")
    assert session["tool_call_count"] == calls
    turn = rows[before:]
    assert turn[0]["role"] == "user" and turn[0]["content"] == PROMPT
    return turn


@pytest.mark.parametrize("resumed", [False, True], ids=["fresh", "resumed"])
@pytest.mark.parametrize("front", ["headless", "tui"])
@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("signum", list(SIGNALS), ids=lambda s: signal.Signals(s).name)
def test_a_stop_signal_loses_nothing_of_the_turn(
    tmp_path: Path, server: FakeLLMServer, template: Template, signum: int, moment: str, front: str, resumed: bool
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    before = 0
    if resumed:
        shutil.copytree(template.home, home)
        before = template.rows
    server.clear()
    requests = len(server.requests)
    release = threading.Event()
    pid_file = project / "tool.pid"
    if moment == "stream end":
        server.enqueue(Hang(seconds=60, first_text=ANSWER, reply=Reply(text=""), release=release))
    elif moment == "mid tool":
        command = json.dumps({"command": f"echo $$ > {pid_file.name}; sleep 60"})
        server.enqueue(Reply(text="Running it.", tool_calls=[("call_slow", "terminal", command)]))
    else:
        command = json.dumps({"command": "echo tool-done"})
        server.enqueue(Reply(text="Running it.", tool_calls=[("call_quick", "terminal", command)]), Stall(60))

    run = start(front, home, project, server.base_url_openai, template.session_id if resumed else None)
    try:
        if moment == "stream end":
            stop_at_stream_end(run, signum, before, release)
        elif moment == "mid tool":
            poll(lambda: pid_file.exists() and pid_file.read_text().strip(), timeout=60, what="the command to run")
            run.process.send_signal(signum)
        else:
            poll(
                lambda: (
                    any(r["role"] == "tool" for r in this_turn(run, before)) and len(server.requests) >= requests + 2
                ),
                timeout=60,
                what="the tool result to be stored and the next call made",
            )
            run.process.send_signal(signum)
        code, err = run.wait()
    finally:
        run.stop()

    turn = check_common(run, signum, code, before)
    assert "Traceback" not in err
    if moment == "stream end":
        assert [r["role"] for r in turn] == ["user", "assistant"]
        # interrupted: the signal met the answer before it joined the history (the usual case);
        # stop: the program had moved on just before the signal — kept whole either way
        assert turn[1]["content"] == ANSWER and turn[1]["finish_reason"] in ("interrupted", "stop")
        if front == "headless" and turn[1]["finish_reason"] == "interrupted":
            assert "partial answer saved in session" in err
    else:
        assert [r["role"] for r in turn] == ["user", "assistant", "tool"]
        call_id = json.loads(turn[1]["tool_calls"])[0]["id"]
        assert turn[2]["tool_call_id"] == call_id
        if moment == "mid tool":
            assert "interrupted" in turn[2]["content"]
            pgid = int(pid_file.read_text().strip())
            poll(lambda: not process_group_alive(pgid), timeout=10, what="the command's process group to end")
        else:
            assert "tool-done" in turn[2]["content"]
        if front == "headless":
            assert "the turn so far is saved in session" in err and "partial answer" not in err
    if front == "headless":
        assert f"stopped by {signal.Signals(signum).name}" in err
    if resumed:
        assert turn[0]["session_id"] == template.session_id
