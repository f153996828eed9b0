"""SVG snapshots of the look: main screen, streaming, tool card, gauge, lineage tree, approval, help,
a long answer with its "show all" bar, the full-text viewer, the cards of calls that changed files
(collapsed and expanded) and the approval of a file change.

Generate baselines with `pytest tests/tui/test_snapshots.py --snapshot-update`; they live in
tests/tui/__snapshots__/. Clocks are fixed and cursor blinking is off, so every run draws the same.
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.pilot import Pilot

from hermes_tui.core.tools.danger import assess_command
from hermes_tui.core.tools.file_diff import file_change, sized_change
from hermes_tui.screens.approval import ApprovalScreen
from hermes_tui.screens.full_text import FullTextScreen
from hermes_tui.screens.help import HelpScreen
from hermes_tui.screens.main import STYLES_PATH, MainScreen
from hermes_tui.widgets.conversation import ConversationView
from hermes_tui.widgets.full_text_view import FullTextView
from hermes_tui.widgets.lineage_tree import LineageTree
from hermes_tui.widgets.token_gauge import TokenGauge
from hermes_tui.widgets.transcript_rows import AssistantMessage

from .helpers import disable_cursor_blink, fixed_epoch_clock, fixed_wall_clock, screen_text, wait_until
from .sample_data import AUTH_3, DB_BRANCH, budget, sample_history, sample_lineage


class MainSnapshotApp(App[Any]):
    CSS_PATH = STYLES_PATH

    def on_mount(self) -> None:
        self.push_screen(MainScreen(wall_clock=fixed_wall_clock, epoch_clock=fixed_epoch_clock))


async def populate_main(pilot: Pilot[Any]) -> MainScreen:
    """Sample data in every pane, as after resuming a session that was compressed twice."""
    await pilot.pause()
    main = pilot.app.screen
    assert isinstance(main, MainScreen)
    main.status_bar.set_provider("demo", "hermes-demo")
    main.status_bar.set_session(AUTH_3, "refactor auth #3")
    main.lineage.set_nodes(sample_lineage(), AUTH_3)
    main.gauge.budget = budget(41_200, cache_read_tokens=12_000, cache_write_tokens=800, compression_count=2)
    main.review_log.add_entry("compression", "compressed 40 → 12 messages (threshold)")
    main.review_log.add_entry("rotation", "session continues as 2c1332")
    main.review_log.add_entry("memory", "saved: the user prefers uv over pip")
    await main.conversation.load_history(sample_history())
    main.conversation.add_notice("compression", "context compressed: 40 → 12 messages")
    main.conversation.add_tool_call("call_2", "terminal", '{"command": "make test"}')
    main.conversation.finish_tool_call("call_2", '{"output": "51 passed", "exit_code": 0}', False, 2.31)
    disable_cursor_blink(pilot.app)
    await pilot.pause()
    return main


def test_main_screen_idle(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await populate_main(pilot)

    assert snap_compare(MainSnapshotApp(), terminal_size=(120, 36), run_before=run_before)


def test_main_screen_idle_at_80_by_24(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await populate_main(pilot)

    assert snap_compare(MainSnapshotApp(), terminal_size=(80, 24), run_before=run_before)


def test_main_screen_streaming_an_answer(snap_compare: Any) -> None:
    answer = "Here is the plan:\n\n1. Read `src/auth.py`\n2. Replace sessions with **JWT**\n\n```python\ndef login("

    async def run_before(pilot: Pilot[Any]) -> None:
        main = await populate_main(pilot)
        main.status_bar.state = "streaming"
        main.prompt.value = "typed while it streams"
        view = main.conversation
        view.add_user("How would you refactor auth to JWT?")
        view.begin_assistant()
        view.append_reasoning("The user wants a migration plan. Start with the session store.")
        for piece in answer.split(" "):
            view.append_text(piece + " ")
        row = view.query(AssistantMessage).last()
        await wait_until(pilot, lambda: row.shown_source == view.streamed_text(), what="the streamed text")
        await pilot.pause()

    assert snap_compare(MainSnapshotApp(), terminal_size=(120, 36), run_before=run_before)


class ConversationSnapshotApp(App[Any]):
    CSS_PATH = STYLES_PATH

    def compose(self) -> ComposeResult:
        yield ConversationView(id="conversation")


def test_expanded_tool_card(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        view = pilot.app.query_one(ConversationView)
        await view.load_history(sample_history())
        view.add_tool_call("call_9", "terminal", '{"command": "pytest -q", "timeout": 120}')
        result = "\n".join(f"tests/test_{index}.py ....  [{index * 4}%]" for index in range(30))
        view.finish_tool_call("call_9", result, True, 12.4)
        await pilot.pause()
        card = view.tool_card("call_9")
        assert card is not None
        card.focus()
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(ConversationSnapshotApp(), terminal_size=(90, 44), run_before=run_before)


class GaugeSnapshotApp(App[Any]):
    CSS_PATH = STYLES_PATH
    CSS = "TokenGauge { border: round $primary 40%; padding: 0 1; height: auto; }"

    def compose(self) -> ComposeResult:
        yield TokenGauge(id="gauge-reported")
        yield TokenGauge(id="gauge-estimate")
        yield TokenGauge(id="gauge-over")

    def on_mount(self) -> None:
        for gauge_id, title in (("reported", "Context"), ("estimate", "Context (estimate)"), ("over", "Over")):
            self.query_one(f"#gauge-{gauge_id}").border_title = title
        self.query_one("#gauge-reported", TokenGauge).budget = budget(41_200, cache_read_tokens=30_000)
        self.query_one("#gauge-estimate", TokenGauge).budget = budget(
            56_000, estimate=True, window_is_default=True, compression_count=1
        )
        self.query_one("#gauge-over", TokenGauge).budget = budget(
            150_000, window=200_000, threshold=100_000, compression_count=4, ineffective_compressions=2
        )


def test_token_gauge_threshold_mark_and_estimate(snap_compare: Any) -> None:
    assert snap_compare(GaugeSnapshotApp(), terminal_size=(64, 22))


class LineageSnapshotApp(App[Any]):
    CSS_PATH = STYLES_PATH

    def compose(self) -> ComposeResult:
        tree = LineageTree(id="lineage", clock=fixed_epoch_clock)
        tree.border_title = "Sessions"
        yield tree

    def on_mount(self) -> None:
        tree = self.query_one(LineageTree)
        tree.set_nodes(sample_lineage(), AUTH_3)
        tree.reveal(DB_BRANCH, move_cursor=False)
        tree.focus()


def test_lineage_tree_with_a_compression_chain_and_a_branch(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        tree = pilot.app.query_one(LineageTree)
        await wait_until(pilot, lambda: tree.cursor_node is tree.tree_node_for(AUTH_3), what="cursor on current")
        assert tree.tree_node_for(DB_BRANCH) is not None

    assert snap_compare(LineageSnapshotApp(), terminal_size=(80, 14), run_before=run_before)


def test_approval_modal(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await populate_main(pilot)
        pilot.app.push_screen(
            ApprovalScreen(
                "terminal",
                "rm -rf build/ && sudo make install PREFIX=/usr/local",
                "/home/me/project",
                ["recursive delete (rm -rf)", "runs as root (sudo)"],
            )
        )
        await pilot.pause()

    assert snap_compare(MainSnapshotApp(), terminal_size=(120, 36), run_before=run_before)


def test_approval_modal_with_a_long_command_flagged_below_the_view(snap_compare: Any) -> None:
    lines = [f"echo step {n} >> /tmp/progress.log" for n in range(1, 61)]
    lines[2] = 'python3 -c \'import json; print(json.dumps({"step": 3, "note": "a long line, folded"}))\' | tee log'
    lines[49] = "rm -rf ~"
    command = "\n".join(lines)

    async def run_before(pilot: Pilot[Any]) -> None:
        await populate_main(pilot)
        pilot.app.push_screen(ApprovalScreen("terminal", command, "/home/me/project", assess_command(command)))
        await wait_until(pilot, lambda: "⚠ line 50" in screen_text(pilot.app), what="the warning about line 50")
        await pilot.pause()

    assert snap_compare(MainSnapshotApp(), terminal_size=(100, 36), run_before=run_before)


def test_help_screen(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await populate_main(pilot)
        pilot.app.push_screen(HelpScreen())
        await pilot.pause()

    assert snap_compare(MainSnapshotApp(), terminal_size=(120, 40), run_before=run_before)


def long_report(paragraphs: int) -> str:
    """A long answer: numbered sections of prose, each with a short list."""
    parts = []
    for index in range(paragraphs):
        parts.append(f"Section {index}: the migration touches the session store, the login handler and the tests. ")
        parts.append("Each step is small and can be reverted on its own.\n\n")
        parts.append(f"- check {index}.1 passes\n- check {index}.2 passes\n\n")
    return "".join(parts)


def test_a_long_answer_keeps_its_start_and_end_with_a_show_all_bar(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        view = pilot.app.query_one(ConversationView)
        await view.load_history(
            [
                {"role": "user", "content": "Plan the auth migration in detail"},
                {"role": "assistant", "content": long_report(400)},
            ]
        )
        row = view.query(AssistantMessage).last()
        await wait_until(pilot, lambda: row.body.bar.display, what="the show-all bar")
        await wait_until(pilot, lambda: view.max_scroll_y > 0 and view.is_following, what="the answer laid out")
        await pilot.pause()
        view.focus()
        await pilot.press("home")
        await pilot.pause()
        view.scroll_to_widget(row.body.bar, animate=False)
        row.body.bar.focus()
        await pilot.pause()

    assert snap_compare(ConversationSnapshotApp(), terminal_size=(90, 30), run_before=run_before)


def test_the_full_text_viewer(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        screen = FullTextScreen("Answer", long_report(400))
        pilot.app.push_screen(screen)
        await wait_until(pilot, lambda: bool(screen.query(FullTextView)) and screen.view.ready, what="the rows")
        await pilot.press("pagedown")
        await pilot.pause()

    assert snap_compare(ConversationSnapshotApp(), terminal_size=(90, 24), run_before=run_before)


APP_BEFORE = b"""def main():
    setup()
    run()
    return 1

