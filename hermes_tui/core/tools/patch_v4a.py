"""The V4A patch format of patch's mode="patch": several files and hunks in one call (as Hermes reads it).

    *** Begin Patch
    *** Update File: src/app.py
    @@ def main @@
     context line
    -removed line
    +added line
    *** Add File: notes.md
    +first line
    *** Delete File: old.txt
    *** Move File: a.txt -> b.txt
    *** End Patch

Owns `parse(text) -> list[FileOp]` (`PatchSyntaxError` for a patch that cannot be read) and
`apply_hunks(content, hunks)` (`HunkFailed`), pure text work. A hunk's context and removed lines
are looked for as whole lines first and then with patch's forgiving search (`patch_match`); when
that fails and the hunk names a hint (`@@ hint @@`), the search is repeated near the hint. A hunk
with only added lines goes after the line holding its hint, or at the end of the file. Hunks apply
in order, each to the result of the one before. Lines without a prefix count as context; an empty
line inside a hunk is an empty context line (trailing ones are dropped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from hermes_tui.core.tools.patch_match import NoMatch, find_and_replace, whole_lines

OpKind = Literal["add", "update", "delete", "move"]

_HEADER = re.compile(r"^\*\*\*\s*(Update|Add|Delete)\s+File:\s*(.*?)\s*$")
_MOVE = re.compile(r"^\*\*\*\s*Move\s+File:\s*(.*?)\s*->\s*(.*?)\s*$")
_BEGIN = re.compile(r"^\*\*\*\s*Begin\s+Patch\s*$")
_END = re.compile(r"^\*\*\*\s*End\s+Patch\s*$")
_HINT_BEFORE = 500
_HINT_AFTER = 2000


class PatchSyntaxError(ValueError):
    """The patch text cannot be read as V4A; the message says where."""


class HunkFailed(ValueError):
    """A hunk does not apply to the file; the message says which and why."""


@dataclass
class Hunk:
    hint: str | None = None
    lines: list[tuple[str, str]] = field(default_factory=list)  # (prefix " ", "-" or "+", text)

    @property
    def changes(self) -> bool:
        return any(prefix != " " for prefix, _ in self.lines)

    def side(self, prefixes: str) -> list[str]:
        return [text for prefix, text in self.lines if prefix in prefixes]


@dataclass
class FileOp:
    kind: OpKind
    path: str
    new_path: str | None = None  # a move's destination
    hunks: list[Hunk] = field(default_factory=list)

    def added_content(self) -> str:
        """An added file's text: its "+" lines, each ended by a newline."""
        lines = [text for hunk in self.hunks for prefix, text in hunk.lines if prefix == "+"]
        return "".join(f"{line}\n" for line in lines)


def _hunk_line(line: str) -> tuple[str, str] | None:
    if line.startswith(("+", "-", " ")):
        return line[0], line[1:]
    if line.startswith("\\"):  # "\ No newline at end of file"
        return None
    return " ", line


def _hint(line: str) -> str | None:
    text = line[2:].strip()
    if text.endswith("@@"):
        text = text[:-2].strip()
    return text or None


def _close(op: FileOp | None, hunk: Hunk | None, ops: list[FileOp]) -> None:
    if op is not None:
        _close_hunk(op, hunk)
        ops.append(op)


def parse(text: str) -> list[FileOp]:
    """The file operations of a V4A patch, in order."""
    lines = text.replace("\r\n", "\n").split("\n")
    begin = next((index for index, line in enumerate(lines) if _BEGIN.match(line.strip())), -1)
    ops: list[FileOp] = []
    op: FileOp | None = None
    hunk: Hunk | None = None
    for raw in lines[begin + 1 :]:
        if _END.match(raw.strip()):
            break
        header, move = _HEADER.match(raw), _MOVE.match(raw)
        if header or move:
            _close(op, hunk, ops)
            hunk = None
            if move:
                op = None
                ops.append(FileOp("move", move.group(1), move.group(2) or None))
            else:
                assert header is not None
                kind = {"Update": "update", "Add": "add", "Delete": "delete"}[header.group(1)]
                op = FileOp(kind, header.group(2))  # type: ignore[arg-type]
                if kind == "delete":
                    ops.append(op)
                    op = None
            continue
        if op is None:
            continue
        if raw.startswith("@@"):
            _close_hunk(op, hunk)
            hunk = Hunk(_hint(raw))
            continue
        entry = (" ", "") if raw == "" else _hunk_line(raw)
        if entry is None:
            continue
        hunk = hunk or Hunk()
        hunk.lines.append(entry)
    _close(op, hunk, ops)
    _check(ops)
    return ops


