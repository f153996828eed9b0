"""Standing goals (`/goal`): the agent keeps working toward a goal, turn after turn, until a judge says it is done.

Reference §10 (Hermes's `hermes_cli/goals.py`); the loop, in our own design and words:

- `/goal TEXT` sets the live session's goal (replacing any other) and the front-end sends TEXT as
  the first turn. State lives in `state_meta["goal:<session id>"]` as JSON (secrets masked) —
  the keys Hermes writes (`goal`, `status`, `turns_used`, `max_turns`) plus ours — so it survives
  /resume, and a compression continuation takes its parent's goal over.
- After every turn of a session with an *active* goal, `GoalKeeper.after_turn` asks a judge —
  the summary model when one is configured, else the main model — whether the latest answer
  achieves the goal. The judge answers one JSON line: done, continue or blocked, with a reason.
  done: the goal is marked done. blocked: the loop pauses with the judge's reason. continue: the
  continuation prompt is the next user turn, until the turn budget (20 by default) is used up,
  which pauses the loop.
- The judge fails open: an error reaching it counts as "continue" (the budget is the backstop);
  three answers in a row that are not a verdict pause the loop, so a model that cannot follow the
  format does not burn the budget.
- A real user message comes first: the front-end sends queued messages before asking for a
  continuation, and the judge looks at whatever turn ran last. Ctrl-C, /stop or a failed turn
  pause the loop; `/goal resume` continues it, `/goal pause` and `/goal clear` stop it.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from hermes_tui.core import events as ev
from hermes_tui.core.context.redact_records import redact_json_text
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.judge_format import ANSWER_LABEL, JUDGE_TAG
from hermes_tui.core.providers.base import Provider
from hermes_tui.core.session.live import SessionError
from hermes_tui.store.codec import json_object
from hermes_tui.store.models import EDGE_COMPRESSION

if TYPE_CHECKING:
    from hermes_tui.core.session.live import LiveSession
    from hermes_tui.core.turn.result import TurnResult

GOAL_META_PREFIX = "goal:"
DEFAULT_MAX_TURNS = 20
MAX_PARSE_FAILURES = 3
JUDGE_TIMEOUT_S = 60.0
JUDGE_MAX_TOKENS = 400
RESPONSE_SNIPPET_CHARS = 4000
MAX_GOAL_CHARS = 2000

ACTIVE, PAUSED, DONE = "active", "paused", "done"
VERDICTS = ("done", "continue", "blocked")

CONTINUATION_TAG = "[Continuing toward your standing goal]"
CONTINUATION_PROMPT = (
    CONTINUATION_TAG + "\nGoal: {goal}\n\n"
    "Take the next concrete step toward this goal. When it is fully achieved, say so plainly and stop. "
    "When you cannot go on without the user, say what you need and stop."
)
JUDGE_PROMPT = (
    JUDGE_TAG + " You decide whether an AI agent has reached the goal its user set. Read the goal and the "
    "agent's latest answer, then reply with exactly one line of JSON and nothing else:\n"
    '{{"verdict": "done" | "continue" | "blocked", "reason": "<one sentence>"}}\n'
    "done: the answer shows the goal is achieved (the deliverable exists, not only a plan for it).\n"
    "blocked: the agent cannot go on without the user (it asks for input, hit an error it cannot fix, "
    "or the goal is impossible).\n"
    "continue: there is a concrete next step the agent can take now. Choose this when unsure.\n\n"
    "GOAL:\n{goal}\n\n" + ANSWER_LABEL + "\n{answer}\n"
)


def goal_key(session_id: str) -> str:
    return f"{GOAL_META_PREFIX}{session_id}"


def continuation_prompt(goal: str) -> str:
    return CONTINUATION_PROMPT.format(goal=goal)


@dataclass
class GoalState:
    """One session's standing goal, as stored in state_meta (JSON)."""

    goal: str
    status: str = ACTIVE
    turns_used: int = 0
    max_turns: int = DEFAULT_MAX_TURNS
    created_at: float = 0.0
    last_verdict: str | None = None
    last_reason: str | None = None
    paused_reason: str | None = None
    parse_failures: int = 0
    extra: dict[str, Any] = field(default_factory=dict)  # keys another writer (Hermes) stored, kept as they are

    def to_json(self) -> str:
        data = {k: v for k, v in asdict(self).items() if k != "extra"}
        return json.dumps({**self.extra, **data}, ensure_ascii=False)

    @classmethod
    def from_json(cls, raw: str | None) -> GoalState | None:
        """The stored goal, or None when `raw` is missing or not a goal (never raises)."""
        data = json_object(raw)
        if data is None or not isinstance(data.get("goal"), str) or not data["goal"].strip():
            return None
        known = {name for name in cls.__dataclass_fields__ if name != "extra"}

        def number(key: str, default: int) -> int:
            value = data.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default

        status = data.get("status") if data.get("status") in (ACTIVE, PAUSED, DONE) else PAUSED

        def text(key: str) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) else None

        return cls(
            goal=data["goal"].strip(),
            status=status,
            turns_used=number("turns_used", 0),
            max_turns=number("max_turns", DEFAULT_MAX_TURNS) or DEFAULT_MAX_TURNS,
            created_at=float(data["created_at"]) if isinstance(data.get("created_at"), int | float) else 0.0,
            last_verdict=text("last_verdict"),
            last_reason=text("last_reason"),
            paused_reason=text("paused_reason"),
            parse_failures=number("parse_failures", 0),
            extra={k: v for k, v in data.items() if k not in known},
        )

    def describe(self) -> str:
        """One line for /goal status and the status bar's tooltip."""
        line = f"Goal ({self.status}, {self.turns_used}/{self.max_turns} turns): {self.goal}"
        if self.status == PAUSED and self.paused_reason:
            line += f" — paused: {self.paused_reason}"
        elif self.last_reason:
            line += f" — judge: {self.last_reason}"
        return line


