"""The saved UI state (the theme): private, atomic, and never a reason to fail."""

from __future__ import annotations

import stat
from pathlib import Path

from hermes_tui.ui_state import load_ui_state, save_theme, saved_theme, state_path


def test_the_theme_is_saved_privately_and_read_back(tmp_path: Path) -> None:
    assert saved_theme(tmp_path) is None
    assert save_theme(tmp_path, "nord") == ""
    assert saved_theme(tmp_path) == "nord"
    assert stat.S_IMODE(state_path(tmp_path).stat().st_mode) == 0o600
    assert save_theme(tmp_path, "gruvbox") == ""
    assert saved_theme(tmp_path) == "gruvbox"
    assert [p.name for p in tmp_path.iterdir()] == ["tui_state.json"]  # no temporary file left behind


def test_a_damaged_or_foreign_file_is_an_empty_state(tmp_path: Path) -> None:
    for text in ("{not json", "[1, 2]", '{"theme": 42}'):
        state_path(tmp_path).write_text(text, encoding="utf-8")
        assert saved_theme(tmp_path) is None
    state_path(tmp_path).write_text('{"theme": "nord", "other": 1}', encoding="utf-8")
    save_theme(tmp_path, "dracula")
    assert load_ui_state(tmp_path) == {"theme": "dracula", "other": 1}  # other choices are kept


def test_a_folder_that_cannot_be_written_gives_an_error_line(tmp_path: Path) -> None:
    missing = tmp_path / "gone" / "deeper"
    error = save_theme(missing, "nord")
    assert error.startswith("could not save tui_state.json") and "\n" not in error
