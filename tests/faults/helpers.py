"""The fault suite's harness: one real agent turn against the fault-injecting fake server.

`Harness.run(protocol, *steps)` scripts the server, builds a real Agent on a real state.db (the
public `make_agent` helper, with small provider timeouts and millisecond backoff), runs
`run_conversation` under an `asyncio.wait_for` guard, and returns a `Run`: the TurnResult, every
event the core emitted, the state.db rows of the session and the requests the server saw.
`Run`'s assertions state what a user must be able to rely on: no crash, the prompt kept, an
answer or a failure that names its cause.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_tui.config import ProviderChoice, Settings, TimeoutsSettings
from hermes_tui.core import events as ev
from hermes_tui.core.agent import Agent, TurnResult
from hermes_tui.store.db import SessionDB
from tests.core.helpers import EventLog, anthropic_choice, make_agent, openai_choice
from tests.fake_llm import FakeLLMServer, RecordedRequest, Reply, Step, anthropic_events, openai_events
from tests.waits import HANG_GUARD_S

BOTH = ("openai", "anthropic")
# The provider timeouts of a turn whose stream is healthy: hang guards only, long enough that a loaded
# two-core machine (load 15) never trips them. A test about a silence passes its own short limits.
HEALTHY_TIMEOUTS = TimeoutsSettings(connect=HANG_GUARD_S / 4, first_byte=HANG_GUARD_S / 4, idle=HANG_GUARD_S / 4)
TURN_GUARD_S = HANG_GUARD_S  # a turn that hangs fails its test instead of the whole suite
PROMPT = "Summarise the notes for me, please."


def events_of(protocol: str, reply: Reply) -> list[str]:
    """The SSE texts of a well-formed stream of `reply`, in the protocol's shape."""
    if protocol == "openai":
        return [text for _kind, text in openai_events(reply, "fake-model", include_usage=True)]
    return [text for _kind, text in anthropic_events(reply, "fake-model")]


def choice_for(protocol: str, base_url: str) -> ProviderChoice:
    return openai_choice(base_url) if protocol == "openai" else anthropic_choice(base_url)


def server_url(server: FakeLLMServer, protocol: str) -> str:
    return server.base_url_openai if protocol == "openai" else server.base_url_anthropic


