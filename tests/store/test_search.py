"""Full-text search (reference §2.6, §11 case 23) and its ordering rule at scale."""

from __future__ import annotations

import json

import pytest

from hermes_tui.store.db import SessionDB
from hermes_tui.store.fts_query import plan_cjk_query, sanitize_fts5_query
from hermes_tui.store.search import RANK_PROBE_LIMIT
from tests.store.conftest import make_session

NASTY_QUERIES = ["C++", '"unterminated', "(problem", "hello AND", "***", "", "   ", "OR", "a:b", "NOT", "^x", "{}"]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("C++", "C"),
        ('"unterminated', "unterminated"),
        ("(problem", "problem"),
        ("hello AND", "hello"),
        ("OR hello", "hello"),
        ("***", ""),
        ("auth**", "auth*"),
        ("chat-send now", '"chat-send" now'),
        ("P2.2", '"P2.2"'),
        ("my_app.config", '"my_app.config"'),
        ('"exact phrase" (x)', '"exact phrase" x'),
        ('"chat-send" x', '"chat-send" x'),
    ],
)
def test_fts5_sanitiser_steps(raw: str, expected: str) -> None:
    assert sanitize_fts5_query(raw) == expected


def test_cjk_plans() -> None:
    long_plan = plan_cjk_query("桂林旅游")
    assert long_plan is not None and long_plan.use_trigram and long_plan.trigram_query == '"桂林旅游"'
    short_or = plan_cjk_query("广西 OR 桂林")
    assert short_or is not None and not short_or.use_trigram
    assert short_or.terms == ("广西", "桂林") and short_or.connectors == ("OR",)
    mixed = plan_cjk_query("桂林旅游 AND 路线")
    assert mixed is not None and not mixed.use_trigram
    assert plan_cjk_query("plain words") is None


async def test_awkward_queries_never_raise(db: SessionDB) -> None:
    await make_session(db, "s1")
    await db.append_message("s1", "user", "hello C problem unterminated")
    for query in NASTY_QUERIES:
        result = await db.search_messages(query)
        assert isinstance(result, list)
    assert [h["id"] for h in await db.search_messages("C++")] == [1]
    assert [h["id"] for h in await db.search_messages("hello AND")] == [1]


async def test_hyphenated_dotted_and_underscored_terms_are_searchable(db: SessionDB) -> None:
    await make_session(db, "s1")
    hyphen = await db.append_message("s1", "user", "the chat-send endpoint fails")
    dotted = await db.append_message("s1", "assistant", "see section P2.2 of my_app.config")
    await db.append_message("s1", "user", "chat and send separately")
    assert [h["id"] for h in await db.search_messages("chat-send")] == [hyphen]
    assert [h["id"] for h in await db.search_messages("P2.2")] == [dotted]
    assert [h["id"] for h in await db.search_messages("my_app.config")] == [dotted]


async def test_hit_shape_snippet_and_same_session_context(db: SessionDB) -> None:
    await make_session(db, "a", model="m-a")
    await make_session(db, "b", source="telegram")
    await db.append_message("a", "user", "before needle")
    await db.append_message("b", "user", "interleaved other session")
    hit_id = await db.append_message("a", "assistant", "needle match here")
    await db.append_message("b", "assistant", "more interleaving")
    await db.append_message("a", "user", "after needle")
    hits = await db.search_messages('"needle match"')
    assert len(hits) == 1
    hit = hits[0]
    assert hit["id"] == hit_id and hit["session_id"] == "a" and hit["lineage_root_id"] == "a"
    assert hit["role"] == "assistant" and hit["source"] == "cli" and hit["model"] == "m-a"
    assert hit["snippet"] == ">>>needle match<<< here"
    assert [(c["position"], c["content"]) for c in hit["context"]] == [
        ("before", "before needle"),
        ("after", "after needle"),
    ]
    assert "content" not in hit
    assert {"timestamp", "tool_name", "session_started"} <= set(hit)


async def test_tool_names_and_tool_arguments_are_searchable_and_updates_reindex(db: SessionDB) -> None:
    await make_session(db, "s1")
    call = [{"id": "c1", "type": "function", "function": {"name": "grep", "arguments": '{"pattern": "frobnicate"}'}}]
    assistant = await db.append_message("s1", "assistant", "", tool_calls=call)
    tool = await db.append_message("s1", "tool", "3 matches", tool_call_id="c1", tool_name="grep_results_tool")
    assert [h["id"] for h in await db.search_messages("frobnicate")] == [assistant]
    assert [h["id"] for h in await db.search_messages("grep_results_tool")] == [tool]
    await db.replace_messages("s1", [{"role": "user", "content": "completely different words"}])
    assert await db.search_messages("frobnicate") == []
    assert len(await db.search_messages("different")) == 1


async def test_filters_by_source_role_and_multimodal_context(db: SessionDB) -> None:
    await make_session(db, "cli1")
    await make_session(db, "tg", source="telegram")
    await db.append_message("cli1", "user", [{"type": "image_url", "image_url": {"url": "x"}}])
    await db.append_message("cli1", "assistant", "kiwi from cli")
    await db.append_message("tg", "user", "kiwi from telegram")
    assert {h["session_id"] for h in await db.search_messages("kiwi", source_filter="telegram")} == {"tg"}
    assert {h["session_id"] for h in await db.search_messages("kiwi", exclude_sources=["telegram"])} == {"cli1"}
    assert {h["role"] for h in await db.search_messages("kiwi", role_filter="user")} == {"user"}
    [cli_hit] = await db.search_messages("kiwi", source_filter=["cli"])
    assert cli_hit["context"][0]["content"] == "[multimodal content]"


