"""Settings: Hermes defaults, precedence flag > environment > config.toml > defaults, strict validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.config import ConfigError, Home, load_settings, resolve_home, resolve_provider


def _home(tmp_path: Path, toml: str = "") -> Home:
    home = Home(tmp_path / "home").ensure()
    if toml:
        home.config_file.write_text(toml, encoding="utf-8")
    return home


def test_defaults_match_hermes(tmp_path: Path) -> None:
    s = load_settings(_home(tmp_path), env={})
    c = s.compression
    assert (c.enabled, c.threshold, c.target_ratio, c.protect_first_n, c.protect_last_n) == (True, 0.5, 0.2, 3, 20)
    assert c.hygiene_hard_message_limit == 400 and c.abort_on_summary_failure is False
    aux = s.auxiliary.compression
    assert (aux.provider, aux.model, aux.base_url, aux.timeout) == ("auto", "", "", 120.0)
    assert s.agent.max_turns == 90 and s.agent.api_max_retries == 3
    assert s.memory.nudge_interval == 10 and s.memory.memory_char_limit == 2200 and s.memory.user_char_limit == 1375
    assert s.skills.creation_nudge_interval == 10 and s.prompt_caching.cache_ttl == "5m"
    assert s.sessions.retention_days == 90 and s.model.context_length == 0


def test_precedence_flag_over_env_over_file(tmp_path: Path) -> None:
    home = _home(tmp_path, "[model]\nname = 'from-file'\ncontext_length = 100000\nbase_url = 'http://file'\n")
    env = {"HERMES_TUI_MODEL": "from-env", "HERMES_TUI_CONTEXT_LENGTH": "150000"}
    s = load_settings(home, {"model": {"name": "from-flag"}}, env=env)
    assert s.model.name == "from-flag"  # flag beats env and file
    assert s.model.context_length == 150000  # env beats file
    assert s.model.base_url == "http://file"  # file beats default


def test_home_from_flag_env_default(tmp_path: Path) -> None:
    assert resolve_home("/x/flag", {"HERMES_TUI_HOME": "/x/env"}).root == Path("/x/flag")
    assert resolve_home(None, {"HERMES_TUI_HOME": "/x/env"}).root == Path("/x/env")
    assert resolve_home(None, {}).root.name == ".hermes-tui"


@pytest.mark.parametrize(
    ("toml", "needle"),
    [
        ("[compression]\nenabled = 'yes'\n", "'compression.enabled' must be a boolean"),
        ("[agent]\nmax_turns = 1.5\n", "'agent.max_turns' must be an integer"),
        ("[auxiliary.compression]\nmodle = 'x'\n", "unknown key 'auxiliary.compression.modle'"),
        ("compression = 3\n", "'compression' must be a table"),
        ("[compression]\nthreshold = 1.5\n", "'compression.threshold' must be in (0, 1]"),
        ("[prompt_caching]\ncache_ttl = '2h'\n", "cache_ttl"),
    ],
)
def test_wrong_config_is_a_clear_error(tmp_path: Path, toml: str, needle: str) -> None:
    home = _home(tmp_path, toml)
    with pytest.raises(ConfigError) as info:
        load_settings(home, env={})
    assert needle in str(info.value) and str(home.config_file) in str(info.value)


def test_bad_env_value_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="HERMES_TUI_CONTEXT_LENGTH must be an integer"):
        load_settings(_home(tmp_path), env={"HERMES_TUI_CONTEXT_LENGTH": "lots"})


def test_provider_resolution_by_keys(tmp_path: Path) -> None:
    s = load_settings(_home(tmp_path), env={})
    demo = resolve_provider(s, env={})
    assert demo.is_demo and "no API key" in demo.reason
    assert resolve_provider(s, env={"OPENAI_API_KEY": "k"}).provider == "openai"
    assert resolve_provider(s, env={"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}).provider == "anthropic"
    s.model.provider = "openai"
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        resolve_provider(s, env={})
    local = resolve_provider(s, env={"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"})
    assert local.base_url.endswith("/v1") and local.api_key  # local servers need no real key
