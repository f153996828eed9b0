"""`GcPacer`: keeps Python's full garbage collections from landing between a keystroke and its echo.

A full (oldest-generation) collection walks every live object the collector tracks, ~0.5 µs each
here. A Textual app holds a great many (every drawn line keeps several small caches): once an
answer streamed, CPython's own full collections took 40-200 ms and came every second or so, and
most keystrokes slower than 100 ms during a stream were waiting for one. The pacer

1. moves what is alive once start-up is done (modules, classes, the SDK, the first screen) into
   the permanent generation (`gc.freeze`), which no collection walks again (without a full
   collection first: the little cyclic garbage start-up leaves is frozen with it);
2. turns off CPython's automatic full collections, keeping the cheap young-generation ones;
3. runs the full collection itself when one is due (as many younger collections have run as
   would have started one) at a pause in typing — no key or mouse input for `quiet_s` — or once
   it has waited `max_delay_s`. The wait is short on purpose: while an answer streams, cyclic
   garbage (removed Markdown blocks) piles up at ~25,000 objects a second, and a late collection
   has to walk all of it.

While the user types there is rarely such a pause, so the app also calls `after_echo()` once a key
that changed a text field (the prompt) has been drawn: a due collection runs right then, when the
next key is most likely still tens of milliseconds away, rather than at whatever moment the timer
lands on (maybe just before a key, which then waits for the whole collection and a frame) — unless
the next key came meanwhile (typed while the frame was drawn): then that key's echo is the moment.
The app counts inputs as they arrive (`note_input`, in the terminal driver's thread as it hands
them over: `input_arrivals`) and as it handles them, and passes the second count.

A collection never starts while a key is on its way to the screen: from a key's arrival until the
app reports the frame that echoes it (`note_echo`, a count of keys handled), `tick()` waits — even
past `max_delay_s` (a key that echoes nothing, an arrow key, counts as drawn after `echo_wait_s`). Under a busy
stream the collection then runs at the echo (`after_echo`) or at the first tick after it.

Freed memory goes back to the C allocator, not to the system. `trim` (the app's: SQLite's page
caches, then heap_trim.trim_heap in a thread) runs at a quiet tick — once start-up is over
(opening a long history leaves megabytes of freed rows behind; `trim_after_start_s` later, when
the side panel's background reads are done too) and then after a paced collection, at most every
`trim_every_s` — with the same rule as a collection: never while a key waits for its frame. A
trim that returns False (the app's, while a turn runs) stays due.

Reference counting still frees everything that is not part of a cycle at once. `release` (run on
each tick) empties caches that keep removed widgets' objects alive (widgets.textual_workarounds),
which shrinks what every collection walks. Nothing here imports Textual: the app calls `hold()` at
mount, `start()` once start-up is over, `note_input()` on each key or mouse event, `after_echo()`
once a typed key is drawn, `tick()` a few times a second, and `stop()` on the way out.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable

YOUNG_THRESHOLD = 700  # CPython's default for the youngest generation
MIDDLE_THRESHOLD = 10  # and for the middle one
NEVER = 1_000_000_000  # an oldest-generation threshold that is never reached
QUIET_S = 0.25
MAX_DELAY_S = 1.0
ECHO_WAIT_S = 0.5  # an input without a reported echo stops holding collections back after this
TRIM_EVERY_S = 30.0  # the heap is trimmed at most this often after paced collections
TRIM_AFTER_START_S = 2.0  # start-up's trim waits this long: the background reads that follow start-up are done


class GcPacer:
    """Decides when the full garbage collection runs."""

    def __init__(
        self,
        *,
        quiet_s: float = QUIET_S,
        max_delay_s: float = MAX_DELAY_S,
        echo_wait_s: float = ECHO_WAIT_S,
        due_after: int = MIDDLE_THRESHOLD,
        clock: Callable[[], float] = time.monotonic,
        release: Callable[[], None] | None = None,
        trim: Callable[[], object] | None = None,
        trim_every_s: float = TRIM_EVERY_S,
        trim_after_start_s: float = TRIM_AFTER_START_S,
    ) -> None:
        """`release` runs on every tick: it lets go of caches that keep dead objects alive;
        `trim` hands freed heap pages back to the system at quiet ticks (see the module); when it
        returns False it did nothing and stays due."""
        self.quiet_s = quiet_s
        self.max_delay_s = max_delay_s
        self.echo_wait_s = echo_wait_s
        self.due_after = due_after
        self.clock = clock
        self.release = release
        self.trim = trim
        self.trim_every_s = trim_every_s
        self.trim_after_start_s = trim_after_start_s
        self._trim_not_before = 0.0
        self.trims = 0  # heap trims run
        self._trim_due = False
        self._last_trim: float | None = None
        self.started = False
        self.collections = 0  # full collections run by the pacer
        self.longest_s = 0.0  # the longest of them
        self._input_lock = threading.Lock()  # note_input runs in the terminal driver's thread too
        self._last_input = clock()
        self.inputs = 0  # keys and mouse events seen so far
        self.keys = 0  # of them, keys
        self.echoed = 0  # keys whose frame the app reported drawn (note_echo)
        self._last_key = clock()
        self.held_for_input = 0  # ticks that left a due collection for after a key's frame
        self._due_since: float | None = None
        self._saved_threshold: tuple[int, int, int] | None = None

    def hold(self) -> None:
        """Turn CPython's automatic full collections off now, before start-up allocates its bulk.

        Opening a 10,000-message session, one ran 145 ms while the user may already be typing.
        `start()` later freezes what start-up left and paces the collections; `stop()` undoes both.
        """
        if self._saved_threshold is None:
            self._saved_threshold = gc.get_threshold()
            gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, NEVER)

    def start(self) -> None:
        """Freeze what start-up left alive and take over the full collections (once)."""
        if self.started:
            return
        self.started = True
        if self._saved_threshold is None:
            self._saved_threshold = gc.get_threshold()
        # Only the young generations: a full collection here walked everything start-up loaded
        # (65 ms with a 10,000-message session open, 110-180 ms on a loaded machine) while the user
        # may already be typing, to free ~1,000 objects of cyclic garbage, which stay frozen instead.
        gc.collect(1)
        gc.freeze()
        gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, NEVER)
        self._trim_due = self.trim is not None
        self._trim_not_before = self.clock() + self.trim_after_start_s

    def freeze_more(self) -> None:
        """Freeze what was loaded since `start()` too (the provider SDK, imported when the user first
        types), so the paced full collections do not walk it either. Nothing before `start()`."""
        if self.started:
            gc.collect(1)
            gc.freeze()

    def stop(self) -> None:
        """Give the collections back to CPython, and what start() froze back to them too."""
        if self._saved_threshold is not None:
            gc.set_threshold(*self._saved_threshold)
            self._saved_threshold = None
        if not self.started:
            return
        gc.unfreeze()
        self.started = False

    def note_input(self, is_key: bool = True) -> None:
        """The user pressed a key or used the mouse (called from any thread: the terminal driver's
        input thread counts a key before the event loop has seen it, `input_arrivals`)."""
        with self._input_lock:
            self._last_input = self.clock()
            self.inputs += 1
            if is_key:
                self.keys += 1
                self._last_key = self._last_input

    def note_echo(self, keys: int) -> None:
        """The frame showing the first `keys` keys was drawn."""
        self.echoed = max(self.echoed, keys)

    @property
    def input_pending(self) -> bool:
        """A key arrived and the frame that shows it has not been drawn yet (as far as is known)."""
        return self.echoed < self.keys and self.clock() - self._last_key < self.echo_wait_s

    @property
    def due(self) -> bool:
        """True when CPython would have run a full collection by now."""
        return gc.get_count()[2] >= self.due_after

    def after_echo(self, inputs: int | None = None) -> bool:
        """A key was just drawn: run the full collection now if one is due; True when it ran.

        `inputs`: how many inputs had been handed to the app when that key was shown. If more have
        arrived (`inputs` counts arrivals), one is waiting and would wait for the whole collection:
        its own echo collects instead.
        """
        if not self.started or not self.due or (inputs is not None and inputs != self.inputs):
            return False
        self._collect()
        return True

    def tick(self) -> bool:
        """Run the full collection if it is due and the moment is right; True when it ran."""
        if self.started and self.release is not None:
            self.release()
        if not self.started:
            return False
        if not self.due:
            self._due_since = None
            self._trim_if_quiet()
            return False
        now = self.clock()
        if self._due_since is None:
            self._due_since = now
        quiet = now - self._last_input >= self.quiet_s
        if not quiet and now - self._due_since < self.max_delay_s:
            return False
        if self.input_pending:  # a key waits for its frame: never in front of it
            self.held_for_input += 1
            return False
        self._collect()
        return True

    def _trim_if_quiet(self) -> None:
        """Trim the heap if a trim is due, no input came for `quiet_s` and no key waits for its frame."""
        if not self._trim_due or self.trim is None:
            return
        now = self.clock()
        if now < self._trim_not_before or now - self._last_input < self.quiet_s or self.input_pending:
            return
        if self.trim() is False:  # not now (the app says when: not while a turn streams)
            return
        self.trims += 1
        self._trim_due = False
        self._last_trim = self.clock()

    def _collect(self) -> None:
        began = time.perf_counter()
        gc.collect()
        self.longest_s = max(self.longest_s, time.perf_counter() - began)
        self.collections += 1
        self._due_since = None
        if self.trim is not None and (self._last_trim is None or self.clock() - self._last_trim >= self.trim_every_s):
            self._trim_due = True  # at the next quiet tick
