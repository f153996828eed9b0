"""The command-line conventions a shell user expects: the prompt from stdin, the search filters of /search,
shell completion, who answered and what it cost in `run --json`."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_llm import FakeLLMServer, Reply
from tests.test_cli import run_cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# Widget\n\nA widget that counts things.\n", encoding="utf-8")
    return folder


def run_with_input(*args: str, cwd: Path, stdin: str | None) -> subprocess.CompletedProcess:
    """`hermes-tui ARGS` with `stdin` piped in (None: no standard input at all, as under cron)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "HERMES_TUI_"))}
    env["HERMES_TUI_DEMO_DELAY"] = "0"
    return subprocess.run(
        [sys.executable, "-m", "hermes_tui", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        timeout=60,
    )


def user_messages(home: Path) -> list[str]:
    con = sqlite3.connect(home / "state.db")
    try:
        return [row[0] for row in con.execute("select content from messages where role='user' order by id")]
    finally:
        con.close()


# --------------------------------------------------------------------------- the prompt from stdin


def test_a_piped_prompt_or_dash_is_read_from_stdin(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    piped = run_with_input("run", "--home", str(home), cwd=project, stdin="read README.md\n")
    assert piped.returncode == 0, piped.stderr
    assert "A widget that counts things." in piped.stdout
    dashed = run_with_input("run", "-", "--json", "--home", str(home), cwd=project, stdin="first line\nsecond line\n")
    assert dashed.returncode == 0, dashed.stderr
    assert json.loads(dashed.stdout)["final_response"]
    assert user_messages(home) == ["read README.md", "first line\nsecond line"]
    command = run_with_input("run", "-", "--home", str(home), cwd=project, stdin="/sessions\n")
    assert command.returncode == 0 and "first line" in command.stdout  # a /command read from stdin runs too


@pytest.mark.parametrize("stdin", [None, "", "  \n\n"])
def test_no_prompt_and_nothing_on_stdin_is_one_line(tmp_path: Path, project: Path, stdin: str | None) -> None:
    result = run_with_input("run", "--home", str(tmp_path / "home"), cwd=project, stdin=stdin)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "the following arguments are required: prompt" in result.stderr
    assert not (tmp_path / "home" / "state.db").exists()  # nothing was started


# --------------------------------------------------------------------------- search filters


def test_search_takes_the_filters_of_slash_search(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    assert run_cli("run", "read README.md", "--home", str(home), cwd=project).returncode == 0

    def hits(*args: str) -> list[dict]:
        result = run_cli("search", *args, "--json", "--home", str(home), cwd=project)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    every = hits("widget")
    assert {hit["role"] for hit in every} == {"tool", "assistant"}  # the file as read, the answer quoting it
    assert {hit["role"] for hit in hits("role:tool widget")} == {"tool"}  # before: "No matches."
    assert {hit["role"] for hit in hits("widget role:user", "--role", "tool")} == {"tool"}  # --role adds a role
    assert len(hits("widget source:cli since:1h")) == len(every)
    assert hits("widget source:tui") == [] and hits("widget until:2020-01-01") == []
    table = run_cli("search", "role:user README", "--home", str(home), cwd=project)
    assert table.returncode == 0 and table.stdout.splitlines()[1].split()[4] == "user"
    assert len(table.stdout.splitlines()) == 2  # the header and the one user message

    for query, needle in (
        ("widget since:soon", "since: 'soon' is not a date"),
        ("widget role:robot", "role: 'robot' is not a role"),
        ("role:user", "give words to search for"),
    ):
        bad = run_cli("search", query, "--home", str(home), cwd=project)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and needle in bad.stderr, (query, bad.stderr)


# --------------------------------------------------------------------------- who answered, what it cost


def test_run_json_names_the_provider_the_model_and_the_cost(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    demo = run_cli("run", "hello", "--json", "--home", str(home), cwd=project)
    assert demo.returncode == 0, demo.stderr
    payload = json.loads(demo.stdout)
    assert (payload["provider"], payload["model"], payload["demo"], payload["cost_usd"]) == ("demo", "demo", True, 0.0)
    assert "[demo]" in demo.stderr and "offline demo model" in demo.stderr

    with FakeLLMServer() as srv:
        srv.enqueue(Reply(text="It counts things.", usage=(1_000_000, 100_000, 0, 0)))
        paid = run_cli(
            "run",
            "what does it do?",
            "--json",
            "--provider",
            "openai",
            "--model",
            "gpt-4o-mini",
            "--base-url",
            srv.base_url_openai,
            "--home",
            str(home),
            cwd=project,
        )
    assert paid.returncode == 0, paid.stderr
    payload = json.loads(paid.stdout)
    assert (payload["provider"], payload["model"], payload["demo"]) == ("openai", "gpt-4o-mini", False)
    assert payload["cost_usd"] == pytest.approx(0.15 + 0.06)  # 1M input at $0.15, 100K output at $0.60 per M
    assert "[demo]" not in paid.stderr


# --------------------------------------------------------------------------- shell completion


def completion(shell: str, cwd: Path) -> str:
    result = run_cli("completion", shell, cwd=cwd)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return result.stdout


def bash_completes(script: Path, *words: str) -> list[str]:
    """What bash's completion function offers for the command line `words` (the last one being typed)."""
    program = (
        f"source {script}\n"
        f"COMP_WORDS=({' '.join(repr(word) for word in words)})\n"
        "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\n"
        "_hermes_tui\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(["bash", "--norc", "--noprofile"], input=program, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


def test_bash_completion_offers_commands_flags_and_values(tmp_path: Path) -> None:
    script = tmp_path / "hermes-tui.bash"
    script.write_text(completion("bash", tmp_path))
    (tmp_path / "homes" / "alpha").mkdir(parents=True)
    assert bash_completes(script, "hermes-tui", "") == [
        "run",
        "sessions",
        "search",
        "export",
        "doctor",
        "replay",
        "completion",
    ]
    assert bash_completes(script, "hermes-tui", "se") == ["sessions", "search"]
    assert "--role" in bash_completes(script, "hermes-tui", "search", "--")
    assert "--provider" not in bash_completes(script, "hermes-tui", "search", "--")  # not a flag search takes
    assert bash_completes(script, "hermes-tui", "sessions", "--sort", "") == ["activity", "started"]
    assert bash_completes(script, "hermes-tui", "search", "x", "--sort", "") == ["rank", "newest", "oldest"]
    assert bash_completes(script, "hermes-tui", "--home", "/tmp", "run", "--provider", "") == [
        "demo",
        "openai",
        "anthropic",
    ]
    assert bash_completes(script, "hermes-tui", "export", "x", "--format", "j") == ["json", "jsonl"]
    assert bash_completes(script, "hermes-tui", "--home", f"{tmp_path}/homes/al") == [f"{tmp_path}/homes/alpha"]
    assert bash_completes(script, "hermes-tui", "completion", "") == ["bash", "zsh", "fish"]


def test_zsh_and_fish_scripts_cover_every_command_and_flag(tmp_path: Path) -> None:
    from hermes_tui.cli import build_parser

    zsh = completion("zsh", tmp_path)
    fish = completion("fish", tmp_path)
    assert "bashcompinit" in zsh and "complete -F _hermes_tui hermes-tui" in zsh
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, command in sub.choices.items():
        assert f"-a {name} -d " in fish and f'"{name}")' in zsh
        for action in command._actions:
            for spelling in action.option_strings:
                if spelling.startswith("--") and f"-l {spelling[2:]}" not in fish:
                    pytest.fail(f"fish completion lacks {name} {spelling}")
    assert "-l sort -x -a 'activity started'" in fish and "-l format -x -a 'md json jsonl'" in fish


def test_completion_takes_a_known_shell_only(tmp_path: Path) -> None:
    result = run_cli("completion", "powershell", cwd=tmp_path)
    assert result.returncode == 2 and "invalid choice: 'powershell'" in result.stderr
    assert result.stderr.count("\n") == 1
