"""The provider's SDK client is built when the user first types, not at start-up (issue 23: memory).

A session opened to be read never holds the SDK (the OpenAI SDK is ~22 MB once imported); the first
key typed into the prompt starts the warm-up, so the first turn still finds the client built.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.app.test_app import make_app
from tests.core.helpers import openai_choice
from tests.fake_llm import Reply
from tests.fresh_python import fresh_python
from tests.tui.helpers import wait_until
from tests.waits import HANG_GUARD_S


async def test_start_up_leaves_the_sdk_client_unbuilt_until_the_first_key(tmp_path: Path, server: Any) -> None:
    app = make_app(tmp_path, openai_choice(server.base_url_openai))
    async with app.run_test(size=(100, 30)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await wait_until(pilot, lambda: app.gc_pacer.started, what="the end of start-up")
        await pilot.pause()
        assert app.agent is not None
        provider: Any = app.agent.provider
        assert provider._client is None and not app.warm_up.started
        await pilot.press("h")
        await wait_until(pilot, lambda: provider._client is not None, what="the warm-up after the first key")
        assert app.main.prompt.value == "h"


async def test_a_turn_sent_before_any_warm_up_still_gets_its_answer(tmp_path: Path, server: Any) -> None:
    server.enqueue(Reply(text="Pong."))
    app = make_app(tmp_path, openai_choice(server.base_url_openai))
    async with app.run_test(size=(100, 30)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        app.main.prompt.value = "ping"  # sent at once: the warm-up, if one started, races the turn
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.turns.turn_runs > 0 and not app.turns.turn_running, what="the turn")
        assert any("Pong." in item.text for item in app.main.conversation.items)


def test_the_warm_up_compiles_the_common_fence_lexers_before_any_answer_needs_them() -> None:
    """A fresh process (lexers are compiled once per process): Python's lexer is uncompiled until
    the warm-up's thread function ran, so the first Python fence of a stream costs the loop nothing."""
    script = (
        "from pygments.lexers.python import PythonLexer\n"
        "before = '_tokens' in PythonLexer.__dict__\n"
        "from hermes_tui.ui import warm_up\n"
        "warm_up._first_answer_warm_up(warm_up.FIRST_ANSWER_MODULES)\n"
        "print(before, '_tokens' in PythonLexer.__dict__)\n"
    )
    assert fresh_python(script).split() == ["False", "True"]


def test_a_turns_wait_for_the_answer_modules_imports_them_while_the_loop_runs() -> None:
    """A fresh process (the modules are imported once per process): nothing typed yet, so nothing
    imported them; the turn's wait imports them off the loop and returns once they are in."""
    script = (
        "import asyncio, sys\n"
        "from hermes_tui.lazy_imports import module_imported\n"
        "from hermes_tui.ui import warm_up\n"
        "async def main():\n"
        "    before = any(m in sys.modules for m in warm_up.FIRST_ANSWER_MODULES)\n"
        "    beats = 0\n"
        "    async def heart():\n"
        "        nonlocal beats\n"
        "        while True:\n"
        "            beats += 1\n"
        "            await asyncio.sleep(0)\n"
        "    beating = asyncio.ensure_future(heart())\n"
        "    await warm_up.answer_modules_ready()\n"
        "    after = all(module_imported(m) for m in warm_up.FIRST_ANSWER_MODULES)\n"
        "    beating.cancel()\n"
        "    print(before, after, beats > 10)\n"
        "asyncio.run(main())\n"
    )
    assert fresh_python(script).split() == ["False", "True", "True"]
