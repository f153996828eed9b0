"""`FirstScreenHint`: what to type and which keys reach the four panes, until the first message.

Shown above the conversation while the live session has no messages (a fresh start, /new); gone
once a message is sent or a session with messages is opened. With the demo model it offers three
prompts the demo answers with real tools (see `core/providers/demo.py`). The keys are read from
the main screen's bindings by their ids (`pane_keys`), so a changed binding changes the hint.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.binding import Binding, BindingType
from textual.widgets import Static

from hermes_tui.keymap import key_label

DEMO_PROMPTS = (  # each makes the demo do something real: a file listing, a read, its reasoning shown
    "list files",
    "read README.md",
    "think about what to test first",
)
# (pane, [(binding id or action, what it does there)])
PANES = (
    ("Conversation", [("message-cursor", "messages"), ("search", "search")]),
    ("Sessions", [("app.focus_next", "focus"), ("compare", "compare")]),
    ("Context", [("inspect-compression", "inspect compression")]),
    ("Review log", [("learning", "memory & skills"), ("toggle-side-panel", "fold panel")]),
)


def _keys(bindings: Iterable[BindingType]) -> dict[str, str]:
    """Binding id (and action) -> the key as people read it."""
    found: dict[str, str] = {}
    for binding in bindings:
        if isinstance(binding, Binding):
            label = key_label(binding.key.split(",")[0])
            found.setdefault(binding.action, label)
            if binding.id:
                found.setdefault(binding.id, label)
    return found


def pane_keys(bindings: Iterable[BindingType]) -> list[str]:
    """One line per pane: "Sessions     Tab focus · F3 compare" (keys missing from `bindings` left out)."""
    keys = _keys(bindings)
    lines = []
    for pane, entries in PANES:
        parts = [f"{keys[name]} {what}" for name, what in entries if name in keys]
        if parts:
            lines.append(f"{pane:<13}" + " · ".join(parts))
    return lines


def hint_text(bindings: Iterable[BindingType], *, is_demo: bool) -> str:
    lines: list[str] = []
    if is_demo:
        lines.append("Try one of these with the demo model:")
        lines.extend(f"  › {prompt}" for prompt in DEMO_PROMPTS)
        lines.append("")
    lines.append("Keys for the panes (F1 lists them all):")
    lines.extend(f"  {line}" for line in pane_keys(bindings))
    return "\n".join(lines)


class FirstScreenHint(Static):
    """The hint above an empty conversation (see the module docstring)."""

    def __init__(self, bindings: Iterable[BindingType], *, is_demo: bool, id: str | None = None) -> None:
        super().__init__(hint_text(bindings, is_demo=is_demo), markup=False, id=id)
        self.border_title = "Getting started"
