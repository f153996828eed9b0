"""The file a write is about to replace, as it is now: its bytes (for a diff or a patch) and its identity.

Owns `read_current(place, where, max_bytes)`: the regular file at a `safe_open.WritePlace`, read through
the folder descriptor the judged path was opened with (no link followed, the same inode the write
was judged for), and `unchanged_since(folder, name, where, seen)`: whether the file is still the one
that was read (same inode, size and modification time), checked just before a patch writes so an
edit is never applied to content it was not computed from. Also `shown_path`: how a changed file
is named to a person (relative to the working folder when inside it). Blocking: a worker thread.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.core.tools.safe_open import WritePlace, existing_at, open_file_at

_READ_CHUNK = 1024 * 1024


class FileReplaced(Exception):
    """Another file took the name between the check and the read."""

    def __init__(self, where: str) -> None:
        super().__init__(f"{where} was replaced by another file")
        self.where = where


class TooLarge(Exception):
    """The file is larger than the caller is willing to read."""

    def __init__(self, size: int) -> None:
        super().__init__(f"{size:,} bytes")
        self.size = size


@dataclass(frozen=True)
class Seen:
    """Which file was read: enough to notice that it was replaced or written since."""

    device: int
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, info: os.stat_result) -> Seen:
        return cls(info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


@dataclass(frozen=True)
class Current:
    """The file's bytes and which file they came from."""

    data: bytes
    seen: Seen


def read_current(place: WritePlace, where: str, max_bytes: int) -> Current | None:
    """The existing file at `place` (None: there is none); raises TooLarge past `max_bytes`,
    FileReplaced when another file took its name since it was judged, PathChanged when a link did,
    OSError otherwise."""
    existing = place.existing
    if existing is None or place.missing:
        return None
    if existing.st_size > max_bytes:
        raise TooLarge(existing.st_size)
    opened = open_file_at(place.folder_fd, place.name, where)
    try:
        info = os.fstat(opened.fd)
        if (info.st_dev, info.st_ino) != (existing.st_dev, existing.st_ino):
            raise FileReplaced(where)
        chunks, total = [], 0
        while chunk := os.read(opened.fd, _READ_CHUNK):
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise TooLarge(total)
        return Current(b"".join(chunks), Seen.of(info))
    finally:
        os.close(opened.fd)


def unchanged_since(folder: int, name: str, where: str, seen: Seen) -> bool:
    """Whether `name` in the open folder is still the file that was read, unmodified."""
    info = existing_at(folder, name, where)
    return info is not None and Seen.of(info) == seen


def shown_path(resolved: Path, cwd: Path) -> str:
    """`resolved` relative to the working folder when it lies inside it, else absolute."""
    root = os.path.realpath(cwd)
    text = str(resolved)
    if text.startswith(root.rstrip("/") + "/"):
        return text[len(root.rstrip("/")) + 1 :]
    return text
