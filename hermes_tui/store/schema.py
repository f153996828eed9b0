"""Schema v21 of Hermes's `state.db`, column for column, and how an existing file is brought to it.

Owns: the DDL (Hermes's eight tables, its indexes, both FTS5 tables and their six triggers), the
declarative column reconcile (`ALTER TABLE ... ADD COLUMN` for declared columns a live table lacks,
with Hermes's defaults), the version-gated data migrations (v10-v12 here, v16-v20 in
`schema_migrations`), the FTS5 availability probe and trigger repair, and what a read-only open
may read as it is (`readable_as_is`: a v14 file, as older Hermes and older hermes-tui wrote it,
is read without an upgrade). Everything here is synchronous and runs on a stdlib `sqlite3`
connection in a worker thread while `SessionDB.open` waits.

A file we create is one Hermes a7ef17da7 opens without migrating anything: the same tables,
columns, indexes and triggers, `schema_version` 21. A v14 file opened for writing is upgraded the
way Hermes upgrades it (the missing columns with Hermes's defaults, the three new tables and their
indexes, the v16/v18/v20 data migrations, version 21). Our own two indexes are not part of the
schema: `store.extra_indexes` builds them later, in the background.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.store.schema_migrations import run_data_migrations

SCHEMA_VERSION = 21
# The oldest version a read-only open reads as it is (its columns are all the queries need).
OLDEST_READABLE_VERSION = 14

# The DDL text matches what Hermes writes into sqlite_master, so `.schema` of a file we create
# reads the same as one Hermes created. In Hermes's order.
CORE_TABLES: dict[str, str] = {
    "schema_version": """CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER NOT NULL
)""",
    "sessions": """CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    session_key TEXT,
    chat_id TEXT,
    chat_type TEXT,
    thread_id TEXT,
    display_name TEXT,
    origin_json TEXT,
    expiry_finalized INTEGER DEFAULT 0,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0,
    cwd TEXT,
    git_branch TEXT,
    git_repo_root TEXT,
    billing_provider TEXT,
    billing_base_url TEXT,
    billing_mode TEXT,
    estimated_cost_usd REAL,
    actual_cost_usd REAL,
    cost_status TEXT,
    cost_source TEXT,
    pricing_version TEXT,
    title TEXT,
    api_call_count INTEGER DEFAULT 0,
    handoff_state TEXT,
    handoff_platform TEXT,
    handoff_error TEXT,
    compression_failure_cooldown_until REAL,
    compression_failure_error TEXT,
    compression_fallback_streak INTEGER NOT NULL DEFAULT 0,
    rewind_count INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
)""",
    "messages": """CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    effect_disposition TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_content TEXT,
    reasoning_details TEXT,
    codex_reasoning_items TEXT,
    codex_message_items TEXT,
    platform_message_id TEXT,
    observed INTEGER DEFAULT 0,
    active INTEGER NOT NULL DEFAULT 1,
    compacted INTEGER NOT NULL DEFAULT 0
)""",
    "session_model_usage": """CREATE TABLE IF NOT EXISTS session_model_usage (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    billing_provider TEXT NOT NULL DEFAULT '',
    billing_base_url TEXT NOT NULL DEFAULT '',
    billing_mode TEXT NOT NULL DEFAULT '',
    api_call_count INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    estimated_cost_usd REAL NOT NULL DEFAULT 0,
    actual_cost_usd REAL NOT NULL DEFAULT 0,
    cost_status TEXT,
    cost_source TEXT,
    first_seen REAL,
    last_seen REAL,
    PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode)
)""",
    "state_meta": """CREATE TABLE IF NOT EXISTS state_meta (
    key TEXT PRIMARY KEY,
    value TEXT
)""",
    "gateway_routing": """CREATE TABLE IF NOT EXISTS gateway_routing (
    scope TEXT NOT NULL DEFAULT '',
    session_key TEXT NOT NULL,
    entry_json TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (scope, session_key)
)""",
    "compression_locks": """CREATE TABLE IF NOT EXISTS compression_locks (
    session_id TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    acquired_at REAL NOT NULL,
    expires_at REAL NOT NULL
)""",
    "async_delegations": """CREATE TABLE IF NOT EXISTS async_delegations (
    delegation_id TEXT PRIMARY KEY,
    origin_session TEXT NOT NULL,
    origin_ui_session_id TEXT NOT NULL DEFAULT '',
    parent_session_id TEXT,
    state TEXT NOT NULL,
    dispatched_at REAL NOT NULL,
    completed_at REAL,
    updated_at REAL NOT NULL,
    event_json TEXT,
    result_json TEXT,
    delivery_state TEXT NOT NULL DEFAULT 'pending',
    delivery_attempts INTEGER NOT NULL DEFAULT 0,
    delivered_at REAL,
    owner_pid INTEGER,
    owner_started_at INTEGER,
    task_json TEXT,
    delivery_claim TEXT,
    delivery_claimed_at REAL
)""",
}

# What v15-v21 added to a v14 file: a read-only open of a v14 file works without them (reads of
# `compacted` then read 0; see SchemaState.compacted).
TABLES_AFTER_V14 = ("session_model_usage", "gateway_routing", "async_delegations")
COLUMNS_AFTER_V14: dict[str, tuple[str, ...]] = {
    "sessions": (
        "session_key",
        "chat_id",
        "chat_type",
        "thread_id",
        "display_name",
        "origin_json",
        "expiry_finalized",
        "git_branch",
        "git_repo_root",
        "compression_failure_cooldown_until",
        "compression_failure_error",
        "compression_fallback_streak",
    ),
    "messages": ("effect_disposition", "compacted"),
}

BASE_INDEXES = (
    "CREATE INDEX IF NOT EXISTS idx_sessions_source ON sessions(source)",
    "CREATE INDEX IF NOT EXISTS idx_sessions_source_id ON sessions(source, id)",
    "CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id)",
    "CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(started_at DESC)",
    "CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp)",
    "CREATE INDEX IF NOT EXISTS idx_compression_locks_expires ON compression_locks(expires_at)",
    "CREATE INDEX IF NOT EXISTS idx_session_model_usage_session ON session_model_usage(session_id)",
    "CREATE INDEX IF NOT EXISTS idx_session_model_usage_model ON session_model_usage(model)",
    """CREATE INDEX IF NOT EXISTS idx_async_delegations_delivery
    ON async_delegations(delivery_state, completed_at)""",
)

# Created after the column reconcile, because they cover columns older files lack.
DEFERRED_INDEXES = (
    "CREATE INDEX IF NOT EXISTS idx_messages_platform_msg_id ON messages(session_id, platform_message_id)"
    " WHERE platform_message_id IS NOT NULL",
    """CREATE INDEX IF NOT EXISTS idx_messages_session_active
    ON messages(session_id, active, timestamp)""",
    """CREATE INDEX IF NOT EXISTS idx_messages_active_null
    ON messages(active) WHERE active IS NULL""",
    """CREATE INDEX IF NOT EXISTS idx_sessions_session_key
    ON sessions(session_key, started_at DESC)""",
    """CREATE INDEX IF NOT EXISTS idx_sessions_gateway_peer
    ON sessions(source, user_id, chat_id, chat_type, thread_id, started_at DESC)""",
    """CREATE INDEX IF NOT EXISTS idx_sessions_handoff_state
    ON sessions(handoff_state, started_at)""",
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL",
)
# The indexes a v14 file already has (a read-only open of one needs no others).
V14_INDEX_NAMES = frozenset(
    {"idx_messages_platform_msg_id", "idx_messages_session_active", "idx_sessions_title_unique"}
)


def _index_name(ddl: str) -> str:
    return ddl.split(" EXISTS ", 1)[1].split()[0]


HERMES_INDEX_NAMES = frozenset(_index_name(ddl) for ddl in (*BASE_INDEXES, *DEFERRED_INDEXES))

# Ours, not Hermes's (the `idx_hermes_tui_` prefix marks them); built after the open, in the
# background, by `store.extra_indexes` (on a 200k-message Hermes file they take seconds to build,
# and a read-only open never builds them). The lineage index covers every session column the
# listing and the tree read, so reading them never walks the overflow pages of a big
# `system_prompt` (stored before these columns); led by `id`, it also serves lookups by id and
# walks sessions in id order, the order of `idx_messages_session`.
# The role index lists message ids by role in id order (an index holds the rowid after its
# key), so a role-filtered search merges it with the full-text matches instead of reading every
# match's row (store.search_by_role). It indexes the expression `role || ''` (the role itself),
# not the column: SQLite uses an expression index only for a query that names the same
# expression, so no other query — ours or Hermes's — is planned through it. (A plain index on
# `role` made SQLite's planner, which has no statistics here, pick it for lookups like
# `session_id = ? AND role = 'user'`: listing 50 sessions went from 3.5 ms to 14 s.)
# Hermes declares neither index: its schema reconcile only adds missing columns and creates its
# own indexes IF NOT EXISTS, so it leaves these alone, and its writes keep them up to date as
# SQLite maintains every index. Every query that uses one checks first that it exists.
LINEAGE_INDEX = "idx_hermes_tui_sessions_lineage"
ROLE_INDEX = "idx_hermes_tui_messages_role"
ROLE_KEY_SQL = "(role || '')"  # the expression ROLE_INDEX indexes; queries must spell it the same
OUR_INDEXES = {
    LINEAGE_INDEX: f"""CREATE INDEX IF NOT EXISTS {LINEAGE_INDEX} ON sessions(
    id, parent_session_id, started_at, ended_at, end_reason, archived, source, model, title, message_count
)""",
    ROLE_INDEX: f"CREATE INDEX IF NOT EXISTS {ROLE_INDEX} ON messages({ROLE_KEY_SQL})",
}

FTS_TABLE = "messages_fts"
TRIGRAM_TABLE = "messages_fts_trigram"

# The text a message contributes to both full-text indexes (rowid = messages.id).
INDEXED_TEXT_SQL = "COALESCE({p}content, '') || ' ' || COALESCE({p}tool_name, '') || ' ' || COALESCE({p}tool_calls, '')"

FTS_TABLE_DDL = {
    FTS_TABLE: """CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    content
)""",
    TRIGRAM_TABLE: """CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts_trigram USING fts5(
    content,
    tokenize='trigram'
)""",
}


def _trigger_ddl(table: str) -> dict[str, str]:
    new_text = INDEXED_TEXT_SQL.format(p="new.")
    return {
        f"{table}_insert": f"""CREATE TRIGGER IF NOT EXISTS {table}_insert AFTER INSERT ON messages BEGIN
    INSERT INTO {table}(rowid, content) VALUES (
        new.id,
        {new_text}
    );
