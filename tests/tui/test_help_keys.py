"""The help screen's key list comes from the Binding objects, not from a hand-typed table."""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual.app import App
from textual.binding import Binding

from hermes_tui.app import HermesApp
from hermes_tui.keymap import CTRL_C_LADDER, declared_bindings, key_label
from hermes_tui.screens.approval import ApprovalScreen
from hermes_tui.screens.context import ContextScreen
from hermes_tui.screens.help import HelpScreen
from hermes_tui.screens.main import STYLES_PATH, MainScreen
from hermes_tui.widgets.conversation import ConversationView
from hermes_tui.widgets.lineage_tree import LineageTree
from hermes_tui.widgets.prompt_input import PromptInput
from hermes_tui.widgets.queue_line import QueueLine
from hermes_tui.widgets.token_gauge import TokenGauge
from hermes_tui.widgets.tool_card import ToolCard

from .helpers import fixed_epoch_clock, fixed_wall_clock, wait_until, widget_text

WIDGETS = (
    MainScreen,
    PromptInput,
    QueueLine,
    ConversationView,
    ToolCard,
    LineageTree,
    TokenGauge,
    ContextScreen,
    ApprovalScreen,
)


class HelpHost(App[Any]):
    CSS_PATH = STYLES_PATH

    def on_mount(self) -> None:
        self.push_screen(MainScreen(wall_clock=fixed_wall_clock, epoch_clock=fixed_epoch_clock))


async def help_keys_text() -> str:
    app = HelpHost()
    async with app.run_test(size=(120, 240)) as pilot:
        await pilot.pause()
        app.push_screen(HelpScreen())
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help screen")
        await pilot.pause()
        return widget_text(app, app.screen.query_one("#help-keys"))


def shows(text: str, binding: Binding) -> bool:
    """True when a line of `text` shows the binding's key (maybe among others) and its description."""
    label = re.escape(key_label(binding.key))
    pattern = rf"^(?:\S.*? / )?{label}(?: / .*?)?\s{{2,}}{re.escape(binding.description)}$"
    return any(re.match(pattern, line.strip()) for line in text.splitlines())


async def test_every_described_binding_of_the_app_screen_and_widgets_is_listed() -> None:
    text = await help_keys_text()
    app_bindings = list(Binding.make_bindings(HermesApp.BINDINGS))
    priority_keys = {binding.key for binding in app_bindings if binding.priority}
    for binding in app_bindings:
        assert shows(text, binding), binding
    checked = 0
    for owner in WIDGETS:
        for binding in declared_bindings(owner):
            if not binding.description:  # a key passed on (the prompt leaves F6/F7 to the app): nothing to list
                continue
            if binding.key in priority_keys:  # the app takes these first; the widget never sees them
                assert not shows(text, binding), binding
                continue
            assert shows(text, binding), (owner.__name__, binding)
            checked += 1
    assert checked >= 20
    assert CTRL_C_LADDER in " ".join(text.split())  # the ladder note, however the dialog wraps it


async def test_f1_is_bound_once_and_listed_once() -> None:
    f1_bindings = [
        binding
        for binding in [*Binding.make_bindings(HermesApp.BINDINGS), *declared_bindings(MainScreen)]
        if binding.key == "f1"
    ]
    assert len(f1_bindings) == 1
    text = await help_keys_text()
    assert len(re.findall(r"^F1\s", text, flags=re.MULTILINE)) == 1


async def test_a_binding_added_to_a_widget_shows_up_in_the_help_without_touching_the_help(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    extra = Binding("ctrl+k", "delete_right_all", "Delete to the end of the line", show=False)
    monkeypatch.setattr(PromptInput, "BINDINGS", [*PromptInput.BINDINGS, extra])
    text = await help_keys_text()
    assert shows(text, extra)
    assert "Ctrl+K" in text


def test_keys_are_spelled_for_people() -> None:
    assert [key_label(key) for key in ("ctrl+c", "shift+tab", "f1", "up", "escape", "y", "enter", "pagedown")] == [
        "Ctrl+C",
        "Shift+Tab",
        "F1",
        "↑",
        "Esc",
        "y",
        "Enter",
        "PgDn",
    ]
