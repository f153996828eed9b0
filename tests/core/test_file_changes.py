"""A real agent turn that edits files: every change reaches the UI as data, and the turn sums them up once."""

from __future__ import annotations

import json
from pathlib import Path

from hermes_tui.core import events as ev
from hermes_tui.core.commands import run_command
from hermes_tui.core.tools.permissions import PermissionMode
from tests.core.helpers import make_agent, openai_choice
from tests.fake_llm import FakeLLMServer, Reply


async def test_patch_and_write_file_in_one_turn_carry_their_diffs_and_the_turn_sums_them_up(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("def main():\n    return 1\n")
    edit = {"mode": "replace", "path": "app.py", "old_string": "return 1", "new_string": "return 2"}
    with FakeLLMServer() as server:
        server.enqueue(
            Reply(
                tool_calls=[
                    ("c1", "patch", json.dumps(edit)),
                    ("c2", "write_file", json.dumps({"path": "NOTES.md", "content": "# Notes\nfirst\n"})),
                ]
            ),
            Reply(
                tool_calls=[("c3", "patch", json.dumps({**edit, "old_string": "return 2", "new_string": "return 3"}))]
            ),
            Reply(text="Done."),
        )
        agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=project)
        try:
            result = await agent.run_conversation("bump the return value and start notes")
        finally:
            await agent.close()
            await db.close()
    assert result.completed
    finished = {event.call_id: event for event in log.of(ev.ToolCallFinished)}
    assert [c.summary for c in finished["c1"].changes] == ["app.py +1 −1"]
    assert "+    return 2" in (finished["c1"].changes[0].unified or "")
    assert [c.summary for c in finished["c2"].changes] == ["NOTES.md +2 −0 (new)"]
    assert json.loads(finished["c1"].result)["success"] is True  # the model's text is Hermes's, diff included
    assert finished["c2"].result == f"Created {project / 'NOTES.md'}: wrote 14 bytes (2 lines)"
    [summary] = log.of(ev.TurnFilesChanged)
    assert sorted(summary.files) == [("NOTES.md", 2, 0), ("app.py", 2, 2)]  # the first two ran side by side
    assert (summary.added, summary.removed) == (4, 2)
    assert log.index(summary) == log.index(log.of(ev.TurnFinished)[0]) - 1  # just before the turn's end
    assert (project / "app.py").read_text() == "def main():\n    return 3\n"


async def test_a_turn_that_changed_nothing_has_no_summary(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        server.enqueue(Reply(tool_calls=[("c1", "read_file", '{"path": "x.txt"}')]), Reply(text="No file."))
        agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
        try:
            await agent.run_conversation("read x")
        finally:
            await agent.close()
            await db.close()
    assert log.of(ev.TurnFilesChanged) == [] and len(log.of(ev.TurnFinished)) == 1


async def test_mode_commands_switch_what_the_tools_may_do_and_say_so(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        server.enqueue(
            Reply(tool_calls=[("c1", "write_file", '{"path": "plan.txt", "content": "x"}')]), Reply(text="Proposed.")
        )
        agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
        try:
            shown = await run_command(agent, "/mode")
            switched = await run_command(agent, "/mode plan")
            await agent.run_conversation("write the plan")
            on = await run_command(agent, "/yolo")
            off = await run_command(agent, "/yolo")
            wrong = await run_command(agent, "/mode sometimes")
        finally:
            await agent.close()
            await db.close()
    assert shown.output.startswith("Permission mode: ask — ")
    assert switched.output.startswith("Permission mode: read-only (plan) — ") and not switched.error
    [finished] = log.of(ev.ToolCallFinished)
    assert finished.is_error and "read-only (plan) mode" in finished.result
    assert not (tmp_path / "plan.txt").exists()
    assert on.output.startswith("YOLO mode on") and "read-only (plan)" in off.output
    assert wrong.error and "accept-edits" in wrong.output
    changes = [(e.previous, e.mode) for e in log.of(ev.PermissionModeChanged)]
    assert changes == [("ask", "read_only"), ("read_only", "yolo"), ("yolo", "read_only")]
    assert agent.permission_mode is PermissionMode.READ_ONLY
