"""The slash commands the UI advertises, read from the core's one command registry.

The prompt's completion, the help screen and the command palette all list `slash_commands()`, so
none of them can offer a command the core would answer "Unknown command" to, and a command added
to the registry shows up everywhere at once — the built-ins, then the registered ones (a skill's
`/skill-name`, the user's quick commands), read afresh each time so a skill written a moment ago
is offered. The registry is imported on first use (the first keystroke, the help screen, the
palette), so the first frame does not pay for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_tui.core.commands import Command


@dataclass(frozen=True)
class SlashCommand:
    """One command as the UI shows it: "/branch", "/branch [name]", its help line, its aliases."""

    name: str
    usage: str
    help: str
    aliases: tuple[str, ...] = ()

    @property
    def spellings(self) -> tuple[str, ...]:
        """The name, then every alias ("/branch", "/fork")."""
        return (self.name, *self.aliases)

    @property
    def arguments(self) -> str:
        """What the usage shows after the name ("[name]"), or ""."""
        return self.usage.removeprefix(self.name).strip()

    @property
    def takes_arguments(self) -> bool:
        return bool(self.arguments)

    @property
    def description(self) -> str:
        """The help line, with the aliases when there are any."""
        if not self.aliases:
            return self.help
        return f"{self.help} (also {', '.join(self.aliases)})"


def _shown(command: Command) -> SlashCommand:
    return SlashCommand(
        name=f"/{command.name}",
        usage=command.usage,
        help=command.help,
        aliases=tuple(f"/{alias}" for alias in command.aliases),
    )


@cache
def _built_in() -> tuple[SlashCommand, ...]:
    from hermes_tui.core.commands import COMMANDS

    return tuple(_shown(command) for command in COMMANDS)


def slash_commands() -> tuple[SlashCommand, ...]:
    """Every command of the core's registry, in the registry's order (built-ins first)."""
    from hermes_tui.core.commands import COMMANDS, all_commands

    return _built_in() + tuple(_shown(command) for command in all_commands()[len(COMMANDS) :])


def completion_candidates() -> tuple[str, ...]:
    """What the prompt may complete "/…" to: every name in registry order, then every alias.

    Names come first so that a prefix shared by a name and an alias ("/re") completes to the name.
    """
    commands = slash_commands()
    return tuple(command.name for command in commands) + tuple(
        alias for command in commands for alias in command.aliases
    )
