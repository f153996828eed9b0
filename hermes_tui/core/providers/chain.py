"""The provider chain: the primary provider, its fallbacks in order, and each one's credential pool.

A `Route` is one entry: which provider and model, its key pool, its context window and (built on
first use) its `Provider`. `ProviderChain` knows which route is active: `fall_back()` moves a turn
to the next usable route (reference §6.1 "try_activate_fallback": walk by index, skip invalid
entries), `rotate_key()` benches the active key and moves to the next one in its pool, and
`restore_primary()` goes back to the primary at the start of the next turn. The turn's recovery
(`hermes_tui.core.turn.calls`) drives it; the Agent only builds and holds it.

`build_chain` resolves the settings: the primary's pool is its key plus `[credential_pool]` and
`*_API_KEYS`; a fallback without a usable key or with too small a window is skipped with a warning
(returned, for the caller to show). No key ever appears in a message: only `key_suffix`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from hermes_tui.config import DEFAULT_MODELS, ProviderChoice, Settings
from hermes_tui.config_chain import FallbackEntry
from hermes_tui.core.context.windows import MINIMUM_CONTEXT_LENGTH, context_window
from hermes_tui.core.providers.base import Provider
from hermes_tui.core.providers.credentials import CredentialPool, key_suffix

MakeProvider = Callable[[ProviderChoice], Provider]
_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
_BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}


@dataclass(eq=False)
class Route:
    """One entry of the chain."""

    choice: ProviderChoice
    pool: CredentialPool | None
    window: int
    window_known: bool
    provider: Provider | None = field(default=None, repr=False)
    quirks: set[str] = field(default_factory=set)  # sticky one-shot repairs this provider needed
    image_limit: int | None = None  # the per-image size this provider named when it refused one (base64 chars)

    @property
    def label(self) -> str:
        return f"{self.choice.provider}:{self.choice.model}"

    @property
    def key_note(self) -> str:
        """Which key is in use, safe to show: "key 2/3 …wxyz" (empty for a one-key route)."""
        if self.pool is None or len(self.pool) < 2:
            return ""
        return f"key {self.pool.position}/{len(self.pool)} {self.pool.current_suffix}"


class ProviderChain:
    """The active route and the ones to fall back on."""

    def __init__(self, routes: list[Route], make: MakeProvider | None = None) -> None:
        if not routes:
            raise ValueError("a provider chain needs a primary route")
        self.routes = routes
        self._make = make
        self._index = 0
        self._retired: list[Provider] = []

    @classmethod
    def single(cls, provider: Provider, window: int, window_known: bool) -> ProviderChain:
        """A chain of just `provider` (no fallbacks, no pool): what tests and bare Agents get."""
        choice = ProviderChoice(provider.name, provider.model, "", "", provider.is_demo)
        return cls([Route(choice, None, window, window_known, provider)])

    # ------------------------------------------------------------------ state

    @property
    def active(self) -> Route:
        return self.routes[self._index]

    @property
    def primary(self) -> Route:
        return self.routes[0]

    @property
    def on_fallback(self) -> bool:
        return self._index > 0

    @property
    def has_fallback(self) -> bool:
        return self._index < len(self.routes) - 1

    @property
    def provider(self) -> Provider:
        """The active route's provider, built on first use."""
        return self._provider_of(self.active)

    def _provider_of(self, route: Route) -> Provider:
        if route.provider is None:
            assert self._make is not None, "a route without a provider needs a factory"
            route.provider = self._make(route.choice)
        return route.provider

    # ------------------------------------------------------------------ moves

    def fall_back(self) -> Route | None:
        """Activate the next route whose provider can be built; None when the chain is spent."""
        while self.has_fallback:
            self._index += 1
            try:
                self._provider_of(self.active)
            except Exception:  # a broken entry (e.g. a bad URL) is skipped, as Hermes skips invalid ones
                continue
            return self.active
        return None

    def restore_primary(self) -> bool:
        """Back to the primary (and its first rested key) at the start of a turn; True when it moved."""
        moved = self._index != 0
        self._index = 0
        pool = self.primary.pool
        if pool is not None and pool.refresh():
            self._rekey(self.primary)
        return moved

    def replace_primary(self, provider: Provider, window: int, window_known: bool) -> None:
        """/model: the primary route talks to `provider`'s model from now on (and is active again)."""
        self._index = 0
        route = self.primary
        route.provider = provider
        route.choice = replace(route.choice, model=provider.model)
        route.window = window
        route.window_known = window_known

    def can_rotate(self) -> bool:
        pool = self.active.pool
        return pool is not None and pool.can_rotate()

    def rotate_key(self, cooldown: float) -> bool:
        """Bench the active key for `cooldown` seconds and use the pool's next one; False when none is left."""
        pool = self.active.pool
        if pool is None or not pool.rotate(cooldown):
            return False
        self._rekey(self.active)
        return True

    def _rekey(self, route: Route) -> None:
        assert route.pool is not None
        route.choice = replace(route.choice, api_key=route.pool.current)
        if route.provider is not None:
            route.provider.rekey(route.pool.current)

    async def aclose(self) -> None:
        for route in self.routes:
            if route.provider is not None:
                try:
                    await route.provider.aclose()
                except Exception:
                    pass


