"""Headless, the same prompt features: /edit says it needs the TUI, @path attaches a file (real processes)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.test_cli import run_cli


def test_edit_needs_the_tui_and_a_mention_attaches_the_file(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    (tmp_path / "README.md").write_text("# Widget\n\nA widget that counts things.\n", encoding="utf-8")
    edit = run_cli("run", "/edit", "--home", home, cwd=tmp_path)
    assert edit.returncode != 0
    assert "/edit opens $VISUAL or $EDITOR on the prompt's draft; it needs the TUI" in edit.stdout + edit.stderr

    sent = run_cli("run", "what does @README.md say?", "--home", home, cwd=tmp_path)
    assert sent.returncode == 0, sent.stderr
    con = sqlite3.connect(Path(home) / "state.db")
    try:
        (content,) = con.execute("SELECT content FROM messages WHERE role = 'user'").fetchone()
    finally:
        con.close()
    assert content == (
        'what does @README.md say?\n\n<file path="README.md">\n# Widget\n\nA widget that counts things.\n</file>'
    )
