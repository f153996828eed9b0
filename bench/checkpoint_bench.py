"""What a checkpoint costs: the shadow git store on a 10,000-file folder (issue 19).

    python -m bench.checkpoint_bench [--files N] [--later N] [--turns N]

Builds a folder of N small source-like files (100 per sub-folder) in a temp folder and a store in a
temp home, then measures, through `core.checkpoints.store.ShadowStore` (what the agent's manager
calls before a turn's first file change):

- the first checkpoint (every file hashed and written into the store),
- later checkpoints after one file changed (the budget: < 300 ms), and one with nothing changed,
- a restore of an earlier checkpoint (a few files differ) and the "changed since" figure /rollback lists,
- the store's size on disk after the first checkpoint and after `--turns` turns of small edits
  (each turn changes two files and adds one, then checkpoints), and after the daily pruning packed it.

Wall time beside CPU time (this process + the git processes it waited for).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from hermes_tui.core.checkpoints.store import Caps, ShadowStore, Snapshot

CAPS = Caps(max_file_bytes=10 * 1024 * 1024, max_files=50_000)


def make_folder(root: Path, files: int) -> None:
    for number in range(files):
        folder = root / f"pkg{number // 100:03d}"
        folder.mkdir(exist_ok=True)
        body = "".join(f"def f{number}_{line}(x):\n    return x + {line}\n\n" for line in range(12))
        (folder / f"mod{number % 100:03d}.py").write_text(body, encoding="utf-8")


def cpu_seconds() -> float:
    own = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + children.ru_utime + children.ru_stime


def size_on_disk(path: Path) -> int:
    total = 0
    for root, _dirs, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return total


async def timed(work: Callable[[], Awaitable[Any]]) -> tuple[Any, float, float]:
    """(result, wall ms, cpu ms)."""
    cpu, wall = cpu_seconds(), time.perf_counter()
    result = await work()
    return result, (time.perf_counter() - wall) * 1000, (cpu_seconds() - cpu) * 1000


def summary(label: str, walls: list[float], cpus: list[float]) -> None:
    ordered = sorted(walls)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    print(
        f"{label:<38} wall p50 {statistics.median(walls):7.1f} ms  p95 {p95:7.1f}  max {ordered[-1]:7.1f}"
        f"   cpu p50 {statistics.median(cpus):7.1f} ms"
    )


def edit(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


async def main(files: int, later: int, turns: int) -> None:
    with tempfile.TemporaryDirectory() as temp:
        folder, home = Path(temp) / "project", Path(temp) / "home"
        folder.mkdir()
        make_folder(folder, files)
        store = ShadowStore(home / "checkpoints")
        print(f"{files:,} files in {folder}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

        first, wall, cpu = await timed(lambda: store.snapshot(folder, "first", CAPS))
        assert isinstance(first, Snapshot) and first.file_count == files
        print(f"{'first checkpoint':<38} wall {wall:7.1f} ms   cpu {cpu:7.1f} ms")
        print(f"{'store after the first checkpoint':<38} {size_on_disk(store.path) / 1e6:7.2f} MB")

        walls, cpus = [], []
        for run in range(later):
            edit(folder / "pkg000" / "mod000.py", f"# edit {run}\n")
            snap, wall, cpu = await timed(lambda: store.snapshot(folder, "later", CAPS))
            assert isinstance(snap, Snapshot) and snap.stat.files == 1
            walls.append(wall)
            cpus.append(cpu)
        summary("later checkpoint, 1 file changed", walls, cpus)

        walls, cpus = [], []
        for _run in range(later):
            _snap, wall, cpu = await timed(lambda: store.snapshot(folder, "same", CAPS))
            walls.append(wall)
            cpus.append(cpu)
        summary("later checkpoint, nothing changed", walls, cpus)

        base = await store.snapshot(folder, "base", CAPS)
        assert isinstance(base, Snapshot)
        for name in ("pkg001/mod001.py", "pkg002/mod002.py"):
            edit(folder / name, "# restore me\n")
        (folder / "pkg003" / "new.py").write_text("NEW = 1\n", encoding="utf-8")
        (folder / "pkg004" / "mod004.py").unlink()
        now, wall, cpu = await timed(lambda: store.current_tree(folder, CAPS))
        since, wall2, cpu2 = await timed(lambda: store.shortstat(base.tree, now))
        print(f"{'changed since (stage + diff)':<38} wall {wall + wall2:7.1f} ms   cpu {cpu + cpu2:7.1f} ms  {since}")
        restored, wall, cpu = await timed(lambda: store.restore(folder, base.tree, CAPS))
        print(f"{'restore (4 files differ)':<38} wall {wall:7.1f} ms   cpu {cpu:7.1f} ms  {restored.total} files")

        start_size = size_on_disk(store.path)
        walls = []
        for turn in range(turns):
            edit(folder / f"pkg{turn % 100:03d}" / "mod010.py", f"# turn {turn}\nx = {turn}\n")
            edit(folder / f"pkg{(turn * 7) % 100:03d}" / "mod020.py", f"# turn {turn} again\n")
            (folder / f"pkg{turn % 100:03d}" / f"added{turn}.py").write_text(f"VALUE = {turn}\n", encoding="utf-8")
            _snap, wall, _cpu = await timed(lambda message=f"turn {turn}": store.snapshot(folder, message, CAPS))
            walls.append(wall)
        end_size = size_on_disk(store.path)
        print(
            f"{turns} turns of small edits: store {start_size / 1e6:.2f} MB -> {end_size / 1e6:.2f} MB"
            f" (+{(end_size - start_size) / 1e3 / turns:.1f} kB per turn);"
            f" checkpoint wall p50 {statistics.median(walls):.1f} ms"
        )
        report, wall, _cpu = await timed(lambda: store.prune(7))
        print(
            f"{'daily prune (merges the packs)':<38} wall {wall:7.1f} ms  store now"
            f" {size_on_disk(store.path) / 1e6:.2f} MB  collected={report.collected}"
        )
        report, wall, _cpu = await timed(lambda: store.prune(7, now=time.time() + 8 * 86400))
        print(f"{'prune (folder dropped) + gc':<38} wall {wall:7.1f} ms  {report}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--later", type=int, default=20, help="later checkpoints measured")
    parser.add_argument("--turns", type=int, default=50, help="turns of small edits for the size figure")
    args = parser.parse_args()
    asyncio.run(main(args.files, args.later, args.turns))
