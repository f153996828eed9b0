"""`ApprovalScreen`: ask the user whether a risky tool call may run.

Shows the tool, the command (monospace block), the working directory and the reasons it is risky
in the error colour. The command is shown exactly: every control and format character in it (a
carriage return, an erase-line or cursor-move sequence, a bidi override) appears as its escape,
and when there is any, a flag line above the reasons says so — the prompt can never show `ls -la`
while approving something else. y / Enter allows, n / Esc denies; the two buttons do the same.
The result is a plain bool, so the app can hand it straight back to the core's approver callback.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from hermes_tui.text_safety import approval_view, visible


class ApprovalScreen(ModalScreen[bool]):
    """Allow or deny one tool call."""

    AUTO_FOCUS = "#approval-allow"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "allow", "Allow", id="approval-allow"),
        Binding("enter", "allow", "Allow", show=False),
        Binding("n", "deny", "Deny", id="approval-deny"),
        Binding("escape", "deny", "Deny", show=False),
    ]

    def __init__(self, tool: str, command: str, cwd: str, reasons: Iterable[str]) -> None:
        super().__init__()
        self.tool = tool
        self.command = command
        self.cwd = cwd
        self.reasons = tuple(reasons)
        self.command_view = approval_view(command)

    def compose(self) -> ComposeResult:
        with Vertical(id="approval-dialog") as dialog:
            dialog.border_title = "Approval needed"
            yield Label(f"The agent wants to run [b]{self._escape(visible(self.tool))}[/b]:", id="approval-tool")
            with VerticalScroll(id="approval-command-box"):
                yield Static(self.command_view.text, markup=False, id="approval-command")
            yield Label(f"in {visible(self.cwd)}", markup=False, id="approval-cwd")
            if self.command_view.has_hidden:
                yield Static(f"⚠ {self.command_view.warning()}", markup=False, id="approval-hidden")
            if self.reasons:
                yield Static(
                    "\n".join(f"⚠ {visible(reason)}" for reason in self.reasons), markup=False, id="approval-reasons"
                )
            with Horizontal(id="approval-buttons"):
                yield Button("Allow (y)", variant="success", id="approval-allow")
                yield Button("Deny (n)", variant="error", id="approval-deny")

    @staticmethod
    def _escape(text: str) -> str:
        return text.replace("[", r"\[")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "approval-allow")

    def action_allow(self) -> None:
        self.dismiss(True)

    def action_deny(self) -> None:
        self.dismiss(False)
