"""Benchmark (not a test): the TUI's memory with a 10,000-message session open and settled (issue 23).

    python -m bench.memory_bench [--messages 10000] [--against main] [--top 15] [--markdown] [--load N]

One run measures, each in a fresh process of its own (so nothing of the bench is counted):
- `bare`: a bare Textual app with one Static, the floor any Textual program pays;
- `before`: the app of `git archive REF` (`--against`, default `main`; `none` skips it), exported
  to a temporary folder and imported from there;
- `now`: the app of this tree.
Each app opens the same stored session (`--resume`; a realistic mix: user asks, tool calls with
results of 200-4,000 characters, Markdown answers) headless through Pilot (`run_test`, 120x40), with
an OpenAI provider pointed at a closed loopback port (the SDK is imported at start-up as with a
real provider; no request is sent), and waits until it settled: start-up over, the history's rows
mounted, no worker running for a while (and, in a tree whose GC pacer hands memory back after
start-up, `gc_pacer.trims`, that done too: what the process holds a few seconds after it opened),
then `gc.collect()`. It prints VmRSS (settled) and VmHWM
(peak) from /proc/self/status, against the budget (settled <= 80 MB). A second process per app
runs the same with tracemalloc on (which inflates RSS, so its figures are apart) and prints the
top allocation sites grouped by file and the size of each per-message cache (entries and bytes,
a `sys.getsizeof` walk that counts each object once). The load average is printed beside it all.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

BUDGET_SETTLED_MB = 80.0
MESSAGES = 10_000
SESSION_ID = "long-session"
SIZE = (120, 40)
CLOSED_PORT_URL = "http://127.0.0.1:9/v1"  # discard port: nothing listens, nothing is sent
QUIET_CHECKS = 5  # consecutive checks without a running worker before the app counts as settled
QUIET_GAP_S = 0.2
SETTLE_TIMEOUT_S = 120.0
REPO = Path(__file__).resolve().parent.parent
FOREIGN = ("textual", "rich", "asyncio", "threading", "_thread", "builtins.function")  # not walked into


# --------------------------------------------------------------------------- the session


def memory_history(count: int) -> list[dict[str, Any]]:
    """Rounds of a user ask, a tool call, its result (200-4,000 characters), a Markdown answer."""
    messages: list[dict[str, Any]] = []
    turn = 0
    while len(messages) < count:
        size = 200 + (turn * 7919) % 3800
        answer_size = 300 + (turn * 4271) % 1500
        call = {
            "id": f"call_{turn}",
            "type": "function",
            "function": {
                "name": ("read_file", "terminal", "search_files")[turn % 3],
                "arguments": json.dumps({"path": f"src/module_{turn % 50}.py", "command": "pytest -q"}),
            },
        }
        messages += [
            {"role": "user", "content": f"Step {turn}: check src/module_{turn % 50}.py and fix the failing test"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{turn}", "content": (f"line {turn} of output\n" * 400)[:size]},
            {"role": "assistant", "content": _markdown(turn, answer_size)},
        ]
        turn += 1
    return messages[:count]


def _markdown(turn: int, size: int) -> str:
    parts = [f"## Module {turn % 50}\n\nThe fix is in place: **`f`** now returns the right value.\n\n"]
    while sum(map(len, parts)) < size:
        parts.append(f"- checked case {len(parts)} with `pytest -k case_{len(parts)}`\n")
        parts.append("```python\ndef f(v):\n    return v * 2\n```\n\nThe quick brown fox jumps over the lazy dog.\n\n")
    return "".join(parts)[:size]


async def store(home_root: Path, count: int) -> None:
    from bench.latency_bench import store_session
    from hermes_tui.config import Home

    await store_session(Home(home_root).ensure(), SESSION_ID, memory_history(count))


# --------------------------------------------------------------------------- measuring (the child)


def status_mb() -> dict[str, float]:
    """VmRSS, VmHWM, RssAnon, RssFile of this process, in MB."""
    wanted = {"VmRSS", "VmHWM", "RssAnon", "RssFile"}
    found: dict[str, float] = {}
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in wanted:
                found[key] = int(value.split()[0]) / 1024
    return found


def deep_size(root: object, seen: set[int] | None = None) -> int:
    """Bytes of `root` and everything it holds (containers, instance dicts and slots), each object once."""
    seen = set() if seen is None else seen
    total = 0
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type) or type(obj).__module__.startswith(FOREIGN):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, (str, bytes, bytearray, int, float, bool, type(None), range)):
            continue
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        else:
            if hasattr(obj, "__dict__") and not isinstance(obj, type):
                stack.append(vars(obj))
            for name in getattr(type(obj), "__slots__", ()):
                value = getattr(obj, name, None)
                if value is not None:
                    stack.append(value)
    return total


def _entries(value: object) -> int:
    try:
        return len(value)  # type: ignore[arg-type]
    except TypeError:
        return 0


def cache_rows(app: Any) -> list[dict[str, Any]]:
    """Count and bytes of each per-message structure the app holds (what exists in this tree).

    Bytes are counted with one shared `seen` set in the order listed, so an object held by two
    structures is counted under the first (the history): a later row's bytes are what it adds.
    """
    seen: set[int] = set()
    rows: list[dict[str, Any]] = []

    def add(name: str, value: object, entries: int | None = None, bound: object = None) -> None:
        if value is None:
            return
        rows.append(
            {
                "cache": name,
                "entries": _entries(value) if entries is None else entries,
                "bytes": deep_size(value, seen),
                "bound": "" if bound is None else str(bound),
            }
        )

    agent = app.agent
    session = getattr(agent, "session", None)
    add("session history (LiveSession.messages)", getattr(session, "messages", None))
    conversation = app.main.conversation
    add("transcript items (ConversationView.items)", conversation.items)
    window = f"history_window {conversation.history_window}, window_size {conversation.window_size}"
    mounted = len(conversation.mounted_rows)
    name = "mounted transcript rows (widgets, not walked)"
    rows.append({"cache": name, "entries": mounted, "bytes": 0, "bound": window})
    meter = getattr(agent, "meter", None)
    ledger = getattr(meter, "ledger", None)
    if ledger is not None:
        from hermes_tui.core.context import tokens

        bound = getattr(tokens, "LEDGER_FINGERPRINTS", None)
        fingerprints = f"fingerprints: newest {bound}" if bound else "none (one per message)"
        add("TokenLedger fingerprints", ledger, entries=len(getattr(ledger, "_prints", ())), bound=fingerprints)
    cache = getattr(session, "request_cache", None)
    if cache is not None:
        for slot_name, slot in getattr(cache, "_slots", {}).items():
            add(f"RequestCache slot {slot_name}", slot, entries=len(getattr(slot, "_copy", ())))
        encoder = getattr(cache, "_encoder", None)
        if encoder is not None:
            add("RequestCache encoder (kept bytes)", encoder, entries=len(getattr(encoder, "_bytes", ())))
    for row in rows:
        row.setdefault("bound", "")
    for name, size, bound in textual_caches(app):
        rows.append({"cache": name, "entries": size, "bytes": 0, "bound": bound})
    return rows


def textual_caches(app: Any) -> Iterable[tuple[str, int, str]]:
    """Textual's own per-widget line caches (entries only; their lines belong to widgets)."""
    from textual.widget import Widget

    lines = 0
    widgets = 0
    for widget in app.screen.walk_children(Widget, with_self=True):
        widgets += 1
        styles_cache = getattr(widget, "_styles_cache", None)
        lines += len(getattr(styles_cache, "_cache", {}) or {})
    yield (f"Textual StylesCache lines ({widgets} widgets mounted)", lines, "per widget: its visible lines")


