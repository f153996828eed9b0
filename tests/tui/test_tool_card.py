"""ToolCard: the one-line summary, error colour, expand/collapse, pretty arguments, cut results."""

from __future__ import annotations

import json
from typing import Any

from hermes_tui.widgets.tool_card import RESULT_MAX_LINES, ToolCard, arguments_summary
from hermes_tui.widgets.transcript import TOOL_ERROR, TOOL_OK, TranscriptItem

from .helpers import HostApp, screen_text, wait_until


def colour_distance(a: Any, b: Any) -> float:
    return sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5


def card_item(result: str | None = None, status: str = TOOL_OK, **fields: object) -> TranscriptItem:
    defaults: dict[str, object] = {"call_id": "c1", "name": "read_file", "arguments": '{"path": "README.md"}'}
    defaults.update(fields)
    return TranscriptItem(kind="tool", result=result, tool_status=status, **defaults)  # type: ignore[arg-type]


async def test_collapsed_card_is_one_line_with_name_argument_mark_and_duration() -> None:
    item = card_item("# hermes-tui", duration_s=0.012)
    app = HostApp(lambda: [ToolCard(item)])
    async with app.run_test() as pilot:
        card = app.query_one(ToolCard)
        await pilot.pause()
        assert card.size.height == 1
        assert "⚙ read_file  README.md  ✓ 0.01s" in screen_text(app)


async def test_a_failed_call_shows_a_cross_in_the_error_colour() -> None:
    item = card_item("Error: no such file", TOOL_ERROR, duration_s=0.5)
    app = HostApp(lambda: [ToolCard(item)])
    async with app.run_test() as pilot:
        card = app.query_one(ToolCard)
        await pilot.pause()
        assert card.has_class("-error")
        header = card.header_text()
        cross_at = header.plain.index("✗")
        cross_style = header.get_style_at_offset(app.console, cross_at)
        assert cross_style.color is not None and cross_style.color.triplet is not None
        colours = app.current_theme.to_color_system()
        assert colour_distance(cross_style.color.triplet, colours.error.rich_color.triplet) < 8
        assert colour_distance(cross_style.color.triplet, colours.success.rich_color.triplet) > 60


async def test_enter_space_and_click_expand_and_collapse_the_card() -> None:
    item = card_item("line one\nline two", duration_s=0.2)
    app = HostApp(lambda: [ToolCard(item)])
    async with app.run_test() as pilot:
        card = app.query_one(ToolCard)
        card.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert card.expanded
        text = screen_text(app)
        assert '"path": "README.md"' in text
        assert "line one" in text and "line two" in text
        assert card.size.height > 4
        await pilot.press("space")
        await pilot.pause()
        assert not card.expanded and card.size.height == 1
        await pilot.click(ToolCard)
        await pilot.pause()
        assert card.expanded


async def test_arguments_are_pretty_json_and_long_results_are_cut_with_a_note() -> None:
    result = "\n".join(f"row {index}" for index in range(100))
    arguments = json.dumps({"path": "big.txt", "limit": 100})
    item = card_item(result, arguments=arguments)
    app = HostApp(lambda: [ToolCard(item)])
    async with app.run_test(size=(80, 60)) as pilot:
        card = app.query_one(ToolCard)
        card.expanded = True
        await pilot.pause()
        body = card.body_text().plain
        assert '{\n  "path": "big.txt",\n  "limit": 100\n}' in body
        assert f"row {RESULT_MAX_LINES - 1}" in body
        assert f"row {RESULT_MAX_LINES}\n" not in body
        assert f"… {100 - RESULT_MAX_LINES} more lines not shown" in body


async def test_command_output_is_shown_as_text_not_escaped_json() -> None:
    result = json.dumps({"output": "total 8\ndrwxr-xr-x  2 me", "exit_code": 0})
    item = card_item(result, name="terminal", arguments='{"command": "ls -l"}')
    app = HostApp(lambda: [ToolCard(item)])
    async with app.run_test() as pilot:
        card = app.query_one(ToolCard)
        card.expanded = True
        await pilot.pause()
        body = card.body_text().plain
        assert "exit_code: 0\ntotal 8\ndrwxr-xr-x  2 me" in body
        assert "⚙ terminal  ls -l  ✓" in card.header_text().plain


async def test_a_running_card_spins_until_it_finishes() -> None:
    item = card_item(None, "running")
    app = HostApp(lambda: [ToolCard(item)])
    async with app.run_test() as pilot:
        card = app.query_one(ToolCard)
        first_frame = card.header_text().plain
        assert "running" in first_frame
        await wait_until(pilot, lambda: card.header_text().plain != first_frame, what="the spinner to turn")
        card.finish("done", False, 2.5)
        await pilot.pause()
        assert "✓ 2.50s" in card.header_text().plain
        assert item.result == "done"


def test_the_summary_prefers_paths_and_commands_and_survives_bad_json() -> None:
    assert arguments_summary('{"limit": 5, "path": "a.py"}') == "a.py"
    assert arguments_summary('{"command": "make   test\\n && echo ok"}') == "make test && echo ok"
    assert arguments_summary('{"todos": [1, 2]}') == ""
    assert arguments_summary("not json at all") == "not json at all"
    assert arguments_summary("") == ""