async def test_cjk_trigram_and_like_fallback(db: SessionDB) -> None:
    await make_session(db, "zh")
    await make_session(db, "tg", source="telegram")
    route = await db.append_message("zh", "assistant", "桂林旅游路线：第一天漓江游船，第二天阳朔西街。")
    guangxi = await db.append_message("zh", "user", "我想去广西看看")
    other = await db.append_message("tg", "user", "桂林的米粉很好吃")
    assert [h["id"] for h in await db.search_messages("桂林旅游")] == [route]
    either = await db.search_messages("广西 OR 桂林")
    assert {h["id"] for h in either} == {route, guangxi, other}
    assert [h["id"] for h in either] == sorted({route, guangxi, other}, reverse=True)  # newest first
    filtered = await db.search_messages("广西 OR 桂林", source_filter="telegram")
    assert [h["id"] for h in filtered] == [other]
    both = await db.search_messages("桂林 漓江")
    assert [h["id"] for h in both] == [route]
    long_text = "前言" * 60 + "关键词在这里" + "结尾" * 60
    centred = await db.append_message("zh", "user", long_text)
    [hit] = await db.search_messages("关键")
    assert hit["id"] == centred
    assert (
        "关键词在这里" in hit["snippet"]
        and len(hit["snippet"]) <= 120
        and not hit["snippet"].startswith("前言前言" * 30)
    )


async def test_inactive_rows_are_hidden_unless_asked(db: SessionDB) -> None:
    await make_session(db, "s1")
    ids = await db.append_messages("s1", [{"role": "user", "content": "ephemeral walrus"}])
    await db.rewind_to_message("s1", ids[0])
    assert await db.search_messages("walrus") == []
    assert [h["id"] for h in await db.search_messages("walrus", include_inactive=True)] == ids


async def test_small_match_sets_rank_by_bm25_large_ones_come_newest_first(db: SessionDB) -> None:
    await make_session(db, "s1")
    strong = await db.append_message("s1", "user", "marmalade marmalade marmalade marmalade")
    for i in range(5):
        await db.append_message("s1", "user", f"note {i} mentions marmalade once among many other words here")
    ranked = await db.search_messages("marmalade")
    assert ranked[0]["id"] == strong  # oldest but most relevant
    newest = await db.search_messages("marmalade", sort="newest", limit=3)
    assert [h["id"] for h in newest] == [strong + 5, strong + 4, strong + 3]
    oldest = await db.search_messages("marmalade", sort="oldest", limit=2)
    assert [h["id"] for h in oldest] == [strong, strong + 1]

    await db.append_messages(
        "s1", [{"role": "assistant", "content": f"common word row {i}"} for i in range(RANK_PROBE_LIMIT + 5)]
    )
    await db.append_message("s1", "user", "common common common common")
    default = await db.search_messages("common", limit=5)
    ids = [h["id"] for h in default]
    assert ids == sorted(ids, reverse=True) and ids[0] == ids[1] + 1  # newest-first, no BM25 pass
    forced = await db.search_messages("common", sort="rank", limit=1)
    assert "common common" in forced[0]["snippet"].replace(">>>", "").replace("<<<", "")
    page_two = await db.search_messages("common", limit=5, offset=5)
    assert page_two[0]["id"] == ids[-1] - 1
    with pytest.raises(ValueError, match="unknown sort"):
        await db.search_messages("common", sort="bogus")


async def test_lineage_root_on_hits_in_continuations(db: SessionDB) -> None:
    await make_session(db, "root")
    await db.end_session("root", "compression")
    await make_session(db, "child", parent_session_id="root")
    await db.append_message("child", "user", json.dumps({"note": "quasar"}))
    [hit] = await db.search_messages("quasar")
    assert hit["session_id"] == "child" and hit["lineage_root_id"] == "root"


async def test_multimodal_messages_match_short_cjk_queries_and_show_previews(db: SessionDB) -> None:
    await make_session(db, "mm")
    parts = [{"type": "text", "text": "这张图里的猫"}, {"type": "image_url", "image_url": {"url": "data:x"}}]
    image_turn = await db.append_message("mm", "user", parts)
    await db.append_message("mm", "assistant", "是一只橘猫")
    [hit] = await db.search_messages("图里")
    assert hit["id"] == image_turn and hit["snippet"] == "这张图里的猫"
    [row] = await db.list_sessions_rich()
    assert row["preview"] == "这张图里的猫"
    [node] = await db.lineage_tree()
    assert node.preview == "这张图里的猫"


async def test_short_cjk_pages_walk_newest_first_and_honour_oldest(db: SessionDB) -> None:
    """The LIKE path pages by message id (insertion order): page after page, no hit twice."""
    await make_session(db, "zh")
    ids = [await db.append_message("zh", "user", f"第{i}条：数据很重要") for i in range(45)]
    await db.append_message("zh", "assistant", "无关的回答")
    pages = [await db.search_messages("数据", limit=20, offset=offset) for offset in (0, 20, 40)]
    assert [h["id"] for page in pages for h in page] == ids[::-1]
    oldest = await db.search_messages("数据", limit=5, sort="oldest")
    assert [h["id"] for h in oldest] == ids[:5]
    assert await db.search_messages("数据", role_filter="assistant") == []


async def test_a_source_no_session_has_finds_nothing(db: SessionDB) -> None:
    await make_session(db, "cli1")
    await db.append_message("cli1", "user", "kiwi kiwi")
    assert await db.search_messages("kiwi", source_filter="cron") == []
    assert await db.search_messages("kiwi", source_filter=["cron", "cli"]) != []
