"""In the TUI a checkpoint and a rollback each leave one line in the Review log, and /rollback works."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hermes_tui.config import ProviderChoice
from tests.app.test_app import make_app, submit, wait_turn
from tests.checkpoints.helpers import write_call
from tests.fake_llm import FakeLLMServer, Reply
from tests.tui.helpers import wait_until
from tests.waits import HANG_GUARD_S


async def test_checkpoint_and_rollback_show_in_the_review_log(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        server.enqueue(Reply(tool_calls=[write_call("w", "README.md", "rewritten\n")]), Reply(text="Rewritten."))
        app = make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", server.base_url_openai, False))
        readme = tmp_path / "project" / "README.md"
        original = readme.read_bytes()
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            await submit(pilot, app, "rewrite the readme")
            await wait_turn(pilot, app)
            assert readme.read_text() == "rewritten\n"

            def log_lines(word: str) -> list[str]:
                return [entry.text for entry in app.main.review_log.entries if word in entry.text]

            [taken] = log_lines("Checkpoint 1")
            assert "turn #1" in taken and "/rollback 1 restores it" in taken
            app.main.prompt.value = "/rollback 1"
            await pilot.press("enter")
            await wait_until(pilot, lambda: bool(log_lines("Files restored")), 10, "the rollback's Review-log line")
            [restored] = log_lines("Files restored")
            assert "checkpoint 1" in restored and "/rollback 2 undoes it" in restored
            assert readme.read_bytes() == original
