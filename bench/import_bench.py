"""Importing our UI against importing Hermes's CLI, and the first frame (issue 23 item 6).

    python -m bench.import_bench [--hermes DIR --hermes-python PATH] [--runs N] [--load N]

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


def _targets(mode_root: Path, hermes: Path | None, hermes_python: str) -> list[Target]:
    ours_tree = _copy_tree(REPO, mode_root / "ours", ("hermes_tui",))
    targets = [Target("ours: import hermes_tui.app", sys.executable, ("hermes_tui.app",), ours_tree)]
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


def run(runs: int, hermes: Path | None, hermes_python: str, frame_runs: int) -> list[str]:
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
            targets = _targets(root / mode.replace(" ", "-"), hermes, hermes_python)
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
            if hermes is not None:
                ours = _cpu(samples[targets[0].label])
                ratios = [
                    (target.label.split(": ", 1)[1], ours / _cpu(samples[target.label])) for target in targets[1:]
                ]
                verdict = "✓" if ratios[-1][1] <= RATIO_BUDGET else "✗"
                lines.append(
                    f"  ours / Hermes CPU: {ratios[-1][1]:.2f}× against {ratios[-1][0]} {verdict} "
                    f"[budget ≤ {RATIO_BUDGET:.2f}×]; "
                    + ", ".join(f"{r:.2f}× against {label}" for label, r in ratios[:-1])
                )
            ours_tree = targets[0].tree
            if mode == "compiled":  # the first frame imports a few modules more than hermes_tui.app
                first_frame_once(_env(ours_tree, home, write_bytecode=True), str(ours_tree))
            frames = [first_frame_once(_env(ours_tree, home), str(ours_tree)) for _ in range(frame_runs)]
            firsts = sorted(first * 1000 for first, _ready in frames)
            median = statistics.median(firsts)
            verdict = "✓" if median < FIRST_FRAME_BUDGET_S * 1000 else "✗"
            lines.append(
                f"  first frame (import hermes_tui.app -> first refresh): median {median:.0f} ms "
                f"({firsts[0]:.0f}–{firsts[-1]:.0f}) {verdict} [budget < {FIRST_FRAME_BUDGET_S * 1000:.0f} ms, "
                f"quiet machine]; agent ready median {statistics.median(r for _f, r in frames) * 1000:.0f} ms"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hermes", type=Path, help="a checkout of hermes-agent to compare with")
    parser.add_argument("--hermes-python", default=None, help="the interpreter of a venv with Hermes's requirements")
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per import figure")
    parser.add_argument("--frame-runs", type=int, default=7, help="fresh processes per first-frame figure")
    add_load_argument(parser)
    args = parser.parse_args(argv)
    if args.hermes is not None and not args.hermes_python:
        parser.error("--hermes needs --hermes-python (a venv with Hermes's requirements)")
    with load_from(args):
        print(describe_load(args.load), flush=True)
        for line in run(max(1, args.runs), args.hermes, args.hermes_python or "", max(1, args.frame_runs)):
            print(line, flush=True)
        print(describe_load(args.load))
    return 0


if __name__ == "__main__":
    sys.exit(main())
