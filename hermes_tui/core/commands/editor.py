"""/edit: write the prompt in your own editor ($VISUAL, else $EDITOR).

The TUI's prompt answers /edit itself (as it answers Ctrl+E): it hands the draft to the editor
with the screen suspended and takes the edited text back. The command is in the registry so that
completion, F1 help and the palette list it; anywhere else (headless `run`) there is no prompt to
edit, and this handler says so in one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_tui.core.commands.result import CommandResult

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent

NEEDS_TUI = "/edit opens $VISUAL or $EDITOR on the prompt's draft; it needs the TUI (there, Ctrl+E does it too)."


async def edit(agent: Agent, args: str) -> CommandResult:
    return CommandResult(NEEDS_TUI, error=True)
