"""What one failed API call leads to (reference §6.1): a decision value, decided by a pure function.

`ErrorFacts.read(exc, ...)` gathers everything the decision needs from an exception and the turn
(the classifier's verdict and flags, Retry-After advice, limits named in an overflow message,
whether visible text was already delivered). `decide(facts, ...)` turns that into one of:

    Retry(delay)             back off, then call again (Retry-After for rate limits, else jittered)
    LowerOutputBudget(n)     the provider said only n output tokens fit: call again asking for fewer
    CompressAndRestart(lim)  413 / context overflow: lower the window to `lim` if the provider named
                             one, compress, call again (at most 3 times per turn)
    AcceptPartial()          the stream died after visible text: keep what was delivered as the answer
    Fail(reason, error)      stop the turn with a one-line error (with guidance for fatal classes)

It has no side effects; the retry loop (`hermes_tui.core.turn.calls`) carries the decision out. A
new recovery path (e.g. falling back to the next provider) is one more decision type here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from hermes_tui.core.turn.errors import (
    FailoverReason,
    classify_api_error,
    parse_available_output_tokens_from_error,
    parse_context_limit_from_error,
)
from hermes_tui.core.turn.retry import jittered_backoff, retry_after_seconds

MAX_COMPRESSION_ATTEMPTS = 3
MAX_BACKOFF_SECONDS = 60.0
OUTPUT_BUDGET_MARGIN = 64
# A 400 on a request this large is likely the size itself: don't grow the stored session (#1630).
LARGE_REQUEST_TOKENS = 50_000
LARGE_REQUEST_MESSAGES = 80
GUIDANCE = {
    "auth": "check the API key for this provider",
    "auth_permanent": "check the API key for this provider",
    "billing": "check the account's billing or credits",
    "model_not_found": "check the model name (--model)",
    "content_policy_blocked": "the provider refused the content; rephrase the request",
    "provider_policy_blocked": "the provider's data policy blocked this model; check its settings",
    "format_error": "the provider rejected the request format",
}


@dataclass(frozen=True)
class ErrorFacts:
    """One failed call, as the decision sees it."""

    reason: str
    message: str
    retryable: bool
    should_compress: bool = False
    status_code: int | None = None
    provider: str = ""
    retry_after: float | None = None
    available_output_tokens: int | None = None
    context_limit: int | None = None
    delivered_text: bool = False
    has_tool_calls: bool = False
    request_tokens: int = 0
    message_count: int = 0

    @classmethod
    def read(
        cls,
        exc: BaseException,
        *,
        provider: str,
        model: str,
        request_tokens: int,
        context_length: int,
        message_count: int,
        delivered_text: bool,
        has_tool_calls: bool,
    ) -> ErrorFacts:
        classified = classify_api_error(
            exc,
            provider=provider,
            model=model,
            approx_tokens=request_tokens,
            context_length=context_length,
            num_messages=message_count,
        )
        message = classified.message or str(exc)
        overflow = classified.reason is FailoverReason.CONTEXT_OVERFLOW
        limit_text = f"{message} {exc}"
        return cls(
            reason=classified.reason.value,
            message=message,
            retryable=classified.retryable,
            should_compress=classified.should_compress,
            status_code=classified.status_code,
            provider=provider,
            retry_after=retry_after_seconds(exc) if classified.reason is FailoverReason.RATE_LIMIT else None,
            available_output_tokens=parse_available_output_tokens_from_error(limit_text) if overflow else None,
            context_limit=parse_context_limit_from_error(limit_text) if overflow else None,
            delivered_text=delivered_text,
            has_tool_calls=has_tool_calls,
            request_tokens=request_tokens,
            message_count=message_count,
        )


@dataclass(frozen=True)
class Retry:
    delay: float
    attempt: int
    max_retries: int
    reason: str
    message: str


@dataclass(frozen=True)
class LowerOutputBudget:
    max_tokens: int


@dataclass(frozen=True)
class CompressAndRestart:
    reason: str
    window_limit: int | None = None
    message: str = ""

    def cannot_compress(self) -> str:
        """The failure when compression could not make the request smaller."""
        if self.reason == "payload_too_large":
            return (
                f"The request is too large for the provider ({self.message}) and the conversation cannot be "
                "compressed further. Nothing was lost — start a fresh session with /new."
            )
        return CANNOT_COMPRESS


@dataclass(frozen=True)
class AcceptPartial:
    cause: str = ""


@dataclass(frozen=True)
class Fail:
    exit_reason: str
    error: str
    skip_persist: bool = False


Decision = Retry | LowerOutputBudget | CompressAndRestart | AcceptPartial | Fail

COMPRESSION_EXHAUSTED = (
    "Context length exceeded: compressed 3 times and the request is still too large. "
    "Nothing was lost — try /compress with a focus topic, or /new."
)
CANNOT_COMPRESS = (
    "Context length exceeded and the conversation cannot be compressed further. "
    "Nothing was lost — start a fresh session with /new."
)


def decide(
    facts: ErrorFacts,
    *,
    retry_count: int,
    max_retries: int,
    compression_attempts: int,
    backoff_base: float,
    rng: random.Random | None = None,
) -> Decision:
    """The recovery decision for one failed call (`retry_count` retries already made this call)."""
    if facts.should_compress:
        if compression_attempts >= MAX_COMPRESSION_ATTEMPTS:
            return Fail("compression_exhausted", COMPRESSION_EXHAUSTED)
        if facts.available_output_tokens:
            return LowerOutputBudget(max(1, facts.available_output_tokens - OUTPUT_BUDGET_MARGIN))
        return CompressAndRestart(facts.reason, facts.context_limit, facts.message)

    if facts.delivered_text and not facts.has_tool_calls:
        return AcceptPartial(facts.message)

    if not facts.retryable:
        hint = GUIDANCE.get(facts.reason, "")
        large = facts.request_tokens > LARGE_REQUEST_TOKENS or facts.message_count > LARGE_REQUEST_MESSAGES
        return Fail(
            facts.reason,
            f"{facts.provider} API error ({facts.reason}): {facts.message}" + (f" — {hint}" if hint else ""),
            skip_persist=facts.status_code == 400 and large,
        )

    attempt = retry_count + 1
    if attempt >= max_retries:
        return Fail("all_retries_exhausted", f"API call failed after {max_retries} retries: {facts.message}")
    delay = facts.retry_after
    if delay is None:
        delay = jittered_backoff(attempt, backoff_base, MAX_BACKOFF_SECONDS, rng=rng)
    return Retry(delay, attempt, max_retries, facts.reason, facts.message)
