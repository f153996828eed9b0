"""ApprovalScreen with commands that try to hide what they do: the exact command is shown, and flagged.

Carriage returns, erase-line and cursor-move sequences, hidden-text attributes and bidi overrides
could make a terminal draw `ls -la` over `rm -rf ~`. The modal must show every one of them as an
escape, say in a flag line that the command holds hidden control characters, and send nothing
live to the terminal.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import Static

from hermes_tui.config import ProviderChoice
from hermes_tui.screens.approval import ApprovalScreen
from hermes_tui.screens.main import STYLES_PATH
from hermes_tui.widgets.transcript import KIND_TOOL
from tests.app.test_app import make_app, submit, wait_turn
from tests.fake_llm import FakeLLMServer, Reply
from tests.hostile_text import live_characters
from tests.waits import HANG_GUARD_S

from .helpers import screen_text, wait_until

HIDING = [
    ("rm -rf ~/scratch\rls -la", "rm -rf ~/scratch\\rls -la", "CR"),
    ("rm -rf ~/scratch \x1b[2K\x1b[1Gls -la", "rm -rf ~/scratch \\x1b[2K\\x1b[1Gls -la", "ESC ×2"),
    ("rm -rf ~/scratch #\x1b[3D\x1b[A\x1b[8mls -la", "rm -rf ~/scratch #\\x1b[3D\\x1b[A\\x1b[8mls -la", "ESC ×3"),
    ("rm -rf ~/scratch #\u202eal- sl", "rm -rf ~/scratch #\\u202eal- sl", "RIGHT-TO-LEFT OVERRIDE"),
    ("rm -rf ~/scratch \x9b2K\x08\x08ls", "rm -rf ~/scratch \\x9b2K\\x08\\x08ls", "BS ×2"),
]


class ApprovalHost(App[Any]):
    CSS_PATH = STYLES_PATH

    def __init__(self, command: str) -> None:
        super().__init__()
        self.command = command
        self.results: list[bool | None] = []

    def on_mount(self) -> None:
        self.push_screen(
            ApprovalScreen("terminal", self.command, "/home/me/project", ["recursive delete"]), self.results.append
        )


@pytest.mark.parametrize(
    ("command", "shown", "named"), HIDING, ids=["cr", "erase-line", "cursor-moves", "bidi", "c1-bs"]
)
async def test_a_command_hiding_its_text_is_shown_exactly_and_flagged(command: str, shown: str, named: str) -> None:
    app = ApprovalHost(command)
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert live_characters(text) == [], live_characters(text)
        assert shown in text, "the whole command, escapes included, is on screen"
        flag = app.screen.query_one("#approval-hidden", Static)
        assert flag.display
        assert "hidden control characters" in text and named in text
        error = app.current_theme.to_color_system().error
        colour = flag.styles.color
        assert max(abs(colour.r - error.r), abs(colour.g - error.g), abs(colour.b - error.b)) <= 2
        await pilot.press("n")
        await wait_until(pilot, lambda: app.results == [False], what="the denial")


async def test_a_plain_command_has_no_flag_line() -> None:
    app = ApprovalHost("rm -rf build/\nmake install")
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "rm -rf build/" in text and "make install" in text
        assert not app.screen.query("#approval-hidden")
        assert "hidden control characters" not in text


async def test_the_real_app_asks_with_the_exact_command_the_model_sent(tmp_path: Path) -> None:
    command = "rm -rf ~/scratch\r\x1b[2Kls -la"
    with FakeLLMServer() as srv:
        srv.enqueue(
            Reply(tool_calls=[("c1", "terminal", json.dumps({"command": command}))]),
            Reply(text="Not run."),
        )
        app = make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", srv.base_url_openai, False))
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            await submit(pilot, app, "tidy up")
            await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), 10, "the approval modal")
            await pilot.pause()
            text = screen_text(app)
            assert "rm -rf ~/scratch\\r\\x1b[2Kls -la" in text
            assert "hidden control characters (CR, ESC)" in text
            assert live_characters(text) == []
            await pilot.press("n")
            await wait_turn(pilot, app)
            card = [i for i in app.main.conversation.items if i.kind == KIND_TOOL][-1]
            assert card.tool_status == "error" and "denied" in (card.result or "").lower()
            assert live_characters(screen_text(app)) == []
