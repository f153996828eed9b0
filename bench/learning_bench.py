"""Figures for the agent that learns: the review fork's cost to the next prompt, memory tool calls,
and the skills index.

    python -m bench.learning_bench [--runs N]

- review spawn: the finishing phase of a turn with a memory review due (`TurnLearning.finish`, which
  copies the message snapshot and starts the fork as a task), plus the event-loop turns in which the
  new task runs before its first real wait, against the same with nothing due — the difference is
  what the review adds between one turn's end and the prompt accepting the next (budget: < 5 ms).
  The fork's own work (file snapshot in a thread, model calls) runs afterwards, in the background;
- memory tool: `memory` add and remove through the tool registry, lock + re-read + atomic write
  included (budget: < 5 ms per call);
- skills index: scanning 200 skills on disk and rendering `<available_skills>` (budget: < 20 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from hermes_tui.config import Home, ProviderChoice, Settings, ToolsSettings
from hermes_tui.core.memory.store import MemoryStore
from hermes_tui.core.skills.catalog import available_skills_block, scan_skills
from hermes_tui.core.todo import TodoStore
from hermes_tui.core.tools.base import ToolContext
from hermes_tui.core.tools.memory_tool import MemoryTool
from hermes_tui.core.tools.registry import ToolRegistry
from hermes_tui.core.turn.result import FinishedTurn, TurnResult

SKILL = "---\nname: {name}\ndescription: {description}\nplatforms: [linux, macos]\n---\n\n# {name}\n\n{body}\n"


def ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"median {statistics.median(values) * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms"


async def bench_review_spawn(runs: int) -> tuple[list[float], list[float]]:
    from hermes_tui.core.agent import Agent
    from hermes_tui.core.bootstrap import build_registry
    from hermes_tui.core.providers.factory import make_provider
    from hermes_tui.store.db import SessionDB

    with tempfile.TemporaryDirectory() as tmp:
        home = Home(Path(tmp) / "home").ensure()
        settings = Settings()
        settings.sessions.auto_title = False
        db = await SessionDB.open(home.state_db)
        agent = Agent(
            settings=settings,
            home=home,
            provider=make_provider(ProviderChoice("demo", "demo", "", "", True, "bench")),
            db=db,
            cwd=Path(tmp),
            registry=build_registry(),
        )
        await agent.run_conversation("read README.md")
        messages = list(agent.messages) * 20  # a realistic snapshot to copy

        def turn(due: bool) -> FinishedTurn:
            result = TurnResult("a", agent.session_id, completed=True, messages=messages)
            return FinishedTurn(result, "q", review_memory=due)

        async def finish_and_settle(due: bool) -> float:
            """The finishing phase plus the loop turns the new task runs in before it first waits."""
            started = time.perf_counter()
            await agent.learning.finish(turn(due))
            for _ in range(3):
                await asyncio.sleep(0)
            return time.perf_counter() - started

        with_review, without = [], []
        for _ in range(runs):
            without.append(await finish_and_settle(False))
            with_review.append(await finish_and_settle(True))
            await agent.reviewer.close()  # cancel the fork before it calls the (demo) model
        await agent.close()
        await db.close()
        return with_review, without


async def bench_memory_tool(runs: int) -> tuple[list[float], list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore(Path(tmp), memory_char_limit=1_000_000)
        ctx = ToolContext(Path(tmp), ToolsSettings(), None, TodoStore(), services={"memory": store})
        registry = ToolRegistry()
        registry.register(MemoryTool())
        for i in range(20):
            store.apply("add", "memory", f"seed note number {i} about the project conventions")
        adds, removes = [], []
        for i in range(runs):
            args = json.dumps({"action": "add", "target": "memory", "content": f"benchmark entry {i}"})
            started = time.perf_counter()
            result = await registry.dispatch("memory", args, ctx)
            adds.append(time.perf_counter() - started)
            assert not result.is_error, result.content
            args = json.dumps({"action": "remove", "target": "memory", "old_text": f"benchmark entry {i}"})
            started = time.perf_counter()
            result = await registry.dispatch("memory", args, ctx)
            removes.append(time.perf_counter() - started)
            assert not result.is_error, result.content
        return adds, removes


def bench_skills_index(runs: int, count: int = 200) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "skills"
        for i in range(count):
            category = f"category-{i % 12}" if i % 5 else None
            folder = root / category / f"skill-{i:03d}" if category else root / f"skill-{i:03d}"
            folder.mkdir(parents=True)
            description = f"Procedure number {i} for a recurring class of task, with pitfalls and checks."
            (folder / "SKILL.md").write_text(
                SKILL.format(name=f"skill-{i:03d}", description=description, body="Step.\n" * 40), encoding="utf-8"
            )
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            skills, _problems = scan_skills(root)
            block = available_skills_block(root, skills)
            times.append(time.perf_counter() - started)
            assert block.count("    - ") == count
        return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    with_review, without = asyncio.run(bench_review_spawn(args.runs))
    added = [w - o for w, o in zip(with_review, without, strict=True)]
    print(f"finishing phase, review due:     {ms(with_review)}")
    print(f"finishing phase, nothing due:    {ms(without)}")
    print(f"added by the review spawn:       {ms(added)}   (budget < 5 ms)")
    adds, removes = asyncio.run(bench_memory_tool(args.runs))
    print(f"memory tool add:                 {ms(adds)}   (budget < 5 ms)")
    print(f"memory tool remove:              {ms(removes)}   (budget < 5 ms)")
    print(f"skills index, 200 skills:        {ms(bench_skills_index(max(5, args.runs // 5)))}   (budget < 20 ms)")


if __name__ == "__main__":
    main()
