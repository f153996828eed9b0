"""The new Hermes commands headless (`hermes-tui run "/…"`, real processes, the demo model)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from hermes_tui import __version__
from tests.test_cli import run_cli


def test_version_copy_and_background_headless(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    (tmp_path / "README.md").write_text("# Widget\n\nA widget that counts things.\n", encoding="utf-8")
    version = run_cli("run", "/version", "--home", home, cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith(f"hermes-tui {__version__}\n"), version.stderr

    first = run_cli("run", "read README.md", "--json", "--home", home, cwd=tmp_path)
    answer = json.loads(first.stdout.strip().splitlines()[-1])["final_response"]
    copied = run_cli("run", "-c", "/copy", "--home", home, cwd=tmp_path)
    assert copied.returncode == 0 and copied.stdout.strip() == answer.strip()

    side = run_cli("run", "-c", "/background read README.md", "--home", home, cwd=tmp_path)
    assert side.returncode == 0, side.stderr
    assert "Background #1 started in session" in side.stdout
    report = [line for line in side.stderr.splitlines() if "Background #1" in line]
    assert report and report[0].startswith("✅ Background #1 (") and "done:" in report[0]
    con = sqlite3.connect(Path(home) / "state.db")
    try:
        sources = [row[0] for row in con.execute("SELECT source FROM sessions ORDER BY started_at")]
    finally:
        con.close()
    assert sources == ["cli", "background"]
