"""Steering a running agent: `/steer`, `/queue` and `/stop` (reference §6.0 step 7, §10).

`SteeringInbox` is what the front-ends write into while a turn runs, and the one thing the turn
runner reads of it (through `TurnDeps.steering`, the `Steering` protocol in deps.py):

- steer: guidance for the model *now*. The runner delivers it right after the next tool call,
  appended to the last tool result as "User guidance: …" (Hermes's place for it: the prompt and
  the history stay byte-stable, and the model reads it with the result it is about to act on).
  Guidance still waiting when the turn ends (no tool call came) is not lost: it moves to the
  front of the queue and is sent as the next message.
- queue: messages sent, in order, each as its own turn once the running turn ends (the
  front-end asks `take_next()` between turns). The queue is visible (`QueueChanged`) and
  editable: list, drop one, take one back into the prompt, clear.
- stop: finish the tool call that is running, answer the remaining calls of that round as
  skipped, and end the turn without another model call — gentler than Ctrl-C, which cancels
  mid-stream.

Every change emits `QueueChanged` so the UI can show what is waiting.
"""

from __future__ import annotations

from hermes_tui.core import events as ev
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.messages import Message, content_text

STEER_PREFIX = "\n\nUser guidance: "
STOPPED_TOOL_RESULT = "Not run: the user asked the agent to stop after the previous tool call."
STOPPED_EXIT_REASON = "stopped"


class SteeringInbox:
    """Guidance, queued messages and a stop request for the agent's turns."""

    def __init__(self, emitter: Emitter) -> None:
        self._events = emitter
        self._steers: list[str] = []
        self._queue: list[str] = []
        self._stop = False

    # ------------------------------------------------------------------ what the UI reads

    @property
    def queued(self) -> tuple[str, ...]:
        return tuple(self._queue)

    @property
    def pending_steers(self) -> tuple[str, ...]:
        return tuple(self._steers)

    @property
    def stop_requested(self) -> bool:
        return self._stop

    def _changed(self) -> None:
        self._events.emit(ev.QueueChanged(tuple(self._queue), tuple(self._steers), self._stop))

    # ------------------------------------------------------------------ steer and stop

    def steer(self, text: str) -> None:
        self._steers.append(text.strip())
        self._changed()

    def request_stop(self) -> None:
        self._stop = True
        self._changed()

    # ------------------------------------------------------------------ the runner's side

    def begin_turn(self) -> None:
        """A turn starts: an old stop request no longer applies."""
        if self._stop:
            self._stop = False
            self._changed()

    def deliver(self, messages: list[Message]) -> bool:
        """Append waiting guidance to the last message when it is a tool result; True if delivered."""
        if not self._steers or not messages or messages[-1].get("role") != "tool":
            return False
        guidance = "\n".join(self._steers)
        last = messages[-1]
        messages[-1] = {**last, "content": content_text(last.get("content")) + STEER_PREFIX + guidance}
        self._steers.clear()
        self._events.review("info", f"Steer delivered after {last.get('tool_name') or 'the tool call'}: {guidance}")
        self._changed()
        return True

    def after_turn(self) -> None:
        """The turn ended: guidance that found no tool call becomes the next queued message."""
        if not self._steers and not self._stop:
            return
        if self._steers:
            self._queue.insert(0, "\n".join(self._steers))
            self._steers.clear()
            self._events.review("info", "The turn ended before another tool call: the steer is queued as a message")
        self._stop = False
        self._changed()

    # ------------------------------------------------------------------ the queue

    def enqueue(self, text: str, *, first: bool = False) -> int:
        """Queue `text` (at the front with `first`: it goes out next); returns its position (1-based)."""
        if first:
            self._queue.insert(0, text.strip())
        else:
            self._queue.append(text.strip())
        self._changed()
        return 1 if first else len(self._queue)

    def take_next(self) -> str | None:
        """The next queued message, removed from the queue (None when it is empty)."""
        if not self._queue:
            return None
        text = self._queue.pop(0)
        self._changed()
        return text

    def take(self, position: int) -> str:
        """Remove and return item `position` (1-based); IndexError when there is none."""
        if not 1 <= position <= len(self._queue):
            raise IndexError(position)
        text = self._queue.pop(position - 1)
        self._changed()
        return text

    def clear(self) -> int:
        """Empty the queue (and waiting guidance); returns how many entries were dropped."""
        dropped = len(self._queue) + len(self._steers)
        self._queue.clear()
        self._steers.clear()
        self._changed()
        return dropped
