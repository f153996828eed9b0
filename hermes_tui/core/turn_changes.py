"""One summary per turn of the files it changed, for the Review log: `TurnFilesChanged`.

Owns `TurnChangeLog`, an event sink placed in front of the front-end's: it notes the `changes` of
every `ToolCallFinished` between a `TurnStarted` and its `TurnFinished`, and hands the front-end a
`TurnFilesChanged` just before the `TurnFinished` of a turn that changed files (an interrupted one
included). It only watches the event stream, so the turn loop needs no part in it.
"""

from __future__ import annotations

from hermes_tui.core import events as ev
from hermes_tui.core.tools.file_diff import FileChange


class TurnChangeLog:
    """An event sink that adds `TurnFilesChanged` before the end of each turn that changed files."""

    def __init__(self, sink: ev.EventSink) -> None:
        self._sink = sink
        self._changes: list[FileChange] = []

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.TurnStarted):
            self._changes = []
        elif isinstance(event, ev.ToolCallFinished):
            self._changes.extend(event.changes)
        elif isinstance(event, ev.TurnFinished) and self._changes:
            changes, self._changes = tuple(self._changes), []
            try:
                self._sink(ev.TurnFilesChanged(event.session_id, changes))
            except Exception:  # the turn's end must still reach the front-end
                pass
        self._sink(event)
