"""The session_search tool: browse, discover and scroll (reference §2.6, §11 case 27)."""

from __future__ import annotations

from datetime import datetime

import pytest

from hermes_tui.core.tools.session_search import SESSION_SEARCH_SCHEMA, session_search
from hermes_tui.store.db import SessionDB
from tests.store.conftest import make_session


async def _world(db: SessionDB) -> dict[str, list[int]]:
    """current (-> current-child via compression), three other sessions, a tool-source session."""
    ids: dict[str, list[int]] = {}
    await make_session(db, "current", title="current work")
    ids["current"] = await db.append_messages(
        "current", [{"role": "user", "content": "pelican talk in the current session"}]
    )
    await db.end_session("current", "compression")
    await make_session(db, "current-child", parent_session_id="current")
    ids["current-child"] = await db.append_messages("current-child", [{"role": "user", "content": "pelican again"}])
    for name in ("older", "middle", "newest"):
        await make_session(db, name, title=f"{name} title", model="m1")
        turns = []
        for i in range(20):
            role = "user" if i % 2 == 0 else "assistant"
            text = f"{name} turn {i}" + (" about the pelican migration" if i == 10 else "")
            turns.append({"role": role, "content": text})
        turns.insert(11, {"role": "tool", "content": "pelican tool output", "tool_call_id": "c", "tool_name": "t"})
        ids[name] = await db.append_messages(name, turns)
    await make_session(db, "toolrun", source="tool")
    ids["toolrun"] = await db.append_messages("toolrun", [{"role": "user", "content": "pelican from a tool"}])
    return ids


def test_schema_is_an_openai_function_tool() -> None:
    function = SESSION_SEARCH_SCHEMA["function"]
    assert SESSION_SEARCH_SCHEMA["type"] == "function" and function["name"] == "session_search"
    assert set(function["parameters"]["properties"]) == {
        "query",
        "limit",
        "role_filter",
        "session_id",
        "around_message_id",
        "window",
    }


async def test_browse_lists_recent_sessions_without_the_current_lineage(db: SessionDB) -> None:
    await _world(db)
    result = await session_search(db, "current-child", {})
    assert result["mode"] == "browse"
    ids = [s["session_id"] for s in result["sessions"]]
    assert ids == ["newest", "middle", "older"]
    first = result["sessions"][0]
    assert first["title"] == "newest title" and first["message_count"] == 21
    assert first["preview"] == "newest turn 0"
    datetime.strptime(first["last_active"], "%B %d, %Y at %I:%M %p")
    limited = await session_search(db, "current", {"limit": 1})
    assert len(limited["sessions"]) == 1


async def test_discover_finds_other_lineages_with_anchored_windows(db: SessionDB) -> None:
    ids = await _world(db)
    result = await session_search(db, "current-child", {"query": "pelican"})
    assert result["mode"] == "discover"
    sessions = [r["session_id"] for r in result["results"]]
    assert len(sessions) == 3 and set(sessions) <= {"older", "middle", "newest"}
    entry = result["results"][0]
    anchor_id = entry["match_message_id"]
    assert anchor_id == ids[entry["session_id"]][10]
    assert entry["matched_role"] == "user" and "pelican" in entry["snippet"]
    anchors = [m for m in entry["messages"] if m.get("anchor")]
    assert [m["id"] for m in anchors] == [anchor_id]
    assert {m["role"] for m in entry["messages"]} <= {"user", "assistant"}  # the tool row is filtered
    assert [m["content"] for m in entry["bookend_start"]] == [f"{entry['session_id']} turn {i}" for i in range(3)]
    assert [m["content"] for m in entry["bookend_end"]] == [f"{entry['session_id']} turn {i}" for i in (17, 18, 19)]
    assert entry["messages"][0]["content"] == f"{entry['session_id']} turn 5"
    assert entry["messages_before"] == 5 and entry["messages_after"] == 5
    assert entry["title"] == f"{entry['session_id']} title" and entry["model"] == "m1"
    datetime.strptime(entry["when"], "%B %d, %Y at %I:%M %p")
    assert "parent_session_id" not in entry


