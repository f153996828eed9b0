"""Cutting an answer into Markdown segments: nothing lost, cuts only where rendering cannot change."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from hermes_tui.widgets.markdown_segments import SegmentSplitter, split_segments

PARAGRAPH = "A paragraph of prose that goes on for a while, with **bold** and `code` in it.\n\n"


def block_types(source: str) -> list[str]:
    """The top-level blocks a Markdown source renders as (what a reader sees, in order)."""
    tokens = MarkdownIt("gfm-like").parse(source)
    return [token.type for token in tokens if token.level == 0 and token.nesting in (0, 1)]


def feed_in_pieces(text: str, sizes: list[int]) -> SegmentSplitter:
    splitter = SegmentSplitter(target_chars=200, hard_chars=800)
    position = 0
    for size in sizes:
        splitter.feed(text[position : position + size])
        position += size
    splitter.feed(text[position:])
    splitter.finish()
    return splitter


document_parts = st.sampled_from(
    [
        PARAGRAPH,
        "```python\ndef f(x):\n    return x\n\n\nprint(f(1))\n```\n\n",
        "- one\n- two\n\n- three, loose\n\n",
        "1. first\n2. second\n\n",
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n",
        "> quoted\n> text\n\n",
        "## A heading\n\n",
        "    indented code\n\n",
        "x" * 300 + "\n",
        "\n",
        "a long line " * 120 + "\n\n",
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(document_parts, min_size=1, max_size=40), st.lists(st.integers(1, 97), max_size=60))
def test_however_the_text_arrives_no_character_is_lost_or_repeated(parts: list[str], sizes: list[int]) -> None:
    text = "".join(parts)
    splitter = feed_in_pieces(text, sizes)
    assert "".join(segment.text for segment in splitter.segments) == text
    assert all(segment.closed for segment in splitter.segments)
    # a segment never grows much past the hard limit (the line that crossed it at most)
    longest_line = max(len(line) for line in text.splitlines(keepends=True))
    assert all(len(segment.text) <= 800 + longest_line for segment in splitter.segments)


def test_clean_cuts_render_the_same_blocks_as_the_whole_text() -> None:
    text = "".join(
        [
            "# Report\n\n",
            PARAGRAPH * 4,
            "```python\n" + "value = 1\n\n" * 40 + "```\n\n",
            "- item\n\n- another item\n\n" * 10,
            PARAGRAPH * 6,
            "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 20 + "\n",
            PARAGRAPH * 6,
        ]
    )
    segments = SegmentSplitter(target_chars=200, hard_chars=4_000)
    segments.feed(text)
    segments.finish()
    assert len(segments.segments) > 5
    pieces = [block_types(segment.source) for segment in segments.segments]
    assert [kind for piece in pieces for kind in piece] == block_types(text)
    for segment in segments.segments:
        assert not segment.prefix  # no forced cut was needed
        assert segment.source.count("```") % 2 == 0  # a fence is never split


def test_a_loose_list_is_not_cut_between_its_items_until_forced() -> None:
    text = "- item number one\n\n" * 30 + PARAGRAPH * 5
    [first, *rest] = split_segments_small(text)
    assert first.text.startswith("- item") and first.text.count("- item") == 30
    assert rest and rest[0].text.startswith("A paragraph")


def split_segments_small(text: str) -> list:
    splitter = SegmentSplitter(target_chars=100, hard_chars=2_000)
    splitter.feed(text)
    splitter.finish()
    return splitter.segments


def test_a_code_fence_too_long_for_one_segment_is_reopened_in_the_next() -> None:
    code = "".join(f"line_{index} = {index}\n" for index in range(400))
    text = PARAGRAPH + "```python\n" + code + "```\n\n" + PARAGRAPH
    splitter = SegmentSplitter(target_chars=200, hard_chars=1_000)
    splitter.feed(text)
    splitter.finish()
    reopened = [segment for segment in splitter.segments if segment.prefix]
    assert len(reopened) >= 3 and all(segment.prefix == "```python\n" for segment in reopened)
    for segment in reopened:  # each piece of the long fence renders as code, on its own
        assert block_types(segment.source)[0] == "fence"
    assert "".join(segment.text for segment in splitter.segments) == text


def test_one_enormous_line_is_cut_at_spaces() -> None:
    text = "word " * 5_000
    segments = split_segments(text)
    assert len(segments) > 2
    assert all(segment.text.endswith(" ") for segment in segments[:-1])
    assert "".join(segment.text for segment in segments) == text


def test_a_line_that_may_still_become_a_list_item_is_held_back() -> None:
    splitter = SegmentSplitter(target_chars=50, hard_chars=1_000)
    splitter.feed(PARAGRAPH + "1")  # "1" may become "12. item" (no cut) or "1984 was…" (a cut)
    assert splitter.settled_length == len(PARAGRAPH)
    splitter.feed("2. item\n")
    assert len(splitter.segments) == 1  # a list item: no cut before it
    assert splitter.settled_length == len(splitter.segments[0].text)


def test_short_answers_stay_one_segment() -> None:
    text = "Short answer with a list:\n\n- a\n- b\n\n```\ncode\n```\n"
    assert [segment.text for segment in split_segments(text)] == [text]
