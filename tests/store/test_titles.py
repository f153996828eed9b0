"""Titles: sanitising, uniqueness, lineage numbering, lookup (reference §2.7, §11 case 24)."""

from __future__ import annotations

import pytest

from hermes_tui.store.db import SessionDB
from hermes_tui.store.titles import sanitize_title
from tests.store.conftest import make_session


def test_sanitize_strips_invisible_and_control_characters() -> None:
    assert sanitize_title("  my\u200b pro\u202eject\ufeff \x07 \n title ") == "my project title"
    assert sanitize_title("a\u2066b\u2069c\ufffcd") == "abcd"
    assert sanitize_title("   \u200b ") is None
    assert sanitize_title(None) is None
    assert sanitize_title("x" * 100) == "x" * 100
    with pytest.raises(ValueError, match="too long"):
        sanitize_title("x" * 101)


async def test_titles_are_unique_but_empty_titles_never_conflict(db: SessionDB) -> None:
    for sid in ("a", "b", "c"):
        await make_session(db, sid)
    assert await db.set_session_title("a", "shared name") is True
    with pytest.raises(ValueError, match=r"Title 'shared name' is already in use by session a"):
        await db.set_session_title("b", "shared\u200b name")
    assert await db.set_session_title("b", "") is True
    assert await db.set_session_title("c", None) is True
    assert await db.get_session_title("b") is None and await db.get_session_title("c") is None
    assert await db.set_session_title("a", "shared name") is True  # same session may keep it
    assert await db.set_session_title("missing", "whatever") is False
    with pytest.raises(ValueError, match="already in use"):
        await db.create_session("d", "cli", title="shared name")
    assert await db.get_session("d") is None


async def test_next_title_in_lineage_numbers_variants(db: SessionDB) -> None:
    assert await db.get_next_title_in_lineage("my project") == "my project"
    await make_session(db, "s1", title="my project")
    assert await db.get_next_title_in_lineage("my project") == "my project #2"
    await make_session(db, "s2", title="my project #2")
    await make_session(db, "s3", title="my project #3")
    assert await db.get_next_title_in_lineage("my project") == "my project #4"
    assert await db.get_next_title_in_lineage("my project #2") == "my project #4"


async def test_next_title_from_a_numbered_title_alone(db: SessionDB) -> None:
    await make_session(db, "s2", title="proj #2")
    assert await db.get_next_title_in_lineage("proj #2") == "proj #3"


async def test_like_wildcards_in_titles_are_literal(db: SessionDB) -> None:
    await make_session(db, "x", title="testXproject #2")
    assert await db.get_next_title_in_lineage("test_project") == "test_project"
    assert await db.resolve_session_by_title("test_project") is None
    await make_session(db, "p", title="100% done")
    await make_session(db, "q", title="100X done #2")
    assert await db.resolve_session_by_title("100% done") == "p"


async def test_resolve_by_title_returns_latest_numbered_variant(db: SessionDB) -> None:
    await make_session(db, "s1", title="my project")
    assert await db.resolve_session_by_title("my project") == "s1"
    await make_session(db, "s2", title="my project #2")
    await make_session(db, "s3", title="my project #3")
    assert await db.resolve_session_by_title("my project") == "s3"
    assert await db.resolve_session_by_title("my project #2") == "s2"
    assert await db.resolve_session_by_title("nothing like it") is None
