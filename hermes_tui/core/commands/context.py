"""/context, /pin and /unpin: what fills the context window, and the messages the next compression keeps.

/context [N] returns an `OpenContext` intent: the TUI opens its context view (the categories and
the N heaviest messages, from `core.context_report.context_report`); headless prints
`context_report.report_text`. /pin REF and /unpin REF take the references /context lists
("#12" is turn 12's user message, as /history numbers turns; "#12.3" the third message after it);
/pin alone lists the pinned messages. A pinned message (with its tool-call group) is kept
verbatim by the next compression, and stays pinned in the session that compression continues in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_tui.core.commands.result import CommandResult, OpenContext
from hermes_tui.core.context_report import DEFAULT_TOP, context_report, parse_ref, weight_line

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent

MAX_TOP = 200
PIN_USAGE = "usage: /pin REF  (REF as /context lists it: #N for turn N's message, #N.M for the Mth after it)"


async def context(agent: Agent, args: str) -> CommandResult:
    raw = args.strip()
    if raw and not raw.isdigit():
        return CommandResult("usage: /context [N]  (N = how many of the heaviest messages to list)", error=True)
    top = min(MAX_TOP, int(raw)) if raw else DEFAULT_TOP
    return CommandResult(intent=OpenContext(top))


def _index(agent: Agent, ref: str) -> int | CommandResult:
    try:
        return parse_ref(ref, agent.messages)
    except ValueError as exc:
        return CommandResult(str(exc), error=True)


def _label(ref: str) -> str:
    return "message #" + ref.strip().lstrip("#")


async def pin(agent: Agent, args: str) -> CommandResult:
    if not args.strip():
        report = await context_report(agent, top=0)
        if not report.pinned:
            return CommandResult("Nothing is pinned. " + PIN_USAGE.removeprefix("usage: "))
        lines = [f"Pinned ({len(report.pinned)}), kept verbatim by the next compression:"]
        return CommandResult("\n".join([*lines, *(weight_line(w) for w in report.pinned)]))
    index = _index(agent, args)
    if isinstance(index, CommandResult):
        return index
    return CommandResult(await agent.pin_message(index, _label(args)))


async def unpin(agent: Agent, args: str) -> CommandResult:
    if not args.strip():
        return CommandResult(PIN_USAGE.replace("/pin", "/unpin"), error=True)
    index = _index(agent, args)
    if isinstance(index, CommandResult):
        return index
    return CommandResult(await agent.unpin_message(index, _label(args)))
