"""StatusBar: provider:model, the DEMO badge, the session and the turn state."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Label

from hermes_tui.screens.main import STYLES_PATH, MainScreen
from hermes_tui.widgets.status_bar import StatusBar

from .helpers import HostApp, screen_text


async def test_the_demo_provider_always_shows_a_demo_badge() -> None:
    app = HostApp(lambda: [StatusBar()])
    async with app.run_test(size=(100, 3)) as pilot:
        bar = app.query_one(StatusBar)
        bar.set_provider("demo", "hermes-demo")
        await pilot.pause()
        assert "demo:hermes-demo   DEMO" in screen_text(app)
        assert app.query_one("#status-demo", Label).display
        bar.set_provider("openai", "gpt-4o")
        await pilot.pause()
        text = screen_text(app)
        assert "openai:gpt-4o" in text and "DEMO" not in text


async def test_session_and_state_are_shown() -> None:
    app = HostApp(lambda: [StatusBar()])
    async with app.run_test(size=(100, 3)) as pilot:
        bar = app.query_one(StatusBar)
        bar.set_provider("anthropic", "claude-sonnet-4")
        await pilot.pause()
        assert "anthropic:claude-sonnet-4" in screen_text(app)
        assert "new session" in screen_text(app)
        assert "○ idle" in screen_text(app)
        bar.set_session("20261126_203200_2c1332", "refactor auth #3")
        bar.state = "streaming"
        await pilot.pause()
        text = screen_text(app)
        assert "refactor auth #3 · 2c1332" in text
        assert "● streaming" in text
        assert app.query_one("#status-state").has_class("-streaming")
        bar.state = "running read_file"
        bar.set_session("20261126_221200_95d92f", None)
        await pilot.pause()
        text = screen_text(app)
        assert "untitled · 95d92f" in text and "⚙ running read_file" in text
        assert app.query_one("#status-state").has_class("-running")
        assert not app.query_one("#status-state").has_class("-streaming")
        bar.session = "20261126_230000_abcdef"
        await pilot.pause()
        assert "untitled · abcdef" in screen_text(app)


async def test_the_main_screen_shows_the_provider_from_its_first_frame() -> None:
    class Host(App[None]):
        CSS_PATH = STYLES_PATH

        def get_default_screen(self) -> MainScreen:
            return MainScreen(provider_label="demo:hermes-demo", is_demo=True)

    app = Host()
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        assert "demo:hermes-demo   DEMO" in screen_text(app)


async def test_titles_that_look_like_markup_are_shown_as_typed() -> None:
    app = HostApp(lambda: [StatusBar()])
    async with app.run_test(size=(100, 3)) as pilot:
        bar = app.query_one(StatusBar)
        bar.set_provider("openai", "[gpt]")
        bar.set_session("20261126_203200_2c1332", "[b]not bold[/")
        await pilot.pause()
        text = screen_text(app)
        assert "openai:[gpt]" in text and "[b]not bold[/ · 2c1332" in text
