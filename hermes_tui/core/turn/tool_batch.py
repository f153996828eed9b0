"""Running the tool calls of one answer: together when that is safe, one by one otherwise (as Hermes does).

A batch runs concurrently (at most `MAX_PARALLEL` at a time) only when every call is a read-only tool
or a file tool, and no two calls touch overlapping paths where either of them writes. Anything that
may need approval or touches the shell (the terminal, unknown tools, invalid arguments, the todo
list, a multi-file V4A patch) makes the whole batch run sequentially. Each call emits `ToolCallStarted`
before it runs and `ToolCallFinished` when it ends (with the files the call changed, for the UI), and the
results are appended to the conversation in call order. On Ctrl-C every running call is cancelled;
the results that finished are kept and the turn answers the open calls (the runner's interrupt
handling). After a /stop, calls not yet started are answered as not run. Before a batch with a call
that may change files (`ToolRegistry.may_change_files`) runs, the turn's checkpoint is taken
(`TurnDeps.checkpoints`, once per turn).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Sequence
from pathlib import Path

from hermes_tui.core import events as ev
from hermes_tui.core.messages import Message
from hermes_tui.core.providers.base import StreamToolCall
from hermes_tui.core.tools.base import ToolContext, ToolResult
from hermes_tui.core.turn.deps import TurnDeps
from hermes_tui.core.turn.steering import STOPPED_TOOL_RESULT
from hermes_tui.text_safety import valid_unicode

MAX_PARALLEL = 8
READ_ONLY_TOOLS = frozenset({"read_file", "search_files", "session_search"})
WRITING_FILE_TOOLS = frozenset({"write_file", "patch"})
_PATH_DEFAULT = {"search_files": "."}


def _target(call: StreamToolCall, cwd: Path) -> tuple[Path, bool] | None:
    """(resolved path, writes) of a file-scoped call; None when its arguments cannot be read."""
    try:
        args = json.loads(call.arguments or "{}")
    except ValueError:
        return None
    if not isinstance(args, dict):
        return None
    raw = args.get("path", _PATH_DEFAULT.get(call.name))
    if call.name == "session_search":
        return Path("/__session_search__"), False  # reads the database, never a file
    if call.name == "patch" and args.get("mode", "replace") != "replace":
        return None  # a V4A patch names its files inside the patch text
    if not isinstance(raw, str) or not raw:
        return None
    return (cwd / raw).resolve(), call.name in WRITING_FILE_TOOLS


def _overlap(a: Path, b: Path) -> bool:
    return a == b or a in b.parents or b in a.parents


def can_run_together(calls: Sequence[StreamToolCall], cwd: Path) -> bool:
    """True when the calls may run concurrently without changing what any of them sees."""
    if len(calls) < 2:
        return False
    targets: list[tuple[Path, bool]] = []
    for call in calls:
        if call.name not in READ_ONLY_TOOLS | WRITING_FILE_TOOLS:
            return False
        target = _target(call, cwd)
        if target is None:
            return False
        targets.append(target)
    for i, (path_a, writes_a) in enumerate(targets):
        for path_b, writes_b in targets[i + 1 :]:
            if (writes_a or writes_b) and _overlap(path_a, path_b):
                return False
    return True


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
    """Run `calls` (concurrently when safe) and append their results to `messages` in call order."""
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

    if not can_run_together(calls, context.cwd):
        for call in calls:
            if deps.steering.stop_requested:
                messages.append(stopped(call))
                continue
            events.emit(ev.ToolCallStarted(call.id, call.name, call.arguments))
            messages.append(_tool_message(call, await run_one(call)))
        return

    gate = asyncio.Semaphore(MAX_PARALLEL)
    results: dict[int, ToolResult] = {}

    async def slot(index: int, call: StreamToolCall) -> None:
        async with gate:
            if deps.steering.stop_requested:  # not yet started when /stop came: not run
                results[index] = ToolResult(STOPPED_TOOL_RESULT, is_error=True)
                return
            events.emit(ev.ToolCallStarted(call.id, call.name, call.arguments))
            results[index] = await run_one(call)

    tasks = [asyncio.create_task(slot(index, call)) for index, call in enumerate(calls)]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    finally:  # what finished is kept, in call order, even when the batch was interrupted
        messages.extend(_tool_message(call, results[i]) for i, call in enumerate(calls) if i in results)
