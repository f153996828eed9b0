"""Building providers from settings, and the promise that no SDK loads at import time."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hermes_tui.config import ConfigError, ProviderChoice, Settings, resolve_provider
from hermes_tui.core.providers.anthropic import AnthropicProvider
from hermes_tui.core.providers.base import ChatRequest
from hermes_tui.core.providers.demo import DemoProvider
from hermes_tui.core.providers.factory import make_aux_provider, make_provider, resolve_aux_choice
from hermes_tui.core.providers.openai import OpenAIProvider
from tests.fake_llm import FakeLLMServer, Reply
from tests.providers.helpers import collect, texts

OPENAI = ProviderChoice("openai", "gpt-4o-mini", "sk-main", "http://127.0.0.1:1/v1", False)
ANTHROPIC = ProviderChoice("anthropic", "claude-sonnet-5", "sk-ant", "", False)
DEMO = ProviderChoice("demo", "demo", "", "", True, "no API key configured")


def test_no_key_means_the_demo_provider() -> None:
    provider = make_provider(resolve_provider(Settings(), env={}))
    assert isinstance(provider, DemoProvider) and provider.is_demo


def test_openai_and_anthropic_choices() -> None:
    openai_provider = make_provider(OPENAI, timeout=12.0, reasoning_effort="low")
    assert isinstance(openai_provider, OpenAIProvider)
    assert (openai_provider.model, openai_provider.api_key, openai_provider.base_url) == (
        "gpt-4o-mini",
        "sk-main",
        "http://127.0.0.1:1/v1",
    )
    assert openai_provider.timeout == 12.0 and not openai_provider.is_demo
    assert openai_provider.build_params(ChatRequest(messages=[]))["reasoning_effort"] == "low"
    anthropic_provider = make_provider(ANTHROPIC, max_tokens=8192)
    assert isinstance(anthropic_provider, AnthropicProvider)
    assert anthropic_provider.max_tokens == 8192
    assert anthropic_provider.label == "anthropic:claude-sonnet-5"


def test_unknown_provider_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown provider 'gemini'"):
        make_provider(ProviderChoice("gemini", "g", "k", "", False))


def test_aux_auto_follows_the_main_provider_with_overrides() -> None:
    settings = Settings()
    settings.auxiliary.compression.model = "gpt-4.1-nano"
    choice = resolve_aux_choice(settings, OPENAI, env={})
    assert (choice.provider, choice.model, choice.api_key, choice.base_url) == (
        "openai",
        "gpt-4.1-nano",
        "sk-main",
        "http://127.0.0.1:1/v1",
    )
    assert resolve_aux_choice(Settings(), DEMO, env={}).is_demo


def test_aux_provider_of_its_own_needs_its_key() -> None:
    settings = Settings()
    settings.auxiliary.compression.provider = "anthropic"
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        resolve_aux_choice(settings, OPENAI, env={})
    choice = resolve_aux_choice(settings, OPENAI, env={"ANTHROPIC_API_KEY": "sk-ant-env"})
    assert (choice.provider, choice.model, choice.api_key) == ("anthropic", "claude-sonnet-5", "sk-ant-env")
    settings.auxiliary.compression.provider = "bogus"
    with pytest.raises(ConfigError, match="unknown provider 'bogus'"):
        resolve_aux_choice(settings, OPENAI, env={})


def test_aux_provider_gets_the_aux_timeout() -> None:
    settings = Settings()
    settings.auxiliary.compression.timeout = 45.0
    provider = make_aux_provider(settings, OPENAI, env={})
    assert isinstance(provider, OpenAIProvider) and provider.timeout == 45.0


async def test_aux_provider_summarises_through_the_configured_endpoint() -> None:
    with FakeLLMServer() as srv:
        srv.enqueue(Reply(text="## Active Task\nNone"))
        settings = Settings()
        settings.auxiliary.compression.base_url = srv.base_url_openai
        settings.auxiliary.compression.model = "summary-model"
        provider = make_aux_provider(settings, OPENAI, env={})
        summary = await provider.complete("TURNS TO SUMMARIZE: ...", max_tokens=2600)
        await provider.aclose()
        assert summary == "## Active Task\nNone"
        assert srv.last_body["model"] == "summary-model"
        assert srv.last_body["max_tokens"] == 2600


async def test_main_provider_streams_from_a_local_server() -> None:
    with FakeLLMServer() as srv:
        srv.enqueue(Reply(text="local model says hi"))
        provider = make_provider(ProviderChoice("openai", "llama3", "not-needed", srv.base_url_openai, False))
        events = await collect(provider, ChatRequest(messages=[{"role": "user", "content": "hi"}]))
        await provider.aclose()
    assert "".join(texts(events)) == "local model says hi"


def test_importing_the_core_does_not_import_an_sdk() -> None:
    code = (
        "import sys\n"
        "import hermes_tui.core.providers.factory, hermes_tui.core.turn.errors, hermes_tui.core.turn.retry\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('openai', 'anthropic', 'httpx2'))\n"
        "print(','.join(loaded))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == ""
