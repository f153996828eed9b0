"""The Sessions tree's dialogs: renaming a session, and confirming a deletion or an archiving.

`RenameScreen` is a one-line input prefilled with the current title; Enter answers the text,
Esc answers None (the app validates it as /title does: the store's sanitising and uniqueness).
`DeleteScreen` says what will be deleted and what happens to the session's children;
`ArchiveScreen` says where an archived session goes and how to bring it back. Both
(`ConfirmScreen`) answer True only for y or their confirm button; Enter on the focused Cancel
button, n and Esc answer False. Everything shown from the database is data (`markup=False`),
never interpreted.
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


class ConfirmScreen(ModalScreen[bool]):
    """A y/n question about one session; subclasses name the dialog, its title and its button."""

    AUTO_FOCUS = ".tree-dialog-cancel"
    KIND = ""  # the ids' prefix: "delete" -> #delete-dialog, #delete-text, #delete-confirm, #delete-cancel
    HEADING = ""
    CONFIRM_LABEL = ""

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        kind = self.KIND
        with Vertical(id=f"{kind}-dialog", classes="tree-dialog") as dialog:
            dialog.border_title = self.HEADING
            yield Static("\n".join(self.lines), markup=False, id=f"{kind}-text")
            with Horizontal(classes="tree-dialog-buttons"):
                yield Button(self.CONFIRM_LABEL, variant="error", id=f"{kind}-confirm")
                yield Button("Cancel (n)", id=f"{kind}-cancel", classes="tree-dialog-cancel")

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == f"{self.KIND}-confirm")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


class DeleteScreen(ConfirmScreen):
    """Confirm deleting a session (the text says what happens to its children)."""

    KIND = "delete"
    HEADING = "Delete session?"
    CONFIRM_LABEL = "Delete (y)"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "confirm", "Delete", id="delete-confirm"),
        Binding("n", "cancel", "Cancel", id="delete-cancel"),
        Binding("escape", "cancel", "Cancel", show=False),
    ]


class ArchiveScreen(ConfirmScreen):
    """Confirm archiving a session (the text says where it goes and how to bring it back)."""

    KIND = "archive"
    HEADING = "Archive session?"
    CONFIRM_LABEL = "Archive (y)"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "confirm", "Archive", id="archive-confirm"),
        Binding("n", "cancel", "Cancel", id="archive-cancel"),
        Binding("escape", "cancel", "Cancel", show=False),
    ]
