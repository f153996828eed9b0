"""The context compressor: token tracking, the three triggers' bookkeeping, and the 4-phase compress.

Owns `ContextCompressor`: budgets derived from the window (threshold.py's trigger on the input
budget, tail budget, summary ceiling), usage tracking (`update_from_response`, the -1 "unknown since
compression" sentinel, preflight deferral until real usage is known), the anti-thrash pause (judged
on the provider's next real prompt size: a compression that did not bring the prompt under the
threshold is ineffective; two in a row, or two fallback summaries in a row, pause the automatic
trigger, as does a summary-failure cooldown), and `compress()` orchestrating phase 0 (per-call
reset), 1–2 (plan.py: prune, boundaries, summary rehydration), 3 (summary.py via the summarize
callables, with the 600/60/30 s failure/cooldown matrix on an injectable clock — reported through
`on_cooldown` so it can be stored, cooldown_store.py — and a one-time switch to the main model),
fallback_summary.py when no summary comes back — unless the summary model failed on its credential
or the network, when nothing is dropped (the call is aborted, as Hermes does) — and 4 (assembly.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from hermes_tui.core.context.assembly import assemble, strip_historical_media
from hermes_tui.core.context.constants import (
    DEFAULT_PROTECT_FIRST_N,
    DEFAULT_PROTECT_LAST_N,
    DEFAULT_SUMMARY_TARGET_RATIO,
    DEFAULT_THRESHOLD_PERCENT,
    MAX_FALLBACK_COMPRESSIONS,
    MAX_INEFFECTIVE_COMPRESSIONS,
    PREFLIGHT_DEFER_MIN_TOLERANCE,
    PREFLIGHT_DEFER_TOLERANCE_SHARE,
    QUICK_RETRY_SUMMARY_COOLDOWN_SECONDS,
    SUMMARY_CONTEXT_SHARE,
    SUMMARY_FAILURE_COOLDOWN_SECONDS,
    SUMMARY_MAX_TOKENS_FACTOR,
    SUMMARY_TARGET_RATIO_MAX,
    SUMMARY_TARGET_RATIO_MIN,
    SUMMARY_TOKENS_CEILING,
    TRANSIENT_SUMMARY_COOLDOWN_SECONDS,
)
from hermes_tui.core.context.failures import SummaryFailure, classify_summary_error, error_line
from hermes_tui.core.context.fallback_summary import build_fallback_summary
from hermes_tui.core.context.markers import SUMMARY_END_MARKER, SUMMARY_PREFIX, strip_summary_prefix
from hermes_tui.core.context.offload import off_loop
from hermes_tui.core.context.plan import CompressionPlan, plan_compression
from hermes_tui.core.context.redact import redact_sensitive_text
from hermes_tui.core.context.summary import build_summary_prompt, serialize_for_summary, summary_budget
from hermes_tui.core.context.threshold import effective_threshold_percent, threshold_tokens
from hermes_tui.core.context.tokens import build_context_budget, estimate_messages_tokens_rough
from hermes_tui.core.events import ContextBudget
from hermes_tui.core.messages import Message

log = logging.getLogger(__name__)

Summarize = Callable[[str, int], Awaitable[str]]

NO_PROVIDER_ERROR = "no auxiliary LLM provider configured"
COMPRESSION_BLOCKED_HINT = (
    "Two compressions in a row did not bring the context back under the threshold, so automatic "
    "compression is paused. Consider /new to start a fresh session, or /compress <topic> to focus the summary."
)


@dataclasses.dataclass
class _CallNotes:
    """What one compress call learned on the way (folded into its outcome)."""

    summary_error: str | None = None
    aux_failure: str | None = None
    summary_prompt: str | None = None


@dataclasses.dataclass(frozen=True)
class CompressOutcome:
    """What one compress call did.

    `changed` is False when there was nothing to compress or the summary failed with
    abort_on_summary_failure (`aborted`). `summarised_count` counts the messages folded into the
    summary; `tokens_before` is the size the call was asked about (reported, given or estimated)
    and `tokens_after` the rough size of the result. `error` is the summary failure, if any (a
    fallback summary was then used unless aborted); `aux_failure` the error of a distinct summary
    model the call switched away from. `pinned_kept`: the pinned messages of the middle that the
    summary left out and the result keeps, in order, after it (core/context/pins.py).
    """

    messages: list[Message]
    changed: bool
    aborted: bool = False
    fallback_used: bool = False
    summarised_count: int = 0
    pruned_count: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    savings_percent: float | None = None
    error: str | None = None
    aux_failure: str | None = None
    summary_prompt: str | None = None
    pinned_kept: tuple[int, ...] = ()  # indices (in the input) of pinned middle messages kept verbatim


def _positive_or_none(value: object) -> int | None:
    """An output reservation: a positive int, else None (no reservation)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if value > 0 else None


