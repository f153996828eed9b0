"""The keys hermes-tui answers to, read from the Binding objects themselves.

`APP_BINDINGS` is the app-wide list (HermesApp's BINDINGS is this very list). `key_sections()`
gathers it with the bindings the given screens (for the help: the screens under it, i.e. the main
screen) and the widgets declare, grouped by where they work: only bindings with a description; keys
sharing an action and a description on one row; a widget's key left out when a priority app
binding takes that key first (it never reaches the widget). `key_label()` spells a key for people
("ctrl+c" -> "Ctrl+C", "up" -> "↑"). Screens are passed in rather than imported, so the help
screen (which the main screen opens) can use this module without an import cycle.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from textual.binding import Binding, BindingType

CTRL_C_LADDER = (
    "Ctrl+C clears the input; with an empty prompt interrupts a streaming turn; pressed twice within 2 s quits."
)

APP_BINDINGS: list[BindingType] = [
    Binding("ctrl+c", "ctrl_c", "Interrupt/Quit", priority=True, id="interrupt", tooltip=CTRL_C_LADDER),
    Binding("ctrl+q", "quit", "Quit", priority=True, id="quit"),
    Binding("ctrl+p", "command_palette", "Command palette", show=False, priority=True, id="command-palette"),
]
"""The keys that work everywhere in hermes-tui (Ctrl+P is Textual's palette key, declared here so it is listed)."""

KEY_NAMES = {
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "escape": "Esc",
    "enter": "Enter",
    "space": "Space",
    "tab": "Tab",
    "home": "Home",
    "end": "End",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "backspace": "Backspace",
    "delete": "Del",
}


def key_label(key: str) -> str:
    """A key as the help shows it: "ctrl+c" -> "Ctrl+C", "shift+tab" -> "Shift+Tab", "f1" -> "F1", "y" -> "y"."""
    *modifiers, base = key.split("+")
    if base in KEY_NAMES:
        name = KEY_NAMES[base]
    elif len(base) == 1:
        name = base.upper() if modifiers else base
    elif base[0] == "f" and base[1:].isdigit():
        name = base.upper()
    else:
        name = base.replace("_", " ").capitalize()
    return "+".join([*(modifier.capitalize() for modifier in modifiers), name])


@dataclass(frozen=True)
class KeyRow:
    """One line of the key list: the keys, what they do, and a longer note when the binding has one."""

    keys: tuple[str, ...]
    description: str
    note: str = ""

    @property
    def label(self) -> str:
        return " / ".join(self.keys)


@dataclass(frozen=True)
class KeySection:
    title: str
    rows: tuple[KeyRow, ...]


def declared_bindings(owner: type) -> list[Binding]:
    """The bindings hermes-tui declares on `owner` and its hermes-tui base classes, one per key
    (a subclass's binding replaces its base's). Textual's own inherited bindings are not included."""
    by_key: dict[str, Binding] = {}
    for cls in reversed(owner.__mro__):
        if cls.__module__.startswith("hermes_tui."):
            for binding in Binding.make_bindings(cls.__dict__.get("BINDINGS", [])):
                by_key[binding.key] = binding
    return list(by_key.values())


def _rows(
    bindings: Iterable[Binding], taken: frozenset[str], keymap: Mapping[str, str] | None = None
) -> tuple[KeyRow, ...]:
    grouped: dict[tuple[str, str], list[Binding]] = {}
    for binding in bindings:
        if binding.description and not binding.system and binding.key not in taken:
            grouped.setdefault((binding.action, binding.description), []).append(binding)
    keymap = keymap or {}

    def label(binding: Binding) -> str:
        if binding.id in keymap:  # remapped in config.toml's [keymap]
            return " / ".join(key_label(key.strip()) for key in keymap[binding.id].split(","))
        return binding.key_display or key_label(binding.key)

    return tuple(
        KeyRow(
            keys=tuple(label(binding) for binding in same),
            description=description,
            note=next((binding.tooltip for binding in same if binding.tooltip), ""),
        )
        for (_action, description), same in grouped.items()
    )


def key_sections(
    screens: Iterable[type], places: Sequence[tuple[str, type]], keymap: Mapping[str, str] | None = None
) -> list[KeySection]:
    """Every described key of the app and of `screens` ("Anywhere"), then of each (title, widget or
    screen class) in `places`, by where it works (with the keys `keymap`, binding id -> keys, gives
    instead of the defaults). The places are the help screen's to name, so this module imports no UI."""
    app_bindings = list(Binding.make_bindings(APP_BINDINGS))
    taken = frozenset(binding.key for binding in app_bindings if binding.priority)
    screen_bindings = [
        binding for screen in screens for binding in declared_bindings(screen) if binding.key not in taken
    ]
    sources: list[tuple[str, list[Binding], frozenset[str]]] = [
        ("Anywhere", app_bindings + screen_bindings, frozenset()),
        *((title, declared_bindings(owner), taken) for title, owner in places),
    ]
    sections = [KeySection(title, _rows(bindings, skip, keymap)) for title, bindings, skip in sources]
    return [section for section in sections if section.rows]
