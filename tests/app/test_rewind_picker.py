"""The rewind picker (F6, Esc Esc when idle) with a real agent, real checkpoints and the fake server:
it lists the turns newest first with their checkpoints, and restores the files (compared by
sha256), the conversation (a branch from just before the message) or both; the rewind is undoable,
logged, and refused while a turn runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.config import ProviderChoice
from hermes_tui.screens.rewind import STEP_CONFIRM, STEP_WHAT, RewindScreen
from hermes_tui.widgets.transcript import KIND_USER
from tests.app.test_app import make_app, submit, wait_turn
from tests.checkpoints.helpers import folder_state, write_call
from tests.fake_llm import FakeLLMServer, Hang, Reply
from tests.tui.helpers import screen_text, wait_until, widget_text
from tests.waits import HANG_GUARD_S

SIZE = (120, 44)
FIRST = "rewrite the readme"
SECOND = "add a notes file"


def openai_app(tmp_path: Path, server: FakeLLMServer) -> HermesApp:
    return make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", server.base_url_openai, False))


def two_turns(server: FakeLLMServer) -> None:
    """Turn 1 rewrites README.md (checkpoint 1), turn 2 patches it and creates NOTES.md (checkpoint 2)."""
    patch = {"mode": "replace", "path": "README.md", "old_string": "rewritten", "new_string": "patched"}
    server.enqueue(
        Reply(tool_calls=[write_call("w1", "README.md", "# Gadget\n\nrewritten\n")]),
        Reply(text="Rewritten."),
        Reply(tool_calls=[("p1", "patch", json.dumps(patch)), write_call("w2", "NOTES.md", "notes\n")]),
        Reply(text="Patched and noted."),
    )


async def run_two_turns(pilot, app: HermesApp) -> None:
    await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
    for text in (FIRST, SECOND):
        await submit(pilot, app, text)
        await wait_turn(pilot, app)


async def open_picker(pilot, app: HermesApp, *keys: str) -> RewindScreen:
    await pilot.press(*keys)
    await wait_until(pilot, lambda: isinstance(app.screen, RewindScreen), 10, "the rewind picker")
    screen = app.screen
    assert isinstance(screen, RewindScreen)
    await pilot.pause()
    return screen


async def pick(pilot, app: HermesApp, screen: RewindScreen, turn_row: int, what_row: int) -> str:
    """Choose the `turn_row`-th turn (0 = newest) and the `what_row`-th choice; returns the confirmation."""
    for _ in range(turn_row):
        await pilot.press("down")
    await pilot.press("enter")
    await wait_until(pilot, lambda: screen.step == STEP_WHAT, 5, "the choices")
    options = screen.query_one("#rewind-what-list")
    options.highlighted = what_row  # type: ignore[attr-defined]
    await pilot.press("enter")
    await wait_until(pilot, lambda: screen.step == STEP_CONFIRM, 5, "the confirmation")
    if screen.choice is not None and screen.choice.what.restores_code:
        await wait_until(pilot, lambda: bool(screen.summary_text), 10, "what the restore changes")
    await pilot.pause()
    return screen_text(app)


def rewind_lines(app: HermesApp) -> list[str]:
    return [entry.text for entry in app.main.review_log.entries if entry.kind == "rewind"]


async def test_the_picker_lists_the_turns_newest_first_and_restores_the_files(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        two_turns(server)
        app = openai_app(tmp_path, server)
        project = tmp_path / "project"
        before = folder_state(project)
        async with app.run_test(size=SIZE) as pilot:
            await run_two_turns(pilot, app)
            after = folder_state(project)
            assert after != before and "NOTES.md" in after
            session = app.agent.session_id
            screen = await open_picker(pilot, app, "f6")
            listed = widget_text(app, screen.query_one("#rewind-turn-list"))
            assert listed.index("#2") < listed.index("#1")  # newest first
            assert SECOND in listed and FIRST in listed
            assert "checkpoint 1 · 2 files" in listed and "checkpoint 2 · 2 files" in listed
            shown = await pick(pilot, app, screen, turn_row=1, what_row=2)  # turn #1, the code only
            assert "Files: back to checkpoint 1" in shown and "README.md" in shown and "NOTES.md" in shown
            await pilot.press("y")
            await wait_until(pilot, lambda: bool(rewind_lines(app)), 10, "the rewind's Review-log line")
            assert folder_state(project) == before  # every file as it was before turn #1, byte for byte
            assert app.agent.session_id == session  # the conversation stays
            [line] = rewind_lines(app)
            assert "Files as before turn #1 (checkpoint 1)" in line and "/rollback 3 undoes it" in line
            assert any("Files restored to checkpoint 1" in e.text for e in app.main.review_log.entries)
            # the rewind is itself undoable: the checkpoint it took first brings the edits back
            await submit(pilot, app, "/rollback 3")
            await wait_until(pilot, lambda: folder_state(project) == after, 10, "the undo")


async def test_esc_esc_rewinds_the_conversation_into_a_branch_with_the_text_back(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        two_turns(server)
        app = openai_app(tmp_path, server)
        project = tmp_path / "project"
        async with app.run_test(size=SIZE) as pilot:
            await run_two_turns(pilot, app)
            files = folder_state(project)
            old = app.agent.session_id
            screen = await open_picker(pilot, app, "escape", "escape")
            shown = await pick(pilot, app, screen, turn_row=0, what_row=1)  # turn #2, the conversation only
            assert "Conversation: a new branch" in shown and "Files:" not in shown
            await pilot.press("y")
            await wait_until(pilot, lambda: app.agent.session_id != old, 10, "the branch")
            await wait_until(pilot, lambda: bool(rewind_lines(app)), 10, "the rewind's Review-log line")
            await wait_until(pilot, lambda: app.main.prompt.value == SECOND, 10, "the turn's text in the prompt")
            users = [m["content"] for m in app.agent.messages if m.get("role") == "user"]
            assert users == [FIRST]  # the history ends just before the second message
            assert [i.text for i in app.main.conversation.items if i.kind == KIND_USER] == [FIRST]
            assert folder_state(project) == files  # the files stay
            assert app.agent.db is not None
            assert len(await app.agent.db.get_messages(old)) >= 6  # the original keeps every message
            assert "Conversation rewound to before turn #2" in rewind_lines(app)[0]


async def test_both_restores_the_files_then_branches(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        two_turns(server)
        app = openai_app(tmp_path, server)
        project = tmp_path / "project"
        before = folder_state(project)
        async with app.run_test(size=SIZE) as pilot:
            await run_two_turns(pilot, app)
            old = app.agent.session_id
            screen = await open_picker(pilot, app, "f6")
            shown = await pick(pilot, app, screen, turn_row=0, what_row=0)  # turn #2, code and conversation
            assert "Files: back to checkpoint 2" in shown and "Conversation: a new branch" in shown
            await pilot.press("y")
            await wait_until(pilot, lambda: app.main.prompt.value == SECOND, 10, "the turn's text in the prompt")
            assert app.agent.session_id != old
            state = folder_state(project)
            assert "NOTES.md" not in state and (project / "README.md").read_text() == "# Gadget\n\nrewritten\n"
            assert state != before  # turn #1's change stays: the rewind went to before turn #2 only
            [line] = rewind_lines(app)
            assert "Files as before turn #2" in line and "Conversation rewound" in line


async def test_esc_backs_out_step_by_step_and_nothing_changes(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        two_turns(server)
        app = openai_app(tmp_path, server)
        project = tmp_path / "project"
        async with app.run_test(size=SIZE) as pilot:
            await run_two_turns(pilot, app)
            files, session = folder_state(project), app.agent.session_id
            screen = await open_picker(pilot, app, "f6")
            await pick(pilot, app, screen, turn_row=1, what_row=0)
            for _ in range(3):
                await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, RewindScreen), 5, "the picker to close")
            assert folder_state(project) == files and app.agent.session_id == session and not rewind_lines(app)


async def test_f6_says_busy_during_a_turn_and_esc_esc_interrupts_it_without_the_picker(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        server.enqueue(Hang(seconds=30, first_text="Working on it"))
        app = openai_app(tmp_path, server)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            await submit(pilot, app, "think for a long time")
            await wait_until(pilot, lambda: "Working" in app.main.conversation.streamed_text(), 10, "the stream")
            await pilot.press("f6")
            await wait_until(pilot, lambda: any("Busy" in n.message for n in app._notifications), 5, "the busy notice")
            await pilot.press("escape", "escape")  # during a turn, Esc Esc is Ctrl-C's interrupt
            await wait_until(pilot, lambda: not app.turns.turn_running, 10, "the interrupt")
            assert not isinstance(app.screen, RewindScreen)


async def test_a_turn_that_changed_no_file_is_rewound_through_the_next_checkpoint(tmp_path: Path) -> None:
    from hermes_tui.rewind import RewindWhat, rewind, rewind_turns
    from tests.core.helpers import make_agent, openai_choice

    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("# Gadget\n", encoding="utf-8")
    before = folder_state(project)
    with FakeLLMServer() as server:
        server.enqueue(
            Reply(tool_calls=[("r1", "read_file", json.dumps({"path": "README.md"}))]),
            Reply(text="Read it."),
            Reply(tool_calls=[write_call("w1", "README.md", "# Gadget v2\n")]),
            Reply(text="Bumped."),
        )
        agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=project)
        try:
            await agent.run_conversation("read the readme")
            await agent.run_conversation("bump the version")
            newest, oldest = await rewind_turns(agent, db)
            assert (newest.number, newest.checkpoint, newest.checkpoint_turn) == (2, 1, None)
            assert (oldest.number, oldest.checkpoint, oldest.checkpoint_turn) == (1, 1, 2)
            assert oldest.code_line() == "checkpoint 1 (taken in turn #2) · 1 file +1 −1 since"
            assert oldest.sent_at is not None and oldest.preview == "read the readme"
            outcome = await rewind(agent, oldest, RewindWhat.BOTH)
            assert not outcome.error and outcome.prefill == "read the readme"
            assert folder_state(project) == before and agent.messages == []
        finally:
            await agent.close()
            await db.close()
