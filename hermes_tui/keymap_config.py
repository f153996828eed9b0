"""Key remapping by binding id: the `[keymap]` table of config.toml, checked before the app starts.

    [keymap]
    search = "ctrl+f,f8"       # binding id = one key, or several separated by commas
    toggle-side-panel = "f9"

Every binding that can be remapped has an id (`known_bindings()` lists them with where they
work); Textual's keymap applies the table to all of them at once. `keymap_problems` checks a table
and says, one line each, what is wrong: an unknown id, a key Textual cannot name, a key given to
two ids, or a key another binding of the same place (or an app-wide one) already answers to — for
the main screen's keys, the prompt's too (Textual's own editing keys included), since the focused
prompt would take the key first. `check_keymap` raises the first problem as a ConfigError (the CLI
stops with it, like any bad setting); `usable_keymap` keeps only the valid entries (for an app
started some other way).
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from textual.binding import Binding
from textual.keys import KEY_TO_UNICODE_NAME, REPLACED_KEYS, Keys

from hermes_tui.config import ConfigError
from hermes_tui.keymap import APP_BINDINGS, declared_bindings

MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
APP_PLACE = "app"


@dataclass(frozen=True)
class KnownBinding:
    id: str
    place: str  # the class declaring it ("app" for the app-wide keys)
    binding: Binding


def _bindable_owners() -> list[type]:
    """Every hermes-tui class whose bindings have ids (imported here, never by those classes; the
    on-demand screens through their registry, so only a non-empty `[keymap]` table imports them)."""
    from hermes_tui.screens.main import MainScreen
    from hermes_tui.screens.registry import BINDABLE, screen_class
    from hermes_tui.widgets.conversation import ConversationView
    from hermes_tui.widgets.lineage_tree import LineageTree
    from hermes_tui.widgets.prompt_input import PromptInput
    from hermes_tui.widgets.review_log import ReviewLog
    from hermes_tui.widgets.tool_card import ToolCard

    screens: list[type] = [screen_class(name) for name in BINDABLE]
    return [MainScreen, *screens, PromptInput, ConversationView, LineageTree, ToolCard, ReviewLog]


@cache
def known_bindings() -> dict[str, KnownBinding]:
    """Every binding with an id, by id."""
    found: dict[str, KnownBinding] = {}
    for binding in Binding.make_bindings(APP_BINDINGS):
        if binding.id:
            found[binding.id] = KnownBinding(binding.id, APP_PLACE, binding)
    for owner in _bindable_owners():
        for binding in declared_bindings(owner):
            if binding.id and binding.id not in found:
                found[binding.id] = KnownBinding(binding.id, owner.__name__, binding)
    return found


def _bindings_of(place: str) -> list[Binding]:
    return [known.binding for known in known_bindings().values() if known.place == place]


def _all_bindings_of(place: str) -> list[Binding]:
    """Every binding of a place, with or without an id (for clashes)."""
    if place == APP_PLACE:
        return list(Binding.make_bindings(APP_BINDINGS))
    owner = next(owner for owner in _bindable_owners() if owner.__name__ == place)
    return declared_bindings(owner)


def _prompt_bindings() -> list[Binding]:
    """Every key the prompt answers to while it has focus, Textual's own TextArea keys included (not
    those it passes on to the app)."""
    from hermes_tui.widgets.prompt_input import PASSED_KEYS, PromptInput

    by_key: dict[str, Binding] = {}
    for cls in reversed(PromptInput.__mro__):
        for binding in Binding.make_bindings(cls.__dict__.get("BINDINGS", [])):
            by_key[binding.key] = binding
    return [binding for key, binding in by_key.items() if key not in PASSED_KEYS]


def key_problem(key: str) -> str:
    """'' when Textual can name `key` ("ctrl+f", "f3", "question_mark", "?"), else why not."""
    if not key:
        return "an empty key"
    *modifiers, base = key.split("+")
    unknown = [m for m in modifiers if m not in MODIFIERS]
    if unknown:
        return f"'{unknown[0]}' is not a modifier (use {', '.join(sorted(MODIFIERS))})"
    if len(base) == 1 and base.isprintable() and not base.isspace():
        return ""
    if base in {k.value for k in Keys} or base in REPLACED_KEYS or base in KEY_TO_UNICODE_NAME:
        return ""
    try:
        unicodedata.lookup(base.replace("_", " ").upper())
    except KeyError:
        return f"'{key}' is not a key name (examples: ctrl+f, f3, escape, question_mark)"
    return ""


def _normal(key: str) -> str:
    from textual.keys import _character_to_key

    return _character_to_key(key) if len(key) == 1 else key


def keymap_problems(keymap: Mapping[str, str]) -> list[str]:
    """What is wrong with a `[keymap]` table, one line per problem ([] when it is usable)."""
    if not keymap:
        return []  # (without looking the bindings up: that imports every screen that has some)
    known = known_bindings()
    problems: list[str] = []
    claimed: dict[str, str] = {}  # key -> the id it was given to
    for binding_id, keys in keymap.items():
        if binding_id not in known:
            close = difflib.get_close_matches(binding_id, list(known), n=3)
            hint = f" (did you mean {' or '.join(close)}?)" if close else " (the README lists the binding ids)"
            problems.append(f"[keymap] unknown binding id '{binding_id}'{hint}")
            continue
        parts = [part.strip() for part in keys.split(",")]
        for part in parts:
            problem = key_problem(part)
            if problem:
                problems.append(f"[keymap] {binding_id} = {keys!r}: {problem}")
                continue
            key = _normal(part)
            if key in claimed and claimed[key] != binding_id:
                problems.append(f"[keymap] '{part}' is given to both {claimed[key]} and {binding_id}")
            claimed[key] = binding_id
    if problems:
        return problems
    for binding_id, keys in keymap.items():
        place = known[binding_id].place
        neighbours = _all_bindings_of(place) + ([] if place == APP_PLACE else _all_bindings_of(APP_PLACE))
        if place == "MainScreen" or (place == APP_PLACE and not known[binding_id].binding.priority):
            neighbours += _prompt_bindings()  # the prompt has focus most of the time: it would win
        for part in (p.strip() for p in keys.split(",")):
            key = _normal(part)
            for other in neighbours:
                if other.id == binding_id or (other.id and other.id in keymap):
                    continue  # itself, or a binding moved away by this keymap
                if key in (_normal(k.strip()) for k in other.key.split(",")):
                    owner = other.id or other.description or other.action
                    problems.append(f"[keymap] {binding_id} = {keys!r}: '{part}' already does '{owner}' there")
    return problems


def check_keymap(keymap: Mapping[str, str]) -> None:
    """Raise ConfigError with the first problem of the table (nothing when it is usable)."""
    problems = keymap_problems(keymap)
    if problems:
        raise ConfigError(problems[0])


def usable_keymap(keymap: Mapping[str, str]) -> dict[str, str]:
    """The entries of the table that have no problem on their own."""
    return {binding_id: keys for binding_id, keys in keymap.items() if not keymap_problems({binding_id: keys})}
