"""The process exit codes of every hermes-tui command, in one place.

OK: the command did what was asked — for `run`, the turn produced a real answer. FAILED: it ran
but the outcome is a failure (a turn that ended without a real answer: an error, an empty answer,
a content filter, a reasoning-only or length-exhausted answer, an exhausted iteration budget;
`doctor` finding a problem). USAGE: the command could not start because of something the user can
fix — flags, configuration, keys, the home folder, an unusable state.db.
Stopped by a signal: 128 + the signal number, as shells report it — INTERRUPTED 130 (SIGINT,
Ctrl-C), TERMINATED 143 (SIGTERM), HANGUP 129 (SIGHUP). The turn in progress is interrupted
first and its partial answer saved (`hermes_tui.stop_signals`).
"""

from __future__ import annotations

import signal

OK = 0
FAILED = 1
USAGE = 2
HANGUP = 128 + signal.SIGHUP  # 129
INTERRUPTED = 128 + signal.SIGINT  # 130
TERMINATED = 128 + signal.SIGTERM  # 143


def for_signal(signum: int) -> int:
    """The exit code of a process stopped by `signum`."""
    return 128 + int(signum)
