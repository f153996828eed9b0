"""The approval gate of the file tools: judge a path, ask the user when the policy says so.

Owns `authorize(ctx, tool, raw_path, access, describe)`: the path is judged by `file_policy`
in a worker thread (realpath and stat can block); an unusable path is an error result; a free
path passes; any other path needs approval — granted by `--yes` (`settings.auto_approve`), by the
user through `ctx.approve(ApprovalRequest)` (the request's `command` says exactly what: the action,
the resolved path and, from `describe`, sizes), and denied when no one can be asked (headless
without --yes) with an error result the model can read. Also `error_result` and `safe_open_regular`
(open a file for reading only if it is a regular file, without blocking on FIFOs or devices).
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Callable

from hermes_tui.core.tools.base import ApprovalRequest, ToolContext, ToolResult
from hermes_tui.core.tools.file_policy import (
    OUTSIDE,
    OUTSIDE_ALLOWED,
    Access,
    PathVerdict,
    UnusablePath,
    assess_path,
)

ASSESS_TIME_LIMIT = 10.0
GERUNDS: dict[str, str] = {"read": "reading", "write": "writing", "search": "searching"}
_OUTSIDE_ONLY = frozenset({OUTSIDE, OUTSIDE_ALLOWED})


class NotRegularFile(OSError):
    """The path names a FIFO, device, socket or folder, not a regular file."""


def error_result(message: str) -> ToolResult:
    return ToolResult(f"Error: {message}", is_error=True)


async def judge(ctx: ToolContext, raw_path: str, access: Access) -> PathVerdict:
    """The policy's verdict on `raw_path`, worked out off the event loop; raises UnusablePath."""
    allow = tuple(ctx.settings.allow_paths)

    def work() -> PathVerdict:
        return assess_path(raw_path, access, cwd=ctx.cwd, allow_paths=allow, home=ctx.home)

    return await asyncio.wait_for(asyncio.to_thread(work), ASSESS_TIME_LIMIT)


def _reason_text(verdict: PathVerdict) -> str:
    return "; ".join(verdict.reasons)


def _no_approver_message(verdict: PathVerdict) -> str:
    gerund = GERUNDS[verdict.access]
    if set(verdict.reasons) <= _OUTSIDE_ONLY:
        hint = (
            "Stay inside the working folder; to open up a folder the user can list it in [tools] allow_paths "
            "in config.toml, or run with --yes."
        )
    else:
        hint = "The user can allow it by running with --yes."
    return (
        f"{gerund} {verdict.shown} needs the user's approval ({_reason_text(verdict)}) and it was not granted: "
        f"no one can be asked here. {hint}"
    )


async def authorize(
    ctx: ToolContext,
    tool: str,
    raw_path: str,
    access: Access,
    describe: Callable[[PathVerdict], str],
    refuse: Callable[[PathVerdict], ToolResult | None] | None = None,
) -> PathVerdict | ToolResult:
    """The verdict when `tool` may go ahead with `raw_path`, else an error result for the model.

    `refuse(verdict)` runs before anyone is asked, so a call that would fail anyway (a folder
    given as a file, a FIFO) fails without an approval prompt. `describe(verdict)` is the
    request's `command`: what exactly will be done.
    """
    try:
        verdict = await judge(ctx, raw_path, access)
    except UnusablePath as exc:
        return error_result(str(exc))
    except TimeoutError:
        return error_result(f"looking up the path took longer than {ASSESS_TIME_LIMIT:g} s (a stuck file system?)")
    if refuse is not None:
        refusal = refuse(verdict)
        if refusal is not None:
            return refusal
    if not verdict.needs_approval or ctx.settings.auto_approve:
        return verdict
    if ctx.approve is None:
        return error_result(_no_approver_message(verdict))
    request = ApprovalRequest(tool=tool, command=describe(verdict), cwd=str(ctx.cwd), reasons=verdict.reasons)
    if await ctx.approve(request):
        return verdict
    gerund = GERUNDS[access]
    return error_result(f"{gerund} {verdict.shown} was denied by the user ({_reason_text(verdict)})")


def safe_open_regular(path: str | os.PathLike[str]) -> int:
    """A read-only descriptor for `path` if it is a regular file; raises NotRegularFile otherwise.

    Checks before opening (opening some devices has effects of its own) and again on the open
    descriptor (the name may have been swapped for a FIFO in between); O_NONBLOCK keeps a FIFO's
    open from waiting for a writer.
    """
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise NotRegularFile(f"{os.fspath(path)} is not a regular file")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(f"{os.fspath(path)} is not a regular file")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd
