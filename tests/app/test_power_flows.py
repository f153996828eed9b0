"""Power-user flows in the real app (Pilot, real Agent, real state.db): search -> open at a message,
compare, inspect a compression and re-inject, jump to a session from the palette, keymap, theme."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from pathlib import Path

from textual.command import CommandPalette
from textual.widgets import Input, OptionList

from hermes_tui.app import HermesApp
from hermes_tui.config import Settings
from hermes_tui.screens.compare import CompareScreen
from hermes_tui.screens.compression_inspector import CompressionInspectorScreen
from hermes_tui.screens.help import HelpScreen
from hermes_tui.screens.search import MATCH_STYLE, SearchScreen
from hermes_tui.screens.session_picker import SessionPickerScreen
from hermes_tui.ui_state import saved_theme
from hermes_tui.widgets.transcript import KIND_USER
from tests.app.power_data import (
    BRANCH,
    CHILD,
    CJK,
    DEEP,
    DEEP_COUNT,
    HOSTILE,
    OTHER,
    PARENT,
    ROOT,
    build_power_home,
)
from tests.app.test_app import DEMO, make_app, submit, wait_turn
from tests.core.helpers import background_work, count_searches
from tests.tui.helpers import screen_text, wait_until
from tests.waits import HANG_GUARD_S

SIZE = (130, 44)


async def power_app(tmp_path: Path, settings: Settings | None = None) -> HermesApp:
    home = await build_power_home(tmp_path / "home")
    settings = background_work(settings or Settings(), auto_title=False, review=False)
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    return HermesApp(home=home, settings=settings, choice=DEMO, cwd=project)


async def open_search(pilot, app: HermesApp, query: str) -> SearchScreen:
    await pilot.press("ctrl+f")
    await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen), 5, "the search screen")
    screen = app.screen
    assert isinstance(screen, SearchScreen)
    await pilot.press(*query)
    await wait_until(pilot, lambda: screen.shown_query == query, 10, f"results for {query!r}")
    return screen


async def test_search_as_you_type_then_open_a_message_thousands_back(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        screen = await open_search(pilot, app, "platypus")
        # One row per lineage, newest first; the matched word is highlighted in each.
        assert [row.root_id for row in screen.rows] == [DEEP, HOSTILE, OTHER]
        first = screen.results.get_option_at_index(0).prompt
        styled = [first.plain[span.start : span.end] for span in first.spans if span.style == MATCH_STYLE]
        assert styled == ["platypus"]
        assert "3 lineages · 3 matches" in screen_text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.agent.session_id == DEEP, 10, "the deep session to open")
        convo = app.main.conversation
        await wait_until(pilot, lambda: bool(convo.query(".-marked")), 10, "the message to be marked")
        marked = convo.query(".-marked").first()
        item = next(i for i in convo.items if convo._rows.get(i.key) is marked)
        assert item.kind == KIND_USER and item.text == "where is the platypus?"
        assert convo.earlier_count > 0 and convo.later_count > DEEP_COUNT - 200  # loaded far back
        await wait_until(pilot, lambda: "where is the platypus?" in screen_text(app), 5, "the message on screen")
        # Sending from there jumps back to the latest messages.
        await submit(pilot, app, "back to now")
        await wait_turn(pilot, app)
        await wait_until(pilot, lambda: convo.at_latest, what="the latest messages shown again")


async def test_a_hit_in_the_current_session_is_marked_without_leaving_it(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await submit(pilot, app, f"/resume {OTHER}")
        await wait_until(pilot, lambda: app.agent.session_id == OTHER and not app.turns.command_running, 10, "resumed")
        convo = app.main.conversation
        await wait_until(pilot, lambda: any("narwhal" in i.text for i in convo.items), 5, "the history")
        convo.add_notice("info", "a notice the stored history does not have")
        await submit(pilot, app, "and the okapi?")  # after the notice: the live rows are not the stored ones
        await wait_turn(pilot, app)
        await open_search(pilot, app, "okapi role:user")
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(convo.query(".-marked")), 10, "the message to be marked")
        marked = convo.query(".-marked").first()
        item = next(i for i in convo.items if convo._rows.get(i.key) is marked)
        assert item.kind == KIND_USER and item.text == "and the okapi?" and app.agent.session_id == OTHER


async def test_a_newer_line_drops_the_older_results(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        screen = await open_search(pilot, app, "platypus")
        box = screen.query_one("#search-input", Input)
        for line in ("platypus", "narw", "narwh", "narwhal"):  # faster than the debounce
            box.value = line
        await wait_until(
            pilot, lambda: screen.shown_query == "narwhal" and screen.settled, what="the newest line's results"
        )
        assert screen.shown_query == "narwhal" and [row.root_id for row in screen.rows] == [OTHER]


async def test_filters_cjk_hostile_text_and_errors(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        screen = await open_search(pilot, app, "platypus role:assistant")
        assert [row.root_id for row in screen.rows] == [OTHER]
        assert all(hit.role == "assistant" for row in screen.rows for hit in row.hits)
        box = screen.query_one("#search-input", Input)
        box.value = "数据库索引"
        await wait_until(pilot, lambda: screen.shown_query == "数据库索引", 10, "CJK results")
        assert [row.root_id for row in screen.rows] == [CJK]
        box.value = "hostile"
        await wait_until(pilot, lambda: screen.shown_query == "hostile", 10, "the hostile session")
        text = screen_text(app)
        assert "[b]bold[/b] [31mred" in text  # markup shown, not obeyed (the store already took the ESC out)
        assert "\\x1b]0;pwned\\x07" in text and "[link=x]click[/link]" in text
        assert [row.root_id for row in screen.rows] == [HOSTILE]
        box.value = "platypus since:someday"
        await wait_until(pilot, lambda: screen.shown_query == "platypus since:someday", 10, "the error")
        assert "since: 'someday' is not a date" in screen_text(app) and screen.rows == ()
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SearchScreen), 5, "the search to close")


async def test_a_hit_that_was_compressed_away_opens_the_inspector_and_re_injects(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        screen = await open_search(pilot, app, "capybara")
        row = screen.rows[0]  # one lineage: the summary in the child, the original in the parent
        assert [hit.session_id for hit in row.hits] == [CHILD, PARENT]
        await pilot.press("tab", "tab", "down")  # to the lineage's matches, the parent's one
        hits = screen.hits_list
        await wait_until(pilot, lambda: screen.focused is hits and hits.highlighted == 1, what="the parent's match")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, CompressionInspectorScreen), 10, "the inspector")
        assert app.agent.session_id == CHILD  # resuming the parent continues in its compression tip
        inspector = app.screen
        await wait_until(pilot, lambda: inspector.details is not None, 5, "the details")
        chosen = inspector.details.summarised[inspector.messages_list.highlighted]
        assert chosen.text == "The capybara is the largest rodent."  # the hit itself is highlighted
        await wait_until(pilot, lambda: "Focus: capybaras" in screen_text(app), 5, "the details on screen")
        text = screen_text(app)
        assert "Focus: capybaras" in text and "~4,200 → ~1,300" in text and "Fallback summary: no" in text
        assert "List the capybara facts." in text  # the summary
        await pilot.press("r")
        await wait_until(pilot, lambda: not isinstance(app.screen, CompressionInspectorScreen), 5, "the re-inject")
        await wait_until(pilot, lambda: app.turns.turn_runs == 1 and not app.turns.turn_running, 10, "the turn")
        users = [i.text for i in app.main.conversation.items if i.kind == KIND_USER]
        assert users[-1].startswith("For reference, here is a assistant message") or users[-1].startswith(
            "For reference, here is an assistant message"
        )
        assert "> The capybara is the largest rodent." in users[-1]
        assert app.agent.messages[-2]["content"] == users[-1]  # sent through the normal turn path


async def test_f3_compares_with_the_parent_and_f4_inspects(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await submit(pilot, app, f"/resume {BRANCH}")
        await wait_until(pilot, lambda: app.agent.session_id == BRANCH, 10, "the branch")
        await wait_until(pilot, lambda: not app.turns.command_running, 10, "the resume to finish")
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), 5, "the picker")
        picker = app.screen
        assert picker.shown[0].id == ROOT  # the parent comes first
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), 5, "the comparison")
        compare = app.screen
        await wait_until(pilot, lambda: compare.loaded is not None, 5, "the sessions to load")
        text = screen_text(app)
        assert "≡ 2 shared messages (1 turn" in text
        assert "user: postgres please" in text and "user: sqlite please" in text
        await pilot.press("enter")  # both turns in full
        await wait_until(pilot, lambda: "Postgres it is." in screen_text(app), 5, "the full turns")
        await pilot.press("escape", "escape")
        await wait_until(pilot, lambda: app.screen is app.main, 5, "back to the main screen")
        await pilot.press("f4")
        await wait_until(pilot, lambda: "No compression" in screen_text(app), 5, "the notice")
        await submit(pilot, app, f"/inspect {CHILD}")
        await wait_until(pilot, lambda: isinstance(app.screen, CompressionInspectorScreen), 5, "the inspector")


async def test_compare_from_the_tree_selection(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        tree = app.main.lineage
        tree.focus()
        tree.reveal(BRANCH)
        await wait_until(pilot, lambda: tree.cursor_node is tree.tree_node_for(BRANCH), 5, "the branch highlighted")
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), 5, "the picker")
        picker = app.screen
        assert picker.first_id == BRANCH and picker.shown[0].id == ROOT
        await pilot.press(*"animal facts")  # filter by title
        await wait_until(pilot, lambda: [n.id for n in picker.shown] == [OTHER], 5, "the filter")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), 5, "the comparison")
        assert (app.screen.left_id, app.screen.right_id) == (BRANCH, OTHER)


async def test_the_palette_jumps_to_a_session_by_title(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), 5, "the palette")
        await pilot.press(*"animal facts")
        commands = app.screen.query_one("CommandList", OptionList)

        def hit_texts() -> list[str]:
            return [str(option.prompt) for option in commands.options]

        await wait_until(pilot, lambda: any("Open session: animal facts" in t for t in hit_texts()), 5, "the hit")
        index = next(i for i, t in enumerate(hit_texts()) if "Open session: animal facts" in t)
        commands.highlighted = index
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.agent.session_id == OTHER, 10, "the session to open")


async def test_a_hostile_title_is_plain_text_in_the_palette(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), 5, "the palette")
        await pilot.press(*"bold")
        await wait_until(pilot, lambda: "Open session: [b]bold[/b]" in screen_text(app), 5, "the literal title")


async def test_slash_search_opens_the_screen_with_the_query_and_searches_once(tmp_path: Path) -> None:
    app = await power_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        assert app.db is app.agent.db
        queries = count_searches(app.db)
        await submit(pilot, app, "/search narwhal")
        await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen), 10, "the search screen")
        screen = app.screen
        await wait_until(pilot, lambda: screen.shown_query == "narwhal", 10, "the results")
        assert screen.query_one("#search-input", Input).value == "narwhal"
        assert [row.root_id for row in screen.rows] == [OTHER]
        assert len(queries) == screen.searches_run == 1  # the screen's search only, none by the command


async def test_keymap_from_config_and_the_theme_is_remembered(tmp_path: Path) -> None:
    settings = dataclasses.replace(Settings(), keymap={"search": "f8"})
    app = await power_app(tmp_path, settings)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await pilot.press("f8")
        await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen), 5, "the search on f8")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SearchScreen), 5, "the search to close")
        # The old key, then the help's: both are the main screen's keys, handled in the order pressed, so once
        # the help is up ctrl+f has had its turn — and opened nothing beneath it.
        await pilot.press("ctrl+f", "f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), 5, "the help")
        assert not any(isinstance(screen, SearchScreen) for screen in app.screen_stack)  # moved away

        def f8_listed() -> bool:
            return re.search(r"\bF8\s+Search\b", screen_text(app)) is not None

        for _ in range(6):  # below the commands on this terminal: page down to the keys
            if f8_listed():
                break
            await pilot.press("pagedown")
            await pilot.pause()
        await wait_until(pilot, f8_listed, what="the help to list F8 for Search")
        await pilot.press("escape")
        app.theme = "nord"
        await wait_until(pilot, lambda: saved_theme(app.home.root) == "nord", 5, "the theme to be saved")
    again = HermesApp(home=app.home, settings=app.settings, choice=DEMO, cwd=tmp_path / "project")
    async with again.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(again.ready.wait(), HANG_GUARD_S)
        assert again.theme == "nord"


async def test_busy_app_refuses_to_open_a_hit(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        from hermes_tui.screens.search import SearchChoice

        command = app.run_worker(asyncio.Event().wait(), group="command")  # runs until cancelled
        app.navigation.open_at_message(SearchChoice("any", 1, "user", "x"))
        await wait_until(pilot, lambda: "Busy" in screen_text(app), 5, "the busy notice")
        command.cancel()
