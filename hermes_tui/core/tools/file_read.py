"""Reading one text file for read_file: blocking work, meant for a worker thread.

Owns numbered, size-capped text reads ("     1|text") with paging notes, overlong-line cutting,
refusal of binary and non-UTF-8 files, and the line count behind "of N" — all from the one regular
file `safe_open.open_file` opened while the path was judged (never a FIFO, device or socket, never
reopened by name), checking a `StopSignal` between lines and chunks, so a time cap or Ctrl-C ends
the read promptly.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from hermes_tui.core.tools.base import ToolResult
from hermes_tui.core.tools.blocking import StopSignal
from hermes_tui.core.tools.file_access import error_result
from hermes_tui.core.tools.file_policy import visible_path
from hermes_tui.core.tools.safe_open import OpenedFile

BINARY_SNIFF_BYTES = 8192
MAX_LINE_CHARS = 2000
LINE_COUNT_MAX_FILE_BYTES = 64 * 1024 * 1024
_CHUNK_BYTES = 1024 * 1024


class ReadStopped(Exception):
    """The read was stopped by its time cap or by cancellation."""


@dataclass
class _Line:
    number: int
    text: str


def _iter_raw_lines(handle: IO[bytes], max_bytes: int, stop: StopSignal) -> Iterator[tuple[bytes, int]]:
    """(first `max_bytes` of each line, the line's full size in bytes); never loads a huge line."""
    while True:
        if stop.should_stop:
            raise ReadStopped
        head = handle.readline(max_bytes)
        if not head:
            return
        size = len(head)
        if not head.endswith(b"\n"):
            while True:  # skip the rest of an overlong line in bounded chunks
                if stop.should_stop:
                    raise ReadStopped
                rest = handle.readline(_CHUNK_BYTES)
                size += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
        yield head, size


def _decode_line(raw: bytes, number: int, cut: bool) -> str:
    """One line as text without its line ending. For a `cut` (overlong) line, a UTF-8 sequence
    split by the cut is dropped; anywhere else undecodable bytes raise UnicodeDecodeError (the
    caller then decodes with visible replacement characters)."""
    body = raw[:-1] if raw.endswith(b"\n") else raw
    body = body[:-1] if body.endswith(b"\r") else body
    if number == 1 and body.startswith(b"\xef\xbb\xbf"):
        body = body[3:]
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not cut or exc.start < len(body) - 3:
            raise
        text = body[: exc.start].decode("utf-8")
    if cut or len(text) > MAX_LINE_CHARS:
        text = text[:MAX_LINE_CHARS] + f" ... [line cut at {MAX_LINE_CHARS:,} chars]"
    return text


def count_lines(handle: IO[bytes], stop: StopSignal | None = None) -> int | None:
    """Lines in the open file (a last line without a newline counts), or None when too big or stopped."""
    if os.fstat(handle.fileno()).st_size > LINE_COUNT_MAX_FILE_BYTES:
        return None
    newlines = 0
    last = b""
    try:
        handle.seek(0)
        while chunk := handle.read(_CHUNK_BYTES):
            if stop is not None and stop.should_stop:
                return None
            newlines += chunk.count(b"\n")
            last = chunk[-1:]
    except OSError:
        return None
    return newlines + (1 if last and last != b"\n" else 0)


def _binary_refusal(path: Path, size: int) -> ToolResult:
    shown = visible_path(str(path))
    return error_result(f"{shown} looks like a binary file ({size:,} bytes); read_file only reads text files")


def read_text_file(
    opened: OpenedFile, path: Path, offset: int, limit: int | None, max_bytes: int, stop: StopSignal
) -> ToolResult:
    """Lines `offset`.. of the open file (found at `path`), numbered "     1|text", capped at
    `max_bytes` of source text. The descriptor stays open (its owner closes it).

    Raises ReadStopped when `stop` says so; every other problem is an error result.
    """
    with os.fdopen(opened.fd, "rb", closefd=False) as handle:
        try:
            size = os.fstat(handle.fileno()).st_size
            outcome = _read_lines(handle, path, offset, limit, max_bytes, stop)
            total = count_lines(handle, stop) if not isinstance(outcome, ToolResult) and outcome[3] else None
        except OSError as exc:
            return error_result(f"cannot read {visible_path(str(path))}: {exc.strerror or exc}")
    if isinstance(outcome, ToolResult):
        return outcome
    shown, line_count, capped, more, replaced = outcome
    if size == 0 and not shown:
        return ToolResult(f"[{visible_path(str(path))} is empty]")
    if not shown:
        return error_result(f"offset {offset} is past the end of {visible_path(str(path))} ({line_count:,} lines)")
    body = "\n".join(f"{line.number:>6}|{line.text}" for line in shown)
    if replaced:
        where = ", ".join(str(n) for n in replaced[:5]) + (" …" if len(replaced) > 5 else "")
        body += (
            f"\n\n[{len(replaced)} line(s) hold bytes that are not UTF-8 (line {where}); "
            "they are shown as \ufffd. The file may use another encoding.]"
        )
    if not more:
        return ToolResult(body)
    first, last = shown[0].number, shown[-1].number
    of_total = f" of {total:,}" if total is not None else ""
    if capped:
        note = (
            f"[File is larger than the read limit of {max_bytes:,} bytes: showing lines "
            f"{first}-{last}{of_total}. Read on with offset={last + 1}.]"
        )
    else:
        note = f"[Showing lines {first}-{last}{of_total}. Read on with offset={last + 1}.]"
    return ToolResult(f"{body}\n\n{note}")


def _read_lines(
    handle: IO[bytes], path: Path, offset: int, limit: int | None, max_bytes: int, stop: StopSignal
) -> ToolResult | tuple[list[_Line], int, bool, bool, list[int]]:
    """(lines shown, lines seen, stopped by the size cap, more follow, lines with bytes that are not
    UTF-8 — shown as U+FFFD), or an error result."""
    size = os.fstat(handle.fileno()).st_size
    if b"\0" in handle.read(BINARY_SNIFF_BYTES):
        return _binary_refusal(path, size)
    handle.seek(0)
    shown: list[_Line] = []
    replaced: list[int] = []
    used = 0
    line_count = 0
    capped = more = False
    for raw, line_size in _iter_raw_lines(handle, MAX_LINE_CHARS * 4 + 1, stop):
        line_count += 1
        if line_count < offset:
            continue
        if limit is not None and len(shown) >= limit:
            more = True
            break
        if shown and used + len(raw) > max_bytes:
            capped = more = True
            break
        if b"\0" in raw:
            return _binary_refusal(path, size)
        try:
            text = _decode_line(raw, line_count, cut=line_size > len(raw))
        except UnicodeDecodeError:
            text = _decode_line(raw.decode("utf-8", "replace").encode("utf-8"), line_count, cut=False)
            replaced.append(line_count)
        shown.append(_Line(line_count, text))
        used += len(raw)
    return shown, line_count, capped, more, replaced
