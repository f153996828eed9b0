"""Reading our own files only when they are regular files, and never more of them than we meant to.

A FIFO where config.toml or state.db should be would block the first `open()` or `read()` for
ever, a symlink to /dev/zero would be read until memory runs out, and a device may act on being
opened. So every file of the home is checked with `stat` before it is opened (a non-regular
file is never opened at all), opened non-blocking, checked again with `fstat` on the open
descriptor (no window between the check and the read), and read up to a cap.

`read_regular_bytes(path, limit=...)` / `read_regular_text(...)` read a whole file;
`read_regular_head(path, n)` its first bytes (a header); `regular_file_problem(path)` is for the
files SQLite opens itself (state.db and its -wal, -shm, -journal): None when the path is missing
or a regular file, else what it is. Errors are `OSError`s (`NotRegularFileError`,
`FileTooLargeError`) whose text is one short phrase without the path, so existing
`except OSError` handlers treat them as unreadable files. Standard library only.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
_READ_CHUNK = 1 << 16
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")
SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file


class NotRegularFileError(OSError):
    """The path is a FIFO, a device, a socket or a directory where a regular file should be."""

    def __init__(self, path: str | Path, kind: str) -> None:
        super().__init__(f"is {kind}, not a regular file")
        self.path = str(path)
        self.kind = kind


class FileTooLargeError(OSError):
    """The file is larger than the reader accepts."""

    def __init__(self, path: str | Path, limit: int, size: int | None = None) -> None:
        found = f" ({size:,} bytes)" if size is not None else ""
        super().__init__(f"larger than {_size_text(limit)}{found}")
        self.path = str(path)
        self.limit = limit


def _size_text(limit: int) -> str:
    if limit >= 1 << 20 and limit % (1 << 20) == 0:
        return f"{limit >> 20} MB"
    if limit >= 1 << 10 and limit % (1 << 10) == 0:
        return f"{limit >> 10} KB"
    return f"{limit:,} bytes"


def file_kind(mode: int) -> str:
    """What a non-regular `st_mode` is, as a phrase ("a FIFO (named pipe)", "a character device" …)."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def _check_mode(path: str | Path, mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise NotRegularFileError(path, file_kind(mode))


def open_regular(path: str | Path) -> int:
    """A read-only descriptor of `path`, which must be a regular file (symlinks to one are fine).

    Raises FileNotFoundError, NotRegularFileError or another OSError; never blocks.
    """
    _check_mode(path, os.stat(path).st_mode)  # a FIFO or a device is not even opened
    fd = os.open(path, _OPEN_FLAGS)
    try:
        _check_mode(path, os.fstat(fd).st_mode)  # the file that was opened, whatever happened since
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular_bytes(path: str | Path, *, limit: int | None = None) -> bytes:
    """The whole of `path` (a regular file); FileTooLargeError when it has more than `limit` bytes."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if limit is not None and size > limit:
            raise FileTooLargeError(path, limit, size)
        chunks: list[bytes] = []
        total = 0
        while True:  # bounded even when the file grows while it is read
            want = _READ_CHUNK if limit is None else min(_READ_CHUNK, limit + 1 - total)
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if limit is not None and total > limit:
                raise FileTooLargeError(path, limit)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_regular_text(
    path: str | Path, *, limit: int | None = None, encoding: str = "utf-8", errors: str = "strict"
) -> str:
    """`read_regular_bytes` decoded (UnicodeDecodeError with errors="strict"), line ends made "\\n"
    as `Path.read_text` makes them (universal newlines), so it can stand in for it."""
    text = read_regular_bytes(path, limit=limit).decode(encoding, errors)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_regular_head(path: str | Path, size: int) -> bytes:
    """At most the first `size` bytes of `path` (a regular file)."""
    fd = open_regular(path)
    try:
        return os.read(fd, size)
    finally:
        os.close(fd)


def regular_file_problem(path: str | Path) -> str | None:
    """None when `path` is missing or a regular file; else what it is ("is a FIFO …, not a regular file")."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be examined ({exc.strerror or exc})"
    return None if stat.S_ISREG(mode) else str(NotRegularFileError(path, file_kind(mode)))


def sqlite_files_problem(path: str | Path) -> str | None:
    """The first of a database file and its -wal/-shm/-journal that exists but is not a regular file,
    as "<file>: is …, not a regular file"; None when all are missing or regular."""
    for candidate in (str(path), *(f"{path}{suffix}" for suffix in SQLITE_COMPANIONS)):
        problem = regular_file_problem(candidate)
        if problem:
            return f"{candidate}: {problem}"
    return None
