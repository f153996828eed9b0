"""`SlashCommandProvider`: the slash commands in Textual's command palette (Ctrl-P).

The palette lists every slash command of the core's registry with its help line, next to
Textual's own entries (theme, keys, screenshot, quit). Searching matches names and aliases.
Choosing a command that takes no arguments sends it through the prompt exactly as if it had been
typed; one that takes arguments ("/resume [N|id|prefix|title]") is put in the prompt, followed by
a space, for the user to finish (Enter alone runs it without arguments).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.css.query import NoMatches

from hermes_tui.slash_commands import SlashCommand, slash_commands
from hermes_tui.widgets.prompt_input import PromptInput

ARGUMENTS_STYLE = "dim"


class SlashCommandProvider(Provider):
    """Palette entries for the slash commands; they act on the calling screen's prompt."""

    def _prompt(self) -> PromptInput | None:
        try:
            return self.screen.query_one(PromptInput)
        except NoMatches:
            return None

    def _choose(self, command: SlashCommand, spelling: str) -> Callable[[], None]:
        def choose() -> None:
            prompt = self._prompt()
            if prompt is None:
                return
            if command.takes_arguments:
                prompt.set_text(f"{spelling} ")
                self.screen.set_focus(prompt)
            else:
                prompt.submit_text(spelling)

        return choose

    @staticmethod
    def _display(name: Content, command: SlashCommand) -> Content:
        if not command.takes_arguments:
            return name
        return name + Content(f" {command.arguments}").stylize(ARGUMENTS_STYLE)

    @staticmethod
    def _help(command: SlashCommand, spelling: str) -> str:
        if spelling == command.name:
            return command.description
        return f"same as {command.name}: {command.help}"

    async def discover(self) -> Hits:
        """With nothing typed yet: every command, in the registry's order."""
        if self._prompt() is None:
            return
        for command in slash_commands():
            yield DiscoveryHit(
                self._display(Content(command.name), command),
                self._choose(command, command.name),
                text=command.name,
                help=command.description,
            )

    async def search(self, query: str) -> Hits:
        """Commands whose name or alias matches `query` (fuzzily, as the rest of the palette)."""
        if self._prompt() is None:
            return
        matcher = self.matcher(query)
        for command in slash_commands():
            spelling = max(command.spellings, key=matcher.match)  # on a tie, the name (it comes first)
            score = matcher.match(spelling)
            if score <= 0:
                continue
            yield Hit(
                score,
                self._display(matcher.highlight(spelling), command),
                self._choose(command, spelling),
                text=spelling,
                help=self._help(command, spelling),
            )
