"""Health checks on real state.db files: the start-up quick_check and the doctor's database checks,
including a file with one page overwritten on disk."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from hermes_tui.store.check import OK, PROBLEM, WARNING, inspect_database, quick_check, start_quick_check
from hermes_tui.store.db import SessionDB
from tests.store.conftest import raw_execute


async def build_state_db(path: Path, messages: int = 300) -> Path:
    """A real state.db with one session of `messages` messages (many pages), closed cleanly."""
    db = await SessionDB.open(path)
    try:
        await db.create_session("s1", "cli", model="demo")
        await db.append_messages(
            "s1",
            [
                {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " + "lorem ipsum " * 40}
                for i in range(messages)
            ],
        )
    finally:
        await db.close()
    return path


def corrupt_one_page(path: Path, table: str = "messages") -> int:
    """Overwrite one leaf page of `table` in the file with garbage; returns the page number."""
    conn = sqlite3.connect(path)
    try:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [r[0] for r in conn.execute("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf'", (table,))]
    finally:
        conn.close()
    assert len(pages) > 4 and not path.with_name(path.name + "-wal").exists()
    page = pages[len(pages) // 2]
    with path.open("r+b") as handle:
        handle.seek((page - 1) * page_size)
        handle.write(bytes([0x0D]) + b"\xa5" * (page_size - 1))
    return page


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_a_healthy_or_missing_file_passes(tmp_path: Path) -> None:
    path = await build_state_db(tmp_path / "home" / "state.db")
    before = digest(path)
    assert quick_check(path) is None
    assert quick_check(tmp_path / "nowhere" / "state.db") is None
    assert digest(path) == before and sorted(p.name for p in path.parent.iterdir()) == ["state.db"]


async def test_one_corrupt_page_is_one_line(tmp_path: Path) -> None:
    path = await build_state_db(tmp_path / "home" / "state.db")
    corrupt_one_page(path)
    problem = quick_check(path)
    assert problem is not None and "\n" not in problem
    assert problem.startswith(f"{path} is damaged (") and "hermes-tui doctor" in problem
    pending = start_quick_check(path)
    assert pending.result(timeout=30) == problem and pending.done


def test_a_file_that_is_not_sqlite_is_damaged(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    path.write_bytes(b"not a database at all\n" * 300)
    problem = quick_check(path)
    assert problem is not None and "not a SQLite database" in problem


async def test_doctor_checks_of_a_healthy_file(tmp_path: Path) -> None:
    path = await build_state_db(tmp_path / "home" / "state.db")
    before = digest(path)
    findings = {f.name: f for f in inspect_database(path)}
    assert findings["integrity"].status == OK and "ok" in findings["integrity"].detail
    assert findings["schema"].status == OK and findings["schema"].detail == "v21"
    for table in ("messages_fts", "messages_fts_trigram"):
        finding = findings[f"FTS {table}"]
        assert finding.status == OK and finding.detail.startswith("300 rows, matching messages")
        assert "FTS5 integrity-check ok" in finding.detail
    assert "300 messages in 1 sessions" in findings["contents"].detail
    assert digest(path) == before  # the doctor changes nothing


async def test_doctor_finds_the_corrupt_page(tmp_path: Path) -> None:
    path = await build_state_db(tmp_path / "home" / "state.db")
    page = corrupt_one_page(path)
    findings = {f.name: f for f in inspect_database(path)}
    integrity = findings["integrity"]
    assert integrity.status == PROBLEM and f"first problem: Page {page}:" in integrity.detail


@pytest.mark.parametrize(
    ("damage", "table", "expected"),
    [
        ("DELETE FROM messages_fts WHERE rowid = 7", "messages_fts", "1 message(s) not indexed"),
        ("UPDATE messages_fts_trigram SET content = 'stale' WHERE rowid = 9", "messages_fts_trigram", "outdated"),
        (
            "INSERT INTO messages_fts(rowid, content) VALUES (100000, 'ghost')",
            "messages_fts",
            "1 row(s) for deleted messages",
        ),
        ("DROP TRIGGER messages_fts_insert", "messages_fts", "missing triggers messages_fts_insert"),
        (
            "DROP TRIGGER messages_fts_trigram_insert; DROP TRIGGER messages_fts_trigram_delete;"
            " DROP TRIGGER messages_fts_trigram_update; DROP TABLE messages_fts_trigram",
            "messages_fts_trigram",
            "missing (the next open creates and fills it)",
        ),
    ],
)
async def test_doctor_finds_fts_inconsistencies(tmp_path: Path, damage: str, table: str, expected: str) -> None:
    path = await build_state_db(tmp_path / "home" / "state.db", messages=20)
    conn = sqlite3.connect(path)
    conn.executescript(damage)
    conn.close()
    findings = {f.name: f for f in inspect_database(path)}
    finding = findings[f"FTS {table}"]
    assert finding.status == PROBLEM and expected in finding.detail
    other = "messages_fts_trigram" if table == "messages_fts" else "messages_fts"
    assert findings[f"FTS {other}"].status == OK


async def test_doctor_reports_an_old_schema_as_a_warning(tmp_path: Path) -> None:
    path = await build_state_db(tmp_path / "home" / "state.db", messages=4)
    raw_execute(path, "UPDATE schema_version SET version = 12")
    findings = {f.name: f for f in inspect_database(path)}
    assert findings["schema"].status == WARNING and "v12; the next open upgrades it to v21" in findings["schema"].detail


async def test_a_clean_check_is_remembered_outside_the_home_until_the_file_changes(tmp_path: Path) -> None:
    """Read commands skip re-reading an unchanged clean file; any write (even one that puts the
    modification time back) makes the next start check again and find the damage."""
    path = await build_state_db(tmp_path / "home" / "state.db")
    assert quick_check(path) is None
    assert quick_check(path) is None  # the remembered clean state
    assert sorted(p.name for p in path.parent.iterdir()) == ["state.db"]
    before = path.stat()
    corrupt_one_page(path)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # same size and mtime: ctime still moved
    problem = quick_check(path)
    assert problem is not None and problem.startswith(f"{path} is damaged (")
    assert quick_check(path) == problem  # a damaged file is never remembered as clean


async def test_doctor_reports_a_v14_file_as_working_as_it_is(hermes_fixture_db: Path) -> None:
    findings = {f.name: f for f in inspect_database(hermes_fixture_db)}
    assert findings["schema"].status == OK
    assert findings["schema"].detail == "v14; read as it is, upgraded to v21 by the next write"
