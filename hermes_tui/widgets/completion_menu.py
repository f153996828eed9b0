"""`CompletionMenu`: the prompt's completion list, between the conversation and the prompt.

It follows the prompt's `completions` and `completion_index` (the prompt owns what is offered and
which one is highlighted; ↑/↓ there move it, Tab or → accepts), is shown only while there is
something to offer, never takes the focus, and a click on an entry accepts it.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from hermes_tui.text_safety import visible
from hermes_tui.widgets.prompt_completion import Candidate
from hermes_tui.widgets.prompt_input import PromptInput

MAX_SHOWN = 8


class CompletionMenu(OptionList, can_focus=False):
    """The prompt's completion list: shown while there is something to offer."""

    def __init__(self, prompt: PromptInput, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._prompt = prompt

    def on_mount(self) -> None:
        self.watch(self._prompt, "completions", self._show, init=True)
        self.watch(self._prompt, "completion_index", self._highlight, init=False)

    def _show(self, completions: tuple[Candidate, ...]) -> None:
        options = []
        for candidate in completions:
            line = Text(visible(candidate.label), style="bold")
            if candidate.detail:
                line.append(f"  {visible(candidate.detail)}", style="dim")
            options.append(Option(line))
        self.set_options(options)
        self.set_class(bool(completions), "-open")
        self.styles.height = min(len(options), MAX_SHOWN) or None
        if completions:
            self._highlight(self._prompt.completion_index)

    def _highlight(self, index: int) -> None:
        if 0 <= index < self.option_count:
            self.highlighted = index

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._prompt.accept_completion(event.option_index)
