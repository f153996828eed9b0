"""`SessionPickerScreen`: choose a second session (to compare with), filtering by title as you type.

The first choice is the session's parent when it has one ("compare with parent"), then every other
session, most recently active first. Typing filters by title, preview or id (case-insensitive
substring); at most `MAX_SHOWN` rows are listed. Enter picks; Esc cancels. Dismissed with the
chosen session id or None. Titles and previews are untrusted: sanitised, no markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from hermes_tui.store.models import EDGE_REVIEW, LineageNode
from hermes_tui.text_safety import visible
from hermes_tui.widgets.formatting import short_session_id

MAX_SHOWN = 200


def node_label(node: LineageNode, lead: str = "") -> Text:
    name = node.title or node.preview or "(empty)"
    label = Text(lead, style="bold")
    label.append(visible(" ".join(name.split())[:80]), "bold" if node.title else "")
    count = node.message_count
    label.append(f"  {short_session_id(node.id)} · {count} message{'s' if count != 1 else ''}", "dim")
    return label


def candidates(nodes: Sequence[LineageNode], first_id: str) -> list[LineageNode]:
    """Sessions to pick from: the parent of `first_id` first, then the others by last activity."""
    sessions = [n for n in nodes if n.edge != EDGE_REVIEW and n.id != first_id and not n.id.startswith("review:")]
    by_id = {n.id: n for n in nodes}
    parent_id = by_id[first_id].parent_id if first_id in by_id else None
    parent = [n for n in sessions if n.id == parent_id]
    rest = sorted((n for n in sessions if n.id != parent_id), key=lambda n: (n.last_active, n.id), reverse=True)
    return parent + rest


def matches(node: LineageNode, needle: str) -> bool:
    return not needle or any(needle in (text or "").lower() for text in (node.title, node.preview, node.id))


class SessionPickerScreen(ModalScreen[str | None]):
    """Pick the session to compare with."""

    AUTO_FOCUS = "#picker-filter"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="picker-cancel"),
        Binding("down", "move(1)", "Next", show=False),
        Binding("up", "move(-1)", "Previous", show=False),
    ]

    def __init__(self, nodes: Sequence[LineageNode], first_id: str, heading: str) -> None:
        super().__init__()
        self.first_id = first_id
        self.heading = heading
        self.choices = candidates(nodes, first_id)
        by_id = {n.id: n for n in nodes}
        self.parent_id = by_id[first_id].parent_id if first_id in by_id else None
        self.shown: list[LineageNode] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-dialog") as dialog:
            dialog.border_title = "Compare with…"
            yield Label(Text(visible(self.heading)), id="picker-heading")
            yield Input(placeholder="Filter by title, preview or id", id="picker-filter")
            yield OptionList(id="picker-list")
            yield Label("↓↑ choose · Enter compares · Esc cancels", id="picker-hint")

    def on_mount(self) -> None:
        self._fill("")

    def _fill(self, needle: str) -> None:
        needle = needle.strip().lower()
        self.shown = [n for n in self.choices if matches(n, needle)][:MAX_SHOWN]
        options = [
            Option(node_label(n, "⇡ parent: " if n.id == self.parent_id else ""), id=f"s{i}")
            for i, n in enumerate(self.shown)
        ]
        picker = self.query_one("#picker-list", OptionList)
        picker.set_options(options)
        if options:
            picker.highlighted = 0

    @on(Input.Changed, "#picker-filter")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def action_move(self, step: int) -> None:
        picker = self.query_one("#picker-list", OptionList)
        if self.shown:
            current = picker.highlighted if picker.highlighted is not None else -1
            picker.highlighted = max(0, min(len(self.shown) - 1, current + step))

    @on(Input.Submitted, "#picker-filter")
    def _submit(self, event: Input.Submitted) -> None:
        event.stop()
        index = self.query_one("#picker-list", OptionList).highlighted
        if index is not None and index < len(self.shown):
            self.dismiss(self.shown[index].id)

    @on(OptionList.OptionSelected, "#picker-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self.shown):
            self.dismiss(self.shown[event.option_index].id)

    def action_cancel(self) -> None:
        self.dismiss(None)
