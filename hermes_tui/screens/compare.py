"""`CompareScreen`: two sessions side by side — shared history in one line, then turn by turn.

The data comes from `core.branch_compare` (loaded in a worker): the shared prefix collapsed to
one line saying where the histories diverged, then one row per pair of turns, A on the left and
B on the right, each with its turn number, message count and rough tokens, the user's message and
the answer (one line each). Rows come a page at a time (the last row loads more). Enter on a row
shows both turns in full; Esc closes. Titles and message text are untrusted: sanitised, no markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from hermes_tui.core.branch_compare import (
    CompareError,
    LoadedComparison,
    SessionSide,
    Turn,
    TurnPair,
    load_comparison,
    preview,
    shared_line,
)
from hermes_tui.core.messages import content_text
from hermes_tui.screens.registry import screen_class
from hermes_tui.text_safety import visible
from hermes_tui.widgets.formatting import short_session_id

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

PAGE = 100
MORE_ID = "more"
HINT = "↓↑ turns · Enter shows both turns in full · Esc closes"


def side_label(letter: str, side: SessionSide, count: int, turns: int, tokens: int) -> Text:
    title = visible(side.title) if side.title else "(untitled)"
    label = Text(f"{letter}  ", style="bold")
    label.append(title, "bold")
    label.append(
        f"  {short_session_id(side.id)} · {count} messages · continues with {turns}"
        f" turn{'s' if turns != 1 else ''}, ~{tokens:,} tokens",
        "dim",
    )
    return label


def turn_cell(turn: Turn | None) -> Text:
    """What one side of a row shows (a few single lines)."""
    if turn is None:
        return Text("(no turn)", style="dim italic")
    label = f"continues turn {turn.number}" if turn.partial else f"turn {turn.number}"
    lines = [Text(f"{label} · {len(turn.messages)} msgs · ~{turn.tokens:,} tokens", style="bold")]
    if turn.user_text:
        lines.append(Text(f"user: {visible(preview(turn.user_text))}", no_wrap=True, overflow="ellipsis"))
    if turn.tool_calls:
        lines.append(Text(f"{turn.tool_calls} tool call{'s' if turn.tool_calls != 1 else ''}", style="dim"))
    if turn.answer_text:
        lines.append(Text(f"assistant: {visible(preview(turn.answer_text))}", no_wrap=True, overflow="ellipsis"))
    return Text("\n").join(lines)


def pair_row(pair: TurnPair) -> Table:
    table = Table.grid(expand=True, padding=(0, 2))
    table.add_column(ratio=1)
    table.add_column(ratio=1)
    table.add_row(turn_cell(pair.left), turn_cell(pair.right))
    return table


def full_turns_text(pair: TurnPair) -> str:
    """Both turns of a row, every message in full (for the text viewer)."""
    parts: list[str] = []
    for letter, turn in (("A", pair.left), ("B", pair.right)):
        parts.append(f"===== {letter} =====")
        if turn is None:
            parts.append("(no turn)")
            continue
        for message in turn.messages:
            role = message.get("role")
            text = content_text(message.get("content"))
            calls = message.get("tool_calls") or []
            names = ", ".join(str((c.get("function") or {}).get("name", "tool")) for c in calls if isinstance(c, dict))
            parts.append(f"--- {role}" + (f" (calls {names})" if names else ""))
            parts.append(text or "(no text)")
    return "\n".join(parts)


class CompareScreen(ModalScreen[None]):
    """Two sessions compared turn by turn."""

    AUTO_FOCUS = "#compare-turns"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close", id="compare-close")]

    def __init__(self, db: SessionDB, left_id: str, right_id: str) -> None:
        super().__init__()
        self.db = db
        self.left_id = left_id
        self.right_id = right_id
        self.loaded: LoadedComparison | None = None
        self.error = ""
        self._shown = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="compare-dialog") as dialog:
            dialog.border_title = "Compare sessions"
            yield Label("Loading both sessions…", id="compare-left")
            yield Label(id="compare-right")
            yield Label(id="compare-shared")
            yield OptionList(id="compare-turns")
            yield Label(HINT, id="compare-hint")

    def on_mount(self) -> None:
        self.run_worker(self._load(), group="compare", exclusive=True)

    async def _load(self) -> None:
        try:
            loaded = await load_comparison(self.db, self.left_id, self.right_id)
        except CompareError as exc:
            self.error = str(exc)
            self.query_one("#compare-left", Label).update(Text(visible(self.error), style="bold red"))
            return
        self.loaded = loaded
        c = loaded.comparison
        self.query_one("#compare-left", Label).update(
            side_label("A", loaded.left, c.left_count, c.left_turns, c.left_tokens)
        )
        self.query_one("#compare-right", Label).update(
            side_label("B", loaded.right, c.right_count, c.right_turns, c.right_tokens)
        )
        shared = shared_line(loaded)
        if c.identical:
            shared += " — the two histories are identical."
        self.query_one("#compare-shared", Label).update(Text(shared))
        self._show_more()

    @property
    def turns_list(self) -> OptionList:
        return self.query_one("#compare-turns", OptionList)

    def _show_more(self) -> None:
        if self.loaded is None:
            return
        pairs = self.loaded.comparison.pairs
        turns = self.turns_list
        if self._shown and turns.option_count and turns.get_option_at_index(turns.option_count - 1).id == MORE_ID:
            turns.remove_option_at_index(turns.option_count - 1)
        start, self._shown = self._shown, min(len(pairs), self._shown + PAGE)
        options: list[Option | None] = []
        for pair in pairs[start : self._shown]:
            options.extend((Option(pair_row(pair), id=f"pair-{pair.index}"), None))
        if self._shown < len(pairs):
            left = len(pairs) - self._shown
            options.append(Option(Text(f"… {left} more turn pairs — Enter shows {min(PAGE, left)} more"), id=MORE_ID))
        elif options:
            options.pop()  # no separator after the last row
        turns.add_options(options)
        if start == 0 and turns.option_count:
            turns.highlighted = 0

    @on(OptionList.OptionSelected, "#compare-turns")
    def _row_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id == MORE_ID:
            index = event.option_index
            self._show_more()
            self.turns_list.highlighted = index
            return
        if self.loaded is None or not event.option.id:
            return

        pair = self.loaded.comparison.pairs[int(event.option.id.removeprefix("pair-"))]
        self.app.push_screen(screen_class("TextScreen")(f"Turn pair {pair.index + 1}", full_turns_text(pair)))

    def action_close(self) -> None:
        self.dismiss(None)
