"""Running `python -m hermes_tui` as a user does and reading what it left in state.db.

`cli_env` builds the environment of a run against the loopback fake server (no developer keys,
no demo delay); `start_run` starts `hermes-tui run` as a real process (Popen) and `run_cli` runs
it to the end. `stored(home)` reads every message row straight from the SQLite file, and
`integrity(home)` runs `PRAGMA integrity_check` on it. For the moments a stop signal is aimed
at: `WriteLock` holds state.db's write lock and `waits_for_the_database(pid)` sees the program
wait for it; `signal_delivered(pid)` says a sent signal reached its handler. `PtyTerminal` runs
the TUI on a pseudo-terminal of its own.
"""

from __future__ import annotations

import fcntl
import os
import pty
import sqlite3
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.waits import guard

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


def poll(
    predicate: Callable[[], Any], timeout: float | None = None, what: str = "condition", every: float = 0.01
) -> Any:
    """Wait until `predicate()` is truthy and return it; a hang guard only: fail naming `what` after
    `guard(timeout)` s (at least a minute)."""
    limit = guard(timeout)
    deadline = time.monotonic() + limit
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {limit:g}s waiting for {what}")
        time.sleep(every)


def process_group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def message_ids(home: Path) -> tuple[list[int], int]:
    """Every message row id (rewound ones too) and the highest id SQLite ever gave out."""
    con = sqlite3.connect(f"file:{home / 'state.db'}?mode=ro", uri=True)
    try:
        ids = [int(r[0]) for r in con.execute("SELECT id FROM messages ORDER BY id")]
        given = con.execute("SELECT seq FROM sqlite_sequence WHERE name = 'messages'").fetchone()
        return ids, int(given[0]) if given else 0
    finally:
        con.close()


class WriteLock:
    """Holds state.db's write lock (BEGIN IMMEDIATE) until the block ends: the program's next write waits."""

    def __init__(self, home: Path) -> None:
        self._con = sqlite3.connect(home / "state.db", isolation_level=None)

    def __enter__(self) -> WriteLock:
        self._con.execute("BEGIN IMMEDIATE")
        return self

    def __exit__(self, *exc: object) -> None:
        self._con.execute("ROLLBACK")
        self._con.close()


SYS_CLOCK_NANOSLEEP = 230  # x86-64; SQLite's busy handler sleeps with usleep(): CLOCK_REALTIME (0)


def waits_for_the_database(pid: int) -> bool:
    """Whether a thread of `pid` sleeps in SQLite's busy handler (waiting for a `WriteLock`).

    Python's own sleeps use CLOCK_MONOTONIC, so a clock_nanosleep on CLOCK_REALTIME is SQLite's.
    """
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            call = (task / "syscall").read_text().split()
        except OSError:
            continue
        if len(call) > 1 and call[0] == str(SYS_CLOCK_NANOSLEEP) and int(call[1], 16) == 0:
            return True
    return False


def signal_delivered(pid: int) -> bool:
    """No signal is pending for `pid` any more (its handler has run)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    pending = [line.split()[1] for line in status.splitlines() if line.startswith(("SigPnd:", "ShdPnd:"))]
    return all(int(mask, 16) == 0 for mask in pending)


class PtyTerminal:
    """A program on a pseudo-terminal of its own, as a terminal emulator runs it.

    The output is read all the time (so the program never waits on a full terminal) and kept.
    The program runs in a session of its own without a controlling terminal, so the signals it
    gets are the ones a test sends, and `close()` — the terminal going away — sends none: its
    writes just start failing with EIO.
    """

    def __init__(self, argv: list[str], *, cwd: Path, env: dict[str, str], size: tuple[int, int] = (120, 40)) -> None:
        self._master, terminal = pty.openpty()
        columns, rows = size
        fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self._output = bytearray()
        self.process = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=terminal, stdout=terminal, stderr=terminal, start_new_session=True
        )
        os.close(terminal)
        self._closed = False
        self._reader = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self._master, 65536)
            except OSError:
                return
            if not data:
                return
            self._output.extend(data)

    def shows(self, text: str) -> bool:
        """Whether `text` was written to the terminal (as one run of characters) so far."""
        return text.encode() in self._output

    def type(self, text: str) -> None:
        os.write(self._master, text.encode())

    def close(self) -> None:
        """The terminal goes away (its window closed)."""
        if not self._closed:
            self._closed = True
            os.close(self._master)

    def stop(self) -> None:
        """End the program (if it is still there) and the terminal: the test's clean-up."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.close()
