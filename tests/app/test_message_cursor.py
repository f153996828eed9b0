"""The message cursor in the real app (Pilot, real Agent with the demo model, real state.db): every key,
branch here far back, edit and resend, the tool-call group boundary, the window boundary, copy, click, Esc."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.config import Settings
from hermes_tui.screens.full_text import FullTextScreen
from hermes_tui.widgets.tool_card import ToolCard
from hermes_tui.widgets.transcript import KIND_ASSISTANT, KIND_NOTICE, KIND_TOOL, KIND_USER
from tests.app.cursor_data import LONG, LONG_COUNT, build_cursor_home, edge_record, long_messages, stored_rows
from tests.app.test_app import DEMO, db_rows, make_app, submit, wait_turn
from tests.core.helpers import background_work
from tests.tui.helpers import screen_text, wait_until
from tests.waits import HANG_GUARD_S

SIZE = (120, 40)


async def cursor_app(tmp_path: Path) -> HermesApp:
    home = await build_cursor_home(tmp_path / "home")
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    settings = background_work(Settings(), auto_title=False, review=False)
    return HermesApp(home=home, settings=settings, choice=DEMO, cwd=project, resume=LONG)


async def loaded(pilot, app: HermesApp) -> None:
    await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
    convo = app.main.conversation
    await wait_until(pilot, lambda: len(convo.items) > 2_000 and convo.mounted_rows, 10, "the long history")
    await pilot.pause()


def selected(app: HermesApp):
    return app.main.conversation.cursor.selected


def footer(app: HermesApp) -> str:
    return screen_text(app).splitlines()[-1]


async def start_cursor_at(pilot, app: HermesApp, message_index: int) -> None:
    """Open the message at `message_index` as a search hit does, then turn the cursor on there (F5)."""
    convo = app.main.conversation
    item = next(i for i, it in enumerate(convo.items) if it.message_index == message_index)
    await convo.reveal_item(item)
    await pilot.press("f5")
    await wait_until(pilot, lambda: convo.cursor.active and selected(app) is convo.items[item], 5, "the cursor")


async def wait_branch(pilot, app: HermesApp, parent: str) -> None:
    await wait_until(pilot, lambda: app.agent.session_id != parent and not app.turns.command_running, 10, "the branch")
    convo = app.main.conversation
    await wait_until(
        pilot, lambda: any(i.kind == KIND_NOTICE and "Branched into" in i.text for i in convo.items), 5, "the notice"
    )


async def test_branch_here_on_an_answer_two_thousand_messages_back(tmp_path: Path) -> None:
    app = await cursor_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        before = stored_rows(app.home, LONG)
        target = LONG_COUNT - 2_001  # an answer 2,000 messages before the last one
        assert long_messages()[target]["role"] == "assistant"
        await start_cursor_at(pilot, app, target - 1)  # its question
        await pilot.press("j")
        await wait_until(
            pilot,
            lambda: selected(app).kind == KIND_ASSISTANT and selected(app).message_index == target,
            what="the cursor on the answer",
        )
        await wait_until(pilot, lambda: "Branch here" in footer(app), what="Branch here in the footer")
        await pilot.press("b")
        await wait_branch(pilot, app, LONG)

        branch = app.agent.session_id
        kept = long_messages()[: target + 1]
        assert [(m["role"], m["content"]) for m in app.agent.messages] == [(m["role"], m["content"]) for m in kept]
        stored = db_rows(app, "select role, content from messages where session_id = ? order by id", branch)
        assert stored == [(m["role"], m["content"]) for m in kept]
        # The original: every row as it was (ids, contents, timestamps), only its end reason set.
        assert stored_rows(app.home, LONG) == before
        assert db_rows(app, "select end_reason from sessions where id = ?", LONG) == [("branched",)]
        record = edge_record(app.home, branch)
        assert record["kind"] == "branch" and record["parent"] == LONG
        assert record["branch_point"] == before[target][0]  # the answer's row id
        # The tree, the status bar and the prompt follow the branch.
        assert app.main.status_bar.session_id == branch
        await wait_until(pilot, lambda: app.main.lineage.tree_node_for(branch) is not None, 5, "the tree row")
        assert app.focused is app.main.prompt and not app.main.conversation.cursor.active
        assert app.main.conversation.items[-2].text == f"answer {(target - 5) // 2}"


async def test_edit_and_resend_then_enter_sends_in_the_branch_and_undo_keeps_its_meaning(tmp_path: Path) -> None:
    app = await cursor_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        before = stored_rows(app.home, LONG)
        convo = app.main.conversation
        await pilot.press("f5")
        await wait_until(pilot, lambda: convo.cursor.active, 5, "the cursor")
        assert selected(app).text == f"answer {1_199}"  # the newest message on screen
        assert convo.check_action("edit_resend", ()) is None  # shown greyed: an answer cannot be edited
        await pilot.press("e")
        await pilot.pause()
        assert app.agent.session_id == LONG  # nothing happened
        await pilot.press("k", "k", "k")
        assert selected(app).kind == KIND_USER and selected(app).text == "question 1198"
        assert convo.check_action("edit_resend", ()) is True
        await pilot.press("e")
        await wait_branch(pilot, app, LONG)
        branch = app.agent.session_id
        assert app.main.prompt.value == "question 1198" and app.focused is app.main.prompt
        assert len(app.agent.messages) == LONG_COUNT - 4  # the history before that question

        app.main.prompt.value = "question 1198, put better"
        app.last_submitted_runs = app.turns.turn_runs
        await pilot.press("enter")
        await wait_turn(pilot, app)
        assert app.agent.session_id == branch
        users = db_rows(app, "select content from messages where session_id = ? and role = 'user'", branch)
        assert users[-2:] == [("question 1197",), ("question 1198, put better",)]
        assert stored_rows(app.home, LONG) == before

        await submit(pilot, app, "/undo")  # /undo rewinds the live branch, never the original
        await wait_until(pilot, lambda: not app.turns.command_running and app.main.prompt.value, 5, "the undo")
        assert app.main.prompt.value == "question 1198, put better"
        assert app.agent.session_id == branch and len(app.agent.messages) == LONG_COUNT - 4
        assert stored_rows(app.home, LONG) == before


async def test_a_branch_on_a_tool_call_keeps_the_whole_group_and_says_so(tmp_path: Path) -> None:
    app = await cursor_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        convo = app.main.conversation
        await pilot.press("f5", "home")
        await wait_until(pilot, lambda: convo.earlier_count == 0 and selected(app).text == "read both notes", 5, "top")
        await pilot.press("j")  # the first tool card (its assistant message says nothing else)
        card = selected(app)
        assert card.kind == KIND_TOOL and card.call_id == "call_a"
        await pilot.press("b")
        await wait_branch(pilot, app, LONG)
        assert [m["role"] for m in app.agent.messages] == ["user", "assistant", "tool", "tool"]
        notice = next(i for i in convo.items if "Branched into" in i.text)
        assert "4 message(s) kept, through the 2 tool result(s) of that call" in notice.text


async def test_live_rows_and_notices_map_to_their_messages(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await submit(pilot, app, "read README.md")
        await wait_turn(pilot, app)
        app.main.conversation.add_notice("info", "a notice between the turns")
        await submit(pilot, app, "hello there")
        await wait_turn(pilot, app)
        parent = app.agent.session_id
        before = db_rows(app, "select * from messages where session_id = ? order by id", parent)
        convo = app.main.conversation
        assert all(item.message_index is None for item in convo.items)  # rows streamed in this run
        await pilot.press("f5")
        await pilot.press("up")  # from the last answer to its question
        assert selected(app).text == "hello there"
        await pilot.press("up")  # the notice above it is skipped: the first turn's answer
        assert selected(app).text.startswith("Here is what the tool returned.")
        await pilot.press("up")  # the tool card
        assert selected(app).kind == KIND_TOOL
        await pilot.press("b")
        await wait_branch(pilot, app, parent)
        assert [m["role"] for m in app.agent.messages] == ["user", "assistant", "tool"]
        assert db_rows(app, "select * from messages where session_id = ? order by id", parent) == before


async def test_cursor_crosses_the_window_boundary_both_ways(tmp_path: Path) -> None:
    app = await cursor_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        convo = app.main.conversation
        first_shown = convo.earlier_count
        await pilot.press("f5")
        visited = [selected(app).message_index]
        for _ in range(120):  # one message at a time, past the top of the mounted window
            await pilot.press("up")
            await wait_until(pilot, lambda: selected(app).message_index == visited[-1] - 1, 5, "one message up")
            visited.append(selected(app).message_index)
            if convo.earlier_count < first_shown:
                break
        assert convo.earlier_count < first_shown  # earlier rows were loaded
        assert convo.row_for(selected(app)) is not None and convo.row_for(selected(app)).has_class("-cursor")
        assert len(convo.query(".-cursor")) == 1

        await pilot.press("pageup")
        await wait_until(pilot, lambda: selected(app).message_index < visited[-1] - 1, 5, "a page up")
        await pilot.press("home")
        await wait_until(pilot, lambda: selected(app).message_index == 0 and convo.earlier_count == 0, 5, "Home")
        assert convo.later_count > 2_000
        later = convo.later_count
        for _ in range(8):  # down the transcript, past the bottom of the mounted window
            position = selected(app).message_index
            await pilot.press("pagedown")
            await wait_until(pilot, lambda at=position: selected(app).message_index > at, 5, "a page down")
        assert convo.later_count < later
        assert convo.row_for(selected(app)).has_class("-cursor")
        await pilot.press("end")
        await wait_until(pilot, lambda: convo.at_latest and selected(app) is convo.items[-1], 5, "End")
        await pilot.press("g")
        await wait_until(pilot, lambda: selected(app).message_index == 0, 5, "g")
        await pilot.press("G")
        await wait_until(pilot, lambda: selected(app) is convo.items[-1], 5, "G")


async def test_escape_copy_enter_and_a_click(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await submit(pilot, app, "read README.md")
        await wait_turn(pilot, app)
        convo = app.main.conversation
        labels = ("Branch here", "Edit & resend", "Copy", "Back to the prompt")
        await pilot.press("f5")
        await wait_until(pilot, lambda: app.focused is convo and convo.cursor.active, what="the cursor on (F5)")
        await wait_until(pilot, lambda: all(label in footer(app) for label in labels), what=f"{labels} in the footer")

        answer = app.agent.messages[-1]["content"]
        await pilot.press("c")
        await wait_until(pilot, lambda: app.clipboard == answer, what="the stored answer, whole, copied")
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(convo.row_for(selected(app)), ToolCard), what="the tool card")
        card = convo.row_for(selected(app))
        await pilot.press("enter")  # the tool card opens
        await wait_until(pilot, lambda: card.expanded, 5, "the card to open")
        await pilot.press("c")
        await wait_until(
            pilot,
            lambda: (
                app.clipboard.startswith('read_file({"path": "README.md"})') and "The gadget toggles." in app.clipboard
            ),
            what="the tool call and its result copied",
        )
        await pilot.press("k", "enter")  # an answer opens whole in the viewer
        await wait_until(pilot, lambda: isinstance(app.screen, FullTextScreen), 5, "the viewer")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, FullTextScreen), 5, "the viewer to close")

        await pilot.press("escape")
        await wait_until(
            pilot, lambda: app.focused is app.main.prompt and not convo.cursor.active, what="back to the prompt"
        )
        await wait_until(pilot, lambda: not convo.query(".-cursor"), what="no row marked by the cursor")
        await wait_until(pilot, lambda: "Branch here" not in footer(app), what="the cursor's keys out of the footer")

        question = next(row for item, row in convo.shown_rows() if item.kind == KIND_USER)
        await pilot.click(question)
        await wait_until(pilot, lambda: convo.cursor.active and selected(app).kind == KIND_USER, 5, "the click")
        await wait_until(pilot, lambda: question.has_class("-cursor") and convo.has_focus_within, what="it marked")
        await pilot.click(app.main.lineage)  # focus elsewhere turns the cursor off too
        await wait_until(pilot, lambda: not convo.cursor.active, 5, "the cursor off")
        await wait_until(pilot, lambda: not question.has_class("-cursor"), what="the question unmarked")


async def test_branching_waits_for_a_running_turn(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await submit(pilot, app, "hello")
        await wait_turn(pilot, app)
        session = app.agent.session_id
        turn = app.run_worker(asyncio.Event().wait(), group="turn")  # a turn runs until cancelled
        await pilot.press("f5", "b")
        await wait_until(pilot, lambda: "Busy" in screen_text(app), 5, "the busy notice")
        assert app.agent.session_id == session and not app.turns.command_running
        turn.cancel()
