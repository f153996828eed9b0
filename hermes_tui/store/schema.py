"""Schema v14 of Hermes's `state.db`, column for column, and how an existing file is brought to it.

Owns: the DDL (tables, indexes, both FTS5 tables and their six triggers), the declarative column
reconcile (`ALTER TABLE ... ADD COLUMN` for declared columns a live table lacks), the v10-v12
data migrations, the FTS5 availability probe and trigger repair. Everything here is synchronous
and runs on a stdlib `sqlite3` connection in a worker thread while `SessionDB.open` waits.

One addition of ours, `OUR_INDEXES`: a covering index over the session columns the listing and
the lineage tree read. Hermes reconciles columns only and ignores indexes it does not declare, so
a file with it still opens in Hermes; if something drops it, the next open recreates it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

SCHEMA_VERSION = 14

# The DDL text matches what Hermes writes into sqlite_master, so `.schema` of a file we create
# reads the same as one Hermes created.
CORE_TABLES: dict[str, str] = {
    "schema_version": """CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER NOT NULL
)""",
    "sessions": """CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
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
    active INTEGER NOT NULL DEFAULT 1
)""",
    "state_meta": """CREATE TABLE IF NOT EXISTS state_meta (
    key TEXT PRIMARY KEY,
    value TEXT
)""",
    "compression_locks": """CREATE TABLE IF NOT EXISTS compression_locks (
    session_id TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    acquired_at REAL NOT NULL,
    expires_at REAL NOT NULL
)""",
}

BASE_INDEXES = (
    "CREATE INDEX IF NOT EXISTS idx_sessions_source ON sessions(source)",
    "CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id)",
    "CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(started_at DESC)",
    "CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp)",
    "CREATE INDEX IF NOT EXISTS idx_compression_locks_expires ON compression_locks(expires_at)",
)

# Created after the column reconcile, because they cover columns older files lack.
DEFERRED_INDEXES = (
    "CREATE INDEX IF NOT EXISTS idx_messages_platform_msg_id ON messages(session_id, platform_message_id)"
    " WHERE platform_message_id IS NOT NULL",
    """CREATE INDEX IF NOT EXISTS idx_messages_session_active
    ON messages(session_id, active, timestamp)""",
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL",
)

# Ours, not Hermes's (the `idx_hermes_tui_` prefix marks them). The lineage index covers every
# session column the listing and the tree read, so reading them never walks the overflow pages of
# a big `system_prompt` (stored before these columns); led by `id`, it also serves lookups by id
# and walks sessions in id order, the order of `idx_messages_session`.
# The role index lists message ids by role in id order (an index holds the rowid after its
# key), so a role-filtered search merges it with the full-text matches instead of reading every
# match's row (store.search_by_role). It indexes the expression `role || ''` (the role itself),
# not the column: SQLite uses an expression index only for a query that names the same
# expression, so no other query — ours or Hermes's — is planned through it. (A plain index on
# `role` made SQLite's planner, which has no statistics here, pick it for lookups like
# `session_id = ? AND role = 'user'`: listing 50 sessions went from 3.5 ms to 14 s.)
# Hermes declares neither index: its schema reconcile only adds missing columns and creates its
# own indexes IF NOT EXISTS, so it leaves these alone, and its writes keep them up to date as
# SQLite maintains every index.
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
    """What the file supports after `ensure_schema`."""

    fts_available: bool
    trigram_available: bool
    version: int


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


def _missing_columns(conn: sqlite3.Connection) -> list[str]:
    """`ALTER TABLE ... ADD COLUMN` statements for declared columns the live tables lack."""
    statements: list[str] = []
    for table in CORE_TABLES:
        live = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if not live:
            continue
        for name, col_type, notnull, default, pk in _declared_columns(table):
            if name in live or pk or (notnull and default is None):
                continue
            definition = f"{name} {col_type}"
            if notnull:
                definition += " NOT NULL"
            if default is not None:
                definition += f" DEFAULT {default}"
            statements.append(f"ALTER TABLE {table} ADD COLUMN {definition}")
    return statements


def _stored_version(conn: sqlite3.Connection) -> int | None:
    try:
        row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None or row[0] is None else int(row[0])


def needs_schema_work(conn: sqlite3.Connection, fts: bool, trigram: bool, *, ours: bool = True) -> bool:
    """A read-only check: is anything missing? (The common case opens without a write lock.)

    `ours=False` leaves out our own indexes (`OUR_INDEXES`): they only make queries faster, so a
    file opened read-only — e.g. one Hermes wrote, in a home we may not write — is usable without them.
    """
    tables = _existing(conn, "table")
    stored = _stored_version(conn)
    if not set(CORE_TABLES) <= tables or stored is None or stored < SCHEMA_VERSION:
        return True
    if _missing_columns(conn):
        return True
    indexes = _existing(conn, "index")
    wanted_indexes = {
        "idx_messages_platform_msg_id",
        "idx_messages_session_active",
        "idx_sessions_title_unique",
        *(OUR_INDEXES if ours else ()),
    }
    if not wanted_indexes <= indexes:
        return True
    triggers = _existing(conn, "trigger")
    for table, available in ((FTS_TABLE, fts), (TRIGRAM_TABLE, trigram)):
        names = set(FTS_TRIGGERS[table])
        if available and (table not in tables or not names <= triggers):
            return True
        if not available and names & triggers:
            return True
    return False


# --------------------------------------------------------------------------- changes


def _rebuild_fts(conn: sqlite3.Connection, table: str) -> None:
    conn.execute(f"DELETE FROM {table}")
    conn.execute(f"INSERT INTO {table}(rowid, content) SELECT id, {INDEXED_TEXT_SQL.format(p='')} FROM messages")


def _apply(conn: sqlite3.Connection, fts: bool, trigram: bool) -> int:
    """Create/repair everything inside the caller's write transaction; returns the old version."""
    tables_before = _existing(conn, "table")
    fresh = "messages" not in tables_before
    for ddl in CORE_TABLES.values():
        conn.execute(ddl)
    for statement in _missing_columns(conn):
        conn.execute(statement)
    for ddl in (*BASE_INDEXES, *DEFERRED_INDEXES, *OUR_INDEXES.values()):
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
    if stored is None:
        conn.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
    elif stored < SCHEMA_VERSION:
        conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
    return old_version


def ensure_schema(conn: sqlite3.Connection) -> SchemaState:
    """Bring the file to schema v14 (idempotent). `conn` is in autocommit mode.

    Raises sqlite3 errors unchanged (the caller retries "locked" and reports corruption).
    """
    fts, trigram = probe_fts(conn)
    if needs_schema_work(conn, fts, trigram):
        conn.execute("BEGIN IMMEDIATE")
        try:
            _apply(conn, fts, trigram)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    version = _stored_version(conn) or SCHEMA_VERSION
    return SchemaState(fts_available=fts, trigram_available=trigram, version=version)
