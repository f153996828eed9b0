"""ApprovalScreen with a long command: every line is shown, the count is stated, a flagged line out of
view is named at the top, its span is highlighted in place, and a stray Enter never approves it."""

from __future__ import annotations

from typing import Any

import pytest
from rich.style import Style
from textual.app import App
from textual.geometry import Region
from textual.widgets import Button, Static

from hermes_tui.core.tools.danger import RM_CRITICAL_PATH, RM_RECURSIVE_FORCE, assess_command
from hermes_tui.screens.approval import ApprovalScreen
from hermes_tui.screens.main import STYLES_PATH
from hermes_tui.widgets.command_listing import CommandListing

from .helpers import screen_text, wait_until


def sixty_lines(dangerous: str = "rm -rf ~") -> str:
    lines = [f"echo step {n} >> /tmp/progress.log" for n in range(1, 61)]
    lines[49] = dangerous  # line 50
    return "\n".join(lines)


class ApprovalHost(App[Any]):
    CSS_PATH = STYLES_PATH

    def __init__(self, command: str, tool: str = "terminal", reasons: tuple[str, ...] | None = None) -> None:
        super().__init__()
        self.command = command
        self.tool = tool
        self.reasons = assess_command(command) if reasons is None else reasons
        self.results: list[bool | None] = []

    def on_mount(self) -> None:
        self.push_screen(ApprovalScreen(self.tool, self.command, "/home/me/project", self.reasons), self.results.append)


def row_styles(listing: CommandListing, text: str) -> list[Style]:
    """The styles the listing draws `text` with, on whichever of its rows it is."""
    width = listing.size.width
    found: list[Style] = []
    for y in range(listing.virtual_size.height):
        strip = listing.render_lines(Region(0, y, width, 1))[0]
        if text in strip.text:
            found.extend(
                segment.style
                for segment in strip
                if segment.text.strip() and (segment.text in text or text in segment.text)
            )
    return [style for style in found if style is not None]


async def test_a_flagged_line_below_the_view_is_named_at_the_top_and_highlighted_in_place() -> None:
    command = sixty_lines()
    app = ApprovalHost(command)
    async with app.run_test(size=(110, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, ApprovalScreen)
        warning = screen.query_one("#approval-out-of-view", Static)
        await wait_until(pilot, lambda: warning.display and "line 50" in screen_text(app), what="the top warning")
        text = screen_text(app)
        assert "⚠ line 50: recursive forced delete (rm -rf)" in text and "below" in text
        assert f"60 lines · {len(command):,} characters" in text
        assert "1 │ echo step 1 >>" in text and "50 │ rm -rf ~" not in text  # it is out of view: hence the warning
        assert warning.region.y < screen.query_one("#approval-command-box").region.y  # above the command
        assert "⚠ recursive forced delete (rm -rf) — line 50" in text
        assert "⚠ deletes a critical path (/, ~, *, . or a system folder) — line 50" in text

        await pilot.press("end")  # scroll the command: line 50 comes into view, the warning goes
        await wait_until(pilot, lambda: "50 │ rm -rf ~" in screen_text(app), what="line 50 in view")
        await wait_until(pilot, lambda: not warning.display, what="the warning to go")
        listing = screen.query_one(CommandListing)
        risk = listing.get_component_rich_style("command-listing--risk", partial=True)
        styles = row_styles(listing, "rm -rf ~")
        assert styles and all(style.bgcolor == risk.bgcolor and style.underline for style in styles), styles
        plain = row_styles(listing, "echo step 49")
        assert plain and all(style.bgcolor != risk.bgcolor for style in plain)


async def test_every_line_of_the_command_can_be_read_and_long_lines_are_folded_not_cut() -> None:
    long_line = "echo " + "word " * 60 + "END-OF-LONG-LINE"
    command = sixty_lines().replace("echo step 3 >> /tmp/progress.log", long_line)
    app = ApprovalHost(command)
    async with app.run_test(size=(110, 36)) as pilot:
        screen = app.screen
        seen: set[str] = set()
        await wait_until(pilot, lambda: "60 lines" in screen_text(app), what="the listing")
        for _ in range(20):  # the command has the focus: PgDn scrolls it
            seen.update(line.strip("█ ▁▇▆▅▄▃▂") for line in screen_text(app).splitlines())
            await pilot.press("pagedown")
            await pilot.pause()
        shown = "\n".join(seen)
        for number in range(1, 61):
            assert f"{number} │ " in shown, number
        assert "END-OF-LONG-LINE" in shown and "↪ │ " in shown  # the long line goes on in a folded row
        assert isinstance(screen, ApprovalScreen)


async def test_a_flagged_command_has_the_focus_itself_and_enter_never_approves_it() -> None:
    app = ApprovalHost(sixty_lines())
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_until(pilot, lambda: app.focused is not None, what="the focus")
        assert app.focused.id == "approval-command-box"  # not Allow: the command is read first
        await pilot.press("enter", "enter")
        await pilot.press("down")  # the arrows scroll it at once
        await wait_until(pilot, lambda: app.focused.scroll_y > 0, what="the command to scroll")
        assert app.results == [] and isinstance(app.screen, ApprovalScreen)
        await pilot.press("tab")  # Tab reaches the buttons
        assert isinstance(app.focused, Button) and app.focused.id == "approval-allow"
        await pilot.press("tab", "enter")
        await wait_until(pilot, lambda: app.results == [False], what="the denial")


@pytest.mark.parametrize(("keys", "expected"), [(("y",), True), (("n",), False), (("escape",), False)])
async def test_the_answer_keys_still_work_on_a_flagged_command(keys: tuple[str, ...], expected: bool) -> None:
    app = ApprovalHost(sixty_lines())
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="the modal")
        await pilot.press(*keys)
        await wait_until(pilot, lambda: app.results == [expected], what=f"the answer to {keys}")


async def test_a_command_nothing_flags_keeps_allow_focused_and_enter_allows() -> None:
    app = ApprovalHost("ls -la\ngit status", reasons=())
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.focused, Button), what="a focused button")
        assert app.focused.id == "approval-allow"
        assert "2 lines · 17 characters" in screen_text(app)
        assert not app.screen.query_one("#approval-out-of-view").display
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.results == [True], what="the approval")


async def test_a_file_approval_is_not_read_as_a_shell_command() -> None:
    app = ApprovalHost("write /etc/hosts (rm -rf ~ in its text)", tool="write_file", reasons=("a system file",))
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_until(pilot, lambda: "1 line · " in screen_text(app), what="the modal")
        screen = app.screen
        assert isinstance(screen, ApprovalScreen) and screen.risks == ()
        assert RM_RECURSIVE_FORCE not in screen_text(app) and RM_CRITICAL_PATH not in screen_text(app)
        assert app.focused is not None and app.focused.id == "approval-command-box"  # it has a reason: flagged
