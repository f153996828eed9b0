"""Phase 2 of compression: where the summarised middle starts and ends.

Owns the head size (system message + `protect_first_n`), forward/backward boundary alignment so a
tool call and its results are never split, the token-budget tail cut (3-message floor, 1.5x soft
ceiling), the last-user-message anchor (#10896), and finding a previous handoff summary to rehydrate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hermes_tui.core.context.constants import TAIL_MIN_MESSAGES, TAIL_SOFT_CEILING_FACTOR
from hermes_tui.core.context.markers import split_summary_message
from hermes_tui.core.context.sizing import MessageCosts, message_budget_tokens
from hermes_tui.core.messages import Message, content_text
from hermes_tui.store.models import SUMMARY_MARKERS, is_summary_text

# A handoff's text starts with one of these characters once leading whitespace is stripped.
_MARKER_LEADS = frozenset(marker[0] for marker in SUMMARY_MARKERS)


def head_size(messages: Sequence[Message], protect_first_n: int) -> int:
    """Messages kept verbatim at the start: the system message (if first) + protect_first_n (#13754)."""
    has_system = bool(messages) and messages[0].get("role") == "system"
    return (1 if has_system else 0) + max(0, protect_first_n)


def align_boundary_forward(messages: Sequence[Message], index: int) -> int:
    """Move `index` past tool results so the middle never starts with orphan results."""
    while index < len(messages) and messages[index].get("role") == "tool":
        index += 1
    return index


def align_boundary_backward(messages: Sequence[Message], index: int) -> int:
    """Pull a cut that lands inside a tool-call group back to the assistant that owns the group."""
    if index <= 0 or index >= len(messages):
        return index
    check = index - 1
    while check >= 0 and messages[check].get("role") == "tool":
        check -= 1
    if check >= 0 and messages[check].get("role") == "assistant" and messages[check].get("tool_calls"):
        return check
    return index


def ensure_last_user_message_in_tail(messages: Sequence[Message], cut: int, head_end: int) -> int:
    """Never summarise away the newest user message (#10896)."""
    for i in range(len(messages) - 1, head_end - 1, -1):
        if messages[i].get("role") == "user":
            if i < cut:
                return max(i, head_end + 1)
            return cut
    return cut


def find_tail_cut_by_tokens(
    messages: Sequence[Message], head_end: int, tail_token_budget: int, costs: MessageCosts | None = None
) -> int:
    """First index of the verbatim tail, chosen by token budget (see reference §4.2, phase 2)."""
    n = len(messages)
    if costs is None:
        costs = [message_budget_tokens(message) for message in messages]
    remaining = n - head_end
    min_tail = 0 if remaining <= 1 else min(TAIL_MIN_MESSAGES, remaining - 1)
    soft_ceiling = TAIL_SOFT_CEILING_FACTOR * max(0, tail_token_budget)

    total = 0
    cut = n
    for i in range(n - 1, head_end - 1, -1):
        cost = costs[i]
        if n - cut >= min_tail and total + cost > soft_ceiling:
            break
        total += cost
        cut = i

    cut = min(cut, n - min_tail)
    if cut <= head_end:
        cut = max(n - min_tail, head_end + 1)
    cut = align_boundary_backward(messages, cut)
    cut = ensure_last_user_message_in_tail(messages, cut, head_end)
    return max(cut, head_end + 1)


@dataclass(frozen=True)
class Boundaries:
    start: int  # first summarised index (== len(head))
    end: int  # first tail index

    @property
    def empty(self) -> bool:
        return self.start >= self.end


def compute_boundaries(
    messages: Sequence[Message],
    protect_first_n: int,
    tail_token_budget: int,
    costs: MessageCosts | None = None,
) -> Boundaries:
    start = align_boundary_forward(messages, head_size(messages, protect_first_n))
    if start >= len(messages):
        return Boundaries(start, start)
    end = find_tail_cut_by_tokens(messages, start, tail_token_budget, costs)
    return Boundaries(start, min(end, len(messages)))


@dataclass(frozen=True)
class PreviousSummary:
    index: int
    body: str  # summary text without header and END marker
    remainder: str  # text after the END marker (a message the summary was merged into)


def find_previous_summary(
    messages: Sequence[Message], end: int, candidates: Sequence[int] | None = None, candidates_from: int = 0
) -> PreviousSummary | None:
    """The newest handoff summary before `end` (from index 1, or 0 without a system message).

    `candidates`, when given, are the only indices at or after `candidates_from` that can hold a
    handoff (ascending; the prune walk collects them), so only those and the head are read.
    """
    first = 1 if messages and messages[0].get("role") == "system" else 0
    stop = min(end, len(messages))
    if candidates is not None:
        for i in reversed(candidates):
            if first <= i < stop:
                found = _summary_at(messages, i)
                if found is not None:
                    return found
        stop = min(stop, candidates_from)
    for i in range(stop - 1, first - 1, -1):
        found = _summary_at(messages, i)
        if found is not None:
            return found
    return None


def _summary_at(messages: Sequence[Message], index: int) -> PreviousSummary | None:
    content = messages[index].get("content")
    if isinstance(content, str) and content[:1] not in _MARKER_LEADS and not content[:1].isspace():
        return None  # cheap rejection without building or stripping the text
    text = content_text(content)
    if text and is_summary_text(text):
        body, remainder = split_summary_message(text)
        return PreviousSummary(index, body, remainder)
    return None
