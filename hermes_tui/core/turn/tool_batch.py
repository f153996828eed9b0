"""Running the tool calls of one answer: together where that is safe, one by one elsewhere (as Hermes does).

`plan_segments` splits the calls, in the model's order, into segments: maximal runs of calls that
may run concurrently (read-only tools such as session_search, skill_view and skills_list, and file
tools whose paths do not overlap a path another call of the run writes; an overlap closes the run,
so the later call starts a new one after it) and, between them, barriers that run one by one —
anything that may need approval or touches the shell or shared state (the terminal, the todo list,
memory, skill changes, unknown tools, invalid arguments, a multi-file V4A patch). A run of one call
is a barrier too. No call ever starts before an earlier barrier has finished, so results and side
effects come in the same order as one by one; a run executes at most `MAX_PARALLEL` calls at a
time. Each call emits `ToolCallStarted` before it runs and `ToolCallFinished` when it ends (with the
files the call changed, for the UI), and the results are appended to the conversation in call
order. On Ctrl-C every running call is cancelled; the results that finished are kept and the turn
answers the open calls (the runner's interrupt handling). After a /stop, calls not yet started are
answered as not run. Before a batch with a call that may change files
(`ToolRegistry.may_change_files`) runs, the turn's checkpoint is taken (`TurnDeps.checkpoints`,
once per turn).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.core import events as ev
from hermes_tui.core.messages import Message
from hermes_tui.core.providers.base import StreamToolCall
from hermes_tui.core.tools.base import ToolContext, ToolResult
from hermes_tui.core.turn.deps import TurnDeps
from hermes_tui.core.turn.steering import STOPPED_TOOL_RESULT
from hermes_tui.text_safety import valid_unicode

MAX_PARALLEL = 8
# Read-only tools with no path and no shared state: they run alongside anything parallel-safe.
PARALLEL_SAFE_TOOLS = frozenset(
    {"session_search", "skill_view", "skills_list", "web_search", "web_extract", "vision_analyze"}
)
# File tools: parallel-safe while no other call of the run writes an overlapping path.
PATH_SCOPED_TOOLS = frozenset({"read_file", "search_files", "write_file", "patch"})
WRITING_FILE_TOOLS = frozenset({"write_file", "patch"})
_PATH_DEFAULT = {"search_files": "."}


def _arguments(call: StreamToolCall) -> dict[str, object] | None:
    try:
        args = json.loads(call.arguments or "{}")
    except ValueError:
        return None
    return args if isinstance(args, dict) else None


def _target(call: StreamToolCall, args: dict[str, object], cwd: Path) -> tuple[Path, bool] | None:
    """(resolved path, writes) of a file-scoped call; None when it names no path."""
    raw = args.get("path", _PATH_DEFAULT.get(call.name))
    if call.name == "patch" and args.get("mode", "replace") != "replace":
        return None  # a V4A patch names its files inside the patch text
    if not isinstance(raw, str) or not raw:
        return None
    return (cwd / raw).resolve(), call.name in WRITING_FILE_TOOLS


def _overlap(a: Path, b: Path) -> bool:
    return a == b or a in b.parents or b in a.parents


@dataclass(frozen=True)
class Segment:
    """Consecutive calls of one answer: run together (`parallel`) or one by one."""

    parallel: bool
    calls: tuple[StreamToolCall, ...]


def plan_segments(calls: Sequence[StreamToolCall], cwd: Path) -> list[Segment]:
    """The calls in order, as parallel runs and one-by-one barriers (module docstring)."""
    raw: list[tuple[bool, list[StreamToolCall]]] = []
    run: list[StreamToolCall] = []
    reserved: list[tuple[Path, bool]] = []

    def close_run() -> None:
        nonlocal run, reserved
        if run:
            raw.append((True, run))
        run, reserved = [], []

    for call in calls:
        args = _arguments(call)
        target = _target(call, args, cwd) if args is not None and call.name in PATH_SCOPED_TOOLS else None
        if args is not None and call.name in PARALLEL_SAFE_TOOLS:
            run.append(call)
        elif target is not None:
            path, writes = target
            if any((writes or wrote) and _overlap(path, held) for held, wrote in reserved):
                close_run()  # the later call waits for the run that touches its path
            run.append(call)
            reserved.append(target)
        else:
            close_run()
            raw.append((False, [call]))
    close_run()
    segments: list[Segment] = []
    for parallel, members in raw:
        parallel = parallel and len(members) > 1
        if segments and not parallel and not segments[-1].parallel:
            segments[-1] = Segment(False, (*segments[-1].calls, *members))
        else:
            segments.append(Segment(parallel, tuple(members)))
    return segments


def can_run_together(calls: Sequence[StreamToolCall], cwd: Path) -> bool:
    """True when all the calls may run concurrently, as one run, without changing what any of them sees."""
    segments = plan_segments(calls, cwd)
    return len(segments) == 1 and segments[0].parallel


async def _checkpoint_first(calls: Sequence[StreamToolCall], deps: TurnDeps, messages: list[Message]) -> None:
    """Before the turn's first call that may change files, the working folder is snapshotted (once per
    turn; nothing of this batch has run yet, so the snapshot is the folder as the turn found it)."""
    checkpoints = deps.checkpoints
    if checkpoints.wanted() and any(deps.tools.may_change_files(call.name, call.arguments) for call in calls):
        await checkpoints.before_change(messages)


def _tool_message(call: StreamToolCall, result: ToolResult) -> Message:
    """The tool message of one result: its text, or a list of parts when the tool returned images too."""
    content: str | list[dict[str, object]] = result.content
    if result.parts:
        content = [{"type": "text", "text": result.content}, *result.parts]
    return {"role": "tool", "content": content, "tool_call_id": call.id, "tool_name": call.name}


async def run_tool_calls(
    calls: Sequence[StreamToolCall], deps: TurnDeps, context: ToolContext, messages: list[Message]
) -> None:
    """Run `calls` (segment by segment, each run concurrently) and append their results to `messages` in call order."""
    events = deps.events
    await _checkpoint_first(calls, deps, messages)

    async def run_one(call: StreamToolCall) -> ToolResult:
        started = time.monotonic()
        blocked = await deps.extras.before_tool(call.name, call.arguments)  # a plugin may veto the call
        if blocked:
            result = ToolResult(blocked, is_error=True)
        else:
            result = await deps.tools.dispatch(call.name, call.arguments, context)
            await deps.extras.after_tool(call.name, call.arguments, result.content, result.is_error)
        # e.g. a file name decoded with surrogateescape: made valid before it is shown or stored
        result = dataclasses.replace(result, content=valid_unicode(result.content))
        elapsed = time.monotonic() - started
        events.emit(ev.ToolCallFinished(call.id, call.name, result.content, result.is_error, elapsed, result.changes))
        return result

    def stopped(call: StreamToolCall) -> Message:
        """/stop: a call after the one running when the user asked is answered as not run."""
        return {"role": "tool", "content": STOPPED_TOOL_RESULT, "tool_call_id": call.id, "tool_name": call.name}

    async def one_by_one(segment: Segment) -> None:
        for call in segment.calls:
            if deps.steering.stop_requested:
                messages.append(stopped(call))
                continue
            events.emit(ev.ToolCallStarted(call.id, call.name, call.arguments))
            messages.append(_tool_message(call, await run_one(call)))

    async def together(segment: Segment) -> None:
        gate = asyncio.Semaphore(MAX_PARALLEL)
        results: dict[int, ToolResult] = {}

        async def slot(index: int, call: StreamToolCall) -> None:
            async with gate:
                if deps.steering.stop_requested:  # not yet started when /stop came: not run
                    results[index] = ToolResult(STOPPED_TOOL_RESULT, is_error=True)
                    return
                events.emit(ev.ToolCallStarted(call.id, call.name, call.arguments))
                results[index] = await run_one(call)

        tasks = [asyncio.create_task(slot(index, call)) for index, call in enumerate(segment.calls)]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        finally:  # what finished is kept, in call order, even when the run was interrupted
            messages.extend(_tool_message(call, results[i]) for i, call in enumerate(segment.calls) if i in results)

    for segment in plan_segments(calls, context.cwd):
        await (together(segment) if segment.parallel else one_by_one(segment))
