"""`hermes-tui run PROMPT`: one turn (or one /command) without the TUI, on the same Agent.

With a standing goal (`/goal TEXT`) the run goes on turn after turn until the judge says the goal
is done or the loop pauses (`Agent.next_turn`); each continuation is announced on stderr.

The answer streams to stdout; status lines and tool activity go to stderr so the answer can be
piped. `--json` prints one result object instead (final_response, session_id, api_calls, usage,
and who answered — the primary or a fallback: `provider`, `model`, `demo` — true when the offline demo model did — and
`cost_usd`, the run's price by `core/pricing.py`, null for a model without a known price).
The demo model answering is said on stderr too, before the turn. A /command that sends a turn (a
skill, /goal, /retry) prints what it did, then the turn's answer follows as for a prompt; with
`--json` its line goes to stderr and the one object is the turn's, with the "command" it came from.
A /command that opens a screen in the TUI (/search, /compare, /inspect, /memory, /skills, /help)
comes back from the core as an intent; this module alone turns it into text (`intent_text`).
A /command that copies a text (/copy) or opens /context also comes back as an intent. A
`/background TEXT` run waits for its side turn (a stop signal ends the wait) and prints its
Review-log report on stderr.
What is printed besides the streamed answer — tool activity, status lines, command output, the
`--json` object — has its secrets masked, as state.db does (`[security] redact_secrets`).
Shell commands (and file access that needs approval) ask on the terminal when stdin is one (a
file change shows its diff first; "a" allows that exact command or file for the rest of the run),
are denied otherwise, or run unasked with --yes (yolo mode). Every file a tool call changed is one
`path +added −removed` line on stderr under the tool's line. Ctrl-C, SIGTERM and SIGHUP interrupt
the turn: the partial answer is kept in state.db, a running shell command's process group is
killed, the session is ended with the signal's reason and we exit 128 + the signal number (130,
143, 129; `hermes_tui.stop_signals`); one line on stderr
says what the turn left in state.db, as the flush recorded it (`what_was_saved`).
Honest exits: only a turn that produced a real answer exits 0. Any other ending — an error, an
empty or reasoning-only answer, a content filter or refusal, an exhausted length or iteration
budget, a truncated tool call — exits 1 with the reason as one line on stderr, and `--json`
says `"failed": true` with the reason in "error" (`hermes_tui.core.turn.outcome`).
Nothing the model, a tool or a file says reaches the terminal raw: every printed text goes
through `text_safety.visible` (escape sequences shown as `\\x1b[…`), JSON through
`text_safety.dumps_for_terminal`, and the approval prompt shows the exact command, flagged when it
holds hidden control characters.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from hermes_tui.core import events as ev
from hermes_tui.core.context.redact import redact_sensitive_text
from hermes_tui.core.context.redact_records import redact_json_text, redact_value
from hermes_tui.exit_codes import FAILED as EXIT_FAILED
from hermes_tui.exit_codes import INTERRUPTED as EXIT_INTERRUPTED
from hermes_tui.exit_codes import OK as EXIT_OK
from hermes_tui.exit_codes import USAGE as EXIT_USAGE
from hermes_tui.stop_signals import StopSignals, end_reason
from hermes_tui.text_safety import approval_view, dumps_for_terminal, visible

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent
    from hermes_tui.core.commands import CommandResult, Intent
    from hermes_tui.core.tools.file_diff import FileChange


class HeadlessPrinter:
    """An event sink: answer text to stdout, everything else as short lines on stderr."""

    def __init__(self, out: TextIO, err: TextIO, *, stream_answer: bool) -> None:
        self.out = out
        self.err = err
        self.stream_answer = stream_answer
        self.wrote_text = False
        self.printed: set[str] = set()
        # A line on stderr ends the answer's line first only where both show on one terminal; piped or
        # saved, the answer is data and gets nothing added (a warning mid-stream split "serv\ned").
        self.shared_terminal = _isatty(out) and _isatty(err)

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.TextDelta):
            if self.stream_answer:
                self.out.write(visible(event.text))
                self.out.flush()
                self.wrote_text = True
        elif isinstance(event, ev.AssistantFinished):
            if self.stream_answer and self.wrote_text:
                self.out.write("\n")
                self.out.flush()
                self.wrote_text = False
        elif isinstance(event, ev.ToolCallStarted):
            self._line(f"⚙ {event.name} {_short_args(redact_json_text(event.arguments))}")  # masked before cut
        elif isinstance(event, ev.ToolCallFinished):
            mark = "✗" if event.is_error else "✓"
            result = redact_sensitive_text(event.result) if event.is_error and event.result else ""
            detail = f": {result.splitlines()[0][:120]}" if result else ""
            self._line(f"  {mark} {event.name} ({event.duration_s:.2f}s){detail}")
            for change in event.changes:
                self._line(f"    {change.summary}")
        elif isinstance(event, ev.PermissionModeChanged):
            self._line(f"permission mode: {event.label or event.mode}")
        elif isinstance(event, (ev.Status, ev.Warning)):
            self._line(event.text)
        elif isinstance(event, ev.SessionRotated) and event.reason == "compression":
            self._line(f"↻ session rotated {event.old} → {event.new}")
        elif isinstance(event, ev.ReviewEntry) and event.kind == "background":
            self._line(event.text + (f"\n{event.detail}" if event.detail else ""))

    def _line(self, text: str) -> None:
        self.printed.add(text)
        if self.wrote_text and self.shared_terminal:
            self.out.write("\n")
            self.out.flush()
            self.wrote_text = False
        print(visible(redact_sensitive_text(text)), file=self.err, flush=True)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no such method, or closed
        return False


def _short_args(arguments: str, limit: int = 80) -> str:
    try:
        data = json.loads(arguments or "{}")
    except (json.JSONDecodeError, ValueError):
        return arguments[:limit]
    text = " ".join(f"{k}={v}" for k, v in data.items()) if isinstance(data, dict) else str(data)
    return text if len(text) <= limit else text[: limit - 1] + "…"


APPROVAL_DIFF_LINES = 80


def _print_change(change: FileChange, err: TextIO) -> None:
    """The diff a file change would make, before its approval question (long ones cut)."""
    print(f"\n{visible(change.summary)}", file=err)
    lines = (change.unified or "").splitlines()
    for line in lines[:APPROVAL_DIFF_LINES]:
        print(visible(line), file=err)
    if len(lines) > APPROVAL_DIFF_LINES:
        print(f"… {len(lines) - APPROVAL_DIFF_LINES:,} more diff lines", file=err)


def terminal_approver(stdin: TextIO, err: TextIO) -> Any:
    """Ask on the terminal (stdin must be a TTY): y allows once, a for the rest of the run, anything else denies."""
    from hermes_tui.core.tools.base import ApprovalRequest
    from hermes_tui.core.tools.permissions import ApprovalAnswer

    async def approve(request: ApprovalRequest) -> ApprovalAnswer:
        risk = visible(f" — risky: {', '.join(request.reasons)}") if request.reasons else ""
        shown = approval_view(request.command)
        if shown.has_hidden:
            print(f"\n⚠ {shown.warning()}", file=err, flush=True)
        if request.change is not None:
            _print_change(request.change, err)
        question = f"Run `{shown.text}` in {visible(request.cwd)}?" if request.tool == "terminal" else f"{shown.text}?"
        always = f" (a: allow {request.session_scope} for the rest of this run)" if request.session_scope else ""
        print(f"\n{question}{risk}{always} [y/N] ", end="", file=err, flush=True)
        answer = (await asyncio.to_thread(stdin.readline)).strip().lower()
        if answer in ("y", "yes"):
            return ApprovalAnswer.ONCE
        if answer in ("a", "always") and request.session_scope:
            return ApprovalAnswer.SESSION
        return ApprovalAnswer.DENY

    return approve


class _TurnStopper:
    """Cancels the running turn on the first stop signal (later ones only wait for it to finish)."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._task: asyncio.Future[Any] | None = None
        self._cancelled = False

    def __call__(self, signum: int) -> None:
        self.signum = self.signum or signum
        self._cancel()

    def attach(self, task: asyncio.Future[Any] | None) -> None:
        self._task = task
        if self.signum is not None:
            self._cancel()

    def _cancel(self) -> None:
        if self._task is not None and not self._task.done() and not self._cancelled:
            self._cancelled = True
            self._task.cancel()


