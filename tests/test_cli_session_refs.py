"""The ids we show resolve everywhere a session is named: `--resume`, `-c`, `export`, `replay`, /resume
(real processes on a real home; the demo model answers)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from hermes_tui.widgets.formatting import short_session_id
from tests.test_cli import run_cli


def _session_ids(home: Path) -> list[str]:
    con = sqlite3.connect(home / "state.db")
    try:
        return [row[0] for row in con.execute("SELECT id FROM sessions ORDER BY started_at")]
    finally:
        con.close()


def _first_session(tmp_path: Path) -> tuple[Path, str]:
    home = tmp_path / "home"
    result = run_cli("run", "hello there", "--json", "--home", str(home), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return home, json.loads(result.stdout.strip().splitlines()[-1])["session_id"]


def test_the_shown_tail_resumes_continues_exports_and_replays(tmp_path: Path) -> None:
    home, session = _first_session(tmp_path)
    tail = short_session_id(session)

    resumed = run_cli("run", "again", "--json", "--resume", tail, "--home", str(home), cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout.strip().splitlines()[-1])["session_id"] == session

    continued = run_cli("run", "once more", "--json", "-c", tail, "--home", str(home), cwd=tmp_path)
    assert continued.returncode == 0, continued.stderr
    assert json.loads(continued.stdout.strip().splitlines()[-1])["session_id"] == session

    inside = run_cli("run", f"/resume {tail}", "--home", str(home), cwd=tmp_path)
    assert inside.returncode == 0 and f"Resumed session {session}" in inside.stdout, inside.stderr

    exported = run_cli("export", tail, "--format", "json", "--home", str(home), cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["sessions"][0]["id"] == session

    replayed = run_cli("replay", tail, "--provider", "demo", "--json", "--home", str(home), cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["session_id"] == session
    assert _session_ids(home) == [session]  # nothing above made another session


def test_an_unknown_reference_is_one_line_exit_2_and_makes_no_session(tmp_path: Path) -> None:
    home, session = _first_session(tmp_path)
    for args in (["run", "hi", "--resume", "ffffff"], ["run", "-c", "nothing like it", "hi"], ["export", "ffffff"]):
        result = run_cli(*args, "--home", str(home), cwd=tmp_path)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        lines = [line for line in result.stderr.splitlines() if not line.startswith("[demo]")]
        assert len(lines) == 1 and "no session matches" in lines[0], lines
    assert _session_ids(home) == [session]
