"""Blocking file work off the event loop: a worker thread, a time cap and a cooperative stop.

Owns `run_blocking(work, time_limit)`: `work(stop)` runs in a worker thread (asyncio.to_thread)
so the event loop keeps answering keys while it reads, walks or writes; `stop` (a `StopSignal`)
tells it when its time is up or the caller was cancelled (Ctrl-C), and long loops check it between
steps. A thread cannot be killed, so a call stuck in the kernel is abandoned after the cap plus a
grace period (`WorkTimedOut`) and the signal stays set so the thread ends as soon as it returns.
Cancellation of the awaiting task propagates at once; the thread stops at its next check.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

STUCK_GRACE_SECONDS = 2.0


class WorkTimedOut(Exception):
    """The worker did not come back within its time cap plus the grace period."""

    def __init__(self, time_limit: float) -> None:
        super().__init__(f"did not finish within {time_limit:g} s")
        self.time_limit = time_limit


class StopSignal:
    """Shared between the event loop and one worker thread: time is up, or the caller gave up."""

    def __init__(self, time_limit: float | None) -> None:
        self._event = threading.Event()
        self.time_limit = time_limit
        self._deadline = None if time_limit is None else time.monotonic() + time_limit

    def stop(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """The caller stopped waiting (cancelled, or gave up on a stuck call)."""
        return self._event.is_set()

    @property
    def expired(self) -> bool:
        return self._deadline is not None and time.monotonic() >= self._deadline

    @property
    def should_stop(self) -> bool:
        return self._event.is_set() or self.expired


async def run_blocking(work: Callable[[StopSignal], T], time_limit: float, grace: float = STUCK_GRACE_SECONDS) -> T:
    """`work(stop)` in a worker thread; raises WorkTimedOut if it overruns `time_limit + grace`."""
    signal = StopSignal(time_limit)
    try:
        return await asyncio.wait_for(asyncio.to_thread(work, signal), time_limit + grace)
    except TimeoutError:
        raise WorkTimedOut(time_limit) from None
    finally:
        signal.stop()
