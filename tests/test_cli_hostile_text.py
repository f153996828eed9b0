"""Hostile text through the real `hermes-tui` processes: nothing a terminal would obey is printed raw.

Each test runs the command as a user does (a subprocess, a real home folder, the real OpenAI SDK
against the loopback fake server) and reads the raw bytes of stdout and stderr: no ESC, BEL, C1
control or bidi override may be among them — while the escapes are there as literal text. JSON
outputs stay exact JSON: decoded, they give back the stored text byte for byte.
"""

from __future__ import annotations

import json
import os
import pty
import select
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fake_llm import Fail, FakeLLMServer, Reply
from tests.hostile_text import HOSTILE, LIVE_BYTES, SHOWN_CLIPBOARD

ANSWER = f"The zebrafish answer {HOSTILE} ends here."
REASONING = f"thinking {HOSTILE}"
SHOWN = SHOWN_CLIPBOARD.encode()


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "HERMES_TUI_"))}
    env["HERMES_TUI_DEMO_DELAY"] = "0"
    return env


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run `hermes-tui ARGS` and keep stdout and stderr as the bytes a terminal would receive."""
    return subprocess.run(
        [sys.executable, "-m", "hermes_tui", *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def assert_inert(output: bytes, where: str) -> None:
    found = LIVE_BYTES.findall(output)
    assert not found, f"raw terminal controls on {where}: {found[:5]} in {output[:400]!r}"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "evil.txt").write_text(f"file text {HOSTILE}\n", encoding="utf-8")
    return folder


@dataclass
class HostileRun:
    home: Path
    result: subprocess.CompletedProcess[bytes]


@pytest.fixture
def hostile(tmp_path: Path, project: Path) -> HostileRun:
    """`run` of a turn whose answer, reasoning, tool calls and tool result are hostile."""
    home = tmp_path / "home"
    with FakeLLMServer() as srv:
        srv.enqueue(
            Reply(
                reasoning=REASONING,
                text=f"Reading {HOSTILE}",
                tool_calls=[
                    ("c1", "read_file", json.dumps({"path": "evil.txt"})),
                    ("c2", "read_file", json.dumps({"path": f"missing{HOSTILE}.txt"})),
                ],
            ),
            Reply(text=ANSWER),
        )
        result = openai_run(srv, home, project, "read evil.txt")
    assert result.returncode == 0, result.stderr
    return HostileRun(home, result)


@pytest.fixture
def home(hostile: HostileRun) -> Path:
    """A home holding the hostile session."""
    return hostile.home


def openai_run(
    srv: FakeLLMServer, home: Path, project: Path, prompt: str, *flags: str
) -> subprocess.CompletedProcess[bytes]:
    """`hermes-tui run PROMPT` against the fake server with the OpenAI SDK."""
    provider = ("--provider", "openai", "--base-url", srv.base_url_openai)
    return cli("run", prompt, *provider, "--home", str(home), *flags, cwd=project)


def session_id(home: Path) -> str:
    con = sqlite3.connect(home / "state.db")
    try:
        return con.execute("select id from sessions order by started_at").fetchone()[0]
    finally:
        con.close()


def test_run_prints_the_answer_and_the_tool_lines_inert(hostile: HostileRun) -> None:
    stdout, stderr = hostile.result.stdout, hostile.result.stderr
    assert_inert(stdout, "stdout")
    assert_inert(stderr, "stderr")
    assert SHOWN in stdout and b"The zebrafish answer" in stdout
    tool_lines = [line for line in stderr.splitlines() if b"read_file" in line]
    assert any(b"missing\\x1b]0;pwned-title\\x07" in line for line in tool_lines), tool_lines


def test_a_failure_message_from_the_provider_is_printed_inert(tmp_path: Path, project: Path) -> None:
    with FakeLLMServer() as srv:
        srv.enqueue(Fail(400, f"bad request {HOSTILE}"))
        result = openai_run(srv, tmp_path / "home", project, "hello")
    assert result.returncode != 0
    assert_inert(result.stdout, "stdout")
    assert_inert(result.stderr, "stderr")
    assert b"bad request" in result.stderr and SHOWN in result.stderr


def test_run_json_is_exact_json_with_nothing_live(tmp_path: Path, project: Path) -> None:
    with FakeLLMServer() as srv:
        srv.enqueue(Reply(text=ANSWER))
        result = openai_run(srv, tmp_path / "home", project, "hello", "--json")
    assert result.returncode == 0, result.stderr
    assert_inert(result.stdout, "stdout")
    assert json.loads(result.stdout)["final_response"] == ANSWER  # the exact text, escaped as JSON


def test_run_json_with_lone_surrogates_from_the_model_saves_the_turn(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    with FakeLLMServer() as srv:
        srv.enqueue(
            Reply(text="odd \ud800", tool_calls=[("c1", "read_file", '{"path": "evil\udfff.txt"}')]),
            Reply(text="answer \udc00 end"),
        )
        result = openai_run(srv, home, project, "hello", "--json")
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
    payload = json.loads(result.stdout)
    assert payload["final_response"] == "answer \ufffd end"
    con = sqlite3.connect(home / "state.db")
    rows = con.execute("select role, content from messages order by id").fetchall()
    con.close()
    assert rows[0] == ("user", "hello") and rows[-1] == ("assistant", "answer \ufffd end")


def test_search_table_and_json_show_snippets_inert(home: Path, project: Path) -> None:
    table = cli("search", "zebrafish", "--home", str(home), cwd=project)
    assert table.returncode == 0, table.stderr
    assert_inert(table.stdout, "search stdout")
    assert b"zebrafish" in table.stdout and b"\\x1b" in table.stdout
    as_json = cli("search", "zebrafish", "--json", "--home", str(home), cwd=project)
    assert_inert(as_json.stdout, "search --json stdout")
    hits = json.loads(as_json.stdout)
    assert hits and "\x1b" in hits[0]["snippet"], "decoded JSON gives the exact text back"


def test_sessions_table_and_json_show_a_hostile_title_inert(home: Path, project: Path) -> None:
    con = sqlite3.connect(home / "state.db")  # another program wrote this title
    with con:
        con.execute("update sessions set title = ?", (f"T{HOSTILE}",))
    con.close()
    table = cli("sessions", "--home", str(home), cwd=project)
    assert table.returncode == 0, table.stderr
    assert_inert(table.stdout, "sessions stdout")
    assert b"T\\x1b]0;pwned" in table.stdout
    as_json = cli("sessions", "--json", "--home", str(home), cwd=project)
    assert_inert(as_json.stdout, "sessions --json stdout")
    assert json.loads(as_json.stdout)[0]["title"] == f"T{HOSTILE}"


@pytest.mark.parametrize("fmt", ["md", "json", "jsonl"])
def test_export_prints_every_format_inert(home: Path, project: Path, fmt: str) -> None:
    result = cli("export", session_id(home), "--format", fmt, "--home", str(home), cwd=project)
    assert result.returncode == 0, result.stderr
    assert_inert(result.stdout, f"export --format {fmt}")
    if fmt == "md":
        assert SHOWN in result.stdout and b"zebrafish" in result.stdout
        assert b"file text \\x1b]0;pwned-title" in result.stdout, "the tool result is shown too"
        return
    text = result.stdout.decode()
    if fmt == "jsonl":
        contents = [line["content"] for line in map(json.loads, text.splitlines()) if line["type"] == "message"]
    else:
        contents = [m["content"] for session in json.loads(text)["sessions"] for m in session["messages"]]
    assert ANSWER in contents, "decoded, the export gives back the exact answer"


def test_export_to_a_file_is_inert_too(home: Path, project: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.md"
    result = cli("export", session_id(home), "--output", str(target), "--home", str(home), cwd=project)
    assert result.returncode == 0, result.stderr
    assert_inert(target.read_bytes(), str(target))
    assert SHOWN in target.read_bytes()


# --------------------------------------------------------------------------- the y/N approval prompt


def _read_until(fd: int, needle: bytes, timeout: float) -> bytes:
    """Read a pty until `needle` appears (or the process closes it); fail after `timeout` seconds."""
    seen = b""
    deadline = time.monotonic() + timeout
    while needle not in seen:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"timed out waiting for {needle!r}; got {seen[-400:]!r}")
        ready, _, _ = select.select([fd], [], [], remaining)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        ("rm -rf ~/scratch\rls -la", b"rm -rf ~/scratch\\rls -la"),
        ("rm -rf ~/scratch \x1b[2K\x1b[1Gls -la", b"rm -rf ~/scratch \\x1b[2K\\x1b[1Gls -la"),
        ("rm -rf ~/scratch #\x1b[3D\x1b[A\x1b[8mls -la", b"rm -rf ~/scratch #\\x1b[3D\\x1b[A\\x1b[8mls -la"),
        ("rm -rf ~/scratch #\u202eal- sl", b"rm -rf ~/scratch #\\u202eal- sl"),
    ],
    ids=["carriage-return", "erase-line", "cursor-moves", "bidi-override"],
)
def test_the_terminal_approval_prompt_shows_the_exact_command_and_flags_it(
    tmp_path: Path, project: Path, command: str, shown: bytes
) -> None:
    home = tmp_path / "home"
    master, slave = pty.openpty()
    with FakeLLMServer() as srv:
        srv.enqueue(
            Reply(tool_calls=[("c1", "terminal", json.dumps({"command": command}))]),
            Reply(text="Not run."),
        )
        process = subprocess.Popen(
            [sys.executable, "-m", "hermes_tui", "run", "clean up", "--provider", "openai",
             "--base-url", srv.base_url_openai, "--home", str(home)],
            cwd=project, env=_env(), stdin=slave, stdout=subprocess.PIPE, stderr=slave,
        )  # fmt: skip
        os.close(slave)
        try:
            prompt = _read_until(master, b"[y/N]", 30)
            os.write(master, b"n\n")
            stdout, _ = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
            os.close(master)
    assert shown in prompt, prompt
    assert b"hidden control characters" in prompt
    # The pty itself turns our "\n" into "\r\n": look for live controls other than that CR.
    assert_inert(prompt.replace(b"\r\n", b"\n"), "the approval prompt")
    assert process.returncode == 0 and b"Not run." in stdout
