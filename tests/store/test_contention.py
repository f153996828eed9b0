"""Two OS processes appending to one state.db at the same time: nobody sees "database is locked"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.store.conftest import raw_execute

REPO = Path(__file__).resolve().parents[2]
PER_PROCESS = 120

WRITER = r"""
import asyncio, sys, time
from pathlib import Path
from hermes_tui.store.db import SessionDB

async def main(path, name, go, count):
    deadline = time.monotonic() + 20
    while not Path(go).exists():  # start together
        if time.monotonic() > deadline:
            raise SystemExit("never told to go")
        await asyncio.sleep(0.005)
    db = await SessionDB.open(path)
    await db.create_session(name, "cli")
    for i in range(count):
        await db.append_message(name, "user", f"{name} message {i}")
        if i % 10 == 0:
            await db.update_token_counts(name, input_tokens=1, api_call_count=1)
            await db.acquire_compression_lock("shared", name)
            await db.release_compression_lock("shared", name)
    await db.close()

asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
"""


@pytest.mark.subprocess
def test_two_processes_append_concurrently_without_lock_errors(tmp_path: Path) -> None:
    db_path = tmp_path / "state.db"
    go = tmp_path / "go"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db_path), name, str(go), str(PER_PROCESS)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("writer-a", "writer-b")
    ]
    go.touch()
    outputs = [proc.communicate(timeout=120) for proc in procs]
    for proc, (_, err) in zip(procs, outputs, strict=True):
        assert "locked" not in err.lower()
        assert proc.returncode == 0, err
    counts = dict(raw_execute(db_path, "SELECT session_id, COUNT(*) FROM messages GROUP BY session_id"))
    assert counts == {"writer-a": PER_PROCESS, "writer-b": PER_PROCESS}
    sessions = dict(raw_execute(db_path, "SELECT id, message_count FROM sessions"))
    assert sessions == {"writer-a": PER_PROCESS, "writer-b": PER_PROCESS}
    indexed = raw_execute(db_path, "SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH 'message'")
    assert indexed == [(2 * PER_PROCESS,)]
    assert raw_execute(db_path, "PRAGMA integrity_check") == [("ok",)]
