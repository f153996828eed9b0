"""Private, crash-safe file writes and cross-process file locks for what the agent learns.

Owns `atomic_write_private` (write a temporary sibling created 0600, fsync, rename over the target,
so a reader never sees half a file and the result is private whatever the umask) and `file_lock`
(an exclusive `flock` on the sibling "<name>.lock", the same convention Hermes uses for its memory
files and its skills usage sidecar, so the two programs serialise their writes to one home).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path

from hermes_tui.store.file_modes import create_private_file


def atomic_write_private(path: Path, data: str | bytes) -> None:
    """Replace `path` with `data` (text is written as UTF-8) through a 0600 temporary file + rename."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    fd = create_private_file(tmp, exclusive=True)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def lock_path(path: Path) -> Path:
    """The sibling lock file of `path` ("MEMORY.md" -> "MEMORY.md.lock")."""
    return path.with_name(path.name + ".lock")


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path`'s sibling lock file (created 0600 if missing, left behind)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    target = lock_path(path)
    try:
        fd = create_private_file(target, exclusive=True)
    except FileExistsError:
        # flock needs no write access; O_NONBLOCK: a FIFO put there must not hang the open
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, f"{target} is not a regular file; remove it so the lock can be made")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
