"""/rollback: the checkpoints of this conversation, what changed since one, and restoring one.

    /rollback            list: number, turn, time, what changed in the folder since, the turn's prompt
    /rollback N          restore checkpoint N's files (a checkpoint of the files as they are is taken
                         first, so `/rollback M` with its number undoes the rollback)
    /rollback diff N     the patch from checkpoint N to the folder now (what restoring it undoes)

The same text in the TUI and headless (`hermes-tui run --resume ID "/rollback 2"`). The work is the
agent's `CheckpointManager` (`core.checkpoints.manager`); this module only reads the arguments and
writes the lines. Bad input is one error line.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from hermes_tui.core.checkpoints.manager import Checkpoint, CheckpointError
from hermes_tui.core.checkpoints.records import KIND_REWIND
from hermes_tui.core.checkpoints.store import Stat
from hermes_tui.core.commands.result import CommandResult
from hermes_tui.core.session.live import SessionError

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent

USAGE = "usage: /rollback [N | diff N]  (no argument lists the checkpoints)"
BUSY = "A turn is running — /rollback waits until it ends."
DIFF_LINE_LIMIT = 400
PROMPT_SHOWN = 48


def _when(stamp: float) -> str:
    moment = datetime.fromtimestamp(stamp)
    today = datetime.now().date()
    return moment.strftime("%H:%M:%S" if moment.date() == today else "%Y-%m-%d %H:%M")


def _since(stat: Stat | None, available: bool) -> str:
    if not available:
        return "expired"
    if stat is None:
        return "?"
    if not stat.files:
        return "no change"
    noun = "file" if stat.files == 1 else "files"
    return f"{stat.files} {noun} +{stat.added} −{stat.removed}"


def _label(checkpoint: Checkpoint, numbers: dict[str, int]) -> str:
    if checkpoint.kind == KIND_REWIND:
        target = numbers.get(checkpoint.record.restored)
        return f"before /rollback {target}" if target else "before a rollback"
    prompt = checkpoint.prompt
    if len(prompt) > PROMPT_SHOWN:
        prompt = prompt[: PROMPT_SHOWN - 1] + "…"
    return f"before “{prompt}”" if prompt else "before this turn's changes"


async def list_text(agent: Agent) -> str:
    manager = agent.checkpoints
    rows = await manager.overview()
    off = "" if manager.enabled else " Checkpoints are off ([checkpoints] enabled = false or --no-checkpoints)."
    if not rows:
        return f"No checkpoints in this conversation yet: one is taken before a turn first changes files.{off}"
    numbers = {checkpoint.record.key: checkpoint.number for checkpoint, _stat in rows}
    lines = [f"Checkpoints of this conversation in {agent.cwd} (changes since each are what /rollback N undoes):"]
    cells = [
        (
            str(checkpoint.number),
            f"#{checkpoint.turn}" if checkpoint.turn else "—",
            _when(checkpoint.created_at),
            _since(stat, checkpoint.available),
            _label(checkpoint, numbers),
        )
        for checkpoint, stat in rows
    ]
    header = ("N", "turn", "time", "changed since", "")
    widths = [max(len(row[i]) for row in (header, *cells)) for i in range(4)]
    for row in (header, *cells):
        lines.append("  " + "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:4])) + "  " + row[4])
    lines.append("/rollback N restores checkpoint N (the current files become a checkpoint first, so it can be")
    lines.append(f"undone); /rollback diff N shows the changes.{off}")
    return "\n".join(line.rstrip() for line in lines)


def _clip(text: str, limit: int = DIFF_LINE_LIMIT) -> str:
    lines = text.rstrip("\n").splitlines()
    if len(lines) <= limit:
        return "\n".join(lines)
    return "\n".join(lines[:limit]) + f"\n… {len(lines) - limit} more lines"


async def diff_text(agent: Agent, number: int) -> str:
    checkpoint, patch = await agent.checkpoints.diff(number)
    if not patch.strip():
        return f"No changes since checkpoint {number} ({_when(checkpoint.created_at)}): restoring it changes nothing."
    return f"Changes since checkpoint {number} ({_when(checkpoint.created_at)}) — /rollback {number} undoes them:\n" + (
        _clip(patch)
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


async def restore_text(agent: Agent, number: int) -> str:
    result = await agent.checkpoints.restore(number)
    changes = result.changes
    if not changes.total:
        done = f"The files already are checkpoint {number}'s: nothing changed."
    else:
        parts = [
            f"{_count(len(changes.changed), 'file')} set back" if changes.changed else "",
            f"{_count(len(changes.removed), 'file')} created since removed" if changes.removed else "",
            f"{_count(len(changes.recreated), 'deleted file')} back" if changes.recreated else "",
        ]
        done = f"Restored checkpoint {number}: " + ", ".join(part for part in parts if part) + "."
    return f"{done}\n/rollback {result.undo.number} undoes this (it holds the files as they were)."


def _number(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() else None


async def rollback(agent: Agent, args: str) -> CommandResult:
    words = args.split()
    try:
        if not words:
            return CommandResult(await list_text(agent))
        if agent.busy:
            raise SessionError(BUSY)
        if words[0].lower() == "diff":
            number = _number(words[1]) if len(words) == 2 else None
            if number is None:
                return CommandResult("usage: /rollback diff N  (N as /rollback lists them)", error=True)
            return CommandResult(await diff_text(agent, number))
        number = _number(words[0]) if len(words) == 1 else None
        if number is None:
            return CommandResult(USAGE, error=True)
        return CommandResult(await restore_text(agent, number))
    except CheckpointError as exc:
        return CommandResult(str(exc), error=True)
