"""Opening a judged path exactly: a walk from a trusted folder that never follows a symbolic link.

The policy (`file_policy.assess_path`) judges a path's resolved form, every symbolic link on it
already followed. This module opens that same path one name at a time from the free folder holding
it (the working folder or an allow_paths folder; "/" for a path the user approved outside them):
`os.open(name, O_DIRECTORY | O_NOFOLLOW, dir_fd=parent)` for each folder, so a folder swapped for a
link after the check stops the walk (`PathChanged`) instead of leading elsewhere. Everything after
works on the descriptors it returns: a read reads the file it opened (`open_file` — a regular file,
opened with O_NONBLOCK so a FIFO cannot make it wait, then checked with fstat), a write finds its
folder (`locate_for_write`), creates missing folders with mkdir relative to it (`enter_folders`) and
puts its temp file there, and a search lists the folder it opened and opens each subfolder and file
from it (`open_folder`, `open_subfolder`, `open_file_at`). What was opened says how many names it
has (`st_nlink`): the file tools treat a file with more than one as possibly an outside file's
other name. `Descriptors` holds what one tool call opened while the user is asked, and closes it
exactly once, whichever thread finishes last. Blocking (it opens files): run it in a worker thread.
Imports nothing but the standard library.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_PATH_ONLY = getattr(os, "O_PATH", os.O_RDONLY)  # Linux: a folder you may pass through but not list
_STEP = _PATH_ONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_LIST = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW | _CLOEXEC


class PathChanged(OSError):
    """A name on a judged path is a symbolic link now: the path changed after it was checked."""

    def __init__(self, where: str) -> None:
        super().__init__(errno.ELOOP, f"{where} is now a symbolic link")
        self.where = where


class NotRegularFile(OSError):
    """The path names a FIFO, device, socket or something else that is not a regular file."""

    def __init__(self, where: str, kind: str) -> None:
        super().__init__(errno.EINVAL, f"{where} is a {kind}, not a regular file")
        self.kind = kind


class Dropped(Exception):
    """The tool call gave up on its descriptors before a worker got to use them."""


def kind_of(mode: int) -> str:
    """What an st_mode is: "file", "folder", "link", "fifo", "device", "socket" or "other"."""
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "socket" if stat.S_ISSOCK(mode) else "other"


class Descriptors:
    """The descriptors one tool call opened, passed from the judging thread to the working one.

    A worker brackets its use with `begin()` / `end()`; the event loop calls `drop()` when it stops
    waiting (denied, timed out, cancelled). They are closed once: by `drop()` when no worker holds
    them, else by that worker's `end()`; a worker that begins after a drop gets `Dropped`.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fds: list[int] = []
        self._busy = False
        self._dropped = False

    def keep(self, fd: int) -> int:
        with self._lock:
            self._fds.append(fd)
        return fd

    def begin(self) -> None:
        with self._lock:
            if self._dropped:
                raise Dropped
            self._busy = True

    def end(self, close: bool) -> None:
        with self._lock:
            self._busy = False
            if close or self._dropped:
                self._close_all()

    def drop(self) -> None:
        with self._lock:
            self._dropped = True
            if not self._busy:
                self._close_all()

    def _close_all(self) -> None:
        fds, self._fds = self._fds, []
        for fd in fds:
            os.close(fd)


# --------------------------------------------------------------------------- walking


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def walk_start(path: Path, roots: Sequence[Path]) -> tuple[Path, tuple[str, ...]]:
    """The folder to walk from (the deepest of `roots` holding `path`, else "/") and the names below it."""
    text, start = str(path), "/"
    for root in map(str, roots):
        if len(root) > len(start) and _within(text, root):
            start = root
    return Path(start), tuple(name for name in text[len(start) :].split("/") if name)


def _step(parent: int, name: str, flags: int, where: str) -> int:
    """`name` inside the folder `parent`, opened as a folder without following a link."""
    try:
        return os.open(name, flags, dir_fd=parent)
    except NotADirectoryError:  # a link or a file; O_NOFOLLOW with O_DIRECTORY says ENOTDIR for both
        try:
            is_link = stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
        except OSError:
            is_link = False
        if is_link:
            raise PathChanged(where) from None
        raise NotADirectoryError(errno.ENOTDIR, "a file is in the way of a folder on this path", where) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathChanged(where) from None
        raise


