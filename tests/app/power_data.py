"""A home with sessions worth searching, comparing and inspecting, written through SessionDB.

`build_power_home(root)` writes (fixed ids, fixed timestamps, so snapshots draw the same):
- DEEP: 3,000 messages; message DEEP_HIT_INDEX (far back) mentions "platypus";
- OTHER: a short session whose assistant mentions "platypus" and "narwhal";
- HOSTILE: a title and a message carrying markup and terminal escapes;
- CJK: a session in Chinese;
- PARENT -> CHILD: a compression (its record in state_meta), PARENT's middle mentions "capybara";
- ROOT -> BRANCH: a branch that continues differently.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from hermes_tui.config import Home
from hermes_tui.core.context.markers import SUMMARY_PREFIX
from hermes_tui.store.db import SessionDB

BASE = 1_795_700_000.0  # a fixed moment shortly before the TUI tests' fixed clock
DEEP = "20261126_100000_d00001"
OTHER = "20261126_110000_d00002"
HOSTILE = "20261126_120000_d00003"
CJK = "20261126_130000_d00004"
PARENT = "20261126_140000_d00005"
CHILD = "20261126_141000_d00006"
ROOT = "20261126_150000_d00007"
BRANCH = "20261126_151000_d00008"
DEEP_COUNT = 3000
DEEP_HIT_INDEX = 150
HOSTILE_TITLE = "[b]bold[/b] \x1b[31mred"
SUMMARY_BODY = "## Active Task\nUser asked about animals.\n## Goal\nList the capybara facts."


def _user(text: str) -> dict:
    return {"role": "user", "content": text}


def _assistant(text: str) -> dict:
    return {"role": "assistant", "content": text}


async def build_power_home(root: Path) -> Home:
    home = Home(root).ensure()
    db = await SessionDB.open(home.state_db)
    try:
        await db.create_session(OTHER, "cli", title="animal facts")
        await db.append_messages(OTHER, [_user("any animal facts?"), _assistant("The platypus and the narwhal.")])

        await db.create_session(HOSTILE, "cli", title=HOSTILE_TITLE)
        await db.append_messages(HOSTILE, [_user("hostile platypus \x1b]0;pwned\x07 [link=x]click[/link]")])

        await db.create_session(CJK, "cli", title="数据库")
        await db.append_messages(CJK, [_user("数据库索引的设计需要考虑查询模式"), _assistant("好的")])

        head = [_user("tell me about animals"), _assistant("Which ones?"), _user("rodents")]
        middle = [_assistant("The capybara is the largest rodent."), _user("more"), _assistant("They swim well.")]
        tail = [_user("and beavers?"), _assistant("Beavers build dams.")]
        await db.create_session(PARENT, "cli", title="rodents")
        await db.append_messages(PARENT, [*head, *middle, *tail])
        await db.end_session(PARENT, "compression")
        summary = _assistant(f"{SUMMARY_PREFIX}\n{SUMMARY_BODY}")  # after a user message: an assistant turn
        await db.create_session(CHILD, "cli", parent_session_id=PARENT, title="rodents #2")
        await db.append_messages(CHILD, [*head, summary, *tail])
        record = {
            "parent_session_id": PARENT,
            "reason": "manual",
            "messages_before": 8,
            "messages_after": 7,
            "tokens_before": 4_200,
            "tokens_after": 1_300,
            "dropped_count": 3,
            "focus_topic": "capybaras",
            "fallback_used": False,
            "summary_error": None,
            "at": BASE + 5_000,
        }
        await db.set_meta(f"compression:{CHILD}", json.dumps(record))

        shared = [_user("pick a database"), _assistant("Postgres or SQLite?")]
        await db.create_session(ROOT, "cli", title="pick a database")
        await db.append_messages(ROOT, [*shared, _user("postgres please"), _assistant("Postgres it is.")])
        await db.end_session(ROOT, "branched")
        await db.create_session(BRANCH, "cli", parent_session_id=ROOT, title="pick a database (sqlite)")
        await db.append_messages(BRANCH, [*shared, _user("sqlite please"), _assistant("SQLite it is.")])

        await db.create_session(DEEP, "cli", title="a very long session")
        deep = [
            (_user if index % 2 == 0 else _assistant)(
                "where is the platypus?" if index == DEEP_HIT_INDEX else f"filler message number {index}"
            )
            for index in range(DEEP_COUNT)
        ]
        await db.append_messages(DEEP, deep)
    finally:
        await db.close()
    _fix_times(home.state_db)
    return home


def _fix_times(path: Path) -> None:
    """Fixed timestamps (a second apart, in insertion order) for every session and message."""
    con = sqlite3.connect(path)
    try:
        con.execute("UPDATE messages SET timestamp = ? + id", (BASE,))
        con.execute(
            "UPDATE sessions SET started_at = ? - 1"
            " + (SELECT MIN(id) FROM messages m WHERE m.session_id = sessions.id)",
            (BASE,),
        )
        con.execute("UPDATE sessions SET ended_at = started_at + 1 WHERE end_reason IS NOT NULL")
        con.commit()
    finally:
        con.close()
