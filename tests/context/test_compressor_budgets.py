"""Thresholds, budgets, usage tracking and trigger decisions of ContextCompressor (§4.1, §11 1, 2, 17, 19)."""

from __future__ import annotations

import pytest

from hermes_tui.config import CompressionSettings
from hermes_tui.core.context import MINIMUM_CONTEXT_LENGTH, ContextCompressor
from hermes_tui.core.providers.base import Usage


def test_threshold_is_inclusive_and_floored() -> None:
    compressor = ContextCompressor(100_000, threshold_percent=0.85)
    assert compressor.threshold_tokens == 85_000
    assert compressor.should_compress(85_000) is True
    assert compressor.should_compress(84_999) is False
    assert compressor.should_compress(50_000) is False
    assert ContextCompressor(800_000, threshold_percent=0.05).threshold_tokens == MINIMUM_CONTEXT_LENGTH == 64_000


def test_defaults_match_hermes_settings() -> None:
    settings = CompressionSettings()
    compressor = ContextCompressor(200_000)
    assert compressor.configured_threshold_percent == settings.threshold
    assert ContextCompressor(1_000_000).threshold_percent == settings.threshold
    assert compressor.protect_first_n == settings.protect_first_n
    assert compressor.protect_last_n == settings.protect_last_n
    assert compressor.summary_target_ratio == settings.target_ratio


@pytest.mark.parametrize(
    ("context_length", "ratio", "tail_budget", "max_summary"),
    [(200_000, 0.40, 60_000, 10_000), (1_000_000, 0.40, 200_000, 10_000), (128_000, 0.20, 19_200, 6_400)],
)
def test_tail_and_summary_budgets(context_length: int, ratio: float, tail_budget: int, max_summary: int) -> None:
    compressor = ContextCompressor(context_length, summary_target_ratio=ratio)
    assert compressor.tail_token_budget == tail_budget
    assert compressor.max_summary_tokens == max_summary


def test_summary_ratio_is_clamped() -> None:
    assert ContextCompressor(200_000, summary_target_ratio=0.05).summary_target_ratio == 0.10
    assert ContextCompressor(200_000, summary_target_ratio=0.95).summary_target_ratio == 0.80


def test_update_model_shrinks_budgets() -> None:
    compressor = ContextCompressor(200_000)
    tail, summary = compressor.tail_token_budget, compressor.max_summary_tokens
    compressor.update_model(32_000)
    assert compressor.context_length == 32_000
    assert compressor.tail_token_budget < tail
    assert compressor.max_summary_tokens < summary
    assert compressor.threshold_tokens == 27_200  # 85 % of the window: the 64K floor would reach it


@pytest.mark.parametrize("bad", [0, -5, "200k", None])
def test_bad_context_length_is_a_clear_error(bad: object) -> None:
    with pytest.raises(ValueError, match="context_length must be a positive integer"):
        ContextCompressor(bad)  # type: ignore[arg-type]


def test_bad_threshold_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="threshold_percent"):
        ContextCompressor(200_000, threshold_percent=1.5)


def test_trigger_uses_prompt_tokens_only() -> None:
    """#12026: reasoning-heavy completions never trigger a compression."""
    compressor = ContextCompressor(200_000)  # threshold 150K
    compressor.update_from_response({"prompt_tokens": 40_000, "completion_tokens": 130_000})
    assert compressor.last_total_tokens == 170_000
    assert compressor.should_compress() is False
    compressor.update_from_response({"prompt_tokens": 160_000, "completion_tokens": 10})
    assert compressor.should_compress() is True


def test_in_loop_token_choice() -> None:
    compressor = ContextCompressor(200_000)
    assert compressor.tokens_for_in_loop_check(rough_request_tokens=123_456) == 123_456  # nothing reported
    compressor.update_from_response({"prompt_tokens": 40_000, "completion_tokens": 90_000})
    assert compressor.tokens_for_in_loop_check(rough_request_tokens=150_000) == 40_000
    compressor.note_compression_bookkeeping(30_000)
    assert compressor.tokens_for_in_loop_check(rough_request_tokens=150_000) == 0  # -1 sentinel