@dataclass(frozen=True)
class Verdict:
    kind: str  # "done" | "continue" | "blocked"
    reason: str
    parse_failed: bool = False  # the judge answered, but not with a verdict
    unavailable: bool = False  # the judge could not be reached (fail open: continue)


_JSON_OBJECT = re.compile(r"\{[^{}]*\}", re.DOTALL)


def parse_verdict(text: str) -> Verdict | None:
    """The verdict in a judge's reply (the first JSON object with one), or None."""
    for match in _JSON_OBJECT.finditer(text or ""):
        try:
            data = json.loads(match.group(0))
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        reason = str(data.get("reason") or "").strip()[:300]
        kind = str(data.get("verdict") or "").strip().lower()
        if kind in VERDICTS:
            return Verdict(kind, reason)
        if isinstance(data.get("done"), bool):  # the older {"done": true|false} shape
            return Verdict("done" if data["done"] else "continue", reason)
    return None


class GoalKeeper:
    """The standing goal of the live session: its commands and the judge between turns."""

    def __init__(
        self,
        *,
        session: LiveSession,
        judge: Callable[[], Provider],
        emitter: Emitter,
        clock: Callable[[], float] = time.time,
        judge_timeout: float = JUDGE_TIMEOUT_S,
    ) -> None:
        self._session = session
        self._judge_provider = judge
        self._events = emitter
        self._clock = clock
        self._judge_timeout = judge_timeout

    # ------------------------------------------------------------------ storage

    async def load(self) -> GoalState | None:
        """The live session's goal; a compression continuation takes over its parent's."""
        db = self._session.db
        if db is None:
            return None
        session_id = self._session.id
        state = GoalState.from_json(await db.get_meta(goal_key(session_id)))
        parent = self._session.parent_id
        if state is None and parent and self._session.row_created:
            record = await db.get_edge_record(session_id)
            if record is not None and record.kind == EDGE_COMPRESSION and record.applies_to(parent):
                state = GoalState.from_json(await db.get_meta(goal_key(parent)))
                if state is not None:
                    await self._save(state)
        return state

    async def _save(self, state: GoalState) -> None:
        db = self._session.db
        if db is None:
            raise GoalError("goals need a state.db")
        await db.set_meta(goal_key(self._session.id), redact_json_text(state.to_json()))
        self._announce(state)

    def _announce(self, state: GoalState | None, reason: str = "") -> None:
        if state is None:
            self._events.emit(ev.GoalChanged(self._session.id, None, "cleared"))
            return
        why = reason or state.paused_reason or state.last_reason or ""
        self._events.emit(
            ev.GoalChanged(self._session.id, state.goal, state.status, state.turns_used, state.max_turns, why)
        )

    # ------------------------------------------------------------------ commands

    async def set(self, text: str, max_turns: int = DEFAULT_MAX_TURNS) -> GoalState:
        goal = " ".join(text.split())
        if not goal:
            raise GoalError("a goal needs some text: /goal TEXT")
        if len(goal) > MAX_GOAL_CHARS:
            raise GoalError(f"the goal is too long ({len(goal)} characters, the limit is {MAX_GOAL_CHARS})")
        await self._session.ensure_row()
        state = GoalState(goal, ACTIVE, 0, max_turns, self._clock())
        await self._save(state)
        self._events.review("info", f"Goal set: {goal}")
        return state

    async def _require(self) -> GoalState:
        state = await self.load()
        if state is None:
            raise GoalError("this session has no goal — set one with /goal TEXT")
        return state

    async def pause(self, reason: str = "paused by the user") -> GoalState:
        state = await self._require()
        state.status, state.paused_reason = PAUSED, reason
        await self._save(state)
        return state

    async def resume(self) -> GoalState:
        state = await self._require()
        if state.status == DONE:
            raise GoalError("this goal is done — set a new one with /goal TEXT")
        if state.turns_used >= state.max_turns:
            state.max_turns = state.turns_used + DEFAULT_MAX_TURNS  # a resume grants a fresh budget
        state.status, state.paused_reason, state.parse_failures = ACTIVE, None, 0
        await self._save(state)
        return state

    async def clear(self) -> bool:
        db = self._session.db
        if db is None or await self.load() is None:
            return False
        await db.delete_meta(goal_key(self._session.id))
        self._announce(None)
        return True

    # ------------------------------------------------------------------ the loop

    async def after_turn(self, result: TurnResult) -> str | None:
        """Judge the turn that just ended; the continuation prompt when the loop goes on, else None."""
        state = await self.load()
        if state is None or state.status != ACTIVE:
            return None
        if result.interrupted or result.failed or result.exit_reason == "stopped":
            why = "interrupted" if result.interrupted else "stopped" if result.exit_reason == "stopped" else "failed"
            state.status, state.paused_reason = PAUSED, f"the turn was {why} — /goal resume continues"
            await self._save(state)
            return None
        state.turns_used += 1
        self._events.status(f"⚑ judging the goal ({state.turns_used}/{state.max_turns})…")
        verdict = await self._judge(state.goal, result.final_response or "")
        state.last_verdict, state.last_reason = verdict.kind, verdict.reason
        state.parse_failures = state.parse_failures + 1 if verdict.parse_failed else 0
        outcome: str | None = None
        if verdict.kind == "done":
            state.status = DONE
            self._events.review("info", f"Goal done after {state.turns_used} turn(s): {verdict.reason}")
        elif verdict.kind == "blocked":
            state.status, state.paused_reason = PAUSED, f"blocked: {verdict.reason}"
        elif state.parse_failures >= MAX_PARSE_FAILURES:
            state.status = PAUSED
            state.paused_reason = f"the judge gave no verdict {MAX_PARSE_FAILURES} times in a row"
        elif state.turns_used >= state.max_turns:
            state.status, state.paused_reason = PAUSED, f"the budget of {state.max_turns} turns is used up"
        else:
            outcome = continuation_prompt(state.goal)
        if state.status == PAUSED:
            self._events.review("warning", f"Goal paused: {state.paused_reason}")
        await self._save(state)
        return outcome

    async def _judge(self, goal: str, answer: str) -> Verdict:
        snippet = answer[-RESPONSE_SNIPPET_CHARS:] if answer else "(the agent gave no answer)"
        prompt = JUDGE_PROMPT.format(goal=goal, answer=snippet)
        try:
            provider = self._judge_provider()
            reply = await asyncio.wait_for(
                provider.complete(prompt, max_tokens=JUDGE_MAX_TOKENS), self._judge_timeout or None
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # fail open: the budget is the backstop
            line = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
            return Verdict("continue", f"judge unavailable ({line})", unavailable=True)
        verdict = parse_verdict(reply)
        if verdict is None:
            return Verdict("continue", "the judge did not answer with a verdict", parse_failed=True)
        return verdict


class GoalError(SessionError):
    """A /goal request that cannot be done as asked; the message is one clear line."""