def enter_folders(
    start: Path, start_fd: int, names: Sequence[str], create: bool = False, list_last: bool = False
) -> int:
    """A new descriptor for start/names..., each name a real folder (mkdir'd first when `create`).

    `start_fd` stays open; the result is the caller's to close. `list_last` opens the last folder
    so it can be listed (O_RDONLY) rather than only passed through.
    """
    fd = os.dup(start_fd) if not names else start_fd
    where = str(start)
    for index, name in enumerate(names):
        where = os.path.join(where, name)
        flags = _LIST if list_last and index == len(names) - 1 else _STEP
        try:
            if create:
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
            child = _step(fd, name, flags, where)
        finally:
            if fd != start_fd:
                os.close(fd)
        fd = child
    return fd


def _open_start(start: Path, listable: bool) -> int:
    """The free folder a walk begins at, opened as it is (it was resolved and trusted by the policy)."""
    return os.open(start, (os.O_RDONLY if listable else _PATH_ONLY) | os.O_DIRECTORY | _CLOEXEC)


def open_folder(path: Path, roots: Sequence[Path]) -> int:
    """A listable descriptor of the folder `path`, reached without following a link."""
    start, names = walk_start(path, roots)
    start_fd = _open_start(start, listable=not names)
    if not names:
        return start_fd
    try:
        return enter_folders(start, start_fd, names, list_last=True)
    finally:
        os.close(start_fd)


def open_subfolder(parent: int, name: str) -> int:
    """A listable descriptor of the folder `name` inside `parent`; a link there raises (never followed)."""
    return _step(parent, name, _LIST, name)


class OpenedFile(NamedTuple):
    """A regular file opened for reading; `links` is its number of names (st_nlink)."""

    fd: int
    size: int
    links: int


def open_file_at(parent: int, name: str, where: str) -> OpenedFile:
    """The regular file `name` inside the folder `parent`, opened for reading.

    Looked at first (opening a device can have effects of its own) and checked again on the open
    descriptor; O_NONBLOCK keeps a FIFO swapped in between from making the open wait for a writer.
    """
    kind = kind_of(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    if kind == "link":
        raise PathChanged(where)
    if kind == "folder":
        raise IsADirectoryError(errno.EISDIR, "is a folder", where)
    if kind != "file":
        raise NotRegularFile(where, kind)
    try:
        fd = os.open(name, _READ, dir_fd=parent)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathChanged(where) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(where, kind_of(info.st_mode))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return OpenedFile(fd, info.st_size, info.st_nlink)


def open_file(path: Path, roots: Sequence[Path]) -> OpenedFile:
    """The regular file at `path`, opened for reading through a walk that follows no link."""
    start, names = walk_start(path, roots)
    if not names:
        raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
    start_fd = _open_start(start, listable=False)
    try:
        folder = enter_folders(start, start_fd, names[:-1])
    finally:
        os.close(start_fd)
    try:
        return open_file_at(folder, names[-1], str(path))
    finally:
        os.close(folder)


@dataclass(frozen=True)
class WritePlace:
    """Where a write goes: the deepest existing folder on the way (open), the folders still to
    create below it, the file name, and what is there now (None: nothing, or folders are missing)."""

    folder_fd: int
    folder: Path
    missing: tuple[str, ...]
    name: str
    existing: os.stat_result | None


def existing_at(folder_fd: int, name: str, where: str) -> os.stat_result | None:
    """What `name` in the folder is now, without following a link: None when absent; raises
    PathChanged for a link, IsADirectoryError for a folder, NotRegularFile for anything else."""
    try:
        info = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    kind = kind_of(info.st_mode)
    if kind == "link":
        raise PathChanged(where)
    if kind == "folder":
        raise IsADirectoryError(errno.EISDIR, "is a folder", where)
    if kind != "file":
        raise NotRegularFile(where, kind)
    return info


def locate_for_write(path: Path, roots: Sequence[Path]) -> WritePlace:
    """Walk towards `path` as far as its folders exist, creating nothing."""
    start, names = walk_start(path, roots)
    if not names:
        raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
    fd = _open_start(start, listable=False)
    folder = start
    folders = names[:-1]
    for index, name in enumerate(folders):
        try:
            child = _step(fd, name, _STEP, str(folder / name))
        except FileNotFoundError:
            return WritePlace(fd, folder, tuple(folders[index:]), names[-1], None)
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
        fd, folder = child, folder / name
    try:
        existing = existing_at(fd, names[-1], str(path))
    except BaseException:
        os.close(fd)
        raise
    return WritePlace(fd, folder, (), names[-1], existing)
