"""`ReviewDiffScreen`: the diff behind a Review log line — what a self-review changed in MEMORY.md,
USER.md and SKILL.md, or the files a turn changed.

Shows the entry's summary line and its unified diff under a title naming what it is (`title_for`
its kind), added lines in the success colour and removed ones in the error colour. The diff is
file content written by the model, so it is shown as plain text (no markup is interpreted). Esc or
q closes it.
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

SELF_REVIEW_TITLE = "Self-review changes"
TITLES = {"files": "Files changed in the turn"}


def title_for(kind: str) -> str:
    """The title of the detail of a Review log entry of `kind` (a self-review's unless named in TITLES)."""
    return TITLES.get(kind, SELF_REVIEW_TITLE)


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

    def __init__(self, summary: str, diff: str, title: str = SELF_REVIEW_TITLE) -> None:
        super().__init__()
        self.summary = summary
        self.diff = diff
        self.title_text = title

    @classmethod
    def for_entry_kind(cls, summary: str, diff: str, kind: str) -> ReviewDiffScreen:
        """The detail of a Review log entry of `kind`, under its title (`title_for`)."""
        return cls(summary, diff, title_for(kind))

    def compose(self) -> ComposeResult:
        with Vertical(id="review-diff-dialog") as dialog:
            dialog.border_title = self.title_text
            yield Label(Text(visible(self.summary)), id="review-diff-summary")
            with VerticalScroll(id="review-diff-body"):
                yield Static(diff_text(self.diff), id="review-diff-text")
            yield Label("Esc closes", id="review-diff-hint")

    def action_close(self) -> None:
        self.dismiss(None)
