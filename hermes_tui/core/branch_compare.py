"""Two sessions side by side: their shared history, where they diverged, their turns aligned.

`compare_histories(left, right)` is pure (OpenAI-format message lists in, a `BranchComparison`
out): the longest common prefix of the two histories (messages compared by role, text, tool calls
and tool call id — not by row id, since a branch stores copies), then each side's continuation cut
into turns (a turn starts at a user message; a continuation that diverged mid-turn starts with the
rest of that turn) and paired by position, with rough token counts (reference §4.1 estimate) per
turn, per continuation and for the shared part. `load_comparison(db, left_id, right_id)` reads
both sessions from the store and compares them. `comparison_text` is the headless rendering.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest
from typing import TYPE_CHECKING, Any

from hermes_tui.core.context.tokens import estimate_messages_tokens_rough
from hermes_tui.core.messages import Message, content_text

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

PREVIEW_CHARS = 160


class CompareError(Exception):
    """The two sessions cannot be compared (unknown id, same session); one clear line."""


@dataclass(frozen=True)
class Turn:
    """One turn of a continuation: its messages, where they start, and their rough size."""

    number: int  # the conversation's user-turn number (a partial first turn keeps the shared turn's)
    start: int  # index of its first message in the session's history
    messages: tuple[Message, ...]
    tokens: int
    partial: bool = False  # the continuation diverged inside a shared turn: no user message here

    @property
    def user_text(self) -> str:
        first = self.messages[0] if self.messages else {}
        return content_text(first.get("content")) if first.get("role") == "user" and not self.partial else ""

    @property
    def answer_text(self) -> str:
        """The turn's last non-empty assistant text ("" when it only called tools)."""
        for message in reversed(self.messages):
            if message.get("role") == "assistant":
                text = content_text(message.get("content")).strip()
                if text:
                    return text
        return ""

    @property
    def tool_calls(self) -> int:
        return sum(len(m.get("tool_calls") or []) for m in self.messages if m.get("role") == "assistant")


@dataclass(frozen=True)
class TurnPair:
    """Turn i of each continuation (None where one side has fewer turns)."""

    index: int
    left: Turn | None
    right: Turn | None


@dataclass(frozen=True)
class BranchComparison:
    shared_count: int  # messages both histories start with
    shared_turns: int  # user turns inside the shared part
    shared_tokens: int
    left_count: int
    right_count: int
    pairs: tuple[TurnPair, ...]
    left_tokens: int  # the continuation's rough size
    right_tokens: int
    mid_turn: bool  # the histories diverged inside a turn (the same question, different answers)

    @property
    def identical(self) -> bool:
        return self.shared_count == self.left_count == self.right_count

    @property
    def left_turns(self) -> int:
        return sum(1 for pair in self.pairs if pair.left is not None)

    @property
    def right_turns(self) -> int:
        return sum(1 for pair in self.pairs if pair.right is not None)


def message_signature(message: Message) -> tuple[Any, ...]:
    """What makes two stored messages the same message: role, text, tool calls, tool call id."""
    calls = message.get("tool_calls")
    return (
        message.get("role"),
        content_text(message.get("content")),
        json.dumps(calls, sort_keys=True, default=str) if calls else "",
        message.get("tool_call_id") or "",
    )


def _public(messages: Sequence[Message]) -> list[Message]:
    return [{key: value for key, value in m.items() if not key.startswith("_")} for m in messages]


def common_prefix(left: Sequence[Message], right: Sequence[Message]) -> int:
    """How many messages both lists start with (compared by `message_signature`)."""
    count = 0
    for a, b in zip(left, right, strict=False):
        if a is not b and message_signature(a) != message_signature(b):
            break
        count += 1
    return count


def split_turns(messages: Sequence[Message], offset: int, first_number: int) -> list[Turn]:
    """`messages` (the continuation from history index `offset`) cut at each user message."""
    starts = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    if not messages:
        return []
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    turns: list[Turn] = []
    number = first_number
    for position, start in enumerate(starts):
        end = starts[position + 1] if position + 1 < len(starts) else len(messages)
        chunk = tuple(messages[start:end])
        partial = chunk[0].get("role") != "user"
        if not partial:
            number += 1
        turns.append(Turn(number, offset + start, chunk, estimate_messages_tokens_rough(_public(chunk)), partial))
    return turns


