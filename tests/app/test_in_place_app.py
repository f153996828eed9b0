"""A session Hermes compacted in place, in the real app (Pilot, real state.db, the fake server): the tree
says "compacted N×", resuming it says what the summary stands for, F4 shows what was replaced, and a
/compress there compacts in place again (config.yaml's `compression.in_place`)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.config import Home, load_settings, resolve_provider
from hermes_tui.screens.compress_preview import CompressPreviewScreen
from hermes_tui.screens.compression_inspector import CompressionInspectorScreen
from tests.app.test_app import submit, wait_turn
from tests.app.test_power_app import notices, send
from tests.conftest import copy_hermes_home_v21
from tests.core.helpers import background_work
from tests.fake_llm import FakeLLMServer, Reply
from tests.tui.helpers import wait_until, widget_text
from tests.waits import HANG_GUARD_S

IN_PLACE = "20261128_101500_a1b2c3"
DETAIL = " The refresh token rotates on use, the old one is revoked and the audit log records it." * 25
SIZE = (140, 44)


def hermes_app(tmp_path: Path, port: int) -> HermesApp:
    home = Home(copy_hermes_home_v21(tmp_path / "hermes", port=port))
    settings = background_work(load_settings(home, env={}), auto_title=False, review=False)
    project = tmp_path / "project"
    project.mkdir()
    return HermesApp(
        home=home, settings=settings, choice=resolve_provider(settings, env={}), cwd=project, resume=IN_PLACE
    )


async def test_a_session_compacted_in_place_in_the_app(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        app = hermes_app(tmp_path, srv.port)
        async with app.run_test(size=SIZE) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            assert app.agent.session_id == IN_PLACE
            note = "Compacted in place 1× — 12 earlier messages are kept in the record; F4 shows them"
            await wait_until(pilot, lambda: note in notices(app), 10, f"the resume note: {notices(app)}")
            tree = app.main.lineage
            await wait_until(
                pilot, lambda: "compacted 1×" in widget_text(app, tree), 10, "the tree to say compacted 1×"
            )

            # F4: the inspector opens on the session itself, listing what the compaction replaced
            await pilot.press("f4")
            await wait_until(pilot, lambda: isinstance(app.screen, CompressionInspectorScreen), 10, "the inspector")
            screen = app.screen
            await wait_until(pilot, lambda: screen.details is not None, 10, "the details")
            assert screen.details.in_place and len(screen.details.summarised) == 12
            assert "walrus" in screen.details.summarised[0].text
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, CompressionInspectorScreen), 5, "closed")

            # more turns, then /compress: compacted in place again, the same session
            for index in range(3):
                srv.enqueue(Reply(text=f"Answer {index}.{DETAIL}"))
                await submit(pilot, app, f"question {index} about the refresh flow")
                await wait_turn(pilot, app)
            srv.enqueue(Reply(text="## Active Task\nWrite the auth tests.\n## Completed Actions\n1. flows covered"))
            await send(pilot, app, "/compress")
            await wait_until(pilot, lambda: isinstance(app.screen, CompressPreviewScreen), 10, "the preview")
            await pilot.press("y")
            await wait_until(
                pilot, lambda: any(n.startswith("Context compacted in place") for n in notices(app)), 10, "the notice"
            )
            assert app.agent.session_id == IN_PLACE
            await wait_until(
                pilot, lambda: "compacted 2×" in widget_text(app, tree), 10, "the tree to say compacted 2×"
            )