async def test_discover_default_roles_exclude_tool_rows_and_limit_clamps(db: SessionDB) -> None:
    await _world(db)
    tool_only = await session_search(db, "current", {"query": '"pelican tool output"'})
    assert tool_only["results"] == []
    with_tools = await session_search(db, "current", {"query": '"pelican tool output"', "role_filter": "tool"})
    assert {r["matched_role"] for r in with_tools["results"]} == {"tool"}
    assert len((await session_search(db, None, {"query": "pelican", "limit": 0}))["results"]) == 1
    many = await session_search(db, None, {"query": "turn", "limit": 99})
    assert len(many["results"]) == 3  # clamped to 10, only three lineages match


async def test_discover_maps_continuations_to_their_lineage_root(db: SessionDB) -> None:
    await _world(db)
    result = await session_search(db, "older", {"query": "pelican again"})
    [entry] = result["results"]
    assert entry["session_id"] == "current-child" and entry["parent_session_id"] == "current"


async def test_scroll_beats_query_and_clamps_its_window(db: SessionDB) -> None:
    ids = await _world(db)
    anchor = ids["middle"][10]
    result = await session_search(
        db, "current", {"session_id": "middle", "around_message_id": anchor, "window": 500, "query": "pelican"}
    )
    assert result["mode"] == "scroll" and result["window"] == 20
    assert [m["id"] for m in result["messages"]] == ids["middle"]
    assert result["messages_before"] == 0 and result["messages_after"] == 0
    small = await session_search(db, "current", {"session_id": "middle", "around_message_id": anchor, "window": 0})
    assert [m["id"] for m in small["messages"]] == [ids["middle"][9], anchor, ids["middle"][11]]
    assert small["messages_before"] == 9 and small["messages_after"] == 9
    assert [m["id"] for m in small["messages"] if m.get("anchor")] == [anchor]


async def test_scroll_into_the_current_lineage_is_rejected(db: SessionDB) -> None:
    ids = await _world(db)
    result = await session_search(
        db, "current-child", {"session_id": "current", "around_message_id": ids["current"][0]}
    )
    assert "current conversation" in result["error"]


async def test_scroll_rebinds_to_a_descendant_with_a_warning(db: SessionDB) -> None:
    ids = await _world(db)
    result = await session_search(db, "older", {"session_id": "current", "around_message_id": ids["current-child"][0]})
    assert result["session_id"] == "current-child" and "warning" in result
    elsewhere = await session_search(db, "older", {"session_id": "middle", "around_message_id": ids["newest"][0]})
    assert "is not in session middle" in elsewhere["error"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ({"limit": "lots"}, "'limit' must be an integer"),
        ({"around_message_id": 1}, "'session_id' is required"),
        ({"session_id": "middle", "around_message_id": "x"}, "'around_message_id' must be an integer"),
        ({"session_id": "middle"}, "give both"),
        ({"query": 42}, "'query' must be a string"),
        ({"session_id": "nope", "around_message_id": 1}, "session nope not found"),
        ({"session_id": "middle", "around_message_id": 99999}, "message 99999 not found"),
        ({"query": "x", "role_filter": 5}, "role_filter"),
    ],
)
async def test_bad_arguments_give_error_results(db: SessionDB, args: dict, fragment: str) -> None:
    await _world(db)
    result = await session_search(db, "current", args)
    assert fragment in result["error"]


async def test_non_dict_arguments_and_closed_database_never_raise(db: SessionDB) -> None:
    assert "JSON object" in (await session_search(db, None, ["not", "a", "dict"]))["error"]  # type: ignore[arg-type]
    await db.close()
    assert "closed" in (await session_search(db, None, {"query": "x"}))["error"]
