"""EventInbox: streamed deltas share one app message while it waits; order and text are kept exactly."""

from __future__ import annotations

import threading

from hermes_tui.core import events as ev
from hermes_tui.ui.event_inbox import CoreEvent, EventInbox


def delivered(inbox: EventInbox, queue: list[CoreEvent]) -> list[ev.Event]:
    """What the app's handler sees when it takes the queued messages in order."""
    out = [inbox.take(message) for message in queue]
    queue.clear()
    return out


def test_deltas_join_the_waiting_message_and_another_event_closes_the_batch() -> None:
    queue: list[CoreEvent] = []
    inbox = EventInbox(queue.append)
    for text in ["Hel", "lo", ", ", "world"]:
        inbox.put(ev.TextDelta(text))
    inbox.put(ev.ReasoningDelta("hmm"))
    inbox.put(ev.ReasoningDelta(" ok"))
    inbox.put(ev.ToolCallStarted("c1", "read_file", "{}"))
    inbox.put(ev.TextDelta("after"))
    assert inbox.received == 8 and inbox.posted == 4
    assert delivered(inbox, queue) == [
        ev.TextDelta("Hello, world"),
        ev.ReasoningDelta("hmm ok"),
        ev.ToolCallStarted("c1", "read_file", "{}"),
        ev.TextDelta("after"),
    ]


def test_a_delta_after_its_batch_was_handled_starts_a_new_message() -> None:
    queue: list[CoreEvent] = []
    inbox = EventInbox(queue.append)
    inbox.put(ev.TextDelta("a"))
    inbox.put(ev.TextDelta("b"))
    first = delivered(inbox, queue)
    inbox.put(ev.TextDelta("c"))
    assert first == [ev.TextDelta("ab")] and delivered(inbox, queue) == [ev.TextDelta("c")]


def test_events_from_another_thread_are_posted_one_each_in_order() -> None:
    queue: list[CoreEvent] = []
    inbox = EventInbox(queue.append)
    inbox.put(ev.TextDelta("loop "))

    def worker() -> None:
        inbox.put(ev.TextDelta("x"))
        inbox.put(ev.TextDelta("y"))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    inbox.put(ev.TextDelta("again"))
    assert inbox.posted == 4
    assert delivered(inbox, queue) == [
        ev.TextDelta("loop "),
        ev.TextDelta("x"),
        ev.TextDelta("y"),
        ev.TextDelta("again"),
    ]
