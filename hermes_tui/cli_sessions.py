"""Headless session commands: `hermes-tui sessions`, `search` and `export` (parsed by cli.py).

Each handler opens an existing state.db read-only (never creating one, never writing it: no
schema upgrade, no index; a v14 file is read as it is) — only a file older than v14 in a home we
may write (`read_only=False`) is opened for writing, to be upgraded — prints to `out`, reports a problem as one line
on stderr and returns an exit code (hermes_tui.exit_codes): OK, or USAGE for a missing or
unusable database, an unknown/ambiguous session or a bad format. Output contracts (stable for
scripts): `sessions --json` is a JSON array of session objects with the fields
store.models.LISTING_FIELDS; `search --json` a JSON array of hits with the fields
store.search.SEARCH_HIT_FIELDS (`id` named `message_id`); `export` md|json|jsonl. A search query
takes the filters of the TUI's search and `/search` (`core.search_query`: `role:user`,
`source:cli`, `since:7d`, `until:2026-11-26`), parsed by the same parser; `--role` adds roles.
Titles, previews, snippets and exported messages are untrusted: tables and Markdown show their
control characters as escapes (`text_safety.visible`), JSON writes them as `\\uXXXX`
(`text_safety.json_for_terminal`) — the same JSON value, nothing a terminal would act on.
Kept light on imports so `hermes-tui search` starts fast.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TextIO

from hermes_tui import exit_codes
from hermes_tui.store.db import SessionDB
from hermes_tui.store.errors import SchemaTooOld, StoreError
from hermes_tui.store.models import LISTING_FIELDS
from hermes_tui.store.search import SEARCH_HIT_FIELDS
from hermes_tui.text_safety import dumps_for_terminal, json_for_terminal, visible

# `search --json` names a hit's message id `message_id`.
HIT_FIELDS = tuple("message_id" if field == "id" else field for field in SEARCH_HIT_FIELDS)


def _fail(err: TextIO | None, message: str) -> int:
    print(f"hermes-tui: error: {message}", file=err or sys.stderr)
    return exit_codes.USAGE


async def _open_existing(db_path: Path, read_only: bool) -> SessionDB:
    """Open an existing state.db without writing it; a missing file is a StoreError (we never create one).

    `read_only=False` (the home is writable) allows one exception: a file too old to read as it is
    (before v14) is opened for writing, which upgrades it.
    """
    path = Path(db_path).expanduser()
    if not path.exists():
        raise StoreError(f"no session database at {path}")
    try:
        return await SessionDB.open(path, read_only=True)
    except SchemaTooOld:
        if read_only:
            raise
    return await SessionDB.open(path)


def _when(epoch: float | None) -> str:
    return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M") if epoch else "-"


def _width(text: str) -> int:
    """Terminal cells `text` occupies (CJK and other wide characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _table(rows: list[list[str]], headers: Sequence[str]) -> str:
    """Left-aligned columns sized to their widest cell; the last column is not padded.

    Cells are shown with their control characters escaped (ids and sources come from a
    state.db other programs write too).
    """
    grid = [list(headers), *([visible(cell) for cell in row] for row in rows)]
    widths = [max(_width(row[i]) for row in grid) for i in range(len(headers))]
    lines = []
    for cells in grid:
        padded = [
            cell + " " * (widths[i] - _width(cell)) if i < len(cells) - 1 else cell for i, cell in enumerate(cells)
        ]
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines) + "\n"


