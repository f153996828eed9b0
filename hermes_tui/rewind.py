"""Rewinding to before one of the conversation's user turns: what the picker lists, and the rewind itself.

`rewind_turns(agent)` lists the user turns of the live history, newest first, as `RewindTurn`s:
the turn's number (#N, as /history counts), a one-line preview, when it was sent, and the
checkpoint that holds the files as they were before it — its own (taken before its first file
change), else the first checkpoint of any kind taken after it started (nothing the agent did in
between changed a file: every change is preceded by a checkpoint in its turn) — with what changed
in the folder since. A checkpoint of an earlier session of the conversation (before a branch or a
compression) is matched to a turn by its message id, else by its turn number and prompt.

`rewind(agent, turn, what)` does one of three things, and says what it did (`RewindOutcome`):
code — `CheckpointManager.restore` (it first snapshots the files as they are, so the `/rollback M`
it names undoes the rewind; the restore is recorded on the session as a "rewind" checkpoint);
conversation — `Agent.branch_at(index, edit=True)`, a branch whose history ends just before that
user message, with its text back for the prompt (the original session keeps every message:
`/resume` goes back); both — code, then conversation. `code_summary` is the confirmation's
"what changes": the stat of the patch from the checkpoint to the folder now, which restoring
undoes. No Textual here: the screen (`screens/rewind.py`) shows these, the app runs them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from hermes_tui.core.messages import content_text
from hermes_tui.store.models import is_summary_text
from hermes_tui.text_safety import visible

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent
    from hermes_tui.core.checkpoints.manager import Checkpoint
    from hermes_tui.core.checkpoints.store import Stat
    from hermes_tui.store.db import SessionDB

PREVIEW_CHARS = 80  # as a checkpoint record keeps its turn's prompt
MAX_TURNS = 200  # the newest turns the picker lists
SUMMARY_LINES = 15  # lines of the checkpoint's stat the confirmation shows


class RewindWhat(StrEnum):
    CODE = "code"
    CONVERSATION = "conversation"
    BOTH = "both"

    @property
    def restores_code(self) -> bool:
        return self is not RewindWhat.CONVERSATION

    @property
    def restores_conversation(self) -> bool:
        return self is not RewindWhat.CODE


@dataclass(frozen=True)
class RewindTurn:
    """One user turn the conversation can be rewound to (to just before it)."""

    index: int  # where its user message sits in Agent.messages
    number: int  # #N, as /history and the checkpoints count user messages
    preview: str  # one line, made safe
    message_id: int | None = None
    sent_at: float | None = None  # Unix time, when state.db has it
    checkpoint: int | None = None  # the /rollback number holding the files as they were before this turn
    checkpoint_turn: int | None = None  # the turn that checkpoint was taken in, when a later one
    since: Stat | None = None  # what changed in the folder since that checkpoint (None: unknown)
    code_note: str = ""  # why the files cannot be restored (when `checkpoint` is None)

    @property
    def can_restore_code(self) -> bool:
        return self.checkpoint is not None

    def code_line(self) -> str:
        """What the picker says about this turn's files."""
        if self.checkpoint is None:
            return self.code_note or "no checkpoint"
        where = f" (taken in turn #{self.checkpoint_turn})" if self.checkpoint_turn else ""
        if self.since is None:
            return f"checkpoint {self.checkpoint}{where}"
        if not self.since.files:
            return f"checkpoint {self.checkpoint}{where} · no file changed since"
        files = f"{self.since.files} file{'s' if self.since.files != 1 else ''}"
        return f"checkpoint {self.checkpoint}{where} · {files} +{self.since.added} −{self.since.removed} since"


@dataclass(frozen=True)
class RewindOutcome:
    """What a rewind did: lines for the conversation, one for the Review log, the prompt's new text."""

    done: tuple[str, ...] = ()
    error: str = ""
    prefill: str | None = None

    @property
    def log_line(self) -> str:
        return " · ".join(self.done) if self.done else ""


def _one_line(text: str) -> str:
    return visible(" ".join(text.split()))[:PREVIEW_CHARS]


@dataclass(frozen=True)
class _UserTurn:
    index: int
    number: int
    message_id: int | None
    prompt: str  # as a checkpoint record keeps it (whitespace collapsed, 80 characters)


def _user_turns(messages: Sequence[dict[str, Any]]) -> list[_UserTurn]:
    turns: list[_UserTurn] = []
    number = 0
    for index, message in enumerate(messages):
        if message.get("role") != "user":
            continue
        number += 1
        row_id = message.get("_db_id")
        text = " ".join(content_text(message.get("content")).split())
        turns.append(_UserTurn(index, number, row_id if isinstance(row_id, int) else None, text[:PREVIEW_CHARS]))
    return turns


def _position(checkpoint: Checkpoint, turns: Sequence[_UserTurn], session_id: str) -> int | None:
    """The history index of the user message whose turn `checkpoint` was taken in (None: not in this history)."""
    record = checkpoint.record
    for turn in turns:
        if record.message_id is not None and turn.message_id == record.message_id:
            return turn.index
    if record.session_id != session_id:  # an earlier session of the conversation: its rows had other ids
        for turn in turns:
            if turn.number == record.turn and turn.prompt == record.prompt:
                return turn.index
    return None


