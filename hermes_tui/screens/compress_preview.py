"""`CompressPreviewScreen`: what `/compress` would do, and a yes/no before the session rotates.

Shows the compression preview the core computed (`CompressionPreview`): how many messages would
be summarised and kept, the tokens before and the estimate after, the focus topic, and one line
for the messages at each end of the kept head, the summarised middle and the kept tail. y / Enter
compresses, n / Esc cancels; the buttons do the same. The result is a plain bool. Every line from
the conversation is shown as data (`markup=False`), never interpreted.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from hermes_tui.core.session.compression_check import CompressionPreview

LITTLE_SAVED_PERCENT = 10  # below this estimated saving the dialog warns (the compressor calls it ineffective)


def summary_lines(preview: CompressionPreview) -> list[str]:
    """The numbers, one line each."""
    focus = f" · focus “{preview.focus_topic}”" if preview.focus_topic else ""
    kept = f" · last {preview.keep_exchanges} exchange(s) kept" if preview.keep_exchanges else ""
    lines = [
        f"Summarise {preview.summarised_count} of {preview.messages_total} messages{focus}{kept}",
        f"Tokens ~{preview.tokens_before:,} → ~{preview.tokens_after:,} (estimated, {preview.saving_percent}% saved)",
        f"Kept verbatim: first {preview.head_count}, last {preview.tail_count}"
        + (f" · {preview.pruned_count} old tool result(s) shortened" if preview.pruned_count else ""),
        "The conversation continues in a new child session; this one keeps every message.",
    ]
    if preview.saving_percent < LITTLE_SAVED_PERCENT:
        lines.append("⚠ Little would be saved: if the summary does not make the context smaller, nothing is applied.")
    return lines


class CompressPreviewScreen(ModalScreen[bool]):
    """Confirm a manual compression after seeing what it would do."""

    AUTO_FOCUS = "#compress-apply"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "apply", "Compress", id="compress-apply"),
        Binding("enter", "apply", "Compress", show=False),
        Binding("n", "cancel", "Cancel", id="compress-cancel"),
        Binding("escape", "cancel", "Cancel", show=False),
    ]

    def __init__(self, preview: CompressionPreview) -> None:
        super().__init__()
        self.preview = preview

    def compose(self) -> ComposeResult:
        with Vertical(id="compress-dialog") as dialog:
            dialog.border_title = "Compress the context?"
            yield Static("\n".join(summary_lines(self.preview)), markup=False, id="compress-numbers")
            with VerticalScroll(id="compress-messages"):
                for label, rows in (
                    ("Kept at the start", self.preview.head),
                    ("Summarised", self.preview.summarised),
                    ("Kept at the end", self.preview.tail),
                ):
                    if rows:
                        yield Label(label, classes="compress-section")
                        yield Static("\n".join(rows), markup=False, classes="compress-rows")
            with Horizontal(id="compress-buttons"):
                yield Button("Compress (y)", variant="primary", id="compress-apply")
                yield Button("Cancel (n)", id="compress-cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "compress-apply")

    def action_apply(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
