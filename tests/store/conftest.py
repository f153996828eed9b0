"""Fixtures for the store tests: real SessionDB files in a temp folder, and the Hermes fixture."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hermes_tui.store.db import SessionDB

# Ids and titles in tests/fixtures/hermes_state_v14.db (written by Hermes itself).
FIXTURE_ROOT = "20261126_201200_0e10db"
FIXTURE_MIDDLE = "20261126_202200_879ffb"
FIXTURE_TIP = "20261126_203200_2c1332"
FIXTURE_BRANCHED_PARENT = "20261126_211200_90f304"
FIXTURE_BRANCH_CHILD = "20261126_211340_ea45ab"
FIXTURE_CJK = "20261126_221200_95d92f"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "home" / "state.db"


@pytest.fixture
async def db(db_path: Path) -> AsyncIterator[SessionDB]:
    store = await SessionDB.open(db_path)
    yield store
    await store.close()


@pytest.fixture
async def hermes_db(hermes_fixture_db: Path) -> AsyncIterator[SessionDB]:
    store = await SessionDB.open(hermes_fixture_db)
    yield store
    await store.close()


def raw_execute(path: Path, sql: str, params: tuple = ()) -> list[tuple]:
    """Run SQL on the file with the stdlib driver (test set-up and independent checks)."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(sql, params).fetchall()
        conn.commit()
        return rows
    finally:
        conn.close()


async def make_session(store: SessionDB, session_id: str, **fields) -> str:
    fields.setdefault("source", "cli")
    source = fields.pop("source")
    return await store.create_session(session_id, source, **fields)


def sqlite_memory_used() -> int:
    """Bytes SQLite holds in this process (`sqlite3_memory_used`, from the library _sqlite3 uses)."""
    import _sqlite3
    import ctypes
    import ctypes.util

    try:
        function = ctypes.CDLL(_sqlite3.__file__).sqlite3_memory_used
    except AttributeError:  # linked dynamically: the shared library's symbol
        function = ctypes.CDLL(ctypes.util.find_library("sqlite3")).sqlite3_memory_used
    function.restype = ctypes.c_int64
    return int(function())
