"""File tools: read_file, write_file and search_files, on the user's machine, relative to ctx.cwd.

Owns: numbered, size-capped text reads with paging notes; binary refusal; atomic writes (temp file
in the target folder + rename, keeping the old file's permissions); a pure-Python content and
file-name search that skips VCS/virtualenv/cache folders and binary files, yields to the event
loop as it walks (so the UI stays responsive and Ctrl-C is seen), and returns JSON carrying
"total_count" (the compressor's one-liner parses it).
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import os
import re
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from hermes_tui.core.tools.base import Tool, ToolContext, ToolResult, object_schema, param

BINARY_SNIFF_BYTES = 8192
MAX_LINE_CHARS = 2000
LINE_COUNT_MAX_FILE_BYTES = 64 * 1024 * 1024
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
SEARCH_DEFAULT_LIMIT = 50
SEARCH_MAX_LIMIT = 500
SEARCH_MAX_FILE_BYTES = 10 * 1024 * 1024
SEARCH_MAX_FILES = 100_000
SEARCH_MATCH_TEXT_CHARS = 300
SEARCH_YIELD_EVERY = 64


def _error(message: str) -> ToolResult:
    return ToolResult(f"Error: {message}", is_error=True)


def _os_reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


# =========================================================================== read_file


@dataclass
class _Line:
    number: int
    text: str


def _iter_raw_lines(handle: IO[bytes], max_bytes: int) -> Iterator[tuple[bytes, int]]:
    """(first `max_bytes` of each line, the line's full size in bytes); never loads a huge line."""
    while True:
        head = handle.readline(max_bytes)
        if not head:
            return
        size = len(head)
        if not head.endswith(b"\n"):
            while True:  # skip the rest of an overlong line in bounded chunks
                rest = handle.readline(1024 * 1024)
                size += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
        yield head, size


def _decode_line(raw: bytes, number: int, cut: bool) -> str:
    """One line as text without its line ending. For a `cut` (overlong) line, a UTF-8 sequence
    split by the cut is dropped; anywhere else undecodable bytes raise UnicodeDecodeError."""
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


def count_lines(path: Path) -> int | None:
    """Lines in a file (a last line without a newline counts), or None when it is too big to count."""
    try:
        if path.stat().st_size > LINE_COUNT_MAX_FILE_BYTES:
            return None
        newlines = 0
        last = b""
        with path.open("rb") as handle:
            while chunk := handle.read(1024 * 1024):
                newlines += chunk.count(b"\n")
                last = chunk[-1:]
    except OSError:
        return None
    return newlines + (1 if last and last != b"\n" else 0)


def read_text_file(path: Path, offset: int, limit: int | None, max_bytes: int) -> ToolResult:
    """Lines `offset`.. of a text file, numbered "     1|text", capped at `max_bytes` of source text."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return _error(f"file not found: {path}")
    except PermissionError:
        return _error(f"permission denied: {path}")
    except OSError as exc:
        return _error(f"cannot read {path}: {_os_reason(exc)}")
    if stat.S_ISDIR(info.st_mode):
        return _error(f"{path} is a directory, not a file (list it with search_files target='files')")
    if not stat.S_ISREG(info.st_mode):
        return _error(f"{path} is not a regular file (device, socket or pipe); read_file reads text files")
    try:
        handle = path.open("rb")
    except PermissionError:
        return _error(f"permission denied: {path}")
    except OSError as exc:
        return _error(f"cannot read {path}: {_os_reason(exc)}")
    with handle:
        if b"\0" in handle.read(BINARY_SNIFF_BYTES):
            return _binary_refusal(path, info.st_size)
        handle.seek(0)
        shown: list[_Line] = []
        used = 0
        line_count = 0
        capped = more = False
        for raw, size in _iter_raw_lines(handle, MAX_LINE_CHARS * 4 + 1):
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
                return _binary_refusal(path, info.st_size)
            try:
                text = _decode_line(raw, line_count, cut=size > len(raw))
            except UnicodeDecodeError:
                return _error(
                    f"{path} is not UTF-8 text (undecodable bytes on line {line_count}); "
                    "read_file only reads text files"
                )
            shown.append(_Line(line_count, text))
            used += len(raw)
    if info.st_size == 0:
        return ToolResult(f"[{path} is empty]")
    if not shown:
        return _error(f"offset {offset} is past the end of {path} ({line_count:,} lines)")
    body = "\n".join(f"{line.number:>6}|{line.text}" for line in shown)
    if not more:
        return ToolResult(body)
    first, last = shown[0].number, shown[-1].number
    total = count_lines(path)
    of_total = f" of {total:,}" if total is not None else ""
    if capped:
        note = (
            f"[File is larger than the read limit of {max_bytes:,} bytes: showing lines "
            f"{first}-{last}{of_total}. Read on with offset={last + 1}.]"
        )
    else:
        note = f"[Showing lines {first}-{last}{of_total}. Read on with offset={last + 1}.]"
    return ToolResult(f"{body}\n\n{note}")


def _binary_refusal(path: Path, size: int) -> ToolResult:
    return _error(f"{path} looks like a binary file ({size:,} bytes); read_file only reads text files")


class ReadFileTool(Tool):
    name = "read_file"
    description = (
        "Read a text file with line numbers ('     1|text'). Relative paths are taken from the working "
        "folder. Large files are returned in part with a note saying how to continue: pass offset "
        "(first line, 1-based) and limit (number of lines) to page through them. Binary files are refused."
    )
    parameters = object_schema(
        required=["path"],
        path=param("string", "File to read (absolute or relative to the working folder)."),
        offset=param("integer", "First line to show (1-based). Default 1.", minimum=1),
        limit=param("integer", "Most lines to show. Default: as many as the size cap allows.", minimum=1),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raw_path = args["path"]
        if not raw_path.strip():
            return _error("path must not be empty")
        offset = args.get("offset", 1)
        limit = args.get("limit")
        if offset < 1:
            return _error(f"offset must be 1 or more (line numbers start at 1), got {offset}")
        if limit is not None and limit < 1:
            return _error(f"limit must be 1 or more, got {limit}")
        path = ctx.resolve_path(raw_path)
        return read_text_file(path, offset, limit, max(1, ctx.settings.read_max_bytes))


# =========================================================================== write_file


def count_text_lines(content: str) -> int:
    """Lines in `content`: newlines, plus one for a last line without a newline."""
    if not content:
        return 0
    return content.count("\n") + (0 if content.endswith("\n") else 1)


def atomic_write(target: Path, data: bytes) -> None:
    """Write `data` to `target` via a temp file in the same folder and a rename.

    An existing file keeps its permission bits; a new file gets the usual umask-based mode.
    When the folder does not allow creating the temp file but the file itself is writable,
    the file is overwritten in place instead.
    """
    old_mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else None
    temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except PermissionError:
        if old_mode is None or not os.access(target, os.W_OK):
            raise
        with target.open("wb") as handle:
            handle.write(data)
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if old_mode is not None:
            os.chmod(temp, old_mode)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


class WriteFileTool(Tool):
    name = "write_file"
    description = (
        "Create or overwrite a text file with the given content (UTF-8). Missing parent folders are "
        "created. The write is atomic: the file is either fully replaced or left as it was."
    )
    parameters = object_schema(
        required=["path", "content"],
        path=param("string", "File to write (absolute or relative to the working folder)."),
        content=param("string", "The complete new content of the file."),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raw_path: str = args["path"]
        content: str = args["content"]
        if not raw_path.strip():
            return _error("path must not be empty")
        target = ctx.resolve_path(raw_path)
        if raw_path.endswith(("/", os.sep)) or target.is_dir():
            return _error(f"{target} is a directory; give a file path to write")
        if target.is_symlink():
            target = Path(os.path.realpath(target))
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError as exc:
            return _error(f"content cannot be written as UTF-8 ({exc.reason} at position {exc.start})")
        existed = target.exists()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            return _error(f"cannot create folder for {target}: a file is in the way")
        except OSError as exc:
            return _error(f"cannot create folder {target.parent}: {_os_reason(exc)}")
        try:
            atomic_write(target, data)
        except PermissionError:
            return _error(f"permission denied: {target}")
        except OSError as exc:
            return _error(f"cannot write {target}: {_os_reason(exc)}")
        lines = count_text_lines(content)
        verb = "Overwrote" if existed else "Created"
        return ToolResult(f"{verb} {target}: wrote {len(data):,} bytes ({lines:,} lines)")


# =========================================================================== search_files


@dataclass
class _SearchState:
    limit: int
    total: int = 0
    files_scanned: int = 0
    skipped_large: int = 0
    scan_capped: bool = False
    hits: list[Any] = field(default_factory=list)


def _display_path(path: str, cwd: Path) -> str:
    """A result path the model can pass straight back: relative to the working folder when inside it."""
    try:
        return Path(path).relative_to(cwd).as_posix()
    except ValueError:
        return path


def _glob_matches(glob: str, name: str, relative: str) -> bool:
    return fnmatch.fnmatch(relative if "/" in glob else name, glob)


def _walk_files(root: Path) -> Iterator[tuple[str, str]]:
    """(full path, path relative to root) of every file under root, in path order.

    Folders in SKIPPED_DIRS are not entered; symlinked folders are not followed; unreadable
    folders are passed over.
    """
    if root.is_file():
        yield str(root), root.name
        return
    stack: list[Iterator[os.DirEntry[str]]] = [iter(_sorted_entries(str(root)))]
    prefixes: list[str] = [""]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            prefixes.pop()
            continue
        relative = prefixes[-1] + entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED_DIRS:
                    stack.append(iter(_sorted_entries(entry.path)))
                    prefixes.append(relative + "/")
            elif entry.is_file():
                yield entry.path, relative
        except OSError:
            continue


def _sorted_entries(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return sorted(entries, key=lambda entry: entry.name)
    except OSError:
        return []


def _read_searchable_text(path: str, state: _SearchState) -> str | None:
    """File text for content search, or None for binaries, huge files and unreadable ones."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return None
        if info.st_size > SEARCH_MAX_FILE_BYTES:
            state.skipped_large += 1
            return None
        with open(path, "rb") as handle:
            data = handle.read(BINARY_SNIFF_BYTES)
            if b"\0" in data:
                return None
            data += handle.read()
    except OSError:
        return None
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n")


def _split_lines(text: str) -> list[str]:
    """Lines split on "\\n" only, as read_file numbers them, without the empty tail."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _compile_pattern(pattern: str) -> tuple[re.Pattern[str], str | None]:
    """Line regex (MULTILINE, so the whole-file pre-check agrees on ^ and $), or the literal text."""
    try:
        return re.compile(pattern, re.MULTILINE), None
    except re.error as exc:
        note = f"Invalid regex ({exc}); searched for the literal text instead."
        return re.compile(re.escape(pattern)), note


class SearchFilesTool(Tool):
    name = "search_files"
    description = (
        "Search the working folder. target='content' (default) finds lines matching a regular expression "
        "(case-sensitive; prefix (?i) to ignore case; an invalid regex is searched as literal text); "
        "target='files' lists files whose name matches a glob such as '*.py' (a glob with '/' matches "
        "the path). file_glob narrows which files are searched. Skips .git, .venv, node_modules, "
        "__pycache__ and binary files. Returns JSON with total_count and matches or files."
    )
    parameters = object_schema(
        required=["pattern"],
        pattern=param("string", "Regex for a content search, or a file-name glob for target='files'."),
        target=param("string", "What to search. Default 'content'.", enum=["content", "files"]),
        path=param("string", "Folder (or file) to search. Default: the working folder."),
        file_glob=param("string", "Only search files matching this glob, e.g. '*.py'."),
        limit=param(
            "integer",
            f"Most results to return (default {SEARCH_DEFAULT_LIMIT}, max {SEARCH_MAX_LIMIT}).",
            minimum=1,
        ),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        pattern: str = args["pattern"]
        target: str = args.get("target", "content")
        raw_path: str = args.get("path") or "."
        file_glob: str | None = args.get("file_glob") or None
        limit: int = args.get("limit", SEARCH_DEFAULT_LIMIT)
        if limit < 1:
            return _error(f"limit must be 1 or more, got {limit}")
        limit = min(limit, SEARCH_MAX_LIMIT)
        root = Path(os.path.normpath(ctx.resolve_path(raw_path)))
        if not root.exists():
            return _error(f"path not found: {root}")
        state = _SearchState(limit=limit)
        note: str | None = None
        if target == "files":
            await self._search_names(root, pattern.strip() or "*", file_glob, ctx.cwd, state)
            key = "files"
        else:
            if not pattern:
                return _error("pattern must not be empty for a content search")
            regex, note = _compile_pattern(pattern)
            await self._search_content(root, regex, file_glob, ctx.cwd, state)
            key = "matches"
        result: dict[str, Any] = {
            "total_count": state.total,
            key: state.hits,
            "truncated": state.total > len(state.hits),
            "files_searched": state.files_scanned,
        }
        notes = [text for text in (note, self._limits_note(state)) if text]
        if notes:
            result["note"] = " ".join(notes)
        return ToolResult(json.dumps(result, ensure_ascii=False))

    @staticmethod
    def _limits_note(state: _SearchState) -> str | None:
        parts = []
        if state.total > len(state.hits):
            shown = len(state.hits)
            parts.append(f"Showing {shown} of {state.total}; narrow the pattern, path or file_glob.")
        if state.skipped_large:
            size_mb = SEARCH_MAX_FILE_BYTES // (1024 * 1024)
            parts.append(f"Skipped {state.skipped_large} file(s) over {size_mb} MB.")
        if state.scan_capped:
            parts.append(f"Stopped after {SEARCH_MAX_FILES:,} files; search a smaller path.")
        return " ".join(parts) or None

    @staticmethod
    async def _search_names(root: Path, glob: str, file_glob: str | None, cwd: Path, state: _SearchState) -> None:
        for index, (full, relative) in enumerate(_walk_files(root), start=1):
            if index % SEARCH_YIELD_EVERY == 0:
                await asyncio.sleep(0)
            if index > SEARCH_MAX_FILES:
                state.scan_capped = True
                break
            state.files_scanned += 1
            name = os.path.basename(full)
            if not _glob_matches(glob, name, relative):
                continue
            if file_glob and not _glob_matches(file_glob, name, relative):
                continue
            state.total += 1
            if len(state.hits) < state.limit:
                state.hits.append(_display_path(full, cwd))

    @staticmethod
    async def _search_content(
        root: Path, regex: re.Pattern[str], file_glob: str | None, cwd: Path, state: _SearchState
    ) -> None:
        # One search over the whole file skips most files fast; \A and \Z mean "line start/end"
        # per line but "file start/end" on the whole text, so such patterns go line by line.
        whole_file_check = "\\A" not in regex.pattern and "\\Z" not in regex.pattern
        for index, (full, relative) in enumerate(_walk_files(root), start=1):
            if index % SEARCH_YIELD_EVERY == 0:
                await asyncio.sleep(0)
            if index > SEARCH_MAX_FILES:
                state.scan_capped = True
                break
            if file_glob and not _glob_matches(file_glob, os.path.basename(full), relative):
                continue
            text = _read_searchable_text(full, state)
            if text is None:
                continue
            state.files_scanned += 1
            if whole_file_check and not regex.search(text):
                continue
            shown_path = _display_path(full, cwd)
            for number, line in enumerate(_split_lines(text), start=1):
                if not regex.search(line):
                    continue
                state.total += 1
                if len(state.hits) < state.limit:
                    text_shown = line[:SEARCH_MATCH_TEXT_CHARS]
                    state.hits.append({"path": shown_path, "line": number, "text": text_shown})
