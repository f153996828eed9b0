"""A home today's Hermes left (schema v21, in-place compaction, config.yaml + .env), used end to end
with real `hermes-tui` processes against the loopback fake server.

Its settings are honoured (provider, model, endpoint, in-place compaction), search finds the rows
Hermes compacted, resume / continue / branch / compress work there, and afterwards the file still
has exactly Hermes's schema (`PRAGMA table_xinfo` of every table as the fixture's).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.conftest import HERMES_HOME_V21, copy_hermes_home_v21
from tests.fake_llm import FakeLLMServer, Reply
from tests.test_hermes_config import run_cli

IN_PLACE = "20261128_101500_a1b2c3"  # "refactor auth", compacted in place by Hermes
DETAIL = " The refresh token rotates on use, the old one is revoked and the audit log records it." * 20
SUMMARY = "## Active Task\nWrite the auth tests.\n## Completed Actions\n1. refresh flow tests"


def _schema(path: Path) -> tuple[dict, dict]:
    conn = sqlite3.connect(path)
    try:
        tables = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        columns = {table: conn.execute(f"PRAGMA table_xinfo('{table}')").fetchall() for table in tables}
        objects = {
            (kind, name): sql
            for kind, name, sql in conn.execute("SELECT type, name, sql FROM sqlite_master")
            if not name.startswith("idx_hermes_tui_")
        }
        return columns, objects
    finally:
        conn.close()


def _rows(path: Path, sql: str, params: tuple = ()) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def test_the_hermes_v21_home_end_to_end(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        home = copy_hermes_home_v21(tmp_path / "hermes", port=srv.port)
        db = home / "state.db"
        h = ("--home", str(home))

        # search finds what Hermes compacted in place (12 rows + the summary naming the word)
        found = run_cli(*h, "search", "walrus", "--json", "--limit", "50", cwd=tmp_path)
        assert found.returncode == 0, found.stderr
        assert len(json.loads(found.stdout)) == 13

        # resume the compacted session: the model sees the live rows (summary + tail), not the replaced ones
        srv.enqueue(Reply(text="Resumed answer." + DETAIL))
        resumed = run_cli(*h, "--resume", IN_PLACE, "run", "now cover the error paths", "--json", cwd=tmp_path)
        assert resumed.returncode == 0, resumed.stderr
        payload = json.loads(resumed.stdout)
        assert (payload["session_id"], payload["provider"], payload["model"]) == (IN_PLACE, "openai", "fixture-model")
        sent = json.dumps(srv.requests[-1].body["messages"])
        assert "CONTEXT COMPACTION" in sent and "Answer 0: rotate" not in sent
        assert srv.requests[-1].path == "/v1/chat/completions"

        # continue it by title, as `-c TITLE` does
        srv.enqueue(Reply(text="Continued answer." + DETAIL))
        continued = run_cli(*h, "-c", "refactor auth", "run", "and the expiry case", "--json", cwd=tmp_path)
        assert continued.returncode == 0, continued.stderr
        assert json.loads(continued.stdout)["session_id"] == IN_PLACE

        for step in ("the refresh race", "the logout path"):  # enough turns for a middle to summarise
            srv.enqueue(Reply(text=f"On {step}." + DETAIL))
            more = run_cli(*h, "--resume", IN_PLACE, "run", f"what about {step}?", cwd=tmp_path)
            assert more.returncode == 0, more.stderr

        # compress there: config.yaml says in_place, so the session keeps its id and its rows
        before = _rows(db, "SELECT COUNT(*) FROM messages WHERE session_id = ? AND compacted = 1", (IN_PLACE,))[0][0]
        srv.enqueue(Reply(text=SUMMARY))
        compressed = run_cli(*h, "--resume", IN_PLACE, "run", "/compress", cwd=tmp_path)
        assert compressed.returncode == 0, compressed.stderr
        assert "Compacted in place" in compressed.stdout + compressed.stderr
        after = _rows(db, "SELECT COUNT(*) FROM messages WHERE session_id = ? AND compacted = 1", (IN_PLACE,))[0][0]
        assert after > before
        # not ended by a compression (only by the run closing), no parent, no child
        assert _rows(db, "SELECT end_reason, parent_session_id FROM sessions WHERE id = ?", (IN_PLACE,)) == [
            ("cli_close", None)
        ]
        assert _rows(db, "SELECT COUNT(*) FROM sessions WHERE parent_session_id = ?", (IN_PLACE,)) == [(0,)]

        # branch it
        branched = run_cli(*h, "--resume", IN_PLACE, "run", "/branch", "--json", cwd=tmp_path)
        assert branched.returncode == 0, branched.stderr
        child = json.loads(branched.stdout.strip().splitlines()[-1])["session_id"]
        assert child != IN_PLACE
        assert _rows(db, "SELECT parent_session_id FROM sessions WHERE id = ?", (child,)) == [(IN_PLACE,)]

        # every model call went to the endpoint config.yaml names, never to the demo
        assert all(r.body["model"] == "fixture-model" for r in srv.requests)
        assert "demo" not in (resumed.stderr + continued.stderr + compressed.stderr).lower()

    # the file still has exactly Hermes's schema: the same columns, the same tables, indexes, triggers
    ours_columns, ours_objects = _schema(db)
    hermes_columns, hermes_objects = _schema(HERMES_HOME_V21 / "state.db")
    assert ours_columns == hermes_columns
    assert ours_objects == hermes_objects
    assert _rows(db, "SELECT version FROM schema_version") == [(21,)]
    assert _rows(db, "PRAGMA integrity_check") == [("ok",)]


def test_read_commands_on_the_hermes_home_write_nothing(tmp_path: Path) -> None:
    home = copy_hermes_home_v21(tmp_path / "hermes", port=9)
    db = home / "state.db"
    data, stamp = db.read_bytes(), db.stat().st_mtime_ns
    for args in (
        ("sessions", "--json"),
        ("search", "walrus", "--json"),
        ("export", IN_PLACE, "--format", "json"),
    ):
        result = run_cli("--home", str(home), *args, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
    exported = json.loads(result.stdout)
    assert exported["sessions"][0]["compacted_messages"] == 12
    assert db.read_bytes() == data and db.stat().st_mtime_ns == stamp  # not even our extra indexes
    assert sorted(p.name for p in home.iterdir() if p.name.startswith("state.db")) == ["state.db"]


def test_doctor_notes_hermes_own_file_modes_without_failing(tmp_path: Path) -> None:
    home = copy_hermes_home_v21(tmp_path / "hermes", port=9)
    result = run_cli("doctor", "--home", str(home), "--json", cwd=tmp_path)
    report = json.loads(result.stdout)
    by_name = {finding["name"]: finding for finding in report["findings"]}
    assert result.returncode == 0 and report["ok"] is True, result.stdout
    for name in ("state.db mode", "memory MEMORY.md", "memory USER.md"):
        assert by_name[name]["status"] == "note" and f"chmod 600 {home}" in by_name[name]["detail"]
    assert by_name["config.yaml"]["status"] == "ok" and by_name["schema"]["detail"] == "v21"
    (home / "state.db").chmod(0o666)  # writable by others: a real problem, Hermes never leaves it so
    result = run_cli("doctor", "--home", str(home), cwd=tmp_path)
    assert result.returncode == 1 and "PROBLEM  state.db mode" in result.stdout
