"""Shared pytest fixtures: an isolated home folder and a copy of the Hermes-written fixture DB.

Test modules keep their own specialised fixtures; this file holds only what every layer uses.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

LOCAL_FIXTURE_DB = Path(__file__).resolve().parent / "fixtures" / "hermes_state_v14.db"


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test sees the developer's keys, home folder or provider settings."""
    for var in (
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "HERMES_TUI_HOME",
        "HERMES_TUI_PROVIDER",
        "HERMES_TUI_MODEL",
        "HERMES_TUI_BASE_URL",
        "HERMES_TUI_CONTEXT_LENGTH",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    monkeypatch.setenv("HERMES_TUI_DEMO_DELAY", "0")


@pytest.fixture
def home_dir(tmp_path: Path) -> Path:
    """An empty hermes-tui home folder."""
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def hermes_fixture_db(tmp_path: Path) -> Path:
    """A temp copy of the Hermes-written state.db (schema v14); the original stays untouched."""
    source = LOCAL_FIXTURE_DB
    target = tmp_path / "hermes-home" / "state.db"
    target.parent.mkdir()
    shutil.copyfile(source, target)
    return target
