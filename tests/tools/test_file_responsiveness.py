"""The file tools never hold the event loop: big searches run in a thread, stop at a time cap, end on cancel."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from pathlib import Path

import pytest

from hermes_tui.core.tools import file_search
from hermes_tui.core.tools.base import ToolResult
from hermes_tui.core.tools.blocking import StopSignal, WorkTimedOut, run_blocking
from hermes_tui.core.tools.file_write import WriteStopped, atomic_write
from hermes_tui.core.tools.files import ReadFileTool, SearchFilesTool, WriteFileTool
from tests.loop_watch import LoopWatch
from tests.tools.helpers import make_context, poll_until, threads_running_code_from
from tests.waits import HANG_GUARD_S

# The most CPU the event loop's thread may spend at a stretch while a tool works
# (tests/loop_watch.py: the loop thread's own work, so waiting for a busy machine's scheduler or for
# a worker thread's turn with the interpreter lock does not count). Typical stretches are a few ms.
# The old code searched in the loop itself: the big-tree search below held it for over half a
# second, and /proc/kmsg forever.
MAX_LOOP_GAP = 0.2
SEARCH_SOURCE = file_search.__file__


def build_tree(root: Path, folders: int = 40, files: int = 100) -> Path:
    line = "hay " * 20 + "\n"
    for folder in range(folders):
        sub = root / f"d{folder:03d}" / "nested"
        sub.mkdir(parents=True)
        for index in range(files):
            (sub / f"f{index:03d}.txt").write_text(line * 40)
    return root


# --------------------------------------------------------------------------- run_blocking


async def test_cancelling_the_caller_stops_the_worker_thread_promptly() -> None:
    started, finished = threading.Event(), threading.Event()

    def work(stop: StopSignal) -> None:
        started.set()
        while not stop.should_stop:
            time.sleep(0.001)
        finished.set()

    task = asyncio.create_task(run_blocking(work, time_limit=600))  # far beyond the waits below
    assert await poll_until(started.is_set, 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, HANG_GUARD_S)
    assert await poll_until(finished.is_set, 2)


async def test_a_worker_stuck_past_its_cap_is_abandoned_without_holding_the_loop() -> None:
    release = threading.Event()

    def stuck(stop: StopSignal) -> None:
        release.wait(10)  # a read that never returns, as on a dead network mount

    with LoopWatch(interval=0.005) as ticker, pytest.raises(WorkTimedOut):
        await run_blocking(stuck, time_limit=0.2, grace=0.2)
    release.set()
    assert ticker.ticks > 10 and ticker.longest_held < MAX_LOOP_GAP


def test_a_stopped_write_leaves_the_old_file_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "keep.txt"
    target.write_text("old content")
    stop = StopSignal(None)
    stop.stop()
    folder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(WriteStopped):
            atomic_write(folder, "keep.txt", str(target), b"new content" * 1000, stop, shared_ok=False)
    finally:
        os.close(folder)
    assert target.read_text() == "old content"
    assert [path.name for path in tmp_path.iterdir()] == ["keep.txt"]


# --------------------------------------------------------------------------- search_files


async def test_the_loop_keeps_ticking_while_a_big_tree_is_searched(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "tree")
    for index in range(2):  # big logs of short lines that all match: the most work per byte
        (root / f"big{index}.log").write_text("hay hay\n" * 1_200_000)
    with LoopWatch(interval=0.005) as ticker:
        result = await SearchFilesTool().run({"pattern": "hay hay"}, make_context(root))
    data = json.loads(result.content)
    assert data["files_searched"] == 4002 and data["total_count"] == 4000 * 40 + 2 * 1_200_000
    assert ticker.ticks > 10 and ticker.longest_held < MAX_LOOP_GAP


async def test_searching_from_the_root_stops_at_the_time_cap_with_partial_results(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, auto_approve=True)
    tool = SearchFilesTool(time_limit=0.5)
    with LoopWatch(interval=0.005) as ticker:
        result = await tool.run({"pattern": "needle-never-there", "path": "/"}, ctx)
    data = json.loads(result.content)
    assert not result.is_error
    # The note says the walk stopped because the cap fired (a walk that ran to its end, or one
    # abandoned as stuck, says otherwise), and it returned what it had searched by then.
    assert data["truncated"] is True
    assert "Stopped after 0.5 s (the search time limit): the results are partial" in data["note"]
    assert data["files_searched"] > 0
    assert threads_running_code_from(SEARCH_SOURCE) == 0  # the walk itself ended, not only the call
    assert ticker.longest_held < MAX_LOOP_GAP


async def test_listing_from_the_root_never_enters_proc_sys_or_dev(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, auto_approve=True)
    result = await SearchFilesTool(time_limit=3).run({"pattern": "*", "target": "files", "path": "/"}, ctx)
    files = json.loads(result.content)["files"]
    assert not [path for path in files if path.startswith(("/proc/", "/sys/", "/dev/"))]
    assert "Did not enter" in json.loads(result.content)["note"]


async def test_cancelling_a_search_ends_the_call_at_once_and_the_walk_at_its_next_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk is held inside its tenth folder listing (the real listing, behind a gate) while the
    caller cancels: the call must end without waiting for the walk, and once the gate opens the walk
    must stop before it lists another folder."""
    root = build_tree(tmp_path / "tree", folders=60, files=5)
    real_listing = file_search._sorted_entries
    listings, inside, gate = 0, threading.Event(), threading.Event()

    def gated_listing(folder_fd: int) -> list[os.DirEntry[str]]:
        nonlocal listings
        listings += 1
        if listings == 10:
            inside.set()
            gate.wait(HANG_GUARD_S)
        return real_listing(folder_fd)

    monkeypatch.setattr(file_search, "_sorted_entries", gated_listing)
    task = asyncio.create_task(SearchFilesTool().run({"pattern": "needle-never-there"}, make_context(root)))
    try:
        assert await poll_until(inside.is_set, interval=0.001)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, HANG_GUARD_S)
        assert threads_running_code_from(SEARCH_SOURCE) == 1, "the call ended while its walk was still held"
    finally:
        gate.set()  # a failed assert above must not leave the walk's thread waiting
    assert await poll_until(lambda: threads_running_code_from(SEARCH_SOURCE) == 0)
    assert listings == 10, f"the walk went on after the cancel: {listings - 10} more folders listed"


# --------------------------------------------------------------------------- read_file


async def test_reading_proc_kmsg_is_refused_without_touching_it(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, auto_approve=True)
    with LoopWatch(interval=0.005) as ticker:
        result: ToolResult = await asyncio.wait_for(ReadFileTool().run({"path": "/proc/kmsg"}, ctx), 5)
    assert result.is_error and "/proc/kmsg is under /proc" in result.content
    assert ticker.longest_held < MAX_LOOP_GAP


async def test_a_read_past_its_time_cap_is_stopped_with_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "slow.txt").write_text("line\n" * 1000)
    result = await ReadFileTool(time_limit=0).run({"path": "slow.txt"}, make_context(tmp_path))
    assert result.is_error
    assert (
        result.content
        == f"Error: reading {tmp_path / 'slow.txt'} took longer than 0 s and was stopped (a slow or stuck file system?)"
    )


async def test_a_write_past_its_time_cap_changes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "keep.txt"
    target.write_text("old")
    result = await WriteFileTool(time_limit=0).run({"path": "keep.txt", "content": "new"}, make_context(tmp_path))
    assert result.is_error and result.content.endswith("was stopped; the file is unchanged")
    assert target.read_text() == "old" and [path.name for path in tmp_path.iterdir()] == ["keep.txt"]
