"""The approval gate of the file tools: judge a path, open what it names, ask the user when needed.

Owns `authorize(ctx, tool, raw_path, access, describe, refuse, prepare)`. In a worker thread
(realpath, stat and open can block) the path is judged by `file_policy`, refused at once when the call can never
work (`refuse`), then opened through `safe_open`'s walk, which follows no symbolic link: the file
to read, the folder to search, the folder a write goes into. What was opened can add a reason: a
regular file with more than one name (a hard link) is treated as outside. A write tool may then
`prepare` its change on what was opened (read the old content, compute the new one and its diff) in a
worker thread, before anyone is asked. Whether the user is asked is the permission mode's call
(`ctx.rules`, `core.tools.permissions`): read-only mode refuses every write at once; a free path
passes; any other is put to the user through `ctx.approve(ApprovalRequest)` (the request's `command`
says exactly what: the action, the resolved path and, from `describe`, sizes; `change` the diff the
write would make) unless the mode (yolo, `--yes`) or an "allow for the rest of the session" answer
already allows it, and denied when no one can be asked (headless without --yes) with an error result
the model can read. A preparation that failed (an edit that does not apply) is reported to the model
only after the user allowed the access, so a file that needs approval tells nothing of its content
first. `authorize` is `open_judged` (judge, open, prepare) followed by `confirm` (the mode and the
user); a tool that touches several files (patch's V4A mode) opens them all before it asks. A `Grant`
carries the opened descriptors to the tool's work, which `run_granted` runs in a worker thread; they
are closed once, whatever happens. Also `error_result` and `changed_result` (the message when a
path changed under a tool).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from hermes_tui.core.tools.base import ApprovalRequest, ToolContext, ToolResult
from hermes_tui.core.tools.blocking import StopSignal, WorkTimedOut, run_blocking
from hermes_tui.core.tools.file_diff import FileChange
from hermes_tui.core.tools.file_policy import (
    OUTSIDE,
    OUTSIDE_ALLOWED,
    Access,
    PathVerdict,
    TargetInfo,
    UnusablePath,
    assess_path,
    hard_link_reason,
    visible_path,
)
from hermes_tui.core.tools.permissions import ApprovalAnswer, file_key
from hermes_tui.core.tools.safe_open import (
    Descriptors,
    NotRegularFile,
    OpenedFile,
    PathChanged,
    WritePlace,
    locate_for_write,
    open_file,
    open_folder,
)

T = TypeVar("T")

ASSESS_TIME_LIMIT = 10.0
PREPARE_TIME_LIMIT = 20.0
GERUNDS: dict[str, str] = {"read": "reading", "write": "writing", "search": "searching"}
_DONE: dict[str, str] = {"read": "read", "write": "written", "search": "searched"}
_OUTSIDE_ONLY = frozenset({OUTSIDE, OUTSIDE_ALLOWED})

Refuse = Callable[[PathVerdict], ToolResult | None]


@dataclass(frozen=True)
class OpenedFolder:
    """A folder opened for listing (search_files' root)."""

    fd: int


Opened = OpenedFile | OpenedFolder | WritePlace


@dataclass(frozen=True)
class Prepared:
    """What a write tool worked out before asking: the change it would make (for the approval
    request and the result) and anything its write needs later (`value`, e.g. the new bytes)."""

    change: FileChange | None
    value: Any = None


@dataclass(frozen=True)
class Grant:
    """A path a tool may now use: the verdict, what was opened for it, and who holds the descriptors.

    `prepared` is what the tool's `prepare` worked out; `failure` the error it ended with instead
    (given to the model only once the access is allowed).
    """

    verdict: PathVerdict
    opened: Opened
    descriptors: Descriptors
    prepared: Prepared | None = None
    failure: ToolResult | None = None

    def release(self) -> None:
        """Give up the grant: its descriptors are closed (at once, or when a worker using them ends)."""
        self.descriptors.drop()


Prepare = Callable[[Grant, StopSignal], "Prepared | ToolResult"]


def error_result(message: str) -> ToolResult:
    return ToolResult(f"Error: {message}", is_error=True)


def changed_result(shown: str, exc: PathChanged, access: Access) -> ToolResult:
    """The error when a name on the judged path became a symbolic link before it was used."""
    return error_result(
        f"{shown} changed while it was being opened ({visible_path(exc.where)} is now a symbolic link), "
        f"so nothing was {_DONE[access]}; try again"
    )


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


# --------------------------------------------------------------------------- opening what was judged


def _open(verdict: PathVerdict, descriptors: Descriptors) -> Opened:
    """Open what `verdict` names for its access; the descriptors are kept in `descriptors`."""
    path, roots = verdict.resolved, verdict.roots
    if verdict.access == "write":
        place = locate_for_write(path, roots)
        descriptors.keep(place.folder_fd)
        return place
    if verdict.access == "search" and verdict.target.kind == "folder":
        return OpenedFolder(descriptors.keep(open_folder(path, roots)))
    opened = open_file(path, roots)
    descriptors.keep(opened.fd)
    return opened


def _as_opened(verdict: PathVerdict, opened: Opened) -> PathVerdict:
    """The verdict brought up to date with the opened object: its size, and a hard link's reason."""
    links, target = 1, verdict.target
    if isinstance(opened, OpenedFile):
        links, target = opened.links, TargetInfo("file", opened.size)
    elif isinstance(opened, WritePlace):
        existing = opened.existing
        if existing is not None:
            links, target = existing.st_nlink, TargetInfo("file", existing.st_size)
        else:
            target = TargetInfo("missing")
    extra = (hard_link_reason(links),) if links > 1 else ()
    return replace(verdict, target=target, reasons=tuple(dict.fromkeys(verdict.reasons + extra)))


def _open_refusal(verdict: PathVerdict, exc: OSError, refuse: Refuse | None) -> ToolResult:
    """The error result for an open that failed: the tool's own words for what is there now."""
    shown = verdict.shown
    if isinstance(exc, PathChanged):
        return changed_result(shown, exc, verdict.access)
    if isinstance(exc, PermissionError):
        return error_result(f"permission denied: {shown}")
    if isinstance(exc, NotRegularFile):
        found = TargetInfo(exc.kind)
    elif isinstance(exc, FileNotFoundError):
        found = TargetInfo("missing")
    elif isinstance(exc, IsADirectoryError):
        found = TargetInfo("folder")
    elif isinstance(exc, NotADirectoryError):
        found = TargetInfo("missing", error="a file is in the way of a folder on this path")
    else:
        found = TargetInfo("other", error=exc.strerror or str(exc))
    refusal = refuse(replace(verdict, target=found)) if refuse is not None else None
    return refusal or error_result(f"cannot {verdict.access} {shown}: {exc.strerror or exc}")


# --------------------------------------------------------------------------- the gate


async def _judge_and_open(
    ctx: ToolContext, raw_path: str, access: Access, refuse: Refuse | None, descriptors: Descriptors
) -> Grant | ToolResult:
    """Judge `raw_path`, refuse it or open it, in a worker thread; raises UnusablePath."""
    allow = tuple(ctx.settings.allow_paths)

    def work() -> Grant | ToolResult:
        descriptors.begin()
        kept = False
        try:
            verdict = assess_path(raw_path, access, cwd=ctx.cwd, allow_paths=allow, home=ctx.home)
            refusal = refuse(verdict) if refuse is not None else None
            if refusal is not None:
                return refusal
            try:
                opened = _open(verdict, descriptors)
            except OSError as exc:
                return _open_refusal(verdict, exc, refuse)
            kept = True
            return Grant(_as_opened(verdict, opened), opened, descriptors)
        finally:
            descriptors.end(close=not kept)

    return await asyncio.wait_for(asyncio.to_thread(work), ASSESS_TIME_LIMIT)


async def _prepare(grant: Grant, prepare: Prepare) -> Grant:
    """`prepare` run on the grant's descriptors in a worker thread; its outcome kept in the grant."""
    descriptors = grant.descriptors

    def work(stop: StopSignal) -> Prepared | ToolResult:
        descriptors.begin()
        try:
            return prepare(grant, stop)
        finally:
            descriptors.end(close=False)

    try:
        outcome = await run_blocking(work, PREPARE_TIME_LIMIT)
    except WorkTimedOut:
        outcome = error_result(
            f"working out the change to {grant.verdict.shown} took longer than {PREPARE_TIME_LIMIT:g} s; "
            "nothing was changed"
        )
    except BaseException:
        grant.release()
        raise
    if isinstance(outcome, ToolResult):
        return replace(grant, failure=outcome)
    return replace(grant, prepared=outcome)


async def open_judged(
    ctx: ToolContext,
    tool: str,
    raw_path: str,
    access: Access,
    refuse: Refuse | None = None,
    prepare: Prepare | None = None,
) -> Grant | ToolResult:
    """Judge `raw_path`, refuse it or open it, then `prepare` the change on what was opened.

    Nobody is asked yet: pass the grant to `confirm`. Read-only mode refuses a write here, before
    anything is looked at. `refuse(verdict)` runs before anything is opened, so a call that would
    fail anyway (a folder given as a file, a FIFO) fails without an approval prompt; it runs again
    with what the open found when the open fails.
    """
    if access == "write":
        refusal = ctx.rules.refusal(tool)
        if refusal is not None:
            return ToolResult(refusal, is_error=True)
    descriptors = Descriptors()
    try:
        outcome = await _judge_and_open(ctx, raw_path, access, refuse, descriptors)
    except UnusablePath as exc:
        return error_result(str(exc))
    except TimeoutError:
        descriptors.drop()
        return error_result(f"looking up the path took longer than {ASSESS_TIME_LIMIT:g} s (a stuck file system?)")
    except BaseException:
        descriptors.drop()
        raise
    if isinstance(outcome, ToolResult) or prepare is None:
        return outcome
    return await _prepare(outcome, prepare)


def _session_scope(access: Access) -> str:
    return {"read": "reading this file", "write": "changing this file", "search": "searching here"}[access]


async def confirm(
    ctx: ToolContext, tool: str, grant: Grant, describe: Callable[[PathVerdict], str]
) -> Grant | ToolResult:
    """The grant when the mode, the session's allow list or the user lets `tool` go ahead, else an
    error result (the grant is then released). A failed preparation is returned once allowed."""
    verdict, rules = grant.verdict, ctx.rules
    key = file_key(verdict.access, str(verdict.resolved))
    if not rules.needs_asking(verdict.access, verdict.reasons) or rules.allowed(key):
        return _allowed(grant)
    if ctx.approve is None:
        grant.release()
        return error_result(_no_approver_message(verdict))
    command = describe(verdict)
    if grant.failure is not None:
        command += " (as given, the change does not apply: the reason is shown to the model if you allow it)"
    request = ApprovalRequest(
        tool=tool,
        command=command,
        cwd=str(ctx.cwd),
        reasons=verdict.reasons,
        change=grant.prepared.change if grant.prepared is not None else None,
        session_scope=_session_scope(verdict.access),
    )
    try:
        answer = await rules.ask(ctx.approve, request, key)
    except BaseException:
        grant.release()
        raise
    if answer in (ApprovalAnswer.ONCE, ApprovalAnswer.SESSION):
        return _allowed(grant)
    grant.release()
    if answer is None:
        return error_result(_no_approver_message(verdict))
    return error_result(f"{GERUNDS[verdict.access]} {verdict.shown} was denied by the user ({_reason_text(verdict)})")


def _allowed(grant: Grant) -> Grant | ToolResult:
    if grant.failure is not None:
        grant.release()
        return grant.failure
    return grant


async def authorize(
    ctx: ToolContext,
    tool: str,
    raw_path: str,
    access: Access,
    describe: Callable[[PathVerdict], str],
    refuse: Refuse | None = None,
    prepare: Prepare | None = None,
) -> Grant | ToolResult:
    """A grant when `tool` may go ahead with `raw_path`, else an error result for the model.

    `open_judged` then `confirm`: `describe(verdict)` is the request's `command` (what exactly will
    be done), `prepare` works out the change before anyone is asked (its diff goes into the request).
    The grant's descriptors belong to the caller: pass it to `run_granted`.
    """
    opened = await open_judged(ctx, tool, raw_path, access, refuse, prepare)
    if isinstance(opened, ToolResult):
        return opened
    return await confirm(ctx, tool, opened, describe)


async def run_granted(grant: Grant | Sequence[Grant], work: Callable[[StopSignal], T], time_limit: float) -> T:
    """`work(stop)` in a worker thread (`blocking.run_blocking`) with the grant's (or grants') descriptors open.

    They are closed when the work ends, or at once if it never started; a worker abandoned past
    its time cap closes them when it finally returns, so no descriptor is reused under it.
    """
    grants = [grant] if isinstance(grant, Grant) else list(grant)

    def guarded(stop: StopSignal) -> T:
        begun: list[Descriptors] = []
        try:
            for each in grants:
                each.descriptors.begin()
                begun.append(each.descriptors)
            return work(stop)
        finally:
            for descriptors in begun:
                descriptors.end(close=True)

    try:
        return await run_blocking(guarded, time_limit)
    finally:
        for each in grants:
            each.release()
