"""Per-call request work on long histories (issue 23): the request body and the rough token estimate.

    python -m bench.request_bench [--sizes 1000,10000,100000] [--calls N] [--load N] [--markdown]

For each history size (agentic rounds as in bench/context_bench.py: a user ask, a tool call, its
result of 200-4,000 characters, an answer) and each wire shape (OpenAI chat completions,
Anthropic Messages with prompt caching), one call's request body is built two ways in the same
run:
- whole: the request copy of the whole history (`build_api_messages_in_slices`) translated and
  encoded by the provider without the conversation's cache — what every call did before;
- incremental: the conversation's `RequestCache` after one round (4 messages) was appended since
  the previous call — what a call does now (`RequestCopy` + the provider's kept bytes).
Both bodies are compared byte for byte at every size. Beside them: a bare `json.dumps` of the same
body, and the rough token estimate per call (`TokenLedger`, the same history as a new list with
one round more, as each turn sees it) next to a full recount. Every figure is wall and CPU (this
process's, `time.process_time`); min / median over `--calls` calls. Budgets (issue 23): per-call
encode at 100,000 messages <= 10 % of the whole path's, estimate <= 5 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from typing import Any

from bench.context_bench import agentic_history
from bench.cputime import Spent, figure, measure
from bench.load import add_load_argument, describe_load, load_from
from hermes_tui.core.context.tokens import TokenLedger, estimate_request_tokens_rough
from hermes_tui.core.providers.anthropic import AnthropicProvider
from hermes_tui.core.providers.base import ChatRequest, RequestCache
from hermes_tui.core.providers.openai import OpenAIProvider
from hermes_tui.core.turn.api_messages import build_api_messages_in_slices
from hermes_tui.core.turn.request_copy import RequestCopy

TOOLS = [
    {"type": "function", "function": {"name": f"tool_{i}", "description": "d" * 400, "parameters": {"type": "object"}}}
    for i in range(12)
]
OPTIONS: dict[str, Any] = {"tools": TOOLS, "max_tokens": 4096}


def _round(i: int) -> list[dict[str, Any]]:
    return agentic_history(6 + 4 * (i % 50))[-4:]


async def _whole(provider: Any, history: list[dict[str, Any]], system: str) -> bytes:
    messages = await build_api_messages_in_slices(list(history), system)
    return bytes(await provider.request_body(ChatRequest(messages=messages, **OPTIONS)))


async def _incremental(provider: Any, cache: RequestCache, history: list[dict[str, Any]], system: str) -> bytes:
    copy: RequestCopy = cache.slot("request_copy", RequestCopy)
    messages, reusable = await copy.build(list(history), system)
    request = ChatRequest(messages=messages, cache=cache, reusable=reusable, **OPTIONS)
    return bytes(await provider.request_body(request))


async def bench_body(size: int, calls: int) -> list[tuple[str, str]]:
    base = agentic_history(size + 1)
    system = str(base[0]["content"])
    rows = []
    for name, provider in (
        ("OpenAI", OpenAIProvider("gpt-4o", api_key="bench")),
        ("Anthropic", AnthropicProvider("claude-sonnet-4", api_key="bench")),
    ):
        history = list(base[1:])
        cache = RequestCache()
        await _incremental(provider, cache, history, system)  # the conversation's first call fills the cache
        whole: list[Spent] = []
        incremental: list[Spent] = []
        bare: list[Spent] = []
        size_mb = 0.0
        for call in range(calls):
            history.extend(_round(call))
            with measure() as spent:
                ours = await _incremental(provider, cache, history, system)
            incremental.append(spent)
            with measure() as spent:
                reference = await _whole(provider, history, system)
            whole.append(spent)
            if ours != reference:
                raise SystemExit(f"{name} at {size:,} messages: the incremental body differs from the whole one")
            parsed = json.loads(reference)
            with measure() as spent:
                json.dumps(parsed, ensure_ascii=False, separators=(",", ":")).encode()
            bare.append(spent)
            size_mb = len(reference) / 1e6
        share = statistics.median(s.cpu for s in incremental) / statistics.median(s.cpu for s in whole)
        label = f"{name}, {size:,} messages ({size_mb:.1f} MB)"
        rows.append((f"{label}: whole body (before)", figure(whole)))
        rows.append(
            (f"{label}: incremental body (now), bytes identical", f"{figure(incremental)} = {share:.1%} of whole")
        )
        rows.append((f"{label}: bare json.dumps of the same body", figure(bare)))
    return rows


def bench_estimate(size: int, calls: int) -> list[tuple[str, str]]:
    history = agentic_history(size)
    system = "system prompt " * 500
    ledger = TokenLedger()
    ledger.rough_request_tokens(history, system, TOOLS, 0)
    incremental: list[Spent] = []
    full: list[Spent] = []
    for call in range(calls):
        history = [*history, *_round(call)]  # a new list, as each turn builds one
        with measure() as spent:
            ours = ledger.rough_request_tokens(history, system, TOOLS, 0)
        incremental.append(spent)
        with measure() as spent:
            expected = estimate_request_tokens_rough(history, system, TOOLS)
        full.append(spent)
        if ours != expected:
            raise SystemExit("the ledger's estimate differs from the full recount")
    return [
        (f"rough token estimate, {size:,} messages: ledger per call (budget <= 5 ms)", figure(incremental, digits=2)),
        (f"rough token estimate, {size:,} messages: full recount", figure(full)),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="1000,10000,100000", help="history sizes, comma-separated")
    parser.add_argument("--calls", type=int, default=5, help="calls measured per size and shape")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    add_load_argument(parser)
    args = parser.parse_args(argv)
    sizes = [int(part) for part in args.sizes.split(",") if part.strip()]
    rows: list[tuple[str, str]] = []
    with load_from(args):
        print(describe_load(args.load), flush=True)
        for size in sizes:
            rows += asyncio.run(bench_body(size, max(1, args.calls)))
        rows += bench_estimate(max(sizes), max(3, args.calls * 4))
        print(describe_load(args.load))
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"| {label} | {value} |" if args.markdown else f"{label:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
