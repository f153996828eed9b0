"""PromptInput: submit, history walk, placeholder, set_text, slash suggestions, Ctrl-C clearing, pastes."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from hermes_tui.core.commands import COMMANDS
from hermes_tui.widgets.prompt_input import PLACEHOLDER, PromptInput

from .helpers import HostApp, screen_text, wait_until


class PromptHost(HostApp):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+c", "app_ctrl_c", "ladder")]

    def __init__(self) -> None:
        super().__init__(lambda: [PromptInput(id="prompt")])
        self.submitted: list[str] = []
        self.app_ctrl_c_presses = 0

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        self.submitted.append(message.text)

    def action_app_ctrl_c(self) -> None:
        self.app_ctrl_c_presses += 1


async def type_text(pilot: Any, text: str) -> None:
    await pilot.press(*[("space" if char == " " else char) for char in text])


async def test_enter_submits_non_empty_text_and_clears_the_line() -> None:
    app = PromptHost()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await type_text(pilot, "hello there")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.submitted == ["hello there"])
        assert prompt.value == ""
        await type_text(pilot, "   ")
        await pilot.press("enter")
        await pilot.pause()
        assert app.submitted == ["hello there"]


async def test_up_and_down_walk_the_prompt_history_and_restore_the_draft() -> None:
    app = PromptHost()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        for text in ("first", "second", "third"):
            await type_text(pilot, text)
            await pilot.press("enter")
        await type_text(pilot, "draft")
        await pilot.press("up")
        assert prompt.value == "third"
        await pilot.press("up", "up", "up")
        assert prompt.value == "first"
        await pilot.press("down")
        assert prompt.value == "second"
        await pilot.press("down", "down")
        assert prompt.value == "draft"
        assert prompt.history == ["first", "second", "third"]


async def test_the_placeholder_invites_a_prompt() -> None:
    app = PromptHost()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert PLACEHOLDER == "Ask anything — /help for commands, @ for files, Ctrl+J for a new line"
        assert PLACEHOLDER in screen_text(app)


async def test_set_text_restores_removed_text_with_the_cursor_at_the_end() -> None:
    app = PromptHost()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        prompt.set_text("the prompt /undo removed")
        await pilot.press("!")
        assert prompt.value == "the prompt /undo removed!"


async def test_slash_commands_are_suggested_and_right_accepts() -> None:
    app = PromptHost()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await type_text(pilot, "/comp")
        await wait_until(pilot, lambda: prompt.suggestion == "ress", what="the /compress suggestion")
        await pilot.press("right")
        assert prompt.value == "/compress"
        registry = {f"/{name}" for command in COMMANDS for name in (command.name, *command.aliases)}
        assert set(prompt.slash_suggester.candidates) == registry
        assert set(prompt.slash_suggester.candidates) >= {
            "/new", "/resume", "/branch", "/fork", "/title", "/sessions", "/history", "/undo",
            "/retry", "/compress", "/help", "/quit", "/usage", "/reset", "/exit",
        }  # fmt: skip
        assert {"/search", "/compare", "/inspect"} <= set(prompt.slash_suggester.candidates)


async def test_a_shared_prefix_completes_to_the_command_not_its_alias_and_aliases_complete_too() -> None:
    app = PromptHost()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        for typed, suggested in (("/re", "/resume"), ("/fo", "/fork"), ("/SE", "/sessions"), ("/ex", "/exit")):
            prompt.value = ""
            await type_text(pilot, typed)
            rest = suggested[len(typed) :]
            await wait_until(pilot, lambda r=rest: prompt.suggestion == r, what=f"the {suggested} suggestion")
        suggester = prompt.slash_suggester
        assert await suggester.get_suggestion("/new my") is None  # arguments are the user's own
        assert await suggester.get_suggestion("hello") is None  # only slash commands are completed
        assert await suggester.get_suggestion("/zzz") is None


async def test_submit_text_sends_like_enter_and_keeps_the_draft_on_the_line() -> None:
    app = PromptHost()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await type_text(pilot, "half a draft")
        prompt.submit_text("/usage")
        await wait_until(pilot, lambda: app.submitted == ["/usage"], what="the submitted command")
        assert prompt.value == "half a draft"
        assert prompt.history == ["/usage"]


async def test_ctrl_c_clears_text_first_and_passes_on_when_empty() -> None:
    app = PromptHost()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await type_text(pilot, "half a thought")
        await pilot.press("ctrl+c")
        assert prompt.value == ""
        assert app.app_ctrl_c_presses == 0
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: app.app_ctrl_c_presses == 1, what="the app's ctrl+c")


async def test_a_paste_never_puts_escape_sequences_in_the_prompt() -> None:
    from textual import events

    app = PromptHost()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        prompt.post_message(events.Paste("ls -la\x1b[2K\rrm -rf ~\u202e\nsecond line"))
        await pilot.pause()
        assert (
            prompt.value == "ls -la[2K\nrm -rf ~\nsecond line"
        )  # ESC and the bidi override are gone; CR is a line end
        prompt.set_text("undo \x1b]0;title\x07back\ttab")
        assert prompt.value == "undo ]0;titleback\ttab"  # a tab stays (pasted code keeps its indentation)
