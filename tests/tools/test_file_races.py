"""A folder swapped for a symbolic link while the file tools work never steers them outside.

A real second process exchanges `work/sub` (a real folder) and `work/sub-alt` (a symbolic link to a
folder outside) atomically (renameat2 RENAME_EXCHANGE), as fast as it can, while read_file,
write_file and search_files use `sub/...` again and again. Without a second person to ask, a path
judged outside is refused; a path judged inside must then be the object actually touched: not one
byte written outside, not one byte of the outside file returned. The old code (realpath, then an
open by path name), in three runs: 9, 16 and 12 of 200 writes landed outside, 25, 39 and 30 of 200
reads returned the outside file, 28, 52 and 43 of 100 searches matched it.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hermes_tui.core.tools.base import ToolContext, ToolResult
from hermes_tui.core.tools.defaults import default_registry
from tests.tools.helpers import make_context

ROUNDS = 200
SECRET = "OUTSIDE-SECRET-4f1c"

# The swapper: exchanges the two names until the stop file appears; prints "ready" after its first
# exchange and the number of exchanges when it ends.
SWAPPER = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
first, second, stop_file = (os.fsencode(arg) for arg in sys.argv[1:4])
swaps = 0
while not os.path.exists(stop_file):
    if libc.renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE) != 0:
        sys.exit("renameat2 failed: " + os.strerror(ctypes.get_errno()))
    swaps += 1
    if swaps == 1:
        print("ready", flush=True)
if swaps % 2:  # leave the real folder under its first name
    libc.renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE)
print(swaps, flush=True)
"""


@dataclass
class Swapper:
    """A second process exchanging two names atomically until stopped."""

    first: Path
    second: Path
    stop_file: Path
    process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        command = [sys.executable, "-c", SWAPPER, str(self.first), str(self.second), str(self.stop_file)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "ready"

    def stop(self) -> int:
        """Stop the swapper (the first name back where it began); the number of exchanges it made."""
        assert self.process is not None
        self.stop_file.touch()
        out, _ = self.process.communicate(timeout=60)
        assert self.process.returncode == 0
        return int(out.split()[-1])

    def stop_if_running(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.stop()


@dataclass
class Swapped(Swapper):
    """work/sub a real folder and work/sub-alt a symbolic link to outside/, exchanged."""

    work: Path = Path()
    outside: Path = Path()

    def real_folder(self) -> Path:
        """Whichever of the two names is the real folder right now (the swapper has stopped)."""
        [real] = [path for path in (self.first, self.second) if not path.is_symlink()]
        return real


@pytest.fixture
def swapped(tmp_path: Path) -> Iterator[Swapped]:
    """work/sub a real folder, work/sub-alt a symbolic link to outside/; the swapper not yet started."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / "sub").mkdir(parents=True)
    outside.mkdir()
    (work / "sub-alt").symlink_to(outside, target_is_directory=True)
    state = Swapped(work / "sub", work / "sub-alt", tmp_path / "stop-swapping", work=work, outside=outside)
    yield state
    state.stop_if_running()


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


async def call(ctx: ToolContext, tool: str, **args: object) -> ToolResult:
    """Through the registry; a failure must be the tool's own one-line error, not an escaped exception."""
    result = await asyncio.wait_for(default_registry().dispatch(tool, json.dumps(args), ctx), 30)
    if result.is_error:
        assert result.content.startswith("Error: ") and "\n" not in result.content, result.content
    return result


async def test_writes_during_a_folder_swap_never_land_outside(swapped: Swapped) -> None:
    ctx = make_context(swapped.work)  # no one to ask: a path judged outside is refused
    descriptors = open_descriptors()
    swapped.start()
    successes: list[int] = []
    try:
        for index in range(ROUNDS):
            result = await call(ctx, "write_file", path=f"sub/f-{index}.txt", content=f"payload {index}\n")
            if not result.is_error:
                assert result.content.startswith(f"Created {swapped.work / 'sub' / f'f-{index}.txt'}: wrote")
                successes.append(index)
    finally:
        swaps = swapped.stop()
    assert swaps > ROUNDS  # the folder really changed under the writes
    assert list(swapped.outside.iterdir()) == []  # not one byte outside
    assert open_descriptors() == descriptors  # every walk closed what it opened, refused or not
    real = swapped.real_folder()
    assert successes, "no write succeeded at all"
    for index in successes:  # every reported success is there, inside, with its content
        assert (real / f"f-{index}.txt").read_text() == f"payload {index}\n"


async def test_reads_during_a_folder_swap_never_return_the_outside_file(swapped: Swapped) -> None:
    (swapped.work / "sub" / "notes.txt").write_text("inside text\n")
    (swapped.outside / "notes.txt").write_text(f"{SECRET}\n")
    ctx = make_context(swapped.work)
    descriptors = open_descriptors()
    swapped.start()
    outcomes: list[ToolResult] = []
    try:
        for _ in range(ROUNDS):
            outcomes.append(await call(ctx, "read_file", path="sub/notes.txt"))
    finally:
        swapped.stop()
    assert not [result.content for result in outcomes if SECRET in result.content]
    assert {result.content for result in outcomes if not result.is_error} == {"     1|inside text"}
    assert open_descriptors() == descriptors


async def test_searches_during_a_folder_swap_never_match_outside(swapped: Swapped) -> None:
    (swapped.work / "sub" / "notes.txt").write_text("inside text\n")
    (swapped.outside / "notes.txt").write_text(f"{SECRET}\n")
    ctx = make_context(swapped.work)
    swapped.start()
    leaked: list[str] = []
    try:
        for _ in range(ROUNDS // 2):
            result = await call(ctx, "search_files", pattern=f"{SECRET}|inside")
            assert not result.is_error, result.content
            leaked += [match["path"] for match in json.loads(result.content)["matches"] if SECRET in match["text"]]
    finally:
        swapped.stop()
    assert leaked == []


async def test_a_file_swapped_for_a_fifo_is_refused_and_nothing_waits(tmp_path: Path) -> None:
    """The check sees a regular file, the open may meet a FIFO: O_NONBLOCK, then fstat, refuse it."""
    (tmp_path / "data.txt").write_text("plain text\n")
    os.mkfifo(tmp_path / "data-alt")
    swapper = Swapper(tmp_path / "data.txt", tmp_path / "data-alt", tmp_path.parent / f"{tmp_path.name}-stop")
    ctx = make_context(tmp_path)
    swapper.start()
    outcomes: set[str] = set()
    try:
        for _ in range(ROUNDS):  # a read that waited on the FIFO would hit call()'s timeout
            outcomes.add((await call(ctx, "read_file", path="data.txt")).content)
        searched = await call(ctx, "search_files", pattern="plain")
    finally:
        swapper.stop_if_running()
    assert not searched.is_error
    assert "     1|plain text" in outcomes
    refusals = outcomes - {"     1|plain text"}
    assert all("not a regular file" in text and "fifo" in text for text in refusals), refusals
