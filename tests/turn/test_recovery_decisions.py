"""recovery.decide on its own: one failed call's facts -> what the retry loop does (reference §6.1)."""

from __future__ import annotations

import random

import pytest

from hermes_tui.core.turn import recovery
from hermes_tui.core.turn.recovery import (
    AcceptPartial,
    CompressAndRestart,
    ErrorFacts,
    Fail,
    LowerOutputBudget,
    Retry,
    decide,
)


def facts(**overrides: object) -> ErrorFacts:
    base = {"reason": "server_error", "message": "boom", "retryable": True, "provider": "openai"}
    return ErrorFacts(**{**base, **overrides})  # type: ignore[arg-type]


def run(f: ErrorFacts, *, retry_count: int = 0, compression_attempts: int = 0) -> recovery.Decision:
    return decide(
        f,
        retry_count=retry_count,
        max_retries=3,
        compression_attempts=compression_attempts,
        backoff_base=2.0,
        rng=random.Random(7),
    )


def test_a_retryable_error_backs_off_with_jitter_until_the_budget_is_spent() -> None:
    first = run(facts())
    assert isinstance(first, Retry) and first.attempt == 1 and 2.0 <= first.delay <= 3.0
    second = run(facts(), retry_count=1)
    assert isinstance(second, Retry) and 4.0 <= second.delay <= 6.0
    last = run(facts(), retry_count=2)
    assert isinstance(last, Fail) and last.exit_reason == "all_retries_exhausted" and "after 3 retries" in last.error


def test_rate_limit_advice_replaces_the_backoff() -> None:
    decision = run(facts(reason="rate_limit", retry_after=7.5))
    assert isinstance(decision, Retry) and decision.delay == 7.5


def test_fatal_classes_fail_at_once_with_guidance() -> None:
    decision = run(facts(reason="auth", retryable=False, status_code=401, message="invalid key"))
    assert isinstance(decision, Fail) and decision.exit_reason == "auth"
    assert decision.error == "openai API error (auth): invalid key — check the API key for this provider"
    assert not decision.skip_persist


@pytest.mark.parametrize(("tokens", "count", "skip"), [(60_000, 10, True), (1_000, 81, True), (1_000, 10, False)])
def test_a_400_on_a_large_request_does_not_grow_the_session(tokens: int, count: int, skip: bool) -> None:
    decision = run(
        facts(reason="format_error", retryable=False, status_code=400, request_tokens=tokens, message_count=count)
    )
    assert isinstance(decision, Fail) and decision.skip_persist is skip


def test_overflow_lowers_the_output_budget_when_the_provider_names_it() -> None:
    decision = run(facts(reason="context_overflow", should_compress=True, available_output_tokens=1_000))
    assert decision == LowerOutputBudget(936)


def test_overflow_compresses_with_the_named_window_and_stops_after_three_attempts() -> None:
    decision = run(facts(reason="context_overflow", should_compress=True, context_limit=100_000, message="too long"))
    assert decision == CompressAndRestart("context_overflow", 100_000, "too long")
    exhausted = run(facts(reason="payload_too_large", should_compress=True), compression_attempts=3)
    assert isinstance(exhausted, Fail) and exhausted.exit_reason == "compression_exhausted"


def test_an_unshrinkable_413_names_the_size_not_the_context() -> None:
    assert "too large" in CompressAndRestart("payload_too_large", None, "HTTP 413").cannot_compress()
    assert "Context length exceeded" in CompressAndRestart("context_overflow").cannot_compress()


def test_delivered_text_is_kept_unless_tool_calls_were_in_flight() -> None:
    assert run(facts(delivered_text=True, message="no data for 30 s")) == AcceptPartial("no data for 30 s")
    assert isinstance(run(facts(delivered_text=True, has_tool_calls=True)), Retry)
