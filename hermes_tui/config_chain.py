"""The provider chain's settings: fallback providers and models, and credential pools.

Owns three config.toml keys that do not fit the flat `[section] key = value` shape of the rest:

    fallback_model = "gpt-4o"                  # same provider, another model (or a table like below)

    [[fallback_providers]]                     # tried in order when the active one fails for good
    provider = "anthropic"
    model = "claude-haiku-4"
    base_url = ""                              # optional
    api_key = ""                               # optional; api_keys = [...] gives the entry a pool
    context_length = 0                         # optional; 0 = the model's known window

    [credential_pool]                          # extra keys per provider, rotated on 429/401/402
    openai = ["sk-...", "sk-..."]

and the `OPENAI_API_KEYS` / `ANTHROPIC_API_KEYS` environment variables (comma-separated keys).
Every mistake is one `ConfigError` line naming the file and key. Keys are never put in a message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

KEYS = ("fallback_providers", "fallback_model", "credential_pool")
POOL_ENV = {"openai": "OPENAI_API_KEYS", "anthropic": "ANTHROPIC_API_KEYS"}
_ENTRY_FIELDS = ("provider", "model", "base_url", "api_key", "api_keys", "context_length")
_CHAIN_PROVIDERS = ("openai", "anthropic", "demo")


class ChainConfigError(ValueError):
    """A mistake in the chain settings; the message is one line (config.py turns it into a ConfigError)."""


@dataclass(frozen=True)
class FallbackEntry:
    """One fallback: `provider` "" means the primary's provider (a `fallback_model` given as a name)."""

    provider: str = ""
    model: str = ""
    base_url: str = ""
    api_keys: tuple[str, ...] = field(default=(), repr=False)  # never rendered (they may come from .env)
    context_length: int = 0

    @property
    def label(self) -> str:
        return f"{self.provider or 'same provider'}:{self.model or 'default model'}"


@dataclass
class ChainSettings:
    fallback_providers: list[FallbackEntry] = field(default_factory=list)
    fallback_model: FallbackEntry | None = None
    credential_pool: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)

    @property
    def fallbacks(self) -> list[FallbackEntry]:
        """The fallback order: the listed providers, then `fallback_model`."""
        return [*self.fallback_providers, *([self.fallback_model] if self.fallback_model else [])]

    def pool_keys(self, provider: str, env: Mapping[str, str]) -> tuple[str, ...]:
        """The extra keys for `provider`: config first, then the `*_API_KEYS` variable."""
        keys = list(self.credential_pool.get(provider, ()))
        raw = env.get(POOL_ENV.get(provider, ""), "") if provider in POOL_ENV else ""
        keys += [key.strip() for key in raw.split(",") if key.strip()]
        return tuple(dict.fromkeys(keys))


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ChainConfigError(f"'{where}' must be a string, got {type(value).__name__}")
    return value.strip()


def _keys(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ChainConfigError(f"'{where}' must be a list of key strings")
    return tuple(dict.fromkeys(item.strip() for item in value if item.strip()))


def _entry(raw: Any, where: str) -> FallbackEntry:
    if isinstance(raw, str):
        if not raw.strip():
            raise ChainConfigError(f"'{where}' must name a model")
        return FallbackEntry(model=raw.strip())
    if not isinstance(raw, Mapping):
        raise ChainConfigError(f"'{where}' must be a table (provider, model, base_url, api_key)")
    unknown = sorted(set(raw) - set(_ENTRY_FIELDS))
    if unknown:
        raise ChainConfigError(f"unknown key '{where}.{unknown[0]}'")
    provider = _string(raw.get("provider", ""), f"{where}.provider").lower()
    if provider and provider not in _CHAIN_PROVIDERS:
        raise ChainConfigError(
            f"'{where}.provider': unknown provider '{provider}' (choose from {', '.join(_CHAIN_PROVIDERS)})"
        )
    base_url = _string(raw.get("base_url", ""), f"{where}.base_url")
    if base_url and not base_url.startswith(("http://", "https://")):
        raise ChainConfigError(f"'{where}.base_url' must be an http:// or https:// URL")
    keys = _keys(raw.get("api_keys", []), f"{where}.api_keys")
    single = _string(raw.get("api_key", ""), f"{where}.api_key")
    context_length = raw.get("context_length", 0)
    if not isinstance(context_length, int) or isinstance(context_length, bool) or context_length < 0:
        raise ChainConfigError(f"'{where}.context_length' must be a whole number >= 0")
    entry = FallbackEntry(
        provider=provider,
        model=_string(raw.get("model", ""), f"{where}.model"),
        base_url=base_url,
        api_keys=tuple(dict.fromkeys([single, *keys] if single else keys)),
        context_length=context_length,
    )
    if not entry.provider and not entry.model:
        raise ChainConfigError(f"'{where}' needs a provider or a model")
    return entry


def parse_chain(data: Mapping[str, Any]) -> ChainSettings:
    """The chain settings from the top-level keys of config.toml (the other keys are ignored)."""
    chain = ChainSettings()
    providers = data.get("fallback_providers", [])
    if not isinstance(providers, list):
        raise ChainConfigError("'fallback_providers' must be a list of tables ([[fallback_providers]])")
    chain.fallback_providers = [_entry(item, f"fallback_providers[{i}]") for i, item in enumerate(providers)]
    if "fallback_model" in data:
        chain.fallback_model = _entry(data["fallback_model"], "fallback_model")
    pool = data.get("credential_pool", {})
    if not isinstance(pool, Mapping):
        raise ChainConfigError("'credential_pool' must be a table of provider = [keys]")
    for provider, keys in pool.items():
        if provider not in POOL_ENV:
            raise ChainConfigError(f"'credential_pool.{provider}': unknown provider (choose from openai, anthropic)")
        chain.credential_pool[provider] = _keys(keys, f"credential_pool.{provider}")
    return chain
