"""The diff every file change carries: unified text as git writes it, +/− counts, a size line for binary
or huge files."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from hermes_tui.core.tools.file_diff import HUGE_BYTES, HUGE_LINES, file_change


def test_a_changed_line_is_one_added_and_one_removed_with_three_lines_of_context() -> None:
    before = b"".join(f"line {n}\n".encode() for n in range(1, 11))
    after = before.replace(b"line 5\n", b"line five\n")
    change = file_change("notes.txt", before, after)
    assert (change.added, change.removed, change.kind) == (1, 1, "modified")
    assert change.summary == "notes.txt +1 −1"
    assert change.unified == (
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -2,7 +2,7 @@\n"
        " line 2\n line 3\n line 4\n-line 5\n+line five\n line 6\n line 7\n line 8\n"
    )


def test_the_diff_is_the_one_git_would_write(tmp_path: Path) -> None:
    """Same hunks, ranges and "No newline" markers as `git diff --no-index` (headers aside)."""
    old, new = tmp_path / "old", tmp_path / "new"
    old.write_bytes(b"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n")
    new.write_bytes(b"a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn")
    ours = file_change("f", old.read_bytes(), new.read_bytes()).unified
    git = subprocess.run(
        ["git", "diff", "--no-index", "--no-color", "-U3", str(old), str(new)], capture_output=True, text=True
    ).stdout
    assert ours is not None
    hunks = git[git.index("@@") :].splitlines(keepends=True)
    without_headings = "".join(re.sub(r"^(@@ [^@]+ @@).*", r"\1", line) for line in hunks)  # git's function names
    assert ours.split("\n", 2)[2] == without_headings


def test_a_new_file_and_a_deleted_file_are_diffed_against_nothing() -> None:
    created = file_change("src/new.py", None, b"x = 1\ny = 2\n")
    assert created.kind == "created" and (created.added, created.removed) == (2, 0)
    assert created.unified is not None
    assert created.unified.startswith("--- /dev/null\n+++ b/src/new.py\n@@ -0,0 +1,2 @@")
    assert created.summary == "src/new.py +2 −0 (new)"
    deleted = file_change("old.txt", b"gone\n", None)
    assert deleted.kind == "deleted" and (deleted.added, deleted.removed) == (0, 1)
    assert deleted.unified is not None and "+++ /dev/null" in deleted.unified


def test_only_the_last_newline_changing_is_still_a_change() -> None:
    change = file_change("f", b"end", b"end\n")
    assert (change.added, change.removed) == (1, 1)
    assert change.unified is not None and "\\ No newline at end of file" in change.unified


def test_an_unchanged_file_has_no_diff() -> None:
    change = file_change("f", b"same\n", b"same\n")
    assert (change.added, change.removed, change.unified) == (0, 0, "")


def test_a_binary_file_gets_a_size_line_instead_of_a_diff() -> None:
    change = file_change("logo.png", b"\x89PNG\r\n\x1a\n\0" * 1371 + b"!!", b"\x89PNG\0" * 2480)
    assert change.unified is None
    assert change.note == "binary file, 12,341 → 12,400 bytes"
    assert change.summary == "logo.png (binary file, 12,341 → 12,400 bytes)"


def test_undecodable_bytes_count_as_binary() -> None:
    assert file_change("latin1.txt", b"caf\xe9\n", b"cafe\n").unified is None


def test_a_huge_file_gets_a_size_line() -> None:
    big = b"x" * (HUGE_BYTES + 1)
    assert file_change("dump.sql", big, big + b"y").note == f"large file, {HUGE_BYTES + 1:,} → {HUGE_BYTES + 2:,} bytes"
    many = b"\n".join(b"%d" % n for n in range(HUGE_LINES + 2))
    assert file_change("many.txt", None, many).unified is None


def test_a_carriage_return_does_not_split_a_line() -> None:
    change = file_change("f", b"a\rb\n", b"a\rc\n")
    assert (change.added, change.removed) == (1, 1)
