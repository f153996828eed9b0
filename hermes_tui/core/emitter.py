"""The one way the core speaks to a front-end: an `Emitter` wrapped around the event sink.

Every collaborator of a turn (the live session, the compression orchestrator, the context meter,
the turn runner) is handed the same `Emitter`. It delivers events in order, never lets a broken
sink break the agent, and has the three shorthands the core uses everywhere: a Review-log line,
a warning (shown in the conversation and logged, optionally only once per key) and a status line.
"""

from __future__ import annotations

from hermes_tui.core import events as ev


class Emitter:
    """Delivers core events to the front-end's sink."""

    def __init__(self, sink: ev.EventSink = ev.null_sink) -> None:
        self._sink = sink
        self._shown_once: set[str] = set()

    def emit(self, event: ev.Event) -> None:
        try:
            self._sink(event)
        except Exception:  # a broken UI sink must never break the agent
            pass

    def review(self, kind: str, text: str, *, once_key: str | None = None) -> None:
        """A line in the Review log; with `once_key`, only the first time."""
        if once_key is not None:
            if once_key in self._shown_once:
                return
            self._shown_once.add(once_key)
        self.emit(ev.ReviewEntry(kind, text))

    def status(self, text: str) -> None:
        self.emit(ev.Status(text))

    def warn(self, text: str, *, once_key: str | None = None) -> None:
        """A warning for the conversation and the Review log; with `once_key`, only the first time."""
        if once_key is not None:
            if once_key in self._shown_once:
                return
            self._shown_once.add(once_key)
        self.emit(ev.Warning(text))
        self.review("warning", text)
