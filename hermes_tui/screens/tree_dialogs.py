"""The Sessions tree's two dialogs: renaming a session and confirming a deletion.

`RenameScreen` is a one-line input prefilled with the current title; Enter answers the text,
Esc answers None (the app validates it as /title does: the store's sanitising and uniqueness).
`DeleteScreen` says what will be deleted and what happens to the session's children, and
answers True only for y or the Delete button; Enter on the focused Cancel button, n and Esc
answer False. Everything shown from the database is data (`markup=False`), never interpreted.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from hermes_tui.store.titles import MAX_TITLE_LENGTH


class RenameScreen(ModalScreen[str | None]):
    """Ask for a session's new title."""

    AUTO_FOCUS = "#rename-input"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="rename-cancel"),
    ]

    def __init__(self, heading: str, title: str) -> None:
        super().__init__()
        self.heading = heading
        self.title_now = title

    def compose(self) -> ComposeResult:
        with Vertical(id="rename-dialog", classes="tree-dialog") as dialog:
            dialog.border_title = "Rename session"
            yield Static(self.heading, markup=False, id="rename-heading")
            yield Input(self.title_now, max_length=MAX_TITLE_LENGTH + 20, id="rename-input")
            yield Static("Enter renames · Esc cancels", markup=False, classes="tree-dialog-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class DeleteScreen(ModalScreen[bool]):
    """Confirm deleting a session (the text says what happens to its children)."""

    AUTO_FOCUS = "#delete-cancel"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "delete", "Delete", id="delete-confirm"),
        Binding("n", "cancel", "Cancel", id="delete-cancel"),
        Binding("escape", "cancel", "Cancel", show=False),
    ]

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Vertical(id="delete-dialog", classes="tree-dialog") as dialog:
            dialog.border_title = "Delete session?"
            yield Static("\n".join(self.lines), markup=False, id="delete-text")
            with Horizontal(classes="tree-dialog-buttons"):
                yield Button("Delete (y)", variant="error", id="delete-confirm")
                yield Button("Cancel (n)", id="delete-cancel")

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "delete-confirm")

    def action_delete(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
