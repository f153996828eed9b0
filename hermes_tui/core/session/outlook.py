"""The gauge's look ahead: context size per turn, growth, turns left, cache hits, cost (`ContextOutlook`).

`OutlookTracker` is fed by the context meter: every API call's usage (`record_call`: the cache
hit rate of the last call, the session's cost from `core/pricing.py`) and the size of the context
at the end of every turn (`end_turn`, with the compression count, so a drop from a compression is
marked and never read as negative growth). `snapshot(...)` turns that into the `ContextOutlook`
the gauge draws:

- turns left: (threshold - context now) / the mean growth of the last GROWTH_WINDOW turns that
  grew without a compression in between; unknown until one such turn exists, 0 at the threshold.
- the cache hit rate of the last call (cache reads / prompt tokens).
- the session's tokens and cost; the cost is None (unknown) as soon as one call used a model
  that has no price.
- sizes: the context at the end of each turn (the last MAX_SIZES), across compressions.
"""

from __future__ import annotations

from collections.abc import Callable

from hermes_tui.core.events import ContextOutlook
from hermes_tui.core.pricing import call_cost, price_for
from hermes_tui.core.providers.base import Usage

GROWTH_WINDOW = 4  # turns the growth rate is averaged over
MAX_SIZES = 120  # turns kept for the sparkline


class OutlookTracker:
    """What the gauge needs beyond the current budget; reset with the session's totals."""

    def __init__(self, model: Callable[[], str]) -> None:
        self._model = model
        self._sizes: list[int] = []
        self._compressed_before: list[int] = []  # indices into _sizes
        self._compressions_seen = 0
        self._cost = 0.0
        self._cost_known = True
        self._last_cache_hit: float | None = None

    def record_call(self, usage: Usage) -> float | None:
        """One API call: its cache hits and its cost (returned; None when the model has no price)."""
        if usage.prompt_tokens > 0:
            self._last_cache_hit = usage.cache_read_tokens / usage.prompt_tokens
        price = price_for(self._model())
        if price is None:
            if usage.prompt_tokens or usage.completion_tokens:
                self._cost_known = False
            return None
        cost = call_cost(price, usage)
        self._cost += cost
        return cost

    def end_turn(self, context_tokens: int, compression_count: int) -> None:
        """The context size at the end of a turn; `compression_count` tells whether one happened."""
        compressed = compression_count != self._compressions_seen
        self._compressions_seen = compression_count
        if compressed and self._sizes:
            self._compressed_before.append(len(self._sizes))
        self._sizes.append(max(0, int(context_tokens)))
        if len(self._sizes) > MAX_SIZES:
            drop = len(self._sizes) - MAX_SIZES
            self._sizes = self._sizes[drop:]
            self._compressed_before = [i - drop for i in self._compressed_before if i - drop > 0]

    def forget_sizes(self, compression_count: int = 0) -> None:
        """Another conversation is live: its sizes start over (the cost stays, see `reset`)."""
        self._sizes.clear()
        self._compressed_before.clear()
        self._compressions_seen = compression_count
        self._last_cache_hit = None

    def reset(self) -> None:
        """A new session: sizes, cache hits and cost start over."""
        self.forget_sizes()
        self._cost = 0.0
        self._cost_known = True

    def growth_per_turn(self) -> int:
        """Mean growth of the last GROWTH_WINDOW turns that grew, compressions excluded (0 = unknown)."""
        steps: list[int] = []
        for index in range(len(self._sizes) - 1, 0, -1):
            if index in self._compressed_before:
                continue
            step = self._sizes[index] - self._sizes[index - 1]
            if step > 0:
                steps.append(step)
            if len(steps) == GROWTH_WINDOW:
                break
        return round(sum(steps) / len(steps)) if steps else 0

    def snapshot(self, *, current: int, threshold: int, input_tokens: int, output_tokens: int) -> ContextOutlook:
        growth = self.growth_per_turn()
        if threshold > 0 and current >= threshold:
            turns_left: int | None = 0
        elif growth > 0 and threshold > 0:
            turns_left = (threshold - current) // growth
        else:
            turns_left = None
        return ContextOutlook(
            turns_left=turns_left,
            growth_per_turn=growth,
            cache_hit_rate=self._last_cache_hit,
            session_input_tokens=input_tokens,
            session_output_tokens=output_tokens,
            session_cost_usd=self._cost if self._cost_known else None,
            sizes=tuple(self._sizes),
            compressed_before=tuple(self._compressed_before),
        )
