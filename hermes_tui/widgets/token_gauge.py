"""`TokenGauge`: how full the context window is, with the compression threshold drawn on the bar.

A width-aware bar of used/window with a mark ("│") at threshold/window, coloured by band (green
below 80 % of the threshold, yellow up to the threshold, red above), then text lines:
"used 41.2K / threshold 64.0K / window 128K (32%)" ("~" and "(estimate)" when the count is an
estimate), cache read/write, "🗜 N" compressions, and notices when automatic compression is paused
(two ineffective compressions in a row) or disabled, or when the window is a default guess.

The look ahead (`ContextBudget.outlook`, computed in the core): turns left before the threshold at
the recent growth rate, the last call's cache hit rate, the session's tokens and cost ("cost
unknown" for a model without a price), and a sparkline of the context size at the end of each
turn — across compressions, the turn after one drawn in the compression colour — scaled to the
threshold, so a full block means "at the threshold". The app sets `lineage_compressions` and
`history` (the lineage's earlier turns, read from the database by `ui.lineage_history`): the count
and the sparkline then cover the whole lineage, not only this run.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widget import Widget

from hermes_tui.widgets.formatting import format_tokens

if TYPE_CHECKING:  # (the core's events are loaded with the core, after the first frame)
    from hermes_tui.core.events import ContextBudget, ContextOutlook

BAR_FILLED = "█"
BAR_EMPTY = "░"
THRESHOLD_MARK = "│"
WARN_FRACTION = 0.8  # of the threshold: where the bar turns from green to yellow
PAUSED_AFTER_INEFFECTIVE = 2
SPARK = "▁▂▃▄▅▆▇█"


def band(budget: ContextBudget) -> str:
    """The colour band: "ok" below 80 % of the threshold, "warn" up to it, "over" above it."""
    threshold = budget.threshold_tokens
    if threshold <= 0:
        return "ok"
    if budget.shown_tokens < threshold * WARN_FRACTION:
        return "ok"
    if budget.shown_tokens <= threshold:
        return "warn"
    return "over"


def threshold_column(budget: ContextBudget, width: int) -> int | None:
    """The bar cell of the threshold mark (None without a window or threshold)."""
    if width <= 0 or budget.context_length <= 0 or budget.threshold_tokens <= 0:
        return None
    column = round(budget.threshold_tokens / budget.context_length * width)
    return max(0, min(width - 1, column))


def filled_cells(budget: ContextBudget, width: int) -> int:
    if width <= 0 or budget.context_length <= 0:
        return 0
    return max(0, min(width, round(budget.shown_tokens / budget.context_length * width)))


def usage_line(budget: ContextBudget) -> str:
    """The usage line, e.g. "used 41.2K / threshold 64.0K / window 128K (32%)"; marked when estimated."""
    approx = "~" if budget.is_estimate else ""
    percent = round(budget.shown_tokens / budget.context_length * 100) if budget.context_length > 0 else 0
    line = (
        f"used {approx}{format_tokens(budget.shown_tokens)} / threshold {format_tokens(budget.threshold_tokens)}"
        f" / window {format_tokens(budget.context_length)} ({percent}%)"
    )
    return f"{line} (estimate)" if budget.is_estimate else line


def detail_lines(budget: ContextBudget, lineage_compressions: int = 0) -> list[tuple[str, str]]:
    """(text, component) lines under the usage line; the compressions counted over the lineage when
    that count (read from the database) is known and not behind the core's own."""
    lines: list[tuple[str, str]] = []
    if budget.cache_read_tokens or budget.cache_write_tokens:
        lines.append(
            (
                f"cache read {format_tokens(budget.cache_read_tokens)}"
                f" · write {format_tokens(budget.cache_write_tokens)}",
                "token-gauge--dim",
            )
        )
    compressions = max(budget.compression_count, lineage_compressions)
    if compressions:
        noun = "compression" if compressions == 1 else "compressions"
        lines.append((f"🗜 {compressions} {noun}", "token-gauge--dim"))
    if not budget.compression_enabled:
        lines.append(("auto-compression disabled", "token-gauge--notice"))
    elif budget.ineffective_compressions >= PAUSED_AFTER_INEFFECTIVE:
        lines.append(
            (
                f"⏸ auto-compression paused ({budget.ineffective_compressions} ineffective in a row)",
                "token-gauge--notice",
            )
        )
    if budget.window_is_default:
        lines.append(("(default window)", "token-gauge--dim"))
    return lines


def outlook_lines(outlook: ContextOutlook) -> list[str]:
    """The look-ahead lines: turns left, cache hits, the session's tokens and cost."""
    if outlook.turns_left is None:
        ahead = "turns left: — (growth not measured yet)"
    elif outlook.turns_left == 0:
        ahead = "at the threshold: compression is next"
    else:
        noun = "turn" if outlook.turns_left == 1 else "turns"
        ahead = f"≈{outlook.turns_left} {noun} to threshold (+{format_tokens(outlook.growth_per_turn)}/turn)"
    lines = [ahead]
    if outlook.cache_hit_rate is not None:
        lines.append(f"cache hit {outlook.cache_hit_rate:.0%} (last call)")
    cost = "cost unknown" if outlook.session_cost_usd is None else f"${outlook.session_cost_usd:,.4f}"
    lines.append(
        f"session {format_tokens(outlook.session_input_tokens)} in · "
        f"{format_tokens(outlook.session_output_tokens)} out · {cost}"
    )
    return lines


