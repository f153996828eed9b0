"""Titles as today's Hermes treats them: a compression continuation may take back its base title from
its own ancestor (`/title refactor auth` on "refactor auth #2"), and lineage numbering matches the
numbered variants with ASCII letters case-insensitively."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.core.commands import run_command
from hermes_tui.store.db import SessionDB
from tests.core.helpers import make_agent
from tests.hermes_v21 import CHAIN_ROOT, CHAIN_TIP, v21_copy


async def _chain(db: SessionDB) -> None:
    """root "refactor auth" -> (compression) "refactor auth #2"; a branch "side" of the root."""
    await db.create_session("root", "cli", title="refactor auth")
    await db.end_session("root", "compression")
    await db.create_session("tip", "cli", parent_session_id="root", title="refactor auth #2")


async def test_the_tip_of_a_chain_takes_back_its_base_title(db: SessionDB) -> None:
    await _chain(db)
    assert await db.set_session_title("tip", "refactor auth") is True
    assert await db.get_session_title("tip") == "refactor auth"
    assert await db.get_session_title("root") is None  # moved, still unique
    assert await db.resolve_session("refactor auth") == "tip"


async def test_a_title_held_outside_the_chain_still_conflicts(db: SessionDB) -> None:
    await _chain(db)
    await db.create_session("other", "cli", title="deploy")
    await db.create_session("side", "cli", parent_session_id="root", title="side")  # not a continuation
    with pytest.raises(ValueError, match="already in use by session other"):
        await db.set_session_title("tip", "deploy")
    with pytest.raises(ValueError, match="already in use by session tip"):
        await db.set_session_title("root", "refactor auth #2")  # a parent never takes its child's title
    await db.set_session_title("tip", "refactor auth")
    with pytest.raises(ValueError, match="already in use by session tip"):
        await db.set_session_title("side", "refactor auth")


async def test_numbering_and_lookup_match_variants_case_insensitively(db: SessionDB) -> None:
    await db.create_session("a", "cli", title="Refactor Auth")
    await db.create_session("b", "cli", title="Refactor Auth #2")
    assert await db.get_next_title_in_lineage("refactor auth") == "refactor auth #3"
    assert await db.get_next_title_in_lineage("REFACTOR AUTH #2") == "REFACTOR AUTH #3"
    assert await db.resolve_session_by_title("refactor auth") == "b"
    await db.create_session("c", "cli", title="Ünïcode")
    await db.create_session("d", "cli", title="ünïcode #2")  # only ASCII letters fold, as in SQLite
    assert await db.get_next_title_in_lineage("Ünïcode") == "Ünïcode #2"


async def test_title_on_hermes_continuation_moves_the_title(tmp_path: Path) -> None:
    db = await SessionDB.open(v21_copy(tmp_path))
    agent, db, _log = await make_agent(tmp_path, db=db)
    try:
        assert not (await run_command(agent, f"/resume {CHAIN_TIP}")).error
        outcome = await run_command(agent, "/title pick a database")
        assert not outcome.error, outcome.output
        assert await db.get_session_title(CHAIN_TIP) == "pick a database"
        assert await db.get_session_title(CHAIN_ROOT) is None
    finally:
        await agent.close()
        await db.close()
