"""Hermes's own settings in a Hermes home: `config.yaml` and `.env`, read as Hermes reads them.

Order: flags > environment > config.toml > config.yaml > defaults; a bad value in config.yaml is
one line naming the file and key; keys we have no setting for are ignored quietly; a home that
names a provider never falls back to the demo silently.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_tui.config import ConfigError, Home, load_settings, resolve_provider
from hermes_tui.hermes_config import MAX_YAML_NODES, NO_KEY, parse_dotenv
from tests.fake_llm import Fail, FakeLLMServer, Reply


def home_with(tmp_path: Path, yaml: str = "", env: str | None = None, toml: str | None = None) -> Home:
    root = tmp_path / "home"
    root.mkdir(exist_ok=True)
    (root / "config.yaml").write_text(yaml, encoding="utf-8")
    if env is not None:
        (root / ".env").write_text(env, encoding="utf-8")
    if toml is not None:
        (root / "config.toml").write_text(toml, encoding="utf-8")
    return Home(root)


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    secrets = ("OPENAI_", "ANTHROPIC_", "OPENROUTER_", "HERMES_TUI_", "CUSTOM_BASE_URL")
    full = {k: v for k, v in os.environ.items() if not k.startswith(secrets)}
    full.update(HERMES_TUI_DEMO_DELAY="0", **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "hermes_tui", *args],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=90,
        stdin=subprocess.DEVNULL,
    )


# --------------------------------------------------------------------------- reading the fixture home


def test_the_fixture_home_is_read_as_hermes_reads_it(hermes_home_v21: Path) -> None:
    settings = load_settings(Home(hermes_home_v21), env={})
    assert (settings.model.provider, settings.model.name) == ("openai", "fixture-model")
    assert settings.model.base_url == "http://127.0.0.1:PORT/v1" and settings.model.context_length == 65536
    assert settings.compression.in_place is True and settings.compression.threshold == 0.5
    # a custom endpoint gets no OPENAI_API_KEY from .env: Hermes only sends that key to openai.com
    assert settings.model.api_key == NO_KEY
    [fallback] = settings.chain.fallback_providers
    assert (fallback.provider, fallback.model, fallback.base_url) == (
        "openai",
        "fixture-fallback",
        settings.model.base_url,
    )
    assert settings.dotenv == {"OPENAI_API_KEY": "sk-fixture-not-a-real-key-0000"}
    assert "OPENAI_API_KEY" not in os.environ  # .env is never copied into the process environment
    choice = resolve_provider(settings, env={})
    assert not choice.is_demo and choice.model == "fixture-model"


def test_without_config_yaml_nothing_changes(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    settings = load_settings(Home(root), env={})
    assert settings.compression.in_place is False  # our default: rotation
    assert resolve_provider(settings, env={}).is_demo


@pytest.mark.parametrize(
    ("yaml", "expected"),
    [
        ("compression:\n  enabled: true\n", True),  # omitted: Hermes's default, in place
        ("compression:\n  in_place: false\n", False),
        ("compression:\n  in_place: 'yes'\n", True),  # Hermes reads switches leniently
    ],
)
def test_in_place_follows_hermes_in_a_hermes_home(tmp_path: Path, yaml: str, expected: bool) -> None:
    assert load_settings(home_with(tmp_path, yaml), env={}).compression.in_place is expected


def test_busy_input_mode_is_read_from_display_as_hermes_spells_it(tmp_path: Path) -> None:
    assert load_settings(home_with(tmp_path, "model:\n  default: m\n"), env={}).display.busy_input_mode == "queue"
    settings = load_settings(home_with(tmp_path, "display:\n  busy_input_mode: ' Steer'\n"), env={})
    assert settings.display.busy_input_mode == "steer"
    with pytest.raises(ConfigError) as caught:
        load_settings(home_with(tmp_path, "display:\n  busy_input_mode: shout\n"), env={})
    message = str(caught.value)
    assert "config.yaml" in message and "busy_input_mode" in message and '"queue" or "steer" or "interrupt"' in message


def test_order_is_flags_env_toml_yaml_defaults(tmp_path: Path) -> None:
    yaml = "model:\n  default: from-yaml\n  provider: anthropic\ncompression:\n  threshold: 0.6\n  protect_last_n: 11\n"
    home = home_with(tmp_path, yaml, env="ANTHROPIC_API_KEY=sk-ant-dotenv\n", toml='[model]\nname = "from-toml"\n')
    settings = load_settings(home, env={})
    assert settings.model.name == "from-toml"  # config.toml beats config.yaml
    assert settings.compression.threshold == 0.6 and settings.compression.protect_last_n == 11  # yaml beats defaults
    assert resolve_provider(settings, env={}).api_key == "sk-ant-dotenv"
    settings = load_settings(home, env={"HERMES_TUI_MODEL": "from-env", "ANTHROPIC_API_KEY": "sk-ant-real"})
    assert settings.model.name == "from-env"
    assert resolve_provider(settings, env={"ANTHROPIC_API_KEY": "sk-ant-real"}).api_key == "sk-ant-real"
    settings = load_settings(home, {"model": {"name": "from-flag"}}, env={"HERMES_TUI_MODEL": "from-env"})
    assert settings.model.name == "from-flag"


def test_keys_we_do_not_use_are_ignored_quietly(tmp_path: Path) -> None:
    yaml = (
        "toolsets: [hermes-cli]\ndisplay:\n  skin: mono\nterminal:\n  backend: docker\n"
        "memory:\n  memory_char_limit: 3000\n  write_approval: true\nskills:\n  creation_nudge_interval: 4\n"
        "agent:\n  max_turns: 40\n  gateway_timeout: 10\n"
    )
    settings = load_settings(home_with(tmp_path, yaml), env={})
    assert settings.memory.memory_char_limit == 3000 and settings.skills.creation_nudge_interval == 4
    assert settings.agent.max_turns == 40


def test_hermes_legacy_spellings(tmp_path: Path) -> None:
    yaml = "model: legacy-name\nprovider: custom\nbase_url: http://127.0.0.1:9/v1\nmax_turns: 12\n"
    settings = load_settings(home_with(tmp_path, yaml), env={})
    assert (settings.model.name, settings.model.base_url, settings.agent.max_turns) == (
        "legacy-name",
        "http://127.0.0.1:9/v1",
        12,
    )


def test_providers_map_onto_ours_with_the_key_hermes_would_send(tmp_path: Path) -> None:
    yaml = "model:\n  default: m\n  provider: openrouter\n"
    settings = load_settings(home_with(tmp_path, yaml, env="OPENROUTER_API_KEY='sk-or-one'\n"), env={})
    assert (settings.model.provider, settings.model.base_url) == ("openai", "https://openrouter.ai/api/v1")
    assert settings.model.api_key == "sk-or-one"
    assert "sk-or-one" not in repr(settings)  # a key from .env is never rendered (a repr may reach a log)
    yaml = "model:\n  default: m\n  provider: deepseek\n"
    settings = load_settings(home_with(tmp_path, yaml), env={"DEEPSEEK_API_KEY": "sk-ds"})
    assert (settings.model.base_url, settings.model.api_key) == ("https://api.deepseek.com/v1", "sk-ds")
    yaml = (
        "model:\n  default: m\n  provider: work-gateway\n"
        "providers:\n  work-gateway:\n    base_url: https://gw.example/v1\n    key_env: WORK_KEY\n"
    )
    settings = load_settings(home_with(tmp_path, yaml), env={"WORK_KEY": "sk-work"})
    assert (settings.model.base_url, settings.model.api_key) == ("https://gw.example/v1", "sk-work")
    # no provider named: Hermes's auto-detection (an OpenRouter key means OpenRouter)
    settings = load_settings(home_with(tmp_path, "model:\n  default: m\n"), env={"OPENROUTER_API_KEY": "sk-or-2"})
    assert (settings.model.base_url, settings.model.api_key) == ("https://openrouter.ai/api/v1", "sk-or-2")


def test_dotenv_is_parsed_as_hermes_parses_it() -> None:
    text = (
        "\ufeff# comment\n"
        "export A=1\n"
        "B = 'single quoted # not a comment'\n"
        'C="double \\"quoted\\" \\\\ value"\n'
        "D=\n"
        "not a line\n"
        "A=2\n"
    )
    assert parse_dotenv(text) == {
        "A": "2",
        "B": "single quoted # not a comment",
        "C": 'double "quoted" \\ value',
        "D": "",
    }


def test_mcp_servers_pass_through_and_config_toml_wins_by_name(tmp_path: Path) -> None:
    yaml = "mcp_servers:\n  files:\n    command: npx\n    args: [fs]\n  web:\n    url: https://mcp.example/sse\n"
    toml = '[mcp_servers.web]\nurl = "https://other.example/sse"\n'
    settings = load_settings(home_with(tmp_path, yaml, toml=toml), env={})
    assert settings.mcp_servers == {
        "files": {"command": "npx", "args": ["fs"]},
        "web": {"url": "https://other.example/sse"},
    }


# --------------------------------------------------------------------------- one line for a mistake


@pytest.mark.parametrize(
    ("yaml", "needle"),
    [
        ("compression:\n  threshold: lots\n", "config.yaml: 'compression.threshold' must be a number"),
        ("model:\n  context_length: 4096\n", "config.yaml: 'model.context_length' must be 0"),
        ("model:\n  provider: nous\n", "config.yaml: 'model.provider': provider 'nous' signs in with OAuth"),
        ("model:\n  provider: custom\n", "provider 'custom' needs a base_url"),
        ("model:\n  provider: made-up\n", "unknown provider 'made-up'"),
        ("fallback_providers:\n  - provider: copilot\n    model: x\n", "'fallback_providers[0]'.provider"),
        ("- just\n- a list\n", "must be a mapping of settings"),
        ("model: [unclosed\n", "not valid YAML"),
        ("mcp_servers: [a, b]\n", "'mcp_servers' must be a mapping"),
    ],
)
def test_a_bad_config_yaml_is_one_line_naming_file_and_key(tmp_path: Path, yaml: str, needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(home_with(tmp_path, yaml), env={})
    message = str(info.value)
    assert needle in message and "\n" not in message and "config.yaml" in message


def test_a_provider_config_toml_overrides_is_no_error(tmp_path: Path) -> None:
    home = home_with(tmp_path, "model:\n  provider: nous\n", toml='[model]\nprovider = "demo"\n')
    assert load_settings(home, env={}).model.provider == "demo"


def test_a_yaml_bomb_and_a_huge_file_are_refused(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 9)]
    with pytest.raises(ConfigError, match=f"more than {MAX_YAML_NODES:,} YAML nodes"):
        load_settings(home_with(tmp_path, "\n".join(lines) + "\n"), env={})
    with pytest.raises(ConfigError, match="larger than 1 MB"):
        load_settings(home_with(tmp_path, "# padding\n" * 120_000), env={})


def test_a_fifo_where_config_yaml_belongs_is_one_line_not_a_hang(tmp_path: Path) -> None:
    root = tmp_path / "fifo-home"
    root.mkdir()
    os.mkfifo(root / "config.yaml")
    with pytest.raises(ConfigError, match=r"config\.yaml: cannot read: .*FIFO"):
        load_settings(Home(root), env={})


# --------------------------------------------------------------------------- the command line


def test_run_on_a_home_naming_an_unservable_provider_exits_2_and_never_uses_the_demo(tmp_path: Path) -> None:
    home = home_with(tmp_path, "model:\n  default: hermes-4\n  provider: nous\n")
    result = run_cli("--home", str(home.root), "run", "hello", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "config.yaml: 'model.provider'" in lines[0] and "demo" not in result.stderr.lower()


def test_run_json_says_which_provider_and_model_answered(tmp_path: Path, hermes_home_v21: Path) -> None:
    with FakeLLMServer() as srv:
        config = hermes_home_v21 / "config.yaml"
        config.write_text(config.read_text(encoding="utf-8").replace("PORT", str(srv.port)), encoding="utf-8")
        srv.enqueue(Fail(404, "model fixture-model not found", code="model_not_found"), Reply(text="from the fallback"))
        result = run_cli("--home", str(hermes_home_v21), "run", "hello", "--json", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        payload = __import__("json").loads(result.stdout)
        assert payload["final_response"] == "from the fallback"
        assert (payload["provider"], payload["model"]) == ("openai", "fixture-fallback")
        assert [r.body["model"] for r in srv.requests] == ["fixture-model", "fixture-fallback"]
        assert {r.api_key for r in srv.requests} == {NO_KEY}  # the .env key never went to the loopback endpoint


def test_dotenv_values_count_below_the_real_environment(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        home = home_with(
            tmp_path,
            "model:\n  default: routed\n  provider: openrouter\n",
            env=f"OPENROUTER_API_KEY=sk-or-from-dotenv\nOPENROUTER_BASE_URL={srv.base_url_openai}\n",
        )
        srv.enqueue(Reply(text="one"), Reply(text="two"))
        first = run_cli("--home", str(home.root), "run", "hi", "--json", cwd=tmp_path)
        second = run_cli(
            "--home", str(home.root), "run", "hi", "--json", cwd=tmp_path, env={"OPENROUTER_API_KEY": "sk-or-real"}
        )
        assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
        assert [r.api_key for r in srv.requests] == ["sk-or-from-dotenv", "sk-or-real"]
        assert "sk-or-from-dotenv" not in first.stderr + first.stdout  # never printed
