"""HermesApp is put together from mixins (navigation, tree actions, message actions): no method of
one may silently replace another's (Python's MRO would keep only the first, and a key would call the
wrong code). Read from the classes themselves; stubs under `if TYPE_CHECKING:` do not exist at run time."""

from __future__ import annotations

import inspect
import re

from textual.app import App

from hermes_tui.app import HermesApp


def test_no_two_parts_of_the_app_define_the_same_method() -> None:
    parts = [cls for cls in HermesApp.__mro__ if cls.__module__.startswith("hermes_tui.")]
    assert len(parts) >= 4, [cls.__name__ for cls in parts]  # the app and its three mixins
    owners: dict[str, list[str]] = {}
    for cls in parts:
        for name, value in vars(cls).items():
            if callable(value) and not (name.startswith("__") and name.endswith("__")):
                owners.setdefault(name, []).append(cls.__name__)
    clashes = {name: classes for name, classes in owners.items() if len(classes) > 1}
    assert clashes == {}


def test_the_app_sets_no_attribute_textual_keeps_for_itself() -> None:
    # HermesApp once kept its own "_closed" flag: Textual's message loop reads the same attribute
    # ("while not self._closed"), and Textual setting it first made the app skip closing its database.
    textual_own = set(vars(App()))
    assigned: set[str] = set()
    for cls in (c for c in HermesApp.__mro__ if c.__module__.startswith("hermes_tui.")):
        assigned |= set(re.findall(r"self\.(\w+)\s*(?::[^=\n]+)?=(?!=)", inspect.getsource(cls)))
    assert "_agent_closed" in assigned  # the pattern finds the app's own attributes
    assert sorted(assigned & textual_own) == []
