"""`MessageActionsMixin`: the HermesApp half that acts on the message the conversation's cursor selected.

"Branch here" makes a branch whose history runs up to and including that message (through the
tool results of a call, so no call is left unanswered), "edit and resend" one whose history ends
before the user's message, with its text in the prompt (Enter sends it in the branch); both go
through `Agent.branch_at`, which leaves the original session's rows as they were. "Copy" puts the
message's text on the clipboard. The selected row is mapped to its message in `Agent.messages`
by `hermes_tui.widgets.message_links` (rows are not messages: notices, tool cards, a window, compressions);
a row a compression summarised away is refused with a one-line notice. Branching runs as a
command (refused while a turn or another command runs); the conversation, the Sessions tree and
the status bar follow the new branch through the usual events.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from hermes_tui.widgets.message_cursor import ACTION_COPY, ACTION_EDIT, MessageActionRequested
from hermes_tui.widgets.message_links import copy_text, link_holds, message_index_for

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent
    from hermes_tui.core.commands import CommandResult
    from hermes_tui.screens.main import MainScreen
    from hermes_tui.widgets.transcript import TranscriptItem

NOT_IN_HISTORY = (
    "That message is no longer in this session's history (a compression summarised it); "
    "open the session before the compression to branch from it."
)


class MessageActionsMixin:
    """Mixed into HermesApp (which provides agent, main, notify, workers and `_show_result`)."""

    agent: Agent | None
    turns: Any

    if TYPE_CHECKING:  # what HermesApp provides

        @property
        def main(self) -> MainScreen: ...
        def _busy(self) -> bool: ...
        async def _show_result(self, result: CommandResult, *, beside: bool = False) -> None: ...
        def notify(self, message: str, **kwargs: Any) -> None: ...
        def run_worker(self, work: Any, **kwargs: Any) -> Any: ...
        def copy_to_clipboard(self, text: str) -> None: ...
        def call_later(self, callback: Any, *args: Any) -> bool: ...

    def on_message_action_requested(self, message: MessageActionRequested) -> None:
        message.stop()
        if self.agent is None:
            return
        if message.action == ACTION_COPY:
            self._copy_message(message.item)
            return
        if self._busy():
            return
        edit = message.action == ACTION_EDIT
        self.turns.run_as_command(self._branch_from_message(message.item, edit=edit))

    def _copy_message(self, item: TranscriptItem) -> None:
        assert self.agent is not None
        text = copy_text(item, self.agent.messages)
        self.copy_to_clipboard(text)
        self.notify(f"Copied the message ({len(text):,} characters).")

    async def _message_index(self, item: TranscriptItem) -> int | None:
        """Where `item`'s message sits in the live history (linking the transcript off the loop if needed)."""
        assert self.agent is not None
        messages = list(self.agent.messages)
        if link_holds(item, messages):
            return item.message_index
        items = list(self.main.conversation.items)
        return await asyncio.to_thread(message_index_for, item, items, messages)

    async def _branch_from_message(self, item: TranscriptItem, *, edit: bool) -> None:
        from hermes_tui.core.commands import CommandResult
        from hermes_tui.core.session.live import SessionError

        agent = self.agent
        assert agent is not None
        index = await self._message_index(item)
        if index is None:
            self.notify(NOT_IN_HISTORY, severity="warning")
            return
        try:
            result = await agent.branch_at(index, edit=edit)
        except SessionError as exc:
            self.notify(str(exc), severity="error")
            return
        self.main.prompt.focus()

        async def show() -> None:  # after the branch's history reached the conversation (queued before this)
            await self.main.conversation.history_loaded()
            await self._show_result(CommandResult(result.message, prefill=result.prefill))

        self.call_later(show)