def compare_histories(left: Sequence[Message], right: Sequence[Message]) -> BranchComparison:
    """The comparison of two histories (module docstring)."""
    shared = common_prefix(left, right)
    shared_turns = sum(1 for m in left[:shared] if m.get("role") == "user")
    left_turns = split_turns(left[shared:], shared, shared_turns)
    right_turns = split_turns(right[shared:], shared, shared_turns)
    pairs = tuple(
        TurnPair(index, a, b) for index, (a, b) in enumerate(zip_longest(left_turns, right_turns, fillvalue=None))
    )
    mid_turn = any(turn.partial for turn in (*left_turns[:1], *right_turns[:1]))
    return BranchComparison(
        shared_count=shared,
        shared_turns=shared_turns,
        shared_tokens=estimate_messages_tokens_rough(_public(left[:shared])),
        left_count=len(left),
        right_count=len(right),
        pairs=pairs,
        left_tokens=sum(turn.tokens for turn in left_turns),
        right_tokens=sum(turn.tokens for turn in right_turns),
        mid_turn=mid_turn,
    )


@dataclass(frozen=True)
class SessionSide:
    """One of the two sessions: who it is, and its history."""

    id: str
    title: str | None
    model: str | None
    started_at: float
    messages: tuple[Message, ...]


@dataclass(frozen=True)
class LoadedComparison:
    left: SessionSide
    right: SessionSide
    comparison: BranchComparison
    diverged_at: float | None  # the time of the last shared message (None when nothing is shared)


async def _side(db: SessionDB, session_id: str) -> SessionSide:
    row = await db.get_session(session_id)
    if row is None:
        raise CompareError(f"no session {session_id}")
    history = [m for m in await db.get_messages_as_conversation(session_id) if m.get("role") != "session_meta"]
    return SessionSide(
        session_id, row.get("title"), row.get("model"), float(row.get("started_at") or 0.0), tuple(history)
    )


async def load_comparison(db: SessionDB, left_id: str, right_id: str) -> LoadedComparison:
    """Both sessions read from `db` and compared. Raises CompareError."""
    if left_id == right_id:
        raise CompareError("pick two different sessions to compare")
    left = await _side(db, left_id)
    right = await _side(db, right_id)
    comparison = compare_histories(left.messages, right.messages)
    diverged_at = None
    if comparison.shared_count:
        last_shared = await db.get_message(int(left.messages[comparison.shared_count - 1].get("_db_id") or 0))
        diverged_at = float(last_shared["timestamp"]) if last_shared and last_shared.get("timestamp") else None
    return LoadedComparison(left, right, comparison, diverged_at)


def preview(text: str, chars: int = PREVIEW_CHARS) -> str:
    single = " ".join(text.split())
    return single if len(single) <= chars else single[: chars - 1] + "…"


def shared_line(loaded: LoadedComparison) -> str:
    """The shared history in one line."""
    c = loaded.comparison
    if not c.shared_count:
        return "No shared history: the two sessions differ from their first message."
    turns = f"{c.shared_turns} turn{'s' if c.shared_turns != 1 else ''}"
    where = "inside turn" if c.mid_turn else "after turn"
    return (
        f"≡ {c.shared_count} shared messages ({turns}, ~{c.shared_tokens:,} tokens); "
        f"diverged {where} {c.shared_turns}, after message {c.shared_count}"
    )


def _turn_lines(turn: Turn | None) -> list[str]:
    if turn is None:
        return ["    (no turn)"]
    label = f"continues turn {turn.number}" if turn.partial else f"turn {turn.number}"
    lines = [f"    {label} · {len(turn.messages)} messages · ~{turn.tokens:,} tokens"]
    if turn.user_text:
        lines.append(f"    user: {preview(turn.user_text)}")
    if turn.tool_calls:
        lines.append(f"    ({turn.tool_calls} tool call{'s' if turn.tool_calls != 1 else ''})")
    if turn.answer_text:
        lines.append(f"    assistant: {preview(turn.answer_text)}")
    return lines


def comparison_text(loaded: LoadedComparison, max_pairs: int = 50) -> str:
    """The comparison as plain lines (what /compare prints headless)."""
    c = loaded.comparison
    lines = [
        f"A: {loaded.left.id}  {loaded.left.title or '(untitled)'}  ({c.left_count} messages)",
        f"B: {loaded.right.id}  {loaded.right.title or '(untitled)'}  ({c.right_count} messages)",
        shared_line(loaded),
    ]
    if c.identical:
        lines.append("The two histories are identical.")
        return "\n".join(lines)
    lines.append(
        f"A continues with {c.left_turns} turn(s), ~{c.left_tokens:,} tokens; "
        f"B with {c.right_turns} turn(s), ~{c.right_tokens:,} tokens."
    )
    for pair in c.pairs[:max_pairs]:
        lines.append(f"  [{pair.index + 1}] A")
        lines.extend(_turn_lines(pair.left))
        lines.append(f"  [{pair.index + 1}] B")
        lines.extend(_turn_lines(pair.right))
    if len(c.pairs) > max_pairs:
        lines.append(f"  … {len(c.pairs) - max_pairs} more turn pairs")
    return "\n".join(lines)
