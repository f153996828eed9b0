"""When automatic compression fires, for 32K to 1M windows (Hermes's rule, a7ef17da7): 75 % of the
input budget under 512K, the 64K floor above, 85 % when that floor would reach the budget."""

from __future__ import annotations

import pytest

from hermes_tui.core.context import ContextCompressor

# (window, max output tokens reserved, threshold, tail budget at the default 20 % target ratio)
TABLE = [
    (32_768, None, 27_852, 5_570),  # the 64K floor would exceed the window: 85 % of it
    (32_768, 8_192, 20_889, 4_177),  # ...of the input budget, 32K minus the output reserved
    (64_000, None, 54_400, 10_880),
    (64_000, 4_096, 50_918, 10_183),
    (65_536, None, 64_000, 12_800),  # 75 % is 49K: floored at 64K, which still fits
    (128_000, None, 96_000, 19_200),
    (128_000, 4_096, 92_928, 18_585),
    (200_000, 4_096, 146_928, 29_385),
    (262_144, None, 196_608, 39_321),
    (400_000, 32_000, 276_000, 55_200),
    (512_000, None, 256_000, 51_200),  # 512K and up keep the configured 50 %
    (1_000_000, 4_096, 497_952, 99_590),
    (1_048_576, None, 524_288, 104_857),
]


@pytest.mark.parametrize(("window", "max_output", "threshold", "tail"), TABLE)
def test_threshold_table(window: int, max_output: int | None, threshold: int, tail: int) -> None:
    compressor = ContextCompressor(window, max_output_tokens=max_output)
    assert compressor.threshold_tokens == threshold
    assert compressor.tail_token_budget == tail
    assert compressor.threshold_tokens < window - (max_output or 0)  # it can always fire before a refusal


def test_small_local_models_compress_before_the_window_is_full() -> None:
    for window in (32_768, 64_000):
        compressor = ContextCompressor(window, max_output_tokens=4_096)
        below_window = window - 4_096 - 1
        assert compressor.should_compress(below_window) is True


def test_a_higher_configured_percentage_wins_and_a_switch_rederives_it() -> None:
    assert ContextCompressor(200_000, threshold_percent=0.9).threshold_tokens == 180_000
    compressor = ContextCompressor(1_000_000)
    assert compressor.threshold_percent == 0.5
    compressor.update_model(128_000)
    assert (compressor.threshold_percent, compressor.threshold_tokens) == (0.75, 96_000)
    compressor.update_model(1_000_000, max_output_tokens=10_000)
    assert (compressor.threshold_percent, compressor.threshold_tokens) == (0.5, 495_000)
