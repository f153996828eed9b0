"""MainScreen layout and keys, ApprovalScreen results, HelpScreen content."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App
from textual.widgets import Static

from hermes_tui.core.commands import COMMANDS
from hermes_tui.screens.approval import ApprovalScreen
from hermes_tui.screens.help import HelpScreen
from hermes_tui.screens.main import STYLES_PATH, MainScreen
from hermes_tui.widgets.conversation import ConversationView
from hermes_tui.widgets.lineage_tree import LineageTree
from hermes_tui.widgets.prompt_input import PromptInput
from hermes_tui.widgets.review_log import ReviewLog
from hermes_tui.widgets.status_bar import StatusBar
from hermes_tui.widgets.token_gauge import TokenGauge

from .helpers import fixed_epoch_clock, fixed_wall_clock, screen_text, wait_until, widget_text
from .sample_data import AUTH_3, budget, sample_lineage


class MainHost(App[Any]):
    CSS_PATH = STYLES_PATH

    def __init__(self) -> None:
        super().__init__()
        self.submitted: list[str] = []
        self.approval_results: list[bool] = []

    def on_mount(self) -> None:
        self.push_screen(MainScreen(wall_clock=fixed_wall_clock, epoch_clock=fixed_epoch_clock))

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        self.submitted.append(message.text)

    @property
    def main(self) -> MainScreen:
        assert isinstance(self.screen, MainScreen)
        return self.screen


async def test_the_main_screen_has_four_titled_panes_a_status_bar_and_a_footer() -> None:
    app = MainHost()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        main = app.main
        assert isinstance(main.conversation, ConversationView)
        assert isinstance(main.lineage, LineageTree)
        assert isinstance(main.gauge, TokenGauge)
        assert isinstance(main.review_log, ReviewLog)
        assert isinstance(main.prompt, PromptInput)
        assert isinstance(main.status_bar, StatusBar)
        text = screen_text(app)
        for title in ("Conversation", "Sessions", "Context", "Review log"):
            assert f"─ {title} ─" in text
        assert "Side panel" in text and "Help" in text
        assert main.status_bar.region.height == 1


async def test_the_prompt_has_focus_so_typing_goes_straight_to_it() -> None:
    app = MainHost()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.focused is app.main.prompt
        await pilot.press("h", "i", "enter")
        await wait_until(pilot, lambda: app.submitted == ["hi"])


async def test_ctrl_b_hides_and_shows_the_side_panel() -> None:
    app = MainHost()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        main = app.main
        side_panel = main.query_one("#side-panel")
        width_with_panel = main.conversation.region.width
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert not side_panel.display or side_panel.region.width == 0
        assert main.conversation.region.width > width_with_panel
        assert "Sessions" not in screen_text(app)
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert main.side_panel_visible and side_panel.region.width > 0


async def test_at_90_by_24_every_pane_is_still_on_screen() -> None:
    app = MainHost()
    async with app.run_test(size=(90, 24)) as pilot:  # the narrowest width that keeps the side panel
        await pilot.pause()
        main = app.main
        assert main.has_class("-narrow")
        for widget in (main.conversation, main.lineage, main.gauge, main.review_log, main.prompt):
            region = widget.region
            assert region.width >= 20 and region.height >= 3, widget
            assert region.right <= 90 and region.bottom <= 24
        assert main.conversation.region.width > main.lineage.region.width


async def test_f1_opens_help_and_escape_closes_it() -> None:
    app = MainHost()
    async with app.run_test(size=(150, 44)) as pilot:  # wide: commands and keys side by side
        await pilot.pause()
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help screen")
        await pilot.pause()
        keys = " ".join(widget_text(app, app.screen.query_one("#help-keys")).split())
        assert "pressed twice within 2 s quits" in keys  # beside the commands, no scrolling
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen), what="back to the main screen")


async def test_on_a_narrow_terminal_the_help_scrolls_down_to_the_keys() -> None:
    app = MainHost()
    async with app.run_test(size=(90, 30)) as pilot:
        await pilot.pause()
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help screen")
        await pilot.pause()

        def ladder_shown() -> bool:
            return "pressed twice within 2 s quits" in " ".join(screen_text(app).split())

        assert not ladder_shown()  # below the commands
        for _ in range(6):  # the keyboard scrolls the help: page down to the keys
            await pilot.press("pagedown")
            await pilot.pause()
            if ladder_shown():
                break
        assert ladder_shown()
        await pilot.press("end")
        await wait_until(pilot, lambda: "When a command needs approval" in screen_text(app), what="the last keys")


async def test_help_lists_every_slash_command_and_the_ctrl_c_ladder() -> None:
    app = MainHost()
    async with app.run_test(size=(110, 240)) as pilot:  # one above the other, tall enough for all
        await pilot.pause()
        app.push_screen(HelpScreen())
        await pilot.pause()
        text = screen_text(app)
        for command in COMMANDS:
            assert command.usage in text and command.help in text
            for alias in command.aliases:
                assert f"/{alias}" in text
        assert "Ctrl+F" in text and "F3" in text and "F4" in text  # search, compare, inspect
        assert "clears the input; with an empty prompt interrupts a streaming turn;" in text
        assert "Ctrl+Q" in text and "Ctrl+B" in text


class ApprovalHost(App[Any]):
    CSS_PATH = STYLES_PATH

    def __init__(self) -> None:
        super().__init__()
        self.results: list[bool | None] = []

    def on_mount(self) -> None:
        self.push_screen(
            ApprovalScreen("terminal", "rm -rf build/ && sudo make install", "/home/me/project",
                           ["recursive delete (rm -rf)", "runs as root (sudo)"]),
            self.results.append,
        )  # fmt: skip


@pytest.mark.parametrize(  # Enter never allows a flagged command: Tab Tab Enter reaches Deny
    ("keys", "expected"),
    [(("y",), True), (("enter", "n"), False), (("tab", "tab", "enter"), False), (("escape",), False)],
)
async def test_approval_keys_allow_or_deny(keys: tuple[str, ...], expected: bool) -> None:
    app = ApprovalHost()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        await wait_until(pilot, lambda: app.results == [expected], what=f"result after {keys}")
        assert not isinstance(app.screen, ApprovalScreen)


@pytest.mark.parametrize(("button", "expected"), [("#approval-allow", True), ("#approval-deny", False)])
async def test_approval_buttons_allow_or_deny(button: str, expected: bool) -> None:
    app = ApprovalHost()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.click(button)
        await wait_until(pilot, lambda: app.results == [expected], what=f"result after clicking {button}")


async def test_approval_shows_tool_command_cwd_and_reasons_in_the_error_colour() -> None:
    app = ApprovalHost()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "terminal" in text
        assert "rm -rf build/ && sudo make install" in text
        assert "in /home/me/project" in text
        assert "⚠ recursive delete (rm -rf)" in text and "⚠ runs as root (sudo)" in text
        reasons = app.screen.query_one("#approval-reasons", Static)
        error = app.current_theme.to_color_system().error
        shown = reasons.styles.color
        assert max(abs(shown.r - error.r), abs(shown.g - error.g), abs(shown.b - error.b)) <= 2
        assert app.focused is not None and app.focused.id == "approval-command-box"  # flagged: not Allow


async def test_panes_filled_before_the_screen_is_composed_show_their_content() -> None:
    screen = MainScreen(wall_clock=fixed_wall_clock, epoch_clock=fixed_epoch_clock)
    screen.review_log.add_entry("info", "queued before mount")
    screen.conversation.add_user("typed before mount")
    screen.gauge.budget = budget(41_200)
    screen.lineage.set_nodes(sample_lineage(), AUTH_3)
    screen.status_bar.set_session(AUTH_3, "refactor auth #3")

    class Host(App[None]):
        CSS_PATH = STYLES_PATH

        def get_default_screen(self) -> MainScreen:
            return screen

    app = Host()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        for expected in (
            "queued before mount",
            "typed before mount",
            "used 41.2K",
            "● ⇣ #3",
            "refactor auth #3 · 2c1332",
        ):
            assert expected in text