def helper():
\treturn None"""
APP_AFTER = b"""def main():
    setup()
    run(verbose=True)
    report()
    return 0

def helper():
\treturn None
"""


def diff_changes() -> tuple[Any, ...]:
    """A patch that edited one file, created one and touched a binary one; and one that edited app.py."""
    several = (
        file_change("src/app.py", APP_BEFORE, APP_AFTER),
        file_change("docs/NOTES.md", None, b"# Notes\n\nfirst\n"),
        sized_change("assets/logo.png", 12_345, 12_400, "binary file"),
    )
    return several, (file_change("src/app.py", APP_BEFORE, APP_AFTER),)


def test_diff_cards_collapsed_and_expanded(snap_compare: Any) -> None:
    several, one = diff_changes()

    async def run_before(pilot: Pilot[Any]) -> None:
        view = pilot.app.query_one(ConversationView)
        view.add_user("Make main verbose and start the notes")
        view.add_tool_call("call_p", "patch", '{"mode": "patch", "patch": "*** Begin Patch ..."}')
        view.finish_tool_call("call_p", '{"success": true}', False, 0.04, several)
        view.add_tool_call("call_w", "patch", '{"mode": "replace", "path": "src/app.py"}')
        view.finish_tool_call("call_w", '{"success": true, "diff": "..."}', False, 0.02, one)
        await pilot.pause()
        card = view.tool_card("call_w")
        assert card is not None
        card.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: card.size.height > 10, what="the expanded diff")
        await pilot.pause()

    assert snap_compare(ConversationSnapshotApp(), terminal_size=(90, 34), run_before=run_before)


def test_the_approval_of_a_file_change_shows_its_diff(snap_compare: Any) -> None:
    _several, (change,) = diff_changes()

    async def run_before(pilot: Pilot[Any]) -> None:
        await populate_main(pilot)
        pilot.app.push_screen(
            ApprovalScreen(
                "patch",
                "change /home/me/other/src/app.py (outside the working folder)",
                "/home/me/project",
                ["outside the working folder"],
                change=change,
                session_scope="changing this file",
            )
        )
        await wait_until(pilot, lambda: "+    report()" in screen_text(pilot.app), what="the diff")
        await pilot.pause()

    assert snap_compare(MainSnapshotApp(), terminal_size=(100, 36), run_before=run_before)
