"""A snippet run in a fresh interpreter, for what happens once per process (a module's first import,
a lexer's first compile): its standard output, or CalledProcessError with its stderr."""

from __future__ import annotations

import subprocess
import sys

from tests.waits import HANG_GUARD_S


def fresh_python(script: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=HANG_GUARD_S
    ).stdout
