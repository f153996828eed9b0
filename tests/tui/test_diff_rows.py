"""Diffs as rows and on screen: roles per line, file content made safe, counts without splitting, the cut
an expanded card makes, the Review log's per-turn line, a size line for binary and huge files, and
DiffView drawing a 5,000-line diff row by row."""

from __future__ import annotations

import pytest

from hermes_tui.core.tools.file_diff import HUGE_LINES, file_change
from hermes_tui.widgets.diff_rows import (
    ROLE_ADDED,
    ROLE_CONTEXT,
    ROLE_FILE,
    ROLE_HUNK,
    ROLE_MARKER,
    ROLE_NOTE,
    ROLE_REMOVED,
    diff_rows,
    limited_diff_text,
    row_count,
    rows_limited,
    turn_files_line,
)
from hermes_tui.widgets.diff_view import DiffView
from hermes_tui.widgets.tool_card import DIFF_MAX_ROWS, ToolCard
from hermes_tui.widgets.transcript import TOOL_OK, TranscriptItem

from .helpers import HostApp, screen_text, wait_until

EDIT = file_change("app.py", b"a\nb\nc", b"a\nB\nc\n")
NEW = file_change("new.txt", None, b"one\ntwo\n")
GONE = file_change("old.txt", b"bye\n", None)
SAME = file_change("same.txt", b"x\n", b"x\n")
BINARY = file_change("logo.png", b"\x89PNG\0\0", b"\x89PNG\0\0\0")


def test_each_line_has_its_role_and_the_file_headers_give_way_to_a_title() -> None:
    rows = list(diff_rows([EDIT]))
    assert [(row.role, row.text) for row in rows] == [
        (ROLE_FILE, "app.py +2 −2"),
        (ROLE_HUNK, "@@ -1,3 +1,3 @@"),
        (ROLE_CONTEXT, " a"),
        (ROLE_REMOVED, "-b"),
        (ROLE_REMOVED, "-c"),
        (ROLE_MARKER, "\\ No newline at end of file"),
        (ROLE_ADDED, "+B"),
        (ROLE_ADDED, "+c"),
    ]


@pytest.mark.parametrize("changes", [[EDIT], [NEW, GONE], [SAME], [BINARY], [EDIT, BINARY, NEW, SAME]])
def test_row_count_matches_the_rows_without_building_them(changes: list) -> None:
    assert row_count(changes) == len(list(diff_rows(changes)))


def test_file_content_never_reaches_the_terminal_raw() -> None:
    hostile = file_change("evil\x1b]0;owned\x07.txt", None, b"\x1b[2J\x1b[31mred\tcell\r\n")
    rows = list(diff_rows([hostile]))
    assert all("\x1b" not in row.text and "\r" not in row.text and "\t" not in row.text for row in rows)
    assert rows[0].text.startswith("evil\\x1b]0;owned") and "\\x1b[2J" in rows[2].text


def test_binary_and_huge_files_get_a_size_line_and_unchanged_ones_say_so() -> None:
    huge = file_change("big.log", None, b"line\n" * (HUGE_LINES + 1))
    assert [row.text for row in diff_rows([BINARY])] == [
        "logo.png (binary file, 6 → 7 bytes)",
        "binary file, 6 → 7 bytes",
    ]
    assert [row.role for row in diff_rows([huge])] == [ROLE_FILE, ROLE_NOTE]
    assert "large file, nothing → 25,005 bytes" in list(diff_rows([huge]))[1].text
    assert [row.text for row in diff_rows([SAME])][1] == "no lines changed"


def test_a_long_diff_is_cut_and_says_how_much_was_left_out() -> None:
    long = file_change("long.txt", None, b"".join(b"line %d\n" % n for n in range(500)))
    rows, hidden = rows_limited([long], 50)
    assert len(rows) == 50 and hidden == row_count([long]) - 50 == 502 - 50
    assert limited_diff_text([long], 50).endswith("… 452 more rows not shown")


def test_the_review_log_line_names_a_few_files_and_counts_the_rest() -> None:
    assert turn_files_line((("a.py", 4, 1),)) == "1 file: a.py +4 −1"
    files = tuple((f"f{n}.py", n, 0) for n in range(6))
    assert turn_files_line(files) == "6 files: f0.py +0 −0, f1.py +1 −0, f2.py +2 −0, f3.py +3 −0, … and 2 more"


async def test_an_expanded_card_draws_a_bounded_diff_and_a_binary_file_as_its_size_line() -> None:
    long = file_change("long.txt", None, b"".join(b"line %d\n" % n for n in range(2_000)))
    item = TranscriptItem(kind="tool", call_id="c1", name="patch", result="{}", tool_status=TOOL_OK)
    app = HostApp(lambda: [ToolCard(item)])
    async with app.run_test(size=(90, 300)) as pilot:
        card = app.query_one(ToolCard)
        card.finish("{}", False, 0.1, (long, BINARY))
        card.expanded = True
        await wait_until(pilot, lambda: card.size.height > 10, what="the expanded card")
        assert card.size.height < DIFF_MAX_ROWS + 20  # 2,000 lines of diff, about a hundred rows drawn
        text = screen_text(app)
        assert "+line 0" in text and "+line 1999" not in text
        assert f"… {row_count([long, BINARY]) - DIFF_MAX_ROWS:,} more diff rows not shown — a: the whole diff" in text
        card.expanded = False
        await pilot.pause()
        assert "logo.png (binary file, 6 → 7 bytes)" in screen_text(app)  # collapsed: one line per file


async def test_diff_view_scrolls_a_five_thousand_line_diff_row_by_row() -> None:
    big = file_change("big.txt", None, b"".join(b"row %d\n" % n for n in range(HUGE_LINES)))
    rows = list(diff_rows([big]))
    app = HostApp(lambda: [DiffView(rows)])
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one(DiffView)
        view.focus()
        await pilot.pause()
        assert "+row 0" in screen_text(app) and view.virtual_size.height == len(rows)
        await pilot.press("end")
        await wait_until(pilot, lambda: "+row 4999" in screen_text(app), what="the last row")
