"""Writing one file for write_file: blocking work, meant for a worker thread.

Owns the atomic write into the folder `safe_open.locate_for_write` opened while the path was
judged: missing parent folders made relative to it (`safe_open.enter_folders`), a temp file created
in that folder and renamed over the name there (`os.rename` with both `dir_fd`s), so no link
swapped in after the check can lead the write elsewhere. An existing file keeps its permission
bits; a new one gets the umask-based mode. In place only when the folder forbids the temp file but
the file is writable (and then never through a second name the user did not approve). A write
stopped (Ctrl-C, time cap) before the rename leaves the old file exactly as it was and no temp file.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from typing import BinaryIO

from hermes_tui.core.tools.base import ToolResult
from hermes_tui.core.tools.blocking import StopSignal
from hermes_tui.core.tools.file_access import changed_result, error_result
from hermes_tui.core.tools.file_policy import visible_path
from hermes_tui.core.tools.safe_open import (
    NotRegularFile,
    PathChanged,
    WritePlace,
    enter_folders,
    existing_at,
    kind_of,
)

_WRITE_CHUNK_BYTES = 1024 * 1024
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
_IN_PLACE = os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | _CLOEXEC


class WriteStopped(Exception):
    """The write was stopped before the new content replaced the old."""


def count_text_lines(content: str) -> int:
    """Lines in `content`: newlines, plus one for a last line without a newline."""
    if not content:
        return 0
    return content.count("\n") + (0 if content.endswith("\n") else 1)


def _write_all(handle: BinaryIO, data: bytes, stop: StopSignal | None) -> None:
    view = memoryview(data)
    for start in range(0, len(data), _WRITE_CHUNK_BYTES):
        if stop is not None and stop.should_stop:
            raise WriteStopped
        handle.write(view[start : start + _WRITE_CHUNK_BYTES])


def _write_in_place(folder: int, name: str, where: str, data: bytes, stop: StopSignal | None, shared_ok: bool) -> None:
    """Overwrite the existing file `name` through its own descriptor (the folder refused a temp file)."""
    if stop is not None and stop.should_stop:
        raise WriteStopped
    fd = os.open(name, _IN_PLACE, dir_fd=folder)  # not writable: PermissionError, as for the temp file
    with os.fdopen(fd, "wb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(where, kind_of(info.st_mode))
        if info.st_nlink > 1 and not shared_ok:  # it gained a second name after the user was asked
            raise PermissionError(errno.EACCES, "the file has more than one name now", where)
        os.set_blocking(fd, True)
        os.ftruncate(fd, 0)
        _write_all(handle, data, stop)


def atomic_write(folder: int, name: str, where: str, data: bytes, stop: StopSignal | None, shared_ok: bool) -> bool:
    """Write `data` as `name` in the open folder via a temp file there and a rename; True when a
    file was replaced. Raises WriteStopped (nothing changed) when `stop` fires before the rename."""
    old = existing_at(folder, name, where)
    old_mode = stat.S_IMODE(old.st_mode) if old is not None else None
    temp = f".{name}.{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(temp, _CREATE, 0o666, dir_fd=folder)
    except PermissionError:
        if old is None:
            raise
        _write_in_place(folder, name, where, data, stop, shared_ok)
        return True
    try:
        with os.fdopen(fd, "wb") as handle:
            _write_all(handle, data, stop)
            handle.flush()
            if old_mode is not None:
                os.fchmod(fd, old_mode)
            os.fsync(fd)
        if stop is not None and stop.should_stop:
            raise WriteStopped
        os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        try:
            os.unlink(temp, dir_fd=folder)
        except FileNotFoundError:
            pass
        raise
    return old is not None


def write_file(
    place: WritePlace, where: str, data: bytes, lines: int, stop: StopSignal, shared_ok: bool = False
) -> ToolResult:
    """Create the missing folders and write `data` atomically at `place`; every problem is an error result.

    `where` is the path the write was judged and approved for (for messages); `shared_ok` says the
    user approved a file with more than one name. Raises WriteStopped when stopped before the new
    content was in place. The place's descriptor stays open (its owner closes it).
    """
    shown = visible_path(where)
    try:
        folder = enter_folders(place.folder, place.folder_fd, place.missing, create=True)
    except PathChanged as exc:
        return changed_result(shown, exc, "write")
    except (FileExistsError, NotADirectoryError):
        return error_result(f"cannot create folder for {shown}: a file is in the way")
    except OSError as exc:
        return error_result(f"cannot create folder {visible_path(str(place.folder))}: {exc.strerror or exc}")
    try:
        replaced = atomic_write(folder, place.name, where, data, stop, shared_ok)
    except PathChanged as exc:
        return changed_result(shown, exc, "write")
    except IsADirectoryError:
        return error_result(f"{shown} is a directory; give a file path to write")
    except NotRegularFile as exc:
        return error_result(f"{shown} is a {exc.kind}, not a regular file; write_file only writes regular files")
    except PermissionError:
        return error_result(f"permission denied: {shown}")
    except OSError as exc:
        return error_result(f"cannot write {shown}: {exc.strerror or exc}")
    finally:
        os.close(folder)
    verb = "Overwrote" if replaced else "Created"
    return ToolResult(f"{verb} {shown}: wrote {len(data):,} bytes ({lines:,} lines)")
