"""`RewindFlow`: the app's part that opens the rewind picker and carries out what was chosen.

Esc Esc (when idle) and F6 reach `open()`. While a turn or a command runs, F6 is refused with
TurnControl's one busy notice and Esc Esc does nothing here (a double Esc during a turn belongs to
interrupting it). Otherwise the turns are read (`hermes_tui.rewind.rewind_turns`) and
`RewindScreen` opens over them; the reading and then the choice run as the command
(`TurnControl.run_as_command`, so nothing else starts meanwhile): the files, the conversation or
both (`hermes_tui.rewind.rewind`). What was done goes to the conversation as a notice, to the
Review log as one "rewind" line and to a toast; a conversation rewind puts the turn's text back in
the prompt once the branch's history is on screen (`TurnControl.show_result`, as any command's
result). The flow sees the app only through `RewindHost` and the `TurnControl` it is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_tui.screens.registry import screen_class
from hermes_tui.ui.ports import RewindHost
from hermes_tui.ui.turn_control import TurnControl

if TYPE_CHECKING:
    from hermes_tui.rewind import RewindOutcome
    from hermes_tui.screens.rewind import RewindChoice


class RewindFlow:
    """Esc Esc / F6 → the picker → the rewind."""

    def __init__(self, host: RewindHost, turns: TurnControl) -> None:
        self._host = host
        self._turns = turns

    def open(self, *, by_escape: bool) -> None:
        """Open the picker, unless something runs (F6 then says so; Esc Esc is left to the turn)."""
        if self._host.agent is None or (by_escape and self._turns.busy) or self._turns.refuse_if_busy():
            return
        self._turns.run_as_command(self._show_picker())

    async def _show_picker(self) -> None:
        from hermes_tui.rewind import code_summary, rewind_turns

        agent = self._host.agent
        assert agent is not None
        turns = await rewind_turns(agent, self._host.db)

        async def summary(turn: Any) -> str:
            return await code_summary(agent, turn)

        self._host.push_screen(screen_class("RewindScreen")(turns, summary), callback=self._chosen)

    def _chosen(self, choice: RewindChoice | None) -> None:
        if choice is None or self._host.agent is None or self._turns.refuse_if_busy():
            return
        self._turns.run_as_command(self._rewind(choice))

    async def _rewind(self, choice: RewindChoice) -> None:
        from hermes_tui.rewind import rewind

        agent = self._host.agent
        assert agent is not None
        outcome = await rewind(agent, choice.turn, choice.what)
        if choice.what.restores_conversation and not outcome.error:
            # the branch's history reaches the conversation through events queued before this: show after it
            self._host.call_later(self._report_after_history, outcome)
        else:
            await self._report(outcome)

    async def _report_after_history(self, outcome: RewindOutcome) -> None:
        await self._host.main.conversation.history_loaded()
        await self._report(outcome)

    async def _report(self, outcome: RewindOutcome) -> None:
        from hermes_tui.core.commands import CommandResult

        host = self._host
        if outcome.log_line:
            host.main.review_log.add_entry("rewind", outcome.log_line)
        text = "\n".join([*outcome.done, *([outcome.error] if outcome.error else [])])
        host.notify(outcome.error or "Rewound.", severity="error" if outcome.error else "information")
        host.main.prompt.focus()
        await self._turns.show_result(CommandResult(text, prefill=outcome.prefill, error=bool(outcome.error)))
