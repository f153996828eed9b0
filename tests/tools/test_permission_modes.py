"""Each permission mode through the real tools: what it refuses, what it lets through, what still asks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hermes_tui.config import ToolsSettings
from hermes_tui.core.todo import TodoStore
from hermes_tui.core.tools.base import ApprovalRequest, ToolContext, ToolResult
from hermes_tui.core.tools.defaults import default_registry
from hermes_tui.core.tools.permissions import ApprovalAnswer, PermissionMode, Permissions
from tests.tools.helpers import RecordingApprover


class Answering:
    """An approver giving the scripted answers in turn, recording every request."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Any:
        self.requests.append(request)
        return self.answers.pop(0)


def context(cwd: Path, mode: PermissionMode, approve: Any = None) -> ToolContext:
    return ToolContext(
        cwd=cwd, settings=ToolsSettings(), approve=approve, todo=TodoStore(), permissions=Permissions(mode)
    )


async def call(ctx: ToolContext, tool: str, **args: Any) -> ToolResult:
    return await default_registry().dispatch(tool, json.dumps(args), ctx)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "app.py").write_text("x = 1\n")
    (tmp_path / "outside.txt").write_text("far away\n")
    return folder


# --------------------------------------------------------------------------- read-only (plan)


async def test_read_only_refuses_write_patch_and_the_shell_with_a_reason_the_model_can_act_on(project: Path) -> None:
    approver = RecordingApprover(answer=True)
    ctx = context(project, PermissionMode.READ_ONLY, approver)
    wrote = await call(ctx, "write_file", path="new.txt", content="hi")
    patched = await call(ctx, "patch", mode="replace", path="app.py", old_string="x = 1", new_string="x = 2")
    ran = await call(ctx, "terminal", command=f"touch {project / 'ran'}")
    for result in (wrote, patched, ran):
        assert result.is_error
        assert "read-only (plan) mode" in result.content and "propose" in result.content
    assert not (project / "new.txt").exists() and (project / "app.py").read_text() == "x = 1\n"
    assert not (project / "ran").exists()
    assert approver.requests == []  # refused outright, never put to the user


async def test_read_only_still_reads_and_searches(project: Path) -> None:
    ctx = context(project, PermissionMode.READ_ONLY)
    assert "x = 1" in (await call(ctx, "read_file", path="app.py")).content
    assert json.loads((await call(ctx, "search_files", pattern="x =")).content)["total_count"] == 1


# --------------------------------------------------------------------------- accept edits


async def test_accept_edits_writes_in_the_folder_unasked_but_the_shell_and_outside_files_still_ask(
    project: Path, tmp_path: Path
) -> None:
    approver = RecordingApprover(answer=False)
    ctx = context(project, PermissionMode.ACCEPT_EDITS, approver)
    assert not (await call(ctx, "write_file", path="src/new.py", content="y = 2\n")).is_error
    assert not (
        await call(ctx, "patch", mode="replace", path="app.py", old_string="x = 1", new_string="x = 3")
    ).is_error
    assert approver.requests == []
    outside = await call(ctx, "write_file", path=str(tmp_path / "outside.txt"), content="changed\n")
    env_file = await call(ctx, "write_file", path=".env", content="TOKEN=x\n")
    shell = await call(ctx, "terminal", command="echo hi")
    assert outside.is_error and env_file.is_error and shell.is_error
    assert [request.tool for request in approver.requests] == ["write_file", "write_file", "terminal"]
    assert (tmp_path / "outside.txt").read_text() == "far away\n" and not (project / ".env").exists()


# --------------------------------------------------------------------------- yolo and ask


async def test_yolo_asks_nothing_even_headless(project: Path, tmp_path: Path) -> None:
    ctx = context(project, PermissionMode.YOLO, approve=None)  # no one to ask
    assert not (await call(ctx, "write_file", path=str(tmp_path / "outside.txt"), content="changed\n")).is_error
    shell = await call(ctx, "terminal", command="echo ran")
    assert not shell.is_error and json.loads(shell.content)["output"] == "ran\n"
    assert (tmp_path / "outside.txt").read_text() == "changed\n"


