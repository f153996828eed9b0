"""What one failed API call leads to (reference §6.1): a decision value, decided by a pure function.

`ErrorFacts.read(exc, ...)` gathers everything the decision needs from an exception and the turn
(the classifier's verdict and flags, Retry-After advice, limits named in an overflow message,
whether visible text was already delivered). `decide(facts, ...)` turns that into one of:

    RotateCredential(cool)   429/401/402 and the pool has another key: bench this key, use the next
    Repair(kind)             a one-shot fix of the request for this class (shrink images, tool results
                             as text, strip replayed reasoning, strip schema patterns), then call again;
                             a model that takes no images gets them left out (checked first, as Hermes)
    Retry(delay)             back off, then call again (Retry-After for rate limits, else jittered)
    LowerOutputBudget(n)     the provider said only n output tokens fit: call again asking for fewer
    CompressAndRestart(lim)  413 / context overflow / long-context tier: lower the window to `lim` if
                             one is known, compress, call again (at most 3 times per turn)
    ContinueStream()         the network cut the answer after visible text: keep it and ask the model
                             to continue where it stopped (at most 3 times, shared with length stops)
    AcceptPartial()          the stream died after visible text: keep what was delivered as the answer
    FallBack(reason)         the active provider cannot answer (billing, model not found, policy,
                             format, retries spent...): move the turn to the next provider of the chain
    Fail(reason, error)      stop the turn with a one-line error (with guidance for fatal classes)

The classifier's flags decide the credential and fallback paths: `should_rotate_credential` (and
a pool with a rested key) rotates, `should_fallback` (and a next provider) falls back, as does any
error once the retries are spent. It has no side effects; the retry loop
(`hermes_tui.core.turn.calls`) carries the decision out.
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
from hermes_tui.core.turn.images import rejects_images
from hermes_tui.core.turn.retry import jittered_backoff, retry_after_seconds

MAX_COMPRESSION_ATTEMPTS = 3
MAX_CONTINUATIONS = 3  # network-cut and length continuations together (reference §6.1)
LONG_CONTEXT_TIER_WINDOW = 200_000  # the Anthropic long-context gate: fall back to the standard window
# the one-shot repair for each class that has one (reference §6.1 items 7, 8, 11-13)
REPAIRS = {
    "image_too_large": "shrink_images",
    "multimodal_tool_content_unsupported": "text_tool_results",
    "thinking_signature": "strip_reasoning",
    "invalid_encrypted_content": "strip_reasoning",
    "llama_cpp_grammar_pattern": "strip_schema_patterns",
}
# fall back at once when no key can take over; an aggregator's throttled upstream is not the key's fault
EAGER_FALLBACK = frozenset({"rate_limit", "billing", "upstream_rate_limit"})
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
    "ssl_cert_verification": (
        "the server's TLS certificate could not be verified (self-signed, expired, or replaced by a "
        "TLS-inspecting proxy); point SSL_CERT_FILE at the CA bundle that signs it, or use the server's "
        "trusted certificate"
    ),
}
_RETRY_AFTER_REASONS = frozenset({FailoverReason.RATE_LIMIT, FailoverReason.UPSTREAM_RATE_LIMIT})


@dataclass(frozen=True)
class ErrorFacts:
    """One failed call, as the decision sees it."""

    reason: str
    message: str
    retryable: bool
    should_compress: bool = False
    should_rotate_credential: bool = False
    should_fallback: bool = False
    network_cut: bool = False
    status_code: int | None = None
    provider: str = ""
    retry_after: float | None = None
    available_output_tokens: int | None = None
    context_limit: int | None = None
    delivered_text: bool = False
    has_tool_calls: bool = False
    request_tokens: int = 0
    message_count: int = 0
    images_unsupported: bool = False  # the model takes no images (checked before classification, §6.1 item 3)

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
            should_rotate_credential=classified.should_rotate_credential,
            should_fallback=classified.should_fallback,
            network_cut=_is_network_cut(exc, classified.reason),
            status_code=classified.status_code,
            provider=provider,
            retry_after=retry_after_seconds(exc) if classified.reason in _RETRY_AFTER_REASONS else None,
            available_output_tokens=parse_available_output_tokens_from_error(limit_text) if overflow else None,
            context_limit=parse_context_limit_from_error(limit_text) if overflow else None,
            delivered_text=delivered_text,
            has_tool_calls=has_tool_calls,
            request_tokens=request_tokens,
            message_count=message_count,
            images_unsupported=_rejects_images(exc, classified.status_code, message),
        )


def _rejects_images(exc: BaseException, status: int | None, message: str) -> bool:
    """A 4xx (or status-less) error saying the model does not take images."""
    if status is not None and not 400 <= status < 500:
        return False
    return rejects_images(f"{message} {exc}")


def _is_network_cut(exc: BaseException, reason: FailoverReason) -> bool:
    """The transport died under the answer: a timeout, a dropped or reset connection, a stream cut short."""
    if reason is FailoverReason.TIMEOUT:
        return True
    chain: BaseException | None = exc
    for _ in range(5):
        if chain is None:
            break
        if getattr(chain, "stream_fault", None) == "truncated":
            return True
        chain = chain.__cause__ or chain.__context__
    return False


@dataclass(frozen=True)
class ChainFacts:
    """What the provider chain still offers this call."""

    can_rotate: bool = False
    has_fallback: bool = False
    repairs_used: frozenset[str] = frozenset()
    continuations: int = 0


@dataclass(frozen=True)
class RotateCredential:
    reason: str
    cooldown_reason: str
    retry_after: float | None
    message: str


@dataclass(frozen=True)
class Repair:
    kind: str
    reason: str
    message: str


@dataclass(frozen=True)
class FallBack:
    reason: str
    message: str


@dataclass(frozen=True)
class ContinueStream:
    cause: str


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


Decision = (
    Retry
    | LowerOutputBudget
    | CompressAndRestart
    | AcceptPartial
    | Fail
    | RotateCredential
    | Repair
    | FallBack
    | ContinueStream
)

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
    chain: ChainFacts | None = None,
) -> Decision:
    """The recovery decision for one failed call (`retry_count` retries already made this call)."""
    chain = chain or ChainFacts()
    if facts.images_unsupported and "strip_images" not in chain.repairs_used:
        return Repair("strip_images", "vision_unsupported", facts.message)
    if facts.should_rotate_credential and chain.can_rotate:
        return RotateCredential(facts.reason, facts.reason, facts.retry_after, facts.message)

    repair = REPAIRS.get(facts.reason)
    if repair and repair not in chain.repairs_used:
        return Repair(repair, facts.reason, facts.message)

    if facts.should_compress:
        if compression_attempts >= MAX_COMPRESSION_ATTEMPTS:
            return Fail("compression_exhausted", COMPRESSION_EXHAUSTED)
        if facts.available_output_tokens:
            return LowerOutputBudget(max(1, facts.available_output_tokens - OUTPUT_BUDGET_MARGIN))
        limit = LONG_CONTEXT_TIER_WINDOW if facts.reason == "long_context_tier" else facts.context_limit
        return CompressAndRestart(facts.reason, limit, facts.message)

    if facts.delivered_text and not facts.has_tool_calls:
        if facts.network_cut and chain.continuations < MAX_CONTINUATIONS:
            return ContinueStream(facts.message)
        return AcceptPartial(facts.message)

    if facts.reason in EAGER_FALLBACK and chain.has_fallback:
        return FallBack(facts.reason, facts.message)  # no key of this provider can take over (#11314)

    if not facts.retryable:
        if facts.should_fallback and chain.has_fallback:
            return FallBack(facts.reason, facts.message)
        hint = GUIDANCE.get(facts.reason, "")
        large = facts.request_tokens > LARGE_REQUEST_TOKENS or facts.message_count > LARGE_REQUEST_MESSAGES
        return Fail(
            facts.reason,
            f"{facts.provider} API error ({facts.reason}): {facts.message}" + (f" — {hint}" if hint else ""),
            skip_persist=facts.status_code == 400 and large,
        )

    attempt = retry_count + 1
    if attempt >= max_retries and chain.has_fallback:
        return FallBack("all_retries_exhausted", facts.message)
    if attempt >= max_retries:
        return Fail("all_retries_exhausted", f"API call failed after {max_retries} retries: {facts.message}")
    delay = facts.retry_after
    if delay is None:
        delay = jittered_backoff(attempt, backoff_base, MAX_BACKOFF_SECONDS, rng=rng)
    return Retry(delay, attempt, max_retries, facts.reason, facts.message)
