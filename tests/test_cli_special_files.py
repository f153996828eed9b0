"""Special files and huge inputs where the home's files should be (issue 17 item 9), run as the real
entry point (`python -m hermes_tui` in a subprocess with `--home` in tmp_path).

A FIFO as state.db (or its -wal) or as config.toml, config.toml a symlink to /dev/zero, a
config.toml over 1 MB or with 5,000 nested arrays: every command ends at once with one line on
stderr naming the file and exit code 2 (`doctor` reports the same as a finding). The subprocess
timeout is only a hang guard: before the fix these runs blocked on the FIFO or read /dev/zero
until killed. FIFOs where optional files are read (memories, SOUL.md, AGENTS.md, tui_state.json,
skills) are skipped: the turn still runs.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.test_cli import run_cli

HANG_GUARD_S = 60


def assert_one_line_error(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hermes-tui: error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], result.stderr


def doctor(home: Path, cwd: Path) -> tuple[int, dict[str, dict[str, str]]]:
    result = run_cli("doctor", "--json", "--home", str(home), cwd=cwd, timeout=HANG_GUARD_S)
    assert "Traceback" not in result.stderr
    findings = {f["name"]: f for f in json.loads(result.stdout)["findings"]}
    return result.returncode, findings


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir(mode=0o700)
    return folder


@pytest.fixture
def used_home(home: Path) -> Path:
    """A home with a real state.db (one demo turn) in it."""
    result = run_cli("run", "hello", "--home", str(home), cwd=home.parent, timeout=HANG_GUARD_S)
    assert result.returncode == 0, result.stderr
    return home


COMMANDS = [
    pytest.param(["run", "hi"], id="run"),
    pytest.param([], id="tui"),
    pytest.param(["sessions"], id="sessions"),
    pytest.param(["search", "hello"], id="search"),
    pytest.param(["export", "any-id"], id="export"),
    pytest.param(["replay", "any-id", "--provider", "demo"], id="replay"),
]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_fifo_as_state_db_is_one_line_for_every_command(home: Path, command: list[str]) -> None:
    os.mkfifo(home / "state.db", 0o600)
    result = run_cli(*command, "--home", str(home), cwd=home.parent, timeout=HANG_GUARD_S)
    assert_one_line_error(result, f"{home / 'state.db'}: is a FIFO (named pipe), not a regular file")


def test_doctor_reports_a_fifo_as_state_db(home: Path) -> None:
    os.mkfifo(home / "state.db", 0o600)
    code, findings = doctor(home, home.parent)
    assert code == 1
    assert findings["state.db"]["status"] == "problem"
    assert "is a FIFO (named pipe), not a regular file" in findings["state.db"]["detail"]


def test_a_fifo_as_the_wal_is_refused_before_sqlite_opens_it(used_home: Path) -> None:
    wal = used_home / "state.db-wal"
    wal.unlink(missing_ok=True)
    os.mkfifo(wal, 0o600)
    result = run_cli("run", "hi", "--home", str(used_home), cwd=used_home.parent, timeout=HANG_GUARD_S)
    assert_one_line_error(result, f"{wal}: is a FIFO")
    code, findings = doctor(used_home, used_home.parent)
    assert code == 1 and f"{wal}: is a FIFO" in findings["state.db"]["detail"]


@pytest.mark.parametrize("command", [c for c in COMMANDS if c.id in ("run", "tui", "replay")])
def test_a_fifo_as_config_toml_is_one_line(used_home: Path, command: list[str]) -> None:
    os.mkfifo(used_home / "config.toml", 0o600)
    result = run_cli(*command, "--home", str(used_home), cwd=used_home.parent, timeout=HANG_GUARD_S)
    assert_one_line_error(result, f"{used_home / 'config.toml'}: cannot read: is a FIFO (named pipe)")


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        pytest.param(lambda p: os.mkfifo(p, 0o600), "is a FIFO (named pipe), not a regular file", id="fifo"),
        pytest.param(lambda p: p.symlink_to("/dev/zero"), "is a character device, not a regular file", id="dev-zero"),
        pytest.param(lambda p: p.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n"), "nested too deeply", id="nested"),
        pytest.param(
            lambda p: p.write_text("# padding\n" * 120_000), "larger than 1 MB (1,200,000 bytes)", id="over-1-MB"
        ),
    ],
)
def test_config_toml_that_cannot_be_used_is_one_line_and_a_doctor_finding(home: Path, make, fragment: str) -> None:
    config = home / "config.toml"
    make(config)
    result = run_cli("run", "hi", "--home", str(home), cwd=home.parent, timeout=HANG_GUARD_S)
    assert_one_line_error(result, str(config), fragment)
    code, findings = doctor(home, home.parent)
    assert code == 1
    assert findings["config.toml"]["status"] == "problem" and fragment in findings["config.toml"]["detail"]


def test_doctor_says_a_good_config_toml_loads(home: Path) -> None:
    (home / "config.toml").write_text("[agent]\nmax_turns = 10\n")
    code, findings = doctor(home, home.parent)
    assert code == 0 and findings["config.toml"]["status"] == "ok"


def test_fifos_where_optional_files_are_read_are_skipped(used_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (used_home / "memories").mkdir(exist_ok=True)
    skill = used_home / "skills" / "tools" / "fifo-skill"
    skill.mkdir(parents=True)
    for path in (
        used_home / "memories" / "MEMORY.md",
        used_home / "memories" / "USER.md",
        used_home / "SOUL.md",
        used_home / "tui_state.json",
        used_home / "skills" / "tools" / "DESCRIPTION.md",
        used_home / "skills" / ".usage.json",
        skill / "SKILL.md",
        project / "AGENTS.md",
    ):
        os.mkfifo(path, 0o600)
    result = run_cli("run", "read README.md", "--home", str(used_home), cwd=project, timeout=HANG_GUARD_S)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
