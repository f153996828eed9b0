"""`PromptInput`: the one-line prompt — submit, history, slash-command completion, Ctrl-C clears.

Enter posts `PromptInput.Submitted(text)` for non-empty text and clears the line; ↑/↓ walk the
prompts submitted before (the unfinished draft comes back after the newest); `set_text()` restores
text (e.g. after /undo); `submit_text()` sends text as if typed (the command palette uses it);
typing "/" suggests a slash command from the core's registry (→ accepts). Pasted or restored text
loses its control and escape characters (what the line shows is what is sent). Ctrl-C with a selection
copies it, with text clears the line, and on an empty line passes on to the app (interrupt/quit).
Shift+Tab here switches the agent to the next permission mode (the app's `cycle_permission_mode`);
everywhere else Shift+Tab keeps moving the focus back, as Tab moves it forward.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.suggester import Suggester
from textual.widgets import Input

from hermes_tui.slash_commands import completion_candidates
from hermes_tui.text_safety import without_controls

PLACEHOLDER = "Ask anything — /help for commands"
MODE_CYCLE_NOTE = (
    "Shift+Tab in the prompt: the next permission mode, ask → accept edits → read-only → yolo "
    "(the status bar shows it); elsewhere Shift+Tab moves the focus back."
)
MAX_HISTORY = 500


class SlashCommandSuggester(Suggester):
    """Suggests the first slash command (registry order, names before aliases) that completes "/…"."""

    def __init__(self) -> None:
        super().__init__(use_cache=True, case_sensitive=False)

    @property
    def candidates(self) -> tuple[str, ...]:
        """Every completion this suggester can offer, in the order it prefers them."""
        return completion_candidates()

    async def get_suggestion(self, value: str) -> str | None:
        if not value.startswith("/") or any(char.isspace() for char in value):
            return None
        return next((candidate for candidate in self.candidates if candidate.startswith(value)), None)


class PromptInput(Input):
    """The prompt line."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Send the prompt", show=False),
        Binding(
            "alt+enter", "submit_other", "While a turn runs: steer instead of queueing (or the reverse)", show=False
        ),
        Binding("right", "cursor_right", "Accept the suggested slash command (at the end of the line)", show=False),
        Binding("up", "history_previous", "Previous prompt", show=False),
        Binding("down", "history_next", "Next prompt", show=False),
        Binding("ctrl+c", "copy_or_clear", "Clear the line (copies a selection)", show=False),
        Binding(
            "shift+tab",
            "app.cycle_permission_mode",
            "Next permission mode",
            show=False,
            id="permission-mode",
            tooltip=MODE_CYCLE_NOTE,
        ),
    ]

    class Submitted(Message):
        """The user submitted a prompt (never empty); `other_mode`: by Alt+Enter (steer ⇄ queue while busy)."""

        def __init__(self, prompt_input: PromptInput, text: str, *, other_mode: bool = False) -> None:
            super().__init__()
            self.prompt_input = prompt_input
            self.text = text
            self.other_mode = other_mode

        @property
        def control(self) -> PromptInput:
            return self.prompt_input

    def __init__(
        self,
        *,
        placeholder: str = PLACEHOLDER,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(
            placeholder=placeholder,
            suggester=SlashCommandSuggester(),
            name=name,
            id=id,
            classes=classes,
        )
        self._history: list[str] = []
        self._history_index: int | None = None  # None = editing the draft
        self._draft = ""

    @property
    def history(self) -> list[str]:
        """Prompts submitted so far, oldest first."""
        return list(self._history)

    def set_text(self, text: str) -> None:
        """Put `text` in the prompt with the cursor at its end (e.g. the text /undo removed).

        Control and escape characters are dropped (a stored message may hold them), so the line
        shows exactly what Enter would send."""
        text, _ = without_controls(text.replace("\n", " "))
        self._history_index = None
        self.value = text
        self.cursor_position = len(text)

    def _on_paste(self, event: events.Paste) -> None:
        """Paste the first line without the control and escape characters it may carry."""
        event.prevent_default()  # instead of Input's own paste, which keeps them
        event.stop()
        first = event.text.replace("\r\n", "\n").split("\n", 1)[0]
        line, dropped = without_controls(first)
        if dropped:
            self.notify(f"Removed {dropped} control character(s) from the pasted text.", severity="warning")
        if not line:
            return
        if self.selection.is_empty:
            self.insert_text_at_cursor(line)
        else:
            self.replace(line, *self.selection)

    @property
    def slash_suggester(self) -> SlashCommandSuggester:
        """The suggester behind the slash-command completion."""
        assert isinstance(self.suggester, SlashCommandSuggester)
        return self.suggester

    async def action_submit(self, other_mode: bool = False) -> None:
        text = self.value.strip()
        if not text:
            return
        self._history_index = None
        self._draft = ""
        self.value = ""
        self.submit_text(text, other_mode=other_mode)

    async def action_submit_other(self) -> None:
        """Alt+Enter: submit, asking for the other busy-input mode (steer instead of queue, or the reverse)."""
        await self.action_submit(other_mode=True)

    def submit_text(self, text: str, *, other_mode: bool = False) -> None:
        """Send `text` as if it had been typed and Enter pressed: it joins the history and
        `Submitted` is posted. What is on the line stays there."""
        text = text.strip()
        if not text:
            return
        if not self._history or self._history[-1] != text:
            self._history.append(text)
            del self._history[:-MAX_HISTORY]
        self.post_message(self.Submitted(self, text, other_mode=other_mode))

    def action_history_previous(self) -> None:
        if not self._history:
            return
        if self._history_index is None:
            self._draft = self.value
            self._history_index = len(self._history) - 1
        elif self._history_index > 0:
            self._history_index -= 1
        else:
            return
        self._show(self._history[self._history_index])

    def action_history_next(self) -> None:
        if self._history_index is None:
            return
        if self._history_index < len(self._history) - 1:
            self._history_index += 1
            self._show(self._history[self._history_index])
        else:
            self._history_index = None
            self._show(self._draft)

    def _show(self, text: str) -> None:
        self.value = text
        self.cursor_position = len(text)

    def action_copy_or_clear(self) -> None:
        """Ctrl-C: copy a selection, else clear the line, else let the app handle it."""
        if self.selected_text:
            self.app.copy_to_clipboard(self.selected_text)
        elif self.value:
            self.value = ""
            self._history_index = None
        else:
            raise SkipAction()
