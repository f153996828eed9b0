"""`ContextScreen`: what fills the context window (/context, F7, Enter or a click on the gauge).

A heading (used of the window, how the count was made, where compression starts), one row per
category with its tokens, its share of the window and a bar (`core.context_report`: system
prompt, tool schemas, memory, skills, conversation … and free), then a table of the heaviest
messages and tool results — and every pinned one — with their reference (#turn.position, as /pin
takes it), who sent them, their tokens and a preview; 📌 marks the pinned. Enter on a row closes the
screen with that message's position in Agent.messages (the app scrolls the conversation to it);
p pins or unpins it through `toggle_pin` (the agent's pins API); the screen reads the report afresh
whenever the app says the pins changed (`reload`). Esc closes it.
The screen is handed a loader and the pin call, so it never holds the agent itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from hermes_tui.widgets.formatting import format_tokens

if TYPE_CHECKING:
    from hermes_tui.core.context_report import ContextReport, MessageWeight

BAR_WIDTH = 30
PIN_MARK = "📌"


def category_lines(report: ContextReport) -> Text:
    """One line per category: label, tokens, share of the window, a bar of that share."""
    window = report.context_length or 1
    width = max(len(category.label) for category in report.categories)
    text = Text()
    for category in report.categories:
        share = category.tokens / window
        cells = min(BAR_WIDTH, round(share * BAR_WIDTH))
        text.append(f"{category.label:<{width}}  {category.tokens:>9,}  {share * 100:5.1f}%  ")
        text.append("█" * cells, style="dim" if category.key == "free" else "bold")
        text.append("░" * (BAR_WIDTH - cells) + "\n", style="dim")
    return text


def heading(report: ContextReport) -> str:
    how = "reported by the provider" if report.reported else "estimated"
    line = (
        f"Context: {format_tokens(report.used_tokens)} of {format_tokens(report.context_length)} tokens ({how})"
        f" · compression at {format_tokens(report.threshold_tokens)} · {report.message_count} messages"
    )
    if not report.prompt_built:
        line += " · no message yet: the prompt shown is the one the first message builds"
    return line


def listed_messages(report: ContextReport) -> list[MessageWeight]:
    """The heaviest messages, then the pinned ones not among them."""
    heaviest = list(report.heaviest)
    shown = {weight.index for weight in heaviest}
    return heaviest + [weight for weight in report.pinned if weight.index not in shown]


class ContextScreen(Screen[int | None]):
    """The context window's breakdown; dismissed with the position of a message to jump to (or None)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="close-context"),
        Binding("enter", "jump", "Show the message in the conversation", id="context-jump"),
        Binding("p", "toggle_pin", "Pin / unpin (the next compression keeps it verbatim)", id="context-pin"),
    ]

    def __init__(
        self,
        load: Callable[[], Awaitable[ContextReport]],
        toggle_pin: Callable[[MessageWeight], Awaitable[str]],
    ) -> None:
        """`load` reads the live report; `toggle_pin(weight)` pins or unpins that message and says what it did."""
        super().__init__(classes="context-screen")
        self._load = load
        self._toggle_pin = toggle_pin
        self.report: ContextReport | None = None
        self.rows: list[MessageWeight] = []

    def compose(self) -> ComposeResult:
        yield Static("Reading the context…", markup=False, id="context-heading")
        yield Static("", id="context-categories")
        yield Static("Heaviest messages (Enter: show it · p: pin / unpin)", markup=False, id="context-table-title")
        table: DataTable[str] = DataTable(id="context-messages", cursor_type="row", zebra_stripes=True)
        table.add_columns("ref", "who", "tokens", "preview", "")
        yield table
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self.reload()

    @property
    def table(self) -> DataTable[str]:
        return self.query_one("#context-messages", DataTable)

    def reload(self) -> None:
        """Read the report again (after a pin, or when the app says the pins changed)."""
        self.run_worker(self._fill(), group="context-report", exclusive=True)

    async def _fill(self) -> None:
        report = await self._load()
        self.report = report
        self.query_one("#context-heading", Static).update(heading(report))
        self.query_one("#context-categories", Static).update(category_lines(report))
        table = self.table
        row = table.cursor_row
        table.clear()
        self.rows = listed_messages(report)
        for weight in self.rows:
            who = weight.role + (f" {weight.tool_name}" if weight.tool_name else "")
            cells = (weight.ref, who[:28], f"{weight.tokens:,}", weight.preview, PIN_MARK if weight.pinned else "")
            table.add_row(*(Text(cell) for cell in cells))  # the user's text, never markup
        if self.rows:
            table.move_cursor(row=min(row, len(self.rows) - 1))

    def _chosen(self) -> MessageWeight | None:
        if not self.rows:
            return None
        return self.rows[min(max(self.table.cursor_row, 0), len(self.rows) - 1)]

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_jump()

    def action_jump(self) -> None:
        chosen = self._chosen()
        if chosen is not None:
            self.dismiss(chosen.index)

    def action_toggle_pin(self) -> None:
        chosen = self._chosen()
        if chosen is not None:
            self.run_worker(self._pin(chosen), group="context-pin")

    async def _pin(self, weight: MessageWeight) -> None:
        self.notify(await self._toggle_pin(weight))  # the app's PinsChanged handler then calls `reload`

    def action_close(self) -> None:
        self.dismiss(None)