def _close_hunk(op: FileOp, hunk: Hunk | None) -> None:
    if hunk is None:
        return
    while hunk.lines and hunk.lines[-1] == (" ", ""):
        hunk.lines.pop()
    if hunk.lines:
        op.hunks.append(hunk)


def _check(ops: list[FileOp]) -> None:
    problems = []
    for op in ops:
        if not op.path:
            problems.append("an operation has an empty file path")
        elif op.kind == "update" and not op.hunks:
            problems.append(f"UPDATE {op.path!r}: no hunks found")
        elif op.kind == "move" and not op.new_path:
            problems.append(f"MOVE {op.path!r}: missing destination path (expected 'src -> dst')")
    if problems:
        raise PatchSyntaxError("; ".join(problems))


# --------------------------------------------------------------------------- applying hunks


def _label(index: int, hunk: Hunk) -> str:
    return f"hunk {index} '{hunk.hint}'" if hunk.hint else f"hunk {index}"


def _insert(content: str, index: int, hunk: Hunk) -> str:
    """An addition-only hunk: after the line holding its hint, else at the end of the file."""
    text = "".join(f"{line}\n" for line in hunk.side("+"))
    if hunk.hint is None or hunk.hint not in content:
        return (content if not content or content.endswith("\n") else content + "\n") + text
    count = content.count(hunk.hint)
    if count > 1:
        raise HunkFailed(
            f"{_label(index, hunk)}: the hint occurs {count} times, so where to add the lines is ambiguous; "
            "give a more unique hint or context lines"
        )
    end = content.find("\n", content.index(hunk.hint))
    if end == -1:
        return content + "\n" + text
    return content[: end + 1] + text + content[end + 1 :]


def _replace_near_hint(content: str, hint: str, old: str, new: str) -> str | None:
    at = content.find(hint)
    if at == -1:
        return None
    start, end = max(0, at - _HINT_BEFORE), min(len(content), at + _HINT_AFTER)
    outcome = find_and_replace(content[start:end], old, new)
    if isinstance(outcome, NoMatch):
        return None
    return content[:start] + outcome.content + content[end:]


def _apply_one(content: str, index: int, hunk: Hunk) -> str:
    old_lines, new_lines = hunk.side(" -"), hunk.side(" +")
    if not old_lines:
        return _insert(content, index, hunk)
    old, new = "\n".join(old_lines), "\n".join(new_lines)
    exact = whole_lines(content, old)
    if len(exact) == 1:
        start, end = exact[0]
        return content[:start] + new + content[end:]
    outcome = find_and_replace(content, old, new)
    if not isinstance(outcome, NoMatch):
        return outcome.content
    if hunk.hint:
        near = _replace_near_hint(content, hunk.hint, old, new)
        if near is not None:
            return near
    raise HunkFailed(f"{_label(index, hunk)} not found — {outcome.error}")


def apply_hunks(content: str, hunks: list[Hunk]) -> str:
    """`content` with every hunk applied in order; raises HunkFailed for the first that does not apply."""
    changed = 0
    for index, hunk in enumerate(hunks, start=1):
        if not hunk.changes:
            continue  # a hunk of context only changes nothing
        content = _apply_one(content, index, hunk)
        changed += 1
    if not changed:
        raise HunkFailed("the update has no added or removed lines (only context)")
    return content
