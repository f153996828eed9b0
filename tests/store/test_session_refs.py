"""Every id we show resolves: exact ids, prefixes, the 6-hex tail the status bar and tree show, titles."""

from __future__ import annotations

import pytest

from hermes_tui.store.db import SessionDB
from hermes_tui.store.errors import AmbiguousSession, SessionNotFound
from hermes_tui.store.session_refs import SHOWN_CANDIDATES
from hermes_tui.widgets.formatting import short_session_id
from tests.store.conftest import make_session

A = "20261201_123139_e87044"
B = "20261201_124500_a1e870"
C = "20261130_090200_c0ffee"


async def _three(db: SessionDB) -> None:
    await make_session(db, A, title="Read README.md")
    await make_session(db, B, title="Other work")
    await make_session(db, C)


async def test_the_tail_the_ui_shows_resolves_like_the_full_id(db: SessionDB) -> None:
    await _three(db)
    for session_id in (A, B, C):
        shown = short_session_id(session_id)
        assert len(shown) == 6
        assert await db.resolve_session(shown, follow_tip=False) == session_id
        assert await db.resolve_session(f"[{shown}]") == session_id  # as copied with its brackets
    assert await db.resolve_session("7044") == A  # a shorter tail, still unique
    assert await db.resolve_session("20261130") == C  # a prefix, as before
    assert await db.resolve_session("Other work") == B  # a title, as before


async def test_an_ambiguous_reference_lists_the_candidates_newest_first(db: SessionDB) -> None:
    await _three(db)
    with pytest.raises(AmbiguousSession) as raised:
        await db.resolve_session("e870")  # A's tail begins with it, B's tail ends with it
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("'e870' matches several sessions: ")
    assert f"{A} · Read README.md · " in message and f"{B} · Other work · " in message
    assert message.index(B) < message.index(A)  # B started later
    assert message.endswith("give more of the id")
    with pytest.raises(AmbiguousSession, match=r"\(untitled\)"):
        await db.resolve_session("2026")  # every id starts so; C has no title


async def test_a_long_candidate_list_is_cut_and_counted(db: SessionDB) -> None:
    for n in range(SHOWN_CANDIDATES + 3):
        await make_session(db, f"20261201_10000{n}_ab{n:04d}")
    with pytest.raises(AmbiguousSession) as raised:
        await db.resolve_session("20261201_1000")
    assert str(raised.value).count(" · ") == 2 * SHOWN_CANDIDATES
    assert "; and 3 more" in str(raised.value)


async def test_unknown_and_short_references(db: SessionDB) -> None:
    await _three(db)
    with pytest.raises(SessionNotFound, match="no session matches 'ffffff'"):
        await db.resolve_session("ffffff")
    with pytest.raises(SessionNotFound):
        await db.resolve_session("044")  # three characters are too few to count as a tail
    with pytest.raises(SessionNotFound):
        await db.resolve_session("e87%")  # wildcards are literal in a tail too