def test_usage_object_and_bucket_keys_are_accepted() -> None:
    compressor = ContextCompressor(200_000)
    compressor.update_from_response(Usage(prompt_tokens=5_000, completion_tokens=300, cache_read_tokens=4_000))
    assert (compressor.last_prompt_tokens, compressor.last_completion_tokens) == (5_000, 300)
    assert compressor.last_cache_read_tokens == 4_000
    compressor.update_from_response({"input_tokens": 100, "output_tokens": 7, "cache_read_tokens": 900})
    assert compressor.last_prompt_tokens == 1_000
    compressor.update_from_response({"prompt_tokens": None, "completion_tokens": "x"})
    assert compressor.last_prompt_tokens == 0


def test_bookkeeping_after_compression_and_budget_snapshot() -> None:
    compressor = ContextCompressor(200_000)
    compressor.update_from_response({"prompt_tokens": 160_000, "completion_tokens": 10, "cache_read_tokens": 9})
    shown = compressor.budget_snapshot(estimated_tokens=158_000)
    assert (shown.shown_tokens, shown.is_estimate, shown.cache_read_tokens) == (160_000, False, 9)

    compressor.note_compression_bookkeeping(30_000)
    assert compressor.last_prompt_tokens == -1
    assert compressor.awaiting_real_usage_after_compression is True
    after = compressor.budget_snapshot(estimated_tokens=31_000)
    assert (after.shown_tokens, after.is_estimate, after.reported_prompt_tokens) == (31_000, True, -1)
    assert after.threshold_tokens == 150_000 and after.context_length == 200_000

    compressor.update_from_response({"prompt_tokens": 33_000, "completion_tokens": 5})
    assert compressor.awaiting_real_usage_after_compression is False
    assert compressor.last_rough_tokens_when_real_prompt_fit == 30_000
    real = compressor.budget_snapshot(estimated_tokens=31_000)
    assert (real.shown_tokens, real.is_estimate) == (33_000, False)


class TestPreflightDeferral:
    def _fitted(self) -> ContextCompressor:
        compressor = ContextCompressor(200_000)  # threshold 150K, tolerance max(4096, 7500) = 7500
        compressor.note_compression_bookkeeping(151_000)
        compressor.update_from_response({"prompt_tokens": 60_000, "completion_tokens": 100})
        return compressor

    def test_defers_when_real_usage_fit_and_growth_is_small(self) -> None:
        compressor = self._fitted()
        assert compressor.should_defer_preflight_to_real_usage(157_000) is True
        assert compressor.last_rough_tokens_when_real_prompt_fit == 157_000  # baseline raised

    def test_compresses_when_growth_is_large(self) -> None:
        assert self._fitted().should_defer_preflight_to_real_usage(159_000) is False

    def test_no_deferral_under_threshold_or_without_a_fitting_report(self) -> None:
        assert self._fitted().should_defer_preflight_to_real_usage(140_000) is False
        fresh = ContextCompressor(200_000)
        assert fresh.should_defer_preflight_to_real_usage(157_000) is False
        too_big = self._fitted()
        too_big.update_from_response({"prompt_tokens": 180_000})
        assert too_big.should_defer_preflight_to_real_usage(157_000) is False

    def test_defers_once_right_after_a_compression_until_real_usage_comes(self) -> None:
        compressor = ContextCompressor(200_000)
        compressor.update_from_response({"prompt_tokens": 170_000})  # stale: the size that triggered it
        compressor.note_compression_bookkeeping(40_000)
        assert compressor.should_defer_preflight_to_real_usage(160_000) is True
        compressor.update_from_response({"prompt_tokens": 165_000})
        assert compressor.should_defer_preflight_to_real_usage(175_000) is False


def test_reset_session_state_forgets_counts_and_usage() -> None:
    compressor = ContextCompressor(200_000)
    compressor.update_from_response({"prompt_tokens": 150_000})
    compressor.compression_count = 3
    compressor.ineffective_compression_count = 2
    compressor.previous_summary = "old"
    compressor.reset_session_state()
    assert compressor.last_prompt_tokens == 0
    assert compressor.compression_count == 0
    assert compressor.ineffective_compression_count == 0
    assert compressor.previous_summary is None
    assert compressor.should_compress(150_000) is True
