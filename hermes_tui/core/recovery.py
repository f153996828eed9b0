"""The inner retry loop of one API call and the error-recovery decisions (reference §6.1).

`call_with_recovery(turn)` streams one call. On an error it classifies it
(`hermes_tui.core.errors.classify_api_error`) and then: compresses and restarts on a 413 or a
context overflow (lowering the window when the provider states an explicit limit; at most 3
compression attempts per turn), keeps already-delivered text when a stream dies mid-answer,
fails fast on non-retryable errors with guidance, and otherwise backs off (Retry-After for rate
limits, else jittered) in interrupt-responsive slices. It returns the finished
`StreamAccumulator`, `RESTART` (call again with the compressed list), or None (the turn failed;
the reason is on the turn).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Final

from hermes_tui.core import events as ev
from hermes_tui.core.api_messages import build_api_messages
from hermes_tui.core.errors import (
    classify_api_error,
    parse_available_output_tokens_from_error,
    parse_context_limit_from_error,
)
from hermes_tui.core.providers.base import ChatRequest, Usage
from hermes_tui.core.retry import interruptible_sleep, jittered_backoff, retry_after_seconds
from hermes_tui.core.streaming import StreamAccumulator

if TYPE_CHECKING:
    from hermes_tui.core.loop import TurnRunner


class _Restart:
    def __repr__(self) -> str:
        return "RESTART"


RESTART: Final = _Restart()
MAX_COMPRESSION_ATTEMPTS = 3
_COMPRESS_REASONS = frozenset({"payload_too_large", "context_overflow", "long_context_tier"})
_RATE_LIMITS = frozenset({"rate_limit"})
_GUIDANCE = {
    "auth": "check the API key for this provider",
    "auth_permanent": "check the API key for this provider",
    "billing": "check the account's billing or credits",
    "model_not_found": "check the model name (--model)",
    "content_policy_blocked": "the provider refused the content; rephrase the request",
    "provider_policy_blocked": "the provider's data policy blocked this model; check its settings",
    "format_error": "the provider rejected the request format",
}


def _reason(classified: object) -> str:
    reason = getattr(classified, "reason", "unknown")
    return str(getattr(reason, "value", reason))


def _request(turn: TurnRunner) -> ChatRequest:
    agent = turn.agent
    settings = agent.settings
    return ChatRequest(
        messages=build_api_messages(
            turn.messages, agent.cached_system_prompt, extra_messages=turn.extra_messages or None
        ),
        tools=agent.tool_schemas if turn.tools_enabled else [],
        max_tokens=turn.max_tokens_override or settings.model.max_tokens,
        cache_ttl=settings.prompt_caching.cache_ttl,
    )


async def _stream_once(turn: TurnRunner) -> StreamAccumulator:
    agent = turn.agent
    acc = StreamAccumulator()
    turn.acc = acc
    agent.emit(ev.AssistantStarted(turn.api_calls))
    async for event in agent.provider.stream(_request(turn)):
        out = acc.feed(event)
        if out is not None:
            agent.emit(out)
    return acc


async def call_with_recovery(turn: TurnRunner) -> StreamAccumulator | _Restart | None:
    agent = turn.agent
    max_retries = max(1, agent.settings.agent.api_max_retries)
    retry_count = 0
    while True:
        try:
            acc = await _stream_once(turn)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            acc = turn.acc or StreamAccumulator()
            turn.acc = None
            decision = await _on_error(turn, exc, acc, retry_count, max_retries)
            if decision == "retry":
                retry_count += 1
                continue
            if decision == "restart":
                return RESTART
            if decision == "partial":
                return acc
            return None
        turn.acc = None
        agent.emit(ev.AssistantFinished(acc.text, len(acc.tool_calls), acc.finish_reason or "stop"))
        # No usage reported: count the call with zero tokens, so the triggers fall back to the estimate.
        await agent.record_usage(acc.usage or Usage())
        agent.emit_budget(turn.messages, acc.usage)
        return acc


async def _on_error(
    turn: TurnRunner, exc: Exception, acc: StreamAccumulator, retry_count: int, max_retries: int
) -> str:
    """Decide what one failed call leads to: "retry", "restart", "partial" or "fail"."""
    agent = turn.agent
    classified = classify_api_error(
        exc,
        provider=agent.provider.name,
        model=agent.provider.model,
        approx_tokens=agent.request_estimate(turn.messages),
        context_length=agent.compressor.context_length,
        num_messages=len(turn.messages),
    )
    reason = _reason(classified)
    message = getattr(classified, "message", "") or str(exc)
    if acc.text_parts or acc.reasoning_parts:
        agent.emit(ev.AssistantFinished(acc.text, 0, "error", interrupted=False))

    if reason in _COMPRESS_REASONS:
        return await _compress_for_overflow(turn, reason, f"{message} {exc}")

    if acc.delivered_text and not acc.tool_calls:
        agent.emit(ev.Status("↻ Stream interrupted — using delivered content as final response"))
        acc.finish_reason = "stop"
        return "partial"

    if not getattr(classified, "retryable", True):
        hint = _GUIDANCE.get(reason, "")
        status = getattr(classified, "status_code", None)
        if status == 400 and (agent.request_estimate(turn.messages) > 50_000 or len(turn.messages) > 80):
            turn.skip_persist = True  # don't grow a session the provider keeps rejecting (#1630)
        turn.fail(reason, f"{agent.provider.name} API error ({reason}): {message}" + (f" — {hint}" if hint else ""))
        return "fail"

    attempt = retry_count + 1
    if attempt >= max_retries:
        turn.fail("all_retries_exhausted", f"API call failed after {max_retries} retries: {message}")
        return "fail"
    delay = None
    if reason in _RATE_LIMITS:
        delay = retry_after_seconds(exc)
    if delay is None:
        delay = jittered_backoff(attempt, agent.backoff_base, 60.0)
    agent.emit(ev.Status(f"↻ {reason.replace('_', ' ')} — retrying in {delay:.1f}s ({attempt}/{max_retries})"))
    agent.review("warning", f"API {reason}: {message[:160]} — retry {attempt}/{max_retries}")
    await interruptible_sleep(delay)
    return "retry"


async def _compress_for_overflow(turn: TurnRunner, reason: str, text: str) -> str:
    """413 / context overflow: lower the window if the provider names one, compress, restart (≤ 3)."""
    agent = turn.agent
    compressor = agent.compressor
    turn.compression_attempts += 1
    if turn.compression_attempts > MAX_COMPRESSION_ATTEMPTS:
        turn.fail(
            "compression_exhausted",
            "Context length exceeded: compressed 3 times and the request is still too large. "
            "Nothing was lost — try /compress with a focus topic, or /new.",
        )
        return "fail"
    lowered = False
    if reason == "context_overflow":
        available = parse_available_output_tokens_from_error(text)
        if available:
            turn.max_tokens_override = max(1, available - 64)
            agent.emit(ev.Status(f"↻ Output budget lowered to {turn.max_tokens_override:,} tokens"))
            return "restart"
        limit = parse_context_limit_from_error(text)
        if limit and limit < compressor.context_length:
            compressor.update_model(limit)
            agent.context_window_known = True
            lowered = True
            agent.review("compression", f"Provider reported a {limit:,}-token window — gauge and threshold lowered")
    agent.emit(ev.Status("🗜️ Request too large for the model — compressing and retrying"))
    shrank = await turn.compress(reason="overflow", approx_tokens=agent.request_estimate(turn.messages))
    if shrank or lowered:
        return "restart"
    turn.fail(
        "compression_exhausted",
        "Context length exceeded and the conversation cannot be compressed further. "
        "Nothing was lost — start a fresh session with /new.",
    )
    return "fail"