# --------------------------------------------------------------------------- building from settings


def _pool(keys: list[str]) -> CredentialPool | None:
    usable = [key for key in dict.fromkeys(keys) if key]
    return CredentialPool(usable) if usable else None


def _fallback_choice(
    entry: FallbackEntry, primary: ProviderChoice, primary_keys: list[str], settings: Settings, env: Mapping[str, str]
) -> tuple[ProviderChoice | None, list[str], str]:
    """(choice, keys, why skipped) for one fallback entry."""
    provider = entry.provider or primary.provider
    same = provider == primary.provider
    if provider == "demo":
        return ProviderChoice("demo", entry.model or "demo", "", "", True, "fallback"), [], ""
    model = entry.model or DEFAULT_MODELS.get(provider, "")
    base_url = entry.base_url or (primary.base_url if same else "") or env.get(_BASE_URL_ENV[provider], "")
    keys = list(entry.api_keys)
    if not keys and same:
        keys = list(primary_keys)
    if not keys:
        keys = [env.get(_KEY_ENV[provider], ""), *settings.chain.pool_keys(provider, env)]
        keys = [key for key in keys if key]
    if not keys and base_url:
        keys = ["not-needed"]  # local servers accept any key
    if not keys:
        return None, [], f"no API key for {provider} (set {_KEY_ENV[provider]} or the entry's api_key)"
    return ProviderChoice(provider, model, keys[0], base_url, False, "fallback"), keys, ""


def fallback_choices(
    settings: Settings, primary: ProviderChoice, env: Mapping[str, str] | None = None
) -> list[ProviderChoice]:
    """The configured fallbacks that can be called (a key or a base URL known), in their order."""
    env = os.environ if env is None else env
    primary_keys = [primary.api_key, *settings.chain.pool_keys(primary.provider, env)] if primary.api_key else []
    choices = [_fallback_choice(entry, primary, primary_keys, settings, env)[0] for entry in settings.chain.fallbacks]
    return [choice for choice in choices if choice is not None]


def build_chain(
    settings: Settings,
    primary: ProviderChoice,
    primary_provider: Provider,
    make: MakeProvider,
    env: Mapping[str, str] | None = None,
) -> tuple[ProviderChain, list[str]]:
    """The chain for these settings, and one warning line per fallback entry that had to be skipped."""
    env = os.environ if env is None else env
    primary_keys = [primary.api_key, *settings.chain.pool_keys(primary.provider, env)] if primary.api_key else []
    window, known = context_window(primary.model, settings.model.context_length)
    pool = _pool(primary_keys) if not primary.is_demo else None
    if pool is not None and pool.current != primary.api_key:
        pool = None  # never happens (the configured key comes first); keep the provider's own key then
    routes = [Route(primary, pool, window, known, primary_provider)]
    warnings: list[str] = []
    for position, entry in enumerate(settings.chain.fallbacks, start=1):
        choice, keys, why = _fallback_choice(entry, primary, primary_keys, settings, env)
        if choice is None:
            warnings.append(f"fallback {position} ({entry.label}) skipped: {why}")
            continue
        fb_window, fb_known = context_window(choice.model, entry.context_length)
        if fb_window < MINIMUM_CONTEXT_LENGTH:
            warnings.append(
                f"fallback {position} ({choice.provider}:{choice.model}) skipped: its {fb_window:,}-token window is "
                f"below the {MINIMUM_CONTEXT_LENGTH:,}-token minimum"
            )
            continue
        routes.append(Route(choice, _pool(keys), fb_window, fb_known))
    return ProviderChain(routes, make), warnings


__all__ = ["ProviderChain", "Route", "build_chain", "key_suffix"]
