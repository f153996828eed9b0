"""`RewindFlow`: the app's part that opens the rewind picker and carries out what was chosen.

Esc Esc (when idle) and F6 reach `open()`. While a turn or a command runs, F6 says it is busy and
Esc Esc does nothing here (a double Esc during a turn belongs to interrupting it). Otherwise the
turns are read (`hermes_tui.rewind.rewind_turns`) in a worker and `RewindScreen` opens over them;
the choice runs as a command (so nothing else starts meanwhile): the files, the conversation or
both (`hermes_tui.rewind.rewind`). What was done goes to the conversation as a notice, to the
Review log as one "rewind" line and to a toast; a conversation rewind puts the turn's text back in
the prompt once the branch's history is on screen. The flow sees the app only through `RewindHost`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.worker import Worker

    from hermes_tui.core.agent import Agent
    from hermes_tui.core.commands import CommandResult
    from hermes_tui.rewind import RewindOutcome
    from hermes_tui.screens.main import MainScreen
    from hermes_tui.screens.rewind import RewindChoice
    from hermes_tui.store.db import SessionDB

BUSY = "Busy — the rewind picker opens once the turn has finished (Ctrl-C interrupts it)."


class RewindHost(Protocol):
    """What the flow needs of the app."""

    agent: Agent | None
    db: SessionDB | None
    command_worker: Worker[Any] | None

    @property
    def main(self) -> MainScreen: ...
    @property
    def busy(self) -> bool: ...
    def notify(self, message: str, **kwargs: Any) -> None: ...
    def run_worker(self, work: Any, **kwargs: Any) -> Any: ...
    def push_screen(self, screen: Any, callback: Any = None, **kwargs: Any) -> Any: ...
    def call_later(self, callback: Any, *args: Any) -> bool: ...
    async def _show_result(self, result: CommandResult, *, beside: bool = False) -> None: ...


class RewindFlow:
    """Esc Esc / F6 → the picker → the rewind."""

    def __init__(self, host: RewindHost) -> None:
        self._host = host

    def open(self, *, by_escape: bool) -> None:
        """Open the picker, unless something runs (F6 then says so; Esc Esc is left to the turn)."""
        host = self._host
        if host.agent is None:
            return
        if host.busy:
            if not by_escape:
                host.notify(BUSY, severity="warning")
            return
        host.command_worker = host.run_worker(self._show_picker(), group="command", exclusive=True)

    async def _show_picker(self) -> None:
        from hermes_tui.rewind import code_summary, rewind_turns
        from hermes_tui.screens.rewind import RewindScreen

        agent = self._host.agent
        assert agent is not None
        turns = await rewind_turns(agent, self._host.db)

        async def summary(turn: Any) -> str:
            return await code_summary(agent, turn)

        self._host.push_screen(RewindScreen(turns, summary), callback=self._chosen)

    def _chosen(self, choice: RewindChoice | None) -> None:
        host = self._host
        if choice is None or host.agent is None:
            return
        if host.busy:
            host.notify(BUSY, severity="warning")
            return
        host.command_worker = host.run_worker(self._rewind(choice), group="command", exclusive=True)

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
        await host._show_result(CommandResult(text, prefill=outcome.prefill, error=bool(outcome.error)))
