"""The working folder's files for @-completion: listed once in a while, ranked on every keystroke.

`list_files(root)` walks the folder as search_files does (`tools.file_search.walk_files`: the
project's `.gitignore` / `.ignore` rules, `.git/`, virtualenvs, caches and build output left out,
no symbolic link to a folder followed), stopping at `MAX_LISTED` files or `LIST_SECONDS`; the
folders are those holding a listed file. `rank(listing, query)` orders the entries for a partial
`@query`: "" or "dir/" lists that folder's own entries (folders first), anything else is a fuzzy
match — the query's letters in order, scored higher for a match in the file's name, at its start,
in one run, and for shorter paths. `FileIndex` keeps one listing per folder for `REFRESH_SECONDS`
so typing does not walk the tree again. Blocking: call it from a worker thread.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.core.tools.blocking import StopSignal
from hermes_tui.core.tools.file_search import SearchScope, SearchState, walk_files

MAX_LISTED = 20_000
LIST_SECONDS = 2.0
REFRESH_SECONDS = 10.0
MAX_RANKED = 50


@dataclass(frozen=True)
class FileListing:
    """The files (relative, "/"-separated) and folders ("dir/") under a root, in path order."""

    root: Path
    files: tuple[str, ...]
    folders: tuple[str, ...]
    capped: bool = False  # stopped at MAX_LISTED files or the time cap

    @property
    def entries(self) -> tuple[str, ...]:
        return self.folders + self.files


def list_files(root: Path, limit: int = MAX_LISTED, seconds: float = LIST_SECONDS) -> FileListing:
    """The files under `root` that the project's ignore rules keep (an unreadable root lists nothing)."""
    root = root.resolve()
    try:
        folder_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return FileListing(root, (), ())
    state = SearchState(limit=limit)
    stop = StopSignal(seconds)
    files: list[str] = []
    folders: dict[str, None] = {}
    try:
        scope = SearchScope(root=root, cwd=root, free_roots=(root,), folder_fd=folder_fd)
        for found in walk_files(scope, stop, state):
            files.append(found.relative)
            parts = found.relative.split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                folders.setdefault("/".join(parts[:depth]) + "/")
            if len(files) >= limit:
                break
    finally:
        os.close(folder_fd)
    capped = len(files) >= limit or state.timed_out
    return FileListing(root, tuple(files), tuple(sorted(folders)), capped)


def _children(listing: FileListing, folder: str) -> list[str]:
    """The entries directly inside `folder` ("" = the root; else ending in "/"), folders first."""
    depth = folder.count("/")

    def direct(entry: str) -> bool:
        return entry.startswith(folder) and entry != folder and entry.rstrip("/").count("/") == depth

    return [entry for entry in listing.folders if direct(entry)] + [entry for entry in listing.files if direct(entry)]


def fuzzy_score(query: str, path: str) -> float | None:
    """How well `path` matches the typed `query` (higher is better); None when it does not."""
    q, p = query.lower(), path.lower()
    name_at = p.rstrip("/").rfind("/") + 1
    index = p.find(q)
    if index >= 0:
        score = 1000.0 - len(p)
        if index == name_at:
            score += 500
        elif index > name_at:
            score += 300
        elif index == 0 or p[index - 1] in "/_-. ":
            score += 100
        return score
    position, last, gaps, in_name = 0, -1, 0, 0
    for char in q:
        found = p.find(char, position)
        if found < 0:
            return None
        if last >= 0 and found != last + 1:
            gaps += 1
        if found >= name_at:
            in_name += 1
        last, position = found, found + 1
    return 500.0 - 20 * gaps + 5 * in_name - len(p)


def rank(listing: FileListing, query: str, limit: int = MAX_RANKED) -> list[str]:
    """The entries to offer for `@query`, best first."""
    if query == "" or (query.endswith("/") and query in listing.folders):
        return _children(listing, query)[:limit]
    scored: list[tuple[float, str]] = []
    for entry in listing.entries:
        score = fuzzy_score(query, entry)
        if score is not None:
            scored.append((score, entry))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [entry for _score, entry in scored[:limit]]


class FileIndex:
    """One listing per working folder, walked again when it is older than `REFRESH_SECONDS`."""

    def __init__(self, refresh_seconds: float = REFRESH_SECONDS) -> None:
        self._refresh = refresh_seconds
        self._lock = threading.Lock()
        self._listings: dict[Path, tuple[float, FileListing]] = {}

    def listing(self, root: Path) -> FileListing:
        now = time.monotonic()
        with self._lock:
            cached = self._listings.get(root)
        if cached is not None and now - cached[0] < self._refresh:
            return cached[1]
        fresh = list_files(root)
        with self._lock:
            self._listings[root] = (now, fresh)
        return fresh

    def rank(self, root: Path, query: str, limit: int = MAX_RANKED) -> list[str]:
        return rank(self.listing(root), query, limit)