async def _checkpoints(agent: Agent) -> tuple[list[tuple[Checkpoint, Stat | None]], str]:
    """The conversation's checkpoints with what changed since each, and a note when there are none to use."""
    from hermes_tui.core.checkpoints.manager import CheckpointError

    try:
        rows = await agent.checkpoints.overview()
    except CheckpointError as exc:
        try:
            rows = [(checkpoint, None) for checkpoint in await agent.checkpoints.list_for_session()]
        except CheckpointError:
            rows = []
        return rows, str(exc)
    if rows:
        return rows, ""
    if not agent.checkpoints.enabled:
        return rows, "checkpoints are off"
    return rows, "no checkpoint: no turn since changed files"


async def _sent_at(db: SessionDB | None, message_id: int | None) -> float | None:
    if db is None or message_id is None:
        return None
    with contextlib.suppress(Exception):  # a time is nice to have, never a reason to fail the picker
        row = await db.get_message(message_id)
        value = (row or {}).get("timestamp")
        return float(value) if isinstance(value, (int, float)) else None
    return None


async def rewind_turns(agent: Agent, db: SessionDB | None = None) -> list[RewindTurn]:
    """The live history's user turns, newest first (at most MAX_TURNS), with their checkpoints."""
    messages = list(agent.messages)
    turns = _user_turns(messages)
    rows, none_note = await _checkpoints(agent)
    placed: list[tuple[tuple[int, int, float], Checkpoint, Stat | None]] = []
    for checkpoint, stat in rows:
        position = _position(checkpoint, turns, agent.session_id)
        if position is not None:
            order = (position, 0 if checkpoint.kind == "turn" else 1, checkpoint.created_at)
            placed.append((order, checkpoint, stat))
    placed.sort(key=lambda entry: entry[0])
    number_at = {turn.index: turn.number for turn in turns}
    listed: list[RewindTurn] = []
    for turn in reversed(turns):
        message = messages[turn.index]
        text = content_text(message.get("content"))
        if is_summary_text(text):
            continue  # a compaction summary is not a turn anyone sent
        found = next(((order, cp, stat) for order, cp, stat in placed if order[0] >= turn.index), None)
        fields: dict[str, Any] = {}
        if found is None:
            fields["code_note"] = none_note or "no checkpoint: no turn since changed files"
        elif not found[1].available:
            fields["code_note"] = f"checkpoint {found[1].number} expired (pruned)"
        else:
            order, checkpoint, stat = found
            later = number_at.get(order[0])
            fields.update(
                checkpoint=checkpoint.number,
                checkpoint_turn=later if later != turn.number else None,
                since=stat,
            )
        listed.append(
            RewindTurn(
                index=turn.index,
                number=turn.number,
                preview=_one_line(text) or "(no text)",
                message_id=turn.message_id,
                sent_at=await _sent_at(db, turn.message_id),
                **fields,
            )
        )
        if len(listed) >= MAX_TURNS:
            break
    return listed


async def code_summary(agent: Agent, turn: RewindTurn) -> str:
    """What restoring the turn's checkpoint changes: git's stat from the checkpoint to the folder now."""
    from hermes_tui.core.checkpoints.manager import CheckpointError

    if turn.checkpoint is None:
        return turn.code_note
    try:
        _checkpoint, patch = await agent.checkpoints.diff(turn.checkpoint)
    except CheckpointError as exc:
        return str(exc)
    stat = patch.split("\ndiff --git", 1)[0] if not patch.startswith("diff --git") else ""
    lines = [line.rstrip() for line in stat.splitlines() if line.strip()]
    if not lines:
        return "The files are as they were then: nothing to restore."
    if len(lines) > SUMMARY_LINES:
        lines = [*lines[: SUMMARY_LINES - 1], f"… {len(lines) - SUMMARY_LINES + 1} more lines", lines[-1]]
    return visible("\n".join(lines))


async def rewind(agent: Agent, turn: RewindTurn, what: RewindWhat) -> RewindOutcome:
    """Rewind to just before `turn`: its files, its conversation, or both (files first)."""
    from hermes_tui.core.checkpoints.manager import CheckpointError
    from hermes_tui.core.session.live import SessionError
    from hermes_tui.widgets.formatting import short_session_id

    done: list[str] = []
    if what.restores_code:
        if turn.checkpoint is None:
            return RewindOutcome(error=f"The files cannot be rewound to before turn #{turn.number}: {turn.code_line()}")
        try:
            result = await agent.checkpoints.restore(turn.checkpoint)
        except CheckpointError as exc:
            return RewindOutcome(error=str(exc))
        changes = result.changes
        done.append(
            f"Files as before turn #{turn.number} (checkpoint {turn.checkpoint}): {len(changes.changed)} set back,"
            f" {len(changes.removed)} removed, {len(changes.recreated)} back — /rollback {result.undo.number} undoes it"
        )
    prefill: str | None = None
    if what.restores_conversation:
        old = agent.session_id
        try:
            branch = await agent.branch_at(turn.index, edit=True)
        except SessionError as exc:
            files = f"{done[0]}; but " if done else ""
            return RewindOutcome(done=tuple(done), error=f"{files}the conversation was not rewound: {exc}")
        prefill = branch.prefill
        done.append(
            f"Conversation rewound to before turn #{turn.number}: branch {short_session_id(branch.session_id)}"
            f" (the original {short_session_id(old)} keeps every message; /resume {old} goes back)"
        )
    return RewindOutcome(done=tuple(done), prefill=prefill)
