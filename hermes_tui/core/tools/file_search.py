"""The walk and the matching behind search_files: blocking work, meant for a worker thread.

Owns the folder walk (path order, from the root folder opened while it was judged, each subfolder
opened from its parent's descriptor without following a link — `safe_open`; what the project's
`.gitignore` and `.ignore` files exclude is left out — `ignore_rules`; VCS, virtualenv, cache and
build-output folders (`SKIPPED_DIRS`) and the kernel's /proc, /sys and /dev never entered below
the root; symlinked folders not followed), content search (regular text files only, opened from
their folder's descriptor without blocking on FIFOs or devices, size-capped, binary files skipped;
files the policy calls sensitive — keys, credentials, .env, shell start-up files, hermes's home —
symlinks leading out of the searched area, and files with more than one name (hard links) are
skipped and counted, never read), file-name search, and the `SearchState` they fill. Every step
checks a `StopSignal`, so the time cap gives partial results and Ctrl-C ends the walk within one
file. A folder given as the search's root is searched even when it is one the walk would skip.
"""

from __future__ import annotations

import codecs
import fnmatch
import os
import re
from collections.abc import Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from hermes_tui.core.tools.blocking import StopSignal
from hermes_tui.core.tools.file_policy import PSEUDO_FILESYSTEMS, sensitive_reasons
from hermes_tui.core.tools.ignore_rules import IgnoreStack, rules_above
from hermes_tui.core.tools.safe_open import OpenedFile, open_file, open_file_at, open_subfolder

BINARY_SNIFF_BYTES = 8192
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".hypothesis",
        ".eggs",
        "build",
        "dist",
        "target",
    }
)
SEARCH_MAX_FILE_BYTES = 10 * 1024 * 1024
SEARCH_MAX_FILES = 100_000
SEARCH_MATCH_TEXT_CHARS = 300
DECODE_PIECE_BYTES = 512 * 1024
MATCH_BLOCK_CHARS = 256 * 1024  # one regex call covers at most this much text (keeps GIL holds short)


@dataclass
class SearchState:
    """What a search found so far; filled by the worker thread, read when it is done or stopped."""

    limit: int
    total: int = 0
    files_scanned: int = 0
    skipped_large: int = 0
    skipped_sensitive: int = 0
    skipped_links: int = 0
    skipped_hard_links: int = 0
    skipped_system: int = 0
    skipped_ignored: int = 0  # files and folders the project's .gitignore / .ignore exclude
    scan_capped: bool = False
    timed_out: bool = False
    hits: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class SearchScope:
    """Where a search may read: the (resolved) root as opened while it was judged, and the folders a
    symlink may lead into."""

    root: Path
    cwd: Path
    free_roots: Sequence[Path] = ()
    hermes_homes: Sequence[Path] = ()
    approved: frozenset[str] = frozenset()  # reasons the user already approved for the root itself
    folder_fd: int | None = None  # the root folder, open (its owner closes it)
    file: OpenedFile | None = None  # or the root file, open, when one file is searched


class FoundFile(NamedTuple):
    """A file the walk met: the open folder holding it (None for the root file itself) and its names."""

    folder_fd: int | None
    name: str
    full: str
    relative: str
    is_link: bool


def display_path(path: str, cwd: Path) -> str:
    """A result path the model can pass straight back: relative to the working folder when inside it."""
    try:
        return Path(path).relative_to(cwd).as_posix()
    except ValueError:
        return path


def glob_matches(glob: str, name: str, relative: str) -> bool:
    return fnmatch.fnmatch(relative if "/" in glob else name, glob)


def _sorted_entries(folder_fd: int) -> list[os.DirEntry[str]]:
    """The folder's entries by name; they look things up relative to `folder_fd`, so it must stay open."""
    try:
        with os.scandir(folder_fd) as entries:
            return sorted(entries, key=lambda entry: entry.name)
    except OSError:
        return []


