"""The screens that open on demand: the one place that knows where each lives, imported when first opened.

The first frame draws `MainScreen` alone. Every other screen (search, compare, the compression
inspector, help, context, rewind, diffs, memory & skills, the pickers and dialogs...) is imported
the first time it is asked for, through `screen_class(name)`, so start-up pays for none of them nor
for what they import (the search stack, the context engine's reports, checkpoints...);
tests/test_startup_imports.py checks the first frame's modules. `loaded_class(name)` gives the
class only if its module is imported already — for "is that screen on show?" checks, which must
not import it. This module imports none of the screens, so it is in no import cycle.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from textual.screen import Screen

_MODULE_OF: dict[str, str] = {
    "ApprovalScreen": "hermes_tui.screens.approval",
    "ArchiveScreen": "hermes_tui.screens.tree_dialogs",
    "CompareScreen": "hermes_tui.screens.compare",
    "CompressPreviewScreen": "hermes_tui.screens.compress_preview",
    "CompressionInspectorScreen": "hermes_tui.screens.compression_inspector",
    "ContextScreen": "hermes_tui.screens.context",
    "DeleteScreen": "hermes_tui.screens.tree_dialogs",
    "DiffScreen": "hermes_tui.screens.diff",
    "FullTextScreen": "hermes_tui.screens.full_text",
    "HelpScreen": "hermes_tui.screens.help",
    "LearningScreen": "hermes_tui.screens.learning",
    "RenameScreen": "hermes_tui.screens.tree_dialogs",
    "ReplayPickerScreen": "hermes_tui.screens.replay_picker",
    "ReviewDiffScreen": "hermes_tui.screens.review_diff",
    "RewindScreen": "hermes_tui.screens.rewind",
    "SearchScreen": "hermes_tui.screens.search",
    "SessionPickerScreen": "hermes_tui.screens.session_picker",
    "TextScreen": "hermes_tui.screens.learning",
}

BINDABLE: tuple[str, ...] = (
    "SearchScreen",
    "CompareScreen",
    "SessionPickerScreen",
    "CompressionInspectorScreen",
    "LearningScreen",
    "ReviewDiffScreen",
    "RewindScreen",
    "DiffScreen",
    "HelpScreen",
    "ApprovalScreen",
)
"""The on-demand screens whose bindings have ids (the `[keymap]` table can move them)."""


def names() -> list[str]:
    """Every on-demand screen's class name."""
    return sorted(_MODULE_OF)


def module_of(name: str) -> str:
    """The module `name` lives in (KeyError for a screen this registry does not know)."""
    return _MODULE_OF[name]


def screen_class(name: str) -> type[Screen[Any]]:
    """The screen class `name`, its module imported now if it was not yet."""
    cls = getattr(importlib.import_module(_MODULE_OF[name]), name)
    assert isinstance(cls, type) and issubclass(cls, Screen)
    return cls


def loaded_class(name: str) -> type[Screen[Any]] | None:
    """The screen class `name` if its module was imported already, else None (nothing is imported)."""
    module = sys.modules.get(_MODULE_OF[name])
    return None if module is None else getattr(module, name)
