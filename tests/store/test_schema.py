"""Schema v21 exactly as Hermes writes it; upgrades of v14 and older files; read-only opens; our
indexes built after the open; unusable files; journal mode."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest

from hermes_tui.store import extra_indexes, schema
from hermes_tui.store.connection import apply_wal_with_fallback
from hermes_tui.store.db import SessionDB
from hermes_tui.store.errors import StoreError
from tests.conftest import HERMES_HOME_V21
from tests.core.helpers import wait_until
from tests.store.conftest import FIXTURE_BRANCH_CHILD, FIXTURE_TIP, make_session, raw_execute

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "hermes_state_v14.db"
V21_DB = HERMES_HOME_V21 / "state.db"


def _schema_sql(path: Path) -> dict[tuple[str, str], str]:
    return {(t, n): sql for t, n, sql in raw_execute(path, "SELECT type, name, sql FROM sqlite_master")}


def _columns(path: Path) -> dict[str, list[tuple]]:
    tables = [name for (name,) in raw_execute(path, "SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {table: raw_execute(path, f"PRAGMA table_xinfo('{table}')") for table in tables}


def _ours(path: Path) -> dict[tuple[str, str], str]:
    """Schema entries of hermes-tui's own (its documented extra indexes)."""
    return {key: sql for key, sql in _schema_sql(path).items() if key[1] in schema.OUR_INDEXES}


async def test_new_file_has_exactly_the_schema_hermes_v21_writes(db_path: Path) -> None:
    """A database we create is one Hermes a7ef17da7 opens without migrating anything."""
    store = await SessionDB.open(db_path)
    await store.close()
    # Every table, column, index and trigger Hermes declares, with the same DDL, and nothing else.
    assert _schema_sql(db_path) == _schema_sql(V21_DB)
    assert _columns(db_path) == _columns(V21_DB)
    assert raw_execute(db_path, "SELECT version FROM schema_version") == [(21,)]
    assert len({name for kind, name in _schema_sql(db_path) if kind == "trigger"}) == 6


async def test_our_indexes_are_built_on_request_only_and_are_plain_indexes(db_path: Path) -> None:
    store = await SessionDB.open(db_path)
    try:
        assert _ours(db_path) == {}  # not at open: the first screen never waits for them
        assert sorted(await store.build_extra_indexes()) == sorted(schema.OUR_INDEXES)
        assert await store.build_extra_indexes() == []  # there already
    finally:
        await store.close()
    extra = {key for key in _schema_sql(db_path) if key not in _schema_sql(V21_DB)}
    assert extra == {("index", name) for name in schema.OUR_INDEXES}
    assert all(name.startswith("idx_hermes_tui_") for _, name in extra)
    assert raw_execute(db_path, f"SELECT tbl_name FROM sqlite_master WHERE name = '{schema.LINEAGE_INDEX}'") == [
        ("sessions",)
    ]
    assert raw_execute(db_path, f"SELECT tbl_name FROM sqlite_master WHERE name = '{schema.ROLE_INDEX}'") == [
        ("messages",)
    ]


async def test_a_hermes_v21_file_opens_with_its_schema_untouched(hermes_home_v21: Path) -> None:
    path = hermes_home_v21 / "state.db"
    before = _schema_sql(path)
    columns = _columns(path)
    store = await SessionDB.open(path)
    try:
        assert len(await store.list_sessions_rich()) >= 2
    finally:
        await store.close()
    assert _schema_sql(path) == before and _columns(path) == columns  # nothing migrated, nothing added
    store = await SessionDB.open(path)
    try:
        await store.build_extra_indexes()  # the TUI does this in the background
        assert len(await store.list_sessions_rich()) >= 2
    finally:
        await store.close()
    after = _schema_sql(path)
    assert {key: sql for key, sql in after.items() if key[1] not in schema.OUR_INDEXES} == before
    raw_execute(path, f"DROP INDEX {schema.LINEAGE_INDEX}")  # e.g. a tool rebuilt the table
    store = await SessionDB.open(path)
    try:
        assert await store.build_extra_indexes() == [schema.LINEAGE_INDEX]
    finally:
        await store.close()
    assert _schema_sql(path) == after
    assert raw_execute(path, "PRAGMA integrity_check") == [("ok",)]


async def test_a_read_only_open_of_a_hermes_file_writes_nothing(hermes_home_v21: Path) -> None:
    path = hermes_home_v21 / "state.db"
    data, stamp = path.read_bytes(), path.stat().st_mtime_ns
    store = await SessionDB.open(path, read_only=True)
    try:
        assert [hit["session_id"] for hit in await store.search_messages("walrus", limit=50)]
        store.start_extra_indexes()  # never for a read-only open
        assert await store.build_extra_indexes() == []
    finally:
        await store.close()
    assert path.read_bytes() == data and path.stat().st_mtime_ns == stamp
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith("state.db")) == ["state.db"]


