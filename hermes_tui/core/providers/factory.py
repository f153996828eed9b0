"""Build provider instances from resolved settings: the main model and the auxiliary summariser.

`make_provider` turns a `ProviderChoice` (see `hermes_tui.config.resolve_provider`) into a provider;
`resolve_aux_choice` / `make_aux_provider` do the same for `auxiliary.compression`, where provider
"auto" (or "") means "the main provider", optionally with its own model, base URL, key and timeout.
Both get the `[timeouts]` limits (connect, first byte, stream idle) as `StreamTimeouts`.
No SDK is imported here: providers import theirs on first use.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from hermes_tui.config import DEFAULT_MODELS, PROVIDERS, ConfigError, ProviderChoice, Settings, TimeoutsSettings
from hermes_tui.core.providers.anthropic import DEFAULT_MAX_TOKENS, AnthropicProvider
from hermes_tui.core.providers.base import Provider
from hermes_tui.core.providers.demo import DemoProvider
from hermes_tui.core.providers.openai import OpenAIProvider
from hermes_tui.core.providers.stream_guard import StreamTimeouts

_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
_BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}


def stream_timeouts(settings: TimeoutsSettings | None) -> StreamTimeouts:
    """The `[timeouts]` section as the providers' limits; a negative or non-finite value is a ConfigError."""
    if settings is None:
        return StreamTimeouts()
    problem = settings.problem()
    if problem:
        raise ConfigError(problem)
    return StreamTimeouts(connect=settings.connect, first_byte=settings.first_byte, idle=settings.idle)


def make_provider(
    choice: ProviderChoice,
    *,
    timeout: float | None = None,
    max_tokens: int | None = None,
    reasoning_effort: str = "",
    timeouts: TimeoutsSettings | None = None,
) -> Provider:
    """The provider for a resolved choice. Unknown provider names are a ConfigError."""
    if choice.provider == "demo" or choice.is_demo:
        return DemoProvider(choice.model or "demo")
    limits = stream_timeouts(timeouts)
    if choice.provider == "openai":
        return OpenAIProvider(
            choice.model or DEFAULT_MODELS["openai"],
            api_key=choice.api_key,
            base_url=choice.base_url,
            timeout=timeout,
            reasoning_effort=reasoning_effort,
            timeouts=limits,
        )
    if choice.provider == "anthropic":
        return AnthropicProvider(
            choice.model or DEFAULT_MODELS["anthropic"],
            api_key=choice.api_key,
            base_url=choice.base_url,
            timeout=timeout,
            max_tokens=max_tokens or DEFAULT_MAX_TOKENS,
            timeouts=limits,
        )
    raise ConfigError(f"unknown provider '{choice.provider}' (choose from {', '.join(PROVIDERS)})")


def resolve_aux_choice(
    settings: Settings, main: ProviderChoice, env: Mapping[str, str] | None = None
) -> ProviderChoice:
    """The provider choice for `auxiliary.compression` ("auto" = the main provider, with overrides)."""
    env = os.environ if env is None else env
    aux = settings.auxiliary.compression
    provider = (aux.provider or "auto").strip().lower()
    if provider == "auto" or provider == main.provider:
        return ProviderChoice(
            provider=main.provider,
            model=aux.model or main.model,
            api_key=aux.api_key or main.api_key,
            base_url=aux.base_url or main.base_url,
            is_demo=main.is_demo,
            reason="auxiliary.compression follows the main provider",
        )
    if provider not in PROVIDERS:
        raise ConfigError(
            f"auxiliary.compression: unknown provider '{aux.provider}' (choose auto, {', '.join(PROVIDERS)})"
        )
    if provider == "demo":
        return ProviderChoice("demo", "demo", "", "", True, "auxiliary.compression uses the demo model")
    base_url = aux.base_url or env.get(_BASE_URL_ENV[provider], "")
    key = aux.api_key or env.get(_KEY_ENV[provider], "") or ("not-needed" if base_url else "")
    if not key:
        raise ConfigError(
            f"auxiliary.compression: provider '{provider}' needs an API key: set "
            f"auxiliary.compression.api_key or {_KEY_ENV[provider]}"
        )
    return ProviderChoice(provider, aux.model or DEFAULT_MODELS[provider], key, base_url, False)


def make_aux_provider(settings: Settings, main: ProviderChoice, env: Mapping[str, str] | None = None) -> Provider:
    """The summariser provider for context compression, with `auxiliary.compression.timeout`."""
    choice = resolve_aux_choice(settings, main, env)
    return make_provider(choice, timeout=settings.auxiliary.compression.timeout or None, timeouts=settings.timeouts)
