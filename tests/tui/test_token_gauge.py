"""TokenGauge: usage text, estimate marking, the threshold mark on the bar, colour bands, notices."""

from __future__ import annotations

import pytest

from hermes_tui.widgets.formatting import format_tokens
from hermes_tui.widgets.token_gauge import THRESHOLD_MARK, TokenGauge

from .helpers import HostApp
from .sample_data import budget


def gauge_host(width: int = 60) -> HostApp:
    app = HostApp(lambda: [TokenGauge(id="gauge")])
    app.CSS = f"#gauge {{ width: {width}; }}"
    return app


def rendered_lines(gauge: TokenGauge) -> list[str]:
    """The gauge's content as shown inside its border, one string per line."""
    console = gauge.app.console
    options = console.options.update(width=gauge.content_size.width)
    lines = console.render_lines(gauge.render(), options, pad=False)
    return ["".join(segment.text for segment in line) for line in lines]


async def test_usage_line_shows_used_threshold_window_and_percent() -> None:
    app = gauge_host()
    async with app.run_test() as pilot:
        gauge = app.query_one(TokenGauge)
        gauge.budget = budget(41_200)
        await pilot.pause()
        lines = [line.rstrip() for line in rendered_lines(gauge)]
        assert "used 41.2K / threshold 64.0K / window 128K (32%)" in lines
        assert not gauge.has_class("-estimate")


async def test_an_estimate_is_marked_as_such() -> None:
    app = gauge_host()
    async with app.run_test() as pilot:
        gauge = app.query_one(TokenGauge)
        gauge.budget = budget(41_200, estimate=True)
        await pilot.pause()
        text = "\n".join(rendered_lines(gauge))
        assert "used ~41.2K / threshold 64.0K / window 128K (32%) (estimate)" in " ".join(text.split())
        assert gauge.has_class("-estimate")


@pytest.mark.parametrize(("threshold", "window", "width"), [(64_000, 128_000, 40), (150_000, 200_000, 50)])
async def test_the_threshold_mark_sits_at_threshold_over_window_of_the_bar(
    threshold: int, window: int, width: int
) -> None:
    app = gauge_host(width + 4)  # the gauge's own border and padding take 4 columns
    async with app.run_test() as pilot:
        gauge = app.query_one(TokenGauge)
        gauge.budget = budget(10_000, threshold=threshold, window=window)
        await pilot.pause()
        bar = rendered_lines(gauge)[0]
        assert len(bar) == width
        assert bar.count(THRESHOLD_MARK) == 1
        assert bar.index(THRESHOLD_MARK) == round(threshold / window * width)


async def test_the_bar_fills_with_usage_and_changes_colour_by_band() -> None:
    app = gauge_host(44)
    async with app.run_test() as pilot:
        gauge = app.query_one(TokenGauge)
        seen: dict[str, object] = {}
        for shown, band in ((20_000, "ok"), (60_000, "warn"), (90_000, "over")):
            gauge.budget = budget(shown)
            await pilot.pause()
            assert gauge.has_class(f"-{band}")
            bar = gauge.bar_text(gauge.budget, 40)
            assert bar.plain[:1] == "█"
            assert bar.plain.count("█") == round(shown / 128_000 * 40) - (1 if shown > 64_000 else 0)
            seen[band] = bar.get_style_at_offset(app.console, 0).color
        assert len(set(seen.values())) == 3


async def test_cache_compressions_and_notices_are_listed() -> None:
    app = gauge_host(70)
    async with app.run_test() as pilot:
        gauge = app.query_one(TokenGauge)
        gauge.budget = budget(
            50_000,
            cache_read_tokens=12_000,
            cache_write_tokens=2_500,
            compression_count=3,
            ineffective_compressions=2,
            window_is_default=True,
        )
        await pilot.pause()
        lines = [line.rstrip() for line in rendered_lines(gauge)]
        assert "cache read 12.0K · write 2.5K" in lines
        assert "🗜 3 compressions" in lines
        assert "⏸ auto-compression paused (2 ineffective in a row)" in lines
        assert "(default window)" in lines
        gauge.budget = budget(50_000, compression_enabled=False)
        await pilot.pause()
        lines = [line.rstrip() for line in rendered_lines(gauge)]
        assert "auto-compression disabled" in lines
        assert not any("cache" in line or "🗜" in line for line in lines)


async def test_before_any_usage_the_gauge_says_so() -> None:
    app = gauge_host()
    async with app.run_test() as pilot:
        gauge = app.query_one(TokenGauge)
        await pilot.pause()
        assert rendered_lines(gauge)[0].startswith("no usage yet")


def test_token_counts_are_compact() -> None:
    assert [format_tokens(n) for n in (0, 950, 41_200, 64_000, 128_000, 1_000_000, 1_500_000)] == [
        "0",
        "950",
        "41.2K",
        "64.0K",
        "128K",
        "1M",
        "1.5M",
    ]
