"""A whole `hermes-tui search` process on a 1,000,000-message, 20,000-session state.db (issue 23).

    python -m bench.search_process_bench [--db PATH] [--runs N] [--before DIR] [--load N]

Each figure is the best and the median of `--runs` whole processes (the quick_check's clean result
already remembered, as after any first run), wall time with the process's own CPU beside it
(user + system, `RUSAGE_CHILDREN`). Two ways Python may find our code:
- compiled: hermes_tui's bytecode cached beside its modules (as after `pip install`, or any
  earlier run where Python may write `__pycache__`);
- from source: no bytecode of hermes_tui (`PYTHONDONTWRITEBYTECODE=1`, as this project's machines
  set it, with an editable install): each of its modules compiled at every start.
Both run a private copy of the package (PYTHONPATH), the standard library's own bytecode as installed.
Where the time goes: the bare interpreter (`python -c pass`), the imports of the search path
(`-X importtime`, summed), and the rest (settings, the start-up check, the query, the output).
`--before DIR`: the same runs, interleaved, with another checkout of hermes-tui on PYTHONPATH
(e.g. `git archive <commit> | tar -x -C DIR`) — before → after in one run.
Budget: < 0.3 s wall on a quiet machine. The database is the store bench's generator with
20,000 sessions, built under bench/.out/ when missing (a few minutes, 1.4 GB).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.cputime import Spent, measure
from bench.load import add_load_argument, describe_load, load_from

REPO = Path(__file__).resolve().parents[1]
QUERIES = (("common term", "session"), ("rare term", "quuxrare07"), ("CJK, 2 characters", "数据"))
BUDGET_S = 0.3


def _env(tree: Path, cache_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_TUI_", "PYTHONPYCACHEPREFIX"))}
    env.update(PYTHONPATH=str(tree), XDG_CACHE_HOME=str(cache_home), PYTHONDONTWRITEBYTECODE="1")
    return env


def _copies(name: str, tree: Path, root: Path) -> dict[str, Path]:
    """Two copies of a tree's package: compiled (its bytecode cached beside it) and from source (none)."""
    copies = {}
    for mode in ("compiled", "from source"):
        target = root / f"{name}-{mode.replace(' ', '-')}"
        shutil.copytree(tree / "hermes_tui", target / "hermes_tui", ignore=shutil.ignore_patterns("__pycache__"))
        copies[mode] = target
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(copies["compiled"] / "hermes_tui")],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return copies


def _run(command: list[str], env: dict[str, str]) -> Spent:
    # run from the tree's folder: `-m` puts the working folder first on sys.path, before PYTHONPATH
    with measure() as spent:
        subprocess.run(
            command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=env["PYTHONPATH"]
        )
    return spent


def _figure(spans: list[Spent]) -> str:
    walls = [span.wall for span in spans]
    cpus = [span.children for span in spans]
    verdict = "✓" if min(walls) < BUDGET_S else "✗"
    return (
        f"best {min(walls):.3f} / median {statistics.median(walls):.3f} s {verdict}"
        f" (CPU best {min(cpus):.3f} / median {statistics.median(cpus):.3f} s)"
    )


def _import_ms(env: dict[str, str], home: Path) -> float:
    """Milliseconds of imports (-X importtime, every module's own time summed) in one search process."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hermes_tui", "--home", str(home), "search", "session"],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=env["PYTHONPATH"],
    )
    total = 0
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            total += int(line.split("|")[0].split(":")[1])
    return total / 1000


def _bench_home(db: Path, root: Path) -> Path:
    home = root / "home"
    home.mkdir(mode=0o700, exist_ok=True)
    (home / "state.db").symlink_to(db)
    return home


def run(db: Path, runs: int, before: Path | None) -> list[str]:
    trees = [("now", REPO)] + ([("before", before)] if before is not None else [])
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="search-bench-") as scratch:
        root = Path(scratch)
        home = _bench_home(db, root)
        cache_home = root / "cache"
        copies = {name: _copies(name, tree, root) for name, tree in trees}
        search = [sys.executable, "-m", "hermes_tui", "--home", str(home), "search"]
        _run([*search, "session"], _env(copies["now"]["compiled"], cache_home))  # the quick_check, remembered
        bare = [_run([sys.executable, "-c", "pass"], _env(root, cache_home)) for _ in range(runs)]
        lines.append(f"bare interpreter (python -c pass): {_figure(bare)}")
        for mode in ("compiled", "from source"):
            for label, query in QUERIES:
                samples: dict[str, list[Spent]] = {name: [] for name, _ in trees}
                for _ in range(runs):  # interleaved: the machine's load meets both trees alike
                    for name, _tree in trees:
                        samples[name].append(_run([*search, query], _env(copies[name][mode], cache_home)))
                for name, _tree in reversed(trees):
                    lines.append(f"{mode}, {label}, {name}: {_figure(samples[name])}")
            for name, _tree in reversed(trees):
                env = _env(copies[name][mode], cache_home)
                imports = min(_import_ms(env, home) for _ in range(min(runs, 3)))
                lines.append(f"{mode}, {name}: imports {imports:.0f} ms of a search process (-X importtime, best)")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--db", type=Path, help="state.db to search (default: the store bench's 1M / 20k file)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--before", type=Path, help="another hermes-tui checkout to compare with")
    add_load_argument(parser)
    args = parser.parse_args(argv)
    db = args.db
    if db is None:
        from bench.store_bench import cached_store

        db = cached_store(1_000_000, 20_000)
    with load_from(args):
        print(describe_load(args.load), flush=True)
        for line in run(db.resolve(), max(1, args.runs), args.before):
            print(line, flush=True)
        print(describe_load(args.load))
    return 0


if __name__ == "__main__":
    sys.exit(main())
