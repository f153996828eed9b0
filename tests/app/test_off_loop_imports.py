"""The Markdown stack is imported off the event loop when a resumed session's answers are shown: on the
loop it held keys typed while the session opened (and the warm-up's thread importing it at the same
time made the loop wait for that thread's import lock). A fresh process: it is imported once."""

from __future__ import annotations

from tests.fresh_python import fresh_python

SCRIPT = """
import asyncio, sys, tempfile, threading
from pathlib import Path

on_main_thread = []

class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "hermes_tui.widgets.answer_body":
            on_main_thread.append(threading.current_thread() is threading.main_thread())
        return None

sys.meta_path.insert(0, Spy())
from tests.app.test_resume_refs import STORED, _app, _home_with_one_session

async def main(tmp):
    home = await _home_with_one_session(tmp)
    app = _app(tmp, home, STORED)
    async with app.run_test(size=(100, 30)) as pilot:
        await asyncio.wait_for(app.ready.wait(), 60)
        await app.main.conversation.history_loaded()
        await pilot.pause()
        rows = [type(row).__name__ for row in app.main.conversation.mounted_rows]
    print(on_main_thread, "AssistantMessage" in rows)

with tempfile.TemporaryDirectory() as folder:
    asyncio.run(main(Path(folder)))
"""


def test_a_resumed_sessions_answers_import_the_markdown_stack_in_a_thread() -> None:
    out = fresh_python(SCRIPT)
    assert out.split() == ["[False]", "True"]


REVEAL_SCRIPT = """
import asyncio, sys
from tests.tui.test_conversation import host, long_history
from hermes_tui.widgets.conversation import ConversationView

async def main():
    app = host()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        # as the presenter does for a search hit: the history's load is not awaited before the reveal
        loading = view.load_history(long_history(200))
        revealing = view.reveal_item(10)
        await loading
        await revealing
        await pilot.pause()
        marked = [row.item.text for row in view.query(".-marked")]
    print("hermes_tui.widgets.answer_body" in sys.modules, marked)

asyncio.run(main())
"""


def test_a_reveal_asked_for_while_the_history_loads_comes_after_the_load() -> None:
    # The history's load now waits for the Markdown stack's import in a thread; a reveal asked for
    # meanwhile (a search hit) must still come after the load, or the load resets the view to the
    # newest rows and "Branch here" branches at the wrong message (the tmux power-path test saw it).
    out = fresh_python(REVEAL_SCRIPT)
    assert out.strip().split(maxsplit=1) == ["True", "['question 5']"]
