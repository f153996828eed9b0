"""What one file change looks like to a person: a unified diff and its `+added −removed` counts.

Owns `FileChange` (the plain data every write_file / patch result carries for the UI, the approval
request and the headless stderr line) and `file_change(path, before, after)`, which builds it from
the bytes before and after (None = the file did not exist / no longer exists). Text is compared
line by line (difflib's matcher, three lines of context per hunk, git's "\\ No newline at end of
file" marker); binary content (a NUL byte, or bytes that are not UTF-8) and huge content (over
`HUGE_BYTES` or `HUGE_LINES`) get a size line instead of a diff. Pure: no I/O, standard library only.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

HUGE_BYTES = 1_000_000
HUGE_LINES = 5_000
CONTEXT_LINES = 3
_SNIFF_BYTES = 8192
NO_NEWLINE = "\\ No newline at end of file"

ChangeKind = Literal["created", "modified", "deleted", "moved"]


@dataclass(frozen=True)
class FileChange:
    """One file a tool changed (or would change): counts, the unified diff or, instead, a size note.

    `path` is how the file is shown (relative to the working folder when inside it). `unified` is
    None for binary or huge content, and then `note` says why ("binary file, 12,345 → 12,400 bytes").
    `moved_from` is the old path of a move.
    """

    path: str
    added: int
    removed: int
    unified: str | None
    note: str | None = None
    kind: ChangeKind = "modified"
    moved_from: str | None = None

    @property
    def summary(self) -> str:
        """The one-line form: `path +3 −1`, or `path (binary file, 10 → 12 bytes)`."""
        name = f"{self.moved_from} → {self.path}" if self.moved_from else self.path
        if self.note is not None and self.unified is None:
            return f"{name} ({self.note})"
        if self.kind == "moved" and not (self.added or self.removed):
            return f"{name} (moved)"
        suffix = {"created": " (new)", "deleted": " (deleted)"}.get(self.kind, "")
        return f"{name} +{self.added} −{self.removed}{suffix}"


def is_binary(data: bytes) -> bool:
    """Content a text diff cannot show: a NUL byte near the start, or not valid UTF-8."""
    if b"\0" in data[:_SNIFF_BYTES]:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _size(size: int | None) -> str:
    return "nothing" if size is None else f"{size:,}"


def size_note(label: str, before: int | None, after: int | None) -> str:
    """`binary file, 12,345 → 12,400 bytes` (a missing side reads "nothing")."""
    return f"{label}, {_size(before)} → {_size(after)} bytes"


def sized_change(
    path: str, before: int | None, after: int | None, label: str = "large file", moved_from: str | None = None
) -> FileChange:
    """A change known only by its sizes (content too large to read, or unreadable)."""
    kind: ChangeKind = "moved" if moved_from is not None else _kind(before, after)
    return FileChange(path, 0, 0, None, size_note(label, before, after), kind, moved_from)


def _length(data: bytes | None) -> int | None:
    return None if data is None else len(data)


def _too_big(data: bytes) -> bool:
    return len(data) > HUGE_BYTES or data.count(b"\n") > HUGE_LINES


def _kind(before: object | None, after: object | None) -> ChangeKind:
    if before is None:
        return "created"
    return "deleted" if after is None else "modified"


def file_change(path: str, before: bytes | None, after: bytes | None, moved_from: str | None = None) -> FileChange:
    """The change from `before` to `after` (None: no file on that side) of the file shown as `path`."""
    kind: ChangeKind = "moved" if moved_from is not None else _kind(before, after)
    sides = [side for side in (before, after) if side is not None]
    for label, test in (("binary file", is_binary), ("large file", _too_big)):
        if any(test(side) for side in sides):
            return sized_change(path, _length(before), _length(after), label, moved_from)
    old_lines = _lines(before)
    new_lines = _lines(after)
    old_name = "/dev/null" if before is None else f"a/{moved_from or path}"
    new_name = "/dev/null" if after is None else f"b/{path}"
    added, removed, text = unified_diff(old_lines, new_lines, old_name, new_name)
    return FileChange(path, added, removed, text, None, kind, moved_from)


_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


def _lines(data: bytes | None) -> list[str]:
    """The lines of UTF-8 `data`, each with its newline; only "\\n" ends a line (not CR or U+2028)."""
    return [] if data is None else _LINE.findall(data.decode("utf-8"))


def _range(start: int, count: int) -> str:
    """A hunk header's range: 1-based start, or the line before an empty range (as diff -u writes it)."""
    first = start + 1 if count else start
    return f"{first}" if count == 1 else f"{first},{count}"


def _emit(prefix: str, line: str) -> Iterator[str]:
    if line.endswith("\n"):
        yield prefix + line[:-1]
    else:
        yield prefix + line
        yield NO_NEWLINE


def unified_diff(old: Sequence[str], new: Sequence[str], old_name: str, new_name: str) -> tuple[int, int, str]:
    """(lines added, lines removed, unified diff text) between two lists of lines kept with their ends.

    A line differing only in its final newline counts as changed, and the side without one is
    marked as git does. The text is empty when nothing changed.
    """
    matcher = difflib.SequenceMatcher(None, old, new)
    added = removed = 0
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(CONTEXT_LINES):
        first, last = group[0], group[-1]
        old_start, old_end, new_start, new_end = first[1], last[2], first[3], last[4]
        out.append(f"@@ -{_range(old_start, old_end - old_start)} +{_range(new_start, new_end - new_start)} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for line in old[i1:i2]:
                    out.extend(_emit(" ", line))
                continue
            for line in old[i1:i2]:
                out.extend(_emit("-", line))
            for line in new[j1:j2]:
                out.extend(_emit("+", line))
            removed += i2 - i1
            added += j2 - j1
    if not out:
        return 0, 0, ""
    return added, removed, "\n".join([f"--- {old_name}", f"+++ {new_name}", *out]) + "\n"
