"""The chain settings: fallback_providers, fallback_model, credential pools (config.toml and *_API_KEYS)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.config import ConfigError, Home, ProviderChoice, Settings, load_settings
from hermes_tui.config_chain import FallbackEntry
from hermes_tui.core.providers.chain import build_chain
from hermes_tui.core.providers.credentials import CredentialPool, key_suffix
from hermes_tui.core.providers.demo import DemoProvider
from tests.test_cli import run_cli

CONFIG = """
fallback_model = "gpt-4.1"

[[fallback_providers]]
provider = "anthropic"
model = "claude-opus-4"
api_keys = ["sk-ant-one-1111", "sk-ant-two-2222"]

[credential_pool]
openai = ["sk-pool-a-aaaa"]

[model]
provider = "openai"
"""


def home_with(tmp_path: Path, text: str) -> Home:
    home = Home(tmp_path / "home").ensure()
    home.config_file.write_text(text, encoding="utf-8")
    return home


def test_fallbacks_and_pools_are_read_in_order(tmp_path: Path) -> None:
    settings = load_settings(home_with(tmp_path, CONFIG), env={})
    chain = settings.chain
    assert [entry.label for entry in chain.fallbacks] == ["anthropic:claude-opus-4", "same provider:gpt-4.1"]
    assert chain.fallbacks[0].api_keys == ("sk-ant-one-1111", "sk-ant-two-2222")
    env = {"OPENAI_API_KEYS": "sk-env-b-bbbb, sk-pool-a-aaaa ,"}
    assert chain.pool_keys("openai", env) == ("sk-pool-a-aaaa", "sk-env-b-bbbb")
    assert settings.model.provider == "openai", "the rest of the file still loads"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[[fallback_providers]]\nprovider = 'bogus'\n", "fallback_providers[0].provider': unknown provider"),
        ("[[fallback_providers]]\nmodel = 'x'\nkey = 'k'\n", "unknown key 'fallback_providers[0].key'"),
        ("fallback_providers = 'openai'\n", "must be a list of tables"),
        ("[[fallback_providers]]\nbase_url = 'ftp://x'\nmodel = 'm'\n", "must be an http"),
        ("fallback_model = ''\n", "must name a model"),
        ("[credential_pool]\nopenai = 'sk-one'\n", "credential_pool.openai' must be a list"),
        ("[credential_pool]\nmistral = ['k']\n", "unknown provider"),
        ("[chain]\nx = 1\n", "unknown key 'chain'"),
    ],
)
def test_mistakes_are_one_line_naming_file_and_key(tmp_path: Path, text: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(home_with(tmp_path, text), env={})
    message = str(caught.value)
    assert words in message and "config.toml" in message and "\n" not in message
    assert "sk-one" not in message


def test_a_bad_chain_entry_is_exit_2_with_one_line_from_the_cli(tmp_path: Path) -> None:
    home = home_with(tmp_path, "[[fallback_providers]]\nprovider = 'nope'\n")
    result = run_cli("--home", str(home.root), "run", "hi", cwd=tmp_path)
    assert result.returncode == 2
    assert "fallback_providers[0].provider" in result.stderr and "Traceback" not in result.stderr


def test_fallbacks_without_a_key_or_with_a_small_window_are_skipped_with_a_reason() -> None:
    settings = Settings()
    settings.chain.fallback_providers = [
        FallbackEntry(provider="anthropic", model="claude-opus-4"),
        FallbackEntry(provider="openai", model="tiny", api_keys=("sk-x-1234",), context_length=8_000),
        FallbackEntry(provider="openai", model="gpt-4.1", api_keys=("sk-ok-5678",)),
    ]
    primary = ProviderChoice("demo", "demo", "", "", True)
    chain, skipped = build_chain(settings, primary, DemoProvider("demo"), lambda choice: DemoProvider(choice.model), {})
    assert [route.label for route in chain.routes] == ["demo:demo", "openai:gpt-4.1"]
    assert "fallback 1 (anthropic:claude-opus-4) skipped: no API key" in skipped[0]
    assert "fallback 2 (openai:tiny) skipped" in skipped[1] and "below the 64,000-token minimum" in skipped[1]


def test_a_pool_benches_a_key_until_its_cool_down_ends() -> None:
    now = [0.0]
    pool = CredentialPool(["sk-a-11111111", "sk-b-22222222"], clock=lambda: now[0])
    assert pool.rotate(60) and pool.current == "sk-b-22222222"
    assert not pool.can_rotate(), "the first key is resting"
    assert not pool.rotate(60), "nothing left to rotate to"
    now[0] = 61
    assert pool.refresh() and pool.current == "sk-a-11111111", "fill first once it has rested"
    assert "sk-" not in repr(pool) and key_suffix("sk-b-22222222") == "…2222" and key_suffix("short") == "…"
