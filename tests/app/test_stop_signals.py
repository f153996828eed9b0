"""SIGTERM and SIGHUP stop the TUI the way Ctrl-C stops a turn, then quit with 128 + the signal.

The real app under Pilot receives a real signal (sent to this process, once the app's handler is
in place): the streaming answer stays saved and marked interrupted, the session ends with the
signal's reason, and the app's return code is 143 (SIGTERM) or 129 (SIGHUP).
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from hermes_tui.config import ProviderChoice
from tests.app.test_app import db_rows, make_app, submit, wait_exit
from tests.fake_llm import FakeLLMServer, Hang
from tests.tui.helpers import wait_until
from tests.waits import HANG_GUARD_S


@pytest.mark.parametrize(
    ("signum", "code", "reason"), [(signal.SIGTERM, 143, "sigterm"), (signal.SIGHUP, 129, "sighup")]
)
async def test_a_stop_signal_interrupts_the_turn_saves_it_and_quits(
    tmp_path: Path, signum: int, code: int, reason: str
) -> None:
    with FakeLLMServer() as srv:
        srv.enqueue(Hang(seconds=600, first_text="Half an answer"))
        app = make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", srv.base_url_openai, False))
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            await submit(pilot, app, "think out loud")
            await wait_until(
                pilot, lambda: "Half an answer" in app.main.conversation.streamed_text(), 10, "the first delta"
            )
            assert signal.getsignal(signum) not in (signal.SIG_DFL, signal.SIG_IGN), "the app handles the signal"
            os.kill(os.getpid(), signum)
            await wait_exit(app, timeout=10)
        assert app.return_code == code
        assert db_rows(app, "select role, content, finish_reason from messages order by id") == [
            ("user", "think out loud", None),
            ("assistant", "Half an answer", "interrupted"),
        ]
        assert db_rows(app, "select end_reason from sessions") == [(reason,)]
    assert signal.getsignal(signum) == signal.SIG_DFL, "the handler is removed with the app"
