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


@pytest.mark.parametrize(
    ("toml", "env", "redact"),
    [
        ("", {}, True),  # on by default
        ("[security]\nredact_secrets = false\n", {}, False),
        ("[security]\nredact_secrets = false\n", {"HERMES_REDACT_SECRETS": "true"}, True),  # env beats file
        ("", {"HERMES_REDACT_SECRETS": "0"}, False),  # Hermes's variable and its words
        ("", {"HERMES_REDACT_SECRETS": " Off "}, False),
        ("", {"HERMES_REDACT_SECRETS": "yes"}, True),
    ],
)
def test_secret_redaction_setting_from_file_and_environment(tmp_path: Path, toml: str, env: dict, redact: bool) -> None:
    assert load_settings(_home(tmp_path, toml), env=env).security.redact_secrets is redact


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
        ("[security]\nredact_secrets = 'no'\n", "'security.redact_secrets' must be a boolean"),
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


# --------------------------------------------------------------------------- every number, every source


def _numeric_settings(node: object = None, prefix: str = "") -> dict[str, type]:
    """Every int/float field of Settings as {dotted key: type}."""
    import dataclasses
    from typing import get_type_hints

    from hermes_tui.config import Settings

    node = Settings() if node is None else node
    found: dict[str, type] = {}
    for name, tp in get_type_hints(type(node)).items():
        if dataclasses.is_dataclass(tp):
            found |= _numeric_settings(getattr(node, name), f"{prefix}{name}.")
        elif tp in (int, float):
            found[f"{prefix}{name}"] = tp
    return found


def test_every_number_has_a_range_rule_and_the_defaults_pass_it() -> None:
    from hermes_tui.config import NUMBER_RULES

    numbers = _numeric_settings()
    assert set(numbers) == set(NUMBER_RULES)
    assert len(numbers) == 24  # 21 + the three of [checkpoints]


def _toml_for(dotted: str, literal: str) -> str:
    *table, key = dotted.split(".")
    return f"[{'.'.join(table)}]\n{key} = {literal}\n"


# (dotted key, a value out of range) for every number
OUT_OF_RANGE = {
    "model.context_length": "-1",
    "model.max_tokens": "0",
    "compression.threshold": "0.0",
    "compression.target_ratio": "1.0",
    "compression.protect_first_n": "-1",
    "compression.protect_last_n": "-3",
    "compression.hygiene_hard_message_limit": "0",
    "auxiliary.compression.timeout": "0.0",
    "agent.max_turns": "0",
    "agent.api_max_retries": "-1",
    "memory.memory_char_limit": "0",
    "memory.user_char_limit": "0",
    "memory.nudge_interval": "-1",
    "skills.creation_nudge_interval": "-5",
    "sessions.retention_days": "0",
    "sessions.min_interval_hours": "-1",
    "tools.read_max_bytes": "0",
    "tools.terminal_timeout": "-2.5",
}


@pytest.mark.parametrize("dotted", sorted(OUT_OF_RANGE))
def test_each_number_out_of_range_in_the_file_names_file_and_key(tmp_path: Path, dotted: str) -> None:
    home = _home(tmp_path, _toml_for(dotted, OUT_OF_RANGE[dotted]))
    with pytest.raises(ConfigError) as info:
        load_settings(home, env={})
    message = str(info.value)
    assert message.startswith(f"{home.config_file}: '{dotted}' must be ") and "\n" not in message


@pytest.mark.parametrize("dotted", sorted(OUT_OF_RANGE))
def test_each_number_of_the_wrong_type_names_file_and_key(tmp_path: Path, dotted: str) -> None:
    home = _home(tmp_path, _toml_for(dotted, "'ten'"))
    with pytest.raises(ConfigError) as info:
        load_settings(home, env={})
    kind = "an integer" if _numeric_settings()[dotted] is int else "a number"
    assert str(info.value) == f"{home.config_file}: '{dotted}' must be {kind}, got str 'ten'"


