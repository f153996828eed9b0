"""Headless `sessions`, `search` and `export` handlers, called directly with StringIO streams."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_tui.cli_sessions import export_command, search_command, sessions_command
from tests.store.conftest import (
    FIXTURE_BRANCH_CHILD,
    FIXTURE_BRANCHED_PARENT,
    FIXTURE_CJK,
    FIXTURE_MIDDLE,
    FIXTURE_ROOT,
    FIXTURE_TIP,
)

REPO = Path(__file__).resolve().parents[2]


async def _run(handler, *args, **options):
    out, err = io.StringIO(), io.StringIO()
    code = await handler(*args, out=out, err=err, **options)
    return code, out.getvalue(), err.getvalue()


async def test_sessions_json_lists_tips_and_branches(hermes_fixture_db: Path) -> None:
    code, out, err = await _run(sessions_command, hermes_fixture_db, False, True)
    assert code == 0 and err == ""
    rows = json.loads(out)
    assert [r["id"] for r in rows][-1] == FIXTURE_TIP
    assert {r["id"] for r in rows} == {FIXTURE_TIP, FIXTURE_BRANCHED_PARENT, FIXTURE_BRANCH_CHILD, FIXTURE_CJK}
    required = {
        "id",
        "title",
        "source",
        "model",
        "parent_session_id",
        "started_at",
        "ended_at",
        "end_reason",
        "message_count",
        "last_active",
        "preview",
        "lineage_root_id",
    }
    assert all(required <= set(r) for r in rows)
    tip = next(r for r in rows if r["id"] == FIXTURE_TIP)
    assert tip["title"] == "refactor auth #3" and tip["lineage_root_id"] == FIXTURE_ROOT


async def test_sessions_all_includes_hidden_children(hermes_fixture_db: Path) -> None:
    code, out, _ = await _run(sessions_command, hermes_fixture_db, True, True)
    assert code == 0
    assert {r["id"] for r in json.loads(out)} >= {FIXTURE_ROOT, FIXTURE_MIDDLE, FIXTURE_TIP}


async def test_sessions_table_is_aligned(hermes_fixture_db: Path) -> None:
    code, out, _ = await _run(sessions_command, hermes_fixture_db, False, False)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["ID", "TITLE", "SOURCE"]
    starts = {line.index("cli") if "cli" in line.split() else line.index("tui") for line in lines[1:]}
    assert len(starts) == 1  # the SOURCE column starts at the same place on every row
    assert "refactor auth #3" in out and "请帮我总结广西桂林的旅游路线" in out


async def test_search_json_contract(hermes_fixture_db: Path) -> None:
    code, out, _ = await _run(search_command, hermes_fixture_db, "桂林旅游", 5, None, True)
    assert code == 0
    [hit] = json.loads(out)
    assert {"message_id", "session_id", "lineage_root_id", "role", "snippet", "timestamp"} <= set(hit)
    assert hit["session_id"] == FIXTURE_CJK and hit["message_id"] == 32


async def test_search_role_filter_limit_and_human_output(hermes_fixture_db: Path) -> None:
    code, out, _ = await _run(search_command, hermes_fixture_db, "JWT", 1, "assistant", True)
    assert code == 0
    hits = json.loads(out)
    assert len(hits) == 1 and hits[0]["role"] == "assistant"
    code, out, _ = await _run(search_command, hermes_fixture_db, "JWT", 10, None, False)
    assert code == 0 and out.splitlines()[0].split() == ["WHEN", "SESSION", "MSG", "ROLE", "SNIPPET"]
    assert ">>>JWT<<<" in out
    code, out, _ = await _run(search_command, hermes_fixture_db, "nonexistentterm", 10, None, False)
    assert code == 0 and out == "No matches.\n"
    code, out, err = await _run(search_command, hermes_fixture_db, "JWT", 0, None, False)
    assert code == 2 and "--limit" in err and out == ""


async def test_export_one_session_as_json_and_jsonl(hermes_fixture_db: Path) -> None:
    code, out, _ = await _run(export_command, hermes_fixture_db, FIXTURE_CJK, False, "json")
    assert code == 0
    document = json.loads(out)
    [session] = document["sessions"]
    assert session["id"] == FIXTURE_CJK and len(session["messages"]) == 4
    assert session["messages"][2]["content"][0]["text"] == "What is in this screenshot?"
    code, out, _ = await _run(export_command, hermes_fixture_db, FIXTURE_CJK, False, "jsonl")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["type"] for line in lines] == ["session", "message", "message", "message", "message"]


async def test_export_lineage_marks_compression_summaries(hermes_fixture_db: Path) -> None:
    code, out, _ = await _run(export_command, hermes_fixture_db, "refactor auth", True, "json")
    assert code == 0
    document = json.loads(out)
    assert [s["id"] for s in document["sessions"]] == [FIXTURE_ROOT, FIXTURE_MIDDLE, FIXTURE_TIP]
    assert [s["edge"] for s in document["sessions"]] == ["root", "compression", "compression"]
    summaries = [m for s in document["sessions"] for m in s["messages"] if m.get("kind") == "compression_summary"]
    assert len(summaries) == 2
    code, out, _ = await _run(export_command, hermes_fixture_db, FIXTURE_ROOT, True, "md")
    assert out.count("**Compression summary**") == 2 and "## Session " + FIXTURE_TIP in out


async def test_export_lineage_shows_the_branch_point_once(hermes_fixture_db: Path) -> None:
    code, out, _ = await _run(export_command, hermes_fixture_db, FIXTURE_BRANCH_CHILD, True, "md")
    assert code == 0
    assert "**Branch point:** branched from " + FIXTURE_BRANCHED_PARENT in out
    assert out.count("Should we use PostgreSQL or SQLite") == 1
    assert "Assume PostgreSQL. Sketch the schema." in out


@pytest.mark.parametrize(
    ("ref", "fmt", "fragment"),
    [
        ("no-such-session", "md", "no session matches 'no-such-session'"),
        ("2026", "md", "matches several sessions"),
        (FIXTURE_TIP, "pdf", "unknown export format 'pdf'"),
    ],
)
async def test_export_errors_are_one_line_and_exit_2(
    hermes_fixture_db: Path, ref: str, fmt: str, fragment: str
) -> None:
    code, out, err = await _run(export_command, hermes_fixture_db, ref, False, fmt)
    assert code == 2 and out == ""
    assert fragment in err and err.count("\n") == 1


async def test_missing_database_is_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "state.db"
    for handler, args in (
        (sessions_command, (missing, False, True)),
        (search_command, (missing, "x", 5, None, True)),
        (export_command, (missing, "x", False, "md")),
    ):
        code, out, err = await _run(handler, *args)
        assert code == 2 and out == "" and "no session database at" in err and err.count("\n") == 1
    assert not missing.parent.exists()


async def test_non_sqlite_file_is_a_clear_error(tmp_path: Path) -> None:
    junk = tmp_path / "state.db"
    junk.write_text("definitely not sqlite\n" * 50)
    code, out, err = await _run(sessions_command, junk, False, False)
    assert code == 2 and out == "" and "not a SQLite database" in err and str(junk) in err


@pytest.mark.subprocess
def test_the_one_entry_point_runs_a_search(hermes_fixture_db: Path) -> None:
    home = str(hermes_fixture_db.parent)
    result = subprocess.run(
        [sys.executable, "-m", "hermes_tui", "search", "JWT", "--json", "--home", home, "--sort", "oldest"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)
    assert len(hits) == 4 and [h["message_id"] for h in hits] == sorted(h["message_id"] for h in hits)
    gone = subprocess.run([sys.executable, "-m", "hermes_tui.cli_sessions"], capture_output=True, text=True, cwd=REPO)
    assert gone.returncode == 0 and gone.stdout == ""  # no second front-end: the module only defines handlers


async def test_json_outputs_use_the_one_field_lists(hermes_fixture_db: Path) -> None:
    from hermes_tui.cli_sessions import HIT_FIELDS
    from hermes_tui.store.models import EXPORT_SESSION_FIELDS, LISTING_FIELDS

    code, out, _ = await _run(sessions_command, hermes_fixture_db, True, True)
    assert code == 0 and all(tuple(row) == LISTING_FIELDS for row in json.loads(out))
    code, out, _ = await _run(search_command, hermes_fixture_db, "JWT", 5, None, True)
    assert code == 0 and all(tuple(hit) == HIT_FIELDS for hit in json.loads(out))
    code, out, _ = await _run(export_command, hermes_fixture_db, FIXTURE_TIP, True, "json")
    for session in json.loads(out)["sessions"]:
        assert tuple(session)[: len(EXPORT_SESSION_FIELDS)] == EXPORT_SESSION_FIELDS


async def test_search_hits_carry_exactly_the_documented_fields(hermes_db) -> None:
    from hermes_tui.store.search import SEARCH_HIT_FIELDS

    hits = await hermes_db.search_messages("JWT", limit=3)
    assert hits and all(set(hit) == set(SEARCH_HIT_FIELDS) for hit in hits)


async def test_sessions_sort_by_start_follows_the_roots_start(hermes_fixture_db: Path) -> None:
    """`--sort started` lists newest start first (a chain by its root's start, shown as its tip)."""
    code, out, _ = await _run(sessions_command, hermes_fixture_db, False, True, sort="started")
    assert code == 0
    rows = json.loads(out)
    starts = [r["started_at"] for r in rows]
    assert starts == sorted(starts, reverse=True)
    code, by_activity, _ = await _run(sessions_command, hermes_fixture_db, False, True)
    assert {r["id"] for r in rows} == {r["id"] for r in json.loads(by_activity)}


@pytest.mark.subprocess
def test_the_sessions_sort_flag_is_parsed_and_checked() -> None:
    import subprocess
    import sys

    bad = subprocess.run(
        [sys.executable, "-m", "hermes_tui", "sessions", "--sort", "size"], capture_output=True, text=True, cwd=REPO
    )
    assert bad.returncode != 0 and "--sort" in bad.stderr and "Traceback" not in bad.stderr


# What a one-query `hermes-tui search` process must not load: an event loop and its SQLite driver, the
# settings machinery, the whole store — its start-up was most of the command's time.
SEARCH_NEVER_IMPORTS = ("asyncio", "aiosqlite", "hermes_tui.config", "hermes_tui.store.db", "hermes_tui.store.listing")


async def test_search_runs_on_the_calling_thread_with_the_stores_hits(hermes_fixture_db: Path, tmp_path: Path) -> None:
    """The whole process: the same hits as `SessionDB.search_messages` (the TUI's store), and none of
    the heavy modules imported."""
    from hermes_tui.store.db import SessionDB

    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "state.db").write_bytes(hermes_fixture_db.read_bytes())
    probe = (
        "import runpy, sys; sys.argv = ['hermes-tui', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('hermes_tui', run_name='__main__')\n"
        "except SystemExit as stop:\n"
        f"    print(sorted(m for m in {SEARCH_NEVER_IMPORTS!r} if m in sys.modules), file=sys.stderr)\n"
        "    raise\n"
    )
    for query, role in (("JWT", None), ("桂林旅游", None), ("JWT", "assistant")):
        command = [sys.executable, "-c", probe, "--home", str(home), "search", query, "--json", "--limit", "50"]
        if role:
            command += ["--role", role]
        done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr
        async with await SessionDB.open(home / "state.db", read_only=True) as db:
            expected = await db.search_messages(query, role_filter=role, limit=50)
        got = json.loads(done.stdout)
        assert [hit["message_id"] for hit in got] == [hit["id"] for hit in expected] != []
        assert [hit["snippet"] for hit in got] == [hit["snippet"] for hit in expected]
