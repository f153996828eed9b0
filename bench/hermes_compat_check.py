"""Hermes's own `SessionDB` against files hermes-tui wrote: does it open them without migrating?

    python -m bench.hermes_compat_check --hermes-src PATH

PATH is a Hermes source tree (e.g. `git archive a7ef17da7` of NousResearch/hermes-agent, with
`hermes_state.py`, `hermes_constants.py`, `agent/`, `hermes_cli/`, `tools/`), importable with
this interpreter. Two files are made with our store: a fresh one (sessions, an in-place
compaction, a rotation, a branch) and the repository's v14 fixture upgraded by our open. For each,
a subprocess imports Hermes's `hermes_state.SessionDB`, opens the file for writing (its schema
init runs: reconcile, migrations, indexes), and reports whether `sqlite_master` changed, the
schema version, what `list_sessions_rich` and `search_messages` return (compacted rows included)
and the live conversation of the compacted session. Not a test: it needs Hermes's source.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
V14_FIXTURE = REPO / "tests" / "fixtures" / "hermes_state_v14.db"

HERMES_SIDE = r"""
import json, sqlite3, sys
from pathlib import Path
path = Path(sys.argv[1])
def master():
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall(), key=str)
    finally:
        conn.close()
before = master()
import hermes_state
db = hermes_state.SessionDB(db_path=path)
sessions = db.list_sessions_rich(limit=50)
hits = db.search_messages("walrus", limit=50)
conversation = db.get_messages_as_conversation(sys.argv[2]) if sys.argv[2] else []
version = db._conn.execute("SELECT version FROM schema_version").fetchone()[0]
db.close()
after = master()
print(json.dumps({
    "schema_changed": [list(map(str, row[:2])) for row in after if row not in before]
    + [list(map(str, row[:2])) for row in before if row not in after],
    "version": version,
    "sessions": len(sessions),
    "walrus_hits": len(hits),
    "live_conversation": len(conversation),
}))
"""


async def _ours(path: Path) -> str:
    """A file written by our store: an in-place compaction, a rotation, a branch. Returns the compacted id."""
    from hermes_tui.store.db import SessionDB
    from hermes_tui.store.edges import EdgeRecord
    from hermes_tui.store.models import EDGE_BRANCH, EDGE_COMPRESSION

    db = await SessionDB.open(path)
    try:
        await db.create_session("20261201_100000_aaaaaa", "tui", model="m", title="in place", git_branch="main")
        await db.append_messages(
            "20261201_100000_aaaaaa",
            [{"role": "user" if i % 2 == 0 else "assistant", "content": f"walrus step {i}"} for i in range(10)],
        )
        await db.update_token_counts("20261201_100000_aaaaaa", input_tokens=100, output_tokens=20, api_call_count=1)
        await db.archive_and_compact(
            "20261201_100000_aaaaaa",
            [{"role": "user", "content": "[CONTEXT COMPACTION — REFERENCE ONLY] walrus summary"}],
        )
        await db.create_session("20261201_110000_bbbbbb", "tui", model="m", title="rotated")
        await db.append_message("20261201_110000_bbbbbb", "user", "before the rotation")
        await db.end_session("20261201_110000_bbbbbb", "compression")
        await db.create_session(
            "20261201_111000_cccccc",
            "tui",
            model="m",
            parent_session_id="20261201_110000_bbbbbb",
            title="rotated #2",
            edge=EdgeRecord(EDGE_COMPRESSION, "20261201_110000_bbbbbb"),
        )
        await db.create_session(
            "20261201_112000_dddddd",
            "tui",
            model="m",
            parent_session_id="20261201_111000_cccccc",
            edge=EdgeRecord(EDGE_BRANCH, "20261201_111000_cccccc"),
        )
    finally:
        await db.close()
    return "20261201_100000_aaaaaa"


async def _upgraded(path: Path) -> None:
    from hermes_tui.store.db import SessionDB

    shutil.copyfile(V14_FIXTURE, path)
    db = await SessionDB.open(path)
    await db.close()


def _hermes_open(source: Path, path: Path, compacted: str, home: Path) -> dict:
    env = {**os.environ, "HERMES_HOME": str(home), "PYTHONPATH": str(source)}
    result = subprocess.run(
        [sys.executable, "-c", HERMES_SIDE, str(path), compacted], env=env, capture_output=True, text=True, cwd=source
    )
    if result.returncode != 0:
        return {"error": result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "failed"}
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hermes-src", type=Path, required=True)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hermes-compat-"))
    try:
        fresh, upgraded = work / "ours" / "state.db", work / "upgraded" / "state.db"
        compacted = asyncio.run(_ours(fresh))
        upgraded.parent.mkdir(parents=True)
        asyncio.run(_upgraded(upgraded))
        for label, path, session in (
            ("created by hermes-tui", fresh, compacted),
            ("v14 upgraded by hermes-tui", upgraded, ""),
        ):
            report = _hermes_open(args.hermes_src.resolve(), path, session, work / "hermes-home")
            print(f"{label}: {json.dumps(report)}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
