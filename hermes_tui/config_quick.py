"""`[quick_commands]` in config.toml: the user's own slash commands, checked when the settings load.

Hermes's schema (its config.yaml's `quick_commands`): each `[quick_commands.NAME]` table has a
`type` — "exec" runs `command` in the shell with no model call, "alias" runs the slash command
`target` with what was typed after the name appended — and an optional `description`. hermes-tui
adds a third type, "prompt": `prompt` is sent as your message, with `{args}` replaced by what was
typed after the name (or that text appended after a blank line when the template has no `{args}`).
A name is lower-case letters, digits, "-" and "_", starting with a letter or digit, at most 64
characters. Anything else is a `QuickCommandsError` of one line naming the key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

KEY = "quick_commands"
TYPES = {"exec": "command", "alias": "target", "prompt": "prompt"}  # type -> the key it needs
NAME_RULE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


class QuickCommandsError(Exception):
    """A [quick_commands] entry that cannot be used; one line naming the key."""


@dataclass(frozen=True)
class QuickCommand:
    name: str
    type: str  # "exec" | "alias" | "prompt"
    text: str  # the shell command, the target slash command or the prompt template
    description: str = ""


def parse_quick_commands(raw: Any) -> dict[str, QuickCommand]:
    """The `quick_commands` table of config.toml (absent: none)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise QuickCommandsError(f"'{KEY}' must be a table of [{KEY}.NAME] tables")
    found: dict[str, QuickCommand] = {}
    for name, entry in raw.items():
        where = f"'{KEY}.{name}'"
        if not NAME_RULE.match(str(name)):
            raise QuickCommandsError(
                f"{where}: a command name is lower-case letters, digits, '-' and '_' (at most 64), "
                "starting with a letter or digit"
            )
        if not isinstance(entry, Mapping):
            raise QuickCommandsError(f"{where} must be a table with a 'type'")
        kind = entry.get("type")
        if kind not in TYPES:
            raise QuickCommandsError(f'{where}: \'type\' must be "exec", "alias" or "prompt", got {kind!r}')
        needed = TYPES[kind]
        allowed = {"type", "description", needed}
        unknown = sorted(set(entry) - allowed)
        if unknown:
            raise QuickCommandsError(f"{where}: unknown key '{unknown[0]}' (it takes type, {needed}, description)")
        text = entry.get(needed)
        if not isinstance(text, str) or not text.strip():
            article = "an" if kind[0] in "aeiou" else "a"
            raise QuickCommandsError(f"{where}: {article} {kind} command needs '{needed}', a non-empty string")
        description = entry.get("description", "")
        if not isinstance(description, str):
            raise QuickCommandsError(f"{where}: 'description' must be a string")
        found[str(name)] = QuickCommand(str(name), kind, text, description.strip())
    return found
