"""`[keymap]` in config.toml: bindings remapped by id, every mistake refused with one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.config import ConfigError, Home, load_settings
from hermes_tui.keymap_config import check_keymap, key_problem, keymap_problems, known_bindings, usable_keymap
from tests.test_cli import run_cli


def test_every_binding_the_brief_names_has_an_id() -> None:
    ids = set(known_bindings())
    assert {"search", "compare", "inspect-compression", "help", "quit", "toggle-side-panel"} <= ids
    assert {"search-close", "compare-close", "inspector-reinject", "picker-cancel"} <= ids


@pytest.mark.parametrize("key", ["ctrl+f", "f8", "escape", "question_mark", "?", "ctrl+shift+up", "alt+x", "F"])
def test_keys_textual_can_name(key: str) -> None:
    assert key_problem(key) == ""


@pytest.mark.parametrize("key", ["", "ctrl+", "hyperdrive+x", "ctrl+nosuchkey", "space bar"])
def test_keys_it_cannot(key: str) -> None:
    assert key_problem(key)


def test_a_good_table_has_no_problems() -> None:
    assert keymap_problems({"search": "f8", "compare": "f9,ctrl+g"}) == []
    check_keymap({"search": "f8"})  # no exception
    # Moving a binding away frees its key for another one.
    assert keymap_problems({"search": "f3", "compare": "f9"}) == []


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ({"serch": "f8"}, "unknown binding id 'serch'"),
        ({"search": "ctrl+nosuchkey"}, "is not a key name"),
        ({"search": "f8", "compare": "f8"}, "'f8' is given to both search and compare"),
        ({"search": "f1"}, "'f1' already does 'help' there"),
        ({"search": "ctrl+q"}, "'ctrl+q' already does 'quit' there"),
        ({"search": "ctrl+a"}, "'ctrl+a' already does 'Cursor line start' there"),  # the prompt would win
    ],
)
def test_mistakes_are_one_line_each(table: dict[str, str], says: str) -> None:
    problems = keymap_problems(table)
    assert problems and says in problems[0] and "\n" not in problems[0]
    with pytest.raises(ConfigError, match="keymap"):
        check_keymap(table)


def test_usable_keymap_keeps_the_good_entries() -> None:
    assert usable_keymap({"search": "f8", "nope": "f7"}) == {"search": "f8"}


def test_the_table_is_read_from_config_toml(tmp_path: Path) -> None:
    home = Home(tmp_path / "home").ensure()
    home.config_file.write_text('[keymap]\nsearch = "f8"\n', encoding="utf-8")
    assert load_settings(home, env={}).keymap == {"search": "f8"}
    home.config_file.write_text("[keymap]\nsearch = 6\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="'keymap' must be a table of strings"):
        load_settings(home, env={})


def test_the_tui_refuses_to_start_with_a_bad_keymap(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text('[keymap]\nserch = "f8"\n', encoding="utf-8")
    done = run_cli("--home", str(home), cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "hermes-tui: error: [keymap] unknown binding id 'serch' (did you mean search?)"
    ]
