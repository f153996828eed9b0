"""terminal on real bash processes: approval, output, exit codes, the cap, timeout and Ctrl-C."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from hermes_tui.core.tools.base import ApprovalRequest, ToolContext, ToolResult
from hermes_tui.core.tools.danger import RM_RECURSIVE_FORCE, assess_command
from hermes_tui.core.tools.registry import ToolRegistry
from hermes_tui.core.tools.terminal import (
    DENIED_BY_USER,
    DENIED_NO_APPROVER,
    TIMEOUT_EXIT_CODE,
    TerminalTool,
)
from tests.tools.helpers import RecordingApprover, make_context, poll_until, process_gone


async def run(ctx: ToolContext, command: str, **extra: Any) -> ToolResult:
    registry = ToolRegistry()
    registry.register(TerminalTool())
    return await registry.dispatch("terminal", json.dumps({"command": command, **extra}), ctx)


def outcome(result: ToolResult) -> dict[str, Any]:
    return json.loads(result.content)


def read_pid(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        return None
    return int(text) if text.isdigit() else None


@pytest.fixture
def approver() -> RecordingApprover:
    return RecordingApprover(answer=True)


@pytest.fixture
def ctx(tmp_path: Path, approver: RecordingApprover) -> ToolContext:
    return make_context(tmp_path, approve=approver)


@pytest.fixture
def leftover_pids() -> Any:
    """Pids a test started in the background; killed afterwards whatever happened."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# --------------------------------------------------------------------------- approval


async def test_an_approved_command_runs_and_the_approver_saw_it(
    tmp_path: Path, ctx: ToolContext, approver: RecordingApprover
) -> None:
    result = await run(ctx, "rm -rf scratch && echo cleaned")
    assert not result.is_error
    assert outcome(result) == {"output": "cleaned\n", "exit_code": 0}
    assert approver.requests == [
        ApprovalRequest(
            tool="terminal",
            command="rm -rf scratch && echo cleaned",
            cwd=str(tmp_path),
            reasons=assess_command("rm -rf scratch && echo cleaned"),
            session_scope="this exact command",
        )
    ]
    assert RM_RECURSIVE_FORCE in approver.requests[0].reasons


async def test_a_denied_command_does_not_run(tmp_path: Path, approver: RecordingApprover) -> None:
    approver.answer = False
    result = await run(make_context(tmp_path, approve=approver), "touch ran.txt")
    assert result == ToolResult(DENIED_BY_USER, is_error=True)
    assert result.content == "Command denied by the user"
    assert not (tmp_path / "ran.txt").exists()


async def test_without_an_approver_commands_are_denied(tmp_path: Path) -> None:
    result = await run(make_context(tmp_path, approve=None), "touch ran.txt")
    assert result.is_error
    assert result.content == DENIED_NO_APPROVER
    assert "no approval available (use --yes to allow)" in result.content
    assert not (tmp_path / "ran.txt").exists()


async def test_auto_approve_runs_without_asking(tmp_path: Path, approver: RecordingApprover) -> None:
    unattended = await run(make_context(tmp_path, approve=None, auto_approve=True), "touch a.txt")
    assert outcome(unattended)["exit_code"] == 0 and (tmp_path / "a.txt").exists()
    with_ui = await run(make_context(tmp_path, approve=approver, auto_approve=True), "touch b.txt")
    assert outcome(with_ui)["exit_code"] == 0 and (tmp_path / "b.txt").exists()
    assert approver.requests == []


