"""Writing one file for write_file: blocking work, meant for a worker thread.

Owns the atomic write (a temp file in the target folder + rename, keeping the old file's
permission bits; in-place only when the folder forbids the temp file but the file is writable),
creating missing parent folders, and honouring a `StopSignal`: a write stopped (Ctrl-C, time
cap) before the rename leaves the old file exactly as it was and no temp file behind.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path
from typing import BinaryIO

from hermes_tui.core.tools.base import ToolResult
from hermes_tui.core.tools.blocking import StopSignal
from hermes_tui.core.tools.file_access import error_result
from hermes_tui.core.tools.file_policy import visible_path

_WRITE_CHUNK_BYTES = 1024 * 1024


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


def atomic_write(target: Path, data: bytes, stop: StopSignal | None = None) -> None:
    """Write `data` to `target` via a temp file in the same folder and a rename.

    An existing file keeps its permission bits; a new file gets the usual umask-based mode.
    When the folder does not allow creating the temp file but the file itself is writable,
    the file is overwritten in place instead. Raises WriteStopped (nothing changed) when `stop`
    fires before the rename.
    """
    old_mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else None
    temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    except PermissionError:
        if old_mode is None or not os.access(target, os.W_OK):
            raise
        if stop is not None and stop.should_stop:
            raise WriteStopped from None
        with target.open("wb") as handle:
            handle.write(data)
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            _write_all(handle, data, stop)
            handle.flush()
            os.fsync(handle.fileno())
        if old_mode is not None:
            os.chmod(temp, old_mode)
        if stop is not None and stop.should_stop:
            raise WriteStopped
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def write_file(target: Path, data: bytes, lines: int, stop: StopSignal) -> ToolResult:
    """Create the parent folders and write `data` atomically; every problem is an error result.

    Raises WriteStopped when stopped before the new content was in place.
    """
    shown = visible_path(str(target))
    existed = target.exists()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        return error_result(f"cannot create folder for {shown}: a file is in the way")
    except OSError as exc:
        return error_result(f"cannot create folder {visible_path(str(target.parent))}: {exc.strerror or exc}")
    try:
        atomic_write(target, data, stop)
    except PermissionError:
        return error_result(f"permission denied: {shown}")
    except OSError as exc:
        return error_result(f"cannot write {shown}: {exc.strerror or exc}")
    verb = "Overwrote" if existed else "Created"
    return ToolResult(f"{verb} {shown}: wrote {len(data):,} bytes ({lines:,} lines)")
