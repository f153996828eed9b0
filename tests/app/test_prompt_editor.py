"""The prompt as an editor, in the real app over the fake LLM server: new lines, pastes, history, $EDITOR, @."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from textual import events

from hermes_tui.app import HermesApp
from hermes_tui.config import ProviderChoice
from hermes_tui.widgets.prompt_paste import HUGE_LINES
from hermes_tui.widgets.transcript import KIND_USER
from tests.app.test_app import make_app
from tests.fake_llm import FakeLLMServer, Reply
from tests.tui.helpers import screen_text, wait_until
from tests.waits import HANG_GUARD_S


def server_app(tmp_path: Path, srv: FakeLLMServer) -> HermesApp:
    return make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", srv.base_url_openai, False))


def last_user_content(srv: FakeLLMServer) -> Any:
    return [m for m in srv.requests[-1].body["messages"] if m["role"] == "user"][-1]["content"]


async def send_and_wait(pilot: Any, app: HermesApp, srv: FakeLLMServer) -> None:
    """Enter, then wait for the request to reach the server and the turn to end."""
    before, runs = len(srv.requests), app.turns.turn_runs
    await pilot.press("enter")
    await srv.wait_for_requests(before + 1, timeout=60)
    await wait_until(pilot, lambda: app.turns.turn_runs > runs and not app.turns.turn_running, 60, "the turn to end")


async def type_text(pilot: Any, text: str) -> None:
    await pilot.press(*[("space" if char == " " else char) for char in text])


async def test_ctrl_j_and_a_bracketed_paste_keep_their_lines_all_the_way_to_the_model(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        app = server_app(tmp_path, srv)
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            prompt = app.main.prompt
            await type_text(pilot, "line one")
            await pilot.press("ctrl+j")
            await type_text(pilot, "line two")
            assert prompt.value == "line one\nline two" and prompt.size.height == 2  # the box grew
            await send_and_wait(pilot, app, srv)
            assert last_user_content(srv) == "line one\nline two"
            assert prompt.value == ""

            app.post_message(events.Paste("Traceback (most recent call last):\r\n  File x.py\r\nValueError: boom"))
            await wait_until(pilot, lambda: prompt.value.count("\n") == 2, 5, "the pasted lines")
            await send_and_wait(pilot, app, srv)
            assert last_user_content(srv) == "Traceback (most recent call last):\n  File x.py\nValueError: boom"

            app.post_message(events.Paste("\n".join(f"row {n}" for n in range(30))))
            await wait_until(pilot, lambda: prompt.value.count("\n") == 29, 5, "a long paste")
            assert prompt.size.height == 10  # ten lines, then it scrolls
            users = [item.text for item in app.main.conversation.items if item.kind == KIND_USER]
            assert users == ["line one\nline two", "Traceback (most recent call last):\n  File x.py\nValueError: boom"]


async def test_a_huge_paste_is_one_token_that_backspace_removes_and_enter_sends_whole(tmp_path: Path) -> None:
    huge = "\n".join(f"log line {n}" for n in range(1234))
    with FakeLLMServer() as srv:
        app = server_app(tmp_path, srv)
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            prompt = app.main.prompt
            app.post_message(events.Paste(huge))
            await wait_until(pilot, lambda: prompt.value == "[pasted 1,234 lines]", 5, "the token")
            assert "[pasted 1,234 lines]" in screen_text(app)
            await pilot.press("backspace")
            assert prompt.value == ""  # the token went whole
            await type_text(pilot, "why this? ")
            app.post_message(events.Paste(huge))
            await wait_until(pilot, lambda: prompt.value == "why this? [pasted 1,234 lines]", 5, "the token again")
            await send_and_wait(pilot, app, srv)
            assert last_user_content(srv) == "why this? " + huge
            assert len(huge.splitlines()) > HUGE_LINES


async def test_up_on_the_first_line_and_down_on_the_last_walk_the_history_across_a_restart(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        app = server_app(tmp_path, srv)
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            for text in ("first question", "second\nquestion"):
                app.main.prompt.value = text
                await send_and_wait(pilot, app, srv)
        history = (tmp_path / "home" / ".hermes_history").read_text(encoding="utf-8")
        assert "+second\n+question\n" in history

        again = server_app(tmp_path, srv)
        async with again.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(again.ready.wait(), HANG_GUARD_S)
            prompt = again.main.prompt
            await wait_until(pilot, lambda: len(prompt.history) == 2, 5, "the history file read")
            await type_text(pilot, "draft")
            await pilot.press("up")
            assert prompt.value == "second\nquestion" and prompt.cursor_location == (0, 6)  # on its first line
            await pilot.press("up")
            assert prompt.value == "first question"
            await pilot.press("down")
            assert prompt.value == "second\nquestion" and prompt.cursor_location == (1, 8)  # on its last line
            await pilot.press("up")
            assert prompt.value == "second\nquestion" and prompt.cursor_location[0] == 0  # a line up, no walk
            await pilot.press("down", "down")
            assert prompt.value == "draft"


async def test_ctrl_e_and_slash_edit_hand_the_draft_to_the_editor_and_take_it_back(
    tmp_path: Path, monkeypatch: Any
) -> None:
    editor = tmp_path / "upper-editor"
    editor.write_text(
        f"#!{sys.executable}\nimport sys\npath = sys.argv[1]\ntext = open(path).read()\n"
        "open(path, 'w').write(text.upper() + 'AND A NEW LINE\\n')\n",
        encoding="utf-8",
    )
    editor.chmod(0o700)
    monkeypatch.setenv("EDITOR", str(editor))
    with FakeLLMServer() as srv:
        app = server_app(tmp_path, srv)
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            prompt = app.main.prompt
            await type_text(pilot, "make it loud")
            await pilot.press("ctrl+e")
            await wait_until(pilot, lambda: prompt.value == "MAKE IT LOUD\nAND A NEW LINE", 10, "the edited text")
            await send_and_wait(pilot, app, srv)
            assert last_user_content(srv) == "MAKE IT LOUD\nAND A NEW LINE"

            await type_text(pilot, "/edit quiet please")
            await pilot.press("enter")
            await wait_until(pilot, lambda: prompt.value == "QUIET PLEASE\nAND A NEW LINE", 10, "/edit's text")
            assert len(srv.requests) == 1  # /edit sent nothing

            monkeypatch.setenv("EDITOR", "false")  # an editor that fails: the draft stays as it was
            await pilot.press("ctrl+e")
            await wait_until(pilot, lambda: any("exited with 1" in n.message for n in app._notifications), 10, "x")
            assert prompt.value == "QUIET PLEASE\nAND A NEW LINE"


async def test_at_mentions_complete_files_and_attach_them_to_the_message(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        app = server_app(tmp_path, srv)
        project = tmp_path / "project"
        (project / "src" / "gadget").mkdir(parents=True)
        (project / "src" / "gadget" / "toggle.py").write_text("def toggle(x):\n    return not x\n", encoding="utf-8")
        (project / "src" / "main.py").write_text("print('hi')\n", encoding="utf-8")
        (project / "src" / "private.key.log").write_text("never offered\n", encoding="utf-8")
        (project / ".gitignore").write_text("*.log\n", encoding="utf-8")
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            prompt = app.main.prompt
            await type_text(pilot, "look at @src/")
            await wait_until(pilot, lambda: bool(prompt.completions), 10, "the folder's entries")
            assert [c.label for c in prompt.completions] == ["src/gadget/", "src/main.py"]  # no ignored file
            assert "src/gadget/" in screen_text(app)  # the completion list is on screen
            await pilot.press("tab")  # into the folder: its entries come next
            assert prompt.value == "look at @src/gadget/"
            await wait_until(pilot, lambda: [c.label for c in prompt.completions] == ["src/gadget/toggle.py"], 10, "x")
            await pilot.press("tab")
            assert prompt.value == "look at @src/gadget/toggle.py "
            await type_text(pilot, "and @READ")
            await wait_until(pilot, lambda: prompt.suggestion == "ME.md", 10, "the inline suggestion")
            await pilot.press("right")
            assert prompt.value == "look at @src/gadget/toggle.py and @README.md "
            await type_text(pilot, "@priv")
            await wait_until(pilot, lambda: not prompt.completions and prompt._target is not None, 10, "none offered")
            await pilot.press("backspace", "backspace", "backspace", "backspace", "backspace")
            srv.enqueue(Reply(text="It toggles."))
            await send_and_wait(pilot, app, srv)
            sent = last_user_content(srv)
            assert sent.startswith("look at @src/gadget/toggle.py and @README.md")
            assert '<file path="src/gadget/toggle.py">\ndef toggle(x):\n    return not x\n</file>' in sent
            assert '<file path="README.md">\n# Gadget' in sent
            assert app.main.conversation.items[0].text == "look at @src/gadget/toggle.py and @README.md"
            log = " ".join(entry.text for entry in app.main.review_log.entries)
            assert "Attached src/gadget/toggle.py (2 lines), README.md (3 lines)" in log


async def test_at_session_completes_a_title_and_quotes_that_sessions_last_answer(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        app = server_app(tmp_path, srv)
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            prompt = app.main.prompt
            srv.enqueue(Reply(text="The gadget toggles twice a day."))
            prompt.value = "how often does it toggle?"
            await send_and_wait(pilot, app, srv)
            first = app.agent.session_id
            prompt.value = "/title Gadget facts"
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.agent.session.title == "Gadget facts", 60, "the title to be set")
            await wait_until(pilot, lambda: not app.turns.busy, 60, "/title to finish")
            prompt.value = "/new"
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.agent.session_id != first, 60, "the new session")
            await wait_until(pilot, lambda: not app.turns.busy, 60, "/new to finish")
            await type_text(pilot, "remember @session:gad")
            await wait_until(pilot, lambda: [c.label for c in prompt.completions] == ["Gadget facts"], 10, "the title")
            await pilot.press("tab")
            assert prompt.value == 'remember @session:"Gadget facts" '
            await send_and_wait(pilot, app, srv)
            sent = last_user_content(srv)
            assert sent == (
                'remember @session:"Gadget facts"\n\n'
                f'<session-answer session="{first}" title="Gadget facts">\n'
                "The gadget toggles twice a day.\n</session-answer>"
            )
