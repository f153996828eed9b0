"""The prompt history file: Hermes's `.hermes_history` format, read by prompt_toolkit's own FileHistory."""

from __future__ import annotations

import os
import stat
from datetime import datetime
from pathlib import Path

from prompt_toolkit.history import FileHistory

from hermes_tui.core.prompt_history import MAX_FILE_BYTES, append_history, history_path, load_history


def test_what_we_append_is_what_hermes_reads_back(tmp_path: Path) -> None:
    path = history_path(tmp_path)
    assert append_history(path, "first prompt") is None
    assert append_history(path, "a traceback:\n  File x.py\nValueError: boom") is None
    # prompt_toolkit lists the newest first
    assert list(FileHistory(str(path)).load_history_strings()) == [
        "a traceback:\n  File x.py\nValueError: boom",
        "first prompt",
    ]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_history(path).entries == ("first prompt", "a traceback:\n  File x.py\nValueError: boom")


def test_what_hermes_wrote_is_read_oldest_first_and_bounded(tmp_path: Path) -> None:
    path = tmp_path / ".hermes_history"
    hermes = FileHistory(str(path))
    for number in range(12):
        hermes.store_string(f"prompt {number}\nline two of {number}")
    loaded = load_history(path, limit=10)
    assert loaded.problem is None
    assert loaded.entries[0] == "prompt 2\nline two of 2" and loaded.entries[-1] == "prompt 11\nline two of 11"
    assert len(loaded.entries) == 10


def test_secrets_are_masked_in_the_file_and_a_loose_file_is_tightened(tmp_path: Path) -> None:
    path = history_path(tmp_path)
    path.write_text("\n# 2026-01-01 10:00:00\n+old\n", encoding="utf-8")
    path.chmod(0o644)
    append_history(path, "use OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz123456", when=datetime(2026, 12, 1))
    text = path.read_text(encoding="utf-8")
    assert "sk-proj-abcdefghijklmnopqrstuvwxyz123456" not in text and "+use OPENAI_API_KEY=" in text
    assert "# 2026-12-01 00:00:00" in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_fifo_a_binary_file_and_a_huge_file_are_passed_over_in_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    loaded = load_history(fifo)  # returns at once: the FIFO is never opened
    assert loaded.entries == () and loaded.problem is not None and "FIFO" in loaded.problem
    assert "\n" not in loaded.problem
    assert append_history(fifo, "hello") is not None  # nor is it written (no reader: no wait either)

    binary = tmp_path / "binary"
    binary.write_bytes(b"+ok\n\x00\x01\x02")
    assert "binary" in (load_history(binary).problem or "")

    huge = tmp_path / "huge"
    with huge.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    problem = load_history(huge).problem or ""
    assert "larger than 8 MB" in problem and load_history(huge).entries == ()

    assert load_history(tmp_path / "missing") == load_history(tmp_path / "missing2")  # quietly empty
    assert load_history(tmp_path / "missing").problem is None
