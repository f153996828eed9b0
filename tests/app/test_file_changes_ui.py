"""Issue 19 in the TUI with a real agent on the loopback fake server: the cards of write_file and
patch show `path +a −b` and expand to the coloured diff, the Review log sums each turn up, an
approval shows the diff it would make and "allow for the rest of the session" stops the next ask,
and Shift+Tab in the prompt cycles the permission modes with a status-bar badge that follows."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.config import ProviderChoice
from hermes_tui.core.tools.permissions import PermissionMode
from hermes_tui.screens.approval import ApprovalScreen
from hermes_tui.screens.diff import DiffScreen
from hermes_tui.widgets.diff_view import DiffView
from hermes_tui.widgets.tool_card import ToolCard
from hermes_tui.widgets.transcript import KIND_TOOL
from tests.app.test_app import make_app, submit, wait_turn
from tests.checkpoints.helpers import write_call
from tests.fake_llm import FakeLLMServer, Reply
from tests.tui.helpers import screen_text, wait_until, widget_text
from tests.waits import HANG_GUARD_S

SIZE = (120, 44)


def openai_app(tmp_path: Path, server: FakeLLMServer) -> HermesApp:
    return make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", server.base_url_openai, False))


def patch_call(call_id: str, path: str, old: str, new: str) -> tuple[str, str, str]:
    arguments = {"mode": "replace", "path": path, "old_string": old, "new_string": new}
    return (call_id, "patch", json.dumps(arguments))


def colour_distance(a: object, b: object) -> float:
    return sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5  # type: ignore[call-overload]


def card_of(app: HermesApp, call_id: str) -> ToolCard:
    card = app.main.conversation.tool_card(call_id)
    assert card is not None, f"no card for {call_id}"
    return card


async def test_write_and_patch_cards_show_their_files_and_expand_to_the_coloured_diff(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        server.enqueue(
            Reply(
                tool_calls=[
                    patch_call("p1", "README.md", "The gadget toggles.", "The gadget hums.\nIt is quiet."),
                    write_call("w1", "NOTES.md", "# Notes\nfirst\n"),
                ]
            ),
            Reply(text="Edited."),
        )
        app = openai_app(tmp_path, server)
        async with app.run_test(size=SIZE) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            await submit(pilot, app, "reword the readme and start notes")
            await wait_turn(pilot, app)
            patch_card, write_card = card_of(app, "p1"), card_of(app, "w1")
            assert "⚙ patch  README.md +2 −1  ✓" in widget_text(app, patch_card)  # collapsed: path +a −b
            assert "⚙ write_file  NOTES.md +2 −0 (new)  ✓" in widget_text(app, write_card)
            assert patch_card.size.height == 1 and "gadget hums" not in screen_text(app)

            patch_card.focus()
            await pilot.press("enter")
            await wait_until(pilot, lambda: patch_card.size.height > 4, 5, "the card to expand")
            shown = widget_text(app, patch_card)
            assert "@@ -1,3 +1,4 @@" in shown
            assert "-The gadget toggles." in shown and "+The gadget hums." in shown and "+It is quiet." in shown
            # added lines in the success colour, removed ones in the error colour (styles.tcss)
            colours = app.current_theme.to_color_system()
            diff = patch_card.diff_body().renderables[0]  # type: ignore[attr-defined]
            plain = diff.plain
            added = diff.get_style_at_offset(app.console, plain.index("+The gadget hums."))
            removed = diff.get_style_at_offset(app.console, plain.index("-The gadget toggles."))
            assert colour_distance(added.color.triplet, colours.success.rich_color.triplet) < 8
            assert colour_distance(removed.color.triplet, colours.error.rich_color.triplet) < 8

            await pilot.press("a")  # the whole diff, in its own viewer
            await wait_until(pilot, lambda: isinstance(app.screen, DiffScreen), 5, "the diff viewer")
            rows = [row.text for row in app.screen.query_one(DiffView).rows]
            assert rows[0] == "README.md +2 −1" and "+It is quiet." in rows
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, DiffScreen), 5, "the viewer to close")

            # one Review-log line for the turn, whose detail is its diff
            [entry] = [e for e in app.main.review_log.entries if e.kind == "files"]
            assert entry.text.startswith("2 files: ")  # the two calls ran side by side: either may finish first
            assert sorted(entry.text.removeprefix("2 files: ").split(", ")) == ["NOTES.md +2 −0", "README.md +2 −1"]
            assert "+The gadget hums." in entry.detail and "+first" in entry.detail
            assert (tmp_path / "project" / "NOTES.md").read_text() == "# Notes\nfirst\n"


async def test_an_approval_shows_the_diff_and_allow_for_the_session_stops_the_second_ask(tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "plan.txt"
    outside.parent.mkdir()
    outside.write_text("step one\n", encoding="utf-8")
    with FakeLLMServer() as server:
        server.enqueue(
            Reply(tool_calls=[write_call("w1", str(outside), "step one\nstep two\n")]),
            Reply(tool_calls=[write_call("w2", str(outside), "step one\nstep two\nstep three\n")]),
            Reply(text="Planned."),
        )
        app = openai_app(tmp_path, server)
        asked: list[ApprovalScreen] = []
        async with app.run_test(size=SIZE) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            await submit(pilot, app, "extend the plan outside the project")
            await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), 10, "the approval modal")
            screen = app.screen
            assert isinstance(screen, ApprovalScreen)
            asked.append(screen)
            # the modal is current before its first frame is drawn: wait for the frame
            await wait_until(pilot, lambda: "The change it would make:" in screen_text(app), 10, "the modal's diff")
            text = screen_text(app)
            assert "The change it would make:" in text and "plan.txt +1 −0" in text
            assert "+step two" in text and " step one" in text  # the diff it would make, before anything is written
            assert outside.read_text() == "step one\n"
            assert "Allow for session (s)" in text and "changing this file" in text
            await pilot.press("s")
            # the second write of the same file goes through unasked: the turn ends with no modal in between
            await wait_turn(pilot, app)
            assert not isinstance(app.screen, ApprovalScreen) and len(asked) == 1
            assert outside.read_text() == "step one\nstep two\nstep three\n"
            results = [i.tool_status for i in app.main.conversation.items if i.kind == KIND_TOOL]
            assert results == ["ok", "ok"]


async def test_y_and_n_still_answer_a_write_approval_once(tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "plan.txt"
    outside.parent.mkdir()
    with FakeLLMServer() as server:
        server.enqueue(
            Reply(tool_calls=[write_call("w1", str(outside), "one\n")]),
            Reply(tool_calls=[write_call("w2", str(outside), "two\n")]),
            Reply(text="Stopped."),
        )
        app = openai_app(tmp_path, server)
        async with app.run_test(size=SIZE) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            await submit(pilot, app, "write the plan twice")
            await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), 10, "the first approval")
            await pilot.press("y")
            await wait_until(pilot, lambda: outside.is_file(), 10, "the first write")
            await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), 10, "the second approval")
            await pilot.press("n")  # allowed once only: asked again, and this time denied
            await wait_turn(pilot, app)
            assert outside.read_text() == "one\n"
            tools = [i for i in app.main.conversation.items if i.kind == KIND_TOOL]
            assert [t.tool_status for t in tools] == ["ok", "error"] and "denied" in (tools[1].result or "")


async def test_shift_tab_in_the_prompt_cycles_the_modes_and_the_badge_follows(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        server.enqueue(Reply(tool_calls=[write_call("w1", "PLAN.md", "the plan\n")]), Reply(text="Proposed instead."))
        app = openai_app(tmp_path, server)
        async with app.run_test(size=SIZE) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            assert app.agent is not None
            badge = app.main.status_bar.query_one("#status-mode")
            assert not badge.display  # ask, the default: no badge

            await pilot.press("shift+tab")
            await wait_until(pilot, lambda: badge.display, 5, "the accept-edits badge")
            assert app.agent.permission_mode is PermissionMode.ACCEPT_EDITS and app.focused is app.main.prompt
            assert "⏵⏵ accept edits" in widget_text(app, app.main.status_bar)

            await pilot.press("shift+tab")
            await wait_until(pilot, lambda: badge.has_class("-mode-read_only"), 5, "the read-only badge")
            assert "⏸ read-only (plan)" in widget_text(app, app.main.status_bar)
            await submit(pilot, app, "write the plan")  # read-only: the write comes back refused
            await wait_turn(pilot, app)
            [tool] = [i for i in app.main.conversation.items if i.kind == KIND_TOOL]
            assert tool.tool_status == "error" and "read-only (plan) mode" in (tool.result or "")
            assert not (tmp_path / "project" / "PLAN.md").exists()

            await pilot.press("shift+tab")
            await wait_until(pilot, lambda: badge.has_class("-mode-yolo"), 5, "the yolo badge")
            assert "⚠ YOLO" in widget_text(app, app.main.status_bar)
            colours = app.current_theme.to_color_system()
            assert colour_distance(badge.styles.background.rgb, colours.error.rgb) < 8  # red

            await pilot.press("shift+tab")  # round to ask: no badge again
            await wait_until(pilot, lambda: not badge.display, 5, "the badge to go")
            assert app.agent.permission_mode is PermissionMode.ASK

            await submit(pilot, app, "/mode accept-edits")  # a command changes it: the badge follows too
            await wait_until(pilot, lambda: badge.has_class("-mode-accept_edits") and badge.display, 5, "/mode")

            # outside the prompt Shift+Tab still moves the focus back, and leaves the mode alone
            app.main.lineage.focus()
            await pilot.pause()
            await pilot.press("shift+tab")
            await pilot.pause()
            assert app.focused is not app.main.lineage
            assert app.agent.permission_mode is PermissionMode.ACCEPT_EDITS
