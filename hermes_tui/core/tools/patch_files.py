"""The file work behind the patch tool: blocking, meant for the worker threads `file_access` runs.

Owns the `prepare` step of each kind of change — read the file through the descriptor its judged
path was opened with (`file_current`), work out the new content and its diff (`file_diff`) — and
the step that carries the change out once it is allowed: the new content written atomically in
the opened folder (`file_write.atomic_write`), a file deleted or moved relative to the opened
folders. Every write first checks that the file is still the one that was read (same inode, size
and modification time), so an edit is never applied to content it was not computed from.

Text handling: the file must be UTF-8 without NUL bytes (a binary file is refused); a leading BOM
is set aside and put back; a file whose every line ends in CRLF is edited with LF endings (the
model's text included) and written back with CRLF.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from hermes_tui.core.tools.base import ToolResult
from hermes_tui.core.tools.blocking import StopSignal
from hermes_tui.core.tools.file_access import Grant, Prepared, error_result
from hermes_tui.core.tools.file_current import Current, FileReplaced, Seen, TooLarge, read_current, unchanged_since
from hermes_tui.core.tools.file_diff import HUGE_BYTES, FileChange, file_change, is_binary, sized_change
from hermes_tui.core.tools.file_policy import visible_path
from hermes_tui.core.tools.file_write import WriteStopped, atomic_write
from hermes_tui.core.tools.safe_open import NotRegularFile, PathChanged, WritePlace, enter_folders, existing_at

PATCH_MAX_BYTES = 16 * 1024 * 1024
BOM = "\ufeff"


class ChangeFailed(Exception):
    """Carrying out an allowed change failed; the message is one line for the model."""


@dataclass(frozen=True)
class Text:
    """A file's content as the patch sees it: LF line ends, no BOM, and how to turn it back into bytes."""

    text: str
    bom: bool = False
    crlf: bool = False

    def encode(self, text: str) -> bytes:
        if self.crlf:
            text = text.replace("\n", "\r\n")
        return ((BOM if self.bom else "") + text).encode("utf-8")

    def normalise(self, text: str) -> str:
        """A string the model sent, with the line ends the patch works in."""
        return text.replace("\r\n", "\n") if self.crlf else text


def decode(data: bytes, shown: str) -> Text:
    """The file's bytes as text to edit; raises ChangeFailed for binary content."""
    if is_binary(data):
        raise ChangeFailed(f"{shown} is a binary file (or not UTF-8 text); patch edits text files only")
    text = data.decode("utf-8")
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    newlines = text.count("\n")
    crlf = newlines > 0 and text.count("\r\n") == newlines
    return Text(text.replace("\r\n", "\n") if crlf else text, bom, crlf)


@dataclass(frozen=True)
class Edit:
    """What an allowed change writes: the new bytes (None: delete) and the file it was computed from
    (None: the file did not exist)."""

    data: bytes | None
    seen: Seen | None


def _place(grant: Grant) -> WritePlace:
    place = grant.opened
    assert isinstance(place, WritePlace)
    return place


def read_existing(grant: Grant, shown: str) -> Current:
    """The file the grant names, which must exist; raises ChangeFailed."""
    verdict = grant.verdict
    try:
        current = read_current(_place(grant), str(verdict.resolved), PATCH_MAX_BYTES)
    except TooLarge as exc:
        raise ChangeFailed(
            f"{shown} is {exc.size:,} bytes, over patch's limit of {PATCH_MAX_BYTES:,}; edit it another way"
        ) from None
    except (FileReplaced, PathChanged):
        raise ChangeFailed(f"{shown} changed while it was being opened; nothing was changed, try again") from None
    except PermissionError:
        raise ChangeFailed(f"permission denied reading {shown}") from None
    except OSError as exc:
        raise ChangeFailed(f"cannot read {shown}: {exc.strerror or exc}") from None
    if current is None:
        raise ChangeFailed(f"file not found: {shown}")
    return current


def preparing(work: Callable[[Grant], Prepared]) -> Callable[[Grant, StopSignal], Prepared | ToolResult]:
    """A `prepare` step from `work`, its ChangeFailed turned into an error result."""

    def prepare(grant: Grant, _stop: StopSignal) -> Prepared | ToolResult:
        try:
            return work(grant)
        except ChangeFailed as exc:
            return error_result(str(exc))

    return prepare


def edit_prepare(shown: str, edit_text: Callable[[Text], str]) -> Callable[[Grant, StopSignal], Prepared | ToolResult]:
    """Prepare an edit of an existing text file: `edit_text` maps its Text to the new text (or raises)."""

    def work(grant: Grant) -> Prepared:
        current = read_existing(grant, shown)
        text = decode(current.data, shown)
        data = text.encode(edit_text(text))
        return Prepared(file_change(shown, current.data, data), Edit(data, current.seen))

    return preparing(work)


def _current_or_none(grant: Grant, shown: str) -> Current | None:
    return read_existing(grant, shown) if _place(grant).existing is not None else None


def create_prepare(shown: str, content: str) -> Callable[[Grant, StopSignal], Prepared | ToolResult]:
    """Prepare writing a whole file (V4A "Add File"): new, or replacing what is there."""

    def work(grant: Grant) -> Prepared:
        data = content.encode("utf-8")
        current = _current_or_none(grant, shown)
        before = current.data if current is not None else None
        return Prepared(file_change(shown, before, data), Edit(data, current.seen if current else None))

    return preparing(work)


