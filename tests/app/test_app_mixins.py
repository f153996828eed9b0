"""HermesApp is put together from mixins (navigation, tree actions, message actions): no method of
one may silently replace another's (Python's MRO would keep only the first, and a key would call the
wrong code). Read from the classes themselves; stubs under `if TYPE_CHECKING:` do not exist at run time."""

from __future__ import annotations

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
