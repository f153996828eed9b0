"""Private file modes, created that way: the home and its folders 0700; state.db, its -wal and -shm,
memories and exports 0600 — under a umask of 0, so nothing relies on the umask to be private."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_tui.store.db import SessionDB
from hermes_tui.store.file_modes import make_private_dir, write_private_text
from tests.test_cli import run_cli


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """umask 0 for this test (process-wide; restored after)."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def run_cli_with_umask_0(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "HERMES_TUI_"))}
    env["HERMES_TUI_DEMO_DELAY"] = "0"
    return subprocess.run(
        [sys.executable, "-m", "hermes_tui", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        preexec_fn=lambda: os.umask(0),
    )


def test_run_creates_a_private_home(tmp_path: Path) -> None:
    home = tmp_path / "new" / "home"
    result = run_cli_with_umask_0("run", "hello", "--home", str(home), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert mode(home) == 0o700 and mode(home / "memories") == 0o700 and mode(home / "skills") == 0o700
    assert mode(home / "state.db") == 0o600
    assert "warning" not in result.stderr  # a home we just created is private: nothing to warn about


async def test_state_db_wal_and_shm_are_private_while_open(tmp_path: Path, open_umask: None) -> None:
    path = tmp_path / "home" / "state.db"
    db = await SessionDB.open(path)
    try:
        await db.create_session("s1", "cli")
        await db.append_message("s1", "user", "hello")
        wal, shm = path.with_name("state.db-wal"), path.with_name("state.db-shm")
        assert wal.exists() and shm.exists()
        assert (mode(path.parent), mode(path), mode(wal), mode(shm)) == (0o700, 0o600, 0o600, 0o600)
    finally:
        await db.close()


def test_private_text_files_and_folders(tmp_path: Path, open_umask: None) -> None:
    memory = tmp_path / "memories" / "MEMORY.md"
    assert make_private_dir(memory.parent) is True and make_private_dir(memory.parent) is False
    write_private_text(memory, "note\n")
    assert mode(memory.parent) == 0o700 and mode(memory) == 0o600 and memory.read_text() == "note\n"
    with pytest.raises(FileExistsError):
        write_private_text(memory, "other\n")
    assert memory.read_text() == "note\n"
    open_folder = tmp_path / "shared"
    open_folder.mkdir(mode=0o755)
    assert make_private_dir(open_folder) is False and mode(open_folder) == 0o755  # never chmod-ed behind a user


def test_export_to_a_file_is_private_and_never_overwrites(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run_cli("run", "hello", "--home", str(home), cwd=tmp_path).returncode == 0
    target = tmp_path / "out" / "chat.md"
    target.parent.mkdir()
    listing = run_cli("sessions", "--json", "--home", str(home), cwd=tmp_path).stdout
    session_id = listing.split('"id": "')[1].split('"')[0]
    exported = run_cli_with_umask_0("export", session_id, "--output", str(target), "--home", str(home), cwd=tmp_path)
    assert exported.returncode == 0 and exported.stdout == ""
    assert exported.stderr == f"exported to {target}\n"
    assert mode(target) == 0o600
    to_stdout = run_cli("export", session_id, "--home", str(home), cwd=tmp_path)
    assert target.read_text(encoding="utf-8") == to_stdout.stdout and "hello" in to_stdout.stdout

    again = run_cli("export", session_id, "-o", str(target), "--home", str(home), cwd=tmp_path)
    assert again.returncode == 2 and again.stdout == ""
    assert (
        again.stderr
        == f"hermes-tui: error: {target} exists already; choose another --output (nothing is overwritten)\n"
    )
    assert target.read_text(encoding="utf-8") == to_stdout.stdout

    nowhere = tmp_path / "missing" / "chat.md"
    lost = run_cli("export", session_id, "-o", str(nowhere), "--home", str(home), cwd=tmp_path)
    assert lost.returncode == 2 and lost.stderr.count("\n") == 1 and "does not exist" in lost.stderr
    unknown = run_cli(
        "export", "no-such-session", "-o", str(tmp_path / "out" / "x.md"), "--home", str(home), cwd=tmp_path
    )
    assert unknown.returncode == 2 and not (tmp_path / "out" / "x.md").exists()  # no empty file left behind


@pytest.mark.parametrize("command", [["run", "hello"], ["sessions"]])
def test_an_open_existing_home_gets_one_warning_line(tmp_path: Path, command: list[str]) -> None:
    home = tmp_path / "home"
    assert run_cli("run", "hello", "--home", str(home), cwd=tmp_path).returncode == 0
    home.chmod(0o755)
    result = run_cli(*command, "--home", str(home), cwd=tmp_path)
    assert result.returncode == 0 and result.stdout
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warnings == [
        f"hermes-tui: warning: home folder {home} is 0755, readable by other users; `chmod 700 {home}` makes it private"
    ]
    assert mode(home) == 0o755  # reported, not changed


def test_doctor_reports_loose_modes_and_exits_1(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run_cli("run", "hello", "--home", str(home), cwd=tmp_path).returncode == 0
    healthy = run_cli("doctor", "--home", str(home), cwd=tmp_path)
    assert healthy.returncode == 0 and healthy.stdout.endswith("No problems found.\n")
    (home / "memories" / "USER.md").write_text("likes tea\n")
    (home / "memories" / "USER.md").chmod(0o644)
    (home / "state.db").chmod(0o644)
    home.chmod(0o750)
    report = run_cli("doctor", "--home", str(home), cwd=tmp_path)
    assert report.returncode == 1 and report.stderr == ""
    problems = [line.split(None, 2)[1:] for line in report.stdout.splitlines() if line.strip().startswith("PROBLEM")]
    assert [p[0] for p in problems] == ["home", "state.db", "memory"]
    assert f"`chmod 700 {home}`" in report.stdout and f"`chmod 600 {home / 'state.db'}`" in report.stdout
    assert f"`chmod 600 {home / 'memories' / 'USER.md'}`" in report.stdout
    assert report.stdout.endswith("3 problem(s).\n")
