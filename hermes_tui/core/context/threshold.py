"""When automatic compression fires: the trigger threshold for a window (Hermes's rule, a7ef17da7).

Owns `effective_threshold_percent(window, configured)` and `threshold_tokens(window, percent,
max_output)`. A window under 512K tokens triggers at no less than 75 % (raise-only: a higher
configured percentage wins), because at 50 % a 128K-262K model keeps re-compressing — the system
prompt, tool schemas, protected tail and summary eat most of what a compression frees. The
percentage applies to the input budget, `window - max_output` (the provider reserves the output
out of the same window). The result is floored at MINIMUM_CONTEXT_LENGTH so a large window does
not compress early; when that floor would reach the budget (a 64K or smaller model) the trigger is
85 % of the budget instead, so compression fires before the provider refuses the request.
"""

from __future__ import annotations

from hermes_tui.core.context.windows import MINIMUM_CONTEXT_LENGTH

SMALL_WINDOW_LIMIT = 512_000  # windows below this get the percentage floor
SMALL_WINDOW_THRESHOLD_PERCENT = 0.75
SMALL_BUDGET_TRIGGER_RATIO = 0.85  # when the 64K floor would reach the input budget


def effective_threshold_percent(window: int, configured: float) -> float:
    """The percentage the trigger uses for `window`: `configured`, raised to 75 % under 512K."""
    if 0 < window < SMALL_WINDOW_LIMIT:
        return max(configured, SMALL_WINDOW_THRESHOLD_PERCENT)
    return configured


def input_budget(window: int, max_output: int | None) -> int:
    """What is left of `window` for the prompt once `max_output` is reserved (the window when nothing is)."""
    budget = window - (max_output or 0) if max_output and max_output > 0 else window
    return budget if budget > 0 else window


def threshold_tokens(window: int, percent: float, max_output: int | None = None) -> int:
    """The prompt size (tokens) at which automatic compression fires (module docstring)."""
    budget = input_budget(window, max_output)
    floored = max(int(budget * percent), MINIMUM_CONTEXT_LENGTH)
    if floored >= budget:
        return max(1, min(int(budget * SMALL_BUDGET_TRIGGER_RATIO), budget - 1))
    return floored