def _clip(text: str | None, width: int) -> str:
    """One line of at most `width` characters, control characters shown as escapes first."""
    text = visible(text or "").replace("\n", " ").replace("\t", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


# --------------------------------------------------------------------------- sessions


async def sessions_command(
    db_path: Path,
    show_all: bool,
    as_json: bool,
    out: TextIO,
    err: TextIO | None = None,
    limit: int | None = None,
    read_only: bool = False,
    sort: str = "activity",
) -> int:
    """List sessions (compression chains shown as their tip); `show_all` lists every session.

    `sort`: "activity" (newest activity first) or "started" (newest start first, Hermes's order).
    """
    try:
        db = await _open_existing(db_path, read_only)
    except StoreError as exc:
        return _fail(err, str(exc))
    try:
        rows = await db.list_sessions_rich(
            limit=limit,
            include_children=show_all,
            include_archived=show_all,
            project_compression_tips=not show_all,
            order_by_last_active=sort != "started",
        )
    except StoreError as exc:
        return _fail(err, str(exc))
    finally:
        await db.close()
    if as_json:
        payload = [{field: row.get(field) for field in LISTING_FIELDS} for row in rows]
        out.write(dumps_for_terminal(payload, indent=2) + "\n")
        return exit_codes.OK
    if not rows:
        out.write("No sessions yet.\n")
        return exit_codes.OK
    table = [
        [
            row["id"],
            _clip(row.get("title") or "-", 32),
            row.get("source") or "-",
            _clip(row.get("model") or "-", 20),
            str(row.get("message_count") or 0),
            _when(row.get("last_active")),
            _clip(row.get("preview"), 50),
        ]
        for row in rows
    ]
    out.write(_table(table, ("ID", "TITLE", "SOURCE", "MODEL", "MSGS", "LAST ACTIVE", "PREVIEW")))
    return exit_codes.OK


# --------------------------------------------------------------------------- search


async def search_command(
    db_path: Path,
    query: str,
    limit: int,
    role: str | None,
    as_json: bool,
    out: TextIO,
    err: TextIO | None = None,
    sort: str | None = None,
    read_only: bool = False,
) -> int:
    """Full-text search over every session's messages (newest first for common terms).

    `query` is a search line: words plus `role:`/`source:`/`since:`/`until:` filters; `role`
    (`--role`, comma-separated) adds roles to those the line names.
    """
    from hermes_tui.core.search_query import ROLES, parse_search

    if limit is None or int(limit) < 1:
        return _fail(err, f"--limit must be at least 1 (got {limit})")
    if sort not in (None, "rank", "newest", "oldest"):
        return _fail(err, f"unknown sort '{sort}' (use rank, newest or oldest)")
    request = parse_search(query, datetime.now(), as_you_type=False)
    if request.error:
        return _fail(err, request.error)
    roles = list(request.roles)
    for part in (role or "").split(","):
        name = part.strip().lower()
        if name and name not in ROLES:
            return _fail(err, f"--role: '{name}' is not a role ({', '.join(ROLES)})")
        if name and name not in roles:
            roles.append(name)
    if not request.query:
        return _fail(err, "give words to search for (filters alone, such as role:user, search nothing)")
    try:
        db = await _open_existing(db_path, read_only)
    except StoreError as exc:
        return _fail(err, str(exc))
    try:
        hits = await db.search_messages(
            request.query,
            role_filter=roles or None,
            source_filter=list(request.sources) or None,
            since=request.since,
            until=request.until,
            limit=int(limit),
            sort=sort,
        )
    except StoreError as exc:
        return _fail(err, str(exc))
    finally:
        await db.close()
    if as_json:
        payload = [{field: hit.get("id" if field == "message_id" else field) for field in HIT_FIELDS} for hit in hits]
        out.write(dumps_for_terminal(payload, indent=2) + "\n")
        return exit_codes.OK
    if not hits:
        out.write("No matches.\n")
        return exit_codes.OK
    table = [
        [
            _when(hit["timestamp"]),
            hit["session_id"],
            str(hit["id"]),
            hit["role"],
            _clip(hit["snippet"], 80),
        ]
        for hit in hits
    ]
    out.write(_table(table, ("WHEN", "SESSION", "MSG", "ROLE", "SNIPPET")))
    return exit_codes.OK


# --------------------------------------------------------------------------- export


async def export_command(
    db_path: Path,
    session_ref: str,
    lineage: bool,
    fmt: str,
    out: TextIO,
    err: TextIO | None = None,
    read_only: bool = False,
) -> int:
    """Write one session (or its lineage root -> tip) as md, json or jsonl, secrets masked (unless switched off)."""
    # Imported here: `sessions` and `search` never load the exporter.
    from hermes_tui.core.context.redact_records import redact_value
    from hermes_tui.store.export import EXPORT_FORMATS, build_export, render_json, render_jsonl, render_markdown

    if fmt not in EXPORT_FORMATS:
        return _fail(err, f"unknown export format '{fmt}' (use {', '.join(EXPORT_FORMATS)})")
    try:
        db = await _open_existing(db_path, read_only)
    except StoreError as exc:
        return _fail(err, str(exc))
    try:
        session_id = await db.resolve_session(session_ref, follow_tip=lineage)
        document = redact_value(await build_export(db, session_id, lineage=lineage))
    except StoreError as exc:
        return _fail(err, str(exc))
    finally:
        await db.close()
    if fmt == "json":
        out.write(json_for_terminal(render_json(document)))
    elif fmt == "jsonl":
        for line in render_jsonl(document):
            out.write(json_for_terminal(line))
    else:
        out.write(visible(render_markdown(document)))
    return exit_codes.OK