def walk_files(scope: SearchScope, stop: StopSignal, state: SearchState) -> Iterator[FoundFile]:
    """Every file under the scope's root, in path order, that the project's ignore files keep.

    Folders in SKIPPED_DIRS, folders and files the `.gitignore`/`.ignore` rules exclude (counted in
    `state.skipped_ignored`) and the kernel's pseudo file systems are not entered; every subfolder
    is opened from its parent's descriptor without following a link (a symlinked folder, or a
    folder swapped for a link during the walk, is not entered); unreadable folders are passed over.
    Stops (setting `state.timed_out` when the time cap fired) as soon as `stop` says so.
    """
    if scope.folder_fd is None:
        yield FoundFile(None, scope.root.name, str(scope.root), scope.root.name, False)
        return
    base = str(scope.root).rstrip("/") + "/"
    top_rules = rules_above(scope.root).entered(scope.folder_fd, "")
    levels: list[tuple[int, Iterator[os.DirEntry[str]], str, IgnoreStack]] = [
        (scope.folder_fd, iter(_sorted_entries(scope.folder_fd)), "", top_rules)
    ]
    try:
        while levels:
            if stop.should_stop:
                state.timed_out = stop.expired
                return
            folder_fd, entries, prefix, rules = levels[-1]
            entry = next(entries, None)
            if entry is None:
                levels.pop()
                if folder_fd != scope.folder_fd:
                    os.close(folder_fd)
                continue
            relative = prefix + entry.name
            full = base + relative
            try:
                if entry.is_dir(follow_symlinks=False):
                    if full in PSEUDO_FILESYSTEMS:
                        state.skipped_system += 1
                    elif entry.name in SKIPPED_DIRS:
                        continue
                    elif rules.ignored(relative, is_dir=True):
                        state.skipped_ignored += 1
                    else:
                        sub = open_subfolder(folder_fd, entry.name)
                        inner = relative + "/"
                        try:
                            levels.append((sub, iter(_sorted_entries(sub)), inner, rules.entered(sub, inner)))
                        except BaseException:
                            os.close(sub)
                            raise
                elif entry.is_file():
                    if rules.ignored(relative, is_dir=False):
                        state.skipped_ignored += 1
                        continue
                    yield FoundFile(folder_fd, entry.name, full, relative, entry.is_symlink())
            except OSError:
                continue
    finally:
        for folder_fd, _, _, _ in levels:
            if folder_fd != scope.folder_fd:
                os.close(folder_fd)


def _within_any(path: str, folders: Sequence[str | Path]) -> bool:
    return any(path == str(folder) or path.startswith(str(folder).rstrip("/") + "/") for folder in folders)


def _sensitive_unapproved(path: str, scope: SearchScope) -> bool:
    reasons = sensitive_reasons(path, "read", scope.hermes_homes)
    return bool(reasons) and not set(reasons) <= scope.approved


def open_searchable(found: FoundFile, scope: SearchScope, state: SearchState) -> OpenedFile | None:
    """The file opened for a content search, or None (skipped ones counted by reason).

    A sensitive file is read only when the user approved searching a root that is sensitive for
    the same reasons (searching ~/.ssh after approving exactly that). A symlink is followed only
    to a file inside the searched folder or a free folder, opened through a walk that follows no
    further link; a file with more than one name (a hard link) is never read. The root file itself
    comes open and approved; every other result is the caller's to close.
    """
    if found.folder_fd is None:
        return scope.file
    if _sensitive_unapproved(found.full, scope):
        state.skipped_sensitive += 1
        return None
    try:
        if found.is_link:
            target = os.path.realpath(found.full)
            pseudo = _within_any(target, PSEUDO_FILESYSTEMS)
            if pseudo or not _within_any(target, [scope.root, *scope.free_roots]):
                state.skipped_links += 1
                return None
            if _sensitive_unapproved(target, scope):
                state.skipped_sensitive += 1
                return None
            opened = open_file(Path(target), [scope.root, *scope.free_roots])
        else:
            opened = open_file_at(found.folder_fd, found.name, found.full)
    except OSError:
        return None
    if opened.links > 1:
        os.close(opened.fd)
        state.skipped_hard_links += 1
        return None
    return opened


