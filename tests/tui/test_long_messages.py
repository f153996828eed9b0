"""Huge messages: the start and end of a long answer on screen, a "show all" bar, the full-text viewer
(opened by the main screen, so those tests host the conversation on it)."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.widgets import Markdown

from hermes_tui.screens.full_text import FullTextScreen
from hermes_tui.screens.main import STYLES_PATH, MainScreen
from hermes_tui.widgets.answer_body import HEAD_CHARS, TAIL_CHARS
from hermes_tui.widgets.conversation import ConversationView
from hermes_tui.widgets.full_text_view import FullTextView, wrap_rows
from hermes_tui.widgets.hidden_text import HiddenTextBar
from hermes_tui.widgets.transcript import PLAIN_PREVIEW_CHARS
from hermes_tui.widgets.transcript_rows import AssistantMessage, UserMessage

from .helpers import HostApp, screen_text, wait_until

# The most text a long answer may keep on screen: head and tail budgets, each overshot by at most
# one segment (a clean cut comes within a few thousand characters).
SHOWN_AT_MOST = HEAD_CHARS + TAIL_CHARS + 2 * 8_000


def host() -> HostApp:
    return HostApp(lambda: [ConversationView(id="conversation")])


class MainHost(App[None]):
    """The conversation where it lives, on the main screen (which opens the full-text viewer)."""

    CSS_PATH = STYLES_PATH

    def get_default_screen(self) -> MainScreen:
        return MainScreen()

    @property
    def conversation(self) -> ConversationView:
        main = self.screen_stack[0]
        assert isinstance(main, MainScreen)
        return main.conversation


def long_answer(size: int) -> str:
    parts: list[str] = []
    index = 0
    while sum(map(len, parts)) < size:
        if index % 5 == 2:
            parts.append("```python\n" + "".join(f"value_{index}_{k} = {k}\n" for k in range(6)) + "```\n\n")
        else:
            parts.append(f"Paragraph {index}: the answer goes on and on about the subject. " * 3 + "\n\n")
        index += 1
    return "".join(parts)


def markdown_views(row: AssistantMessage) -> list[Markdown]:
    return list(row.query(".assistant-markdown").results(Markdown))


async def test_a_five_megabyte_answer_shows_its_start_and_end_and_a_show_all_bar() -> None:
    text = long_answer(5_000_000)
    app = host()
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(ConversationView)
        view.begin_assistant()
        view.append_text(text)
        await view.end_assistant()
        row = view.query(AssistantMessage).last()
        bar = row.body.bar
        await wait_until(pilot, lambda: bar.display and bool(markdown_views(row)), what="the bar")
        shown = row.shown_source
        assert text.startswith(shown[: HEAD_CHARS // 2]) and text.endswith(shown[-TAIL_CHARS // 2 :])
        assert len(shown) <= SHOWN_AT_MOST
        assert len(markdown_views(row)) <= 10
        assert row.body.hidden_chars == len(text) - len(shown)
        await wait_until(pilot, lambda: view.max_scroll_y > 0 and view.is_following, what="the answer laid out")
        await pilot.pause()
        view.focus()
        await pilot.press("home")  # the start of the answer (reading up stops following the bottom)
        await wait_until(pilot, lambda: "Paragraph 0:" in screen_text(app), what="the start")
        view.scroll_to_widget(bar, animate=False)  # the bar comes right after it
        await wait_until(pilot, lambda: "not shown here — Enter or click: show all" in screen_text(app), what="bar")
        assert "MB not shown" in str(bar.render())


async def test_enter_on_the_bar_opens_the_whole_answer_and_escape_closes_it() -> None:
    text = long_answer(300_000)
    middle = "Paragraph 1000:"
    assert middle in text
    app = MainHost()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.conversation
        await view.load_history([{"role": "user", "content": "go"}, {"role": "assistant", "content": text}])
        row = view.query(AssistantMessage).last()
        await wait_until(pilot, lambda: row.body.bar.display, what="the bar")
        assert middle not in row.shown_source
        row.body.bar.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, FullTextScreen), what="the viewer")
        viewer = app.screen.query_one(FullTextView)
        await wait_until(pilot, lambda: viewer.ready, what="the rows")
        assert viewer.text == text
        target = next(index for index, row_text in enumerate(viewer.rows) if row_text.startswith(middle))
        viewer.scroll_to(y=target, animate=False)
        await pilot.pause()
        assert middle in screen_text(app)
        await pilot.press("pagedown")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, FullTextScreen), what="the viewer to close")


async def test_a_click_on_the_bar_opens_the_viewer_too() -> None:
    app = MainHost()
    async with app.run_test(size=(100, 30)) as pilot:
        # The conversation at the full width (side panel hidden): at 64 columns the click's mouse-down
        # selects the message, whose cursor border re-wraps it, and the bar moves from under the pointer.
        await pilot.press("ctrl+b")
        view = app.conversation
        await view.load_history([{"role": "assistant", "content": long_answer(100_000)}])
        row = view.query(AssistantMessage).last()
        await wait_until(pilot, lambda: row.body.bar.display, what="the bar")
        await wait_until(pilot, lambda: view.max_scroll_y > 0 and view.is_following, what="the answer laid out")
        await pilot.pause()
        view.focus()
        await pilot.press("home")
        await wait_until(pilot, lambda: "Paragraph 0:" in screen_text(app), what="the start")
        view.scroll_to_widget(row.body.bar, animate=False)
        await wait_until(pilot, lambda: "show all" in screen_text(app), what="the bar on screen")
        await pilot.click(HiddenTextBar, offset=(5, 0))
        await wait_until(pilot, lambda: isinstance(app.screen, FullTextScreen), what="the viewer")


async def test_a_streamed_answer_keeps_a_bounded_number_of_widgets_however_long_it_grows() -> None:
    text = long_answer(400_000)
    app = host()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ConversationView)
        view.begin_assistant()
        row = view.query(AssistantMessage).last()
        most_views = 0
        for start in range(0, len(text), 4_000):
            view.append_text(text[start : start + 4_000])
            await wait_until(pilot, lambda: view.streamed_text() == row.item.text, what="a flush")
            await pilot.pause()
            most_views = max(most_views, len(markdown_views(row)))
            assert len(row.shown_source) <= SHOWN_AT_MOST
        await view.end_assistant()
        await pilot.pause()
        assert most_views <= 12
        assert row.item.text == text
        shown = row.shown_source
        assert text.endswith(shown[-2_000:]) and row.body.hidden_chars > 300_000
        assert row.body.full_text() == text


async def test_a_huge_user_message_shows_its_start_and_opens_whole_on_enter() -> None:
    pasted = "".join(f"log line {index}: something happened\n" for index in range(50_000))
    app = MainHost()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.conversation
        view.add_user(pasted)
        await pilot.pause()
        message = view.query(UserMessage).last()
        shown = str(message.render())
        assert len(shown) < PLAIN_PREVIEW_CHARS + 200
        assert "log line 0:" in shown and "log line 49999" not in shown
        assert "lines" in shown and "show all" in shown
        message.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, FullTextScreen), what="the viewer")
        assert app.screen.query_one(FullTextView).text == pasted


async def test_a_short_user_message_is_not_an_affordance() -> None:
    app = host()
    async with app.run_test() as pilot:
        view = app.query_one(ConversationView)
        view.add_user("hello")
        await pilot.pause()
        message = view.query(UserMessage).last()
        assert not message.truncated and not message.focusable


async def test_a_history_of_huge_answers_mounts_only_what_the_budget_allows() -> None:
    answer = long_answer(1_000_000)
    history: list[dict[str, Any]] = []
    for index in range(11):  # ~11 MB
        history += [{"role": "user", "content": f"question {index}"}, {"role": "assistant", "content": answer}]
    app = host()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ConversationView)
        await view.load_history(history)
        await pilot.pause()
        rows = view.mounted_rows
        assert 1 <= len(rows) <= 6
        assert view.boundary.count == len(history) - len(rows)
        assert sum(len(markdown_views(row)) for row in view.query(AssistantMessage)) <= 30


def test_wrapped_rows_break_at_spaces_keep_wide_characters_whole_and_show_controls() -> None:
    assert wrap_rows("the quick brown fox", 10) == ["the quick", "brown fox"]
    assert wrap_rows("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5]
    assert wrap_rows("漢字" * 6, 5) == ["漢字", "漢字", "漢字", "漢字", "漢字", "漢字"]
    assert wrap_rows("a\tb", 20) == ["a   b"]
    assert wrap_rows("title\x1b]0;pwned\x07 and \x9b2J", 80) == ["title␛]0;pwned␇ and \\x9b2J"]
    assert wrap_rows("one\n\nthree", 20) == ["one", "", "three"]
