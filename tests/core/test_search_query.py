"""The search box's line: words, filters (role, source, dates), prefix matching while typing, marks."""

from __future__ import annotations

from datetime import datetime

import pytest

from hermes_tui.core.search_query import marked_pieces, parse_search
from hermes_tui.store.search_lineages import MARK_END, MARK_START

NOW = datetime(2026, 11, 26, 22, 15)


def test_words_and_filters_are_separated() -> None:
    request = parse_search("role:user,assistant source:cli auth refactor", NOW)
    assert request.words == "auth refactor" and request.query == "auth refactor*"
    assert request.roles == ("user", "assistant") and request.sources == ("cli",)
    assert request.filters == ("role:user,assistant", "source:cli") and request.searchable


def test_the_last_word_is_a_prefix_only_while_typing_and_when_long_enough() -> None:
    assert parse_search("pars", NOW).query == "pars*"
    assert parse_search("pars ", NOW).query == "pars"  # a space ends the word
    assert parse_search("pa", NOW).query == "pa"  # two letters would match half the index
    assert parse_search("pars", NOW, as_you_type=False).query == "pars"
    assert parse_search('"exact phrase"', NOW).query == '"exact phrase"'
    assert parse_search("foo AND", NOW).query == "foo AND"
    assert parse_search("数据库索引", NOW).query == "数据库索引"  # CJK goes to the trigram index as is


@pytest.mark.parametrize(
    ("line", "since", "until"),
    [
        ("since:7d x", datetime(2026, 11, 19, 22, 15), None),
        ("since:12h x", datetime(2026, 11, 26, 10, 15), None),
        ("since:2026-11-20 x", datetime(2026, 11, 20), None),
        ("until:2026-11-20 x", None, datetime(2026, 11, 21)),  # the whole day counts
        ("since:2026-11-20T14:30 x", datetime(2026, 11, 20, 14, 30), None),
        ("since:yesterday until:today x", datetime(2026, 11, 25), datetime(2026, 11, 27)),
    ],
)
def test_dates(line: str, since: datetime | None, until: datetime | None) -> None:
    request = parse_search(line, NOW)
    assert request.error == ""
    assert request.since == (since.timestamp() if since else None)
    assert request.until == (until.timestamp() if until else None)


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("role:robot x", "role: 'robot' is not a role"),
        ("since:soon x", "since: 'soon' is not a date"),
        ("until: x", "until: needs a value"),
        ("since:today until:yesterday x", "since: comes after until"),
    ],
)
def test_bad_filters_say_what_is_wrong(line: str, error: str) -> None:
    request = parse_search(line, NOW)
    assert request.error.startswith(error) and not request.searchable


def test_other_colons_are_searched_as_typed() -> None:
    assert parse_search("http://example a:b", NOW).words == "http://example a:b"


def test_marked_pieces() -> None:
    snippet = f"a {MARK_START}match{MARK_END} b {MARK_END} c{MARK_START}d"
    assert marked_pieces(snippet) == [("a ", False), ("match", True), (" b ", False), (" c", False), ("d", True)]
