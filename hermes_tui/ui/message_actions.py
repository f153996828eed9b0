"""`MessageActions`: what the message cursor's keys do to the message it selected.

"Branch here" makes a branch whose history runs up to and including that message (through the
tool results of a call, so no call is left unanswered), "edit and resend" one whose history ends
before the user's message, with its text in the prompt (Enter sends it in the branch); both go
through `Agent.branch_at`, which leaves the original session's rows as they were. "Copy" puts the
message's text on the clipboard. "Replay this turn on …" hands the turn the message belongs to
(its user message counted as `replay.load_turn` counts them) to `ReplayFlow`. The selected row
is mapped to its message in `Agent.messages` by `hermes_tui.widgets.message_links` (rows are not
messages: notices, tool cards, a window, compressions); a row a compression summarised away is
refused with a one-line notice. Branching runs as the command (`TurnControl`: refused while a turn
or another command runs); the conversation, the Sessions tree and the status bar follow the new
branch through the usual events.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from hermes_tui.ui.ports import ActionHost
from hermes_tui.ui.turn_control import TurnControl
from hermes_tui.widgets.message_cursor import ACTION_COPY, ACTION_EDIT, ACTION_REPLAY
from hermes_tui.widgets.message_links import copy_text, link_holds, message_index_for
from hermes_tui.widgets.transcript import TranscriptItem

NOT_IN_HISTORY = (
    "That message is no longer in this session's history (a compression summarised it); "
    "open the session before the compression to branch from it."
)


class MessageActions:
    """Carries out the message cursor's actions on one transcript item."""

    def __init__(self, app: ActionHost, turns: TurnControl, *, replay: Callable[[str, int], None]) -> None:
        """`replay(session_id, turn)` asks for the route to replay that turn on (`ReplayFlow.open`)."""
        self._app = app
        self._turns = turns
        self._replay = replay

    def act(self, action: str, item: TranscriptItem) -> None:
        """`action` (branch here, edit and resend, copy) on the message `item` shows."""
        if self._app.agent is None:
            return
        if action == ACTION_COPY:
            self._copy_message(item)
            return
        if action == ACTION_REPLAY:
            self._app.run_worker(self._replay_turn(item), group="message-action")
            return
        if self._turns.refuse_if_busy():
            return
        self._turns.run_as_command(self._branch_from_message(item, edit=action == ACTION_EDIT))

    def _copy_message(self, item: TranscriptItem) -> None:
        assert self._app.agent is not None
        text = copy_text(item, self._app.agent.messages)
        self._app.copy_to_clipboard(text)
        self._app.notify(f"Copied the message ({len(text):,} characters).")

    async def _replay_turn(self, item: TranscriptItem) -> None:
        agent = self._app.agent
        assert agent is not None
        index = await self._message_index(item)
        if index is None:
            self._app.notify(NOT_IN_HISTORY.replace("branch from", "replay"), severity="warning")
            return
        turn = sum(1 for message in agent.messages[: index + 1] if message.get("role") == "user")
        if turn == 0:
            self._app.notify("That message comes before the first turn: nothing to replay.", severity="warning")
            return
        self._replay(agent.session_id, turn)

    async def _message_index(self, item: TranscriptItem) -> int | None:
        """Where `item`'s message sits in the live history (linking the transcript off the loop if needed)."""
        assert self._app.agent is not None
        messages = list(self._app.agent.messages)
        if link_holds(item, messages):
            return item.message_index
        items = list(self._app.main.conversation.items)
        return await asyncio.to_thread(message_index_for, item, items, messages)

    async def _branch_from_message(self, item: TranscriptItem, *, edit: bool) -> None:
        from hermes_tui.core.commands import CommandResult
        from hermes_tui.core.session.live import SessionError

        agent = self._app.agent
        assert agent is not None
        index = await self._message_index(item)
        if index is None:
            self._app.notify(NOT_IN_HISTORY, severity="warning")
            return
        try:
            result = await agent.branch_at(index, edit=edit)
        except SessionError as exc:
            self._app.notify(str(exc), severity="error")
            return
        main = self._app.main
        main.prompt.focus()

        async def show() -> None:  # after the branch's history reached the conversation (queued before this)
            await main.conversation.history_loaded()
            await self._turns.show_result(CommandResult(result.message, prefill=result.prefill))

        self._app.call_later(show)
