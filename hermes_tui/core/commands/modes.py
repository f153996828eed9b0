"""Handlers of /mode and /yolo: show or change the permission mode (`core.tools.permissions`).

`/mode` names the current mode and what it means; `/mode NAME` switches (ask, accept-edits,
read-only — also "plan" — or yolo); `/yolo` toggles yolo on, and off again back to the mode before
it, as Hermes's /yolo does. Both run while a turn runs: the next tool call follows the new mode.
Headless they change the mode of that run (`--yes` starts it in yolo).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_tui.core.commands.result import CommandResult
from hermes_tui.core.tools.permissions import MODE_NAMES, PermissionMode, parse_mode

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent


def describe(mode: PermissionMode) -> str:
    return f"Permission mode: {mode.label} — {mode.explanation}."


async def mode(agent: Agent, args: str) -> CommandResult:
    wanted = args.strip()
    if not wanted:
        choices = ", ".join(MODE_NAMES)
        return CommandResult(f"{describe(agent.permission_mode)}\nModes: {choices} (/mode NAME; Shift+Tab in the TUI).")
    chosen = parse_mode(wanted)
    if chosen is None:
        return CommandResult(
            f"Unknown mode '{wanted}' — choose one of {', '.join(MODE_NAMES)} (or 'plan' for read-only).", error=True
        )
    agent.permission_mode = chosen
    return CommandResult(describe(chosen))


async def yolo(agent: Agent, args: str) -> CommandResult:
    if args.strip():
        return CommandResult("/yolo takes no argument: it turns yolo mode on, or off again.", error=True)
    now = agent.permissions.toggle_yolo()
    if now is PermissionMode.YOLO:
        return CommandResult(f"YOLO mode on: {now.explanation}. /yolo again turns it off.")
    return CommandResult(f"YOLO mode off. {describe(now)}")
