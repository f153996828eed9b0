"""`ReviewDiffScreen`: what one self-review changed — MEMORY.md, USER.md and SKILL.md before and after.

Shows the review's summary line and its unified diff, added lines in the success colour and removed
ones in the error colour. The diff is file content written by the model, so it is shown as plain
text (no markup is interpreted). Esc or q closes it.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from hermes_tui.text_safety import visible


def diff_text(diff: str) -> Text:
    """The diff as styled text: + lines green, - lines red, hunk headers dim."""
    text = Text()
    for line in diff.splitlines() or ["(no file changed)"]:
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "dim"
        else:
            style = ""
        text.append(visible(line) + "\n", style)
    text.rstrip()
    return text


class ReviewDiffScreen(ModalScreen[None]):
    """One self-review's changes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="review-diff-close"),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, summary: str, diff: str) -> None:
        super().__init__()
        self.summary = summary
        self.diff = diff

    def compose(self) -> ComposeResult:
        with Vertical(id="review-diff-dialog") as dialog:
            dialog.border_title = "Self-review changes"
            yield Label(Text(visible(self.summary)), id="review-diff-summary")
            with VerticalScroll(id="review-diff-body"):
                yield Static(diff_text(self.diff), id="review-diff-text")
            yield Label("Esc closes", id="review-diff-hint")

    def action_close(self) -> None:
        self.dismiss(None)