def delete_prepare(shown: str) -> Callable[[Grant, StopSignal], Prepared | ToolResult]:
    def work(grant: Grant) -> Prepared:
        existing = _place(grant).existing
        if existing is None:
            raise ChangeFailed(f"file not found for deletion: {shown}")
        if existing.st_size > HUGE_BYTES:
            return Prepared(sized_change(shown, existing.st_size, None), Edit(None, Seen.of(existing)))
        current = read_existing(grant, shown)
        return Prepared(file_change(shown, current.data, None), Edit(None, current.seen))

    return preparing(work)


def move_source_prepare(shown: str, destination: str) -> Callable[[Grant, StopSignal], Prepared | ToolResult]:
    def work(grant: Grant) -> Prepared:
        existing = _place(grant).existing
        if existing is None:
            raise ChangeFailed(f"source file not found for move: {shown}")
        change = FileChange(destination, 0, 0, "", kind="moved", moved_from=shown)
        return Prepared(change, Edit(None, Seen.of(existing)))

    return preparing(work)


def move_target_prepare(shown: str) -> Callable[[Grant, StopSignal], Prepared | ToolResult]:
    def work(grant: Grant) -> Prepared:
        if _place(grant).existing is not None:
            raise ChangeFailed(f"{shown}: destination already exists — move would overwrite")
        return Prepared(None, Edit(None, None))

    return preparing(work)


# --------------------------------------------------------------------------- carrying it out


def _folder(place: WritePlace, shown: str) -> int:
    """A new descriptor of the folder the file goes in, its missing folders made first."""
    try:
        return enter_folders(place.folder, place.folder_fd, place.missing, create=True)
    except PathChanged:
        raise ChangeFailed(f"{shown} changed while it was being opened (a folder on its path is now a link)") from None
    except (FileExistsError, NotADirectoryError):
        raise ChangeFailed(f"cannot create folder for {shown}: a file is in the way") from None
    except OSError as exc:
        raise ChangeFailed(f"cannot create folder {visible_path(str(place.folder))}: {exc.strerror or exc}") from None


def _still_as_read(folder: int, place: WritePlace, where: str, shown: str, seen: Seen | None) -> None:
    try:
        if seen is None:
            if existing_at(folder, place.name, where) is not None:
                raise ChangeFailed(f"{shown} appeared after the patch was checked; nothing was written to it")
        elif not unchanged_since(folder, place.name, where, seen):
            raise ChangeFailed(
                f"{shown} changed after it was read (another program wrote to it?); "
                "nothing was written to it — read it again and redo the edit"
            )
    except (PathChanged, IsADirectoryError, NotRegularFile):
        raise ChangeFailed(f"{shown} was replaced by something else; nothing was written to it") from None


def _os_failure(shown: str, exc: OSError) -> ChangeFailed:
    if isinstance(exc, PermissionError):
        return ChangeFailed(f"permission denied: {shown}")
    if isinstance(exc, PathChanged):
        return ChangeFailed(f"{shown} changed while it was being opened (it is now a symbolic link)")
    return ChangeFailed(f"cannot change {shown}: {exc.strerror or exc}")


def write_edit(grant: Grant, shown: str, edit: Edit, stop: StopSignal, shared_ok: bool) -> None:
    """Write `edit.data` as the grant's file, if it is still as it was read; raises ChangeFailed."""
    place, where = _place(grant), str(grant.verdict.resolved)
    assert edit.data is not None
    folder = _folder(place, shown)
    try:
        _still_as_read(folder, place, where, shown, edit.seen)
        atomic_write(folder, place.name, where, edit.data, stop, shared_ok)
    except WriteStopped:
        raise ChangeFailed(f"writing {shown} was stopped before it finished; the file is unchanged") from None
    except OSError as exc:
        raise _os_failure(shown, exc) from None
    finally:
        os.close(folder)


def delete_file(grant: Grant, shown: str, edit: Edit) -> None:
    place, where = _place(grant), str(grant.verdict.resolved)
    folder = _folder(place, shown)
    try:
        _still_as_read(folder, place, where, shown, edit.seen)
        os.unlink(place.name, dir_fd=folder)
    except OSError as exc:
        raise _os_failure(shown, exc) from None
    finally:
        os.close(folder)


def move_file(source: Grant, target: Grant, shown: str, edit: Edit) -> None:
    """Rename the source grant's file to the target grant's name, both relative to their opened folders."""
    src_place, dst_place = _place(source), _place(target)
    src_folder = _folder(src_place, shown)
    try:
        dst_folder = _folder(dst_place, shown)
        try:
            _still_as_read(src_folder, src_place, str(source.verdict.resolved), shown, edit.seen)
            _still_as_read(dst_folder, dst_place, str(target.verdict.resolved), shown, None)
            os.rename(src_place.name, dst_place.name, src_dir_fd=src_folder, dst_dir_fd=dst_folder)
        except OSError as exc:
            raise _os_failure(shown, exc) from None
        finally:
            os.close(dst_folder)
    finally:
        os.close(src_folder)
