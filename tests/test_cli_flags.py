"""The one argument parser: every global flag works before or after every command that takes it,
with a visible effect, and is a one-line error (exit 2) for a command that does not take it.

The commands run in-process through `hermes_tui.cli.main` (the console-script function) against
real home folders, real state.db files and the loopback fake LLM server; the TUI is checked up to
what HermesApp receives (`cli.prepare`). tests/test_cli.py runs the same entry point as a process.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hermes_tui import cli, exit_codes
from tests.conftest import LOCAL_FIXTURE_DB
from tests.fake_llm import FakeLLMServer, Reply
from tests.store.conftest import FIXTURE_CJK, FIXTURE_TIP

POSITIONS = ("before", "after")


def place(position: str, flags: list[str], command: list[str]) -> list[str]:
    """`flags` before the command words, or after them."""
    return [*flags, *command] if position == "before" else [*command, *flags]


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def fixture_home(tmp_path: Path) -> Path:
    """A private home folder holding a copy of the Hermes-written state.db."""
    home = tmp_path / "fixture-home"
    home.mkdir(mode=0o700)
    shutil.copyfile(LOCAL_FIXTURE_DB, home / "state.db")
    (home / "state.db").chmod(0o600)
    return home


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


# --------------------------------------------------------------------------- --home, every command


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize(
    ("command", "expect"),
    [
        (["sessions", "--json"], FIXTURE_TIP),
        (["search", "桂林旅游", "--json"], FIXTURE_CJK),
        (["export", FIXTURE_CJK, "--format", "json"], FIXTURE_CJK),
        (["doctor"], "No problems found."),
    ],
)
def test_home_is_read_for_every_read_command(
    position: str, command: list[str], expect: str, fixture_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(place(position, ["--home", str(fixture_home)], command), capsys)
    assert code == exit_codes.OK, err
    assert expect in out
    assert err == ""  # a private home: no warning


@pytest.mark.parametrize("position", POSITIONS)
def test_home_is_written_by_run(position: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "chosen-home"
    code, out, _ = run_main(place(position, ["--home", str(home)], ["run", "hello", "--json"]), capsys)
    assert code == exit_codes.OK
    session_id = json.loads(out)["session_id"]
    code, listed, _ = run_main(["sessions", "--json", "--home", str(home)], capsys)
    assert code == exit_codes.OK and [row["id"] for row in json.loads(listed)] == [session_id]
    assert not (tmp_path / "user-home" / ".hermes-tui").exists()  # the default home was never touched


def test_home_and_every_model_flag_reach_the_tui(tmp_path: Path) -> None:
    """What HermesApp is given (the TUI takes the global flags with no command)."""
    home = tmp_path / "tui-home"
    args = cli.parse_args(
        [
            "--home",
            str(home),
            "--provider",
            "openai",
            "--model",
            "m-large",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--context-length",
            "96000",
            "--resume",
            "my chat",
            "--yes",
        ]
    )
    got_home, settings, choice = cli.prepare(args)
    assert args.command == cli.TUI and args.resume == "my chat"
    assert got_home.root == home and home.is_dir()
    assert (choice.provider, choice.model, choice.base_url) == ("openai", "m-large", "http://127.0.0.1:9/v1")
    assert settings.model.context_length == 96000 and settings.tools.auto_approve is True


# --------------------------------------------------------------------------- model flags with `run`


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_provider_model_and_base_url_reach_the_server(
    position: str, protocol: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeLLMServer() as srv:
        srv.enqueue(Reply(text="served by the fake"))
        base = srv.base_url_openai if protocol == "openai" else srv.base_url_anthropic
        flags = ["--home", str(tmp_path / "h"), "--provider", protocol, "--model", "m-test", "--base-url", base]
        code, out, err = run_main(place(position, flags, ["run", "hi"]), capsys)
        assert code == exit_codes.OK, err
        [request] = srv.requests
    assert "served by the fake" in out
    assert request.body["model"] == "m-test"
    assert request.path.endswith("/chat/completions" if protocol == "openai" else "/messages")


@pytest.mark.parametrize("position", POSITIONS)
def test_context_length_sets_the_window(position: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["--home", str(tmp_path / "h"), "--context-length", "654321"]
    code, out, err = run_main(place(position, flags, ["run", "/usage"]), capsys)
    assert code == exit_codes.OK, err
    assert "/ 654,321" in out


@pytest.mark.parametrize("position", POSITIONS)
def test_resume_continues_the_session(position: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = ["--home", str(tmp_path / "h")]
    _, first, _ = run_main(["run", "hello", "--json", *home], capsys)
    session_id = json.loads(first)["session_id"]
    code, out, err = run_main(place(position, [*home, "--resume", session_id], ["run", "again", "--json"]), capsys)
    assert code == exit_codes.OK, err
    assert json.loads(out)["session_id"] == session_id


@pytest.mark.parametrize("position", POSITIONS)
def test_yes_approves_shell_commands(position: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = ["--home", str(tmp_path / "h")]
    code, denied, denied_err = run_main(["run", "run echo hi-$((6*7))", *home], capsys)
    assert code == exit_codes.OK and "hi-42" not in denied and "denied" in (denied + denied_err).lower()
    code, out, err = run_main(place(position, [*home, "--yes"], ["run", "run echo hi-$((6*7))"]), capsys)
    assert code == exit_codes.OK, err
    assert "hi-42" in out


# --------------------------------------------------------------------------- flags a command does not take

MODEL_FLAG_VALUES = {
    "--provider": ["--provider", "openai"],
    "--model": ["--model", "m"],
    "--base-url": ["--base-url", "http://127.0.0.1:9/v1"],
    "--context-length": ["--context-length", "1000"],
    "--resume": ["--resume", "x"],
    "--yes": ["--yes"],
}


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("flag", sorted(MODEL_FLAG_VALUES))
@pytest.mark.parametrize(
    "command", [["sessions"], ["search", "jwt"], ["export", FIXTURE_TIP], ["doctor"]], ids=lambda c: c[0]
)
def test_a_flag_the_command_does_not_take_is_an_error(
    position: str, flag: str, command: list[str], fixture_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = place(position, [*MODEL_FLAG_VALUES[flag], "--home", str(fixture_home)], command)
    code, out, err = run_main(argv, capsys)
    assert code == exit_codes.USAGE and out == ""
    takers = "the TUI, `run` and `replay`" if flag in ("--provider", "--model", "--base-url") else "the TUI and `run`"
    assert err == f"hermes-tui: error: {flag} does not apply to `{command[0]}` (only to {takers})\n"


def test_the_same_flag_twice_keeps_the_later_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    code, _, err = run_main(["--home", str(first), "run", "hello", "--home", str(second)], capsys)
    assert code == exit_codes.OK, err
    assert (second / "state.db").exists() and not first.exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--context-length", "0"], "--context-length must be a positive number of tokens, got 0"),
        (["run", "hi", "--context-length", "lots"], "argument --context-length: invalid int value: 'lots'"),
        (["frobnicate"], "argument COMMAND: invalid choice: 'frobnicate'"),
        (["search", "x", "--sort", "best"], "argument --sort: invalid choice: 'best'"),
        (["run"], "the following arguments are required: prompt"),
    ],
)
def test_bad_arguments_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(argv, capsys)
    assert code == exit_codes.USAGE and out == ""
    assert err.count("\n") == 1 and message in err
