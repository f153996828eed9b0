"""What storing messages costs with secret redaction on the way to state.db.

    python -m bench.flush_redaction_bench [--messages N] [--runs N]

Measured on N ordinary messages (prose, code, tool calls with JSON arguments, tool output;
no secrets, so every rule stops at its substring pre-check) and on the same messages with a
secret in every fifth one:
- mapping: `to_row` over all N (the canonical message -> stored row mapping, redaction included);
- flush: `FlushCursor.flush` of all N into a fresh real state.db (one transaction, as a turn's
  flush does, FTS triggers and synchronous=FULL included).
Each figure is the median of `--runs` runs (best in brackets).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from hermes_tui.core.session.persistence import FlushCursor, to_row
from hermes_tui.store.db import SessionDB

SECRET = "sk-proj-Zq81Lx0Pw7Nc3Vb5Mt2Ks9Hd4"


def ordinary_messages(count: int, *, with_secrets: bool = False) -> list[dict[str, Any]]:
    """A working session's mix: user asks, assistant tool calls, tool results, answers."""
    messages: list[dict[str, Any]] = []
    i = 0
    while len(messages) < count:
        call_id = f"call_{i}"
        secret = f" (the key is {SECRET})" if with_secrets and i % 5 == 0 else ""
        messages += [
            {"role": "user", "content": f"Step {i}: check src/module_{i % 50}.py and fix the failing test{secret}."},
            {
                "role": "assistant",
                "content": "Reading the module first.",
                "reasoning": f"The test for module {i % 50} fails on an off-by-one in the loop bounds.",
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": "read_file",
                            "arguments": json.dumps({"path": f"src/module_{i % 50}.py", "offset": 1, "limit": 200}),
                        },
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": call_id,
                "tool_name": "read_file",
                "content": "".join(
                    f"{n:>4}| def step_{n}(items):\n     return [x + 1 for x in items]\n" for n in range(12)
                ),
            },
            {"role": "assistant", "content": f"Module {i % 50}: the loop now stops at len(items) - 1; tests pass."},
        ]
        i += 1
    return messages[:count]


def timed_ms(work: Any, runs: int) -> str:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return f"{statistics.median(times) * 1000:.2f} ms (best {min(times) * 1000:.2f})"


async def flush_once(folder: Path, messages: list[dict[str, Any]], run: int) -> float:
    db = await SessionDB.open(folder / f"state-{run}.db")
    try:
        await db.create_session("bench", "cli")
        copies = [dict(m) for m in messages]
        start = time.perf_counter()
        await FlushCursor().flush(db, "bench", copies)
        return time.perf_counter() - start
    finally:
        await db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    for label, secrets in (("ordinary messages", False), ("messages, a secret in every 5th round", True)):
        messages = ordinary_messages(args.messages, with_secrets=secrets)
        mapping = timed_ms(lambda m=messages: [to_row(message) for message in m], args.runs)
        with tempfile.TemporaryDirectory() as tmp:
            times = [asyncio.run(flush_once(Path(tmp), messages, run)) for run in range(args.runs)]
        flush = f"{statistics.median(times) * 1000:.2f} ms (best {min(times) * 1000:.2f})"
        print(f"{args.messages:,} {label}: to_row {mapping}; flush into state.db {flush}")


if __name__ == "__main__":
    main()
