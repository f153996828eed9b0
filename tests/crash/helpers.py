"""Running `python -m hermes_tui` as a user does and reading what it left in state.db.

`cli_env` builds the environment of a run against the loopback fake server (no developer keys,
no demo delay); `start_run` starts `hermes-tui run` as a real process (Popen) and `run_cli` runs
it to the end. `stored(home)` reads every message row straight from the SQLite file, and
`integrity(home)` runs `PRAGMA integrity_check` on it.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SCRUBBED_PREFIXES = ("OPENAI_", "ANTHROPIC_", "HERMES_TUI_")


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED_PREFIXES)}
    env["HERMES_TUI_DEMO_DELAY"] = "0"
    env["OPENAI_API_KEY"] = "sk-test"
    env["ANTHROPIC_API_KEY"] = "sk-ant-test"
    env.update(extra or {})
    return env


def run_args(home: Path, base_url: str, *args: str, provider: str = "openai") -> list[str]:
    """`python -m hermes_tui run ...` against `base_url` with the home folder `home`."""
    return [
        sys.executable,
        "-m",
        "hermes_tui",
        "run",
        *args,
        "--home",
        str(home),
        "--provider",
        provider,
        "--base-url",
        base_url,
    ]


def start_run(home: Path, base_url: str, *args: str, cwd: Path, provider: str = "openai") -> subprocess.Popen[str]:
    return subprocess.Popen(
        run_args(home, base_url, *args, provider=provider),
        cwd=cwd,
        env=cli_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_cli(
    home: Path, base_url: str, *args: str, cwd: Path, provider: str = "openai", timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        run_args(home, base_url, *args, provider=provider),
        cwd=cwd,
        env=cli_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def stored(home: Path, session_id: str | None = None) -> list[dict[str, Any]]:
    """Every active message row (all sessions, or one), oldest first, as dicts."""
    con = sqlite3.connect(f"file:{home / 'state.db'}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    try:
        where = "active = 1" + (" AND session_id = ?" if session_id else "")
        params = (session_id,) if session_id else ()
        return [dict(r) for r in con.execute(f"SELECT * FROM messages WHERE {where} ORDER BY id", params)]
    finally:
        con.close()


def stored_so_far(home: Path) -> list[dict[str, Any]]:
    """Like `stored`, but [] while the database is not there yet (or still being created)."""
    try:
        return stored(home)
    except sqlite3.Error:
        return []


def session_row(home: Path, session_id: str) -> dict[str, Any]:
    con = sqlite3.connect(f"file:{home / 'state.db'}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    try:
        row = con.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return dict(row) if row else {}
    finally:
        con.close()


def integrity(home: Path) -> str:
    con = sqlite3.connect(f"file:{home / 'state.db'}?mode=ro", uri=True)
    try:
        return ";".join(str(row[0]) for row in con.execute("PRAGMA integrity_check"))
    finally:
        con.close()


def poll(predicate: Callable[[], Any], timeout: float = 15.0, what: str = "condition", every: float = 0.01) -> Any:
    """Wait until `predicate()` is truthy and return it; fail naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
        time.sleep(every)


def process_group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
