"""`/model [name]`: talk to another model of the same provider from the next turn on (reference §10).

The switched provider is a copy of the current one with another model name (same key, endpoint,
timeouts and connection). Every budget follows the new model's window — threshold, tail and
summary budgets (`ContextMeter.use_window`) — and the gauge is re-published, so it redraws for the
new window at once; the session row records the new model. Hermes's `update_model` does the same.
A window the agent cannot work with (below 64,000 tokens) is refused before anything changes; an
unknown model is assumed to have the configured window (`model.context_length`) or 128,000 tokens,
and the gauge says it is a guess.
"""

from __future__ import annotations

import copy
import re

from hermes_tui.core.context.windows import MINIMUM_CONTEXT_LENGTH, context_window
from hermes_tui.core.providers.base import Provider
from hermes_tui.core.session.live import SessionError

_MODEL_NAME = re.compile(r"^[\w.:/@\[\]-]{1,200}$")


def check_model_name(name: str) -> str:
    """A model name as typed, or a SessionError saying what is wrong with it."""
    name = name.strip()
    if not _MODEL_NAME.match(name):
        raise SessionError(f"'{name[:60]}' is not a model name (letters, digits and . _ - : / @ [ ] only)")
    return name


def window_for(model: str, configured: int) -> tuple[int, bool]:
    """The new model's window and whether it is known; refuses one below the agent's minimum."""
    window, known = context_window(model)
    if not known and configured > 0:
        window, known = configured, True
    if window < MINIMUM_CONTEXT_LENGTH:
        raise SessionError(
            f"{model} has a {window:,}-token window, below the {MINIMUM_CONTEXT_LENGTH:,}-token minimum the agent needs"
        )
    return window, known


def switched_provider(provider: Provider, model: str) -> Provider:
    """`provider` talking to `model` (the demo provider has one model only)."""
    if provider.is_demo and model != provider.model:
        raise SessionError(
            "the offline demo provider has one model, 'demo' — configure a provider key to switch models"
        )
    clone = copy.copy(provider)
    clone.model = model
    return clone
