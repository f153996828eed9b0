"""What `hermes-tui` checks before it reads state.db or calls a model, run as the real entry point
(`python -m hermes_tui` in a subprocess): a damaged state.db, a read-only home, bad configuration.
Every refusal is one line on stderr with exit code 2 and no traceback."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_tui import cli
from hermes_tui.config import ConfigError
from tests.conftest import LOCAL_FIXTURE_DB
from tests.fake_llm import FakeLLMServer, Reply
from tests.store.test_check import build_state_db, corrupt_one_page
from tests.test_cli import run_cli


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assert_one_line_error(result: subprocess.CompletedProcess, fragment: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hermes-tui: error: ") and fragment in lines[0], result.stderr


# --------------------------------------------------------------------------- a damaged state.db


@pytest.fixture
async def damaged_home(tmp_path: Path) -> Path:
    home = tmp_path / "damaged-home"
    home.mkdir(mode=0o700)
    await build_state_db(home / "state.db")
    corrupt_one_page(home / "state.db")
    return home


def test_run_refuses_a_damaged_db_before_any_model_call(tmp_path: Path, damaged_home: Path) -> None:
    before = digest(damaged_home / "state.db")
    with FakeLLMServer() as srv:
        srv.enqueue(Reply(text="should never be asked"))
        result = run_cli(
            "run",
            "hi",
            "--provider",
            "openai",
            "--base-url",
            srv.base_url_openai,
            "--home",
            str(damaged_home),
            cwd=tmp_path,
        )
        assert srv.requests == []
    assert_one_line_error(result, f"{damaged_home / 'state.db'} is damaged (Page ")
    assert "run `hermes-tui doctor` for a full report" in result.stderr
    assert digest(damaged_home / "state.db") == before


@pytest.mark.parametrize("command", [["sessions"], ["search", "lorem"], ["export", "s1"]])
def test_read_commands_refuse_a_damaged_db(tmp_path: Path, damaged_home: Path, command: list[str]) -> None:
    result = run_cli(*command, "--home", str(damaged_home), cwd=tmp_path)
    assert_one_line_error(result, "is damaged (Page ")
    assert result.stdout == ""


def test_the_tui_refuses_a_damaged_db_before_it_starts(damaged_home: Path) -> None:
    with pytest.raises(cli.UsageError, match=r"is damaged \(Page \d+: "):
        cli.prepare(cli.parse_args(["--home", str(damaged_home)]))


def test_version_never_opens_the_db(tmp_path: Path, damaged_home: Path) -> None:
    code = (
        "import sys; from hermes_tui.cli import main; code = main(['--version']);"
        "print(code, sorted(m for m in sys.modules if m.startswith(('sqlite3', 'aiosqlite', 'hermes_tui.store.c',"
        " 'hermes_tui.store.db'))))"
    )
    env = {**os.environ, "HERMES_TUI_HOME": str(damaged_home)}
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert probe.stdout.splitlines()[-1] == "0 []"
    assert run_cli("--version", cwd=tmp_path, env={"HERMES_TUI_HOME": str(damaged_home)}).returncode == 0


def test_doctor_reports_the_damage_with_exit_1(tmp_path: Path, damaged_home: Path) -> None:
    result = run_cli("doctor", "--json", "--home", str(damaged_home), cwd=tmp_path)
    assert result.returncode == 1 and result.stderr == ""
    report = json.loads(result.stdout)
    assert report["ok"] is False and report["home"] == str(damaged_home)
    integrity = next(f for f in report["findings"] if f["name"] == "integrity")
    assert integrity["status"] == "problem" and integrity["detail"].startswith("first problem: Page ")


# --------------------------------------------------------------------------- a read-only home


def without_write_access(command: list[str]) -> list[str]:
    """`command` run so that file permissions apply: as root, without the capabilities that bypass them."""
    if os.geteuid() != 0:
        return command
    setpriv = shutil.which("setpriv")
    assert setpriv, "running these tests as root needs util-linux's setpriv to drop CAP_DAC_OVERRIDE"
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner", *command]


def run_cli_read_only(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "HERMES_TUI_"))}
    env["HERMES_TUI_DEMO_DELAY"] = "0"
    return subprocess.run(
        without_write_access([sys.executable, "-m", "hermes_tui", *args]),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def read_only_home(tmp_path: Path) -> Iterator[Path]:
    """A home with one finished session (state.db closed cleanly, no -wal/-shm), then made read-only."""
    home = tmp_path / "ro-home"
    first = run_cli("run", "remember the walrus", "--json", "--home", str(home), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert sorted(p.name for p in home.iterdir()) == ["memories", "skills", "state.db"]
    (home / "state.db").chmod(0o400)
    home.chmod(0o500)
    try:
        yield home
    finally:
        home.chmod(0o700)
        (home / "state.db").chmod(0o600)


def test_read_commands_work_in_a_read_only_home(tmp_path: Path, read_only_home: Path) -> None:
    before = digest(read_only_home / "state.db")
    listing = run_cli_read_only("sessions", "--json", "--home", str(read_only_home), cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    [session] = json.loads(listing.stdout)
    found = run_cli_read_only("search", "walrus", "--json", "--home", str(read_only_home), cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert {hit["session_id"] for hit in json.loads(found.stdout)} == {session["id"]}
    exported = run_cli_read_only("export", session["id"], "--home", str(read_only_home), cwd=tmp_path)
    assert exported.returncode == 0 and "remember the walrus" in exported.stdout
    to_file = tmp_path / "walrus.md"
    saved = run_cli_read_only("export", session["id"], "-o", str(to_file), "--home", str(read_only_home), cwd=tmp_path)
    assert saved.returncode == 0 and to_file.read_text(encoding="utf-8") == exported.stdout
    doctor = run_cli_read_only("doctor", "--home", str(read_only_home), cwd=tmp_path)
    assert doctor.returncode == 0, doctor.stdout
    assert "FTS5 integrity-check skipped: read-only" in doctor.stdout
    assert digest(read_only_home / "state.db") == before
    assert sorted(p.name for p in read_only_home.iterdir()) == ["memories", "skills", "state.db"]


def test_run_in_a_read_only_home_is_one_line(tmp_path: Path, read_only_home: Path) -> None:
    result = run_cli_read_only("run", "hi", "--home", str(read_only_home), cwd=tmp_path)
    assert_one_line_error(result, f"cannot use home folder {read_only_home}: not readable and writable")


def test_unsaved_changes_in_a_read_only_home_are_one_line(tmp_path: Path) -> None:
    """A crash left commits in state.db-wal; without write access they cannot be read safely."""
    source = tmp_path / "live" / "state.db"
    source.parent.mkdir()
    writer = sqlite3.connect(source)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE t(x)")
    writer.execute("INSERT INTO t VALUES (1)")
    writer.commit()
    home = tmp_path / "crashed"
    home.mkdir()
    shutil.copyfile(source, home / "state.db")
    shutil.copyfile(source.with_name("state.db-wal"), home / "state.db-wal")
    writer.close()
    home.chmod(0o500)
    try:
        result = run_cli_read_only("sessions", "--home", str(home), cwd=tmp_path)
    finally:
        home.chmod(0o700)
    assert_one_line_error(result, "recent changes are still in state.db-wal and this folder is read-only")


def test_a_read_only_hermes_db_is_read_without_our_own_indexes(tmp_path: Path) -> None:
    """Hermes's own file lacks our speed-up indexes; read-only, they cannot be added and are not needed."""
    home = tmp_path / "hermes-home"
    home.mkdir()
    shutil.copyfile(LOCAL_FIXTURE_DB, home / "state.db")
    before = digest(home / "state.db")
    home.chmod(0o500)
    try:
        listing = run_cli_read_only("sessions", "--json", "--home", str(home), cwd=tmp_path)
        found = run_cli_read_only("search", "桂林旅游", "--json", "--home", str(home), cwd=tmp_path)
    finally:
        home.chmod(0o700)
    assert listing.returncode == 0, listing.stderr
    assert any(row["title"] == "refactor auth #3" for row in json.loads(listing.stdout))
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout), "the Hermes fixture's CJK message is found"
    assert digest(home / "state.db") == before