@dataclass
class Run:
    """What one turn did, as a user (and the next session) would see it."""

    prompt: str
    result: TurnResult
    log: EventLog
    stored: list[dict[str, Any]]
    requests: list[RecordedRequest] = field(default_factory=list)

    # ------------------------------------------------------------------ views

    def texts(self, kind: type) -> list[str]:
        return [event.text for event in self.log.of(kind)]

    @property
    def statuses(self) -> list[str]:
        return self.texts(ev.Status)

    @property
    def warnings(self) -> list[str]:
        return self.texts(ev.Warning)

    @property
    def roles(self) -> list[str]:
        return [row["role"] for row in self.stored]

    @property
    def retries(self) -> list[str]:
        return [text for text in self.statuses if "retrying" in text]

    @property
    def finished(self) -> ev.TurnFinished:
        finished = self.log.of(ev.TurnFinished)
        assert len(finished) == 1, f"expected one TurnFinished, got {finished}"
        return finished[0]

    # ------------------------------------------------------------------ assertions

    def assert_no_crash(self) -> None:
        """No internal error, no traceback text anywhere the user could see it."""
        result = self.result
        assert result.exit_reason != "internal_error", result.error
        assert "internal error" not in result.error
        visible = [result.error, result.final_response or "", *self.statuses, *self.warnings]
        visible += [entry.text for entry in self.log.of(ev.ReviewEntry)]
        assert not any("Traceback" in text for text in visible), visible
        assert self.finished.exit_reason == result.exit_reason

    def assert_prompt_stored(self) -> None:
        assert self.stored, "nothing was written to state.db"
        assert (self.stored[0]["role"], self.stored[0]["content"]) == ("user", self.prompt)

    def assert_answered(self, text: str) -> None:
        """A completed turn whose final answer is `text`, shown and stored."""
        self.assert_no_crash()
        result = self.result
        assert result.completed and not result.failed, (result.exit_reason, result.error)
        assert result.final_response == text
        assert self.finished.final_response == text and not self.finished.failed
        self.assert_prompt_stored()
        assert self.stored[-1]["role"] == "assistant" and self.stored[-1]["content"] == text

    def assert_continued(self, *parts: str) -> None:
        """An answer cut (by the output limit or the network) and continued: the user sees the parts joined;
        state.db holds each part as its own assistant row, with the continuation request between them,
        and the last row only the last part (nothing counted twice in the context)."""
        self.assert_no_crash()
        joined = "".join(parts)
        result = self.result
        assert result.completed and not result.failed, (result.exit_reason, result.error)
        assert result.final_response == joined == self.log.text(), (result.final_response, self.log.text())
        assert self.finished.final_response == joined
        self.assert_prompt_stored()
        rows = [(row["role"], row["content"]) for row in self.stored[1:]]
        assistants = [content for role, content in rows if role == "assistant"]
        assert assistants == list(parts), rows
        continuations = [content for role, content in rows if role == "user"]
        assert len(continuations) == len(parts) - 1 and all("[System:" in text for text in continuations), rows
        assert sum(content.count(parts[0]) for _, content in rows) == 1, "a part is stored once"

    def assert_failed(self, *fragments: str) -> None:
        """A failed (not completed) turn whose one-line error names the cause."""
        self.assert_no_crash()
        result = self.result
        assert result.failed and not result.completed, (result.exit_reason, result.final_response)
        assert self.finished.failed and self.finished.error == result.error
        assert "\n" not in result.error.strip(), result.error
        for fragment in fragments:
            assert fragment.lower() in result.error.lower(), (fragment, result.error)
        assert result.error in self.warnings, "the failure is shown to the user"
        self.assert_prompt_stored()

    def assert_partial_kept(self, delivered: str) -> None:
        """The stream died after `delivered` reached the user: it is the answer, and it is stored."""
        self.assert_no_crash()
        assert self.log.text().startswith(delivered), self.log.text()
        assert self.result.final_response == self.log.text()
        assert not self.result.failed
        self.assert_prompt_stored()
        assert self.stored[-1]["role"] == "assistant" and self.stored[-1]["content"] == self.log.text()


class Harness:
    """Runs turns for one test; every agent gets its own home folder and state.db."""

    def __init__(self, tmp_path: Path, server: FakeLLMServer, project: Path) -> None:
        self.tmp_path = tmp_path
        self.server = server
        self.project = project
        self._dbs: list[SessionDB] = []
        self._agents: list[Agent] = []

    async def agent(
        self,
        protocol: str,
        *,
        base_url: str | None = None,
        timeouts: TimeoutsSettings = HEALTHY_TIMEOUTS,
        settings: Settings | None = None,
    ) -> tuple[Agent, SessionDB, EventLog]:
        settings = settings or Settings()
        settings.timeouts = timeouts
        choice = choice_for(protocol, base_url or server_url(self.server, protocol))
        home = self.tmp_path / f"agent{len(self._agents)}"
        agent, db, log = await make_agent(home, choice, settings=settings, cwd=self.project)
        self._dbs.append(db)
        self._agents.append(agent)
        return agent, db, log

    async def run(
        self,
        protocol: str,
        *steps: Step,
        prompt: str = PROMPT,
        base_url: str | None = None,
        timeouts: TimeoutsSettings = HEALTHY_TIMEOUTS,
        settings: Settings | None = None,
    ) -> Run:
        """Script `steps`, run one turn, and collect what it did."""
        self.server.enqueue(*steps)
        agent, db, log = await self.agent(protocol, base_url=base_url, timeouts=timeouts, settings=settings)
        return await self.turn(agent, db, log, prompt)

    async def turn(self, agent: Agent, db: SessionDB, log: EventLog, prompt: str = PROMPT) -> Run:
        seen = len(self.server.requests)
        log.clear()
        result = await asyncio.wait_for(agent.run_conversation(prompt), TURN_GUARD_S)
        stored = await db.get_messages(result.session_id) if result.session_id else []
        return Run(prompt, result, log, stored, list(self.server.requests[seen:]))

    async def close(self) -> None:
        for agent in self._agents:
            await agent.provider.aclose()
        for db in self._dbs:
            await db.close()
