"""File tools: read_file, write_file and search_files, on the user's machine, relative to ctx.cwd.

Owns the three tools as the model sees them: argument checks, the file-access policy (paths
outside the working folder and sensitive ones need the user's approval — `file_access.authorize`,
rules in `file_policy`), calls that can never work refused before anyone is asked (a folder given
as a file, a FIFO or device, the kernel's /proc, /sys and /dev), and running the blocking work in a
worker thread with a size and a time cap (`file_access.run_granted`), so the event loop keeps
answering keys and Ctrl-C ends a call promptly. Each works on what `authorize` opened while it
judged the path (`safe_open`: no symbolic link followed after the check), so the path a tool
reports is the one it touched. The work itself lives in `file_read` (numbered, paged text reads),
`file_write` (atomic writes) and `file_search` (the walk and the matching); search results are
JSON carrying "total_count" (the compressor's one-liner parses it). A write_file result carries the
change it made (`ToolResult.changes`: the diff against the old content, read before the approval
so the request shows it too); the text the model reads is unchanged. The patch tool lives in
`file_patch`.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from typing import Any

from hermes_tui.core.tools.base import Tool, ToolContext, ToolResult, object_schema, param
from hermes_tui.core.tools.blocking import StopSignal, WorkTimedOut
from hermes_tui.core.tools.file_access import (
    Grant,
    OpenedFolder,
    Prepare,
    Prepared,
    authorize,
    error_result,
    run_granted,
)
from hermes_tui.core.tools.file_current import FileReplaced, TooLarge, read_current, shown_path
from hermes_tui.core.tools.file_diff import HUGE_BYTES, file_change, sized_change
from hermes_tui.core.tools.file_policy import (
    HARD_LINK,
    PathVerdict,
    hermes_homes,
    pseudo_filesystem_reason,
    visible_path,
)
from hermes_tui.core.tools.file_read import MAX_LINE_CHARS, ReadStopped, read_text_file
from hermes_tui.core.tools.file_search import (
    SEARCH_MAX_FILE_BYTES,
    SEARCH_MAX_FILES,
    SearchScope,
    SearchState,
    compile_pattern,
    search_content,
    search_names,
)
from hermes_tui.core.tools.file_write import WriteStopped, count_text_lines, write_file
from hermes_tui.core.tools.safe_open import OpenedFile, WritePlace

__all__ = ["MAX_LINE_CHARS", "ReadFileTool", "SearchFilesTool", "WriteFileTool"]

READ_TIME_LIMIT = 20.0
WRITE_TIME_LIMIT = 30.0
SEARCH_TIME_LIMIT = 20.0
WRITE_MAX_BYTES = 16 * 1024 * 1024
SEARCH_DEFAULT_LIMIT = 50
SEARCH_MAX_LIMIT = 500
_POLICY_NOTE = (
    "Paths outside the working folder, files with more than one name (hard links), and sensitive files "
    "anywhere (keys, credentials, .env, shell start-up files, /etc), need the user's approval; /proc, /sys "
    "and /dev are never read."
)


def _given_through_link(verdict: PathVerdict) -> str:
    if not verdict.via_link:
        return ""
    return f" (given as {visible_path(str(verdict.written))}, which leads there through a symbolic link)"


def _refuse_untouchable(verdict: PathVerdict) -> ToolResult | None:
    reason = pseudo_filesystem_reason(verdict.resolved)
    return error_result(reason) if reason else None


# =========================================================================== read_file


def _describe_read(verdict: PathVerdict) -> str:
    size = f" ({verdict.target.size:,} bytes)" if verdict.target.kind == "file" else ""
    return f"read {verdict.shown}{size}{_given_through_link(verdict)}"


def _refuse_read(verdict: PathVerdict) -> ToolResult | None:
    refusal = _refuse_untouchable(verdict)
    if refusal:
        return refusal
    target, shown = verdict.target, verdict.shown
    if target.kind == "missing":
        return error_result(f"file not found: {shown}{_given_through_link(verdict)}")
    if target.kind == "folder":
        return error_result(f"{shown} is a directory, not a file (list it with search_files target='files')")
    if target.kind in ("fifo", "device", "socket", "other") and not target.error:
        return error_result(
            f"{shown} is not a regular file (a {target.kind}: device, socket or pipe); read_file reads text files"
        )
    if target.error:
        return error_result(f"cannot read {shown}: {target.error}")
    return None


class ReadFileTool(Tool):
    name = "read_file"
    description = (
        "Read a text file with line numbers ('     1|text'). Relative paths are taken from the working "
        "folder. Large files are returned in part with a note saying how to continue: pass offset "
        "(first line, 1-based) and limit (number of lines) to page through them. Binary files are refused. "
        + _POLICY_NOTE
    )
    parameters = object_schema(
        required=["path"],
        path=param("string", "File to read (absolute or relative to the working folder)."),
        offset=param("integer", "First line to show (1-based). Default 1.", minimum=1),
        limit=param("integer", "Most lines to show. Default: as many as the size cap allows.", minimum=1),
    )

    def __init__(self, time_limit: float = READ_TIME_LIMIT) -> None:
        self.time_limit = time_limit

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raw_path = args["path"]
        if not raw_path.strip():
            return error_result("path must not be empty")
        offset = args.get("offset", 1)
        limit = args.get("limit")
        if offset < 1:
            return error_result(f"offset must be 1 or more (line numbers start at 1), got {offset}")
        if limit is not None and limit < 1:
            return error_result(f"limit must be 1 or more, got {limit}")
        grant = await authorize(ctx, self.name, raw_path, "read", _describe_read, _refuse_read)
        if isinstance(grant, ToolResult):
            return grant
        opened, path, max_bytes = grant.opened, grant.verdict.resolved, max(1, ctx.settings.read_max_bytes)
        assert isinstance(opened, OpenedFile)

        def work(stop: StopSignal) -> ToolResult:
            return read_text_file(opened, path, offset, limit, max_bytes, stop)

        try:
            return await run_granted(grant, work, self.time_limit)
        except (ReadStopped, WorkTimedOut):
            return error_result(
                f"reading {grant.verdict.shown} took longer than {self.time_limit:g} s and was stopped "
                "(a slow or stuck file system?)"
            )


# =========================================================================== write_file


def _refuse_write(verdict: PathVerdict) -> ToolResult | None:
    refusal = _refuse_untouchable(verdict)
    if refusal:
        return refusal
    target, shown = verdict.target, verdict.shown
    if target.kind == "folder":
        return error_result(f"{shown} is a directory; give a file path to write")
    if target.kind in ("fifo", "device", "socket", "other") and not target.error:
        return error_result(f"{shown} is a {target.kind}, not a regular file; write_file only writes regular files")
    if target.kind == "missing" and target.error:
        return error_result(f"cannot create folder for {shown}: {target.error}")
    if target.error:
        return error_result(f"cannot write {shown}: {target.error}")
    return None


def write_preview(ctx: ToolContext, data: bytes) -> Prepare:
    """write_file's `prepare`: the diff between the file as it is now (read through the judged
    descriptor) and `data`; a size line when the old content is too large or cannot be read."""

    def prepare(grant: Grant, _stop: StopSignal) -> Prepared:
        place, verdict = grant.opened, grant.verdict
        assert isinstance(place, WritePlace)
        shown = shown_path(verdict.resolved, ctx.cwd)
        existing = place.existing
        try:
            current = read_current(place, str(verdict.resolved), HUGE_BYTES)
        except (OSError, TooLarge, FileReplaced):
            old_size = existing.st_size if existing is not None else None
            label = "large file" if old_size is not None and old_size > HUGE_BYTES else "file (old content unreadable)"
            return Prepared(sized_change(shown, old_size, len(data), label))
        return Prepared(file_change(shown, current.data if current is not None else None, data))

    return prepare


class WriteFileTool(Tool):
    name = "write_file"
    mutates_files = True
    description = (
        "Create or overwrite a text file with the given content (UTF-8). Missing parent folders are "
        "created. The write is atomic: the file is either fully replaced or left as it was. " + _POLICY_NOTE
    )
    parameters = object_schema(
        required=["path", "content"],
        path=param("string", "File to write (absolute or relative to the working folder)."),
        content=param("string", "The complete new content of the file."),
    )

    def __init__(self, time_limit: float = WRITE_TIME_LIMIT, max_bytes: int = WRITE_MAX_BYTES) -> None:
        self.time_limit = time_limit
        self.max_bytes = max_bytes

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raw_path: str = args["path"]
        content: str = args["content"]
        if not raw_path.strip():
            return error_result("path must not be empty")
        if raw_path.endswith(("/", os.sep)):
            return error_result(f"{visible_path(raw_path)} is a directory; give a file path to write")
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError as exc:
            return error_result(f"content cannot be written as UTF-8 ({exc.reason} at position {exc.start})")
        if len(data) > self.max_bytes:
            return error_result(
                f"content is {len(data):,} bytes, over the write limit of {self.max_bytes:,} bytes; "
                "write the file in smaller parts"
            )
        lines = count_text_lines(content)

        def describe(verdict: PathVerdict) -> str:
            replacing = ""
            if verdict.target.kind == "file":
                replacing = f", replacing the existing {verdict.target.size:,}-byte file"
            return f"write {len(data):,} bytes ({lines:,} lines) to {verdict.shown}{replacing}" + _given_through_link(
                verdict
            )

        grant = await authorize(ctx, self.name, raw_path, "write", describe, _refuse_write, write_preview(ctx, data))
        if isinstance(grant, ToolResult):
            return grant
        place, target, shown = grant.opened, str(grant.verdict.resolved), grant.verdict.shown
        assert isinstance(place, WritePlace)
        shared_ok = any(reason.startswith(HARD_LINK) for reason in grant.verdict.reasons)
        change = grant.prepared.change if grant.prepared is not None else None

        def work(stop: StopSignal) -> ToolResult:
            return write_file(place, target, data, lines, stop, shared_ok)

        try:
            result = await run_granted(grant, work, self.time_limit)
            return result if result.is_error or change is None else replace(result, changes=(change,))
        except WriteStopped:
            return error_result(
                f"writing {shown} took longer than {self.time_limit:g} s and was stopped; the file is unchanged"
            )
        except WorkTimedOut:
            return error_result(
                f"writing {shown} did not finish within {self.time_limit:g} s (a slow or stuck file system?); "
                "the file holds either its old or its new content"
            )


# =========================================================================== search_files


def _refuse_search(verdict: PathVerdict) -> ToolResult | None:
    refusal = _refuse_untouchable(verdict)
    if refusal:
        return refusal
    target, shown = verdict.target, verdict.shown
    if target.kind == "missing":
        return error_result(f"path not found: {shown}{_given_through_link(verdict)}")
    if target.kind in ("fifo", "device", "socket", "other") and not target.error:
        return error_result(f"{shown} is not a regular file or folder (a {target.kind}); nothing to search")
    if target.error:
        return error_result(f"cannot search {shown}: {target.error}")
    return None


class SearchFilesTool(Tool):
    name = "search_files"
    description = (
        "Search the working folder. target='content' (default) finds lines matching a regular expression "
        "(case-sensitive; prefix (?i) to ignore case; an invalid regex is searched as literal text); "
        "target='files' lists files whose name matches a glob such as '*.py' (a glob with '/' matches "
        "the path). file_glob narrows which files are searched. Leaves out what the project's .gitignore and "
        ".ignore exclude, .git, .venv, node_modules, __pycache__, build/dist/target folders, binary files "
        "and sensitive files (keys, credentials, .env); a path given explicitly is searched even so. Long "
        "searches stop at a time limit with partial results. Returns JSON with total_count and matches or "
        "files. " + _POLICY_NOTE
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

    def __init__(self, time_limit: float = SEARCH_TIME_LIMIT) -> None:
        self.time_limit = time_limit

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        pattern: str = args["pattern"]
        target: str = args.get("target", "content")
        raw_path: str = args.get("path") or "."
        file_glob: str | None = args.get("file_glob") or None
        limit: int = args.get("limit", SEARCH_DEFAULT_LIMIT)
        if limit < 1:
            return error_result(f"limit must be 1 or more, got {limit}")
        if target == "content" and not pattern:
            return error_result("pattern must not be empty for a content search")
        glob = pattern.strip() or "*"
        regex, regex_note = compile_pattern(pattern) if target == "content" else (None, None)

        def describe(verdict: PathVerdict) -> str:
            if regex is None:
                return f"list the files under {verdict.shown} whose names match {visible_path(glob)}"
            return f"search the contents of the files under {verdict.shown} for {visible_path(pattern)}"

        grant = await authorize(ctx, self.name, raw_path, "search", describe, _refuse_search)
        if isinstance(grant, ToolResult):
            return grant
        state = SearchState(limit=min(limit, SEARCH_MAX_LIMIT))
        verdict, opened, home = grant.verdict, grant.opened, ctx.home

        def work(stop: StopSignal) -> None:
            roots = verdict.roots
            scope = SearchScope(
                verdict.resolved,
                roots[0],
                roots,
                hermes_homes(home),
                frozenset(verdict.reasons),
                folder_fd=opened.fd if isinstance(opened, OpenedFolder) else None,
                file=opened if isinstance(opened, OpenedFile) else None,
            )
            if regex is None:
                search_names(glob, file_glob, scope, state, stop)
            else:
                search_content(regex, file_glob, scope, state, stop)

        stuck = False
        try:
            await run_granted(grant, work, self.time_limit)
        except WorkTimedOut:
            stuck = True
        hits = list(state.hits)
        result: dict[str, Any] = {
            "total_count": state.total,
            "files" if regex is None else "matches": hits,
            "truncated": state.total > len(hits) or state.timed_out or stuck or state.scan_capped,
            "files_searched": state.files_scanned,
        }
        notes = [text for text in (regex_note, self._limits_note(state, stuck)) if text]
        if notes:
            result["note"] = " ".join(notes)
        return ToolResult(json.dumps(result, ensure_ascii=False))

    def _limits_note(self, state: SearchState, stuck: bool) -> str | None:
        parts = []
        if state.timed_out or stuck:
            why = "a file system call did not return" if stuck else "the search time limit"
            parts.append(
                f"Stopped after {self.time_limit:g} s ({why}): the results are partial; "
                "search a smaller path or narrow file_glob."
            )
        if state.total > len(state.hits):
            parts.append(f"Showing {len(state.hits)} of {state.total}; narrow the pattern, path or file_glob.")
        if state.skipped_large:
            size_mb = SEARCH_MAX_FILE_BYTES // (1024 * 1024)
            parts.append(f"Skipped {state.skipped_large} file(s) over {size_mb} MB.")
        if state.skipped_sensitive:
            parts.append(
                f"Skipped {state.skipped_sensitive} sensitive file(s) (keys, credentials, .env, shell start-up "
                "files); read_file can read one with the user's approval."
            )
        if state.skipped_links:
            parts.append(f"Skipped {state.skipped_links} symbolic link(s) leading outside the searched folder.")
        if state.skipped_hard_links:
            parts.append(
                f"Skipped {state.skipped_hard_links} file(s) with more than one name (hard links, which may be "
                "files from outside); read_file can read one with the user's approval."
            )
        if state.skipped_ignored:
            parts.append(
                f"Left out {state.skipped_ignored} path(s) the project's .gitignore/.ignore exclude; "
                "pass one as path to search it."
            )
        if state.skipped_system:
            parts.append(f"Did not enter {state.skipped_system} system folder(s) (/proc, /sys, /dev).")
        if state.scan_capped:
            parts.append(f"Stopped after {SEARCH_MAX_FILES:,} files; search a smaller path.")
        return " ".join(parts) or None
