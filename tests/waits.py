"""How long a test waits for a state before it calls the wait a hang.

A test waits for the state it needs (an event, a row, a line of output), never for a time budget: on
a machine shared with other work (two cores, load 15) a step that takes 50 ms on a quiet one can take
seconds. So every polling helper waits at least `HANG_GUARD_S`; the shorter timeouts some callers
still pass were the old budgets and only ever lengthen the wait (`guard`). A test whose point is
speed is a benchmark (bench/), not a test. pytest-timeout (pyproject.toml) stops a whole test
that hangs anyway.
"""

from __future__ import annotations

HANG_GUARD_S = 60.0


def guard(timeout: float | None = None) -> float:
    """The seconds a wait may last: `timeout` when it is longer than the hang guard, else the guard."""
    return max(HANG_GUARD_S, timeout or 0.0)
