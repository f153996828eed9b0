"""patch's search: exact first, then the forgiving ways of finding what the model quoted, and its errors."""

from __future__ import annotations

import pytest

from hermes_tui.core.tools.patch_match import NoMatch, Replaced, find_and_replace

CODE = "def load(path):\n    with open(path) as f:\n        return f.read()\n\n\ndef save(path, text):\n    pass\n"


def replaced(outcome: Replaced | NoMatch) -> Replaced:
    assert isinstance(outcome, Replaced), outcome
    return outcome


def test_exact_text_is_replaced_where_it_stands() -> None:
    outcome = replaced(find_and_replace(CODE, "return f.read()", "return f.read().strip()"))
    assert outcome.strategy == "exact" and outcome.count == 1
    assert "        return f.read().strip()\n" in outcome.content


def test_lines_quoted_with_other_indentation_are_found_and_the_replacement_reindented() -> None:
    old = "with open(path) as f:\n    return f.read()"  # the model dropped one indentation level
    new = "with open(path, encoding='utf-8') as f:\n    return f.read()"
    outcome = replaced(find_and_replace(CODE, old, new))
    assert outcome.strategy != "exact"
    assert "    with open(path, encoding='utf-8') as f:\n        return f.read()\n" in outcome.content


def test_collapsed_runs_of_spaces_and_tabs_still_match() -> None:
    content = "x  =\t1  # one\ny = 2\n"
    outcome = replaced(find_and_replace(content, "x = 1 # one", "x = 10 # ten"))
    assert outcome.strategy == "whitespace_normalized"
    assert outcome.content == "x = 10 # ten\ny = 2\n"


def test_trailing_spaces_on_the_files_lines_do_not_hide_them() -> None:
    content = "a = 1   \nb = 2\t\nc = 3\n"
    outcome = replaced(find_and_replace(content, "a = 1\nb = 2", "a = 1\nb = 20"))
    assert outcome.strategy == "line_trimmed" and outcome.content == "a = 1\nb = 20\nc = 3\n"


def test_typographic_quotes_in_the_file_match_ascii_ones_and_stay_where_the_edit_did_not_reach() -> None:
    content = "print(\u201chello\u201d)  # \u2014 greet\n"
    outcome = replaced(find_and_replace(content, 'print("hello")  # -- greet', 'print("hello, world")  # -- greet'))
    assert outcome.strategy == "unicode_normalized"
    assert outcome.content == "print(\u201chello, world\u201d)  # \u2014 greet\n"


def test_tab_escapes_become_tabs_where_the_file_has_tabs() -> None:
    content = "if x:\n\treturn 1\n"
    outcome = replaced(find_and_replace(content, "if x:\\n\\treturn 1", "if x:\\n\\treturn 2"))
    assert outcome.content == "if x:\n\treturn 2\n"


def test_not_found_lists_the_closest_lines_with_numbers() -> None:
    outcome = find_and_replace(CODE, "def save(path, data):\n    pass", "x")
    assert isinstance(outcome, NoMatch)
    assert outcome.error.startswith(
        "Could not find a match for old_string in the file\n\nDid you mean one of these sections?\n"
    )
    assert "   6| def save(path, text):" in outcome.error


def test_a_merely_similar_single_line_is_not_replaced() -> None:
    outcome = find_and_replace(CODE, "def lode(path):", "def read(path):")
    assert isinstance(outcome, NoMatch) and outcome.error.startswith("Could not find a match")


def test_more_than_one_match_is_refused_with_the_count() -> None:
    outcome = find_and_replace(CODE, "path", "p")
    assert isinstance(outcome, NoMatch)
    assert outcome.error == (
        "Found 3 matches for old_string. Provide more context to make it unique, or use replace_all=True."
    )


def test_replace_all_replaces_every_occurrence() -> None:
    outcome = replaced(find_and_replace(CODE, "path", "p", replace_all=True))
    assert outcome.count == 3 and "path" not in outcome.content


def test_overlapping_occurrences_are_counted_as_str_replace_counts_them() -> None:
    outcome = replaced(find_and_replace("aaaa", "aa", "b", replace_all=True))
    assert outcome.count == 2 and outcome.content == "bb"


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [("", "x", "old_string cannot be empty"), ("same", "same", "old_string and new_string are identical")],
)
def test_pointless_edits_are_refused(old: str, new: str, error: str) -> None:
    assert find_and_replace("same text", old, new) == NoMatch(error)


def test_a_backslash_the_file_does_not_have_before_a_quote_is_refused_after_a_loose_match() -> None:
    content = "def greet():\n    msg = 'it is'\n    return msg\n"
    old = "def greet():\n    msg = \\'it is\\'\n    return msg"
    outcome = find_and_replace(content, old, old.replace("is", "was"))
    assert isinstance(outcome, NoMatch) and "escape drift" in outcome.error
