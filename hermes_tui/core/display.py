"""What the front-end shows of a turn, as the user set it: /reasoning show|hide and /verbose.

`DisplayOptions` is plain state the UI reads (and is told about through `DisplayChanged`): whether
the model's reasoning is shown, and the tool-progress mode of Hermes's /verbose cycle —
off (only the final answer), new (each new tool, repeats skipped), all (every tool call, the
default), verbose (full arguments, results and reasoning). The core itself never changes what it
does for either; they last for the running program (set `display` defaults in the UI's state).
"""

from __future__ import annotations

from hermes_tui.core import events as ev
from hermes_tui.core.emitter import Emitter

TOOL_PROGRESS_MODES = ("off", "new", "all", "verbose")
TOOL_PROGRESS_MEANING = {
    "off": "silent — only the final answer",
    "new": "each new tool is shown, repeats are skipped",
    "all": "every tool call is shown",
    "verbose": "full arguments, results and reasoning",
}


class DisplayOptions:
    """The display flags of one agent (the TUI reads them; headless prints only the answer anyway)."""

    def __init__(self, emitter: Emitter, *, show_reasoning: bool = True, tool_progress: str = "all") -> None:
        self._events = emitter
        self.show_reasoning = show_reasoning
        self.tool_progress = tool_progress if tool_progress in TOOL_PROGRESS_MODES else "all"

    def _announce(self) -> None:
        self._events.emit(ev.DisplayChanged(self.show_reasoning, self.tool_progress))

    def set_reasoning_shown(self, shown: bool) -> None:
        self.show_reasoning = shown
        self._announce()

    def cycle_tool_progress(self) -> str:
        """The next mode of off → new → all → verbose → off (Hermes's /verbose)."""
        position = TOOL_PROGRESS_MODES.index(self.tool_progress)
        self.tool_progress = TOOL_PROGRESS_MODES[(position + 1) % len(TOOL_PROGRESS_MODES)]
        self._announce()
        return self.tool_progress