def test_a_read_only_db_with_an_older_schema_is_one_line(tmp_path: Path) -> None:
    """A file whose schema is older than v14 needs work we cannot do without write access: we say so."""
    home = tmp_path / "old-home"
    home.mkdir()
    shutil.copyfile(LOCAL_FIXTURE_DB, home / "state.db")
    with sqlite3.connect(home / "state.db") as conn:
        conn.execute("UPDATE schema_version SET version = 13")
    conn.close()
    home.chmod(0o500)
    try:
        result = run_cli_read_only("sessions", "--home", str(home), cwd=tmp_path)
    finally:
        home.chmod(0o700)
    assert_one_line_error(
        result,
        "has schema v13 and needs an upgrade to v21 (a read-only open reads v14 and later), but it is read-only here",
    )


# --------------------------------------------------------------------------- bad configuration


@pytest.mark.parametrize(
    ("args", "env", "toml", "message"),
    [
        (
            ["--context-length", "2000"],
            {},
            None,
            "--context-length must be 0 (the model's known window) or at least 64,000 tokens, got 2000",
        ),
        (
            [],
            {"HERMES_TUI_CONTEXT_LENGTH": "2000"},
            None,
            "environment variable HERMES_TUI_CONTEXT_LENGTH must be 0 (the model's known window) or at least",
        ),
        ([], {"HERMES_TUI_PROVIDER": "gemini"}, None, "environment variable HERMES_TUI_PROVIDER: unknown provider"),
        (["--base-url", "localhost:8080"], {}, None, "--base-url must be an http:// or https:// URL"),
        ([], {}, b"[tools]\nterminal_timeout = 0\n", "config.toml: 'tools.terminal_timeout' must be > 0 seconds"),
        ([], {}, b"[model]\nname = '\xe9t\xe9'\n", "config.toml: not UTF-8 text (byte 16); save it as UTF-8"),
    ],
)
def test_bad_configuration_names_its_source(
    tmp_path: Path, args: list[str], env: dict[str, str], toml: bytes | None, message: str
) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    if toml is not None:
        (home / "config.toml").write_bytes(toml)
    result = run_cli("run", "hi", *args, "--home", str(home), cwd=tmp_path, env=env)
    assert_one_line_error(result, message)
    if toml is None:
        assert "config.toml" not in result.stderr
    assert not (home / "state.db").exists()  # refused before anything was opened


def test_a_missing_home_for_read_commands_is_one_line(tmp_path: Path) -> None:
    result = run_cli("sessions", "--home", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert_one_line_error(result, f"home folder {tmp_path / 'nowhere'} does not exist")
    assert not (tmp_path / "nowhere").exists()


def test_configuration_errors_are_config_errors_in_process(tmp_path: Path) -> None:
    args = cli.parse_args(["--home", str(tmp_path / "h"), "--base-url", "example.org"])
    with pytest.raises(ConfigError, match=r"^--base-url must be an http:// or https:// URL, got 'example.org'$"):
        cli.prepare(args)