def read_searchable_text(opened: OpenedFile, state: SearchState) -> str | None:
    """File text for content search, or None for binaries, huge and unreadable files.

    Decoded in pieces: one decode of a whole 10 MB file would hold the interpreter lock (and so the
    event loop) for tens of milliseconds. The descriptor stays open.
    """
    if opened.size > SEARCH_MAX_FILE_BYTES:
        state.skipped_large += 1
        return None
    try:
        with os.fdopen(opened.fd, "rb", closefd=False) as handle:
            data = handle.read(BINARY_SNIFF_BYTES)
            if b"\0" in data:
                return None
            data += handle.read(SEARCH_MAX_FILE_BYTES)
    except OSError:
        return None
    if b"\0" in data:  # a NUL past the first block: still a binary file
        return None
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    view = memoryview(data)
    pieces = [
        decoder.decode(view[start : start + DECODE_PIECE_BYTES]) for start in range(0, len(data), DECODE_PIECE_BYTES)
    ]
    pieces.append(decoder.decode(b"", final=True))
    text = "".join(pieces)
    return text.replace("\r\n", "\n") if b"\r" in data else text


def split_lines(text: str) -> list[str]:
    """Lines split on "\\n" only, as read_file numbers them, without the empty tail."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _blocks(text: str) -> Iterator[str]:
    """`text` in pieces of about MATCH_BLOCK_CHARS, each ending at a line end (the last may not)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start + MATCH_BLOCK_CHARS)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end


def compile_pattern(pattern: str) -> tuple[re.Pattern[str], str | None]:
    """Line regex (MULTILINE, so the block pre-check agrees on ^ and $), or the literal text."""
    try:
        return re.compile(pattern, re.MULTILINE), None
    except re.error as exc:
        note = f"Invalid regex ({exc}); searched for the literal text instead."
        return re.compile(re.escape(pattern)), note


def search_names(glob: str, file_glob: str | None, scope: SearchScope, state: SearchState, stop: StopSignal) -> None:
    """List files whose name (or path, for a glob with "/") matches `glob`."""
    with closing(walk_files(scope, stop, state)) as walk:
        for index, found in enumerate(walk, start=1):
            if index > SEARCH_MAX_FILES:
                state.scan_capped = True
                break
            state.files_scanned += 1
            if not glob_matches(glob, found.name, found.relative):
                continue
            if file_glob and not glob_matches(file_glob, found.name, found.relative):
                continue
            state.total += 1
            if len(state.hits) < state.limit:
                state.hits.append(display_path(found.full, scope.cwd))


def search_content(
    regex: re.Pattern[str], file_glob: str | None, scope: SearchScope, state: SearchState, stop: StopSignal
) -> None:
    """Find lines matching `regex` in the readable text files under the scope's root."""
    # One search over a block skips most text fast; \A and \Z mean "line start/end" per line
    # but "block start/end" on a block, so such patterns go line by line.
    block_check = "\\A" not in regex.pattern and "\\Z" not in regex.pattern
    with closing(walk_files(scope, stop, state)) as walk:
        for index, found in enumerate(walk, start=1):
            if index > SEARCH_MAX_FILES:
                state.scan_capped = True
                break
            if file_glob and not glob_matches(file_glob, found.name, found.relative):
                continue
            opened = open_searchable(found, scope, state)
            if opened is None:
                continue
            try:
                text = read_searchable_text(opened, state)
            finally:
                if opened is not scope.file:
                    os.close(opened.fd)
            if text is None:
                continue
            state.files_scanned += 1
            _match_text(text, regex, block_check, display_path(found.full, scope.cwd), state, stop)


def _match_text(
    text: str, regex: re.Pattern[str], block_check: bool, shown_path: str, state: SearchState, stop: StopSignal
) -> None:
    lines_before = 0
    for block in _blocks(text):
        if stop.should_stop:
            state.timed_out = stop.expired
            return
        if not block_check or regex.search(block):
            for number, line in enumerate(split_lines(block), start=lines_before + 1):
                if not regex.search(line):
                    continue
                state.total += 1
                if len(state.hits) < state.limit:
                    state.hits.append({"path": shown_path, "line": number, "text": line[:SEARCH_MATCH_TEXT_CHARS]})
        lines_before += block.count("\n")
