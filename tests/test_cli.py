"""The `hermes-tui` command as a user runs it: real processes, real home folders, real state.db files."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_llm import FakeLLMServer, Reply


def run_cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "HERMES_TUI_"))}
    full_env["HERMES_TUI_DEMO_DELAY"] = "0"
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "hermes_tui", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# Widget\n\nA widget that counts things.\n", encoding="utf-8")
    return folder


def _db_rows(home: Path) -> list[tuple]:
    con = sqlite3.connect(home / "state.db")
    try:
        return con.execute("select role, content, tool_calls, tool_name from messages order by id").fetchall()
    finally:
        con.close()


def test_version_is_quick_and_plain(tmp_path: Path) -> None:
    result = run_cli("--version", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.startswith("hermes-tui ")
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from hermes_tui.cli import main; main(['--version']);"
            "print(sorted(m for m in ('openai','anthropic','textual','aiosqlite') if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip().endswith("[]")  # no SDK, UI or DB import for --version


def test_run_demo_reads_a_file_and_stores_the_round_trip(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    result = run_cli("run", "read README.md", "--home", str(home), cwd=project)
    assert result.returncode == 0, result.stderr
    assert "A widget that counts things." in result.stdout
    assert "read_file" in result.stderr and "demo" in result.stderr  # activity and the demo label on stderr
    roles = [row[0] for row in _db_rows(home)]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert json.loads(_db_rows(home)[1][2])[0]["function"]["name"] == "read_file"


def test_run_json_prints_one_result_object(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    result = run_cli("run", "hello", "--json", "--home", str(home), cwd=project)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert {"final_response", "session_id", "api_calls", "usage"} <= payload.keys()
    assert payload["api_calls"] == 1 and payload["usage"]["output_tokens"] > 0
    assert payload["final_response"]


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_run_against_a_real_protocol_server(tmp_path: Path, project: Path, protocol: str) -> None:
    home = tmp_path / "home"
    with FakeLLMServer() as srv:
        srv.enqueue(
            Reply(text="Reading.", tool_calls=[("call_1", "read_file", '{"path": "README.md"}')]),
            Reply(text="It counts things."),
        )
        base = srv.base_url_openai if protocol == "openai" else srv.base_url_anthropic
        result = run_cli(
            "run", "read README.md", "--provider", protocol, "--base-url", base, "--home", str(home), cwd=project
        )
    assert result.returncode == 0, result.stderr
    assert "It counts things." in result.stdout
    rows = _db_rows(home)
    assert [r[0] for r in rows] == ["user", "assistant", "tool", "assistant"]
    assert "A widget that counts things." in rows[2][1]


def test_run_terminal_is_denied_without_a_tty_unless_yes(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    denied = run_cli("run", "run echo hi-from-shell", "--home", str(home), cwd=project)
    assert denied.returncode == 0
    assert "denied" in denied.stderr.lower() or "denied" in denied.stdout.lower()
    allowed = run_cli("run", "run echo hi-from-shell", "--yes", "--home", str(home), cwd=project)
    assert "hi-from-shell" in allowed.stdout


def test_run_slash_command_on_a_resumed_session(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    first = json.loads(run_cli("run", "hello", "--json", "--home", str(home), cwd=project).stdout)
    titled = run_cli("run", "/title widget chat", "--resume", first["session_id"], "--home", str(home), cwd=project)
    assert titled.returncode == 0 and "widget chat" in titled.stdout
    con = sqlite3.connect(home / "state.db")
    assert con.execute("select title from sessions where id=?", (first["session_id"],)).fetchone()[0] == "widget chat"
    con.close()
    short = run_cli("run", "/compress auth flow", "--resume", "widget chat", "--home", str(home), cwd=project)
    assert short.returncode == 0 and "Nothing to compress" in short.stdout


@pytest.mark.parametrize(
    ("args", "env", "needle"),
    [
        (["--provider", "gemini"], {}, "unknown provider 'gemini'"),
        (["--provider", "openai"], {}, "needs an API key"),
        (["--provider", "anthropic"], {}, "ANTHROPIC_API_KEY"),
        (["--context-length", "0"], {}, "--context-length"),
        (["--frobnicate"], {}, "unrecognized arguments"),
    ],
)
def test_bad_flags_are_one_clear_line_and_exit_2(tmp_path: Path, args: list[str], env: dict, needle: str) -> None:
    result = run_cli("run", "hi", *args, "--home", str(tmp_path / "home"), cwd=tmp_path, env=env)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in result.stderr


def test_non_sqlite_state_db_is_refused_untouched(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "state.db").write_text("this is not a database\n")
    result = run_cli("run", "hi", "--home", str(home), cwd=tmp_path)
    assert result.returncode == 2 and "not an SQLite database" in result.stderr
    assert (home / "state.db").read_text() == "this is not a database\n"


def test_unreadable_home_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    result = run_cli("run", "hi", "--home", str(blocker / "home"), cwd=tmp_path)
    assert result.returncode == 2 and "cannot use home folder" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("toml", "needle"),
    [
        ("[compression]\nthreshold = 'high'\n", "'compression.threshold' must be a number"),
        ("[compresion]\nenabled = true\n", "unknown key 'compresion'"),
        ("[compression\n", "not valid TOML"),
        ("[model]\nprovider = 'gemini'\n", "unknown provider 'gemini'"),
    ],
)
def test_bad_config_names_the_file_and_key(tmp_path: Path, toml: str, needle: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(toml)
    result = run_cli("run", "hi", "--home", str(home), cwd=tmp_path)
    assert result.returncode == 2
    assert needle in result.stderr and "config.toml" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_env_home_and_key_pick_provider(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "env-home"
    with FakeLLMServer() as srv:
        srv.enqueue(Reply(text="from the env-configured server"))
        result = run_cli(
            "run",
            "hi",
            "--json",
            cwd=project,
            env={"HERMES_TUI_HOME": str(home), "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": srv.base_url_openai},
        )
        assert srv.requests and srv.requests[0].api_key == "sk-test"
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["final_response"] == "from the env-configured server"
    assert (home / "state.db").exists() and (home / "memories").is_dir() and (home / "skills").is_dir()