END""",
        f"{table}_delete": f"""CREATE TRIGGER IF NOT EXISTS {table}_delete AFTER DELETE ON messages BEGIN
    DELETE FROM {table} WHERE rowid = old.id;
END""",
        f"{table}_update": f"""CREATE TRIGGER IF NOT EXISTS {table}_update AFTER UPDATE ON messages BEGIN
    DELETE FROM {table} WHERE rowid = old.id;
    INSERT INTO {table}(rowid, content) VALUES (
        new.id,
        {new_text}
    );
END""",
    }


FTS_TRIGGERS: dict[str, dict[str, str]] = {table: _trigger_ddl(table) for table in FTS_TABLE_DDL}


@dataclass(frozen=True)
class SchemaState:
    """What the file supports after `ensure_schema` (or as a read-only open found it)."""

    fts_available: bool
    trigram_available: bool
    version: int
    compacted: bool = True  # messages.compacted exists (a v14 file read as it is has none)


# --------------------------------------------------------------------------- probes


def _probe_fts5(conn: sqlite3.Connection, tokenizer: str | None = None) -> bool:
    """Can this SQLite build create an FTS5 table (with `tokenizer`)? Uses a temp table."""
    options = f", tokenize='{tokenizer}'" if tokenizer else ""
    try:
        conn.execute(f"CREATE VIRTUAL TABLE temp.hermes_fts5_probe USING fts5(x{options})")
        conn.execute("DROP TABLE temp.hermes_fts5_probe")
        return True
    except sqlite3.OperationalError:
        return False


def probe_fts(conn: sqlite3.Connection) -> tuple[bool, bool]:
    """(FTS5 available, trigram tokenizer available) in this SQLite build."""
    fts = _probe_fts5(conn)
    return fts, fts and _probe_fts5(conn, "trigram")


def fts_support() -> tuple[bool, bool]:
    """`probe_fts` on a scratch in-memory database, for connections that cannot create anything."""
    scratch = sqlite3.connect(":memory:")
    try:
        return probe_fts(scratch)
    finally:
        scratch.close()


def _existing(conn: sqlite3.Connection, kind: str) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = ?", (kind,))}


def _declared_columns(table: str) -> list[tuple[str, str, int, str | None, int]]:
    """(name, type, notnull, default, pk) of every column the DDL declares, via an in-memory DB."""
    scratch = sqlite3.connect(":memory:")
    try:
        scratch.execute(CORE_TABLES[table])
        return [(r[1], r[2], r[3], r[4], r[5]) for r in scratch.execute(f"PRAGMA table_info({table})")]
    finally:
        scratch.close()


def live_columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _missing_columns(conn: sqlite3.Connection, *, floor: int = SCHEMA_VERSION) -> list[str]:
    """`ALTER TABLE ... ADD COLUMN` statements (in Hermes's form) for declared columns the live tables
    lack; with `floor=14` only for the columns a v14 file already had."""
    statements: list[str] = []
    for table in CORE_TABLES:
        live = live_columns(conn, table)
        if not live:
            continue
        later = COLUMNS_AFTER_V14.get(table, ()) if floor <= OLDEST_READABLE_VERSION else ()
        for name, col_type, notnull, default, pk in _declared_columns(table):
            if name in live or name in later or pk or (notnull and default is None):
                continue
            definition = " ".join(
                part
                for part in (
                    col_type,
                    "NOT NULL" if notnull else "",
                    f"DEFAULT {default}" if default is not None else "",
                )
                if part
            )
            statements.append(f'ALTER TABLE "{table}" ADD COLUMN "{name}" {definition}')
    return statements


def _stored_version(conn: sqlite3.Connection) -> int | None:
    try:
        row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None or row[0] is None else int(row[0])


def needs_schema_work(conn: sqlite3.Connection, fts: bool, trigram: bool, *, floor: int = SCHEMA_VERSION) -> bool:
    """A read-only check: is anything missing? (The common case opens without a write lock.)

    `floor=OLDEST_READABLE_VERSION` asks whether a read-only open can use the file as it is: a
    v14 file (no v15-v21 tables or columns) can; anything older cannot. Our own indexes are never
    asked for (`store.extra_indexes` adds them after the open).
    """
    tables = _existing(conn, "table")
    stored = _stored_version(conn)
    wanted_tables = set(CORE_TABLES) - (set(TABLES_AFTER_V14) if floor <= OLDEST_READABLE_VERSION else set())
    if not wanted_tables <= tables or stored is None or stored < floor:
        return True
    if _missing_columns(conn, floor=floor):
        return True
    wanted_indexes = V14_INDEX_NAMES if floor <= OLDEST_READABLE_VERSION else HERMES_INDEX_NAMES
    if not wanted_indexes <= _existing(conn, "index"):
        return True
    triggers = _existing(conn, "trigger")
    for table, available in ((FTS_TABLE, fts), (TRIGRAM_TABLE, trigram)):
        names = set(FTS_TRIGGERS[table])
        if available and (table not in tables or not names <= triggers):
            return True
        if not available and names & triggers:
            return True
    return False


def readable_as_is(conn: sqlite3.Connection, fts: bool, trigram: bool) -> bool:
    """Can a read-only open use this file without any schema change (a v14..v21 file)?"""
    return not needs_schema_work(conn, fts, trigram, floor=OLDEST_READABLE_VERSION)


def state_of(conn: sqlite3.Connection, fts: bool, trigram: bool) -> SchemaState:
    """The SchemaState of the file as it is now."""
    return SchemaState(
        fts_available=fts,
        trigram_available=trigram,
        version=_stored_version(conn) or SCHEMA_VERSION,
        compacted="compacted" in live_columns(conn, "messages"),
    )


# --------------------------------------------------------------------------- changes


def _rebuild_fts(conn: sqlite3.Connection, table: str) -> None:
    conn.execute(f"DELETE FROM {table}")
    conn.execute(f"INSERT INTO {table}(rowid, content) SELECT id, {INDEXED_TEXT_SQL.format(p='')} FROM messages")


def _apply(conn: sqlite3.Connection, fts: bool, trigram: bool, home: Path | None) -> int:
    """Create/repair everything inside the caller's write transaction; returns the old version."""
    tables_before = _existing(conn, "table")
    fresh = "messages" not in tables_before
    for ddl in CORE_TABLES.values():
        conn.execute(ddl)
    for statement in _missing_columns(conn):
        conn.execute(statement)
    for ddl in (*BASE_INDEXES, *DEFERRED_INDEXES):
        conn.execute(ddl)

    stored = _stored_version(conn)
    old_version = SCHEMA_VERSION if fresh else (stored or 0)
    triggers = _existing(conn, "trigger")
    for table, available in ((FTS_TABLE, fts), (TRIGRAM_TABLE, trigram)):
        names = FTS_TRIGGERS[table]
        if not available:
            # No FTS5 (or no trigram tokenizer): drop the triggers so core writes still work.
            for name in names:
                conn.execute(f"DROP TRIGGER IF EXISTS {name}")
            continue
        created = table not in tables_before
        if not fresh and old_version < 11:
            # Pre-v11 triggers indexed content only: replace them with the v11+ definition.
            for name in names:
                conn.execute(f"DROP TRIGGER IF EXISTS {name}")
            triggers -= set(names)
        conn.execute(FTS_TABLE_DDL[table])
        short = not set(names) <= triggers
        for ddl in names.values():
            conn.execute(ddl)
        # v10 backfilled the trigram index; v11 re-indexed tool_name/tool_calls. A table created
        # now over existing rows, or triggers that were missing, also need a rebuild.
        migrate = old_version < 11 or (table == TRIGRAM_TABLE and old_version < 10)
        if not fresh and (created or short or migrate):
            _rebuild_fts(conn, table)

    if not fresh and old_version < 12:
        conn.execute("UPDATE messages SET active = 1 WHERE active IS NULL")
    if not fresh:
        run_data_migrations(conn, old_version, home)
    if stored is None:
        conn.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
    elif stored < SCHEMA_VERSION:
        conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
    return old_version


def ensure_schema(conn: sqlite3.Connection, home: Path | None = None) -> SchemaState:
    """Bring the file to schema v21 (idempotent). `conn` is in autocommit mode; `home` is the folder
    of state.db (the v18 migration reads its sessions/sessions.json, as Hermes does).

    Raises sqlite3 errors unchanged (the caller retries "locked" and reports corruption).
    """
    fts, trigram = probe_fts(conn)
    if needs_schema_work(conn, fts, trigram):
        conn.execute("BEGIN IMMEDIATE")
        try:
            _apply(conn, fts, trigram, home)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return state_of(conn, fts, trigram)
