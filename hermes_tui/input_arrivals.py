"""`InputArrivals`: counts a key or mouse event the moment the terminal driver's thread hands it over.

The GC pacer must know that a key is on its way before it starts a full collection, or the key
waits behind the whole collection. The app used to count input in `post_message`, but a key the
driver's input thread sends (`Driver.send_message`) only reaches `post_message` one or two loop
iterations later, through a task that `asyncio.run_coroutine_threadsafe` schedules. A pacer tick
or a post-echo collection that is already queued runs first, and the key waits for it
(with the echo counted too early, app.py's `_display`, the cause of the 1-3 collections a
200 KB stream of bench/stream_bench.py ran in front of keys).

`watch(driver)` wraps the driver's `send_message` on that one driver instance, so each input is
counted (`note(is_key)`, which must be safe to call from another thread) in the driver's thread,
before the loop hears of it. `note_posted(message)`, called from the app's `post_message`, counts
what still has to be counted there: input that was already counted in the driver's thread is not
counted twice; input posted any other way (a test posting events, Textual posting its
own) is counted on the loop as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events
from textual.message import Message


def is_input(message: Message) -> bool:
    return isinstance(message, (events.Key, events.MouseEvent))


class InputArrivals:
    """Counts input as it arrives, once, wherever it came from."""

    def __init__(self, note: Callable[[bool], None]) -> None:
        self._note = note
        # id -> message: sent by the driver's thread and counted, not yet posted (a strong reference
        # until it is, so an id is never reused meanwhile). Dict operations are atomic under the GIL.
        self._counted: dict[int, Message] = {}

    def watch(self, driver: Any) -> None:
        """Count each input `driver` sends, in the thread that sends it."""
        send = driver.send_message

        def send_counted(message: Message) -> None:
            if is_input(message):
                self._counted[id(message)] = message
                self._note(isinstance(message, events.Key))
            send(message)

        driver.send_message = send_counted

    def note_posted(self, message: Message) -> None:
        """`message` reached the app: counted now if it is input that nobody counted yet."""
        if is_input(message) and self._counted.pop(id(message), None) is not message:
            self._note(isinstance(message, events.Key))

    @property
    def in_flight(self) -> int:
        """Inputs the driver sent that have not reached the app's `post_message` yet."""
        return len(self._counted)