async def test_ctrl_c_while_waiting_for_approval_propagates(tmp_path: Path) -> None:
    asked = asyncio.Event()

    async def never_answers(request: ApprovalRequest) -> bool:
        asked.set()
        await asyncio.Event().wait()
        return True

    task = asyncio.create_task(run(make_context(tmp_path, approve=never_answers), "touch ran.txt"))
    await asyncio.wait_for(asked.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not (tmp_path / "ran.txt").exists()


# --------------------------------------------------------------------------- running


async def test_runs_in_the_context_folder_with_stdout_and_stderr_merged(tmp_path: Path, ctx: ToolContext) -> None:
    result = outcome(await run(ctx, "pwd; echo to-stderr >&2; echo to-stdout"))
    assert result["output"] == f"{tmp_path}\nto-stderr\nto-stdout\n"


async def test_a_failing_command_reports_its_exit_code_without_being_a_tool_error(ctx: ToolContext) -> None:
    result = await run(ctx, "echo partial; exit 7")
    assert not result.is_error
    assert outcome(result) == {"output": "partial\n", "exit_code": 7}
    assert re.search(r'"exit_code": (-?\d+)', result.content).group(1) == "7"  # the compressor's parse


async def test_bash_features_work(ctx: ToolContext) -> None:
    result = outcome(await run(ctx, "for i in 1 2 3; do echo -n $i; done; [[ -d . ]] && echo ' ok'"))
    assert result["output"] == "123 ok\n"


async def test_commands_get_no_stdin(ctx: ToolContext) -> None:
    result = outcome(await run(ctx, "cat; echo after-cat", timeout=20))
    assert result == {"output": "after-cat\n", "exit_code": 0}


async def test_colour_escapes_are_removed(ctx: ToolContext) -> None:
    result = outcome(await run(ctx, r"printf '\033[1;31mred\033[0m plain\r\n'"))
    assert result["output"] == "red plain\n"


async def test_long_output_keeps_its_beginning_and_end(tmp_path: Path, approver: RecordingApprover) -> None:
    registry = ToolRegistry()
    registry.register(TerminalTool(output_head_bytes=200, output_tail_bytes=300))
    ctx = make_context(tmp_path, approve=approver)
    result = await registry.dispatch("terminal", json.dumps({"command": "seq 1 20000"}), ctx)
    output = outcome(result)["output"]
    full = "".join(f"{n}\n" for n in range(1, 20001))
    assert output.startswith(full[:200])
    assert output.endswith(full[-300:])
    omitted = len(full) - 500
    assert f"... [{omitted:,} bytes of output omitted] ..." in output
    assert len(output) < 600


async def test_an_empty_command_is_an_error_result(ctx: ToolContext, approver: RecordingApprover) -> None:
    result = await run(ctx, "   ")
    assert result.is_error and "command must not be empty" in result.content
    assert approver.requests == []


async def test_a_missing_working_folder_is_an_error_result(tmp_path: Path, approver: RecordingApprover) -> None:
    result = await run(make_context(tmp_path / "gone", approve=approver), "ls")
    assert result.is_error and "working folder does not exist" in result.content


async def test_background_processes_do_not_hold_the_result(
    tmp_path: Path, ctx: ToolContext, leftover_pids: list[int]
) -> None:
    result = await run(ctx, "sleep 30 & echo $! > bg.pid; echo started", timeout=60)
    leftover_pids.append(read_pid(tmp_path / "bg.pid") or 0)
    data = outcome(result)
    assert data["output"] == "started\n" and data["exit_code"] == 0
    assert "Background processes are still running" in data["note"]


# --------------------------------------------------------------------------- timeout and cancellation


async def test_timeout_stops_the_whole_process_group(tmp_path: Path, ctx: ToolContext) -> None:
    command = "echo $$ > shell.pid; sleep 600 & echo $! > child.pid; echo waiting; wait"
    result = await run(ctx, command, timeout=1)
    assert result.is_error
    data = outcome(result)
    assert data["exit_code"] == TIMEOUT_EXIT_CODE and data["timed_out"] is True
    assert data["output"] == "waiting\n"
    assert "timed out after 1s" in data["note"]
    for name in ("shell.pid", "child.pid"):
        pid = read_pid(tmp_path / name)
        assert pid is not None
        assert await poll_until(lambda pid=pid: process_gone(pid), timeout=10), f"{name} {pid} still runs"


async def test_the_configured_timeout_applies_when_none_is_given(tmp_path: Path, approver: RecordingApprover) -> None:
    ctx = make_context(tmp_path, approve=approver, terminal_timeout=0.5)
    result = await run(ctx, "sleep 600")
    assert outcome(result)["timed_out"] is True
    assert "timed out after 0.5s" in outcome(result)["note"]


async def test_a_process_ignoring_sigterm_is_killed(tmp_path: Path, ctx: ToolContext) -> None:
    command = "trap '' TERM; echo $$ > shell.pid; while true; do sleep 0.1; done"
    result = await run(ctx, command, timeout=0.5)
    assert outcome(result)["timed_out"] is True
    pid = read_pid(tmp_path / "shell.pid")
    assert pid is not None and await poll_until(lambda: process_gone(pid), timeout=10)


async def test_a_non_positive_timeout_is_an_error_result(ctx: ToolContext) -> None:
    result = await run(ctx, "echo hi", timeout=-1)
    assert result.is_error and "timeout must be more than 0 seconds" in result.content


async def test_cancellation_kills_the_process_group_and_propagates(tmp_path: Path, ctx: ToolContext) -> None:
    command = "echo $$ > shell.pid; sleep 600 & echo $! > child.pid; wait"
    task = asyncio.create_task(run(ctx, command, timeout=120))
    assert await poll_until(lambda: read_pid(tmp_path / "child.pid") is not None, timeout=10)
    shell_pid, child_pid = read_pid(tmp_path / "shell.pid"), read_pid(tmp_path / "child.pid")
    assert shell_pid is not None and child_pid is not None
    assert not process_gone(child_pid)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await poll_until(lambda: process_gone(shell_pid) and process_gone(child_pid), timeout=10)
