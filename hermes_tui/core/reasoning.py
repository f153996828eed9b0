"""/reasoning LEVEL: how hard the model thinks, sent the way each provider takes it.

Hermes's levels: none, minimal, low, medium, high, xhigh, max, ultra; "default" goes back to the
configured `model.reasoning_effort` ("" = the provider's own default, nothing sent). How a level
reaches the wire:
- openai (and compatible servers): the `reasoning_effort` request field, the level as typed —
  max and ultra, which OpenAI does not name, as "xhigh". A model without reasoning may refuse the
  field; "default" stops sending it.
- anthropic: extended thinking with a token budget, Hermes's table (low/minimal 4,000, medium
  8,000, high 16,000, xhigh/max/ultra 32,000); none turns thinking off. max_tokens grows to leave
  the answer room (`AnthropicProvider.build_params`).
- demo: nothing (the offline model does not reason); the level is kept all the same.
The level applies from the next request to every provider of the chain built so far (a fallback
built later starts from the configured level); it lasts for the running program.
"""

from __future__ import annotations

from hermes_tui.core.providers.chain import ProviderChain

LEVELS = ("none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra")
DEFAULT_WORDS = ("default", "auto", "reset")
THINKING_BUDGETS = {
    "minimal": 4000,
    "low": 4000,
    "medium": 8000,
    "high": 16000,
    "xhigh": 32000,
    "max": 32000,
    "ultra": 32000,
}
_OPENAI_NAMES = {"max": "xhigh", "ultra": "xhigh"}


def openai_effort(level: str) -> str:
    """The `reasoning_effort` value an OpenAI-style request carries for `level` ("" = none sent)."""
    return _OPENAI_NAMES.get(level, level)


def thinking_budget(level: str) -> int:
    """Anthropic's thinking budget for `level` (0 = thinking off, also for the default)."""
    return THINKING_BUDGETS.get(level, 0)


def how_it_is_sent(provider_name: str, level: str) -> str:
    """One line: what requests to this provider carry for `level`."""
    if provider_name == "openai":
        effort = openai_effort(level)
        return f"requests carry reasoning_effort={effort}" if effort else "no reasoning_effort is sent"
    if provider_name == "anthropic":
        budget = thinking_budget(level)
        return f"extended thinking with a {budget:,}-token budget" if budget else "extended thinking is off"
    return "the demo model does not reason, so nothing changes for it"


class ReasoningEffort:
    """The reasoning level of one agent and the providers it is applied to."""

    def __init__(self, chain: ProviderChain, configured: str = "") -> None:
        self._chain = chain
        self.configured = configured.strip().lower()
        self.level = self.configured

    def set(self, level: str) -> str:
        """Use `level` (one of LEVELS, or a DEFAULT_WORDS word for the configured one); returns it."""
        word = level.strip().lower()
        self.level = self.configured if word in DEFAULT_WORDS else word
        self.apply()
        return self.level

    def apply(self) -> None:
        """Put the level on every provider built so far (again after /model builds a new one)."""
        for route in self._chain.routes:
            provider = route.provider
            if provider is None:
                continue
            if hasattr(provider, "reasoning_effort"):
                provider.reasoning_effort = openai_effort(self.level)
            if hasattr(provider, "thinking_budget"):
                provider.thinking_budget = thinking_budget(self.level)
