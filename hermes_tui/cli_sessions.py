"""Headless session commands: `hermes-tui sessions`, `search` and `export`.

Each handler opens the state.db read-mostly (never creating one), prints to `out`, reports a
problem as one line on stderr and returns an exit code: 0 success, 2 for a missing or unusable
database, an unknown/ambiguous session or a bad format. Output contracts (stable for scripts):
`sessions --json` is a JSON array of session objects (id, title, source, model,
parent_session_id, started_at, ended_at, end_reason, message_count, last_active, preview,
lineage_root_id); `search --json` a JSON array of hits (message_id, session_id,
lineage_root_id, role, snippet, timestamp, ...); `export` md|json|jsonl.

Kept light on imports so `hermes-tui search` starts fast; `python -m hermes_tui.cli_sessions`
runs these handlers without the full CLI.
"""

from __future__ import annotations

import asyncio
import json
import sys
import unicodedata
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from hermes_tui.store.db import SessionDB
from hermes_tui.store.errors import StoreError
from hermes_tui.store.export import EXPORT_FORMATS, build_export, render_json, render_jsonl, render_markdown

EXIT_OK = 0
EXIT_USAGE = 2

SESSION_FIELDS = (
    "id",
    "title",
    "source",
    "model",
    "parent_session_id",
    "started_at",
    "ended_at",
    "end_reason",
    "message_count",
    "tool_call_count",
    "last_active",
    "preview",
    "lineage_root_id",
)
HIT_FIELDS = (
    "message_id",
    "session_id",
    "lineage_root_id",
    "role",
    "snippet",
    "timestamp",
    "tool_name",
    "source",
    "model",
    "session_started",
    "context",
)


def _fail(err: TextIO | None, message: str) -> int:
    print(f"hermes-tui: {message}", file=err or sys.stderr)
    return EXIT_USAGE


async def _open_existing(db_path: Path) -> SessionDB:
    """Open an existing state.db; a missing file is a StoreError (we never create one here)."""
    path = Path(db_path).expanduser()
    if not path.exists():
        raise StoreError(f"no session database at {path}")
    return await SessionDB.open(path)


def _when(epoch: float | None) -> str:
    return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M") if epoch else "-"


def _width(text: str) -> int:
    """Terminal cells `text` occupies (CJK and other wide characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _table(rows: list[list[str]], headers: Sequence[str]) -> str:
    """Left-aligned columns sized to their widest cell; the last column is not padded."""
    grid = [list(headers), *rows]
    widths = [max(_width(row[i]) for row in grid) for i in range(len(headers))]
    lines = []
    for cells in grid:
        padded = [
            cell + " " * (widths[i] - _width(cell)) if i < len(cells) - 1 else cell for i, cell in enumerate(cells)
        ]
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines) + "\n"


def _clip(text: str | None, width: int) -> str:
    text = (text or "").replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


# --------------------------------------------------------------------------- sessions


async def sessions_command(
    db_path: Path,
    show_all: bool,
    as_json: bool,
    out: TextIO,
    err: TextIO | None = None,
    limit: int | None = None,
) -> int:
    """List sessions (compression chains shown as their tip); `show_all` lists every session."""
    try:
        db = await _open_existing(db_path)
    except StoreError as exc:
        return _fail(err, str(exc))
    try:
        rows = await db.list_sessions_rich(
            limit=limit,
            include_children=show_all,
            include_archived=show_all,
            project_compression_tips=not show_all,
        )
    except StoreError as exc:
        return _fail(err, str(exc))
    finally:
        await db.close()
    if as_json:
        payload = [{field: row.get(field) for field in SESSION_FIELDS} for row in rows]
        out.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
        return EXIT_OK
    if not rows:
        out.write("No sessions yet.\n")
        return EXIT_OK
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
    return EXIT_OK


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
) -> int:
    """Full-text search over every session's messages (newest first for common terms)."""
    if limit is None or int(limit) < 1:
        return _fail(err, f"--limit must be at least 1 (got {limit})")
    if sort not in (None, "rank", "newest", "oldest"):
        return _fail(err, f"unknown sort '{sort}' (use rank, newest or oldest)")
    try:
        db = await _open_existing(db_path)
    except StoreError as exc:
        return _fail(err, str(exc))
    try:
        hits = await db.search_messages(query, role_filter=role or None, limit=int(limit), sort=sort)
    except StoreError as exc:
        return _fail(err, str(exc))
    finally:
        await db.close()
    if as_json:
        payload = [{field: hit.get("id" if field == "message_id" else field) for field in HIT_FIELDS} for hit in hits]
        out.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
        return EXIT_OK
    if not hits:
        out.write("No matches.\n")
        return EXIT_OK
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
    return EXIT_OK


# --------------------------------------------------------------------------- export


async def export_command(
    db_path: Path, session_ref: str, lineage: bool, fmt: str, out: TextIO, err: TextIO | None = None
) -> int:
    """Write one session (or its lineage root -> tip) as md, json or jsonl."""
    if fmt not in EXPORT_FORMATS:
        return _fail(err, f"unknown export format '{fmt}' (use {', '.join(EXPORT_FORMATS)})")
    try:
        db = await _open_existing(db_path)
    except StoreError as exc:
        return _fail(err, str(exc))
    try:
        session_id = await db.resolve_session(session_ref, follow_tip=lineage)
        document = await build_export(db, session_id, lineage=lineage)
    except StoreError as exc:
        return _fail(err, str(exc))
    finally:
        await db.close()
    if fmt == "json":
        out.write(render_json(document))
    elif fmt == "jsonl":
        for line in render_jsonl(document):
            out.write(line)
    else:
        out.write(render_markdown(document))
    return EXIT_OK


# --------------------------------------------------------------------------- __main__


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m hermes_tui.cli_sessions [--db PATH] sessions|search|export ...`."""
    import argparse

    parser = argparse.ArgumentParser(prog="hermes-tui-sessions", description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("~/.hermes-tui/state.db"), help="path to state.db")
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("sessions", help="list sessions")
    listing.add_argument("--all", action="store_true", help="include hidden child sessions")
    listing.add_argument("--json", action="store_true")
    finder = commands.add_parser("search", help="search messages")
    finder.add_argument("query")
    finder.add_argument("--limit", type=int, default=20)
    finder.add_argument("--role", default=None, help="comma-separated roles, e.g. user,assistant")
    finder.add_argument("--sort", default=None, choices=("rank", "newest", "oldest"))
    finder.add_argument("--json", action="store_true")
    exporter = commands.add_parser("export", help="export a session")
    exporter.add_argument("session")
    exporter.add_argument("--lineage", action="store_true", help="the whole chain, root to tip")
    exporter.add_argument("--format", default="md", help="md, json or jsonl")
    args = parser.parse_args(argv)

    out = sys.stdout
    run: Any
    if args.command == "sessions":
        run = sessions_command(args.db, args.all, args.json, out)
    elif args.command == "search":
        run = search_command(args.db, args.query, args.limit, args.role, args.json, out, sort=args.sort)
    else:
        run = export_command(args.db, args.session, args.lineage, args.format, out)
    return asyncio.run(run)


if __name__ == "__main__":
    raise SystemExit(main())
