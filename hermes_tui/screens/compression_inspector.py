"""`CompressionInspectorScreen`: what one compression did, and a way to bring a message back.

Shows, from `core.compression_inspect` (loaded in a worker): the two sessions, the reason and the
focus topic, tokens before and after, whether the fallback summary was used, the messages the
summary replaced (read from the parent, which keeps them), the pinned ones it kept verbatim, and the
summary itself. Enter on a summarised message shows it in full; r re-injects it: the screen is
dismissed with a quoted user note the app sends through the normal turn path. Esc closes. All message text is untrusted:
sanitised, never markup.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from hermes_tui.core.compression_inspect import (
    CompressionDetails,
    InspectError,
    SummarisedMessage,
    inspect_compression,
    reinjection_note,
)
from hermes_tui.screens.registry import screen_class
from hermes_tui.text_safety import visible

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

HINT = "↓↑ messages · Enter shows it in full · r re-injects it into this conversation · Esc closes"
PREVIEW_CHARS = 200


def facts_text(details: CompressionDetails) -> Text:
    """The compression's facts, a few lines."""
    text = Text()
    child = visible(details.child_title) if details.child_title else details.child_id
    parent = visible(details.parent_title) if details.parent_title else details.parent_id
    if details.in_place:  # Hermes's mode: the same session, the replaced rows kept as compacted
        text.append("🗜 compacted in place ", "bold")
        text.append(f"{child}", "bold")
        if details.compactions > 1:
            text.append(f" ({details.compactions}×)")
        text.append(" — same session; the messages below were replaced and are kept", "dim")
    else:
        text.append("⇣ ", "bold")
        text.append(f"{parent}", "bold")
        text.append(" → ")
        text.append(f"{child}", "bold")
    if details.at:
        text.append(f"  {datetime.fromtimestamp(details.at):%Y-%m-%d %H:%M}", "dim")
    text.append("\nReason: ")
    text.append(visible(details.reason or "unknown"))
    text.append(" · Focus: ")
    text.append(visible(details.focus_topic) if details.focus_topic else "(none)", "italic")
    text.append(
        f"\nTokens: ~{details.tokens_before:,} → ~{details.tokens_after:,} ({details.saved_percent}% saved)"
        f" · Messages: {details.messages_before} → {details.messages_after},"
        f" {len(details.summarised)} summarised"
    )
    if not details.recorded:
        text.append("  (estimated: made outside hermes-tui, no record)", "dim")
    text.append("\nFallback summary: ")
    if details.fallback_used is None:
        text.append("unknown", "dim")
    elif details.fallback_used:
        text.append("yes — the summary model was unavailable", "bold red")
        if details.summary_error:
            text.append(f" ({visible(details.summary_error)})", "red")
    else:
        text.append("no")
    if details.pinned:  # pinned messages in the middle stayed as they were
        text.append(f"\n📌 Kept verbatim (pinned): {len(details.pinned)}", "bold")
        for message in details.pinned:
            text.append("\n  ")
            text.append_text(message_prompt(message))
    return text


def message_prompt(message: SummarisedMessage) -> Text:
    single = " ".join(message.text.split()) or "(no text)"
    if len(single) > PREVIEW_CHARS:
        single = single[: PREVIEW_CHARS - 1] + "…"
    prompt = Text(f"#{message.index + 1} ", style="dim")
    prompt.append(message.role, "bold")
    if message.tool_calls:
        prompt.append(f" [{message.tool_calls} tool call{'s' if message.tool_calls != 1 else ''}]", "dim")
    prompt.append(": ")
    prompt.append(visible(single))
    return prompt


class CompressionInspectorScreen(ModalScreen[str | None]):
    """One compression: facts, summarised messages, the summary; r re-injects a message."""

    AUTO_FOCUS = "#inspector-messages"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="inspector-close"),
        Binding("r", "reinject", "Re-inject message", id="inspector-reinject"),
    ]

    def __init__(self, db: SessionDB, child_id: str, *, highlight_message_id: int | None = None) -> None:
        super().__init__()
        self.db = db
        self.child_id = child_id
        self.highlight_message_id = highlight_message_id
        self.details: CompressionDetails | None = None
        self.error = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="inspector-dialog") as dialog:
            dialog.border_title = "Compression inspector"
            yield Static("Reading the compression…", id="inspector-facts")
            with Horizontal(id="inspector-body"):
                with Vertical(id="inspector-left"):
                    yield Label("Summarised messages", id="inspector-messages-title")
                    yield OptionList(id="inspector-messages")
                with Vertical(id="inspector-right"):
                    yield Label("Summary", id="inspector-summary-title")
                    with VerticalScroll(id="inspector-summary-box"):
                        yield Static(id="inspector-summary")
            yield Label(HINT, id="inspector-hint")

    def on_mount(self) -> None:
        self.run_worker(self._load(), group="inspect", exclusive=True)

    async def _load(self) -> None:
        try:
            details = await inspect_compression(self.db, self.child_id)
        except InspectError as exc:
            self.error = str(exc)
            self.query_one("#inspector-facts", Static).update(Text(visible(self.error), style="bold red"))
            return
        self.details = details
        self.query_one("#inspector-facts", Static).update(facts_text(details))
        self.query_one("#inspector-messages-title", Label).update(f"Summarised messages ({len(details.summarised)})")
        summary = details.summary or "(the new session has no summary message)"
        self.query_one("#inspector-summary", Static).update(Text(visible(summary)))
        messages = self.messages_list
        messages.set_options(Option(message_prompt(m)) for m in details.summarised)
        if details.summarised:
            wanted = next((i for i, m in enumerate(details.summarised) if m.message_id == self.highlight_message_id), 0)
            messages.highlighted = wanted

    @property
    def messages_list(self) -> OptionList:
        return self.query_one("#inspector-messages", OptionList)

    def _highlighted(self) -> SummarisedMessage | None:
        index = self.messages_list.highlighted
        if self.details is None or index is None or index >= len(self.details.summarised):
            return None
        return self.details.summarised[index]

    @on(OptionList.OptionSelected, "#inspector-messages")
    def _show_message(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        message = self._highlighted()
        if message is not None:
            self.app.push_screen(screen_class("TextScreen")(f"Summarised message #{message.index + 1}", message.text))

    def action_reinject(self) -> None:
        message = self._highlighted()
        if message is None or self.details is None:
            self.notify("Highlight a summarised message first.", severity="warning")
            return
        self.dismiss(reinjection_note(message, self.details.parent_id))

    def action_close(self) -> None:
        self.dismiss(None)