async def settle(app: Any, pilot: Any, *, with_history: bool = True) -> float:
    """Until start-up is over, the history is on screen and no worker ran for a while; seconds it took."""
    started = time.perf_counter()
    deadline = started + SETTLE_TIMEOUT_S

    async def until(predicate: Callable[[], bool], what: str) -> None:
        while not predicate():
            if time.perf_counter() > deadline:
                raise TimeoutError(f"timed out waiting for {what}")
            await asyncio.sleep(0.02)

    await until(lambda: app.ready.is_set(), "start-up")
    await app.main.conversation.history_loaded()
    await until(lambda: app.gc_pacer.started, "the end of start-up (SDK warm-up)")
    if with_history:
        await until(lambda: bool(app.main.conversation.mounted_rows), "the history's rows")
    await _until_no_worker_runs(app, pilot, deadline)
    if hasattr(app.gc_pacer, "trims"):  # a tree that hands memory back once start-up is over: that done
        await until(lambda: app.gc_pacer.trims > 0, "the start-up trim")
        await _until_no_worker_runs(app, pilot, deadline)
    return time.perf_counter() - started


async def _until_no_worker_runs(app: Any, pilot: Any, deadline: float) -> None:
    quiet = 0
    while quiet < QUIET_CHECKS:
        await pilot.pause()
        running = [worker for worker in app.workers if worker.is_running]
        quiet = 0 if running else quiet + 1
        if time.perf_counter() > deadline:
            raise TimeoutError(f"workers still running: {running}")
        await asyncio.sleep(QUIET_GAP_S)


