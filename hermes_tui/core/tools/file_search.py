"""The walk and the matching behind search_files: blocking work, meant for a worker thread.

Owns the folder walk (path order; VCS/virtualenv/cache folders and the kernel's /proc, /sys and /dev
never entered; symlinked folders not followed), content search (regular text files only, opened
without blocking on FIFOs or devices, size-capped, binary files skipped; files the policy calls
sensitive — keys, credentials, .env, shell start-up files, hermes's home — and symlinks leading out
of the searched area are skipped and counted, never read), file-name search, and the `SearchState`
they fill. Every step checks a `StopSignal`, so the time cap gives partial results and Ctrl-C ends
the walk within one file.
"""

from __future__ import annotations

import codecs
import fnmatch
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_tui.core.tools.blocking import StopSignal
from hermes_tui.core.tools.file_access import safe_open_regular
from hermes_tui.core.tools.file_policy import PSEUDO_FILESYSTEMS, sensitive_reasons

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
    skipped_system: int = 0
    scan_capped: bool = False
    timed_out: bool = False
    hits: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class SearchScope:
    """Where a search may read: the (resolved) root, and the folders a symlink may lead into."""

    root: Path
    cwd: Path
    free_roots: Sequence[Path] = ()
    hermes_homes: Sequence[Path] = ()
    approved: frozenset[str] = frozenset()  # reasons the user already approved for the root itself


def display_path(path: str, cwd: Path) -> str:
    """A result path the model can pass straight back: relative to the working folder when inside it."""
    try:
        return Path(path).relative_to(cwd).as_posix()
    except ValueError:
        return path


def glob_matches(glob: str, name: str, relative: str) -> bool:
    return fnmatch.fnmatch(relative if "/" in glob else name, glob)


def _sorted_entries(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return sorted(entries, key=lambda entry: entry.name)
    except OSError:
        return []


def walk_files(root: Path, stop: StopSignal, state: SearchState) -> Iterator[tuple[str, str, bool]]:
    """(full path, path relative to root, is a symlink) of every file under root, in path order.

    Folders in SKIPPED_DIRS and the kernel's pseudo file systems are not entered; symlinked
    folders are not followed; unreadable folders are passed over. Stops (setting
    `state.timed_out` when the time cap fired) as soon as `stop` says so.
    """
    if not root.is_dir():
        yield str(root), root.name, False
        return
    stack: list[Iterator[os.DirEntry[str]]] = [iter(_sorted_entries(str(root)))]
    prefixes: list[str] = [""]
    while stack:
        if stop.should_stop:
            state.timed_out = stop.expired
            return
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            prefixes.pop()
            continue
        relative = prefixes[-1] + entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                if entry.path in PSEUDO_FILESYSTEMS:
                    state.skipped_system += 1
                elif entry.name not in SKIPPED_DIRS:
                    stack.append(iter(_sorted_entries(entry.path)))
                    prefixes.append(relative + "/")
            elif entry.is_file():
                yield entry.path, relative, entry.is_symlink()
        except OSError:
            continue


def _within_any(path: str, folders: Sequence[str | Path]) -> bool:
    return any(path == str(folder) or path.startswith(str(folder).rstrip("/") + "/") for folder in folders)


def _sensitive_unapproved(path: str, scope: SearchScope) -> bool:
    reasons = sensitive_reasons(path, "read", scope.hermes_homes)
    return bool(reasons) and not set(reasons) <= scope.approved


def may_read(full: str, is_link: bool, scope: SearchScope, state: SearchState) -> bool:
    """Whether a content search may open this file; counts the skipped ones by reason.

    A sensitive file is read only when the user approved searching a root that is sensitive for
    the same reasons (searching ~/.ssh after approving exactly that).
    """
    if _sensitive_unapproved(full, scope):
        state.skipped_sensitive += 1
        return False
    if not is_link:
        return True
    target = os.path.realpath(full)
    pseudo = _within_any(target, PSEUDO_FILESYSTEMS)
    if pseudo or not _within_any(target, [scope.root, *scope.free_roots]):
        state.skipped_links += 1
        return False
    if _sensitive_unapproved(target, scope):
        state.skipped_sensitive += 1
        return False
    return True


def read_searchable_text(path: str, state: SearchState) -> str | None:
    """File text for content search, or None for binaries, huge files, non-regular and unreadable ones.

    Decoded in pieces: one decode of a whole 10 MB file would hold the interpreter lock (and so the
    event loop) for tens of milliseconds.
    """
    try:
        fd = safe_open_regular(path)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            if os.fstat(handle.fileno()).st_size > SEARCH_MAX_FILE_BYTES:
                state.skipped_large += 1
                return None
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
    for index, (full, relative, _is_link) in enumerate(walk_files(scope.root, stop, state), start=1):
        if index > SEARCH_MAX_FILES:
            state.scan_capped = True
            break
        state.files_scanned += 1
        name = os.path.basename(full)
        if not glob_matches(glob, name, relative):
            continue
        if file_glob and not glob_matches(file_glob, name, relative):
            continue
        state.total += 1
        if len(state.hits) < state.limit:
            state.hits.append(display_path(full, scope.cwd))


def search_content(
    regex: re.Pattern[str], file_glob: str | None, scope: SearchScope, state: SearchState, stop: StopSignal
) -> None:
    """Find lines matching `regex` in the readable text files under the scope's root."""
    # One search over a block skips most text fast; \A and \Z mean "line start/end" per line
    # but "block start/end" on a block, so such patterns go line by line.
    block_check = "\\A" not in regex.pattern and "\\Z" not in regex.pattern
    for index, (full, relative, is_link) in enumerate(walk_files(scope.root, stop, state), start=1):
        if index > SEARCH_MAX_FILES:
            state.scan_capped = True
            break
        if file_glob and not glob_matches(file_glob, os.path.basename(full), relative):
            continue
        if not may_read(full, is_link, scope, state):
            continue
        text = read_searchable_text(full, state)
        if text is None:
            continue
        state.files_scanned += 1
        _match_text(text, regex, block_check, display_path(full, scope.cwd), state, stop)


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
