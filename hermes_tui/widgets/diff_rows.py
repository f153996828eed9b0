"""File changes as rows a diff is drawn from: a title per file, then its hunks line by line, each row with a role.

`diff_rows(changes)` turns `FileChange`s (the core's diff data: `hermes_tui.core.tools.file_diff`)
into `DiffRow`s: "file" (the `path +a −b` title), "hunk" (`@@ -1,3 +1,4 @@`), "added", "removed",
"context", "marker" (git's "\\ No newline at end of file") and "note" (the size line that stands in
for a binary or huge file's diff, or "no lines changed"). The `--- a/` / `+++ b/` header lines are
left out: the title names the file. Every row's text went through `text_safety.visible` (file
content is untrusted: an escape sequence in a file shows as `\\x1b`, never acts on the terminal)
and has its tabs expanded, so a row's length in cells is what it draws. `rows_limited` yields at
most a number of rows without splitting a whole megabyte diff first; `whole_diff_text` is the
plain text of every change (`limited_diff_text`: cut), `turn_files_line` the Review log's line
for a turn's changes. The stylesheet names a CSS class per role
(`ToolCard > .tool-card--diff-added`, `DiffView > .diff-view--added`, …). Pure: no Textual, no Rich.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING

from hermes_tui.text_safety import visible

if TYPE_CHECKING:
    from hermes_tui.core.tools.file_diff import FileChange

ROLE_FILE = "file"
ROLE_HUNK = "hunk"
ROLE_ADDED = "added"
ROLE_REMOVED = "removed"
ROLE_CONTEXT = "context"
ROLE_MARKER = "marker"
ROLE_NOTE = "note"
ROLES = (ROLE_FILE, ROLE_HUNK, ROLE_ADDED, ROLE_REMOVED, ROLE_CONTEXT, ROLE_MARKER, ROLE_NOTE)
TAB_SIZE = 4
NOTHING_CHANGED = "no lines changed"


@dataclass(frozen=True)
class DiffRow:
    role: str
    text: str


def change_title(change: FileChange) -> str:
    """The change's one-line summary (`app.py +3 −1`, `logo.png (binary file, 10 → 12 bytes)`), made safe."""
    return visible(change.summary)


def line_role(line: str) -> str:
    """The role of one line of a unified diff's body."""
    if line.startswith("@@"):
        return ROLE_HUNK
    if line.startswith("+"):
        return ROLE_ADDED
    if line.startswith("-"):
        return ROLE_REMOVED
    if line.startswith("\\"):
        return ROLE_MARKER
    return ROLE_CONTEXT


def _lines(text: str) -> Iterator[str]:
    """The lines of `text` one at a time (a megabyte diff is never split all at once)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        if end < 0:
            yield text[start:]
            return
        yield text[start:end]
        start = end + 1


def _body_rows(change: FileChange) -> Iterator[DiffRow]:
    if change.unified is None:
        yield DiffRow(ROLE_NOTE, visible(change.note or "no diff"))
        return
    shown = False
    for line in _lines(change.unified):
        if line.startswith(("--- ", "+++ ")) and not shown:
            continue  # the file header: the title row names the file
        shown = True
        yield DiffRow(line_role(line), visible(line).expandtabs(TAB_SIZE))
    if not shown:
        yield DiffRow(ROLE_NOTE, NOTHING_CHANGED)


def change_rows(change: FileChange) -> Iterator[DiffRow]:
    """The title row of one change, then its diff (or its size line)."""
    yield DiffRow(ROLE_FILE, change_title(change))
    yield from _body_rows(change)


def diff_rows(changes: Iterable[FileChange]) -> Iterator[DiffRow]:
    """Every change's rows, one file after another."""
    for change in changes:
        yield from change_rows(change)


def row_count(changes: Sequence[FileChange]) -> int:
    """How many rows `diff_rows(changes)` yields, counted without building them."""
    total = 0
    for change in changes:
        if change.unified is None or not change.unified:
            total += 2
            continue
        lines = change.unified.count("\n") + (0 if change.unified.endswith("\n") else 1)
        header = sum(1 for line in islice(_lines(change.unified), 2) if line.startswith(("--- ", "+++ ")))
        total += 1 + max(1, lines - header)
    return total


def rows_limited(changes: Sequence[FileChange], limit: int) -> tuple[list[DiffRow], int]:
    """(at most `limit` rows, how many rows were left out)."""
    shown = list(islice(diff_rows(changes), max(0, limit)))
    return shown, max(0, row_count(changes) - len(shown))


def whole_diff_text(changes: Iterable[FileChange]) -> str:
    """Every change as plain text — its title, then its diff or size line — for the full-text viewer."""
    return "\n".join(row.text for row in diff_rows(changes))


def limited_diff_text(changes: Sequence[FileChange], limit: int) -> str:
    """`whole_diff_text` of at most `limit` rows, with a last line saying how many more there were."""
    rows, hidden = rows_limited(changes, limit)
    text = "\n".join(row.text for row in rows)
    return text + f"\n… {hidden:,} more rows not shown" if hidden else text


def turn_files_line(files: Sequence[tuple[str, int, int]], named: int = 4) -> str:
    """The Review log's line for a turn's changes: `3 files: a.py +4 −1, b.py +2 −0, c.py +0 −3`
    (`files` as `TurnFilesChanged.files` gives them: path, added, removed; `named` files at most)."""
    shown = ", ".join(f"{visible(path)} +{added} −{removed}" for path, added, removed in files[:named])
    more = f", … and {len(files) - named} more" if len(files) > named else ""
    return f"{len(files)} file{'s' if len(files) != 1 else ''}: {shown}{more}"


def files_line(changes: Sequence[FileChange]) -> str:
    """`3 files +7 −2`: how many files the changes touch and the lines added and removed in all."""
    paths = {change.path for change in changes}
    added = sum(change.added for change in changes)
    removed = sum(change.removed for change in changes)
    return f"{len(paths)} file{'s' if len(paths) != 1 else ''} +{added} −{removed}"
