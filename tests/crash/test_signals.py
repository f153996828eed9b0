"""SIGINT, SIGTERM and SIGHUP stop `hermes-tui run` the way Ctrl-C does, in a real process.

The partial answer is kept (marked interrupted), a running shell command's whole process group is
killed, the session is ended with the signal's reason, the exit code is 128 + the signal number,
and `--resume` carries on from what was saved.
"""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
from pathlib import Path

import pytest

from tests.crash.helpers import (
    cli_env,
    integrity,
    poll,
    process_group_alive,
    run_args,
    run_cli,
    session_row,
    start_run,
    stored,
    stored_so_far,
)
from tests.fake_llm import FakeLLMServer, Reply, Stall

SLOW_TEXT = " ".join(f"word{i}" for i in range(200))
EXPECTED = {
    signal.SIGINT: (130, "interrupted"),
    signal.SIGTERM: (143, "sigterm"),
    signal.SIGHUP: (129, "sighup"),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=20)
    return process.returncode, out, err


@pytest.mark.parametrize("signum", list(EXPECTED), ids=lambda s: signal.Signals(s).name)
def test_a_signal_mid_stream_keeps_the_partial_answer_and_ends_the_session(
    tmp_path: Path, project: Path, signum: int
) -> None:
    home = tmp_path / "home"
    code, reason = EXPECTED[signum]
    with FakeLLMServer() as srv:
        srv.enqueue(Reply(text=SLOW_TEXT, chunk_size=8, delay_per_chunk=0.05))
        process = start_run(home, srv.base_url_openai, "tell me a long story", cwd=project)
        poll(lambda: [r for r in stored_so_far(home) if r["role"] == "assistant"], what="the answer to be saved")
        process.send_signal(signum)
        returncode, out, err = finish(process)
        assert returncode == code, err
        assert "Traceback" not in err and f"stopped by {signal.Signals(signum).name}" in err
        rows = stored(home)
        assert [r["role"] for r in rows] == ["user", "assistant"]
        assert rows[1]["finish_reason"] == "interrupted" and SLOW_TEXT.startswith(rows[1]["content"])
        assert rows[1]["content"] in out, "what was saved is what the user saw"
        session_id = rows[0]["session_id"]
        assert session_row(home, session_id)["end_reason"] == reason
        assert integrity(home) == "ok"

        srv.enqueue(Reply(text="Picking up where we stopped."))
        resumed = run_cli(home, srv.base_url_openai, "go on", "--resume", session_id, "--json", cwd=project)
        assert resumed.returncode == 0, resumed.stderr
        assert json.loads(resumed.stdout)["final_response"] == "Picking up where we stopped."
        sent = json.dumps(srv.last_body)
        # (the request copy strips each message's outer whitespace, as Hermes does: a cut can end in a space)
        assert rows[1]["content"].strip() in sent, "the partial answer is part of the resumed history"


def test_sigterm_while_the_shell_tool_runs_kills_its_process_group(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    pid_file = project / "group.pid"
    command = json.dumps({"command": f"echo $$ > {pid_file.name}; sleep 30 & sleep 30; wait"})
    with FakeLLMServer() as srv:
        srv.enqueue(Reply(text="Starting a long job.", tool_calls=[("call_long", "terminal", command)]))
        process = start_run(home, srv.base_url_openai, "run the long job", "--yes", cwd=project)
        pgid = int(poll(lambda: pid_file.exists() and pid_file.read_text().strip(), what="the command to start"))
        assert process_group_alive(pgid)
        process.send_signal(signal.SIGTERM)
        returncode, _, err = finish(process)
    assert returncode == 143, err
    poll(lambda: not process_group_alive(pgid), timeout=5, what="the command's process group to be gone")
    rows = stored(home)
    assert [r["role"] for r in rows] == ["user", "assistant", "tool"]
    assert rows[1]["tool_calls"] and json.loads(rows[1]["tool_calls"])[0]["id"] == "call_long"
    assert rows[2]["tool_call_id"] == "call_long" and "interrupted" in rows[2]["content"]
    assert session_row(home, rows[0]["session_id"])["end_reason"] == "sigterm"


def test_sigterm_before_the_model_answers_keeps_the_prompt(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    with FakeLLMServer() as srv:
        srv.enqueue(Stall(seconds=600))
        process = start_run(home, srv.base_url_openai, "a prompt worth keeping", cwd=project)
        poll(lambda: len(srv.requests) >= 1, what="the request")
        process.send_signal(signal.SIGTERM)
        returncode, _, err = finish(process)
    assert returncode == 143, err
    rows = stored(home)
    assert [(r["role"], r["content"]) for r in rows] == [("user", "a prompt worth keeping")]
    assert session_row(home, rows[0]["session_id"])["end_reason"] == "sigterm"


def test_sigterm_during_the_approval_prompt_does_not_wait_for_an_answer(tmp_path: Path, project: Path) -> None:
    """The y/N prompt reads the terminal in a worker thread; a signal must not wait for Enter."""
    home = tmp_path / "home"
    err_file = tmp_path / "stderr.txt"
    command = json.dumps({"command": "echo approved"})
    master, terminal = pty.openpty()
    try:
        with FakeLLMServer() as srv, err_file.open("w") as err:
            srv.enqueue(Reply(text="May I?", tool_calls=[("call_ask", "terminal", command)]))
            process = subprocess.Popen(
                run_args(home, srv.base_url_openai, "run something"),
                cwd=project,
                env=cli_env(),
                stdin=terminal,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
            poll(lambda: "[y/N]" in err_file.read_text(), what="the approval prompt")
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=10) == 143
    finally:
        os.close(master)
        os.close(terminal)
    rows = stored(home)
    assert [r["role"] for r in rows] == ["user", "assistant", "tool"]
    assert rows[2]["tool_call_id"] == "call_ask" and "interrupted" in rows[2]["content"]
    assert session_row(home, rows[0]["session_id"])["end_reason"] == "sigterm"