async def _run(args: argparse.Namespace, home: Any, settings: Any, choice: Any) -> int:
    stopper = _TurnStopper()
    signals = StopSignals(stopper).install()
    try:
        code = await _run_with_signals(args, home, settings, choice, stopper, signals)
    finally:
        signals.remove()
    if signals.received is not None:
        _exit_at_once(code)
    return code


def _exit_at_once(code: int) -> None:
    """Leave now that everything is saved and closed, without waiting for worker threads.

    After a stop signal a thread may still sit in a blocking read of the terminal (the approval
    prompt); the normal interpreter exit would wait for it until the user pressed Enter.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


async def _run_with_signals(
    args: argparse.Namespace, home: Any, settings: Any, choice: Any, stopper: _TurnStopper, signals: StopSignals
) -> int:
    from hermes_tui.core.bootstrap import open_agent
    from hermes_tui.core.commands import is_command
    from hermes_tui.core.session.live import SessionError
    from hermes_tui.core.turn.outcome import failure_reason

    printer = HeadlessPrinter(sys.stdout, sys.stderr, stream_answer=not args.json)
    # A one-shot run names no session (each title would cost a model call per invocation); a due
    # self-review still runs and is waited for before the agent closes.
    settings = dataclasses.replace(settings, sessions=dataclasses.replace(settings.sessions, auto_title=False))
    approver = None
    if not settings.tools.auto_approve and sys.stdin.isatty():
        approver = terminal_approver(sys.stdin, sys.stderr)
    agent, db = await open_agent(
        home=home, settings=settings, choice=choice, sink=printer, approver=approver, source="cli"
    )
    try:
        await agent.wait_for_mcp()  # a one-shot turn needs its MCP tools (each server: its connect_timeout)
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
        command = prompt if is_command(prompt) else None
        if command is not None:
            outcome = await headless_command(agent, prompt)
            if outcome.output:
                print(visible(redact_sensitive_text(outcome.output)), file=sys.stderr if args.json else sys.stdout)
            if args.json and outcome.send is None:
                print(
                    json.dumps(
                        redact_value(
                            {
                                "command": prompt,
                                "output": outcome.output,
                                "error": outcome.error,
                                "session_id": agent.session_id,
                            }
                        )
                    )
                )
            if outcome.send is None:
                return EXIT_USAGE if outcome.error else EXIT_OK
            prompt = outcome.send
        if signals.exit_code is not None:  # stopped before the turn began: nothing to interrupt
            return signals.exit_code
        result = await _interruptible_turn(agent, prompt, stopper)
        while (
            signals.exit_code is None
            and stopper.signum is None
            and (following := await agent.next_turn(result)) is not None
        ):  # a standing goal's continuations
            print(f"⚑ {visible(following.splitlines()[0] if following else '')}", file=sys.stderr, flush=True)
            result = await _interruptible_turn(agent, following, stopper)
        reason = failure_reason(result)
        if args.json:
            payload = result.as_json()
            payload["failed"] = reason is not None
            payload["error"] = reason
            payload.update(run_info(agent))
            if command is not None:  # the turn a command sent (a skill, /retry)
                payload["command"] = command
            print(dumps_for_terminal(redact_value(payload)))
        elif result.final_response and not printer.stream_answer:
            print(visible(result.final_response))
        if result.interrupted:
            cause = "interrupted" if stopper.signum is None else f"stopped by {signal.Signals(stopper.signum).name}"
            print(f"[{cause} — {what_was_saved(result)}]", file=sys.stderr)
            return signals.exit_code or EXIT_INTERRUPTED
        if reason is not None:
            line = " ".join(reason.split())
            if line not in printer.printed:
                print(f"hermes-tui: {visible(redact_sensitive_text(line))}", file=sys.stderr)
            return signals.exit_code or EXIT_FAILED
        return signals.exit_code or EXIT_OK
    finally:
        await _wait_for_background(agent, stopper)
        await agent.close(end_reason(stopper.signum) if stopper.signum is not None else "cli_close")
        await db.close()


async def _wait_for_background(agent: Agent, stopper: _TurnStopper) -> None:
    """The self-review, then the /background turns (a stop signal ends this wait; close stops them)."""
    if stopper.signum is not None:
        await agent.wait_for_background_work(background=False)
        return
    wait = asyncio.ensure_future(agent.wait_for_background_work())
    stopper.attach(wait)
    try:
        await wait
    except asyncio.CancelledError:
        pass
    finally:
        stopper.attach(None)


def run_info(agent: Agent) -> dict[str, Any]:
    """Who answered the run and what it cost: `provider`, `model`, `demo`, `cost_usd` (None: no known price)."""
    outlook = agent.budget().outlook
    cost = outlook.session_cost_usd if outlook is not None else None
    answered = agent.chain.active.choice  # the route of the last call: the primary or a fallback
    return {
        "provider": answered.provider,
        "model": answered.model,
        "demo": answered.provider == "demo",
        "cost_usd": None if cost is None else round(cost, 6),
    }


async def headless_command(agent: Agent, text: str) -> CommandResult:
    """Run one slash command as `hermes-tui run "/…"` does: a screen it asks for comes back as text."""
    from hermes_tui.core.commands import run_command
    from hermes_tui.core.session.live import SessionError

    result = await run_command(agent, text)
    if result.intent is None:
        return result
    try:
        return dataclasses.replace(result, output=await intent_text(agent, result.intent))
    except SessionError as exc:
        return dataclasses.replace(result, output=str(exc), error=True)


async def intent_text(agent: Agent, intent: Intent) -> str:
    """The text of the screen a command asked for (the TUI opens the screen instead); SessionError on a mistake."""
    from hermes_tui.core.commands import (
        CopyText,
        OpenCompare,
        OpenContext,
        OpenInspector,
        OpenLearning,
        OpenSearch,
        ShowHelp,
        browse,
        help_text,
    )
    from hermes_tui.core.commands.session import memory_text, skills_text
    from hermes_tui.core.context_report import context_report, report_text

    match intent:
        case OpenSearch(query=query):
            return await browse.search_text(browse.require_db(agent), query)
        case OpenCompare(left=left, right=None):
            parent, child = await browse.parent_pair(agent, left)
            return await browse.compare_text(browse.require_db(agent), parent, child)
        case OpenCompare(left=left, right=str() as right):
            return await browse.compare_text(browse.require_db(agent), left, right)
        case OpenInspector(child_id=child_id):
            return await browse.inspect_text(browse.require_db(agent), child_id)
        case OpenLearning(part="skills"):
            return skills_text(agent)
        case OpenLearning():
            return memory_text(agent)
        case ShowHelp():
            return help_text()
        case OpenContext(top=top):
            return report_text(await context_report(agent, top))
        case CopyText(text=text):
            return text
    raise AssertionError(f"no headless text for {intent!r}")


def what_was_saved(result: Any) -> str:
    """What an interrupted turn left in state.db, as the flush recorded it (a stored message has a row id)."""
    messages = list(result.messages or [])
    starts = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=0)
    turn = messages[starts:]
    where = f"session {result.session_id}"
    if not turn:
        return f"the turn had not started; nothing of it was saved in {where}"
    if any("_db_id" not in m for m in turn):
        return f"not everything could be saved to state.db (see the warning above); {where}"
    last = turn[-1]
    if last.get("role") == "assistant" and last.get("content"):
        if last.get("finish_reason") == "interrupted":
            return f"partial answer saved in {where}"
        return f"the answer had arrived in full and is saved in {where}"
    return f"the turn so far is saved in {where}; no answer was streaming"


async def _interruptible_turn(agent: Any, prompt: str, stopper: _TurnStopper) -> Any:
    """Run the turn as a task a stop signal cancels (the core keeps and saves the partial answer)."""
    task = asyncio.ensure_future(agent.run_conversation(prompt))
    stopper.attach(task)
    try:
        return await task
    except asyncio.CancelledError:
        from hermes_tui.core.turn.result import TurnResult

        return TurnResult(final_response=None, session_id=agent.session_id, interrupted=True, exit_reason="interrupted")
    finally:
        stopper.attach(None)


def run_headless(args: argparse.Namespace, prepare: Callable[[argparse.Namespace], tuple[Any, Any, Any]]) -> int:
    from hermes_tui.core.agent import AgentError
    from hermes_tui.store.errors import StoreError

    home, settings, choice = prepare(args)
    try:
        return asyncio.run(_run(args, home, settings, choice))
    except (StoreError, AgentError) as exc:
        print(f"hermes-tui: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
