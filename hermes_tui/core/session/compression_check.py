"""Would a compression make the context smaller? The preview and the no-op rule, without calling a model.

A compression replaces the middle of the conversation with a summary. When the middle is small,
the summary (with its fixed handoff frame) is as big as what it replaces, and rotating into a new
session would only cost a cache miss and a session. This module answers, from the compressor's
plan (phases 1-2, no model call):

- `preview_compression(...) -> CompressionPreview`: what `/compress` would summarise and keep,
  the request size now and an estimate after (head + tail + a summary at the compressor's target
  ratio, inside its frame), or why nothing would be compressed. `/compress preview [focus]`
  prints it; the TUI shows it before asking.
- `no_gain(before, after)`: the one rule, used twice by the compression orchestrator (manual and
  automatic compressions alike): before the summary call, with the smallest possible summary (an
  empty body in its frame) — if even that is not smaller, the model is not called; and after it,
  with the real summary — if the result is not smaller, it is discarded and the session does not
  rotate. Either way the caller says why.

Sizes are the rough request estimate the triggers use (messages + system prompt + tool schemas).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from hermes_tui.core.context.assembly import assemble
from hermes_tui.core.context.compressor import ContextCompressor
from hermes_tui.core.context.constants import SUMMARY_RATIO
from hermes_tui.core.context.markers import SUMMARY_PREFIX
from hermes_tui.core.context.summary import summary_budget
from hermes_tui.core.context.tokens import estimate_messages_tokens_rough
from hermes_tui.core.messages import Message, content_text

Estimate = Callable[[Sequence[Message]], int]  # the rough request size of a message list
PREVIEW_LINES = 3  # messages listed at each end of the head, the summarised middle and the tail
PREVIEW_WIDTH = 72


def join_tail(head: list[Message], tail: list[Message]) -> list[Message]:
    """Append a verbatim tail so no two adjacent messages share the user role."""
    if head and tail and head[-1].get("role") == "user" and tail[0].get("role") == "user":
        merged = dict(head[-1])
        merged["content"] = content_text(head[-1].get("content")) + "\n\n" + content_text(tail[0].get("content"))
        return [*head[:-1], merged, *tail[1:]]
    return [*head, *tail]


def shaped_result(
    head: Sequence[Message], body_tokens: int, tail: Sequence[Message], extra: list[Message]
) -> list[Message]:
    """The list a compression would produce with a summary body of about `body_tokens` tokens."""
    summary = f"{SUMMARY_PREFIX}\n" + "x" * (max(0, body_tokens) * 4)
    return join_tail(assemble(head, summary, tail), extra)


def no_gain(before: int, after: int) -> bool:
    """The no-op rule: a compression that does not make the request smaller is not applied."""
    return after >= before


def no_gain_reason(before: int, after: int, *, estimated: bool) -> str:
    """Why a compression is not applied, in one line."""
    how = "even the shortest summary would leave" if estimated else "the summary left"
    return f"it would not reduce the context ({how} ~{after:,} tokens of ~{before:,})"


def _line(message: Message) -> str:
    role = str(message.get("role") or "?")
    text = " ".join(content_text(message.get("content")).split())
    if not text and message.get("tool_calls"):
        text = f"(calls {len(message['tool_calls'])} tool(s))"
    text = text if len(text) <= PREVIEW_WIDTH else text[: PREVIEW_WIDTH - 1] + "…"
    return f"{role}: {text}"


def _ends(messages: Sequence[Message]) -> tuple[str, ...]:
    """One line each for the first and last PREVIEW_LINES messages (with a gap line between)."""
    if len(messages) <= 2 * PREVIEW_LINES:
        return tuple(_line(m) for m in messages)
    hidden = len(messages) - 2 * PREVIEW_LINES
    return (
        *(_line(m) for m in messages[:PREVIEW_LINES]),
        f"… {hidden} more message(s) …",
        *(_line(m) for m in messages[-PREVIEW_LINES:]),
    )


@dataclass(frozen=True)
class CompressionPreview:
    """What `/compress` would do now (plain data: the TUI's confirm screen and the CLI read it)."""

    messages_total: int
    tokens_before: int  # the rough request size now
    focus_topic: str | None = None
    keep_exchanges: int | None = None  # `/compress here N`: the last N exchanges are kept verbatim
    head_count: int = 0  # messages kept verbatim at the start
    summarised_count: int = 0  # messages folded into the summary
    tail_count: int = 0  # messages kept verbatim at the end (kept exchanges included)
    pruned_count: int = 0  # old tool results shortened on the way
    pinned_count: int = 0  # pinned messages of the middle, kept verbatim after the summary
    summary_tokens: int = 0  # the summary's estimated size (frame included)
    summary_budget: int = 0  # the most the summary model is asked for
    tokens_after: int = 0  # estimated request size after
    head: tuple[str, ...] = field(default_factory=tuple)  # one line per message (ends only)
    summarised: tuple[str, ...] = field(default_factory=tuple)
    tail: tuple[str, ...] = field(default_factory=tuple)
    reason: str = ""  # why nothing would be compressed; "" when it would

    @property
    def would_compress(self) -> bool:
        return not self.reason

    @property
    def saving_percent(self) -> int:
        if not self.would_compress or self.tokens_before <= 0:
            return 0
        return round((self.tokens_before - self.tokens_after) * 100 / self.tokens_before)

    def text(self) -> str:
        """The preview as lines of text (what `/compress preview` prints)."""
        if not self.would_compress:
            return f"/compress would not change anything: {self.reason}."
        focus = f", focus “{self.focus_topic}”" if self.focus_topic else ""
        lines = [
            f"/compress would summarise {self.summarised_count} of {self.messages_total} messages{focus}:",
            f"  tokens ~{self.tokens_before:,} → ~{self.tokens_after:,} (estimated, {self.saving_percent}% saved;"
            f" summary ~{self.summary_tokens:,}, at most {self.summary_budget:,})",
            f"  kept verbatim: the first {self.head_count}"
            + (f", {self.pinned_count} pinned" if self.pinned_count else "")
            + f" and the last {self.tail_count} message(s)"
            + (f"; {self.pruned_count} old tool result(s) shortened" if self.pruned_count else ""),
        ]
        for label, rows in (("head (kept)", self.head), ("summarised", self.summarised), ("tail (kept)", self.tail)):
            if rows:
                lines.append(f"  {label}:")
                lines.extend(f"    {row}" for row in rows)
        return "\n".join(lines)


def preview_compression(
    compressor: ContextCompressor,
    messages: list[Message],
    keep_tail: list[Message],
    *,
    estimate: Estimate,
    extra: list[Message] | None = None,
    focus_topic: str | None = None,
    keep_exchanges: int | None = None,
) -> CompressionPreview:
    """What compressing `messages` (then re-joining `keep_tail` verbatim) would do.

    `estimate` sizes a message list as the triggers do; `extra` is what the orchestrator appends
    after the summary (the todo re-injection).
    """
    whole = [*messages, *keep_tail]
    before = estimate(whole)
    base = CompressionPreview(len(whole), before, focus_topic, keep_exchanges)
    plan = compressor.plan(messages)
    if plan is None:
        return replace(base, reason="the conversation fits in the protected head and tail")
    turns_tokens = estimate_messages_tokens_rough(plan.turns)
    budget = summary_budget(plan.turns, compressor.max_summary_tokens)
    body = min(budget, int(turns_tokens * SUMMARY_RATIO))
    tail = [*plan.tail, *keep_tail]
    appended = [*(extra or []), *keep_tail]
    after = estimate(shaped_result(plan.head, body, plan.tail, appended))
    frame_only = estimate(shaped_result(plan.head, 0, plan.tail, appended))
    preview = replace(
        base,
        head_count=len(plan.head),
        summarised_count=plan.summarised_count,
        tail_count=len(tail) - len(plan.kept),
        pruned_count=plan.pruned_count,
        pinned_count=len(plan.kept),
        summary_tokens=body + _frame_tokens(),
        summary_budget=budget,
        tokens_after=after,
        head=_ends(plan.head),
        summarised=_ends(plan.summarised),
        tail=_ends(tail),
    )
    if no_gain(before, frame_only):
        return replace(preview, reason=no_gain_reason(before, frame_only, estimated=True))
    return preview


def _frame_tokens() -> int:
    return (len(SUMMARY_PREFIX) + 1 + 3) // 4