async def test_ask_keeps_todays_rules(project: Path, tmp_path: Path) -> None:
    approver = RecordingApprover(answer=True)
    ctx = context(project, PermissionMode.ASK, approver)
    await call(ctx, "write_file", path="in.txt", content="free\n")
    assert approver.requests == []
    await call(ctx, "write_file", path=str(tmp_path / "outside.txt"), content="asked\n")
    await call(ctx, "terminal", command="true")
    assert [request.tool for request in approver.requests] == ["write_file", "terminal"]


async def test_switching_the_mode_applies_to_the_next_call(project: Path) -> None:
    permissions = Permissions(PermissionMode.ASK)
    ctx = ToolContext(cwd=project, settings=ToolsSettings(), approve=None, todo=TodoStore(), permissions=permissions)
    assert not (await call(ctx, "write_file", path="a.txt", content="1")).is_error
    permissions.set_mode(PermissionMode.READ_ONLY)
    assert (await call(ctx, "write_file", path="b.txt", content="2")).is_error
    assert not (project / "b.txt").exists()


def test_yes_starts_in_yolo_and_the_cycle_visits_every_mode() -> None:
    ctx = ToolContext(cwd=Path("."), settings=ToolsSettings(auto_approve=True), approve=None, todo=TodoStore())
    assert ctx.rules.mode is PermissionMode.YOLO
    seen, mode = [], PermissionMode.ASK
    for _ in range(4):
        seen.append(mode)
        mode = mode.next()
    assert seen == [PermissionMode.ASK, PermissionMode.ACCEPT_EDITS, PermissionMode.READ_ONLY, PermissionMode.YOLO]
    assert mode is PermissionMode.ASK


# --------------------------------------------------------------------------- allow for the rest of the session


async def test_allow_for_the_session_lets_that_exact_command_run_again_unasked(project: Path) -> None:
    approver = Answering(ApprovalAnswer.SESSION, ApprovalAnswer.DENY)
    permissions = Permissions(PermissionMode.ASK)
    ctx = ToolContext(
        cwd=project, settings=ToolsSettings(), approve=approver, todo=TodoStore(), permissions=permissions
    )
    first = await call(ctx, "terminal", command="echo once")
    again = await call(ctx, "terminal", command="echo once")
    other = await call(ctx, "terminal", command="echo other")
    assert not first.is_error and not again.is_error
    assert other.is_error and "denied by the user" in other.content
    assert [request.command for request in approver.requests] == ["echo once", "echo other"]
    assert approver.requests[0].session_scope == "this exact command"
    assert permissions.allowed_commands == frozenset({"echo once"})


async def test_allow_for_the_session_covers_one_file_outside_the_folder(project: Path, tmp_path: Path) -> None:
    approver = Answering(ApprovalAnswer.SESSION, ApprovalAnswer.DENY)
    ctx = context(project, PermissionMode.ASK, approver)
    target = tmp_path / "outside.txt"
    assert not (await call(ctx, "write_file", path=str(target), content="one\n")).is_error
    assert not (await call(ctx, "patch", mode="replace", path=str(target), old_string="one", new_string="two")).is_error
    denied = await call(ctx, "write_file", path=str(tmp_path / "elsewhere.txt"), content="no\n")
    assert denied.is_error and target.read_text() == "two\n"
    assert len(approver.requests) == 2


async def test_allow_once_asks_again_next_time(project: Path) -> None:
    approver = Answering(True, ApprovalAnswer.ONCE)
    ctx = context(project, PermissionMode.ASK, approver)
    await call(ctx, "terminal", command="true")
    await call(ctx, "terminal", command="true")
    assert len(approver.requests) == 2
