"""`hermes-tui run` and file changes: the `path +a −b` line on stderr, the permission mode from config,
--yes as yolo, /mode, and "a" at the terminal's approval prompt allowing that command for the run."""

from __future__ import annotations

import json
import os
import pty
import select
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fake_llm import FakeLLMServer, Reply
from tests.test_cli import run_cli

EDIT = {"mode": "replace", "path": "app.py", "old_string": "return 1", "new_string": "return 2"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "app.py").write_text("def main():\n    return 1\n")
    return folder


def tool_results(home: Path) -> list[str]:
    con = sqlite3.connect(home / "state.db")
    try:
        return [row[0] for row in con.execute("select content from messages where role='tool' order by id")]
    finally:
        con.close()


def model_flags(server: FakeLLMServer, home: Path) -> list[str]:
    return ["--provider", "openai", "--base-url", server.base_url_openai, "--home", str(home)]


def test_each_changed_file_is_a_path_plus_minus_line_under_its_tool_line(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    with FakeLLMServer() as server:
        server.enqueue(
            Reply(tool_calls=[("c1", "patch", json.dumps(EDIT))]),
            Reply(tool_calls=[("c2", "write_file", json.dumps({"path": "docs/a.md", "content": "a\nb\n"}))]),
            Reply(text="Edited."),
        )
        result = run_cli("run", "edit it", *model_flags(server, home), cwd=project)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    patch_line = next(i for i, line in enumerate(lines) if line.lstrip().startswith("✓ patch"))
    assert lines[patch_line + 1] == "    app.py +1 −1"
    write_line = next(i for i, line in enumerate(lines) if line.lstrip().startswith("✓ write_file"))
    assert lines[write_line + 1] == "    docs/a.md +2 −0 (new)"
    assert result.stdout.strip() == "Edited."
    assert (project / "app.py").read_text() == "def main():\n    return 2\n"


def test_read_only_from_config_refuses_the_edit_and_the_model_is_told_why(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[tools]\npermission_mode = "read_only"\n')
    with FakeLLMServer() as server:
        server.enqueue(Reply(tool_calls=[("c1", "patch", json.dumps(EDIT))]), Reply(text="Here is my plan."))
        result = run_cli("run", "edit it", *model_flags(server, home), cwd=project)
    assert result.returncode == 0, result.stderr
    [stored] = tool_results(home)
    assert "read-only (plan) mode" in stored
    assert (project / "app.py").read_text() == "def main():\n    return 1\n"


def test_yes_is_yolo_an_edit_outside_the_folder_goes_through(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("old\n")
    call = {"mode": "replace", "path": str(outside), "old_string": "old", "new_string": "new"}
    with FakeLLMServer() as server:
        for _ in range(2):
            server.enqueue(Reply(tool_calls=[("c1", "patch", json.dumps(call))]), Reply(text="Done."))
        run_cli("run", "edit", *model_flags(server, home), cwd=project)
        assert outside.read_text() == "old\n" and "needs the user's approval" in tool_results(home)[0]
        result = run_cli("run", "edit", "--yes", *model_flags(server, home), cwd=project)
    assert outside.read_text() == "new\n"
    assert f"    {outside} +1 −1" in result.stderr.splitlines()


def test_a_wrong_permission_mode_in_config_is_one_line_and_exit_2(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[tools]\npermission_mode = "sometimes"\n')
    result = run_cli("run", "hi", "--home", str(home), cwd=project)
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert "tools.permission_mode" in line and '"read_only"' in line


def test_mode_and_yolo_work_headless(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    shown = run_cli("run", "/mode", "--home", str(home), cwd=project)
    assert shown.returncode == 0 and shown.stdout.startswith("Permission mode: ask — ")
    with_yes = run_cli("run", "/mode", "--yes", "--home", str(home), cwd=project)
    assert with_yes.stdout.startswith("Permission mode: yolo — ")
    switched = run_cli("run", "/mode accept-edits", "--home", str(home), cwd=project)
    assert switched.returncode == 0 and switched.stdout.startswith("Permission mode: accept edits — ")
    assert "permission mode: accept edits" in switched.stderr
    wrong = run_cli("run", "/mode never", "--home", str(home), cwd=project)
    assert wrong.returncode == 2 and "Unknown mode 'never'" in wrong.stdout


# --------------------------------------------------------------------------- the terminal's approval prompt


def _read_until(fd: int, needle: bytes, timeout: float) -> bytes:
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


def test_a_at_the_prompt_allows_that_exact_command_for_the_rest_of_the_run(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "HERMES_TUI_"))}
    counter = project / "count.txt"
    command = f"echo x >> {counter}"
    master, slave = pty.openpty()
    with FakeLLMServer() as server:
        server.enqueue(
            Reply(tool_calls=[("c1", "terminal", json.dumps({"command": command}))]),
            Reply(tool_calls=[("c2", "terminal", json.dumps({"command": command}))]),
            Reply(text="Counted twice."),
        )
        process = subprocess.Popen(
            [sys.executable, "-m", "hermes_tui", "run", "count", *model_flags(server, home)],
            cwd=project, env=env, stdin=slave, stdout=subprocess.PIPE, stderr=slave,
        )  # fmt: skip
        os.close(slave)
        try:
            prompt = _read_until(master, b"[y/N]", 60)
            os.write(master, b"a\n")
            stdout, _ = process.communicate(timeout=60)
            rest = b""
            while select.select([master], [], [], 0)[0]:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                rest += chunk
        finally:
            if process.poll() is None:
                process.kill()
            os.close(master)
    assert b"(a: allow this exact command for the rest of this run)" in prompt
    assert process.returncode == 0 and b"Counted twice." in stdout
    assert counter.read_text() == "x\nx\n"
    assert b"[y/N]" not in rest  # the second, identical command was not asked about
