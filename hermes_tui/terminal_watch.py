"""The TUI's terminal going away: the session is still saved and ended, and the process exits in time.

When the terminal closes under the app (tmux kill-session, a closed window, a dropped ssh link)
the kernel hangs the tty up: SIGHUP (and SIGCONT) arrive, every write fails with EIO and every
read returns at once with nothing. Textual's Linux driver is not made for that: its writer thread
dies on the first failed write, after which the app blocks for good on the writer's full queue;
SIGCONT makes it start application mode again on the dead tty; and its input thread spins on the
empty reads. Two parts keep the app out of that:

- `guarded_driver(base, watch)`: the driver class with a terminal that may fail. A failed write
  (any OSError: EIO, EPIPE…) marks the terminal gone; from then on output is dropped rather than
  queued, application mode is not restarted and the input thread is told to stop.
- `TerminalWatch`: the hang guard. `arm(signum)` — at a stop signal (SIGHUP also from the
  signal handler itself, so a blocked loop cannot hold it up) or a failed write — starts a
  watchdog thread. Once the app says the session is saved (`saved()`) and the terminal is gone,
  it ends the process at once with `os._exit` (nothing is left to restore); whatever happens, it
  ends the process with 128 + N at the deadline (`HANGUP_DEADLINE_S` after SIGHUP,
  `STOP_DEADLINE_S` after SIGTERM/SIGINT). A living terminal gets the normal exit, which
  restores it, until then.

Only for a real terminal: the app installs no watch under Pilot (a headless driver).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import signal
import sys
import termios
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

from textual.driver import Driver

from hermes_tui import exit_codes

HANGUP_DEADLINE_S = 1.8  # the terminal is gone: save and be gone within 2 s of the SIGHUP
STOP_DEADLINE_S = 10.0  # a polite SIGTERM/SIGINT: the save gets longer before the process goes anyway


def terminal_alive(fd: int) -> bool:
    """False for a tty that was hung up (its ioctls fail with EIO) or an fd that is no tty at all."""
    try:
        termios.tcgetattr(fd)
    except (termios.error, OSError, ValueError):
        return False
    return True


class TerminalWatch:
    """Notices the terminal going away and guarantees the process ends after a stop signal."""

    def __init__(self, fd: int | None = None) -> None:
        self._fd = fd
        self._gone = threading.Event()
        self._saved = threading.Event()
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._deadline = math.inf
        self._code: int | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_gone: Callable[[], None] | None = None
        self._input_stop: threading.Event | None = None  # the driver's "stop reading" flag
        self._previous_sighup: Any = None

    @property
    def gone(self) -> bool:
        return self._gone.is_set()

    @property
    def installed(self) -> bool:
        return self._loop is not None

    def install(self, on_gone: Callable[[], None]) -> None:
        """Watch from now on (call on the running loop, after the app's own signal handlers).

        `on_gone` runs on the loop when a write finds the terminal gone without a SIGHUP.
        """
        self._loop = asyncio.get_running_loop()
        self._on_gone = on_gone
        if self._fd is None:
            self._fd = sys.__stdin__.fileno() if sys.__stdin__ is not None else 0
        # Python runs this handler on the main thread even while it waits on a lock (the driver's
        # full queue); the loop's own SIGHUP handler still runs, through the loop's wakeup fd.
        self._previous_sighup = signal.getsignal(signal.SIGHUP)
        signal.signal(signal.SIGHUP, self._on_sighup)
        if self.gone:
            self._loop.call_soon(on_gone)

    def remove(self) -> None:
        """Give SIGHUP back to whoever had it before `install` (the watchdog, if armed, stays)."""
        if self._loop is None:
            return
        self._loop = None
        if signal.getsignal(signal.SIGHUP) == self._on_sighup:
            with contextlib.suppress(TypeError, ValueError):
                signal.signal(signal.SIGHUP, self._previous_sighup or signal.SIG_DFL)

    def follow(self, input_stop: threading.Event) -> None:
        """The driver's flag that ends its input thread (set when the terminal is found gone)."""
        self._input_stop = input_stop
        if self.gone:
            input_stop.set()

    def arm(self, signum: int) -> None:
        """Start the watchdog for `signum` (the first signal sets the exit code; SIGHUP shortens the wait)."""
        if self._loop is None and self._thread is None:
            return  # not watching (no real terminal)
        if self._fd is not None and not terminal_alive(self._fd):
            self._mark_gone()
        limit = HANGUP_DEADLINE_S if signum == signal.SIGHUP else STOP_DEADLINE_S
        with self._lock:
            self._deadline = min(self._deadline, time.monotonic() + limit)
            if self._code is None:
                self._code = exit_codes.for_signal(signum)
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="terminal-watchdog", daemon=True)
                self._thread.start()
        self._wake.set()

    def saved(self) -> None:
        """The session is saved and ended: with the terminal gone, nothing is left to wait for."""
        self._saved.set()
        self._wake.set()

    def terminal_failed(self) -> None:
        """A write to the terminal failed (from the writer thread): it is gone, as after a SIGHUP."""
        if self.gone:
            return
        self._mark_gone()
        loop, on_gone = self._loop, self._on_gone
        if loop is not None and on_gone is not None:
            self.arm(signal.SIGHUP)
            with contextlib.suppress(RuntimeError):  # the loop already closed: the exit is under way
                loop.call_soon_threadsafe(on_gone)

    def _on_sighup(self, signum: int, frame: Any) -> None:
        self.arm(signum)
        previous = self._previous_sighup
        if callable(previous):
            previous(signum, frame)

    def _mark_gone(self) -> None:
        self._gone.set()
        if self._input_stop is not None:
            self._input_stop.set()
        self._wake.set()

    def _watch(self) -> None:
        while True:
            with self._lock:
                deadline, code = self._deadline, self._code
            if self._saved.is_set() and self._gone.is_set():
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            self._wake.wait(remaining)
            self._wake.clear()
        os._exit(code if code is not None else exit_codes.HANGUP)


