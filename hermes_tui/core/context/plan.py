"""Phases 1–2 of compression as data: what would be pruned, kept and summarised (no LLM, no state).

Owns `plan_compression(...) -> CompressionPlan | None`: the cheap prune, the head/tail boundaries
and the rehydration of an earlier handoff, computed without touching the compressor's state. The
compressor runs it before asking for a summary; the UI can use it as a compression preview.
Pinned messages (`pins.py`) are protected: phase 1 leaves them as they were, and those in the
middle are `kept` — left out of what the summariser sees and put back, in order, after the summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hermes_tui.core.context.boundaries import (
    PreviousSummary,
    align_boundary_forward,
    find_previous_summary,
    find_tail_cut_by_tokens,
    head_size,
)
from hermes_tui.core.context.pins import pinned_indices
from hermes_tui.core.context.prune import LazyCosts, prune_pass
from hermes_tui.core.messages import Message


@dataclass(frozen=True)
class CompressionPlan:
    pruned: list[Message]  # the whole conversation after phase 1
    pruned_count: int  # messages phase 1 changed
    start: int  # pruned[:start] is the verbatim head
    end: int  # pruned[end:] is the verbatim tail
    turns: list[Message]  # what the summariser sees (an earlier handoff excluded)
    previous: PreviousSummary | None  # the newest earlier handoff before `end`, if any
    kept: tuple[int, ...] = ()  # pinned indices in [start, end): kept verbatim after the summary

    @property
    def head(self) -> list[Message]:
        return self.pruned[: self.start]

    @property
    def tail(self) -> list[Message]:
        """What follows the summary verbatim: the pinned middle messages, then the tail."""
        return [*(self.pruned[i] for i in self.kept), *self.pruned[self.end :]]

    @property
    def summarised(self) -> list[Message]:
        """The middle messages the summary replaces (the pinned ones left out)."""
        kept = set(self.kept)
        return [self.pruned[i] for i in range(self.start, self.end) if i not in kept]

    @property
    def summarised_count(self) -> int:
        return self.end - self.start - len(self.kept)


def too_short_to_compress(messages: Sequence[Message], protect_first_n: int) -> bool:
    return len(messages) <= head_size(messages, protect_first_n) + 3 + 1


def plan_compression(
    messages: Sequence[Message], *, protect_first_n: int, protect_last_n: int, tail_token_budget: int
) -> CompressionPlan | None:
    """Phases 1–2 over `messages`, or None when there is no middle to summarise."""
    original = list(messages)
    if too_short_to_compress(original, protect_first_n):
        return None
    start = align_boundary_forward(original, head_size(original, protect_first_n))
    if start >= len(original):
        return None
    costs = LazyCosts(original)  # only the walked tail is ever measured
    head_end = start
    phase1 = prune_pass(
        original, head_end=head_end, tail_token_budget=tail_token_budget, protect_last_n=protect_last_n, costs=costs
    )
    pruned, pruned_count = phase1.messages, phase1.changed
    pins = pinned_indices(original)
    for i in pins:  # a pinned message stays as it was
        if pruned[i] is not original[i]:
            pruned[i] = original[i]
            pruned_count -= 1
    costs = costs.rebased(pruned)
    end = find_tail_cut_by_tokens(pruned, start, tail_token_budget, costs)
    if start < end and _is_last_user_message(pruned, start):
        # The newest user message sits right after the head, where the tail cut cannot reach it:
        # keep it verbatim with the head and summarise the agent's work after it instead.
        start = align_boundary_forward(pruned, start + 1)
        end = find_tail_cut_by_tokens(pruned, start, tail_token_budget, costs) if start < len(pruned) else start
    if start >= end:
        return None
    kept = tuple(i for i in pins if start <= i < end)
    if len(kept) == end - start:
        return None  # every message of the middle is pinned: nothing to summarise
    previous = find_previous_summary(pruned, end, phase1.summary_candidates, head_end)
    first = previous.index + 1 if previous is not None and previous.index >= start else start
    turns = [pruned[i] for i in range(first, end) if i not in kept] if kept else pruned[first:end]
    if first > start and previous is not None and previous.remainder:
        # the handoff was merged into a real message: keep that message's text
        turns.insert(0, {**pruned[previous.index], "content": previous.remainder})
    return CompressionPlan(pruned, pruned_count, start, end, turns, previous, kept)


def _is_last_user_message(messages: Sequence[Message], index: int) -> bool:
    if messages[index].get("role") != "user":
        return False
    return all(message.get("role") != "user" for message in messages[index + 1 :])
