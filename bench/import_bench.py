"""Importing our UI against importing Hermes's CLI, and the first frame (issue 23 item 6).

    python -m bench.import_bench [--hermes DIR --hermes-python PATH] [--before DIR] [--runs N] [--load N]

Each figure is the median (and range) of `--runs` fresh processes, interleaved, timed from outside:
wall clock, and the process's CPU (user + system, `RUSAGE_CHILDREN` of the bench) — the bare
interpreter's start included, printed apart for reference.
- ours: `python -c "import hermes_tui.app"` with this checkout's interpreter;
- Hermes (`--hermes DIR`, a checkout of hermes-agent, run by `--hermes-python`, a venv holding its
  requirements): `import hermes_cli.main` (the module of its `hermes` console script),
  `import cli` (its interactive CLI, which `hermes` / `hermes chat` imports in `cmd_chat`), and both
  (what `hermes` imports before its prompt can appear — the figure the budget compares against).
Two bytecode states, for both projects alike, each on a private copy of the code (hard links where
the file system allows) put first on the path:
- no bytecode: no `__pycache__` of the project and `PYTHONDONTWRITEBYTECODE=1`, as this project's
  machines run with an editable install: every module of the project compiled at every start;
- compiled: the copy's bytecode written by one warm-up import (as after `pip install`).
Installed packages and the standard library keep the bytecode they were installed with, in both.
`--before DIR`: the same figures, interleaved, for another checkout of hermes-tui (e.g. `git archive
<commit> | tar -x -C DIR`) run by this interpreter — before → after in one run.
Budgets (issue 23 item 6): our import CPU ≤ 0.60× Hermes's; first frame < 0.5 s on a quiet machine
(bench/startup.py's measure: `import hermes_tui.app` to the first completed refresh, headless).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.cputime import Spent, measure
from bench.load import add_load_argument, describe_load, load_from
from bench.startup import first_frame_once

REPO = Path(__file__).resolve().parents[1]
RATIO_BUDGET = 0.60
FIRST_FRAME_BUDGET_S = 0.5
MODES = ("no bytecode", "compiled")
PROMPT_PATH = ("hermes_cli.main", "cli")  # `hermes` -> hermes_cli.main:main -> cmd_chat -> `from cli import main`
_SKIP = shutil.ignore_patterns("__pycache__", "node_modules", ".git")
_SKIP_TOP = {"__pycache__", "node_modules", ".git", ".venv", "tests", "website"}  # nothing imported from there


@dataclass(frozen=True)
class Target:
    """One fresh-process import: who runs it, which modules, from which copy of the code."""

    label: str
    python: str
    modules: tuple[str, ...]
    tree: Path

    def command(self, *, show_files: bool = False) -> list[str]:
        code = "import " + ", ".join(self.modules)
        if show_files:
            code += f"; import sys; print(*(sys.modules[m].__file__ for m in {self.modules!r}), sep='\\n')"
        return [self.python, "-c", code]


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _copy_tree(source: Path, target: Path, names: tuple[str, ...] | None = None) -> Path:
    """`source` (or only its entries `names`) under `target`, without any bytecode."""
    target.mkdir(parents=True)
    for entry in sorted(source.iterdir()) if names is None else [source / name for name in names]:
        if entry.name in _SKIP_TOP:
            continue
        if entry.is_dir():
            shutil.copytree(entry, target / entry.name, ignore=_SKIP, copy_function=_link_or_copy)
        else:
            _link_or_copy(str(entry), str(target / entry.name))
    return target


def _env(tree: Path, home: Path, *, write_bytecode: bool = False) -> dict[str, str]:
    drop = ("HERMES", "PYTHONPATH", "PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV")
    env = {key: value for key, value in os.environ.items() if not key.startswith(drop)}
    env.update(PYTHONPATH=str(tree), HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    env.update(XDG_CACHE_HOME=str(home / ".cache"), XDG_DATA_HOME=str(home / ".local" / "share"))
    if not write_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _run(command: list[str], env: dict[str, str]) -> Spent:
    # `-c` puts the working folder first on sys.path: run from the copy, so it is the code imported
    with measure() as spent:
        subprocess.run(
            command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=env["PYTHONPATH"]
        )
    return spent


def _check_imported_from_copy(target: Target, env: dict[str, str]) -> None:
    done = subprocess.run(
        target.command(show_files=True), check=True, capture_output=True, text=True, env=env, cwd=env["PYTHONPATH"]
    )
    files = done.stdout.split()
    stray = [name for name in files if not Path(name).resolve().is_relative_to(target.tree.resolve())]
    if stray or len(files) != len(target.modules):
        raise SystemExit(f"{target.label}: imported from outside its copy {target.tree}: {stray or done.stdout}")


def _figure(spans: list[Spent]) -> str:
    walls = sorted(span.wall * 1000 for span in spans)
    cpus = sorted(span.children * 1000 for span in spans)
    return (
        f"CPU median {statistics.median(cpus):.0f} ms ({cpus[0]:.0f}–{cpus[-1]:.0f}), "
        f"wall median {statistics.median(walls):.0f} ms ({walls[0]:.0f}–{walls[-1]:.0f})"
    )


def _cpu(spans: list[Spent]) -> float:
    return statistics.median(span.children for span in spans)


def _targets(mode_root: Path, hermes: Path | None, hermes_python: str, before: Path | None) -> list[Target]:
    ours_tree = _copy_tree(REPO, mode_root / "ours", ("hermes_tui",))
    targets = [Target("ours: import hermes_tui.app", sys.executable, ("hermes_tui.app",), ours_tree)]
    if before is not None:
        before_tree = _copy_tree(before, mode_root / "before", ("hermes_tui",))
        targets.append(Target("ours before: import hermes_tui.app", sys.executable, ("hermes_tui.app",), before_tree))
    if hermes is not None:
        tree = _copy_tree(hermes, mode_root / "hermes")
        targets += [
            Target("Hermes: import hermes_cli.main (console script)", hermes_python, ("hermes_cli.main",), tree),
            Target("Hermes: import cli (interactive CLI)", hermes_python, ("cli",), tree),
            Target(
                "Hermes: import hermes_cli.main, cli (before its prompt)",
                hermes_python,
                ("hermes_cli.main", "cli"),
                tree,
            ),
        ]
    return targets


def _first_frames(trees: list[Path], home: Path, runs: int, compiled: bool) -> list[str]:
    """The first frame of each tree's hermes_tui, `runs` fresh processes each, interleaved."""
    for tree in trees if compiled else []:  # the first frame imports a few modules more than the app
        first_frame_once(_env(tree, home, write_bytecode=True), str(tree))
    frames: list[list[tuple[float, float]]] = [[] for _ in trees]
    for _ in range(runs):
        for index, tree in enumerate(trees):
            frames[index].append(first_frame_once(_env(tree, home), str(tree)))
    figures = []
    for samples in frames:
        firsts = sorted(first * 1000 for first, _ready in samples)
        median = statistics.median(firsts)
        verdict = "✓" if median < FIRST_FRAME_BUDGET_S * 1000 else "✗"
        figures.append(
            f"median {median:.0f} ms ({firsts[0]:.0f}–{firsts[-1]:.0f}) {verdict} [budget < "
            f"{FIRST_FRAME_BUDGET_S * 1000:.0f} ms, quiet machine]; agent ready median "
            f"{statistics.median(ready for _first, ready in samples) * 1000:.0f} ms"
        )
    return figures


