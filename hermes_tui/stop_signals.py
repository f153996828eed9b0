"""The signals that stop hermes-tui the way Ctrl-C stops a turn, and what each leaves behind.

SIGINT (Ctrl-C in `run`), SIGTERM (a polite kill: `kill`, `timeout`, a service manager) and SIGHUP
(the terminal went away) all end a running turn as an interrupt does: the core keeps the partial
answer marked interrupted, a running shell command's process group is killed, and everything is
flushed to state.db. Then the session is ended with the signal's end reason and the process exits
with 128 + the signal number, as shells report it (`hermes_tui.exit_codes.for_signal`).

`StopSignals` installs the handlers on the running event loop and remembers the first signal;
each front-end decides what a signal stops (headless: the turn task; the TUI: the app, with a
hang guard for a terminal that went away: `hermes_tui.terminal_watch`).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable

from hermes_tui import exit_codes

END_REASONS: dict[int, str] = {
    signal.SIGINT: "interrupted",
    signal.SIGTERM: "sigterm",
    signal.SIGHUP: "sighup",
}
ALL_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def end_reason(signum: int) -> str:
    """The sessions.end_reason a session gets when `signum` stopped it."""
    return END_REASONS.get(signum, "signal")


def exit_code(signum: int) -> int:
    return exit_codes.for_signal(signum)


class StopSignals:
    """Handlers for stop signals on one event loop; `received` is the first signal that arrived."""

    def __init__(self, on_signal: Callable[[int], None], signals: tuple[int, ...] = ALL_STOP_SIGNALS) -> None:
        self._on_signal = on_signal
        self._signals = signals
        self._installed: list[int] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self.received: int | None = None

    def install(self) -> StopSignals:
        """Handle the signals on the running loop (where the platform allows it)."""
        self._loop = asyncio.get_running_loop()
        for signum in self._signals:
            try:
                self._loop.add_signal_handler(signum, self._handle, signum)
            except (NotImplementedError, RuntimeError, ValueError):
                continue
            self._installed.append(signum)
        return self

    def remove(self) -> None:
        """Give the signals back their default meaning."""
        loop, self._loop = self._loop, None
        for signum in self._installed:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                if loop is not None:
                    loop.remove_signal_handler(signum)
        self._installed.clear()

    def _handle(self, signum: int) -> None:
        if self.received is None:
            self.received = signum
        self._on_signal(signum)

    @property
    def end_reason(self) -> str | None:
        return None if self.received is None else end_reason(self.received)

    @property
    def exit_code(self) -> int | None:
        return None if self.received is None else exit_code(self.received)
