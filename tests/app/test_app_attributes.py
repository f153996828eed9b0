"""HermesApp sets no attribute Textual's App keeps for itself: the app's own state may not shadow the
framework's. Read from the class's source (every `self.x = …` it writes) and its parts built on first use
(its cached properties), checked against a plain App."""

from __future__ import annotations

import functools
import inspect
import re

from textual.app import App

from hermes_tui.app import HermesApp


def test_the_app_sets_no_attribute_textual_keeps_for_itself() -> None:
    # HermesApp once kept its own "_closed" flag: Textual's message loop reads the same attribute
    # ("while not self._closed"), and Textual setting it first made the app skip closing its database.
    textual_own = set(vars(App()))
    assigned: set[str] = set()
    for cls in (c for c in HermesApp.__mro__ if c.__module__.startswith("hermes_tui.")):
        assigned |= set(re.findall(r"self\.(\w+)\s*(?::[^=\n]+)?=(?!=)", inspect.getsource(cls)))
        assigned |= {name for name, value in vars(cls).items() if isinstance(value, functools.cached_property)}
    assert {"_agent_closed", "turns", "presenter"} <= assigned  # the pattern finds the app's own attributes
    assert sorted(assigned & textual_own) == []
