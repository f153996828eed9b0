"""A home with one long session for the message cursor, written through SessionDB.

LONG (LONG_COUNT messages): a tool-call group first — a user prompt, an assistant message calling
two tools, their two results, an answer — then question/answer pairs ("question N", "answer N").
"""

from __future__ import annotations

import json
from pathlib import Path

from hermes_tui.config import Home
from hermes_tui.store.db import SessionDB

LONG = "20261127_090000_c00001"
PAIRS = 1_200
GROUP = [
    {"role": "user", "content": "read both notes"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.md"}'}},
            {"id": "call_b", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "b.md"}'}},
        ],
    },
    {"role": "tool", "tool_call_id": "call_a", "content": "alpha notes"},
    {"role": "tool", "tool_call_id": "call_b", "content": "beta notes"},
    {"role": "assistant", "content": "Both notes are read."},
]
LONG_COUNT = len(GROUP) + 2 * PAIRS


def long_messages() -> list[dict]:
    pairs = []
    for number in range(PAIRS):
        pairs.append({"role": "user", "content": f"question {number}"})
        pairs.append({"role": "assistant", "content": f"answer {number}"})
    return [*GROUP, *pairs]


async def build_cursor_home(root: Path) -> Home:
    home = Home(root).ensure()
    db = await SessionDB.open(home.state_db)
    try:
        await db.create_session(LONG, "cli", title="a long talk")
        await db.append_messages(LONG, long_messages())
    finally:
        await db.close()
    return home


def stored_rows(home: Home, session_id: str) -> list[tuple]:
    """Every column a message row has, in order (to prove a session's rows did not change)."""
    import sqlite3

    con = sqlite3.connect(home.state_db)
    try:
        return con.execute("select * from messages where session_id = ? order by id", (session_id,)).fetchall()
    finally:
        con.close()


def edge_record(home: Home, session_id: str) -> dict:
    import sqlite3

    con = sqlite3.connect(home.state_db)
    try:
        row = con.execute("select value from state_meta where key = ?", (f"edge:{session_id}",)).fetchone()
    finally:
        con.close()
    return json.loads(row[0]) if row else {}
