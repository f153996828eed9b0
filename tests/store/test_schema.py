"""Schema v14 exactly as Hermes writes it; upgrades of older files; unusable files; journal mode."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from hermes_tui.store import schema
from hermes_tui.store.connection import apply_wal_with_fallback
from hermes_tui.store.db import SessionDB
from hermes_tui.store.errors import StoreError
from tests.store.conftest import make_session, raw_execute

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "hermes_state_v14.db"


def _schema_sql(path: Path) -> dict[tuple[str, str], str]:
    return {(t, n): sql for t, n, sql in raw_execute(path, "SELECT type, name, sql FROM sqlite_master")}


def _columns(path: Path) -> dict[str, list[tuple]]:
    tables = [name for (name,) in raw_execute(path, "SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {table: raw_execute(path, f"PRAGMA table_xinfo('{table}')") for table in tables}


def _ours(path: Path) -> dict[tuple[str, str], str]:
    """Schema entries of hermes-tui's own (its documented extra indexes)."""
    return {key: sql for key, sql in _schema_sql(path).items() if key[1] in schema.OUR_INDEXES}


async def test_new_file_has_exactly_the_schema_hermes_writes_plus_our_documented_index(db_path: Path) -> None:
    store = await SessionDB.open(db_path)
    await store.close()
    ours = _schema_sql(db_path)
    hermes = _schema_sql(FIXTURE)
    # Every table, column, trigger and index Hermes declares, with the same DDL; nothing else but
    # the documented extra index(es), which are plain indexes on a Hermes table.
    extra = {key: sql for key, sql in ours.items() if key not in hermes}
    assert {key: sql for key, sql in ours.items() if key in hermes} == hermes
    assert set(extra) == {("index", name) for name in schema.OUR_INDEXES}
    assert set(schema.OUR_INDEXES) == {schema.LINEAGE_INDEX, schema.ROLE_INDEX}
    assert all(name.startswith("idx_hermes_tui_") for _, name in extra)
    assert raw_execute(db_path, f"SELECT tbl_name FROM sqlite_master WHERE name = '{schema.LINEAGE_INDEX}'") == [
        ("sessions",)
    ]
    assert raw_execute(db_path, f"SELECT tbl_name FROM sqlite_master WHERE name = '{schema.ROLE_INDEX}'") == [
        ("messages",)
    ]
    assert _columns(db_path) == _columns(FIXTURE)
    assert raw_execute(db_path, "SELECT version FROM schema_version") == [(14,)]
    trigger_names = {name for kind, name in ours if kind == "trigger"}
    assert len(trigger_names) == 6


async def test_a_hermes_file_gains_only_our_index_and_gets_it_back_when_dropped(hermes_fixture_db: Path) -> None:
    before = _schema_sql(hermes_fixture_db)
    assert _ours(hermes_fixture_db) == {}
    store = await SessionDB.open(hermes_fixture_db)
    await store.close()
    after = _schema_sql(hermes_fixture_db)
    assert {key: sql for key, sql in after.items() if key not in _ours(hermes_fixture_db)} == before
    assert set(_ours(hermes_fixture_db)) == {("index", schema.LINEAGE_INDEX), ("index", schema.ROLE_INDEX)}
    raw_execute(hermes_fixture_db, f"DROP INDEX {schema.LINEAGE_INDEX}")  # e.g. a tool rebuilt the table
    raw_execute(hermes_fixture_db, f"DROP INDEX {schema.ROLE_INDEX}")
    store = await SessionDB.open(hermes_fixture_db)
    try:
        assert len(await store.list_sessions_rich()) == 4
    finally:
        await store.close()
    assert _schema_sql(hermes_fixture_db) == after
    assert raw_execute(hermes_fixture_db, "PRAGMA integrity_check") == [("ok",)]


async def test_opening_twice_changes_nothing(db_path: Path) -> None:
    for _ in range(2):
        store = await SessionDB.open(db_path)
        await store.close()
    assert raw_execute(db_path, "SELECT COUNT(*) FROM schema_version") == [(1,)]


async def test_new_file_uses_wal_and_foreign_keys(db: SessionDB, db_path: Path) -> None:
    assert db.journal_mode == "wal"
    assert raw_execute(db_path, "PRAGMA journal_mode") == [("wal",)]
    with pytest.raises(ValueError, match="does not exist"):
        await db.create_session("child", "cli", parent_session_id="no-such-parent")


