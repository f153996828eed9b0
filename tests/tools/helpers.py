"""Test helpers for the tool tests: a real ToolContext, an approver that records requests,
polling with a timeout, process liveness, running code as an unprivileged user, which threads
are inside a module, and a ticker measuring how long the event loop was held."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from hermes_tui.config import ToolsSettings
from hermes_tui.core.todo import TodoStore
from hermes_tui.core.tools.base import ApprovalRequest, ToolContext
from tests.waits import guard

NOBODY_UID = 65534


@dataclass
class RecordingApprover:
    """An approver that answers `answer` and remembers what it was asked."""

    answer: bool = True
    requests: list[ApprovalRequest] = field(default_factory=list)

    async def __call__(self, request: ApprovalRequest) -> bool:
        self.requests.append(request)
        return self.answer


def make_context(cwd: Path, approve: Any = None, **settings: Any) -> ToolContext:
    return ToolContext(cwd=cwd, settings=ToolsSettings(**settings), approve=approve, todo=TodoStore())


async def poll_until(
    predicate: Callable[[], bool], timeout: float | None = None, interval: float = 0.02, *, within: float | None = None
) -> bool:
    """True as soon as `predicate()` holds; False if it still does not after the hang guard
    (`guard(timeout)` seconds, at least a minute) — or after `within` seconds, a deadline that is itself
    what the test asserts (something stops before it would end by itself), kept as given."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + (within if within is not None else guard(timeout))
    while True:
        if predicate():
            return True
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(interval)


def process_gone(pid: int) -> bool:
    """True when `pid` no longer runs (absent, or a zombie waiting for a parent to reap it)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("State:"):
            return "Z" in line.split(":", 1)[1] or "X" in line.split(":", 1)[1]
    return False


def run_unprivileged(work: Callable[[], Any]) -> Any:
    """Run `work()` as a user without root's permission override and return its JSON-able result.

    As root, a forked child drops to uid/gid 65534 first (root reads every file regardless of
    its mode); otherwise `work()` runs in this process.
    """
    if os.geteuid() != 0:
        return work()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        code = 0
        try:
            os.close(read_fd)
            os.setgroups([])
            os.setgid(NOBODY_UID)
            os.setuid(NOBODY_UID)
            payload = json.dumps({"ok": work()})
        except BaseException as exc:
            payload = json.dumps({"failed": repr(exc)})
            code = 1
        with os.fdopen(write_fd, "w") as out:
            out.write(payload)
        os._exit(code)
    os.close(write_fd)
    with os.fdopen(read_fd) as incoming:
        payload = incoming.read()
    os.waitpid(pid, 0)
    outcome = json.loads(payload)
    if "failed" in outcome:
        raise AssertionError(f"unprivileged child failed: {outcome['failed']}")
    return outcome["ok"]


def threads_running_code_from(source_file: str) -> int:
    """How many threads are, right now, executing a function defined in `source_file`."""
    count = 0
    for frame in sys._current_frames().values():
        current: FrameType | None = frame
        while current is not None:
            if current.f_code.co_filename == source_file:
                count += 1
                break
            current = current.f_back
    return count
