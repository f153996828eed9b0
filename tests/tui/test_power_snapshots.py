"""SVG snapshots of the power-user pieces: the gauge's look ahead, the compress preview, the queue line.

Generate baselines with `pytest tests/tui/test_power_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.pilot import Pilot

from hermes_tui.core.events import ContextOutlook
from hermes_tui.core.session.compression_check import CompressionPreview
from hermes_tui.screens.compress_preview import CompressPreviewScreen
from hermes_tui.screens.main import STYLES_PATH
from hermes_tui.widgets.queue_line import QueueLine
from hermes_tui.widgets.token_gauge import TokenGauge, outlook_lines, spark_cells

from .helpers import wait_until
from .sample_data import budget

SIZES = (8_000, 14_000, 22_000, 31_000, 44_000, 58_000, 12_000, 19_000, 27_000, 36_000)
GROWING = ContextOutlook(
    turns_left=3,
    growth_per_turn=8_500,
    cache_hit_rate=0.82,
    session_input_tokens=412_000,
    session_output_tokens=9_300,
    session_cost_usd=0.0721,
    sizes=SIZES,
    compressed_before=(6,),
)
UNKNOWN = ContextOutlook(session_input_tokens=1_200, session_output_tokens=40, sizes=(1_200,))


class OutlookGaugeApp(App[Any]):
    CSS_PATH = STYLES_PATH
    CSS = "TokenGauge { border: round $primary 40%; padding: 0 1; height: auto; width: 44; }"

    def compose(self) -> ComposeResult:
        yield TokenGauge(id="gauge-growing")
        yield TokenGauge(id="gauge-unknown")

    def on_mount(self) -> None:
        self.query_one("#gauge-growing").border_title = "Context"
        self.query_one("#gauge-unknown").border_title = "Context (unknown model)"
        self.query_one("#gauge-growing", TokenGauge).budget = budget(
            36_000, cache_read_tokens=30_000, compression_count=1, outlook=GROWING
        )
        self.query_one("#gauge-unknown", TokenGauge).budget = budget(
            1_200, estimate=True, window_is_default=True, outlook=UNKNOWN
        )


def test_gauge_looks_ahead(snap_compare: Any) -> None:
    assert snap_compare(OutlookGaugeApp(), terminal_size=(50, 22))


def test_outlook_lines_say_turns_left_cache_hits_tokens_and_cost() -> None:
    assert outlook_lines(GROWING) == [
        "≈3 turns to threshold (+8.5K/turn)",
        "cache hit 82% (last call)",
        "session 412K in · 9.3K out · $0.0721",
    ]
    assert outlook_lines(UNKNOWN) == [
        "turns left: — (growth not measured yet)",
        "session 1.2K in · 40 out · cost unknown",
    ]
    at_threshold = ContextOutlook(turns_left=0, session_cost_usd=0.0)
    assert outlook_lines(at_threshold)[0] == "at the threshold: compression is next"


def test_sparkline_scales_to_the_threshold_and_marks_the_turn_after_a_compression() -> None:
    cells = spark_cells(GROWING, top=64_000, width=40)
    assert [block for block, _ in cells] == list("▂▃▃▄▆▇▂▃▄▅")
    assert [i for i, (_, marked) in enumerate(cells) if marked] == [6]
    newest = spark_cells(GROWING, top=64_000, width=3)  # only the newest turns that fit
    assert [block for block, _ in newest] == list("▃▄▅") and not any(marked for _, marked in newest)


PREVIEW = CompressionPreview(
    messages_total=48,
    tokens_before=71_400,
    focus_topic="the login flow",
    head_count=3,
    summarised_count=37,
    tail_count=8,
    pruned_count=5,
    summary_tokens=2_300,
    summary_budget=8_000,
    tokens_after=14_900,
    head=("user: refactor auth.py to issue JWTs", "assistant: (calls 1 tool(s))", "tool: 1|import jwt …"),
    summarised=("assistant: Reading `auth.py`.", "… 35 more message(s) …", "user: now the refresh tokens"),
    tail=("assistant: Done: refresh tokens rotate.", "user: [b]markup stays text[/b]"),
)


class PreviewApp(App[Any]):
    CSS_PATH = STYLES_PATH

    def on_mount(self) -> None:
        self.push_screen(CompressPreviewScreen(PREVIEW))


def test_compress_preview_screen(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, CompressPreviewScreen), what="the preview")

    assert snap_compare(PreviewApp(), terminal_size=(100, 30), run_before=run_before)


class QueueLineApp(App[Any]):
    CSS_PATH = STYLES_PATH
    AUTO_FOCUS = None  # the line as it shows under the prompt (the prompt has the focus)

    def compose(self) -> ComposeResult:
        yield QueueLine(id="queue-line")

    def on_mount(self) -> None:
        self.query_one(QueueLine).show(("run the tests again", "then [b]commit[/b]"), ("use pytest -x",), False)


def test_queue_line(snap_compare: Any) -> None:
    assert snap_compare(QueueLineApp(), terminal_size=(110, 3))
