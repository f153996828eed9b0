"""A fallback as the user sees it in the real app: announced in the Review log, the status bar follows."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hermes_tui.config import ProviderChoice, Settings
from hermes_tui.config_chain import ChainSettings, FallbackEntry
from tests.app.test_app import db_rows, make_app, submit, wait_turn
from tests.fake_llm import Fail, FakeLLMServer, Reply
from tests.tui.helpers import wait_until
from tests.waits import HANG_GUARD_S


async def test_a_fallback_is_announced_in_the_review_log_and_the_status_bar(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        srv.enqueue(Fail(402, "Your credit balance is too low"), Reply(text="Claude took over."))
        settings = Settings()
        settings.chain = ChainSettings(
            fallback_providers=[
                FallbackEntry(
                    provider="anthropic",
                    model="claude-opus-4",
                    base_url=srv.base_url_anthropic,
                    api_keys=("sk-fallback-key-9999",),
                )
            ]
        )
        app = make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", srv.base_url_openai, False), settings)
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            assert app.main.status_bar.provider_label == "openai:gpt-4o-mini"
            session = app.agent.session_id
            await submit(pilot, app, "hello")
            await wait_turn(pilot, app)
            log = app.main.review_log
            await wait_until(pilot, lambda: any(e.kind == "fallback" for e in log.entries), what="the fallback entry")
            entries = [(entry.kind, entry.text) for entry in log.entries]
            fallback = [text for kind, text in entries if kind == "fallback"]
            assert len(fallback) == 1 and "anthropic:claude-opus-4" in fallback[0] and "billing" in fallback[0]
            bar, gauge = app.main.status_bar, app.main.gauge
            await wait_until(pilot, lambda: bar.provider_label == "anthropic:claude-opus-4", what="the status bar")
            await wait_until(pilot, lambda: gauge.budget.context_length == 200_000, what="the fallback's window")
            assert "Claude took over." in app.main.conversation.items[-1].text
            assert app.agent.session_id == session
            roles = [row[0] for row in db_rows(app, "select role from messages where session_id = ?", session)]
            assert roles == ["user", "assistant"]
            assert all("9999" not in text for _kind, text in entries)
