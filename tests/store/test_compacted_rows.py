"""In-place compaction in the store (schema v21): the replaced rows stay, marked `compacted = 1`.

Hermes compacts in place since 2026-06: one session id for life, every live row archived as
`active = 0, compacted = 1`, the compacted list inserted as the new live rows. Its search finds the
archived rows (not the rewound ones: `active = 0, compacted = 0`); so must ours, the session_search
tool, the export and the tree. The fixture home was written by Hermes's own SessionDB.
"""

from __future__ import annotations

import json
from pathlib import Path

from hermes_tui.core.tools.session_search import session_search
from hermes_tui.store.db import SessionDB
from hermes_tui.store.export import build_export, render_markdown
from tests.store.conftest import make_session, raw_execute

IN_PLACE = "20261128_101500_a1b2c3"  # "refactor auth": 12 rows compacted in place, 3 live
ROTATED_TIP = "20261129_093000_0a1b2c"


async def test_search_finds_what_hermes_compacted_in_place(hermes_home_v21: Path) -> None:
    db = await SessionDB.open(hermes_home_v21 / "state.db", read_only=True)
    try:
        hits = await db.search_messages("walrus", limit=50)
        # the 12 replaced rows (they mention the word) and the summary that names it
        assert len(hits) == 13 and {hit["session_id"] for hit in hits} == {IN_PLACE}
        grouped = await db.search_lineages("walrus")
        assert [lineage.hit_count for lineage in grouped.lineages] == [13]
    finally:
        await db.close()


async def test_rewound_rows_stay_hidden_while_compacted_ones_are_found(hermes_home_v21: Path) -> None:
    db = await SessionDB.open(hermes_home_v21 / "state.db")
    try:
        ids = await db.append_messages(
            IN_PLACE,
            [{"role": "user", "content": "what about the walrus cache?"}, {"role": "assistant", "content": "Later."}],
        )
        assert len(await db.search_messages("walrus", limit=50)) == 14
        assert await db.rewind_to_message(IN_PLACE, ids[0]) is not None  # /undo takes it back
        hits = await db.search_messages("walrus", limit=50)
        assert len(hits) == 13 and ids[0] not in {hit["id"] for hit in hits}
        assert len(await db.search_messages("walrus", limit=50, include_inactive=True)) == 14
        # restoring rewound rows never brings the compacted ones back into the live history
        assert await db.restore_rewound(IN_PLACE) == 2
        assert [m["content"] for m in await db.get_messages_as_conversation(IN_PLACE)][-2:] == [
            "what about the walrus cache?",
            "Later.",
        ]
        assert len(await db.get_messages_as_conversation(IN_PLACE)) == 5
    finally:
        await db.close()


async def test_archive_and_compact_writes_rows_as_hermes_does(db: SessionDB, db_path: Path) -> None:
    await make_session(db, "s1")
    old = await db.append_messages(
        "s1",
        [
            {"role": "user", "content": "first question about otters"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function"}]},
            {"role": "tool", "content": "otter facts", "tool_call_id": "c1"},
            {"role": "assistant", "content": "Otters hold hands."},
        ],
    )
    new = await db.archive_and_compact(
        "s1", [{"role": "user", "content": "[CONTEXT COMPACTION] otters"}, {"role": "user", "content": "go on"}]
    )
    assert min(new) > max(old)
    stored = raw_execute(db_path, "SELECT id, active, compacted FROM messages WHERE session_id = 's1' ORDER BY id")
    assert stored == [(i, 0, 1) for i in old] + [(i, 1, 0) for i in new]
    # counters follow the live rows, as Hermes's archive_and_compact sets them
    assert raw_execute(db_path, "SELECT message_count, tool_call_count FROM sessions WHERE id = 's1'") == [(2, 0)]
    assert [m["content"] for m in await db.get_messages_as_conversation("s1")] == [
        "[CONTEXT COMPACTION] otters",
        "go on",
    ]
    assert await db.count_compacted("s1") == 4
    # a later rewrite of the live history keeps the record of what was compacted
    await db.replace_messages("s1", [{"role": "user", "content": "rewritten"}])
    assert await db.count_compacted("s1") == 4
    assert [hit["id"] for hit in await db.search_messages("otter")][:1]


async def test_session_search_shows_compacted_turns_of_another_session(hermes_home_v21: Path) -> None:
    db = await SessionDB.open(hermes_home_v21 / "state.db", read_only=True)
    try:
        result = await session_search(db, ROTATED_TIP, {"query": "walrus", "limit": 3})
        assert result["count"] == 1
        found = result["results"][0]
        assert found["session_id"] == IN_PLACE and found["title"] == "refactor auth"
        window = found["messages"]
        anchor = next(m for m in window if m.get("anchor"))
        assert "walrus" in anchor["content"] and anchor.get("compacted") is True
        scrolled = await session_search(
            db, ROTATED_TIP, {"session_id": IN_PLACE, "around_message_id": anchor["id"], "window": 2}
        )
        assert "error" not in scrolled and any(m.get("anchor") for m in scrolled["messages"])
    finally:
        await db.close()


async def test_export_keeps_the_compacted_rows_marked(hermes_home_v21: Path) -> None:
    db = await SessionDB.open(hermes_home_v21 / "state.db", read_only=True)
    try:
        document = await build_export(db, IN_PLACE)
    finally:
        await db.close()
    session = document["sessions"][0]
    assert session["compacted_messages"] == 12 and len(session["messages"]) == 15
    assert [bool(m.get("compacted")) for m in session["messages"]] == [True] * 12 + [False] * 3
    assert session["messages"][12]["kind"] == "compression_summary"
    markdown = render_markdown(document)
    assert "Compacted in place" in markdown and markdown.count("· compacted") == 12
    assert json.dumps(document)  # JSON-able as the export writes it


async def test_the_tree_counts_in_place_compactions(hermes_home_v21: Path) -> None:
    db = await SessionDB.open(hermes_home_v21 / "state.db")
    try:
        nodes = {node.id: node for node in await db.lineage_tree()}
        assert nodes[IN_PLACE].compactions == 1
        assert nodes[ROTATED_TIP].compactions == 0  # a rotation child starts with a summary; not in place
        await db.append_messages(IN_PLACE, [{"role": "user", "content": "more work"}])
        await db.archive_and_compact(
            IN_PLACE, [{"role": "user", "content": "[CONTEXT COMPACTION — REFERENCE ONLY] again"}]
        )
        assert (await db.lineage_node(IN_PLACE)).compactions == 2
        assert await db.compaction_count(IN_PLACE) == 2
    finally:
        await db.close()