def _as_int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(0, value)
    if isinstance(value, float) and value == value:  # not NaN
        return max(0, int(value))
    return 0


class ContextCompressor:
    """Decides when to compress and compresses OpenAI-format message lists (never mutating them)."""

    def __init__(
        self,
        context_length: int,
        threshold_percent: float = DEFAULT_THRESHOLD_PERCENT,
        protect_first_n: int = DEFAULT_PROTECT_FIRST_N,
        protect_last_n: int = DEFAULT_PROTECT_LAST_N,
        summary_target_ratio: float = DEFAULT_SUMMARY_TARGET_RATIO,
        summarize: Summarize | None = None,
        fallback_summarize: Summarize | None = None,
        abort_on_summary_failure: bool = False,
        *,
        clock: Callable[[], float] | None = None,
        summary_timeout: float | None = None,
        max_output_tokens: int | None = None,
    ) -> None:
        if not isinstance(context_length, int) or isinstance(context_length, bool) or context_length <= 0:
            raise ValueError(f"context_length must be a positive integer, got {context_length!r}")
        if not 0.0 < float(threshold_percent) <= 1.0:
            raise ValueError(f"threshold_percent must be in (0, 1], got {threshold_percent!r}")
        self.configured_threshold_percent = float(threshold_percent)
        self.threshold_percent = self.configured_threshold_percent  # raised for small windows by update_model
        self.max_output_tokens = _positive_or_none(max_output_tokens)
        self.protect_first_n = max(0, int(protect_first_n))
        self.protect_last_n = max(0, int(protect_last_n))
        self.summary_target_ratio = min(
            max(float(summary_target_ratio), SUMMARY_TARGET_RATIO_MIN), SUMMARY_TARGET_RATIO_MAX
        )
        self.summarize = summarize
        self.fallback_summarize = fallback_summarize
        self.abort_on_summary_failure = abort_on_summary_failure
        self.summary_timeout = summary_timeout
        self._clock = clock or time.monotonic

        self.context_length = context_length
        self.threshold_tokens = 0
        self.tail_token_budget = 0
        self.max_summary_tokens = 0
        self.update_model(context_length)

        self.summary_fell_back_to_main = False  # the one-time switch to the main model happened
        # told (wall-clock end, reason) when a summary-failure cooldown starts, (None, "") when it is lifted
        # (cooldown_store.CooldownKeeper keeps it in state.db so a resumed session keeps it)
        self.on_cooldown: Callable[[float | None, str], None] | None = None
        self._notes = _CallNotes()
        self.reset_session_state()

    # ------------------------------------------------------------------ budgets and state

    def update_model(self, context_length: int, max_output_tokens: int | None = None) -> None:
        """Recompute every budget for a new context window (model switch); `max_output_tokens`, when
        given, is the new output reservation (else the current one stays)."""
        if not isinstance(context_length, int) or context_length <= 0:
            raise ValueError(f"context_length must be a positive integer, got {context_length!r}")
        if max_output_tokens is not None:
            self.max_output_tokens = _positive_or_none(max_output_tokens)
        self.context_length = context_length
        self.threshold_percent = effective_threshold_percent(context_length, self.configured_threshold_percent)
        self.threshold_tokens = threshold_tokens(context_length, self.threshold_percent, self.max_output_tokens)
        self.tail_token_budget = int(self.threshold_tokens * self.summary_target_ratio)
        self.max_summary_tokens = min(int(context_length * SUMMARY_CONTEXT_SHARE), SUMMARY_TOKENS_CEILING)

    def reset_session_state(self) -> None:
        """Forget everything tied to the current session (/new, /resume): counts, summary, usage."""
        self.last_prompt_tokens = 0
        self.last_completion_tokens = 0
        self.last_total_tokens = 0
        self.last_cache_read_tokens = 0
        self.last_cache_write_tokens = 0
        self.last_real_prompt_tokens = 0
        self.last_compression_rough_tokens = 0
        self.last_rough_tokens_when_real_prompt_fit = 0
        self.awaiting_real_usage_after_compression = False
        self.compression_count = 0
        self.ineffective_compression_count = 0
        self.fallback_compression_streak = 0  # completed compressions in a row that used the fallback summary
        self._verify_cleared_threshold = False  # a compression completed: the next real usage judges it
        self.previous_summary: str | None = None
        self.summary_failure_cooldown_until = 0.0
        self._cooldown_reason = ""
        # the last summary failure was an auth or network one: compress() keeps everything instead of a
        # fallback summary until a summary succeeds (it survives a cooldown's early return)
        self.summary_auth_failure = False
        self.summary_network_failure = False
        self.last_outcome = CompressOutcome([], changed=False)

    def discard_last_compression(self, previous_summary: str | None) -> None:
        """The caller did not apply the last compression (it saved nothing): it does not count, the
        iterative summary goes back to `previous_summary`, and it is an ineffective attempt, so the
        automatic trigger still pauses after two of them."""
        self.compression_count = max(0, self.compression_count - 1)
        self.previous_summary = previous_summary
        self._verify_cleared_threshold = False
        self.ineffective_compression_count += 1

    def note_ineffective_attempt(self) -> None:
        """An automatic compression was skipped because it could not save anything (counts toward the pause)."""
        self.ineffective_compression_count += 1

    # ------------------------------------------------------------------ usage and triggers

    def update_from_response(self, usage: Mapping[str, Any] | Any) -> None:
        """Record a provider-reported usage (dict with legacy and bucket keys, or an object with as_dict)."""
        if not isinstance(usage, Mapping):
            as_dict = getattr(usage, "as_dict", None)
            usage = as_dict() if callable(as_dict) else {}
        cache_read = _as_int(usage.get("cache_read_tokens"))
        cache_write = _as_int(usage.get("cache_write_tokens"))
        if "prompt_tokens" in usage:
            prompt = _as_int(usage.get("prompt_tokens"))
        else:
            prompt = _as_int(usage.get("input_tokens")) + cache_read + cache_write
        completion = _as_int(usage.get("completion_tokens", usage.get("output_tokens")))
        self.last_prompt_tokens = prompt
        self.last_completion_tokens = completion
        self.last_total_tokens = _as_int(usage.get("total_tokens")) or prompt + completion
        self.last_cache_read_tokens = cache_read
        self.last_cache_write_tokens = cache_write
        if prompt > 0:
            self.last_real_prompt_tokens = prompt
            fits = prompt < self.threshold_tokens
            if fits:
                if self.awaiting_real_usage_after_compression and self.last_compression_rough_tokens > 0:
                    self.last_rough_tokens_when_real_prompt_fit = self.last_compression_rough_tokens
                self.ineffective_compression_count = 0  # the prompt fits again: the pause lifts
            else:
                self.last_rough_tokens_when_real_prompt_fit = 0
            if self._verify_cleared_threshold and not fits:
                # The anti-thrash verdict, on real usage: the compression just made did not bring the
                # prompt under the threshold (the system prompt and tool schemas alone may exceed it).
                self.ineffective_compression_count += 1
                log.warning("compression did not clear the threshold: %d tokens >= %d", prompt, self.threshold_tokens)
        self._verify_cleared_threshold = False
        self.awaiting_real_usage_after_compression = False

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        """tokens >= threshold, unless automatic compression is paused (cooldown or anti-thrash)."""
        tokens = self.last_prompt_tokens if prompt_tokens is None else prompt_tokens
        if tokens < self.threshold_tokens:
            return False
        if self.summary_cooldown_remaining > 0:
            log.debug("compression deferred: the summary model is cooling down")
            return False
        if self.compression_blocked:
            log.info(COMPRESSION_BLOCKED_HINT)
            return False
        return True

    @property
    def compression_blocked(self) -> bool:
        """Two ineffective compressions in a row, or two fallback summaries in a row."""
        return (
            self.ineffective_compression_count >= MAX_INEFFECTIVE_COMPRESSIONS
            or self.fallback_compression_streak >= MAX_FALLBACK_COMPRESSIONS
        )

    @property
    def summary_cooldown_remaining(self) -> float:
        """Seconds until the summary model may be asked again (0 when it may now)."""
        return max(0.0, self.summary_failure_cooldown_until - self._clock())

    def tokens_for_in_loop_check(self, rough_request_tokens: int) -> int:
        """The number the in-loop trigger compares (#12026): the last reported prompt size only —
        0 right after a compression (-1 sentinel), the rough request estimate when nothing was reported."""
        if self.last_prompt_tokens < 0:
            return 0
        if self.last_prompt_tokens == 0:
            return rough_request_tokens
        return self.last_prompt_tokens

    def should_defer_preflight_to_real_usage(self, rough: int) -> bool:
        """Trust the provider's last real prompt size over a schema-heavy rough estimate (§4.1).

        Right after a compression the real size is not known yet (the last real one is the stale
        pre-compression figure): defer once, until the provider reports it.
        """
        if rough < self.threshold_tokens:
            return False
        if self.awaiting_real_usage_after_compression:
            return True
        if not 0 < self.last_real_prompt_tokens < self.threshold_tokens:
            return False
        baseline = self.last_rough_tokens_when_real_prompt_fit or self.last_compression_rough_tokens
        if not baseline:
            return False
        tolerance = max(PREFLIGHT_DEFER_MIN_TOLERANCE, int(self.threshold_tokens * PREFLIGHT_DEFER_TOLERANCE_SHARE))
        if rough - baseline > tolerance:
            return False
        self.last_rough_tokens_when_real_prompt_fit = max(baseline, rough)
        return True

    def note_compression_bookkeeping(self, rough_tokens: int) -> None:
        """After a compression: the next real usage is unknown until the provider reports it."""
        self.last_compression_rough_tokens = max(0, int(rough_tokens))
        self.last_prompt_tokens = -1
        self.last_completion_tokens = 0
        self.awaiting_real_usage_after_compression = True

    def budget_snapshot(
        self, estimated_tokens: int, *, window_is_default: bool = False, compression_enabled: bool = True
    ) -> ContextBudget:
        """The gauge's ContextBudget for the current state and a rough estimate of the next request."""
        return build_context_budget(
            context_length=self.context_length,
            threshold_tokens=self.threshold_tokens,
            last_prompt_tokens=self.last_prompt_tokens,
            estimated_tokens=estimated_tokens,
            cache_read_tokens=self.last_cache_read_tokens,
            cache_write_tokens=self.last_cache_write_tokens,
            compression_count=self.compression_count,
            ineffective_compressions=self.ineffective_compression_count,
            window_is_default=window_is_default,
            compression_enabled=compression_enabled,
        )

    # ------------------------------------------------------------------ compress

    def plan(self, messages: Sequence[Message]) -> CompressionPlan | None:
        """Phases 1–2 only (prune, boundaries, rehydration): a preview of what compress() would do."""
        return plan_compression(
            messages,
            protect_first_n=self.protect_first_n,
            protect_last_n=self.protect_last_n,
            tail_token_budget=self.tail_token_budget,
        )

    def has_content_to_compress(self, messages: Sequence[Message]) -> bool:
        """Whether compress() would find a middle to summarise (the /compress preflight guard)."""
        return self.plan(messages) is not None

    async def compress(
        self,
        messages: Sequence[Message],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
    ) -> list[Message]:
        """The compressed conversation; the input (list and dicts) is left untouched.

        The reference API: what the call did beyond the list is on `last_outcome` (and the
        `last_*` properties). `run()` returns it directly.
        """
        return (await self.run(messages, current_tokens, focus_topic, force)).messages

    async def run(
        self,
        messages: Sequence[Message],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
        memory_notes: str = "",
    ) -> CompressOutcome:
        """Compress `messages` (never mutated) and say what happened; `memory_notes` join the summary prompt."""
        # Phase 0: per-call state.
        self._notes = _CallNotes()
        if force and self.summary_failure_cooldown_until:
            self._lift_cooldown()
        original = list(messages)
        size = len(original)

        # Phases 1-2: prune, boundaries, rehydration of an earlier handoff (off the event loop).
        plan = await off_loop(self.plan, original, size=size)
        if plan is None:
            # Nothing to summarise yet the prompt is over the threshold (the incompressible part):
            # an ineffective attempt, or the trigger would fire again every turn.
            self.ineffective_compression_count += 1
            return self._done(CompressOutcome(original, changed=False))
        if plan.previous is not None and self.previous_summary is None:
            self.previous_summary = plan.previous.body

        # Phase 3: summary (or the deterministic fallback).
        fallback_used = False
        summary = await self._generate_summary(plan.turns, focus_topic, memory_notes)
        if summary is None:
            # A broken credential or a dropped network is not worth a lossy fallback summary: keep every
            # message and try again later (Hermes aborts for these whatever abort_on_summary_failure says).
            if self.abort_on_summary_failure or self.summary_auth_failure or self.summary_network_failure:
                return self._done(
                    CompressOutcome(original, changed=False, aborted=True, pruned_count=plan.pruned_count)
                )
            summary = await off_loop(
                build_fallback_summary,
                plan.turns,
                failure_reason=self._notes.summary_error or "unknown",
                previous_summary=self.previous_summary,
                size=len(plan.turns),
            )
            self.previous_summary = None  # the next compaction folds in the handoff now in the transcript
            fallback_used = True

        # Phase 4: assembly (off the event loop), then the bookkeeping (on it).
        if current_tokens and current_tokens > 0:
            display_tokens = current_tokens
        elif self.last_prompt_tokens > 0:
            display_tokens = self.last_prompt_tokens
        else:
            display_tokens = 0  # measured with the assembly, in the worker
        compressed, tokens_after, original_tokens = await off_loop(
            _assemble_and_measure, plan, summary, original if display_tokens == 0 else None, size=size
        )
        self.compression_count += 1
        self.fallback_compression_streak = self.fallback_compression_streak + 1 if fallback_used else 0
        self._verify_cleared_threshold = True  # judged by the next real usage (update_from_response)
        display_tokens = display_tokens or original_tokens
        savings = (display_tokens - tokens_after) / display_tokens * 100 if display_tokens > 0 else 0.0
        return self._done(
            CompressOutcome(
                compressed,
                changed=True,
                fallback_used=fallback_used,
                summarised_count=plan.summarised_count,
                pruned_count=plan.pruned_count,
                pinned_kept=plan.kept,
                tokens_before=display_tokens,
                tokens_after=tokens_after,
                savings_percent=savings,
            )
        )

    def _done(self, outcome: CompressOutcome) -> CompressOutcome:
        notes = self._notes
        outcome = dataclasses.replace(
            outcome, error=notes.summary_error, aux_failure=notes.aux_failure, summary_prompt=notes.summary_prompt
        )
        self.last_outcome = outcome
        return outcome

    # ------------------------------------------------------------------ what the last call did

    @property
    def last_summary_error(self) -> str | None:
        return self.last_outcome.error

    @property
    def last_summary_fallback_used(self) -> bool:
        return self.last_outcome.fallback_used

    @property
    def last_summary_dropped_count(self) -> int:
        """Messages folded into a fallback summary (0 when a model wrote the summary or none was made)."""
        return self.last_outcome.summarised_count if self.last_outcome.fallback_used else 0

    @property
    def last_compress_aborted(self) -> bool:
        return self.last_outcome.aborted

    @property
    def last_aux_model_failure_error(self) -> str | None:
        return self.last_outcome.aux_failure

    @property
    def last_prompt(self) -> str | None:
        """The last summary prompt sent to a summariser."""
        return self.last_outcome.summary_prompt

    # ------------------------------------------------------------------ phase 3

    def _summarisers(self) -> tuple[Summarize | None, Summarize | None]:
        """(the summariser to call, the main model to switch to once if it fails, or None)."""
        if self.summary_fell_back_to_main or self.summarize is None:
            return self.fallback_summarize, None
        distinct = self.fallback_summarize if self.fallback_summarize is not self.summarize else None
        return self.summarize, distinct

    def _enter_cooldown(self, seconds: float, reason: str) -> None:
        self.summary_failure_cooldown_until = self._clock() + seconds
        self._cooldown_reason = reason
        self._notes.summary_error = reason
        if self.on_cooldown is not None:
            self.on_cooldown(time.time() + seconds, reason)

    def _lift_cooldown(self) -> None:
        self.summary_failure_cooldown_until = 0.0
        self._cooldown_reason = ""
        if self.on_cooldown is not None:
            self.on_cooldown(None, "")

    def restore_cooldown(self, remaining_seconds: float, reason: str) -> None:
        """A resumed session's stored cooldown: automatic compression stays paused for what is left of it."""
        if remaining_seconds > 0:
            self.summary_failure_cooldown_until = self._clock() + remaining_seconds
            self._cooldown_reason = reason

    async def _call(self, summarize: Summarize, prompt: str, max_tokens: int) -> str:
        if self.summary_timeout:
            raw = await asyncio.wait_for(summarize(prompt, max_tokens), self.summary_timeout)
        else:
            raw = await summarize(prompt, max_tokens)
        body = redact_sensitive_text("" if raw is None else str(raw))
        body = strip_summary_prefix(body)
        marker_at = body.find(SUMMARY_END_MARKER)
        if marker_at >= 0:
            body = body[:marker_at]
        body = body.strip()
        if not body:
            raise ValueError("the summary model returned an empty summary")
        return body

    async def _generate_summary(
        self, turns: list[Message], focus_topic: str | None, memory_notes: str = ""
    ) -> str | None:
        remaining = self.summary_failure_cooldown_until - self._clock()
        if remaining > 0:
            reason = self._cooldown_reason or "summary model failed"
            self._notes.summary_error = f"{reason} (summary retries paused for {remaining:.0f} s)"
            return None
        if not turns and self.previous_summary:
            return f"{SUMMARY_PREFIX}\n{self.previous_summary}"
        primary, main_model = self._summarisers()
        if primary is None:
            self._enter_cooldown(SUMMARY_FAILURE_COOLDOWN_SECONDS, NO_PROVIDER_ERROR)
            return None
        budget, prompt = await off_loop(
            _summary_request,
            turns,
            self.max_summary_tokens,
            self.previous_summary,
            focus_topic,
            memory_notes,
            size=len(turns),
        )
        self._notes.summary_prompt = prompt
        max_tokens = int(budget * SUMMARY_MAX_TOKENS_FACTOR)
        try:
            body = await self._call(primary, prompt, max_tokens)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            failure = classify_summary_error(exc)
            if failure is SummaryFailure.NO_PROVIDER or main_model is None:
                return self._give_up(exc, failure)
            # A distinct summary model failed: switch to the main model once and retry right away.
            self._notes.aux_failure = error_line(exc)
            self.summary_fell_back_to_main = True
            self.summary_failure_cooldown_until = 0.0
            log.warning("summary model failed (%s); retrying with the main model", self._notes.aux_failure)
            try:
                body = await self._call(main_model, prompt, max_tokens)
            except asyncio.CancelledError:
                raise
            except Exception as main_exc:
                return self._give_up(main_exc, classify_summary_error(main_exc))
        self.previous_summary = body
        if self.summary_failure_cooldown_until:
            self._lift_cooldown()
        self.summary_auth_failure = self.summary_network_failure = False
        self._notes.summary_error = None
        return f"{SUMMARY_PREFIX}\n{body}"

    def _give_up(self, exc: BaseException, failure: SummaryFailure) -> None:
        self.summary_auth_failure = failure is SummaryFailure.AUTH
        self.summary_network_failure = failure.is_network
        if failure is SummaryFailure.NO_PROVIDER:
            detail = error_line(exc)
            reason = (
                NO_PROVIDER_ERROR if detail in ("RuntimeError", NO_PROVIDER_ERROR) else f"{NO_PROVIDER_ERROR}: {detail}"
            )
            self._enter_cooldown(SUMMARY_FAILURE_COOLDOWN_SECONDS, reason)
        elif failure.quick_retry:
            self._enter_cooldown(QUICK_RETRY_SUMMARY_COOLDOWN_SECONDS, error_line(exc))
        else:
            self._enter_cooldown(TRANSIENT_SUMMARY_COOLDOWN_SECONDS, error_line(exc))
        log.warning("context summary failed: %s", self._notes.summary_error)
        return None


# ---------------------------------------------------------------------- pure steps run in a worker


def _summary_request(
    turns: list[Message],
    max_summary_tokens: int,
    previous_summary: str | None,
    focus_topic: str | None,
    memory_notes: str,
) -> tuple[int, str]:
    """(summary budget, the summariser's prompt): redacting and serialising the turns is the
    costly part of phase 3 that is ours."""
    budget = summary_budget(turns, max_summary_tokens)
    prompt = build_summary_prompt(serialize_for_summary(turns), budget, previous_summary, focus_topic, memory_notes)
    return budget, prompt


def _assemble_and_measure(
    plan: CompressionPlan, summary: str, original: list[Message] | None
) -> tuple[list[Message], int, int]:
    """Phase 4 and the sizes the effectiveness check compares: (compressed, its rough tokens,
    the rough tokens of `original` — 0 when not asked)."""
    compressed = strip_historical_media(assemble(plan.head, summary, plan.tail))
    before = estimate_messages_tokens_rough(original) if original is not None else 0
    return compressed, estimate_messages_tokens_rough(compressed), before
