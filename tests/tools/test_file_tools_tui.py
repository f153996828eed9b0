"""The TUI keeps answering Ctrl-C and Ctrl-Q while search_files walks a huge tree (the whole machine from /)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.config import ProviderChoice
from hermes_tui.core.tools import file_search
from hermes_tui.core.turn.runner import INTERRUPTED_TOOL_RESULT
from hermes_tui.screens.approval import ApprovalScreen
from tests.app.test_app import db_rows, make_app, submit, wait_exit
from tests.fake_llm import FakeLLMServer, Reply
from tests.tools.helpers import threads_running_code_from
from tests.tui.helpers import wait_until
from tests.waits import HANG_GUARD_S

SEARCH_EVERYTHING = json.dumps({"pattern": "needle-that-is-never-there", "path": "/"})


async def start_search_from_root(pilot, app: HermesApp) -> None:
    """Ask for a content search of /, approve it in the modal, and wait until the walk is under way."""
    await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
    await submit(pilot, app, "find the needle anywhere on this machine")
    await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), 10, "the approval modal")
    await pilot.press("y")
    await wait_until(
        pilot, lambda: threads_running_code_from(file_search.__file__) > 0, 10, "the search to walk the tree"
    )


def openai_app(tmp_path: Path, server: FakeLLMServer) -> HermesApp:
    return make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", server.base_url_openai, False))


async def test_ctrl_c_interrupts_a_search_of_the_whole_machine(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        server.enqueue(Reply(tool_calls=[("c1", "search_files", SEARCH_EVERYTHING)]))
        server.enqueue(Reply(text="Nothing found."))
        app = openai_app(tmp_path, server)
        async with app.run_test(size=(120, 40)) as pilot:
            await start_search_from_root(pilot, app)
            await pilot.press("ctrl+c")
            await wait_until(pilot, lambda: not app.turns.turn_running, 5, "Ctrl-C to end the turn")
            # The search was still running when it was interrupted: its result is the interruption.
            tool_rows = db_rows(app, "select content from messages where role='tool'")
            assert tool_rows == [(INTERRUPTED_TOOL_RESULT,)]
            await pilot.press("h", "i")
            assert app.main.prompt.value == "hi"
            await wait_until(pilot, lambda: threads_running_code_from(file_search.__file__) == 0, 3, "the walk to stop")


async def test_ctrl_q_quits_during_a_search_of_the_whole_machine(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        server.enqueue(Reply(tool_calls=[("c1", "search_files", SEARCH_EVERYTHING)]))
        server.enqueue(Reply(text="Nothing found."))
        app = openai_app(tmp_path, server)
        async with app.run_test(size=(120, 40)) as pilot:
            await start_search_from_root(pilot, app)
            await pilot.press("ctrl+q")
            await wait_exit(app, 5)
        assert app.return_code == 0
        assert db_rows(app, "select content from messages where role='tool'") == [(INTERRUPTED_TOOL_RESULT,)]
        assert db_rows(app, "select end_reason from sessions") == [("tui_shutdown",)]
