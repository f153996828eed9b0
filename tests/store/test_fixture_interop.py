"""Interoperability with a state.db written by Hermes itself (reference §12)."""

from __future__ import annotations

import json
from pathlib import Path

from hermes_tui.store.db import SessionDB
from tests.store.conftest import (
    FIXTURE_BRANCH_CHILD,
    FIXTURE_BRANCHED_PARENT,
    FIXTURE_CJK,
    FIXTURE_MIDDLE,
    FIXTURE_ROOT,
    FIXTURE_TIP,
    raw_execute,
)


async def test_listing_shows_the_chain_tip_and_the_branch_child(hermes_db: SessionDB) -> None:
    rows = await hermes_db.list_sessions_rich()
    by_id = {row["id"]: row for row in rows}
    assert set(by_id) == {FIXTURE_TIP, FIXTURE_BRANCHED_PARENT, FIXTURE_BRANCH_CHILD, FIXTURE_CJK}
    tip = by_id[FIXTURE_TIP]
    assert tip["title"] == "refactor auth #3"
    assert tip["lineage_root_id"] == FIXTURE_ROOT and tip["_lineage_root_id"] == FIXTURE_ROOT
    assert by_id[FIXTURE_BRANCH_CHILD]["lineage_root_id"] == FIXTURE_BRANCHED_PARENT
    assert by_id[FIXTURE_CJK]["preview"] == "请帮我总结广西桂林的旅游路线"


async def test_resolution_and_tree_on_the_hermes_file(hermes_db: SessionDB) -> None:
    assert await hermes_db.resolve_session("refactor auth") == FIXTURE_TIP
    assert await hermes_db.resolve_session(FIXTURE_ROOT) == FIXTURE_TIP
    assert await hermes_db.get_compression_tip(FIXTURE_ROOT) == FIXTURE_TIP
    assert await hermes_db.lineage_chain(FIXTURE_TIP) == [FIXTURE_ROOT, FIXTURE_MIDDLE, FIXTURE_TIP]
    edges = {node.id: node.edge for node in await hermes_db.lineage_tree()}
    assert edges[FIXTURE_MIDDLE] == "compression" and edges[FIXTURE_BRANCH_CHILD] == "branch"
    assert json.loads(await hermes_db.get_meta(f"goal:{FIXTURE_TIP}"))["goal"] == "ship JWT auth"


async def test_cjk_text_and_multimodal_message_read_back(hermes_db: SessionDB) -> None:
    hits = await hermes_db.search_messages("桂林旅游")
    assert [h["session_id"] for h in hits] == [FIXTURE_CJK]
    assert hits[0]["role"] == "assistant"
    conversation = await hermes_db.get_messages_as_conversation(FIXTURE_CJK)
    image_turn = conversation[2]["content"]
    assert image_turn[0] == {"type": "text", "text": "What is in this screenshot?"}
    assert image_turn[1]["type"] == "image_url"
    tool_calls = [m for m in await hermes_db.get_messages_as_conversation(FIXTURE_ROOT) if m.get("tool_calls")]
    assert len(tool_calls) == 6 and tool_calls[0]["tool_calls"][0]["function"]["name"] == "read_file"


async def test_writing_keeps_the_file_hermes_compatible(hermes_db: SessionDB, hermes_fixture_db: Path) -> None:
    await hermes_db.append_message(FIXTURE_TIP, "user", "Add an xylophonic audit log")
    await hermes_db.append_message(FIXTURE_TIP, "assistant", "审计日志已经添加完毕")
    await hermes_db.end_session(FIXTURE_TIP, "tui_shutdown")
    await hermes_db.close()
    # opened for writing, the v14 file was upgraded as Hermes upgrades it
    assert raw_execute(hermes_fixture_db, "SELECT version FROM schema_version") == [(21,)]
    assert raw_execute(hermes_fixture_db, "PRAGMA integrity_check") == [("ok",)]
    assert raw_execute(
        hermes_fixture_db, "SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH 'xylophonic'"
    ) == [(1,)]
    assert raw_execute(
        hermes_fixture_db, "SELECT COUNT(*) FROM messages_fts_trigram WHERE messages_fts_trigram MATCH '审计日志'"
    ) == [(1,)]
    assert raw_execute(hermes_fixture_db, f"SELECT message_count FROM sessions WHERE id = '{FIXTURE_TIP}'") == [(6,)]
    for table in ("messages_fts", "messages_fts_trigram"):
        raw_execute(hermes_fixture_db, f"INSERT INTO {table}({table}) VALUES('integrity-check')")
