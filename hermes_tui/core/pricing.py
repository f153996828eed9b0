"""Model prices, for the cost the token gauge shows: data only, in US dollars per million tokens.

`price_for(model)` finds a model by the most specific pattern that matches its normalised name
(router prefixes dropped, lower case); an unknown model has no price and the gauge says
"cost unknown" rather than guess. `call_cost(price, usage)` prices one API call from its token
buckets: uncached input, cache reads, cache writes and output (reasoning tokens are billed as
output, which `completion_tokens` already includes). The offline demo model is free.

Published list prices as of 2026-11; they change, so treat the cost as an estimate. A model
missing here only loses the cost figure, nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hermes_tui.core.context.windows import normalise_model_name
from hermes_tui.core.providers.base import Usage

PRICES_AS_OF = "2026-11"


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float


def _anthropic(input_price: float, output_price: float) -> Price:
    """Anthropic's rule: cache reads cost 10 % of input, 5-minute cache writes 125 %."""
    return Price(input_price, output_price, round(input_price * 0.1, 4), round(input_price * 1.25, 4))


def _openai(input_price: float, output_price: float, cached: float) -> Price:
    """OpenAI caches automatically: cached input has its own price, writing the cache costs nothing extra."""
    return Price(input_price, output_price, cached, input_price)


# (pattern on the normalised model name, price). First match wins: specific names come first.
_PRICES: tuple[tuple[re.Pattern[str], Price], ...] = tuple(
    (re.compile(pattern), price)
    for pattern, price in (
        (r"^demo\b", Price(0.0, 0.0, 0.0, 0.0)),
        # Anthropic
        (r"^claude-(opus-4|4-opus|opus-4-[01])", _anthropic(15.0, 75.0)),
        (r"^claude-opus-4-[5-9]", _anthropic(5.0, 25.0)),
        (r"^claude-(sonnet|3-7-sonnet|3-5-sonnet|4-sonnet)", _anthropic(3.0, 15.0)),
        (r"^claude-haiku-4", _anthropic(1.0, 5.0)),
        (r"^claude-3-5-haiku", _anthropic(0.8, 4.0)),
        (r"^claude-3-haiku", _anthropic(0.25, 1.25)),
        # OpenAI
        (r"^gpt-4o-mini\b", _openai(0.15, 0.60, 0.075)),
        (r"^(gpt-4o|chatgpt-4o)\b", _openai(2.50, 10.0, 1.25)),
        (r"^gpt-4\.1-nano\b", _openai(0.10, 0.40, 0.025)),
        (r"^gpt-4\.1-mini\b", _openai(0.40, 1.60, 0.10)),
        (r"^gpt-4\.1\b", _openai(2.0, 8.0, 0.50)),
        (r"^gpt-5-nano\b", _openai(0.05, 0.40, 0.005)),
        (r"^gpt-5-mini\b", _openai(0.25, 2.0, 0.025)),
        (r"^gpt-5\b", _openai(1.25, 10.0, 0.125)),
        (r"^o4-mini\b", _openai(1.10, 4.40, 0.275)),
        (r"^o3-mini\b", _openai(1.10, 4.40, 0.55)),
        (r"^o3\b", _openai(2.0, 8.0, 0.50)),
    )
)


def price_for(model: str) -> Price | None:
    """The model's price, or None when it is not in the table."""
    name = normalise_model_name(model)
    for pattern, price in _PRICES:
        if pattern.search(name):
            return price
    return None


def call_cost(price: Price, usage: Usage) -> float:
    """What one call cost in USD."""
    return (
        usage.input_tokens * price.input
        + usage.cache_read_tokens * price.cache_read
        + usage.cache_write_tokens * price.cache_write
        + usage.completion_tokens * price.output
    ) / 1_000_000
