"""`hermes-tui run PROMPT`: one turn (or one /command) without the TUI, on the same Agent.

With a standing goal (`/goal TEXT`) the run goes on turn after turn until the judge says the goal
is done or the loop pauses (`Agent.next_turn`); each continuation is announced on stderr.

The answer streams to stdout; status lines and tool activity go to stderr so the answer can be
piped. `--json` prints one result object instead (final_response, session_id, api_calls, usage).
Shell commands ask on the terminal when stdin is one, are denied otherwise, or run unasked with
--yes. Ctrl-C interrupts the turn: the partial answer is kept in state.db and we exit 130.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from collections.abc import Callable
from typing import Any, TextIO

from hermes_tui.core import events as ev
from hermes_tui.exit_codes import FAILED as EXIT_FAILED
from hermes_tui.exit_codes import INTERRUPTED as EXIT_INTERRUPTED
from hermes_tui.exit_codes import OK as EXIT_OK
from hermes_tui.exit_codes import USAGE as EXIT_USAGE


class HeadlessPrinter:
    """An event sink: answer text to stdout, everything else as short lines on stderr."""

    def __init__(self, out: TextIO, err: TextIO, *, stream_answer: bool) -> None:
        self.out = out
        self.err = err
        self.stream_answer = stream_answer
        self.wrote_text = False
        self.printed: set[str] = set()

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.TextDelta):
            if self.stream_answer:
                self.out.write(event.text)
                self.out.flush()
                self.wrote_text = True
        elif isinstance(event, ev.AssistantFinished):
            if self.stream_answer and self.wrote_text:
                self.out.write("\n")
                self.out.flush()
                self.wrote_text = False
        elif isinstance(event, ev.ToolCallStarted):
            self._line(f"⚙ {event.name} {_short_args(event.arguments)}")
        elif isinstance(event, ev.ToolCallFinished):
            mark = "✗" if event.is_error else "✓"
            detail = f": {event.result.splitlines()[0][:120]}" if event.is_error and event.result else ""
            self._line(f"  {mark} {event.name} ({event.duration_s:.2f}s){detail}")
        elif isinstance(event, (ev.Status, ev.Warning)):
            self._line(event.text)
        elif isinstance(event, ev.SessionRotated) and event.reason == "compression":
            self._line(f"↻ session rotated {event.old} → {event.new}")

    def _line(self, text: str) -> None:
        self.printed.add(text)
        if self.wrote_text:
            self.out.write("\n")
            self.out.flush()
            self.wrote_text = False
        print(text, file=self.err, flush=True)


def _short_args(arguments: str, limit: int = 80) -> str:
    try:
        data = json.loads(arguments or "{}")
    except (json.JSONDecodeError, ValueError):
        return arguments[:limit]
    text = " ".join(f"{k}={v}" for k, v in data.items()) if isinstance(data, dict) else str(data)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def terminal_approver(stdin: TextIO, err: TextIO) -> Any:
    """Ask y/N on the terminal (stdin must be a TTY)."""
    from hermes_tui.core.tools.base import ApprovalRequest

    async def approve(request: ApprovalRequest) -> bool:
        risk = f" — risky: {', '.join(request.reasons)}" if request.reasons else ""
        print(f"\nRun `{request.command}` in {request.cwd}?{risk} [y/N] ", end="", file=err, flush=True)
        answer = await asyncio.to_thread(stdin.readline)
        return answer.strip().lower() in ("y", "yes")

    return approve


async def _run(args: argparse.Namespace, home: Any, settings: Any, choice: Any) -> int:
    from hermes_tui.core.bootstrap import open_agent
    from hermes_tui.core.commands import is_command, run_command
    from hermes_tui.core.session.live import SessionError

    printer = HeadlessPrinter(sys.stdout, sys.stderr, stream_answer=not args.json)
    approver = None
    if not settings.tools.auto_approve and sys.stdin.isatty():
        approver = terminal_approver(sys.stdin, sys.stderr)
    agent, db = await open_agent(
        home=home, settings=settings, choice=choice, sink=printer, approver=approver, source="cli"
    )
    try:
        if choice.is_demo:
            print(f"[demo] {choice.reason} — using the offline demo model", file=sys.stderr)
        continued = getattr(args, "continue", None)
        if args.resume or continued is not None:
            try:
                if args.resume:
                    await agent.resume(args.resume)
                else:
                    await agent.continue_session(continued or None)
            except SessionError as exc:
                print(f"hermes-tui: error: {exc}", file=sys.stderr)
                return EXIT_USAGE
        prompt: str = args.prompt
        if is_command(prompt):
            outcome = await run_command(agent, prompt)
            if outcome.output:
                print(outcome.output, file=sys.stderr if args.json else sys.stdout)
            if args.json:
                print(
                    json.dumps(
                        {
                            "command": prompt,
                            "output": outcome.output,
                            "error": outcome.error,
                            "session_id": agent.session_id,
                        }
                    )
                )
            if outcome.send is None:
                return EXIT_USAGE if outcome.error else EXIT_OK
            prompt = outcome.send
        result = await _interruptible_turn(agent, prompt)
        while (following := await agent.next_turn(result)) is not None:  # a standing goal's continuations
            print(f"⚑ {following.splitlines()[0]}", file=sys.stderr, flush=True)
            result = await _interruptible_turn(agent, following)
        if args.json:
            print(json.dumps(result.as_json(), ensure_ascii=False))
        elif result.final_response and not printer.stream_answer:
            print(result.final_response)
        if result.interrupted:
            print(f"[interrupted — partial answer saved in session {result.session_id}]", file=sys.stderr)
            return EXIT_INTERRUPTED
        if result.failed:
            if not args.json and result.error not in printer.printed:
                print(f"hermes-tui: {result.error}", file=sys.stderr)
            return EXIT_FAILED
        return EXIT_OK
    finally:
        await agent.close("cli_close")
        await db.close()


async def _interruptible_turn(agent: Any, prompt: str) -> Any:
    """Run the turn as a task that SIGINT cancels (the core keeps and saves the partial answer)."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(agent.run_conversation(prompt))
    try:
        loop.add_signal_handler(signal.SIGINT, task.cancel)
    except (NotImplementedError, RuntimeError):
        pass
    try:
        return await task
    except asyncio.CancelledError:
        from hermes_tui.core.turn.state import TurnResult

        return TurnResult(final_response=None, session_id=agent.session_id, interrupted=True, exit_reason="interrupted")
    finally:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass


def run_headless(args: argparse.Namespace, prepare: Callable[[argparse.Namespace], tuple[Any, Any, Any]]) -> int:
    from hermes_tui.core.agent import AgentError
    from hermes_tui.store.errors import StoreError

    home, settings, choice = prepare(args)
    try:
        return asyncio.run(_run(args, home, settings, choice))
    except (StoreError, AgentError) as exc:
        print(f"hermes-tui: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