def top_sites(limit: int) -> list[dict[str, Any]]:
    import tracemalloc

    snapshot = tracemalloc.take_snapshot()
    stats = snapshot.statistics("filename")
    prefix = str(Path(sys.prefix))
    rows = []
    for stat in stats[:limit]:
        name = stat.traceback[0].filename.replace(prefix, "<venv>")
        rows.append({"file": name, "mb": stat.size / 1e6, "count": stat.count})
    rows.append({"file": "(all traced)", "mb": sum(stat.size for stat in stats) / 1e6, "count": 0})
    return rows


async def child_app(home_root: Path, trace: bool, top: int, resume: str | None = SESSION_ID) -> dict[str, Any]:
    import hermes_tui
    from hermes_tui.app import HermesApp
    from hermes_tui.config import Home, ProviderChoice, Settings

    settings = Settings()
    settings.model.context_length = 4_000_000  # the resumed history fits: no compression at start
    choice = ProviderChoice("openai", "gpt-4o-mini", "k", CLOSED_PORT_URL, False)
    app = HermesApp(home=Home(home_root), settings=settings, choice=choice, resume=resume, cwd=home_root)
    result: dict[str, Any] = {"package": str(Path(hermes_tui.__file__).parent)}
    async with app.run_test(size=SIZE) as pilot:
        result["settle_s"] = await settle(app, pilot, with_history=resume is not None)
        gc.collect()
        result["status"] = status_mb()
        result["items"] = len(app.main.conversation.items)
        result["rows"] = len(app.main.conversation.mounted_rows)
        result["modules"] = len(sys.modules)
        if trace:
            result["sites"] = top_sites(top)
            result["caches"] = cache_rows(app)
    return result


async def child_bare(trace: bool, top: int) -> dict[str, Any]:
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("hello")

    app = Bare()
    result: dict[str, Any] = {}
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        gc.collect()
        result["status"] = status_mb()
        result["modules"] = len(sys.modules)
        if trace:
            result["sites"] = top_sites(top)
    return result


def child(kind: str, home_root: Path, trace: bool, top: int) -> int:
    if trace:
        import tracemalloc

        tracemalloc.start(1)
    if kind == "bare":
        run = child_bare(trace, top)
    else:
        run = child_app(home_root, trace, top, resume=None if kind == "empty" else SESSION_ID)
    result = asyncio.run(run)
    print("RESULT " + json.dumps(result), flush=True)
    return 0


# --------------------------------------------------------------------------- the run (the parent)


