"""Issue 21 item 7 in the real app (Pilot, real Agent, real state.db): where the Sessions tree opens,
the lineage's compression count and token history, clicks in the tree, the side panel folding at
80×24, replay from the TUI, and the first screen's hints."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.config import Settings
from hermes_tui.screens.compress_preview import CompressPreviewScreen
from hermes_tui.screens.replay_picker import ReplayPickerScreen
from hermes_tui.widgets.first_hint import DEMO_PROMPTS, pane_keys
from hermes_tui.widgets.lineage_tree import LineageTree
from hermes_tui.widgets.token_gauge import SPARK, spark_cells, with_history
from tests.app.power_data import BRANCH, CHILD, CJK, OTHER, PARENT, ROOT, build_power_home
from tests.app.test_app import DEMO, db_rows, make_app, submit, wait_turn
from tests.app.test_tree_actions import highlight, shown_ids
from tests.core.helpers import background_work
from tests.tui.helpers import wait_until, widget_text
from tests.waits import HANG_GUARD_S

SIZE = (130, 44)


async def power_app_resuming(tmp_path: Path, resume: str | None) -> HermesApp:
    """The app over the power home (tests/app/power_data.py), opening `resume` if given."""
    home = await build_power_home(tmp_path / "home")
    settings = background_work(Settings(), auto_title=False, review=False)
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    return HermesApp(home=home, settings=settings, choice=DEMO, cwd=project, resume=resume)


def expanded(tree: LineageTree, session_id: str) -> bool:
    row = tree.tree_node_for(session_id)
    return row is not None and row.is_expanded


async def test_the_current_lineage_opens_expanded_with_the_cursor_on_it(tmp_path: Path) -> None:
    app = await power_app_resuming(tmp_path, ROOT)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        tree = app.main.lineage
        assert app.agent.session_id == ROOT
        await wait_until(pilot, lambda: tree.cursor_node is tree.tree_node_for(ROOT), 5, "the cursor on ROOT")
        # its branch is in view without expanding anything; other lineages stay closed
        assert expanded(tree, ROOT) and BRANCH in shown_ids(tree)
        assert not expanded(tree, PARENT) and CHILD not in shown_ids(tree)

        await submit(pilot, app, f"/resume {PARENT}")  # followed to its compression tip
        await wait_until(pilot, lambda: app.agent.session_id == CHILD, 10, "the resume")
        await wait_until(pilot, lambda: tree.cursor_node is tree.tree_node_for(CHILD), 5, "the cursor on CHILD")
        assert expanded(tree, PARENT) and CHILD in shown_ids(tree) and OTHER in shown_ids(tree)


def gauge_text(app: HermesApp) -> str:
    return widget_text(app, app.main.gauge)


async def test_the_compression_count_covers_the_lineage_and_follows_each_compression(tmp_path: Path) -> None:
    app = await power_app_resuming(tmp_path, PARENT)  # opens CHILD, the continuation of one compression
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        assert app.agent.session_id == CHILD
        await wait_until(pilot, lambda: "🗜 1 compression" in gauge_text(app), 10, "the lineage's compression")
        assert app.main.gauge.budget.compression_count == 0  # this run compressed nothing yet
        for expected in ("🗜 2 compressions", "🗜 3 compressions"):
            for index in range(4):  # enough turns for /compress to have a middle to summarise
                await submit(pilot, app, f"tell me about the animal number {index}")
                await wait_turn(pilot, app)
            await submit(pilot, app, "/compress")
            await wait_until(pilot, lambda: isinstance(app.screen, CompressPreviewScreen), 10, "the preview")
            await pilot.press("y")
            await wait_until(pilot, lambda text=expected: text in gauge_text(app), 20, expected)


async def test_the_sparkline_starts_from_the_lineage_history_and_continues_live(tmp_path: Path) -> None:
    app = await power_app_resuming(tmp_path, PARENT)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        gauge = app.main.gauge
        await wait_until(pilot, lambda: len(gauge.history) >= 4, 10, "the lineage's earlier turns")
        earlier = len(gauge.history)
        assert [compressed for _, compressed in gauge.history].count(True) == 1  # CHILD's first turn
        assert not gauge.budget.outlook.sizes  # nothing measured live yet, yet the sparkline is drawn
        assert any(block in gauge_text(app) for block in SPARK)
        await submit(pilot, app, "one more question")
        await wait_turn(pilot, app)
        await wait_until(pilot, lambda: len(gauge.budget.outlook.sizes) == 1, 5, "the live turn")
        history = gauge.history  # read again with the turn's end (the lineage may have one more row by then)
        assert len(history) >= earlier
        cells = spark_cells(with_history(gauge.budget.outlook, history), gauge.budget.threshold_tokens, 200)
        assert len(cells) == len(history) + 1  # the lineage's turns, then the live one


async def test_a_click_in_the_sessions_tree_selects_and_previews_a_double_click_resumes(tmp_path: Path) -> None:
    app = await power_app_resuming(tmp_path, None)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        tree = app.main.lineage
        current = app.agent.session_id
        await wait_until(pilot, lambda: tree.tree_node_for(OTHER) is not None, 5, "OTHER's row")

        def offset(session_id: str) -> tuple[int, int]:
            """Where the session's row is drawn, from the tree's top-left corner (its border included)."""
            row = tree.tree_node_for(session_id)
            assert row is not None
            return (8, row.line - tree.scroll_offset.y + tree.content_region.y - tree.region.y)

        await pilot.click(LineageTree, offset=offset(OTHER))
        await wait_until(pilot, lambda: tree.highlighted_session().id == OTHER, 5, "the cursor on the clicked row")
        preview = app.main.tree_preview
        await wait_until(pilot, lambda: preview.shown_id == OTHER, 5, "the preview of the clicked session")
        assert "animal facts" in widget_text(app, preview)
        await pilot.pause()
        assert app.agent.session_id == current  # not resumed by one click

        await pilot.press("enter")  # the tree has focus after the click: Enter resumes
        await wait_until(pilot, lambda: app.agent.session_id == OTHER, 10, "Enter to resume")

        await wait_until(pilot, lambda: tree.tree_node_for(CJK) is not None, 5, "CJK's row")
        await pilot.double_click(LineageTree, offset=offset(CJK))
        await wait_until(pilot, lambda: app.agent.session_id == CJK, 10, "a double click to resume")


async def test_the_side_panel_folds_by_itself_at_80x24_and_comes_back_when_the_terminal_grows(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        main = app.main
        side = main.query_one("#side-panel")
        await wait_until(pilot, lambda: not side.display and not main.side_panel_visible, 5, "the panel folded")
        assert main.conversation.region.width >= 78  # the conversation has the whole width
        await pilot.resize_terminal(120, 40)
        await wait_until(pilot, lambda: main.side_panel_visible and side.region.width > 0, 5, "the panel back")

        await pilot.press("ctrl+b")  # folded by hand: growing and shrinking leaves it folded
        await wait_until(pilot, lambda: not main.side_panel_visible, 5, "folded by Ctrl+B")
        await pilot.resize_terminal(80, 24)
        await pilot.resize_terminal(130, 44)
        await wait_until(pilot, lambda: main.size.width == 130, 5, "the wide terminal")
        await pilot.pause()
        assert not main.side_panel_visible

        await pilot.press("ctrl+b")  # shown by hand again
        await wait_until(pilot, lambda: main.side_panel_visible, 5, "shown by Ctrl+B")
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: main.size.width == 80, 5, "the narrow terminal")
        await pilot.pause()
        assert not main.side_panel_visible  # becoming narrow folds it once more


async def test_the_first_screen_offers_demo_prompts_and_pane_keys_until_the_first_message(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        hint = app.main.first_hint
        await wait_until(pilot, lambda: hint.display and hint.region.height > 0, 5, "the hint on screen")
        text = widget_text(app, hint)
        for prompt in DEMO_PROMPTS:
            assert f"› {prompt}" in text
        for line in pane_keys(app.main.BINDINGS):  # the keys as the bindings say
            assert line in text
        assert "F5 messages" in text and "Tab focus" in text and "F4 inspect compression" in text

        await submit(pilot, app, DEMO_PROMPTS[0])
        await wait_until(pilot, lambda: not hint.display, 5, "the hint gone")
        await wait_turn(pilot, app)
        assert not hint.display
        await submit(pilot, app, "/new")  # a fresh session shows it again
        await wait_until(pilot, lambda: hint.display, 10, "the hint on the new session")


async def test_a_resumed_session_with_messages_shows_no_first_screen_hint(tmp_path: Path) -> None:
    app = await power_app_resuming(tmp_path, OTHER)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await wait_until(pilot, lambda: bool(app.main.conversation.items), 10, "the resumed history")
        await pilot.pause()
        assert not app.main.first_hint.display


README = Path(__file__).resolve().parents[2] / "README.md"


async def test_the_readme_walk_and_capture_match_the_app(tmp_path: Path) -> None:
    text = README.read_text(encoding="utf-8")
    assert text.index("## First session") < text.index("## Using the TUI")
    walk = text[text.index("## First session") : text.index("## Providers and keys")]
    for step in ("read README.md", "/branch", "/compress", "**Ctrl-F**", "**F5**"):
        assert step in walk
    capture = text[text.index("```\n") : text.index("```\n*(a real capture")]
    for leak in ("/tmp/", "/home/", "/work/", ".hypothesis"):
        assert leak not in capture
    app = make_app(tmp_path)  # the demo model, as in the capture
    async with app.run_test(size=(100, 30)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await wait_until(pilot, lambda: "threshold" in gauge_text(app), 5, "the gauge")
        shown = " ".join(gauge_text(app).split())
        threshold = shown.split("threshold ")[1].split(" ")[0]
        assert f"threshold {threshold}" in " ".join(capture.split())  # the threshold as the app shows it
        bound = {binding.key for binding in app.main.BINDINGS}
        assert {"ctrl+f", "f5", "f1"} <= bound


async def test_replay_from_the_tree_and_from_the_message_cursor_makes_a_side_session(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        for prompt in ("list files", "read README.md"):
            await submit(pilot, app, prompt)
            await wait_turn(pilot, app)
        session = app.agent.session_id
        tree = await highlight(pilot, app, session)
        await pilot.press("p")  # the tree's key: the last turn
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayPickerScreen), 5, "the route picker")
        assert "demo:demo" in widget_text(app, app.screen.query_one("#replay-routes"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.replay_flow.replays == 1, 20, "the replay")
        entries = [entry.text for entry in app.main.review_log.entries]
        assert any(f"Replayed turn 2 of {session} on demo:demo" in text for text in entries)
        rows = db_rows(app, "select id, title from sessions where parent_session_id = ? and source = 'replay'", session)
        assert len(rows) == 1 and rows[0][1].startswith("Replay of turn 2 on demo:demo")
        side = rows[0][0]
        assert [c.id for c in tree.children_of(session)] == [side]
        await wait_until(pilot, lambda: tree.cursor_node is tree.tree_node_for(side), 5, "the side session shown")
        assert app.agent.session_id == session  # the live session stays

        app.main.prompt.focus()
        await pilot.press("f5", "home")  # the message cursor, on the first message
        convo = app.main.conversation
        await wait_until(pilot, lambda: convo.cursor.on_user_message, 5, "the first prompt selected")
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayPickerScreen), 5, "the picker again")
        assert "turn 1" in widget_text(app, app.screen.query_one("#replay-heading"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.replay_flow.replays == 2, 20, "the second replay")
        assert any(f"Replayed turn 1 of {session}" in entry.text for entry in app.main.review_log.entries)
