"""Exporting a session, or its whole lineage root -> tip, as Markdown, JSON or JSON Lines.

A lineage export is one document: each session of the chain in order with the kind of edge
that led to it. Compression summaries (the handoff message that opens a continuation, or that an
in-place compaction put in front of the live rows) are flagged `compression_summary`; at a branch
point the history the branch copied from its parent is not repeated (`inherited_messages` says
how many rows were skipped). The rows an in-place compaction replaced (Hermes's `compacted = 1`)
are exported too, in their place, each marked `"compacted": true`, with the session's
`compacted_messages` count (rewound rows are not exported).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from hermes_tui.store.codec import flatten_text
from hermes_tui.store.lineage_queries import edge_kind
from hermes_tui.store.models import EDGE_BRANCH, EDGE_COMPRESSION, EXPORT_SESSION_FIELDS, is_summary_text

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

EXPORT_FORMATS = ("md", "json", "jsonl")


def _export_message(row: dict[str, Any], in_continuation: bool) -> dict[str, Any]:
    message: dict[str, Any] = {"id": row["id"], "role": row["role"], "content": row["content"]}
    for key in ("tool_calls", "tool_call_id", "tool_name", "reasoning", "finish_reason"):
        if row.get(key):
            message[key] = row[key]
    message["timestamp"] = row["timestamp"]
    if row.get("compacted"):
        message["compacted"] = True
    elif in_continuation and is_summary_text(flatten_text(row["content"])):
        message["kind"] = "compression_summary"
    return message


def _same_turn(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a["role"] == b["role"] and a["content"] == b["content"]


async def _chain_ids(db: SessionDB, session_id: str) -> list[str]:
    chain = await db.lineage_chain(session_id)
    tip = await db.get_compression_tip(session_id)
    forward: list[str] = []
    current = tip
    while current != session_id and current not in chain and current not in forward:
        forward.append(current)
        parent = (await db.get_session(current) or {}).get("parent_session_id")
        if not parent:
            break
        current = parent
    return chain + list(reversed(forward))


async def build_export(db: SessionDB, session_id: str, lineage: bool = False) -> dict[str, Any]:
    """The export document for one session, or (`lineage=True`) its chain root -> tip."""
    ids = await _chain_ids(db, session_id) if lineage else [session_id]
    sessions: list[dict[str, Any]] = []
    previous_rows: list[dict[str, Any]] = []
    previous: dict[str, Any] | None = None
    for sid in ids:
        row = await db.get_session(sid)
        if row is None:
            continue
        edge = "root"
        recorded = await db.get_edge_record(sid)
        if recorded is not None and not recorded.applies_to(row.get("parent_session_id")):
            recorded = None
        if previous is not None:
            edge = edge_kind(True, previous["end_reason"], previous["ended_at"], row["started_at"], recorded)
        elif lineage is False and row.get("parent_session_id"):
            parent = await db.get_session(row["parent_session_id"])
            if parent is not None:
                edge = edge_kind(True, parent["end_reason"], parent["ended_at"], row["started_at"], recorded)
        rows = await db.get_record_messages(sid)
        compacted = sum(1 for r in rows if r.get("compacted"))
        skipped = 0
        if lineage and edge == EDGE_BRANCH:
            while skipped < min(len(rows), len(previous_rows)) and _same_turn(rows[skipped], previous_rows[skipped]):
                skipped += 1
        entry = {field: row.get(field) for field in EXPORT_SESSION_FIELDS}
        entry["edge"] = edge
        entry["inherited_messages"] = skipped
        entry["compacted_messages"] = compacted
        summaries_here = edge == EDGE_COMPRESSION or compacted > 0
        entry["messages"] = [_export_message(r, summaries_here) for r in rows[skipped:]]
        sessions.append(entry)
        previous_rows, previous = [r for r in rows if not r.get("compacted")], row
    root = ids[0] if ids else session_id
    if lineage:
        chain = await db.lineage_chain(session_id)
        root = chain[0] if chain else root
    return {
        "format": "hermes-tui-export/1",
        "exported_at": time.time(),
        "lineage": lineage,
        "session_id": session_id,
        "lineage_root_id": root,
        "sessions": sessions,
    }


def render_json(document: dict[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def render_jsonl(document: dict[str, Any]) -> Iterator[str]:
    """One `{"type": "session"}` line per session followed by its `{"type": "message"}` lines."""
    for session in document["sessions"]:
        header = {k: v for k, v in session.items() if k != "messages"}
        yield json.dumps({"type": "session", **header}, ensure_ascii=False) + "\n"
        for message in session["messages"]:
            yield (json.dumps({"type": "message", "session_id": session["id"], **message}, ensure_ascii=False) + "\n")


def render_document(document: dict[str, Any], fmt: str) -> str:
    """The whole document as one text in `fmt` (one of EXPORT_FORMATS), for writing to a file."""
    if fmt == "json":
        return render_json(document)
    if fmt == "jsonl":
        return "".join(render_jsonl(document))
    return render_markdown(document)


def _when(epoch: float | None) -> str:
    return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M") if epoch else "-"


def _md_message(message: dict[str, Any]) -> list[str]:
    text = flatten_text(message.get("content")).strip()
    if message.get("kind") == "compression_summary":
        quoted = "\n".join("> " + line if line else ">" for line in text.splitlines())
        return [
            "> **Compression summary** (the earlier turns, as handed to this continuation)",
            ">",
            quoted,
            "",
        ]
    role = message["role"]
    label = f"tool result ({message['tool_name']})" if role == "tool" and message.get("tool_name") else role
    compacted = " · compacted" if message.get("compacted") else ""
    lines = [f"**{label}** · {_when(message.get('timestamp'))}{compacted}", ""]
    if text and role == "tool":
        lines += ["```", text, "```", ""]
    elif text:
        lines += [text, ""]
    for call in message.get("tool_calls") or []:
        if isinstance(call, dict):
            function = call.get("function") or {}
            lines += [f"- tool call `{function.get('name', '?')}` `{function.get('arguments', '')}`"]
    if message.get("tool_calls"):
        lines.append("")
    return lines


def render_markdown(document: dict[str, Any]) -> str:
    sessions = document["sessions"]
    first = sessions[0] if sessions else {}
    heading = first.get("title") or document["session_id"]
    lines = [f"# {heading}", ""]
    if document["lineage"]:
        lines += [f"Lineage of {document['session_id']}: {len(sessions)} session(s), root to tip.", ""]
    previous_id = None
    for session in sessions:
        title = session.get("title") or "untitled"
        lines.append(f"## Session {session['id']} — {title}")
        lines.append("")
        if session["edge"] == EDGE_COMPRESSION:
            lines += [f"*Continued after compression of {session['parent_session_id'] or previous_id}.*", ""]
        elif session["edge"] == EDGE_BRANCH:
            inherited = session["inherited_messages"]
            lines += [
                f"---\n**Branch point:** branched from {session['parent_session_id']}"
                + (f" ({inherited} inherited messages not repeated)." if inherited else "."),
                "",
            ]
        meta = (
            f"source {session['source']} · model {session.get('model') or '-'} · "
            f"started {_when(session['started_at'])} · ended {_when(session['ended_at'])}"
            f" ({session.get('end_reason') or 'open'})"
        )
        lines += [meta, ""]
        was_compacted = False
        for message in session["messages"]:
            now_compacted = bool(message.get("compacted"))
            if now_compacted and not was_compacted:
                lines += [
                    "> *Compacted in place: the messages below were summarised away from the live"
                    " context and kept in the record.*",
                    "",
                ]
            elif was_compacted and not now_compacted:
                lines += ["> *End of the compacted messages; the live conversation continues here.*", ""]
            was_compacted = now_compacted
            lines += _md_message(message)
        previous_id = session["id"]
    return "\n".join(lines).rstrip() + "\n"
