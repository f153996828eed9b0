"""When a streamed answer's buffered text reaches the screen: `FlushPolicy`, and `PendingText` that holds it.

Every flush costs the event loop a Markdown update, a layout and a paint (tens of ms for a long
answer, several layouts each), and the same loop reads the stream and takes the keys. A fixed
rate of ~30 a second took the whole of a core at 1,000 deltas a second, so keys queued behind the
stream — on a loaded machine seconds at a time. The policy spaces flushes by what the loop can
spare instead, and the stream's rendering is what gives way:

- a flush never comes closer than `min_interval_s` after the previous one (the fastest rate);
- after each flush the interval adapts to the period since the previous one: when the loop's
  thread was busy for more than `busy_share` of it, or the flush's timer fired more than `late_s`
  late (the loop, or the machine, is behind), the interval widens by `widen`, up to
  `max_interval_s`; when the loop was mostly idle and on time it narrows back by `narrow`;
- a flush due while a key waits to be drawn waits `key_frame_s`, so the key's frame goes first,
  with nothing to lay out, and the interval does not narrow while the user types;
- a single flush's own cost spaces the next one at least `cost / render_share` away.

Text is never dropped: `PendingText` only collects deltas and hands all of them over at a flush
(`take`) or when the answer ends. Nothing here imports Textual; the clocks are injected (tests
drive them by hand): `clock` is wall time, `cpu_clock` the loop thread's CPU time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

MIN_INTERVAL_S = 1 / 30
MAX_INTERVAL_S = 0.5
BUSY_SHARE = 0.5
RENDER_SHARE = 0.33
LATE_S = 0.02
KEY_FRAME_S = 0.01
WIDEN = 1.5
NARROW = 1.25


@dataclass
class PendingText:
    """Streamed text not on screen yet, in arrival order."""

    parts: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        if text:
            self.parts.append(text)

    def take(self) -> str:
        """All of it, joined; the buffer is empty after."""
        joined = "".join(self.parts)
        self.parts.clear()
        return joined

    def peek(self) -> str:
        return "".join(self.parts)

    def clear(self) -> None:
        self.parts.clear()

    def __bool__(self) -> bool:
        return bool(self.parts)


class FlushPolicy:
    """Decides the spacing of streaming flushes from the loop's lag, its busy share and keys."""

    def __init__(
        self,
        *,
        min_interval_s: float = MIN_INTERVAL_S,
        max_interval_s: float = MAX_INTERVAL_S,
        busy_share: float = BUSY_SHARE,
        render_share: float = RENDER_SHARE,
        late_s: float = LATE_S,
        key_frame_s: float = KEY_FRAME_S,
        widen: float = WIDEN,
        narrow: float = NARROW,
        clock: Callable[[], float] = time.perf_counter,
        cpu_clock: Callable[[], float] = time.thread_time,
    ) -> None:
        self.min_interval_s = min_interval_s
        self.max_interval_s = max_interval_s
        self.busy_share = busy_share
        self.render_share = render_share
        self.late_s = late_s
        self.key_frame_s = key_frame_s
        self.widen = widen
        self.narrow = narrow
        self.clock = clock
        self.cpu_clock = cpu_clock
        self.interval_s = min_interval_s  # the spacing of the next flush
        self.cost_s = 0.0  # the last flush's own cost
        self.widened = 0  # how often the interval widened (tests, benchmarks)
        self.deferred = 0  # flushes that let a key's frame go first
        self._key_waiting = False
        self._keys_in_period = False
        self._lateness = 0.0
        self._last: tuple[float, float] | None = None  # (clock, cpu_clock) at the previous flush

    # ------------------------------------------------------------------ what happened

    def note_key(self) -> None:
        """A key arrived: the next flush lets its frame go first."""
        self._key_waiting = True
        self._keys_in_period = True

    def note_cost(self, seconds: float) -> None:
        """What the last flush took to reach the screen."""
        self.cost_s = max(0.0, seconds)

    def restart(self) -> None:
        """A new answer: the interval starts from the fastest rate again."""
        self.interval_s = self.min_interval_s
        self._last = None
        self._key_waiting = self._keys_in_period = False

    # ------------------------------------------------------------------ decisions

    @property
    def delay_s(self) -> float:
        """How long after now the next flush is scheduled."""
        return max(self.interval_s, self.cost_s / self.render_share if self.render_share > 0 else 0.0)

    def when_due(self, scheduled_for: float) -> float:
        """The flush timer fired (it was set for `scheduled_for`, on `clock`): 0 to flush now, else
        the seconds to wait first (a key's frame goes first)."""
        self._lateness = max(self._lateness, self.clock() - scheduled_for)
        if self._key_waiting:
            self._key_waiting = False
            self.deferred += 1
            return self.key_frame_s
        return 0.0

    def flushed(self) -> None:
        """A flush starts now: adapt the interval to the period since the previous one."""
        now, cpu = self.clock(), self.cpu_clock()
        late, self._lateness = self._lateness, 0.0
        keys, self._keys_in_period = self._keys_in_period, False
        previous, self._last = self._last, (now, cpu)
        if previous is None:
            return
        wall = now - previous[0]
        busy = (cpu - previous[1]) / wall if wall > 0 else 1.0
        if late > self.late_s or busy > self.busy_share:
            self.interval_s = min(self.max_interval_s, self.interval_s * self.widen)
            self.widened += 1
        elif not keys and busy < self.busy_share * 0.6 and late < self.late_s / 2:
            self.interval_s = max(self.min_interval_s, self.interval_s / self.narrow)
