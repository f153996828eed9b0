"""The process exit codes of every hermes-tui command, in one place.

OK: the command did what was asked. FAILED: it ran but the outcome is a failure (a turn that
failed, `doctor` finding a problem). USAGE: the command could not start because of something
the user can fix — flags, configuration, keys, the home folder, an unusable state.db.
INTERRUPTED: Ctrl-C (128 + SIGINT, as shells report it).
"""

from __future__ import annotations

OK = 0
FAILED = 1
USAGE = 2
INTERRUPTED = 130
