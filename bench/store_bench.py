"""Store figures at scale: a synthetic home with 1,000,000 messages, measured through SessionDB.

    python -m bench.store_bench [--messages N] [--sessions N] [--runs N] [--rebuild] [--load N]

The synthetic state.db (10,000 sessions with compression chains and branches; text mixing
prose, code, tool calls and CJK) is generated once with stdlib sqlite3 using our exact v14
schema and cached under bench/.out/. Measured: append throughput through SessionDB; search
p50/p95 for rare terms (< 0.1 % of messages) and common ones (> 20 %); listing 50 sessions
with tip projection; the whole lineage tree; resuming a 10,000-message session; and the whole
`python -m hermes_tui search COMMON` process (start-up quick_check included). Listing and tree
are also timed as the first call of a fresh process (`--probe`, run in a subprocess after one warm-up run so the OS
page cache is warm), and the listed page is checked against a from-scratch SQL listing. Every
SessionDB read is traced and the same SQL is replayed through stdlib sqlite3 in the same run to
report our/raw ratios.
Budgets (DESIGN.md): rare-term p50 < 30 ms, listing < 20 ms, tree < 200 ms, CLI search < 1.5 s,
our/raw < 1.5.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.cputime import Spent
from bench.cputime import measure as measure_span
from bench.load import add_load_argument, describe_load, load_from
from hermes_tui.store.db import SessionDB
from hermes_tui.store.schema import FTS_TRIGGERS, ensure_schema

OUT_DIR = Path(__file__).resolve().parent / ".out"
BIG_SESSION_MESSAGES = 10_000
RARE_TERMS = [f"quuxrare{n:02d}" for n in range(20)]
COMMON_TERMS = ["session", "update", "value"]
SEED = 20260603
PLAN_START_AGO_S = 400 * 86400  # the plan's clock 0, unless the sessions would then reach past LATEST_AGO_S
LATEST_AGO_S = 3600.0  # the newest message or session end written lies at least this far in the past
MESSAGE_STEP_S = 0.5  # between a session's messages
SESSION_END_S = 500.0  # a session that ended did so this long after it started

WORDS = (  # noqa: SIM905 - a paragraph of words reads better than a list literal
    "the of and to in is that for it as with was on be by this are from at or an have not which but "
    "all were when we there can more if out so what up about into than them only some would could "
    "agent model token context window compression summary prompt history search index query result "
    "error retry stream tool call file path config server client cache budget lineage branch tip "
    "database table column row schema migration trigger review memory skill todo terminal output "
    "refactor test fixture module package function class method argument return exception async "
    "await worker thread lock timeout latency throughput benchmark profile trace log metric deploy"
).split()
CODE_LINES = [
    "def handle(request):\n    return response.json()",
    "for item in items:\n    total += item.price * item.qty",
    "async with db.transaction():\n    await db.execute(sql, params)",
    "if not path.exists():\n    raise FileNotFoundError(path)",
    "SELECT id, title FROM sessions WHERE parent_session_id IS NULL;",
    "const result = await fetch(url, { method: 'POST', body });",
]
SYSTEM_PROMPT_HEAD = "You are Hermes, a helpful agent with tools.\n\n## Memory\n"
CJK_SENTENCES = [
    "请帮我总结广西桂林的旅游路线和美食推荐",
    "东京的天气怎么样，明天会下雨吗",
    "数据库索引的设计需要考虑查询模式",
    "このコードのバグを見つけてください",
    "세션 기록을 검색하는 방법을 알려주세요",
]


# --------------------------------------------------------------------------- generation


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(WORDS, k=n)).capitalize() + "."


def _message_text(rng: random.Random, index: int, rare_every: int) -> tuple[str, str | None, str | None]:
    """(content, tool_name, tool_calls) for synthetic message `index`."""
    kind = rng.random()
    text = _sentence(rng, rng.randint(12, 40))
    if index % 4 == 0:  # every common term in 25 % of messages
        text += " The " + " ".join(COMMON_TERMS) + " changed."
    if index % rare_every == 0:
        text += f" {RARE_TERMS[(index // rare_every) % len(RARE_TERMS)]}"
    if kind < 0.15:
        return text + "\n```python\n" + rng.choice(CODE_LINES) + "\n```", None, None
    if kind < 0.20:
        return rng.choice(CJK_SENTENCES) + " " + text[:40], None, None
    if kind < 0.30:
        call = [
            {
                "id": f"call_{index}",
                "type": "function",
                "function": {"name": "read_file", "arguments": json.dumps({"path": f"src/mod_{index % 97}.py"})},
            }
        ]
        return "", None, json.dumps(call)
    return text, None, None


def _plan_sessions(rng: random.Random, sessions: int, messages: int, now: float | None = None) -> list[dict[str, Any]]:
    """Session rows: chains of 2-4 compression continuations, branch children, singletons.

    The clock starts at 0; the plan is then placed so that it starts `PLAN_START_AGO_S` (400 days)
    before `now` (default: the time now), or earlier when its newest moment — a session's last
    message or its end — would then be less than `LATEST_AGO_S` ago: sessions are ~30 minutes
    apart, so 20,000 span ~420 days (they used to run ~20 days into the future)."""
    plan: list[dict[str, Any]] = []
    clock = 0.0
    n = 0
    while len(plan) < sessions:
        kind = rng.random()
        length = rng.randint(2, 4) if kind < 0.15 else 1
        length = min(length, sessions - len(plan))
        parent = None
        for step in range(length):
            clock += rng.uniform(600, 3000)
            sid = f"_{n:06x}"  # its date goes in front once the plan is placed in time
            n += 1
            row = {"id": sid, "parent": parent, "started_at": clock, "title": f"project {n}"}
            row["end_reason"] = "compression" if step < length - 1 else rng.choice(["cli_close", None, "new_session"])
            plan.append(row)
            parent = sid
        if kind > 0.95 and len(plan) < sessions:  # a branch off the last session
            plan[-1]["end_reason"] = "branched"
            clock += rng.uniform(600, 3000)
            sid = f"_{n:06x}"
            n += 1
            plan.append({"id": sid, "parent": parent, "started_at": clock, "title": f"branch {n}", "end_reason": None})
    # Message counts: one 10,000-message session, the rest share what is left.
    rest = max(0, messages - BIG_SESSION_MESSAGES)
    weights = [rng.random() for _ in plan]
    total = sum(weights)
    for row, weight in zip(plan, weights, strict=True):
        row["messages"] = int(rest * weight / total)
    plan[len(plan) // 2]["messages"] = BIG_SESSION_MESSAGES
    plan[len(plan) // 2]["big"] = True
    _place_in_time(plan, time.time() if now is None else now)
    return plan


def last_moment(row: dict[str, Any]) -> float:
    """The latest timestamp `generate` writes for a planned session: its last message or its end."""
    ended = row["started_at"] + SESSION_END_S if row["end_reason"] else row["started_at"]
    return max(ended, row["started_at"] + max(0, row["messages"] - 1) * MESSAGE_STEP_S)


def _place_in_time(plan: list[dict[str, Any]], now: float) -> None:
    """Move the planned clock (from 0) so the newest moment is `LATEST_AGO_S` before `now` or earlier,
    and give each id its date (Hermes's `YYYYmmdd_HHMMSS_<hex>`), ids and parents alike."""
    offset = min(now - PLAN_START_AGO_S, now - LATEST_AGO_S - max(last_moment(row) for row in plan))
    renamed: dict[str, str] = {}
    for row in plan:
        row["started_at"] += offset
        renamed[row["id"]] = datetime.fromtimestamp(row["started_at"]).strftime("%Y%m%d_%H%M%S") + row["id"]
        row["id"] = renamed[row["id"]]
    for row in plan:
        if row["parent"] is not None:
            row["parent"] = renamed[row["parent"]]


def cached_store(messages: int = 1_000_000, sessions: int = 10_000) -> Path:
    """The bench database of that size under bench/.out/, generated the first time it is asked for."""
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"store_{messages}_{sessions}.db"
    if not path.exists():
        print(f"generating {path.name} (cached for later runs)...", flush=True)
        generate(path, messages, sessions)
    return path


def generate(path: Path, messages: int, sessions: int) -> None:
    rng = random.Random(SEED)
    tmp = path.with_suffix(".tmp")
    for leftover in (tmp, Path(str(tmp) + "-wal"), Path(str(tmp) + "-shm")):
        leftover.unlink(missing_ok=True)
    conn = sqlite3.connect(tmp, isolation_level=None)
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")
    ensure_schema(conn)
    for names in FTS_TRIGGERS.values():  # bulk load first, index once afterwards
        for name in names:
            conn.execute(f"DROP TRIGGER {name}")
    plan = _plan_sessions(rng, sessions, messages)
    rare_every = max(1, messages // 600)  # ~0.05 % of messages per run of 20 rare terms -> < 0.1 % each
    conn.execute("BEGIN")
    index = 0
    batch: list[tuple[Any, ...]] = []
    for row in plan:
        ended = row["started_at"] + SESSION_END_S if row["end_reason"] else None
        prompt = SYSTEM_PROMPT_HEAD + _sentence(rng, rng.randint(600, 1800))  # ~4-12 KB, as Hermes stores
        conn.execute(
            "INSERT INTO sessions (id, source, model, system_prompt, parent_session_id, started_at, ended_at,"
            " end_reason, message_count, title) VALUES (?, 'cli', 'bench-model', ?, ?, ?, ?, ?, ?, ?)",
            (
                row["id"],
                prompt,
                row["parent"],
                row["started_at"],
                ended,
                row["end_reason"],
                row["messages"],
                row["title"],
            ),
        )
        for i in range(row["messages"]):
            role = "user" if i % 2 == 0 else "assistant"
            content, tool_name, tool_calls = _message_text(rng, index, rare_every)
            if tool_calls and role == "user":
                role, tool_name, content = "tool", "read_file", content or _sentence(rng, 30)
                tool_calls = None
            batch.append((row["id"], role, content, tool_name, tool_calls, row["started_at"] + i * MESSAGE_STEP_S))
            index += 1
            if len(batch) >= 20_000:
                conn.executemany(
                    "INSERT INTO messages (session_id, role, content, tool_name, tool_calls, timestamp)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    batch,
                )
                batch.clear()
    if batch:
        conn.executemany(
            "INSERT INTO messages (session_id, role, content, tool_name, tool_calls, timestamp)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            batch,
        )
    conn.execute("COMMIT")
    print(f"  inserted {index:,} messages in {len(plan):,} sessions; building both FTS indexes...", flush=True)
    ensure_schema(conn)  # recreates the six triggers and rebuilds both indexes
    # A settled index, as a long-lived state.db has after FTS automerge / `optimize_fts()`; right
    # after a bulk load the many fresh segments make every later insert several times slower.
    for table in ("messages_fts", "messages_fts_trigram"):
        conn.execute(f"INSERT INTO {table}({table}) VALUES('optimize')")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("ANALYZE")
    conn.close()
    tmp.rename(path)


# --------------------------------------------------------------------------- measuring

# What a listing costs when computed from scratch in SQL over every session (the same rules:
# visible rows, tips along compression edges, ordered by the tip's newest message). SessionDB
# walks messages newest-first instead and stops once the page is final; the bench compares
# against this one statement, and checks that both give the same page.
REFERENCE_LISTING_SQL = """
WITH RECURSIVE
visible(id) AS (
    SELECT s.id FROM sessions s LEFT JOIN sessions p ON p.id = s.parent_session_id
    WHERE COALESCE(s.archived, 0) = 0 AND (s.parent_session_id IS NULL
          OR (p.end_reason = 'branched' AND p.ended_at IS NOT NULL AND s.started_at >= p.ended_at))
),
chain(root, cur, depth) AS (
    SELECT id, id, 0 FROM visible
    UNION ALL
    SELECT chain.root,
           (SELECT c.id FROM sessions c WHERE c.parent_session_id = cur.id AND c.started_at >= cur.ended_at
             ORDER BY c.started_at DESC, c.id DESC LIMIT 1), chain.depth + 1
    FROM chain JOIN sessions cur ON cur.id = chain.cur
    WHERE cur.end_reason = 'compression' AND cur.ended_at IS NOT NULL AND chain.depth < 100
),
tips(root, tip, depth) AS (SELECT root, cur, MAX(depth) FROM chain WHERE cur IS NOT NULL GROUP BY root),
page AS (
    SELECT tips.root, tips.tip,
           COALESCE((SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = tips.tip), t.started_at) AS activity
    FROM tips JOIN sessions t ON t.id = tips.tip ORDER BY activity DESC, tips.root DESC LIMIT 50
)
SELECT page.*, s.*,
       (SELECT substr(m.content, 1, 200) FROM messages m WHERE m.session_id = page.tip AND m.role = 'user'
         AND m.active = 1 ORDER BY m.timestamp, m.id LIMIT 1) AS first_user
FROM page JOIN sessions s ON s.id = page.root ORDER BY page.activity DESC, page.root DESC
"""

REFERENCE_TREE_SQL = """
SELECT s.id, s.parent_session_id, s.title, s.source, s.model, s.started_at, s.ended_at, s.end_reason,
       s.message_count, p.end_reason, p.ended_at,
       (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id),
       (SELECT substr(m.content, 1, 200) FROM messages m WHERE m.session_id = s.id AND m.role = 'user'
         AND m.active = 1 ORDER BY m.timestamp, m.id LIMIT 1)
FROM sessions s LEFT JOIN sessions p ON p.id = s.parent_session_id ORDER BY s.started_at, s.id
"""


class Tracer:
    """Collects the SQL SessionDB's reader runs so it can be replayed through stdlib sqlite3."""

    def __init__(self) -> None:
        self.statements: list[str] = []
        self.enabled = False

    def __call__(self, sql: str) -> None:
        # FTS5's own internal statements arrive as "-- ..." comments: the replay runs them anyway.
        if self.enabled and not sql.startswith(("PRAGMA", "--")):
            self.statements.append(sql)


def replay(raw: sqlite3.Connection, statements: list[str]) -> float:
    started = time.perf_counter()
    for sql in statements:
        raw.execute(sql).fetchall()
    return time.perf_counter() - started


async def measure(
    db: SessionDB, tracer: Tracer, raw: sqlite3.Connection, call: Callable[[], Awaitable[Any]]
) -> tuple[Spent, float]:
    """(our wall and CPU, raw seconds for the same statements); the timed run is not traced."""
    with measure_span() as ours:
        await call()
    tracer.statements.clear()
    tracer.enabled = True
    conns = db._conns
    quick_off = conns._quick_unusable
    conns._quick_unusable = True  # the traced run on the reader: quick reads use a connection of their own
    try:
        await call()
    finally:
        conns._quick_unusable = quick_off
        tracer.enabled = False
    return ours, replay(raw, list(tracer.statements))


def spans_figures(spans: list[Spent], reference: float) -> dict[str, float]:
    """p50/p95 wall, p50 CPU (this process's, the store's threads included) and the ratio to raw SQLite."""
    walls = [span.wall for span in spans]
    return {
        "p50_ms": statistics.median(walls) * 1000,
        "p95_ms": pct(walls, 0.95) * 1000,
        "cpu_p50_ms": statistics.median(span.cpu for span in spans) * 1000,
        "raw_p50_ms": reference * 1000,
        "ratio": statistics.median(walls) / max(reference, 1e-9),
    }


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def run_benchmarks(path: Path, runs: int) -> dict[str, Any]:
    results: dict[str, Any] = {}
    rng = random.Random(SEED + 1)
    db = await SessionDB.open(path)
    tracer = Tracer()
    await db._conns.reader.set_trace_callback(tracer)  # bench-only peek at the executed SQL
    raw = sqlite3.connect(path)
    total = raw.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    results["messages"] = total
    results["sessions"] = raw.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]

    async def timed(name: str, call: Callable[[], Awaitable[Any]], repeat: int) -> None:
        await call()  # warm the page cache
        ours, raws = [], []
        for _ in range(repeat):
            o, r = await measure(db, tracer, raw, call)
            ours.append(o)
            raws.append(r)
        results[name] = spans_figures(ours, statistics.median(raws))

    for label, terms in (("search_rare", RARE_TERMS), ("search_common", COMMON_TERMS)):
        share = max(
            raw.execute("SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH ?", (t,)).fetchone()[0]
            for t in terms
        )
        ours, raws = [], []
        for term in terms:
            await db.search_messages(term)
        for _ in range(runs):
            for term in terms:
                o, r = await measure(db, tracer, raw, lambda term=term: db.search_messages(term))
                ours.append(o)
                raws.append(r)
        results[label] = {"max_match_share_pct": 100 * share / total, **spans_figures(ours, statistics.median(raws))}
    await timed("search_common_ranked", lambda: db.search_messages(COMMON_TERMS[0], sort="rank"), 5)

    def raw_time(sql: str, repeat: int) -> float:
        best = []
        for _ in range(repeat):
            with measure_span() as spent:
                raw.execute(sql).fetchall()
            best.append(spent)
        return statistics.median(span.wall for span in best)

    ref_listing = raw_time(REFERENCE_LISTING_SQL, runs)
    ref_tree = raw_time(REFERENCE_TREE_SQL, max(3, runs // 2))
    # Cold: the first call of a fresh process (one warm-up run first, for the OS page cache).
    probe_runs = max(5, runs)
    cold_listing = cold_probe(path, "list", probe_runs)
    cold_tree = cold_probe(path, "tree", probe_runs)
    page = await db.list_sessions_rich(limit=50)
    reference_page = [(row[0], row[1]) for row in raw.execute(REFERENCE_LISTING_SQL)]
    results["list_50_matches_reference"] = [(r.get("_lineage_root_id", r["id"]), r["id"]) for r in page] == (
        reference_page
    )
    warm_listing, after_append = [], []
    sid = f"bench_listing_{int(time.time())}"
    await db.create_session(sid, "bench")
    for i in range(runs * 4):
        with measure_span() as spent:
            await db.list_sessions_rich(limit=50)
        warm_listing.append(spent)
        await db.append_message(sid, "user", f"listing bench {i}")
        with measure_span() as spent:
            rows = await db.list_sessions_rich(limit=50)
        after_append.append(spent)
        assert rows[0]["id"] == sid
    # Another process (here: a second SessionDB, another connection) appends between listings.
    other = await SessionDB.open(path)
    after_external, tree_after_change = [], []
    for i in range(runs * 2):
        await other.append_message(sid, "assistant", f"from elsewhere {i}")
        with measure_span() as spent:
            rows = await db.list_sessions_rich(limit=50)
        after_external.append(spent)
        assert rows[0]["id"] == sid
    for i in range(max(3, runs)):
        await other.append_message(sid, "assistant", f"tree bench {i}")
        with measure_span() as spent:
            await db.lineage_tree()
        tree_after_change.append(spent)
    await other.close()
    await db.delete_session(sid)
    unchanged_tree = []
    await db.lineage_tree()
    for _ in range(max(3, runs)):
        with measure_span() as spent:
            await db.lineage_tree()
        unchanged_tree.append(spent)
    list_all = []
    for _ in range(3):
        with measure_span() as spent:
            everything = await db.list_sessions_rich(limit=None)
        list_all.append(spent)
    results["list_all_rows"] = len(everything)

    def figures(values: list[Any], reference: float) -> dict[str, float]:
        if values and isinstance(values[0], float):  # a fresh process's own first call: wall only
            values = [Spent(wall=value, cpu=float("nan")) for value in values]
        return spans_figures(values, reference)

    results["list_50_cold_process"] = figures(cold_listing, ref_listing)
    results["list_50_warm"] = figures(warm_listing, ref_listing)
    results["list_50_after_append"] = figures(after_append, ref_listing)
    results["list_50_after_other_process"] = figures(after_external, ref_listing)
    results["list_all"] = figures(list_all, ref_listing)
    results["lineage_tree_cold_process"] = figures(cold_tree, ref_tree)
    results["lineage_tree_after_change"] = figures(tree_after_change, ref_tree)
    results["lineage_tree_unchanged"] = figures(unchanged_tree, ref_tree)
    big = raw.execute(
        "SELECT session_id FROM messages GROUP BY session_id HAVING COUNT(*) >= ? LIMIT 1", (BIG_SESSION_MESSAGES,)
    ).fetchone()[0]
    await timed("resume_10k_session", lambda: db.get_messages_as_conversation(big), max(3, runs))

    # Appends through SessionDB (writer connection) vs the same statements through stdlib sqlite3.
    sid = f"bench_{int(time.time())}"
    await db.create_session(sid, "bench")
    count = 300
    started = time.perf_counter()
    for i in range(count):
        await db.append_message(sid, "user" if i % 2 == 0 else "assistant", f"bench append {i} {_sentence(rng, 30)}")
    single = count / (time.perf_counter() - started)
    writer = sqlite3.connect(path, isolation_level=None, timeout=1.0)
    writer.execute("PRAGMA synchronous=NORMAL")
    started = time.perf_counter()
    for i in range(count):
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("SELECT 1 FROM sessions WHERE id = ?", (sid,)).fetchall()
        writer.execute(
            "INSERT INTO messages (session_id, role, content, timestamp, active) VALUES (?, 'user', ?, ?, 1)",
            (sid, f"raw append {i} {_sentence(rng, 30)}", time.time()),
        )
        writer.execute("UPDATE sessions SET message_count = message_count + 1 WHERE id = ?", (sid,))
        writer.execute("COMMIT")
        if (i + 1) % 50 == 0:  # Hermes's cadence, which SessionDB follows too
            writer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    raw_single = count / (time.perf_counter() - started)
    writer.close()
    batch = [{"role": "assistant", "content": f"bench batch {i} {_sentence(rng, 30)}"} for i in range(2000)]
    started = time.perf_counter()
    await db.append_messages(sid, batch)
    batched = len(batch) / (time.perf_counter() - started)
    results["append"] = {
        "single_msgs_per_s": single,
        "raw_single_msgs_per_s": raw_single,
        "ratio": raw_single / single,
        "batched_msgs_per_s": batched,
    }
    await db.delete_session(sid)
    raw.close()
    await db.close()

    # The whole headless search process, on a home folder whose state.db is the bench file.
    home = bench_home(path)
    walls = []
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    for _ in range(5):
        with measure_span() as spent:
            subprocess.run(
                [sys.executable, "-m", "hermes_tui", "--home", str(home), "search", COMMON_TERMS[0]],
                check=True,
                stdout=subprocess.DEVNULL,
                env=env,
            )
        walls.append(spent)
    results["cli_search_common_process"] = {
        "p50_s": statistics.median(span.wall for span in walls),
        "max_s": max(span.wall for span in walls),
        "cpu_p50_s": statistics.median(span.children for span in walls),
    }
    return results


def bench_home(path: Path) -> Path:
    """A private home folder next to the bench database whose state.db links to it (for the CLI)."""
    home = path.with_name(f"home_{path.stem}")
    home.mkdir(mode=0o700, exist_ok=True)
    link = home / "state.db"
    if not link.is_symlink():
        link.symlink_to(Path("..") / path.name)
    return home


async def _probe(path: Path, what: str) -> float:
    """Seconds the first listing (50) or tree call of this process takes."""
    db = await SessionDB.open(path)
    try:
        started = time.perf_counter()
        if what == "list":
            await db.list_sessions_rich(limit=50)
        else:
            await db.lineage_tree()
        return time.perf_counter() - started
    finally:
        await db.close()


def cold_probe(path: Path, what: str, runs: int) -> list[float]:
    """The first `what` call of fresh processes (after one unmeasured run that warms the OS cache)."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    command = [sys.executable, "-m", "bench.store_bench", "--probe", what, "--db", str(path)]
    seconds = []
    for run in range(runs + 1):
        done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
        if run:
            seconds.append(float(done.stdout.strip()))
    return seconds


def report(results: dict[str, Any], path: Path) -> str:
    cpu = platform.processor() or platform.machine()
    lines = [
        f"store bench — {datetime.now():%Y-%m-%d %H:%M}, {platform.system()} {platform.release()}, {cpu},",
        f"{os.cpu_count()} cores, Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}",
        f"database: {results['messages']:,} messages, {results['sessions']:,} sessions,"
        f" {path.stat().st_size / 1e9:.2f} GB",
        "",
        f"{'measure':<28}{'p50 ms':>10}{'p95 ms':>10}{'CPU p50':>10}{'raw p50':>10}{'our/raw':>9}  budget",
    ]
    budgets = {
        "search_rare": "p50 < 30 ms",
        "search_common": "newest-first",
        "search_common_ranked": "(forced BM25)",
        "list_50_cold_process": "< 20 ms",
        "list_50_warm": "< 20 ms",
        "list_50_after_append": "< 20 ms",
        "list_50_after_other_process": "< 20 ms",
        "list_all": "(limit=None, every full row)",
        "lineage_tree_cold_process": "< 200 ms",
        "lineage_tree_after_change": "< 200 ms",
        "lineage_tree_unchanged": "< 200 ms",
        "resume_10k_session": "-",
    }
    for key, budget in budgets.items():
        r = results[key]
        lines.append(
            f"{key:<28}{r['p50_ms']:>10.2f}{r['p95_ms']:>10.2f}{r['cpu_p50_ms']:>10.2f}{r['raw_p50_ms']:>10.2f}"
            f"{r['ratio']:>9.2f}  {budget}"
        )
    lines.append(
        "raw = the same traced SQL replayed through stdlib sqlite3; for list_* and lineage_tree_* raw is"
        " one from-scratch SQL statement computing the same result (REFERENCE_*_SQL); CPU = this process's"
        " (every thread; n/a for the *_cold_process probes, timed inside another process)"
    )
    lines.append(
        f"list 50 page identical to REFERENCE_LISTING_SQL's: {'yes' if results['list_50_matches_reference'] else 'NO'};"
        f" list_all returned {results['list_all_rows']:,} rows; *_cold_process = first call in a fresh process"
    )
    lines.append(
        f"match share: rare terms <= {results['search_rare']['max_match_share_pct']:.3f} %,"
        f" common terms >= {results['search_common']['max_match_share_pct']:.1f} % (largest)"
    )
    a = results["append"]
    lines.append(
        f"append through SessionDB: {a['single_msgs_per_s']:,.0f} msg/s one by one (stdlib, same statements:"
        f" {a['raw_single_msgs_per_s']:,.0f} msg/s, ratio {a['ratio']:.2f}),"
        f" {a['batched_msgs_per_s']:,.0f} msg/s batched"
    )
    c = results["cli_search_common_process"]
    lines.append(
        f"`python -m hermes_tui search {COMMON_TERMS[0]}` whole process: p50 {c['p50_s']:.2f} s,"
        f" max {c['max_s']:.2f} s, CPU p50 {c['cpu_p50_s']:.2f} s (budget < 1.5 s)"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5, help="repetitions per measure")
    parser.add_argument("--rebuild", action="store_true", help="regenerate the cached database")
    parser.add_argument("--json", action="store_true", help="print the raw figures as JSON too")
    parser.add_argument("--probe", choices=("list", "tree"), help=argparse.SUPPRESS)  # one cold call, then exit
    parser.add_argument("--db", type=Path, help=argparse.SUPPRESS)
    add_load_argument(parser)
    args = parser.parse_args(argv)
    if args.probe:
        print(asyncio.run(_probe(args.db, args.probe)))
        return 0
    if args.messages < BIG_SESSION_MESSAGES * 2 or args.sessions < 10:
        parser.error(f"--messages must be at least {BIG_SESSION_MESSAGES * 2} and --sessions at least 10")
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"store_{args.messages}_{args.sessions}.db"
    if args.rebuild or not path.exists():
        print(f"generating {path.name} (cached for later runs)...", flush=True)
        started = time.perf_counter()
        generate(path, args.messages, args.sessions)
        print(f"  generated in {time.perf_counter() - started:.0f} s", flush=True)
    with load_from(args):
        print(describe_load(args.load), flush=True)
        results = asyncio.run(run_benchmarks(path, args.runs))
        print(describe_load(args.load))
    print(report(results, path))
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
