"""`[tools] allow_paths` in config.toml: folders the file tools may use freely, checked when loaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_tui.config import ConfigError, Home, load_settings
from hermes_tui.core.tools.defaults import default_registry
from tests.tools.helpers import make_context


def home_with(tmp_path: Path, toml: str) -> Home:
    home = Home(tmp_path / "home").ensure()
    home.config_file.write_text(toml, encoding="utf-8")
    return home


def test_allow_paths_load_as_given(tmp_path: Path) -> None:
    home = home_with(tmp_path, '[tools]\nallow_paths = ["~/datasets", "/srv/shared"]\n')
    assert load_settings(home, env={}).tools.allow_paths == ["~/datasets", "/srv/shared"]
    assert load_settings(Home(tmp_path / "empty").ensure(), env={}).tools.allow_paths == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"/srv/shared"', "'tools.allow_paths' must be a list of strings, got str '/srv/shared'"),
        ("[1, 2]", "'tools.allow_paths' must be a list of strings, got list [1, 2]"),
        (
            '["datasets"]',
            "'tools.allow_paths' entries must be absolute folder paths (starting with / or ~), got 'datasets'",
        ),
        ('[""]', "'tools.allow_paths' entries must be absolute folder paths (starting with / or ~), got ''"),
        ('["/srv/\\u0000x"]', "entries must be absolute folder paths (starting with / or ~), got '/srv/\\x00x'"),
    ],
)
def test_bad_allow_paths_are_one_line_naming_the_file_and_key(tmp_path: Path, value: str, message: str) -> None:
    home = home_with(tmp_path, f"[tools]\nallow_paths = {value}\n")
    with pytest.raises(ConfigError) as info:
        load_settings(home, env={})
    text = str(info.value)
    assert text.startswith(f"{home.config_file}: ") and message in text and "\n" not in text


async def test_loaded_allow_paths_open_the_folder_to_the_tools(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "data.csv").write_text("a,b\n")
    home = home_with(tmp_path, f'[tools]\nallow_paths = ["{shared}"]\n')
    settings = load_settings(home, env={}).tools
    project = tmp_path / "project"
    project.mkdir()
    ctx = make_context(project, allow_paths=settings.allow_paths)
    result = await default_registry().dispatch("read_file", json.dumps({"path": str(shared / "data.csv")}), ctx)
    assert result.content == "     1|a,b"