def run(runs: int, hermes: Path | None, hermes_python: str, frame_runs: int, before: Path | None = None) -> list[str]:
    lines: list[str] = []
    scratch_parent = REPO / "bench" / ".out"  # beside the code, so the copies can be hard links
    scratch_parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="import-bench-", dir=scratch_parent) as scratch:
        root = Path(scratch)
        home = root / "home"
        home.mkdir()
        pythons = [("ours", sys.executable)] + ([("Hermes", hermes_python)] if hermes is not None else [])
        for name, python in pythons:
            bare = [_run([python, "-c", "pass"], _env(root, home)) for _ in range(runs)]
            lines.append(f"bare interpreter ({name}'s python -c pass): {_figure(bare)}")
        for mode in MODES:
            targets = _targets(root / mode.replace(" ", "-"), hermes, hermes_python, before)
            hermes_targets = [target for target in targets if target.label.startswith("Hermes")]
            for target in targets:
                if mode == "compiled":  # one import that may write the copy's bytecode
                    _run(target.command(), _env(target.tree, home, write_bytecode=True))
                _check_imported_from_copy(target, _env(target.tree, home))
            samples: dict[str, list[Spent]] = {target.label: [] for target in targets}
            for _ in range(runs):  # interleaved: the machine's load meets every target alike
                for target in targets:
                    samples[target.label].append(_run(target.command(), _env(target.tree, home)))
            lines.append(f"{mode}:")
            lines += [f"  {target.label}: {_figure(samples[target.label])}" for target in targets]
            ours_targets = [target for target in targets if target.label.startswith("ours")]
            for ours_target in ours_targets if hermes_targets else []:
                ours = _cpu(samples[ours_target.label])
                ratios = [(t.label.split(": ", 1)[1], ours / _cpu(samples[t.label])) for t in hermes_targets]
                verdict = "✓" if ratios[-1][1] <= RATIO_BUDGET else "✗"
                others = ", ".join(f"{ratio:.2f}× against {label}" for label, ratio in ratios[:-1])
                lines.append(
                    f"  {ours_target.label.split(':')[0]} / Hermes CPU: {ratios[-1][1]:.2f}× against {ratios[-1][0]} "
                    f"{verdict} [budget ≤ {RATIO_BUDGET:.2f}×]; {others}"
                )
            frames = _first_frames([t.tree for t in ours_targets], home, frame_runs, mode == "compiled")
            for ours_target, figure in zip(ours_targets, frames, strict=True):
                lines.append(f"  {ours_target.label.split(':')[0]}, first frame (import -> first refresh): {figure}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hermes", type=Path, help="a checkout of hermes-agent to compare with")
    parser.add_argument("--hermes-python", default=None, help="the interpreter of a venv with Hermes's requirements")
    parser.add_argument("--before", type=Path, help="another hermes-tui checkout to measure beside this one")
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per import figure")
    parser.add_argument("--frame-runs", type=int, default=7, help="fresh processes per first-frame figure")
    add_load_argument(parser)
    args = parser.parse_args(argv)
    if args.hermes is not None and not args.hermes_python:
        parser.error("--hermes needs --hermes-python (a venv with Hermes's requirements)")
    with load_from(args):
        print(describe_load(args.load), flush=True)
        runs, frame_runs = max(1, args.runs), max(1, args.frame_runs)
        for line in run(runs, args.hermes, args.hermes_python or "", frame_runs, args.before):
            print(line, flush=True)
        print(describe_load(args.load))
    return 0


if __name__ == "__main__":
    sys.exit(main())