def export(ref: str, into: Path) -> Path:
    """`git archive REF` of this repository, unpacked into `into`."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def run_child(kind: str, tree: Path | None, home_root: Path, trace: bool, top: int) -> dict[str, Any]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    command = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--home", str(home_root)]
    command += ["--top", str(top)] + (["--trace"] if trace else [])
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=tree or REPO, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"{kind}: the measuring process failed ({done.returncode}):\n{done.stderr[-3000:]}")
    result = json.loads(lines[-1][len("RESULT ") :])
    if tree is not None and "package" in result and not result["package"].startswith(str(tree)):
        raise SystemExit(f"{kind}: imported hermes_tui from {result['package']}, not from {tree}")
    return result


def load_text() -> str:
    return "load average " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def print_report(runs: list[tuple[str, dict[str, Any], dict[str, Any]]], markdown: bool, messages: int) -> None:
    print()
    header = ["process", "settled RSS MB", "peak RSS MB", "anon / file MB", "modules", "budget (settled <= 80 MB)"]
    table = []
    for label, plain, _traced in runs:
        status = plain["status"]
        within = "" if label.startswith("bare") else ("✓" if status["VmRSS"] <= BUDGET_SETTLED_MB else "✗")
        table.append(
            [
                label,
                f"{status['VmRSS']:.1f}",
                f"{status['VmHWM']:.1f}",
                f"{status.get('RssAnon', 0):.1f} / {status.get('RssFile', 0):.1f}",
                str(plain["modules"]),
                within,
            ]
        )
    _table(header, table, markdown)
    for label, plain, traced in runs:
        if "items" in plain:
            print(
                f"\n{label}: {messages:,} messages stored, {plain['items']:,} transcript items, {plain['rows']} rows"
                f" mounted, settled after {plain['settle_s']:.1f} s (wall)"
            )
        if traced.get("caches"):
            _table(
                ["per-message structure", "entries", "bytes (MB)", "bound"],
                [
                    [row["cache"], f"{row['entries']:,}", f"{row['bytes'] / 1e6:.2f}", row["bound"]]
                    for row in traced["caches"]
                ],
                markdown,
            )
        print(f"{label}: tracemalloc top files (a separate traced run, RSS {traced['status']['VmRSS']:.0f} MB):")
        _table(
            ["file", "MB", "blocks"],
            [[site["file"], f"{site['mb']:.2f}", f"{site['count']:,}"] for site in traced["sites"]],
            markdown,
        )


def _table(header: list[str], rows: list[list[str]], markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" for _ in header) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--messages", type=int, default=MESSAGES, help="messages in the stored session")
    parser.add_argument("--against", default="main", help="git ref measured as 'before' ('none': skip)")
    parser.add_argument("--top", type=int, default=15, help="tracemalloc files listed per process")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--child", choices=("bare", "app", "empty"), help=argparse.SUPPRESS)
    parser.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--load", type=int, default=0, metavar="N", help="start N busy processes (bench/load.py)")
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.home, args.trace, args.top)
    from bench.load import describe_load, load_from

    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, {load_text()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="memory-bench-") as folder, load_from(args):
        print(describe_load(args.load), flush=True)
        root = Path(folder)
        asyncio.run(store(root / "home", args.messages))
        trees: list[tuple[str, Path | None, str]] = [("bare Textual app, one Static", None, "bare")]
        if args.against != "none":
            before = export(args.against, (root / "before").resolve())
            trees.append((f"before: git archive {args.against}", before, "app"))
        trees.append(("now: this tree", REPO, "app"))
        runs = []
        for label, tree, kind in trees:
            plain = run_child(kind, tree, root / "home", False, args.top)
            traced = run_child(kind, tree, root / "home", True, args.top)
            runs.append((label, plain, traced))
            print(f"measured {label}: settled {plain['status']['VmRSS']:.1f} MB; {load_text()}", flush=True)
        print(describe_load(args.load))
    print_report(runs, args.markdown, args.messages)
    now = runs[-1][1]["status"]["VmRSS"]
    return 0 if now <= BUDGET_SETTLED_MB else 1


if __name__ == "__main__":
    if "--child" in sys.argv:
        sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent]
        if os.environ.get("PYTHONPATH"):
            sys.path.insert(0, os.environ["PYTHONPATH"])
    else:
        sys.path.insert(0, str(REPO))
    raise SystemExit(main())
