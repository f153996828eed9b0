"""Private file modes for everything hermes-tui keeps: folders 0700, files 0600.

Owns the two modes and the only ways we create folders and files that hold user data (the
home and its sub-folders, state.db, memories, exports): created with the mode from the start
(`os.mkdir`/`os.open` with a mode, so the umask can only tighten it), never loosened later with
a chmod. SQLite gives a database's -wal and -shm files the mode of the database file, so a
state.db created here keeps its journal private too. Also `looser_than`, the test for modes
that give group or others any access. Imports nothing from hermes-tui.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def make_private_dir(path: Path) -> bool:
    """Create `path` (and missing parents) with the folder itself 0700; True if it was created.

    Parents are created with the default mode (they are not ours, e.g. ~/.config). An existing
    folder is left as it is. Raises OSError.
    """
    if path.is_dir():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(path, PRIVATE_DIR_MODE)
    except FileExistsError:
        if not path.is_dir():
            raise
        return False
    return True


def create_private_file(path: Path, *, exclusive: bool = True) -> int:
    """Open `path` for writing, creating it 0600; returns the file descriptor.

    `exclusive=True` refuses an existing file (FileExistsError), so nothing is overwritten.
    With `exclusive=False` an existing file is truncated and keeps its own mode. Raises OSError.
    """
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    return os.open(path, flags | getattr(os, "O_CLOEXEC", 0), PRIVATE_FILE_MODE)


def write_private_text(path: Path, text: str, *, exclusive: bool = True) -> None:
    """Write `text` (UTF-8) to a file created 0600 (see `create_private_file`)."""
    with os.fdopen(create_private_file(path, exclusive=exclusive), "w", encoding="utf-8") as handle:
        handle.write(text)


def touch_private_file(path: Path) -> bool:
    """Create an empty file 0600 unless `path` exists already; True if it was created."""
    try:
        os.close(create_private_file(path, exclusive=True))
    except FileExistsError:
        return False
    return True


def permission_bits(path: Path) -> int:
    """The permission bits of `path` (0o777 part of st_mode). Raises OSError."""
    return stat.S_IMODE(path.stat().st_mode)


def looser_than(mode: int, wanted: int) -> bool:
    """True when `mode` gives group or others any access `wanted` does not."""
    return bool(mode & 0o077 & ~wanted)
