"""`HelpScreen`: the slash commands, one line each, then the keys, section by section.

Nothing here is typed by hand: the keys come from the Binding objects (`hermes_tui.keymap`: the
app's, those of the screens under this one, the widgets'), their longer notes (the Ctrl-C ladder)
from the bindings' tooltips, and the commands, with their aliases, from the core's registry
(`hermes_tui.slash_commands`) — the same list the prompt completes and the command palette
offers. On a terminal at least 140 columns wide the commands and the keys stand side by side.
Esc (or F1, or q) closes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from hermes_tui.keymap import KeySection, key_label, key_sections
from hermes_tui.screens.approval import ApprovalScreen
from hermes_tui.screens.context import ContextScreen
from hermes_tui.screens.rewind import RewindScreen
from hermes_tui.slash_commands import SlashCommand, slash_commands
from hermes_tui.widgets.conversation import ConversationView
from hermes_tui.widgets.lineage_tree import LineageTree
from hermes_tui.widgets.prompt_input import PromptInput
from hermes_tui.widgets.queue_line import QueueLine
from hermes_tui.widgets.token_gauge import TokenGauge
from hermes_tui.widgets.tool_card import ToolCard

SECTION_STYLE = "bold"
SECTION_TITLE_STYLE = "italic"
NOTE_STYLE = "dim"
WIDE_HELP_COLUMNS = 140  # from this terminal width the two lists stand side by side


def _table(first_column_width: int = 0) -> Table:
    table = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
    table.add_column(style="bold", no_wrap=True, min_width=first_column_width)
    table.add_column()
    return table


KEY_PLACES: tuple[tuple[str, type], ...] = (
    ("In the prompt", PromptInput),
    ("On the queue line (Tab from the prompt while messages wait)", QueueLine),
    ("In the conversation", ConversationView),
    ("On a tool card", ToolCard),
    ("In Sessions", LineageTree),
    ("On the context gauge", TokenGauge),
    ("On the context screen (F7, /context)", ContextScreen),
    ("In the rewind picker (F6)", RewindScreen),
    ("When a command needs approval", ApprovalScreen),
)
"""Where keys work besides "Anywhere", in the order the help lists them."""


def help_key_sections(screens: Iterable[type], keymap: Mapping[str, str] | None = None) -> list[KeySection]:
    """The help's key list: the app's and `screens`' keys, then each place's."""
    return key_sections(screens, KEY_PLACES, keymap)


def keys_renderable(sections: Iterable[KeySection]) -> RenderableType:
    """A heading and a table per section (keys aligned across them), each followed by its bindings' notes."""
    sections = list(sections)
    key_width = max((len(row.label) for section in sections for row in section.rows), default=0)
    parts: list[RenderableType] = [Text("Keys", style=SECTION_STYLE)]
    for section in sections:
        table = _table(key_width)
        for row in section.rows:
            table.add_row(Text(row.label), Text(row.description))
        parts.extend([Text(f"\n{section.title}", style=SECTION_TITLE_STYLE), table])
        parts.extend(Text(row.note, style=NOTE_STYLE) for row in section.rows if row.note)
    return Group(*parts)


def commands_renderable(commands: Iterable[SlashCommand]) -> RenderableType:
    """Usage and help line of every slash command; aliases follow the help line."""
    table = _table()
    for command in commands:
        table.add_row(Text(command.usage), Text(command.description))
    return Group(Text("Slash commands", style=SECTION_STYLE), table)


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
            dialog.border_subtitle = self._close_hint()
            yield Static(commands_renderable(slash_commands()), id="help-commands")
            screens_below = [type(screen) for screen in self.app.screen_stack if screen is not self]
            keymap = getattr(self.app, "applied_keymap", None)  # config.toml's [keymap], as the app uses it
            yield Static(keys_renderable(help_key_sections(screens_below, keymap)), id="help-keys")

    def on_mount(self) -> None:
        self._fit_columns()
        self.query_one("#help-dialog").focus()  # arrows, PgUp/PgDn, Home/End scroll it at once

    def on_resize(self) -> None:
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Commands and keys side by side when the terminal is wide enough, one above the other otherwise."""
        self.query_one("#help-dialog").set_class(self.app.size.width >= WIDE_HELP_COLUMNS, "-wide")

    def _close_hint(self) -> str:
        shown = [binding for binding in Binding.make_bindings(self.BINDINGS) if binding.show]
        return " / ".join(key_label(binding.key) for binding in shown) + " closes"

    def action_close(self) -> None:
        self.dismiss(None)
