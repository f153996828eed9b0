"""The terminal tool: run one shell command in ctx.cwd, after the user approves it.

Owns: the approval step (`ctx.approve(ApprovalRequest)` with the reasons from `danger.py`, through
the permission mode `ctx.rules`: read-only refuses, yolo and a command allowed for the session run
unasked; no approver means denied), running `bash -c` as an asyncio subprocess
in its own process group with stdout and stderr merged into one pipe, the output cap (head and
tail kept, the middle counted and dropped), the timeout (the whole process group is terminated),
and cancellation (the process group is killed and `CancelledError` re-raised so Ctrl-C works).
The shell's environment comes from `subprocess_env`: ours without the agent's credentials.
The result is JSON with "output" and "exit_code" (the compressor's one-liner parses it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_tui.core.tools.base import (
    ApprovalRequest,
    Tool,
    ToolContext,
    ToolResult,
    object_schema,
    param,
)
from hermes_tui.core.tools.danger import assess_command
from hermes_tui.core.tools.permissions import ApprovalAnswer, command_key
from hermes_tui.core.tools.read_only_commands import is_read_only
from hermes_tui.core.tools.subprocess_env import tool_subprocess_env

DEFAULT_OUTPUT_HEAD_BYTES = 20_000
DEFAULT_OUTPUT_TAIL_BYTES = 30_000
MAX_TIMEOUT_SECONDS = 3600.0
TIMEOUT_EXIT_CODE = 124  # what coreutils `timeout` reports
KILL_GRACE_SECONDS = 1.0
DRAIN_SECONDS = 0.5
DENIED_BY_USER = "Command denied by the user"
DENIED_NO_APPROVER = "Command denied: no approval available (use --yes to allow)"

_ANSI_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_QUIET_ENV = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}


class OutputCapture:
    """Keeps the first `head_limit` and the last `tail_limit` bytes of a stream, counting the rest."""

    def __init__(self, head_limit: int, tail_limit: int) -> None:
        self.head_limit = max(0, head_limit)
        self.tail_limit = max(0, tail_limit)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data and self.tail_limit:
            self.tail += data
            excess = len(self.tail) - self.tail_limit
            if excess > 0:
                del self.tail[:excess]

    @property
    def omitted(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    def text(self) -> str:
        """The kept output as text: ANSI escapes removed, CRLF normalised, the cut marked."""
        if not self.omitted:
            return _clean(bytes(self.head + self.tail))
        marker = f"\n\n... [{self.omitted:,} bytes of output omitted] ...\n\n"
        return _clean(bytes(self.head)) + marker + _clean(bytes(self.tail))


def _clean(data: bytes) -> str:
    return _ANSI_ESCAPE.sub("", data.decode("utf-8", errors="replace")).replace("\r\n", "\n")


class _PipeReader(asyncio.Protocol):
    def __init__(self, capture: OutputCapture, closed: asyncio.Future[None]) -> None:
        self.capture = capture
        self.closed = closed

    def data_received(self, data: bytes) -> None:
        self.capture.feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


@dataclass(frozen=True)
class CommandOutcome:
    output: str
    exit_code: int
    timed_out: bool
    output_still_open: bool  # background processes kept the output pipe open after the command ended


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


async def _wait_quietly(process: asyncio.subprocess.Process, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), seconds)


async def _terminate_group(process: asyncio.subprocess.Process) -> None:
    """SIGTERM the group, give it a moment, then SIGKILL whatever is left of it."""
    _signal_group(process.pid, signal.SIGTERM)
    await _wait_quietly(process, KILL_GRACE_SECONDS)
    _signal_group(process.pid, signal.SIGKILL)
    await _wait_quietly(process, KILL_GRACE_SECONDS)


def _exit_code(returncode: int | None) -> int:
    if returncode is None:
        return -1
    return 128 - returncode if returncode < 0 else returncode  # killed by signal N -> 128+N, as shells say


def terminal_env(passthrough: list[str] | None = None, strip: list[str] | None = None) -> dict[str, str]:
    """The shell's environment: ours without the agent's credentials, pagers off."""
    return tool_subprocess_env(os.environ, passthrough=passthrough or (), strip=strip or (), extra=_QUIET_ENV)


def shell_path() -> str:
    return shutil.which("bash") or "/bin/sh"


async def run_command(
    command: str,
    cwd: Path,
    timeout: float,
    head_bytes: int = DEFAULT_OUTPUT_HEAD_BYTES,
    tail_bytes: int = DEFAULT_OUTPUT_TAIL_BYTES,
    env: Mapping[str, str] | None = None,
) -> CommandOutcome:
    """Run `command` with bash in its own process group; output is merged and capped.

    `env` is the shell's whole environment (default: ours without credentials, `terminal_env`).
    Raises OSError when the shell cannot be started. On cancellation the group is killed
    with SIGKILL and the CancelledError propagates.
    """
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            shell_path(),
            "-c",
            command,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            start_new_session=True,
            env=dict(terminal_env() if env is None else env),
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    capture = OutputCapture(head_bytes, tail_bytes)
    closed: asyncio.Future[None] = loop.create_future()
    try:
        transport, _ = await loop.connect_read_pipe(
            lambda: _PipeReader(capture, closed), os.fdopen(read_fd, "rb", buffering=0)
        )
    except BaseException:
        _signal_group(process.pid, signal.SIGKILL)
        raise
    timed_out = False
    still_open = False
    try:
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            timed_out = True
            await _terminate_group(process)
        try:
            await asyncio.wait_for(asyncio.shield(closed), DRAIN_SECONDS)
        except TimeoutError:
            still_open = True
    except asyncio.CancelledError:
        _signal_group(process.pid, signal.SIGKILL)
        raise
    finally:
        transport.close()
    exit_code = TIMEOUT_EXIT_CODE if timed_out else _exit_code(process.returncode)
    return CommandOutcome(capture.text(), exit_code, timed_out, still_open and not timed_out)


class TerminalTool(Tool):
    name = "terminal"
    mutates_files = True
    description = (
        "Run a shell command with bash in the working folder and return its combined stdout and "
        "stderr with the exit code. The user approves each command first. Commands run without a "
        "terminal or stdin, so avoid interactive programs and pagers. Long output is shortened to "
        "its beginning and end. Optional timeout in seconds."
    )
    parameters = object_schema(
        required=["command"],
        command=param("string", "The shell command to run (bash -c)."),
        timeout=param("number", "Seconds before the command is stopped. Default: the configured timeout."),
    )

    def __init__(
        self,
        output_head_bytes: int = DEFAULT_OUTPUT_HEAD_BYTES,
        output_tail_bytes: int = DEFAULT_OUTPUT_TAIL_BYTES,
    ) -> None:
        self.output_head_bytes = output_head_bytes
        self.output_tail_bytes = output_tail_bytes

    def may_change_files(self, args: dict[str, Any]) -> bool:
        return not is_read_only(str(args.get("command") or ""))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        command: str = args["command"]
        if not command.strip():
            return ToolResult("Error: command must not be empty", is_error=True)
        requested = args.get("timeout")
        timeout = float(ctx.settings.terminal_timeout if requested is None else requested)
        if timeout <= 0:
            return ToolResult(f"Error: timeout must be more than 0 seconds, got {timeout:g}", is_error=True)
        timeout = min(timeout, MAX_TIMEOUT_SECONDS)
        if not ctx.cwd.is_dir():
            return ToolResult(f"Error: working folder does not exist: {ctx.cwd}", is_error=True)

        denial = await self._approval_denial(command, ctx)
        if denial:
            return ToolResult(denial, is_error=True)
        try:
            outcome = await run_command(
                command,
                ctx.cwd,
                timeout,
                self.output_head_bytes,
                self.output_tail_bytes,
                env=terminal_env(ctx.settings.env_passthrough, ctx.settings.env_strip),
            )
        except OSError as exc:
            return ToolResult(f"Error: cannot start the shell: {exc.strerror or exc}", is_error=True)

        result: dict[str, Any] = {"output": outcome.output, "exit_code": outcome.exit_code}
        if outcome.timed_out:
            result["timed_out"] = True
            result["note"] = f"Command timed out after {timeout:g}s; its process group was stopped."
        elif outcome.output_still_open:
            result["note"] = "Background processes are still running; their later output is not captured."
        return ToolResult(json.dumps(result, ensure_ascii=False), is_error=outcome.timed_out)

    @staticmethod
    async def _approval_denial(command: str, ctx: ToolContext) -> str | None:
        """None when the command may run, else the denial message. The permission mode decides
        first (read-only refuses, yolo runs, a command allowed for the session runs), then the user."""
        rules = ctx.rules
        refusal = rules.refusal("terminal")
        if refusal is not None:
            return refusal
        request = ApprovalRequest(
            tool="terminal",
            command=command,
            cwd=str(ctx.cwd),
            reasons=assess_command(command),
            session_scope="this exact command",
        )
        answer = await rules.ask(ctx.approve, request, command_key(command))
        if answer is None:
            return DENIED_NO_APPROVER
        return DENIED_BY_USER if answer is ApprovalAnswer.DENY else None
