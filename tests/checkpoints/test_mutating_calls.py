"""Which tool calls count as changing files (and so get the turn's checkpoint first): write_file
always, the terminal unless its command clearly only reads, nothing else; and the settings that
turn checkpoints off or bound them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_tui.config import ConfigError, Home, load_settings
from hermes_tui.core.bootstrap import build_registry
from hermes_tui.core.tools.read_only_commands import is_read_only

READ_ONLY = [
    "ls -la",
    "cat README.md | grep -n widget | head -5",
    "git status && git log --oneline -3 && git diff HEAD~1",
    "git -C sub show HEAD:file.txt",
    "find . -name '*.py' -newer setup.cfg",
    "sed -n '1,20p' src/app.py",
    "wc -l src/*.py 2>/dev/null",
    "cd src && ls >/dev/null 2>&1",
    "rg TODO | sort | uniq -c",
]
CHANGING = [
    "touch new.txt",
    "echo hi > out.txt",
    "cat a >> b",
    "ls | tee listing.txt",
    "rm -rf build",
    "sed -i 's/a/b/' file.txt",
    "find . -name '*.pyc' -delete",
    "find . -name x -exec rm {} +",
    "git checkout -- .",
    "git commit -am wip",
    "sort -o sorted.txt input.txt",
    'echo "$(touch x)"',
    "ls `touch y`",
    "python build.py",
    "make",
    "xargs rm < list.txt",
    "pytest -q",
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_commands_that_only_read_need_no_checkpoint(command: str) -> None:
    assert is_read_only(command)


@pytest.mark.parametrize("command", CHANGING)
def test_commands_that_may_write_count_as_changing_files(command: str) -> None:
    assert not is_read_only(command)


def test_the_registry_says_which_calls_may_change_files() -> None:
    registry = build_registry()
    assert registry.may_change_files("write_file", json.dumps({"path": "a", "content": "b"}))
    assert registry.may_change_files("terminal", json.dumps({"command": "make install"}))
    assert not registry.may_change_files("terminal", json.dumps({"command": "git status"}))
    assert not registry.may_change_files("read_file", json.dumps({"path": "a"}))
    assert not registry.may_change_files("todo", json.dumps({"todos": []}))
    assert not registry.may_change_files("write_file", "{not json")  # it will not run
    assert not registry.may_change_files("no_such_tool", "{}")


def test_checkpoint_settings_are_read_and_checked(tmp_path: Path) -> None:
    home = Home(tmp_path / "home").ensure()
    assert load_settings(home, env={}).checkpoints.enabled is True
    home.config_file.write_text(
        "[checkpoints]\nenabled = false\nmax_file_mb = 2.5\nmax_files = 100\nretention_days = 3\n", encoding="utf-8"
    )
    settings = load_settings(home, env={}).checkpoints
    assert (settings.enabled, settings.max_file_mb, settings.max_files, settings.retention_days) == (
        False,
        2.5,
        100,
        3,
    )
    home.config_file.write_text("[checkpoints]\nmax_files = 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"'checkpoints.max_files' must be >= 1"):
        load_settings(home, env={})


def test_the_no_checkpoints_flag_turns_them_off_for_run_and_the_tui() -> None:
    from hermes_tui.cli import UsageError, _overrides, parse_args

    assert _overrides(parse_args(["run", "hi", "--no-checkpoints"])) == {"checkpoints": {"enabled": False}}
    assert _overrides(parse_args(["--no-checkpoints"])) == {"checkpoints": {"enabled": False}}
    assert _overrides(parse_args(["run", "hi"])) == {}
    with pytest.raises(UsageError, match="--no-checkpoints does not apply to `sessions`"):
        parse_args(["sessions", "--no-checkpoints"])
