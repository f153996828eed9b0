"""Branching from any message: "branch here" and "edit and resend" (the core half of the message cursor).

`branch_at(...)` makes a child session (edge "branch", recorded with its branch point) whose
history is a prefix of the live one, and continues there; the original session keeps every
message (it only ends "branched", as with /branch, and can be resumed as it was).

- branch here (`edit=False`): the history up to and including the chosen message, whatever its
  role (a user prompt, an answer, a tool result). A cut inside a tool-call group — on the
  assistant message that made the calls, or on one of their results — moves forward past the
  group's last result, so the branch never ends with an unanswered tool call; the result says so
  (`BranchResult.completed_group`).
- edit and resend (`edit=True`, the user's own messages only, not a compaction summary): the
  history before the chosen message; its text comes back in `BranchResult.prefill` for the
  prompt, so the user can change and send it.

`turn_message_index` maps the user-facing turn numbers of `/branch at N` and `/branch edit N`
(the Nth user message, as /history numbers them) to message indices.
"""

from __future__ import annotations

from dataclasses import dataclass

from hermes_tui.core.messages import Message, content_text
from hermes_tui.core.session.live import LiveSession, SessionError, last_stored_id
from hermes_tui.store.db import SessionDB
from hermes_tui.store.models import EDGE_BRANCH, is_summary_text
from hermes_tui.store.titles import sanitize_title


@dataclass(frozen=True)
class BranchResult:
    """What `branch_at` made."""

    session_id: str  # the new branch, now live
    parent_id: str  # the session it was branched from (unchanged)
    branch_point: int | None  # the parent's messages.id the branch was made after (None: before the first)
    kept: int  # messages the branch starts with
    title: str | None
    prefill: str | None = None  # edit and resend: the user text to put back in the prompt
    completed_group: int = 0  # tool results kept past the chosen message, so no call is left unanswered

    @property
    def message(self) -> str:
        """The line a front-end shows."""
        named = f" “{self.title}”" if self.title else ""
        what = f"{self.kept} message(s) kept"
        if self.completed_group:
            what += f", through the {self.completed_group} tool result(s) of that call"
        if self.prefill is not None:
            what += "; edit the message in the prompt and send it"
        return f"⑂ Branched into {self.session_id}{named} from {self.parent_id} ({what})"


def cut_for(messages: list[Message], index: int, *, edit: bool) -> int:
    """How many leading messages the branch keeps for a branch at `index` (see the module docstring)."""
    if not 0 <= index < len(messages):
        raise SessionError(f"there is no message #{index} (the conversation has {len(messages)})")
    if edit:
        message = messages[index]
        if message.get("role") != "user":
            raise SessionError("only a user message can be edited and resent")
        if is_summary_text(content_text(message.get("content"))):
            raise SessionError("a compaction summary cannot be edited and resent; branch here instead")
        return index
    cut = index + 1
    while cut < len(messages) and messages[cut].get("role") == "tool":
        cut += 1
    return cut


def user_indices(messages: list[Message]) -> list[int]:
    return [i for i, m in enumerate(messages) if m.get("role") == "user"]


def turn_message_index(messages: list[Message], turn: int, *, edit: bool) -> int:
    """The message index for user turn `turn` (1-based): its user message when editing, else the
    last message of that exchange (everything before the next user message)."""
    users = user_indices(messages)
    if not users:
        raise SessionError("nothing to branch yet — send a message first")
    if not 1 <= turn <= len(users):
        raise SessionError(f"there is no turn {turn}: the conversation has {len(users)} user message(s)")
    if edit:
        return users[turn - 1]
    return users[turn] - 1 if turn < len(users) else len(messages) - 1


async def branch_title(db: SessionDB, session: LiveSession, name: str | None) -> str | None:
    """The branch's title: `name` (which must be free), else the next one in the lineage."""
    if name:
        try:
            title = sanitize_title(name)
        except ValueError as exc:
            raise SessionError(str(exc)) from None
        if title and await db.title_in_use(title):
            raise SessionError(f"Title '{title}' is already in use")
        return title
    return await db.get_next_title_in_lineage(session.title or "branch")


async def branch_at(
    session: LiveSession, db: SessionDB, message_index: int, *, edit: bool, name: str | None = None
) -> BranchResult:
    """Continue in a new branch whose history is a prefix of the live one (the caller checked idleness)."""
    messages = session.messages
    if not messages:
        raise SessionError("nothing to branch yet — send a message first")
    cut = cut_for(messages, message_index, edit=edit)
    prefill = content_text(messages[message_index].get("content")) if edit else None
    title = await branch_title(db, session, name)
    await session.flush()  # every kept message has its row id: the branch point names one
    kept = [dict(m) for m in messages[:cut]]
    parent = session.id
    branch_point = last_stored_id(messages[:cut])
    new_id = await session.start_child(
        edge=EDGE_BRANCH,
        branch_point=branch_point,
        end_reason="branched",
        reason="branch",
        title=title,
        system_prompt=session.rebuild_prompt(),
        messages=kept,
        announce_history=True,
    )
    session.todo.clear()
    session.todo.hydrate_from_history(session.messages)
    completed = 0 if edit else cut - message_index - 1
    return BranchResult(new_id, parent, branch_point, len(kept), title, prefill, completed)
