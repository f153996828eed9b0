"""ConversationView: streaming into Markdown, batched flushes, interrupts, tool cards, windowing."""

from __future__ import annotations

import sys
import time
from typing import Any

import pytest
from textual.widgets import Collapsible, Markdown

import hermes_tui.widgets.conversation as conversation_module
from hermes_tui.widgets.conversation import ConversationView
from hermes_tui.widgets.tool_card import ToolCard
from hermes_tui.widgets.transcript_rows import (
    AssistantMessage,
    CompactionSummary,
    NoticeRow,
    UserMessage,
)

from .helpers import HostApp, screen_text, wait_until
from .sample_data import sample_history, tool_call


def host(**options: Any) -> HostApp:
    return HostApp(lambda: [ConversationView(id="conversation", **options)])


def long_history(count: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    turn = 0
    while len(messages) < count:
        messages.append({"role": "user", "content": f"question {turn}"})
        messages.append({"role": "assistant", "content": f"answer {turn}"})
        turn += 1
    return messages[:count]


def answer_rows(view: ConversationView) -> list[AssistantMessage]:
    return list(view.query(AssistantMessage))


async def test_streamed_deltas_end_up_in_the_markdown_source() -> None:
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        view.add_user("hello")
        view.begin_assistant()
        for delta in ("Hello ", "**world**", ", this is ", "streamed."):
            view.append_text(delta)
        row = answer_rows(view)[0]
        await wait_until(pilot, lambda: row.shown_source == "Hello **world**, this is streamed.")
        assert row.has_class("-streaming")
        await view.end_assistant()
        await pilot.pause()
        assert row.shown_source == "Hello **world**, this is streamed."
        assert not row.has_class("-streaming")
        assert "Hello world, this is streamed." in screen_text(app)


async def test_a_thousand_deltas_are_flushed_in_a_few_batched_updates(monkeypatch: pytest.MonkeyPatch) -> None:
    appends: list[str] = []
    original_append = Markdown.append

    def counting_append(self: Markdown, markdown: str) -> Any:
        if self.has_class("assistant-markdown"):
            appends.append(markdown)
        return original_append(self, markdown)

    monkeypatch.setattr(Markdown, "append", counting_append)
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        view.begin_assistant()
        await pilot.pause()
        started = time.monotonic()
        for index in range(1000):
            view.append_text(f"w{index} ")
            if index % 50 == 49:
                await pilot.pause()  # let the app run between bursts, as a real stream would
        await view.end_assistant()
        elapsed = time.monotonic() - started
        expected = "".join(f"w{index} " for index in range(1000))
        row = answer_rows(view)[0]
        assert row.shown_source == expected
        assert 1 <= view.flush_count <= 20  # at most one flush per burst, never one per delta
        assert len(appends) <= view.flush_count + 1
        # flushes are spaced by the flush interval (at most ~30 per second)
        assert view.flush_count <= elapsed / view.flush_interval + 2
        assert "".join(appends) == expected[: len("".join(appends))]


async def test_an_interrupted_answer_stays_with_a_visible_marker() -> None:
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        view.begin_assistant()
        view.append_text("The first half of an answer")
        await view.end_assistant(interrupted=True)
        await pilot.pause()
        row = answer_rows(view)[0]
        assert row.shown_source == "The first half of an answer"
        assert row.has_class("-interrupted")
        text = screen_text(app)
        assert "The first half of an answer" in text
        assert "interrupted" in text


async def test_a_finished_answer_without_text_leaves_no_empty_row() -> None:
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        view.add_user("list the files")
        view.begin_assistant()
        await view.end_assistant()
        view.add_tool_call("call_1", "search_files", '{"pattern": "*.py"}')
        await pilot.pause()
        assert answer_rows(view) == []
        assert [item.kind for item in view.items] == ["user", "tool"]


async def test_reasoning_is_shown_collapsed_above_the_answer() -> None:
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        view.begin_assistant()
        view.append_reasoning("The user wants a short answer. ")
        view.append_reasoning("Keep it brief.")
        view.append_text("Short answer.")
        row = answer_rows(view)[0]
        await wait_until(pilot, lambda: bool(row.query(Collapsible)) and row.shown_source == "Short answer.")
        reasoning = row.query_one(Collapsible)
        assert reasoning.collapsed
        assert reasoning.title.startswith("Thinking…")
        await view.end_assistant()
        assert reasoning.title == "Reasoning (9 words)"
        assert "The user wants a short answer. Keep it brief." in str(reasoning.query_one(".reasoning-body").render())


async def test_tool_calls_show_as_running_then_finished_cards() -> None:
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        view.add_tool_call("call_1", "read_file", '{"path": "README.md"}')
        await pilot.pause()
        card = view.tool_card("call_1")
        assert card is not None
        assert "running" in card.header_text().plain
        view.finish_tool_call("call_1", "# hermes-tui", False, 0.012)
        await pilot.pause()
        assert "⚙ read_file  README.md  ✓ 0.01s" in card.header_text().plain


async def test_a_result_for_an_unknown_call_still_gets_a_card() -> None:
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        view.finish_tool_call("ghost", "Error: boom", True, 1.5)
        await pilot.pause()
        card = view.tool_card("ghost")
        assert card is not None
        assert "✗ 1.50s" in card.header_text().plain


async def test_notices_mark_compression_and_rotation_in_the_transcript() -> None:
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        view.add_notice("compression", "context compressed: 40 → 12 messages")
        view.add_notice("rotation", "continuing in session 2c1332")
        await pilot.pause()
        notices = list(view.query(NoticeRow))
        assert [n.has_class("-compression") for n in notices] == [True, False]
        text = screen_text(app)
        assert "🗜 context compressed: 40 → 12 messages" in text
        assert "↻ continuing in session 2c1332" in text


async def test_history_pairs_tool_results_with_their_cards() -> None:
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        await view.load_history(sample_history())
        await pilot.pause()
        kinds = [type(row).__name__ for row in view.mounted_rows]
        assert kinds == ["UserMessage", "AssistantMessage", "ToolCard", "AssistantMessage"]
        card = view.tool_card("call_1")
        assert card is not None and card.item.result is not None
        assert "✓" in card.header_text().plain
        card.expanded = True
        await pilot.pause()
        assert "Run `make run`." in card.body_text().plain


async def test_history_shows_summaries_errors_and_unanswered_calls() -> None:
    history = [
        {"role": "user", "content": "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted.\n## Goal"},
        {"role": "user", "content": [{"type": "text", "text": "look at this"}, {"type": "image_url", "image_url": {}}]},
        {"role": "assistant", "content": None, "tool_calls": [tool_call("a", "terminal", {"command": "ls"})]},
        {"role": "tool", "tool_call_id": "a", "content": "Error executing tool: boom"},
        {"role": "assistant", "content": "", "tool_calls": [tool_call("b", "read_file", {"path": "x"})]},
        "not a message",
        {"role": "session_meta", "content": "ignored"},
        {"role": "assistant", "tool_calls": [{"broken": True}]},
    ]
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        await view.load_history(history)
        await pilot.pause()
        rows = view.mounted_rows
        assert isinstance(rows[0], CompactionSummary) and rows[0].collapsed
        assert isinstance(rows[1], UserMessage)
        assert "look at this\n[image]" in str(rows[1].render())
        error_card, open_card, broken_card = (row for row in rows if isinstance(row, ToolCard))
        assert error_card.has_class("-error") and "✗" in error_card.header_text().plain
        assert "no result" in open_card.header_text().plain
        assert "no result" in broken_card.header_text().plain


async def test_ten_thousand_messages_mount_only_a_bounded_window() -> None:
    app = host(history_window=12)  # 12 one-line rows fill the 80x24 view: nothing grows after them
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        await view.load_history(long_history(10_000))
        await pilot.pause()
        assert len(view.items) == 10_000
        assert len(view.mounted_rows) == view.history_window
        assert view.earlier_count == 10_000 - view.history_window
        boundary = view.boundary
        assert boundary.display and not view.later_boundary.display
        assert f"{view.earlier_count} earlier messages — press ↑ at top / click to load more" in str(boundary.render())
        last = view.mounted_rows[-1]
        assert isinstance(last, AssistantMessage) and last.item.text == "answer 4999"


async def test_up_at_the_top_and_a_click_on_the_boundary_load_earlier_pages() -> None:
    app = host(history_window=10, page_size=10)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        await view.load_history(long_history(100))
        await pilot.pause()
        first_before = view.mounted_rows[0]
        view.focus()
        view.scroll_home(animate=False)
        await pilot.pause()
        await pilot.press("up")
        await wait_until(pilot, lambda: view.earlier_count == 80, what="a page loaded by ↑")
        assert len(view.mounted_rows) == 20
        assert view.mounted_rows[10] is first_before  # the new page sits above what was shown
        view.scroll_home(animate=False)
        await pilot.pause()
        await pilot.click(".window-boundary.-earlier")
        await wait_until(pilot, lambda: view.earlier_count == 70, what="a page loaded by a click")
        assert "70 earlier messages" in str(view.boundary.render())


async def test_a_growing_live_conversation_keeps_the_window_bounded() -> None:
    app = host(window_size=12)
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        for index in range(40):
            view.add_user(f"message {index}")
            if index % 10 == 9:
                await pilot.pause()
        await pilot.pause()
        assert len(view.mounted_rows) <= 12
        assert len(view.items) == 40
        assert view.earlier_count == 40 - len(view.mounted_rows)
        assert str(view.mounted_rows[-1].render()) == "message 39"


async def test_clear_empties_the_transcript() -> None:
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        await view.load_history(sample_history())
        view.begin_assistant()
        view.append_text("partial")
        await view.clear()
        await pilot.pause()
        assert view.items == [] and view.mounted_rows == []
        assert not view.is_streaming
        assert not view.boundary.display and not view.later_boundary.display


async def test_paging_far_back_keeps_the_window_bounded_and_end_returns_to_the_latest() -> None:
    app = host(window_size=20, history_window=10, page_size=10)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        await view.load_history(long_history(100))
        for expected_first in (80, 70, 60, 50):
            await view.load_earlier()
            await pilot.pause()
            assert view.earlier_count == expected_first
            assert len(view.mounted_rows) <= 20
        assert view.later_count == 100 - 70  # the window is rows 50..69
        assert "30 later messages" in str(view.later_boundary.render())
        assert str(view.mounted_rows[0].render()) == "question 25"
        view.focus()
        view.scroll_end(animate=False)
        await pilot.pause()
        await pilot.press("down")
        await wait_until(pilot, lambda: view.later_count == 20, what="a later page loaded by ↓")
        assert len(view.mounted_rows) <= 20
        await pilot.press("end")
        await wait_until(pilot, lambda: view.at_latest, what="the latest messages after End")
        assert view.mounted_rows[-1].item.text == "answer 49"  # type: ignore[attr-defined]
        assert not view.later_boundary.display


async def test_new_items_while_browsing_back_wait_below_and_a_new_prompt_jumps_to_them() -> None:
    app = host(window_size=20, history_window=10, page_size=15)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        await view.load_history(long_history(40))
        await view.load_earlier()
        await view.load_earlier()
        await pilot.pause()
        assert not view.at_latest
        view.add_notice("info", "background review finished")
        view.begin_assistant()
        view.append_text("streamed while you were reading")
        await view.end_assistant()
        await pilot.pause()
        assert view.later_count >= 2
        assert "streamed while you were reading" not in screen_text(app)
        view.add_user("next question")
        await wait_until(pilot, lambda: view.at_latest and len(view.mounted_rows) == view.history_window)
        texts = [row.item.text for row in view.mounted_rows]  # type: ignore[attr-defined]
        assert texts[-3:] == ["background review finished", "streamed while you were reading", "next question"]


async def test_an_answer_streaming_while_the_user_pages_back_is_complete_on_return() -> None:
    app = host(window_size=12, history_window=6, page_size=6)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        await view.load_history(long_history(60))
        view.begin_assistant()
        view.append_text("first part, ")
        await wait_until(pilot, lambda: view.flush_count >= 1, what="a first flush")
        await view.load_earlier()
        await view.load_earlier()  # the window now ends above the streaming answer
        await pilot.pause()
        assert not view.at_latest
        view.append_text("second part.")
        await pilot.pause()
        await view.end_assistant()
        await view.jump_to_latest()
        await pilot.pause()
        last = view.mounted_rows[-1]
        assert isinstance(last, AssistantMessage)
        assert last.shown_source == "first part, second part."


async def test_a_tall_view_loads_earlier_pages_until_it_is_full() -> None:
    app = host(history_window=5, page_size=5)
    async with app.run_test(size=(80, 60)) as pilot:
        view = app.query_one(ConversationView)
        await view.load_history(long_history(200))
        await wait_until(
            pilot,
            lambda: view._rows_height() >= view.scrollable_content_region.height,
            what="rows filling the view",
        )
        assert 5 < len(view.mounted_rows) <= view.window_size
        assert view.earlier_count == 200 - len(view.mounted_rows)
        assert view.mounted_rows[-1].item.text == "answer 99"  # type: ignore[attr-defined]


async def test_items_arriving_while_the_user_reads_up_a_full_window_wait_below_it() -> None:
    app = host(window_size=12, history_window=12)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        await view.load_history(long_history(12))
        await pilot.pause()
        view.scroll_home(animate=False)  # the user scrolls up to read
        await pilot.pause()
        for index in range(30):
            view.add_notice("info", f"tool step {index}")
        await pilot.pause()
        assert len(view.mounted_rows) == 12
        assert view.later_count == 30
        assert "30 later messages" in str(view.later_boundary.render())
        await view.jump_to_latest()
        await pilot.pause()
        assert view.mounted_rows[-1].item.text == "tool step 29"  # type: ignore[attr-defined]


async def test_history_replaced_twice_in_a_row_shows_only_the_second() -> None:
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        first = view.load_history(long_history(50))
        second = view.load_history(sample_history())
        await first
        await second
        await pilot.pause()
        kinds = [type(row).__name__ for row in view.mounted_rows]
        assert kinds == ["UserMessage", "AssistantMessage", "ToolCard", "AssistantMessage"]
        assert len(view.items) == 4


async def test_a_rebuilt_window_mounts_the_newest_rows_first_and_ends_complete_and_in_order() -> None:
    app = host(history_window=12)  # one-line rows that fill the view: the rebuild alone mounts
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        history = long_history(50)
        loading = view.load_history(history)
        await wait_until(pilot, lambda: len(view.mounted_rows) > 0)
        first = [row.item.text for row in view.mounted_rows]  # type: ignore[attr-defined]
        assert first == [message["content"] for message in history[-len(first) :]]  # the bottom of the view
        view.add_user("typed while the rows were mounting")
        await loading
        await wait_until(pilot, lambda: view.mounted_rows[-1].item.text.startswith("typed"))  # type: ignore[attr-defined]
        texts = [row.item.text for row in view.mounted_rows]  # type: ignore[attr-defined]
        assert texts[:-1] == [message["content"] for message in history[-view.history_window :]]
        assert texts[-1] == "typed while the rows were mounting"


async def test_a_history_converted_in_a_thread_is_awaited_by_history_loaded() -> None:
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        view.load_history(long_history(1_200), in_thread=True)
        await view.history_loaded()
        await pilot.pause()
        assert len(view.items) == 1_200
        assert view.mounted_rows[-1].item.text == "answer 599"  # type: ignore[attr-defined]


async def test_after_a_keypress_a_rebuilding_window_waits_a_frame_before_its_next_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = host(history_window=12)  # one-line rows that fill the view: the rebuild alone mounts
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        waits = 0
        wait_for_frame = view.call_after_refresh

        def counting(callback: Any, *args: Any) -> bool:
            nonlocal waits
            waits += 1
            return wait_for_frame(callback, *args)

        monkeypatch.setattr(view, "call_after_refresh", counting)
        await view._next_frame()
        assert waits == 1
        waits = 0
        view.note_keypress()  # the frame that shows the key comes first, with no rows to lay out
        await view._next_frame()
        assert waits == 2
        waits = 0
        view.note_keypress()  # and another key while the extra frame is drawn: still one extra frame
        wait_for_frame(lambda: wait_for_frame(view.note_keypress))
        await view._next_frame()
        assert waits == 2
        monkeypatch.undo()

        history = long_history(60)
        loading = view.load_history(history)
        typing = app.set_interval(0.001, view.note_keypress)  # keys all along: the rows still all arrive
        await loading
        typing.stop()
        await pilot.pause()
        texts = [row.item.text for row in view.mounted_rows]  # type: ignore[attr-defined]
        assert texts == [message["content"] for message in history[-view.history_window :]]


async def test_a_history_loads_into_an_empty_view_as_it_mounts_and_replaces_shown_rows_in_one_update(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        held: list[bool] = []  # one entry per batched update the view asked for (Markdown asks too)
        batch_update = app.batch_update

        def recording() -> Any:
            if sys._getframe(1).f_code.co_filename == conversation_module.__file__:
                held.append(True)
            return batch_update()

        monkeypatch.setattr(app, "batch_update", recording)
        await view.load_history(long_history(40))  # nothing on screen yet: keys typed meanwhile are drawn
        await pilot.pause()
        assert held == []
        await view.load_history(long_history(30))  # rows on screen: swapped in one update, no empty frame
        await pilot.pause()
        assert held == [True]
        assert view.mounted_rows[-1].item.text == long_history(30)[-1]["content"]  # type: ignore[attr-defined]
