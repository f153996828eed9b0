"""`EventInbox`: core events into the app's message queue, streamed deltas in one message per batch.

A model streams ~1,000 deltas a second; as one Textual message each, every delta paid the app's
dispatch (~0.15 ms), and a key pressed meanwhile queued behind all of them. Now a text (or
reasoning) delta joins the delta message still waiting in the queue, if the last one posted is
of its kind: one message carries everything that came since the app last handled one. Any other
event closes the batch, so the order of events is kept exactly, and no text is dropped or merged
across another event. Only the event loop's own thread batches (a worker thread's events are
posted one each, as before, and close the batch: a later delta never joins an earlier message).
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # (imported when the first event comes: the first frame does without the core)
    from hermes_tui.core import events as ev


@functools.cache
def delta_types() -> tuple[type[ev.Event], ...]:
    """The events that batch: streamed text and reasoning."""
    from hermes_tui.core import events as ev

    return (ev.TextDelta, ev.ReasoningDelta)


class CoreEvent(Message):
    """A core event delivered to the UI thread (a delta with those that came after it, `more`)."""

    def __init__(self, event: ev.Event) -> None:
        super().__init__()
        self.event = event
        self.more: list[str] = []


class EventInbox:
    """Posts core events for the app; joins consecutive deltas while their message waits."""

    def __init__(self, post: Callable[[Message], object]) -> None:
        self._post = post
        self._open: CoreEvent | None = None  # the delta message posted and not handled yet
        self._thread = threading.get_ident()  # the loop's thread (the app builds the inbox there)
        self.posted = 0  # messages posted (for tests and benchmarks)
        self.received = 0  # events received

    def put(self, event: ev.Event) -> None:
        """Send `event` to the app (a delta may join the waiting one instead)."""
        self.received += 1
        on_loop = threading.get_ident() == self._thread
        if on_loop and isinstance(event, delta_types()):
            waiting = self._open
            if waiting is not None and type(waiting.event) is type(event):
                waiting.more.append(event.text)
                return
            message = CoreEvent(event)
            self._open = message
        else:
            self._open = None  # (from a worker thread too: a later delta must not join an earlier message)
            message = CoreEvent(event)
        self.posted += 1
        self._post(message)

    def take(self, message: CoreEvent) -> ev.Event:
        """The event `message` delivers, its batch joined; later deltas start a new message."""
        if message is self._open:
            self._open = None
        if not message.more:
            return message.event
        event = message.event
        assert isinstance(event, delta_types())
        joined = event.text + "".join(message.more)
        message.more = []
        return dataclasses.replace(event, text=joined)
