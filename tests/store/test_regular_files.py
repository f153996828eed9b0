"""store.regular_files on real special files: FIFOs and devices are refused without blocking, reads are
capped, text reads stand in for Path.read_text."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hermes_tui.store.regular_files import (
    FileTooLargeError,
    NotRegularFileError,
    read_regular_bytes,
    read_regular_head,
    read_regular_text,
    regular_file_problem,
    sqlite_files_problem,
)


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError, match=r"^is a FIFO \(named pipe\), not a regular file$"):
        read_regular_bytes(fifo)  # nothing writes to it: an ordinary open() would block here for ever
    with pytest.raises(OSError):
        read_regular_head(fifo, 16)
    assert regular_file_problem(fifo) == "is a FIFO (named pipe), not a regular file"


def test_a_symlink_to_a_device_is_refused_and_one_to_a_file_is_read(tmp_path: Path) -> None:
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    with pytest.raises(NotRegularFileError, match="character device"):
        read_regular_bytes(zero, limit=10)
    real = tmp_path / "real.toml"
    real.write_bytes(b"x = 1\n")
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    assert read_regular_bytes(link) == b"x = 1\n"


def test_the_size_cap(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"a" * 2048)
    assert read_regular_bytes(path, limit=2048) == b"a" * 2048
    path.write_bytes(b"a" * 2049)
    with pytest.raises(FileTooLargeError, match=r"^larger than 2 KB \(2,049 bytes\)$"):
        read_regular_bytes(path, limit=2048)


def test_text_reads_translate_line_ends_as_path_read_text_does(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_bytes("one\r\ntwo\rthree\n\u00e9".encode())
    assert read_regular_text(path) == path.read_text(encoding="utf-8") == "one\ntwo\nthree\n\u00e9"


def test_sqlite_companions_are_checked(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    db.write_bytes(b"")
    assert sqlite_files_problem(db) is None
    os.mkfifo(tmp_path / "state.db-shm")
    assert sqlite_files_problem(db) == f"{db}-shm: is a FIFO (named pipe), not a regular file"
    assert sqlite_files_problem(tmp_path / "missing.db") is None