async def test_a_v14_file_is_upgraded_as_hermes_upgrades_it(hermes_fixture_db: Path) -> None:
    """Columns with Hermes's defaults, the three new tables, Hermes's indexes, its data migrations."""
    raw_execute(hermes_fixture_db, "UPDATE sessions SET input_tokens = 120, output_tokens = 30 WHERE title IS NOT NULL")
    branch_child = raw_execute(
        hermes_fixture_db, "SELECT id, parent_session_id FROM sessions WHERE id = ?", (FIXTURE_BRANCH_CHILD,)
    )[0]
    raw_execute(  # a branch we recorded, whose parent was resumed since (its end reason no longer says so)
        hermes_fixture_db, "UPDATE sessions SET end_reason = 'tui_close' WHERE id = ?", (branch_child[1],)
    )
    raw_execute(
        hermes_fixture_db,
        "INSERT INTO state_meta (key, value) VALUES (?, ?)",
        (f"edge:{branch_child[0]}", json.dumps({"kind": "branch", "parent": branch_child[1], "branch_point": None})),
    )
    store = await SessionDB.open(hermes_fixture_db)
    await store.close()
    assert raw_execute(hermes_fixture_db, "SELECT version FROM schema_version") == [(21,)]
    ours, hermes = _columns(hermes_fixture_db), _columns(V21_DB)
    assert set(ours) == set(hermes)
    for table, rows in hermes.items():  # the same columns (added at the end, so in another order)
        assert sorted(row[1:] for row in ours[table]) == sorted(row[1:] for row in rows), table
    assert {n for k, n in _schema_sql(hermes_fixture_db) if k == "index"} == {
        n for k, n in _schema_sql(V21_DB) if k == "index"
    }
    # v20: one usage row per session with tokens, from the session row
    seeded = raw_execute(hermes_fixture_db, "SELECT COUNT(*) FROM session_model_usage WHERE input_tokens = 120")
    titled = raw_execute(hermes_fixture_db, "SELECT COUNT(*) FROM sessions WHERE title IS NOT NULL")
    assert seeded == titled and seeded[0][0] > 0
    # v16: our recorded branch gets the marker Hermes reads, so Hermes never takes it for a subagent
    config = raw_execute(hermes_fixture_db, "SELECT model_config FROM sessions WHERE id = ?", (branch_child[0],))[0][0]
    assert json.loads(config) == {"_branched_from": branch_child[1]}
    compression_children = raw_execute(
        hermes_fixture_db,
        "SELECT c.model_config FROM sessions c JOIN sessions p ON p.id = c.parent_session_id"
        " WHERE p.end_reason = 'compression'",
    )
    assert compression_children and all(row[0] is None for row in compression_children)
    assert raw_execute(hermes_fixture_db, "PRAGMA integrity_check") == [("ok",)]


async def test_a_v14_file_is_read_as_it_is_by_a_read_only_open(hermes_fixture_db: Path) -> None:
    data = hermes_fixture_db.read_bytes()
    store = await SessionDB.open(hermes_fixture_db, read_only=True)
    try:
        assert store.has_compacted_column is False
        assert await store.search_messages("sqlite")
        assert len(await store.lineage_tree()) == 6
        assert await store.count_compacted(FIXTURE_TIP) == 0
    finally:
        await store.close()
    assert hermes_fixture_db.read_bytes() == data
    assert raw_execute(hermes_fixture_db, "SELECT version FROM schema_version") == [(14,)]


@pytest.mark.slow  # seconds on its own: in `make test`, not the fast tier
async def test_an_index_build_gives_way_to_a_write_and_finishes_later(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(extra_indexes, "QUIET_BEFORE_RETRY_S", 0.05)
    store = await SessionDB.open(db_path)
    try:
        await make_session(store, "big")
        rows = [{"role": "user", "content": f"message {i} " + "words " * 40} for i in range(4000)]
        for _ in range(10):
            await store.append_messages("big", rows)
        builder = store._conns.extra_indexes
        task = store._conns.start_extra_indexes()
        assert task is not None
        role_build = len(schema.OUR_INDEXES)  # the role index is built last, over every message row
        await wait_until(
            lambda: (builder._stop is not None and builder.attempts == role_build) or task.done(),
            what="the role index build to start",
        )
        await store.append_message("big", "user", "written while the index was being built")
        assert sorted(await task) == sorted(schema.OUR_INDEXES)
        assert builder.attempts > len(schema.OUR_INDEXES)  # the write interrupted a build, which was retried
        assert await store.count_messages("big") == 40_001
    finally:
        await store.close()
    assert {name for kind, name in _schema_sql(db_path) if kind == "index"} >= set(schema.OUR_INDEXES)


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
    assert raw_execute(db_path, "SELECT version FROM schema_version") == [(21,)]
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