class _FailSafeTerminal:
    """The terminal file the driver's writer thread writes to: a failed write reports the terminal
    gone instead of killing the thread (a dead writer leaves the app blocked on its full queue)."""

    def __init__(self, file: TextIO, on_failure: Callable[[], None]) -> None:
        self._file = file
        self._on_failure = on_failure
        self._failed = False

    def write(self, text: str) -> int:
        if self._failed:
            return 0
        try:
            return self._file.write(text)
        except (OSError, ValueError):
            self._fail()
            return 0

    def flush(self) -> None:
        if self._failed:
            return
        try:
            self._file.flush()
        except (OSError, ValueError):
            self._fail()

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return not self._failed and self._file.isatty()

    def _fail(self) -> None:
        self._failed = True
        self._on_failure()


def guarded_driver(base: type[Driver], watch: TerminalWatch) -> type[Driver]:
    """`base` made safe for a terminal that goes away (only Textual's Linux driver needs it)."""
    try:
        from textual.drivers.linux_driver import LinuxDriver
    except ImportError:  # no termios driver on this platform
        return base
    if not issubclass(base, LinuxDriver):
        return base

    class GuardedLinuxDriver(base):  # type: ignore[valid-type,misc]
        def __init__(self, app: Any, **options: Any) -> None:
            super().__init__(app, **options)
            self._file = _FailSafeTerminal(self._file, watch.terminal_failed)
            watch.follow(self.exit_event)

        def write(self, data: str) -> None:
            if not watch.gone:
                super().write(data)

        def resume_application_mode(self) -> None:
            # SIGCONT comes with the hangup: application mode is not started again on a dead tty.
            if not watch.gone and terminal_alive(self.fileno):
                super().resume_application_mode()

    return GuardedLinuxDriver
