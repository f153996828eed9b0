"""HermesApp behaviour with Pilot: the real app, the real Agent, a real state.db, demo or fake-server models."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from hermes_tui.app import HermesApp
from hermes_tui.config import Home, ProviderChoice, Settings
from hermes_tui.screens.approval import ApprovalScreen
from hermes_tui.screens.help import HelpScreen
from hermes_tui.widgets.transcript import KIND_ASSISTANT, KIND_NOTICE, KIND_TOOL, KIND_USER
from tests.core.helpers import background_work
from tests.fake_llm import FakeLLMServer, Hang, Reply
from tests.tui.helpers import wait_until
from tests.waits import HANG_GUARD_S, guard

DEMO = ProviderChoice("demo", "demo", "", "", True, "no API key configured")
SUMMARY = "## Active Task\nUser asked: 'go on'\n## Goal\nKeep going."


def make_app(
    tmp_path: Path,
    choice: ProviderChoice = DEMO,
    settings: Settings | None = None,
    *,
    auto_title: bool = False,
    review: bool = False,
) -> HermesApp:
    """The app on a fresh home; auto-titles and self-review off unless asked for (they take scripted replies)."""
    settings = settings or Settings()
    settings = background_work(settings, auto_title=auto_title, review=review)
    project = tmp_path / "project"
    project.mkdir(parents=True, exist_ok=True)
    (project / "README.md").write_text("# Gadget\n\nThe gadget toggles.\n", encoding="utf-8")
    home = Home(tmp_path / "home").ensure()
    return HermesApp(home=home, settings=settings, choice=choice, cwd=project)


def db_rows(app: HermesApp, sql: str, *params: object) -> list[tuple]:
    con = sqlite3.connect(app.home.state_db)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


async def wait_exit(app: HermesApp, timeout: float | None = None) -> None:
    """Poll (without the pilot, whose pauses need a running app) until the app has stopped (a hang guard:
    `guard(timeout)` seconds)."""
    await asyncio.wait_for(_until_stopped(app), guard(timeout))


async def _until_stopped(app: HermesApp) -> None:
    while app.is_running:
        await asyncio.sleep(0.01)


async def submit(pilot, app: HermesApp, text: str) -> None:
    app.last_submitted_runs = app.turns.turn_runs  # what wait_turn compares against
    app.main.prompt.value = text
    await pilot.press("enter")


async def wait_turn(pilot, app: HermesApp, timeout: float | None = None) -> None:
    """Wait for the turn started by the latest `submit` (not an earlier one) to finish."""
    before = getattr(app, "last_submitted_runs", 0)
    await wait_until(pilot, lambda: app.turns.turn_runs > before, timeout, "a new turn to start")
    await wait_until(pilot, lambda: not app.turns.turn_running, timeout, "the turn to finish")
    await pilot.pause()


async def test_prompt_is_focused_and_a_turn_round_trips(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        assert app.focused is app.main.prompt  # typing goes straight to the input
        await pilot.press(*"read README.md")
        assert app.main.prompt.value == "read README.md"
        await pilot.press("enter")
        await wait_turn(pilot, app)
        kinds = [item.kind for item in app.main.conversation.items]
        assert kinds[:2] == [KIND_USER, KIND_ASSISTANT] and KIND_TOOL in kinds
        assert "The gadget toggles." in app.main.conversation.items[-1].text
        assert app.main.status_bar.is_demo  # the demo model is always labelled
        roles = [r[0] for r in db_rows(app, "select role from messages order by id")]
        assert roles == ["user", "assistant", "tool", "assistant"]
        # The lineage tree shows the new session, highlighted as current.
        assert app.main.lineage.tree_node_for(app.agent.session_id) is not None


async def test_ctrl_c_ladder_clear_interrupt_quit(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        srv.enqueue(Hang(seconds=600, first_text="A partial thought"))
        app = make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", srv.base_url_openai, False))
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            # 1. text in the input: Ctrl-C clears it.
            app.main.prompt.value = "draft that I regret"
            await pilot.press("ctrl+c")
            assert app.main.prompt.value == "" and app.is_running
            # 2. streaming: Ctrl-C interrupts; the partial answer stays, marked interrupted, and is saved.
            await submit(pilot, app, "think hard")
            await wait_until(
                pilot, lambda: "A partial thought" in app.main.conversation.streamed_text(), 10, "the first delta"
            )
            await pilot.press("ctrl+c")
            await wait_until(pilot, lambda: not app.turns.turn_running, 10, "the interrupt")
            answer = [i for i in app.main.conversation.items if i.kind == KIND_ASSISTANT][-1]
            assert answer.interrupted and answer.text == "A partial thought"
            stored = db_rows(app, "select content, finish_reason from messages where role='assistant'")
            assert stored == [("A partial thought", "interrupted")]
            # The app stays responsive: typing still works.
            await pilot.press("h", "i")
            assert app.main.prompt.value == "hi"
            app.main.prompt.value = ""
            # 3. idle: one Ctrl-C only warns; a second within 2 s quits with code 0.
            await pilot.press("ctrl+c")
            assert app.is_running
            await pilot.press("ctrl+c")
            await wait_exit(app)
        assert app.return_code == 0
        ended = db_rows(app, "select end_reason from sessions")
        assert ended == [("tui_shutdown",)]


async def test_ctrl_q_quits_with_code_zero(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test() as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await pilot.press("ctrl+q")
        await wait_exit(app)
    assert app.return_code == 0


async def test_slash_commands_new_help_quit(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await submit(pilot, app, "hello")
        await wait_turn(pilot, app)
        first = app.agent.session_id
        await submit(pilot, app, "/new")
        await wait_until(pilot, lambda: app.agent.session_id != first, 5, "/new to rotate")
        await wait_until(
            pilot,
            lambda: (
                app.main.conversation.items == [] or all(i.kind == KIND_NOTICE for i in app.main.conversation.items)
            ),
            5,
            "the transcript to clear",
        )
        await submit(pilot, app, "/help")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), 5, "the help screen")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen), 5, "help to close")
        await submit(pilot, app, "/quit")
        await wait_exit(app)
    assert db_rows(app, "select end_reason from sessions where id=?", first) == [("new_session",)]


async def test_shell_command_asks_for_approval_in_a_modal(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await submit(pilot, app, "run echo approved-output")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), 10, "the approval modal")
        await pilot.press("y")
        await wait_turn(pilot, app)
        tool = [i for i in app.main.conversation.items if i.kind == KIND_TOOL][-1]
        assert "approved-output" in (tool.result or "") and tool.tool_status == "ok"

        await submit(pilot, app, "run echo denied-output")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), 10, "the approval modal")
        await pilot.press("n")
        await wait_turn(pilot, app)
        tool = [i for i in app.main.conversation.items if i.kind == KIND_TOOL][-1]
        assert "denied" in (tool.result or "").lower() and tool.tool_status == "error"


async def test_ctrl_c_in_the_approval_modal_interrupts_and_the_tool_card_stops_running(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await submit(pilot, app, "run echo never-run")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), 10, "the approval modal")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.turns.turn_running, 10, "the interrupt")
        await wait_until(pilot, lambda: not isinstance(app.screen, ApprovalScreen), 5, "the modal to close")
        tool = [i for i in app.main.conversation.items if i.kind == KIND_TOOL][-1]
        assert tool.tool_status != "running" and "never-run" not in (tool.result or "")
        stored = db_rows(app, "select role from messages order by id")
        assert stored[0] == ("user",) and ("tool",) in stored  # the open call was answered and saved
        await pilot.press("h", "i")  # the prompt answers again
        assert app.main.prompt.value == "hi"


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_compression_updates_gauge_tree_and_review_log_live(tmp_path: Path, size: tuple[int, int]) -> None:
    # Answers with real content: summarising them makes the context smaller (a compression that would
    # not is refused — the no-op rule).
    detail = " The step reads the config, checks the token, and writes the session." * 30
    with FakeLLMServer() as srv:
        for index in range(6):
            srv.enqueue(Reply(text=f"answer {index}.{detail}", usage=(2_000, 10, 0, 0)))
        srv.enqueue(
            Reply(tool_calls=[("c1", "read_file", '{"path": "README.md"}')], usage=(100_000, 10, 0, 0)),
            Reply(text=SUMMARY),
            Reply(text="after compression", usage=(5_000, 10, 0, 0)),
        )
        app = make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", srv.base_url_openai, False))
        async with app.run_test(size=size) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            for index in range(6):
                await submit(pilot, app, f"question {index}")
                await wait_turn(pilot, app)
            parent = app.agent.session_id
            await submit(pilot, app, "read README.md")
            await wait_turn(pilot, app)
            child = app.agent.session_id
            assert child != parent
            assert app.main.gauge.budget.compression_count == 1
            assert app.main.gauge.budget.reported_prompt_tokens == 5_000
            texts = [entry.text for entry in app.main.review_log.entries]
            assert any("Compressed" in t for t in texts) and any("rotated" in t for t in texts)
            node = app.main.lineage.tree_node_for(child)
            assert node is not None and node.parent is not None
            assert app.main.status_bar.session_id == child
            notices = [i.text for i in app.main.conversation.items if i.kind == KIND_NOTICE]
            assert any("Context compressed" in n for n in notices)


async def test_choosing_a_session_in_the_tree_resumes_it(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await submit(pilot, app, "first topic")
        await wait_turn(pilot, app)
        first = app.agent.session_id
        await submit(pilot, app, "/new")
        await wait_until(pilot, lambda: app.agent.session_id != first, 5, "/new")
        await submit(pilot, app, "second topic")
        await wait_turn(pilot, app)
        await wait_until(pilot, lambda: app.main.lineage.tree_node_for(first) is not None, 5, "the tree")
        app.main.lineage.post_message(app.main.lineage.SessionChosen(first))
        await wait_until(pilot, lambda: app.agent.session_id == first, 5, "the resume")
        await wait_until(
            pilot,
            lambda: [i.text for i in app.main.conversation.items if i.kind == KIND_USER] == ["first topic"],
            5,
            "the resumed transcript",
        )
        assert app.main.status_bar.session_id == first


def test_every_core_event_the_ui_shows_has_exactly_one_handler() -> None:
    from hermes_tui.core import events as ev
    from hermes_tui.ui.presenter import EVENT_HANDLERS

    event_types = {
        value
        for value in vars(ev).values()
        if isinstance(value, type) and issubclass(value, ev.Event) and value is not ev.Event
    }
    not_shown = {ev.TurnStarted}  # the user's own prompt is already on screen when the turn starts
    assert set(EVENT_HANDLERS) == event_types - not_shown


def tree_label(app: HermesApp, session_id: str) -> str:
    from rich.style import Style

    tree = app.main.lineage
    row = tree.tree_node_for(session_id)
    assert row is not None, f"{session_id} is not in the tree"
    return tree.render_label(row, Style(), Style()).plain


async def test_turns_update_the_sessions_tree_without_reading_every_session_again(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        assert app.sessions_tree.sync.full_reloads == 1  # start-up
        await submit(pilot, app, "hello")
        await wait_turn(pilot, app)
        first = app.agent.session_id
        await submit(pilot, app, "read README.md")
        await wait_turn(pilot, app)
        [(stored,)] = db_rows(app, "select message_count from sessions where id=?", first)
        await wait_until(pilot, lambda: f"· {stored} msgs" in tree_label(app, first), 5, "the new count")
        assert "● " in tree_label(app, first)
        await submit(pilot, app, "/title gadget notes")
        await wait_until(pilot, lambda: "gadget notes" in tree_label(app, first), 5, "the new title")
        await submit(pilot, app, "/new")
        await wait_until(pilot, lambda: app.agent.session_id != first, 5, "/new")
        shown = app.main.lineage.tree_node_for  # the new session's row comes once the command's refresh ran
        await wait_until(
            pilot,
            lambda: shown(app.agent.session_id) is not None and "● " in tree_label(app, app.agent.session_id),
            5,
            "the new session",
        )
        assert "● " not in tree_label(app, first)
        assert app.sessions_tree.sync.full_reloads == 1  # all of it came from events and single-session reads


async def test_a_commit_by_another_process_makes_the_tree_read_everything_again(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await submit(pilot, app, "hello")
        await wait_turn(pilot, app)
        con = sqlite3.connect(app.home.state_db)  # another writer, as another hermes-tui would be
        try:
            con.execute(
                "INSERT INTO sessions (id, source, started_at, title) VALUES (?, 'cli', ?, 'from elsewhere')",
                ("20260101_000000_0therp", 1_700_000_000.0),
            )
            con.commit()
        finally:
            con.close()
        assert app.main.lineage.tree_node_for("20260101_000000_0therp") is None
        await submit(pilot, app, "hello again")
        await wait_turn(pilot, app)
        await wait_until(
            pilot, lambda: app.main.lineage.tree_node_for("20260101_000000_0therp") is not None, 5, "the new session"
        )
        assert app.sessions_tree.sync.full_reloads == 2
