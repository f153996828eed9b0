"""`HelpScreen`: the keys (including the Ctrl-C ladder) and the slash commands, one line each.

Esc (or F1, or q) closes it. The slash-command list is the prompt's own, so the two never disagree.
"""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from hermes_tui.widgets.prompt_input import SLASH_COMMANDS

KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "send the prompt"),
    ("↑ / ↓", "previous / next prompt in the prompt line"),
    ("→", "accept the suggested slash command"),
    ("Ctrl+C", "clears the input; with an empty prompt interrupts a streaming turn;"),
    ("", "pressed twice within 2 s quits"),
    ("Ctrl+Q", "quit"),
    ("F1", "this help"),
    ("Ctrl+B", "hide / show the side panel"),
    ("Tab / Shift+Tab", "move between panes"),
    ("Esc", "back to the prompt"),
    ("Enter / Space", "on a tool card: expand or collapse it"),
    ("↑ at the top", "of the conversation: load earlier messages"),
    ("Enter", "in Sessions: open that session; Space expands a node"),
    ("Ctrl+P", "command palette"),
)


def _table(rows: tuple[tuple[str, str], ...] | list[tuple[str, str]], title: str) -> Table:
    table = Table(title=title, title_justify="left", show_header=False, box=None, padding=(0, 2, 0, 0))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for key, text in rows:
        table.add_row(Text(key), Text(text))
    return table


class HelpScreen(ModalScreen[None]):
    """Keys and slash commands."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="help-close"),
        Binding("f1", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog") as dialog:
            dialog.border_title = "Help"
            dialog.border_subtitle = "Esc closes"
            yield Static(_table(KEYS, "Keys"), id="help-keys")
            yield Static(_table(list(SLASH_COMMANDS.items()), "Slash commands"), id="help-commands")

    def action_close(self) -> None:
        self.dismiss(None)