def spark_cells(outlook: ContextOutlook, top: int, width: int) -> list[tuple[str, bool]]:
    """(block, follows a compression) for the newest `width` turns, scaled so a full block is `top`."""
    sizes = outlook.sizes[-width:] if width > 0 else ()
    offset = len(outlook.sizes) - len(sizes)
    marked = {index - offset for index in outlook.compressed_before}
    peak = max(top, max(sizes, default=0), 1)
    return [
        (SPARK[min(len(SPARK) - 1, round(size / peak * (len(SPARK) - 1)))], index in marked)
        for index, size in enumerate(sizes)
    ]


def with_history(outlook: ContextOutlook, history: tuple[tuple[int, bool], ...]) -> ContextOutlook:
    """The outlook with the lineage's earlier turns (size, after a compression) before this run's."""
    if not history:
        return outlook
    offset = len(history)
    marks = [index for index, (_size, compressed) in enumerate(history) if compressed]
    return replace(
        outlook,
        sizes=(*(size for size, _ in history), *outlook.sizes),
        compressed_before=(*marks, *(index + offset for index in outlook.compressed_before)),
    )


class TokenGauge(Widget, can_focus=True):
    """The context budget as a bar with the compression threshold marked on it; Enter or a click opens
    the context breakdown (the app's `open_context` action)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "app.open_context", "What fills the context", id="gauge-context"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "token-gauge--ok",
        "token-gauge--warn",
        "token-gauge--over",
        "token-gauge--empty",
        "token-gauge--threshold",
        "token-gauge--dim",
        "token-gauge--notice",
        "token-gauge--spark",
        "token-gauge--compressed",
    }

    budget: reactive[ContextBudget | None] = reactive(None, layout=True)
    lineage_compressions: reactive[int] = reactive(0, layout=True)  # every compression of the lineage (from the DB)
    history: reactive[tuple[tuple[int, bool], ...]] = reactive((), layout=True)  # earlier turns' sizes (from the DB)

    async def on_click(self) -> None:
        await self.run_action("app.open_context")

    def watch_budget(self, budget: ContextBudget | None) -> None:
        self.set_class(budget is not None and budget.is_estimate, "-estimate")
        for name in ("ok", "warn", "over"):
            self.set_class(budget is not None and band(budget) == name, f"-{name}")

    def _style(self, component: str) -> Style:
        return self.get_component_rich_style(component, partial=True)

    def bar_text(self, budget: ContextBudget, width: int) -> Text:
        """The bar, `width` cells wide, with the threshold mark drawn on it."""
        filled = filled_cells(budget, width)
        mark = threshold_column(budget, width)
        fill_style = self._style(f"token-gauge--{band(budget)}")
        empty_style = self._style("token-gauge--empty")
        mark_style = self._style("token-gauge--threshold")
        bar = Text(no_wrap=True, overflow="crop")
        for cell in range(width):
            if cell == mark:
                # drawn over the fill: the mark keeps the fill colour as its background
                under = Style(bgcolor=fill_style.color) if cell < filled else Style()
                bar.append(THRESHOLD_MARK, under + mark_style)
            elif cell < filled:
                bar.append(BAR_FILLED, fill_style)
            else:
                bar.append(BAR_EMPTY, empty_style)
        return bar

    def render(self) -> RenderableType:
        budget = self.budget
        width = self.content_size.width
        if budget is None:
            return Text("no usage yet — the gauge fills after the first reply", self._style("token-gauge--dim"))
        lines: list[RenderableType] = [self.bar_text(budget, width)]
        lines.append(Text(usage_line(budget)))
        details = detail_lines(budget, self.lineage_compressions)
        lines.extend(Text(text, self._style(component)) for text, component in details)
        if budget.outlook is not None:
            lines.extend(Text(text, self._style("token-gauge--dim")) for text in outlook_lines(budget.outlook))
            outlook = with_history(budget.outlook, self.history)
            if outlook.sizes:
                lines.append(self.spark_text(outlook, budget.threshold_tokens, width))
        return Group(*lines)

    def spark_text(self, outlook: ContextOutlook, top: int, width: int) -> Text:
        """Context size per turn, newest on the right; the turn after a compression in its own colour."""
        spark = Text(no_wrap=True, overflow="crop")
        normal, compressed = self._style("token-gauge--spark"), self._style("token-gauge--compressed")
        for block, after_compression in spark_cells(outlook, top, width):
            spark.append(block, compressed if after_compression else normal)
        return spark