@pytest.mark.parametrize("literal", ["nan", "inf", "-inf"])
def test_non_finite_numbers_are_refused(tmp_path: Path, literal: str) -> None:
    home = _home(tmp_path, _toml_for("tools.terminal_timeout", literal))
    with pytest.raises(ConfigError, match=r"'tools.terminal_timeout' must be a finite number"):
        load_settings(home, env={})


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"HERMES_TUI_CONTEXT_LENGTH": "-5"},
            "environment variable HERMES_TUI_CONTEXT_LENGTH must be 0 (the model's known window)"
            " or at least 64,000 tokens, got -5",
        ),
        ({"HERMES_TUI_CONTEXT_LENGTH": "lots"}, "environment variable HERMES_TUI_CONTEXT_LENGTH must be an integer"),
        ({"HERMES_TUI_PROVIDER": "gemini"}, "environment variable HERMES_TUI_PROVIDER: unknown provider 'gemini'"),
        ({"HERMES_REDACT_SECRETS": "maybe"}, "environment variable HERMES_REDACT_SECRETS must be true or false"),
        (
            {"HERMES_TUI_BASE_URL": "localhost:11434"},
            "environment variable HERMES_TUI_BASE_URL must be an http:// or https:// URL, got 'localhost:11434'",
        ),
    ],
)
def test_environment_errors_name_the_variable_not_a_file(tmp_path: Path, env: dict, message: str) -> None:
    home = _home(tmp_path)
    with pytest.raises(ConfigError) as info:
        load_settings(home, env=env)
    assert str(info.value).startswith(message) and "config.toml" not in str(info.value)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"model": {"provider": "gemini"}}, "--provider: unknown provider 'gemini'"),
        ({"model": {"base_url": "ftp://x"}}, "--base-url must be an http:// or https:// URL, got 'ftp://x'"),
        ({"model": {"context_length": 1000}}, "--context-length must be 0 (the model's known window) or at least"),
        ({"compression": {"threshold": 2.0}}, "command line 'compression.threshold' must be in (0, 1], got 2.0"),
    ],
)
def test_flag_errors_name_the_flag(tmp_path: Path, overrides: dict, message: str) -> None:
    home = _home(tmp_path, "[model]\nname = 'fine'\n")
    with pytest.raises(ConfigError) as info:
        load_settings(home, overrides, env={})
    assert str(info.value).startswith(message) and "config.toml" not in str(info.value)


def test_the_file_is_blamed_only_for_its_own_values(tmp_path: Path) -> None:
    home = _home(tmp_path, "[model]\ncontext_length = 1000\n")
    with pytest.raises(ConfigError, match=r"config\.toml: 'model\.context_length' must be 0"):
        load_settings(home, env={})
    fixed = load_settings(home, env={"HERMES_TUI_CONTEXT_LENGTH": "200000"})  # the environment overrides it
    assert fixed.model.context_length == 200000


def test_minimum_window_matches_the_core() -> None:
    from hermes_tui.config import MINIMUM_CONTEXT_LENGTH
    from hermes_tui.core.context.windows import MINIMUM_CONTEXT_LENGTH as CORE_MINIMUM

    assert MINIMUM_CONTEXT_LENGTH == CORE_MINIMUM


def test_a_config_file_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    home = _home(tmp_path)
    home.config_file.write_bytes(b"[model]\nname = '\xe9t\xe9'\n")  # Latin-1
    with pytest.raises(ConfigError) as info:
        load_settings(home, env={})
    assert str(info.value) == f"{home.config_file}: not UTF-8 text (byte 16); save it as UTF-8"


def test_a_config_file_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    home = _home(tmp_path)
    home.config_file.mkdir()
    with pytest.raises(ConfigError) as info:
        load_settings(home, env={})
    assert str(info.value) == f"{home.config_file}: cannot read: is a directory, not a regular file"


def test_auxiliary_provider_is_checked_with_its_source(tmp_path: Path) -> None:
    home = _home(tmp_path, "[auxiliary.compression]\nprovider = 'gemini'\n")
    with pytest.raises(ConfigError, match=r"config\.toml: 'auxiliary\.compression\.provider': unknown provider"):
        load_settings(home, env={})