def _old_database(path: Path, version: int) -> None:
    """A pre-v10 style file: fewer columns, a content-only FTS index, no trigram, NULL active."""
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE schema_version (version INTEGER NOT NULL);
        CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT,
            parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT,
            message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0, title TEXT);
        CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
            role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
            timestamp REAL NOT NULL, active INTEGER);
        CREATE VIRTUAL TABLE messages_fts USING fts5(content);
        CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
            INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
        END;
        """
    )
    conn.execute("INSERT INTO schema_version VALUES (?)", (version,))
    conn.execute("INSERT INTO sessions (id, source, started_at, title) VALUES ('old1', 'cli', 1.0, 'legacy')")
    conn.execute(
        "INSERT INTO messages (session_id, role, content, tool_name, tool_calls, timestamp, active)"
        " VALUES ('old1', 'assistant', 'calling the deployer', 'deploy_service', ?, 2.0, NULL)",
        ('[{"id": "c1"}]',),
    )
    conn.execute(
        "INSERT INTO messages (session_id, role, content, timestamp, active) VALUES ('old1', 'user', ?, 3.0, NULL)",
        ("东京的天气怎么样",),
    )
    conn.commit()
    conn.close()


async def test_old_file_is_reconciled_and_migrated(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    _old_database(db_path, version=9)
    store = await SessionDB.open(db_path)
    try:
        session = await store.get_session("old1")
        assert session is not None and session["rewind_count"] == 0 and session["archived"] == 0
        # v12: NULL active became 1, so the rows are visible.
        assert [m["content"] for m in await store.get_messages("old1")] == [
            "calling the deployer",
            "东京的天气怎么样",
        ]
        # v11: tool_name is now indexed; v10: the trigram index was backfilled.
        assert [h["id"] for h in await store.search_messages("deploy_service")] == [1]
        assert [h["id"] for h in await store.search_messages("东京的天气")] == [2]
        # New writes reach both indexes through the recreated triggers.
        await store.append_message("old1", "user", "fresh kubernetes rollout")
        assert len(await store.search_messages("kubernetes")) == 1
    finally:
        await store.close()
    assert raw_execute(db_path, "SELECT version FROM schema_version") == [(14,)]
    assert raw_execute(db_path, "PRAGMA integrity_check") == [("ok",)]
    columns = {row[1] for row in raw_execute(db_path, "PRAGMA table_info(sessions)")}
    assert {"handoff_error", "rewind_count", "archived", "api_call_count", "cwd"} <= columns


async def test_missing_fts_triggers_are_recreated_and_index_rebuilt(db_path: Path) -> None:
    store = await SessionDB.open(db_path)
    await make_session(store, "s1")
    await store.close()
    raw_execute(db_path, "DROP TRIGGER messages_fts_insert")
    raw_execute(db_path, "DROP TRIGGER messages_fts_trigram_insert")
    raw_execute(
        db_path,
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'zebra', 1)",
    )
    store = await SessionDB.open(db_path)
    try:
        assert len(await store.search_messages("zebra")) == 1
        await store.append_message("s1", "user", "another zebra")
        assert len(await store.search_messages("zebra")) == 2
    finally:
        await store.close()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"this is a plain text file, not a database at all\n" * 20, "not a SQLite database"),
        (b"SQLite format 3\x00" + b"\xff" * 4000, "not a usable SQLite database"),
    ],
)
async def test_unusable_files_raise_one_line_store_error(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "state.db"
    path.write_bytes(content)
    with pytest.raises(StoreError) as info:
        await SessionDB.open(path)
    message = str(info.value)
    assert str(path) in message and expected in message and "\n" not in message
    assert path.read_bytes() == content  # nothing was written to the user's file


async def test_directory_instead_of_file_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        await SessionDB.open(tmp_path)


async def test_closed_database_refuses_calls_clearly(db_path: Path) -> None:
    store = await SessionDB.open(db_path)
    await store.close()
    await store.close()
    with pytest.raises(StoreError, match="closed"):
        await store.get_session("x")


def test_wal_refused_by_the_filesystem_falls_back_to_delete(tmp_path: Path, caplog) -> None:
    conn = sqlite3.connect(tmp_path / "nfs.db", isolation_level=None)

    def deny_wal(action: int, arg1, arg2, _db, _trigger) -> int:
        if action == sqlite3.SQLITE_PRAGMA and arg1 == "journal_mode" and (arg2 or "").lower() == "wal":
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    conn.set_authorizer(deny_wal)
    with caplog.at_level(logging.WARNING):
        mode = apply_wal_with_fallback(conn, "nfs-test")
        assert apply_wal_with_fallback(conn, "nfs-test") == "delete"
    conn.close()
    assert mode == "delete"
    assert sum("WAL journal unavailable" in r.message for r in caplog.records) == 1


async def test_without_fts5_writes_still_work_and_search_returns_nothing(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # This SQLite has FTS5, so a build without it is imitated at the one place that asks.
    store = await SessionDB.open(db_path)
    await make_session(store, "s1")
    await store.close()
    monkeypatch.setattr(schema, "_probe_fts5", lambda conn, tokenizer=None: False)
    store = await SessionDB.open(db_path)
    try:
        assert store.fts_available is False
        triggers = raw_execute(db_path, "SELECT name FROM sqlite_master WHERE type = 'trigger'")
        assert triggers == []
        await store.append_message("s1", "user", "written without full-text indexes")
        assert len(await store.get_messages("s1")) == 1
        assert await store.search_messages("written") == []
    finally:
        await store.close()
    monkeypatch.undo()
    store = await SessionDB.open(db_path)  # FTS5 is back: triggers recreated, index rebuilt
    try:
        assert [h["session_id"] for h in await store.search_messages("written")] == ["s1"]
    finally:
        await store.close()
