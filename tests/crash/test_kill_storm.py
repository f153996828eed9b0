"""Kill `hermes-tui run` at random points of a turn, 120 times, and check nothing was lost.

Four kinds of kill, 30 of each: SIGKILL and SIGTERM, during a streaming turn and during a
tool-running turn (a streamed tool call, a real shell command, a streamed answer). Each home folder
holds one session that grows round by round: a killed turn ("killed K", continuing the session with
--resume), then a completed one ("verify K" -> "answer K"). The kill lands after the request for
the turn reached the fake server, after a random delay shorter than the turn's slowest possible
run, so it always hits the turn itself. After every kill:

- `PRAGMA integrity_check` is ok;
- every completed earlier turn is there once, its prompt followed by its answer;
- the killed turn's prompt is there once, and anything saved of its answer is marked interrupted
  and is a prefix of what the model streamed;
- every stored tool call has exactly one result (the history sent next is valid), and the
  session's message and tool-call counters match its rows;
- SIGTERM exits 143 and ends the session "sigterm"; SIGKILL leaves the process dead by signal 9;
- `hermes-tui run --resume <id>` then exits 0 with a new answer (that run is the next completed turn).

Speed: the kills run in eight homes in parallel, and the processes are forked from a server that
has already imported the CLI and the SDK (`tests.crash.forkserver`) — each child runs exactly
`hermes_tui.cli.main(argv)`, as the console script does. Each home ends with one more resume
through a fresh `python -m hermes_tui` process. The seed is in every failure message; set
CRASH_SEED to replay one.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.crash.helpers import cli_env, integrity, poll, run_cli, session_row, stored
from tests.fake_llm import FakeLLMServer, Reply, Step, openai_events

REPO_ROOT = Path(__file__).resolve().parents[2]
KILLS_PER_KIND = 30
HOMES_PER_TURN_KIND = 4
CHUNK_DELAY = 0.02
TOOL_COMMAND = "sleep 0.3; echo tool-done"
COMMAND_SECONDS = 0.3
FINISHING_TAIL = 0.2  # kills may also land while the turn finishes and the process closes
MIN_MID_ANSWER_KILLS = 5  # of 60 per turn kind: proof the kills really hit a saved, streaming answer


def story(tag: str, words: int) -> str:
    return " ".join(f"{tag}w{i}" for i in range(words))


@dataclass(frozen=True)
class KilledTurn:
    """What the fake server streams in one killed turn, and how long that takes at the least."""

    steps: list[Step]
    texts: list[str]  # every text the model streams, in order; the last is the final answer
    floor: float  # seconds from the first request to the end of the last stream, at the least

    @classmethod
    def for_round(cls, kind: str, k: int) -> KilledTurn:
        if kind == "stream":
            text = story(f"s{k}", 60)
            reply = Reply(text=text, chunk_size=8, delay_per_chunk=CHUNK_DELAY)
            return cls([reply], [text], paced_seconds(reply))
        intro, answer = f"Checking {k}.", story(f"t{k}", 30)
        call = (f"call_{k}", "terminal", json.dumps({"command": TOOL_COMMAND}))
        first = Reply(text=intro, tool_calls=[call], chunk_size=4, delay_per_chunk=CHUNK_DELAY)
        second = Reply(text=answer, chunk_size=8, delay_per_chunk=CHUNK_DELAY)
        return cls([first, second], [intro, answer], paced_seconds(first) + COMMAND_SECONDS + paced_seconds(second))


def paced_seconds(reply: Reply) -> float:
    """The fake server waits `delay_per_chunk` before every event of the stream."""
    return len(openai_events(reply, "fake-model", True)) * reply.delay_per_chunk


class ForkServer:
    """The test's side of `tests.crash.forkserver`: spawn children, kill them, collect exit codes."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.crash.forkserver"],
            cwd=REPO_ROOT,
            env=cli_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None and self.process.stdin is not None
        ready = json.loads(self.process.stdout.readline() or "{}")
        assert ready.get("ready"), "the fork server did not start"
        self._changed = threading.Condition()
        self._pids: dict[int, int] = {}
        self._codes: dict[int, int] = {}
        self._next_id = 0
        self._reader = threading.Thread(target=self._read, name="forkserver-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            message = json.loads(line)
            with self._changed:
                if "id" in message:
                    self._pids[message["id"]] = message["pid"]
                else:
                    self._codes[message["pid"]] = message["code"]
                self._changed.notify_all()

    def spawn(self, argv: list[str], cwd: Path, out: Path, err: Path) -> int:
        with self._changed:
            self._next_id += 1
            request_id = self._next_id
            request = {"id": request_id, "argv": argv, "cwd": str(cwd), "env": cli_env()}
            request |= {"stdout": str(out), "stderr": str(err)}
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            if not self._changed.wait_for(lambda: request_id in self._pids, timeout=20):
                raise AssertionError("the fork server did not start a child")
            return self._pids.pop(request_id)

    def wait(self, pid: int, timeout: float = 30) -> int:
        with self._changed:
            if not self._changed.wait_for(lambda: pid in self._codes, timeout=timeout):
                raise AssertionError(f"child {pid} did not end within {timeout:g}s")
            return self._codes.pop(pid)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


@dataclass
class Home:
    """One home folder, its session and what has been done to it so far."""

    root: Path
    kind: str
    kills: list[int]
    seed: int
    server: FakeLLMServer
    forks: ForkServer
    session_id: str = ""
    completed: list[int] = field(default_factory=list)
    killed: dict[int, KilledTurn] = field(default_factory=dict)
    landed: Counter[str] = field(default_factory=Counter)  # where the kills landed
    runs: int = 0

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.root / "project"

    def where(self, k: int) -> str:
        return f"[home {self.root.name}, {self.kind} turn, round {k}, CRASH_SEED={self.seed}]"

    def argv(self, prompt: str, *flags: str) -> list[str]:
        resume = ["--resume", self.session_id] if self.session_id else []
        base = ["run", prompt, "--home", str(self.home), "--provider", "openai"]
        return [*base, "--base-url", self.server.base_url_openai, *resume, *flags]

    def spawn(self, prompt: str, *flags: str) -> tuple[int, Path, Path]:
        self.runs += 1
        out, err = self.root / f"out{self.runs}.txt", self.root / f"err{self.runs}.txt"
        return self.forks.spawn(self.argv(prompt, *flags), self.project, out, err), out, err

    def complete_turn(self, k: int) -> None:
        """`run --resume` must work: exit 0 with a new answer, which becomes a completed turn."""
        self.server.clear()
        self.server.enqueue(Reply(text=f"answer {k}"))
        pid, out, err = self.spawn(f"verify {k}", "--json")
        code = self.forks.wait(pid)
        assert code == 0, f"{self.where(k)} resume after the kill exited {code}: {err.read_text()}"
        payload = json.loads(out.read_text())
        assert payload["final_response"] == f"answer {k}" and not payload["failed"], self.where(k)
        assert not self.session_id or payload["session_id"] == self.session_id, self.where(k)
        self.session_id = payload["session_id"]
        self.completed.append(k)

    def kill_turn(self, k: int, signum: int, rng: random.Random) -> None:
        turn = KilledTurn.for_round(self.kind, k)
        self.server.clear()
        self.server.enqueue(*turn.steps)
        before = len(self.server.requests)
        flags = ["--yes"] if self.kind == "tool" else []
        pid, _, err = self.spawn(f"killed {k}", *flags)
        poll(lambda: len(self.server.requests) > before, timeout=30, what=f"{self.where(k)} the turn's request")
        time.sleep(rng.uniform(0, turn.floor + FINISHING_TAIL))
        with contextlib.suppress(ProcessLookupError):  # it may have finished and been reaped already
            os.kill(pid, signum)
        code = self.forks.wait(pid)
        self.killed[k] = turn
        finished = self.finished(k)
        expected = {143} if signum == signal.SIGTERM else {-signal.SIGKILL}
        if finished:  # the kill came after the turn's answer was saved: closing may have ended anyway
            expected |= {0, -signal.SIGTERM}
        name = signal.Signals(signum).name
        assert code in expected, f"{self.where(k)} exit {code} after {name}: {err.read_text()}"
        self.check(k, terminated=code == 143, finished=finished)

    def finished(self, k: int) -> bool:
        """Whether killed turn `k` got to store its final answer, complete."""
        answer = self.killed[k].texts[-1]
        rows = stored(self.home, self.session_id)
        return any(r["role"] == "assistant" and r["content"] == answer and r["finish_reason"] == "stop" for r in rows)

    def note_landing(self, k: int) -> None:
        rows = stored(self.home, self.session_id)
        at = next(i for i, r in enumerate(rows) if r["role"] == "user" and r["content"] == f"killed {k}")
        turn = rows[at + 1 :]
        if self.finished(k):
            self.landed["finished"] += 1
        elif any(r["finish_reason"] == "interrupted" for r in turn):
            self.landed["mid-answer"] += 1
        elif any(r["role"] == "tool" for r in turn):
            self.landed["tool"] += 1
        else:
            self.landed["before any text"] += 1

    def check(self, k: int, *, terminated: bool, finished: bool) -> None:
        where = self.where(k)
        assert integrity(self.home) == "ok", where
        rows = stored(self.home, self.session_id)
        prompts = Counter(r["content"] for r in rows if r["role"] == "user")
        for j in self.completed:
            assert prompts[f"verify {j}"] == 1, f"{where} completed turn {j} lost or doubled: {prompts}"
            at = next(i for i, r in enumerate(rows) if r["role"] == "user" and r["content"] == f"verify {j}")
            after = rows[at + 1] if at + 1 < len(rows) else {}
            assert (after.get("role"), after.get("content")) == ("assistant", f"answer {j}"), where
        for j in self.killed:
            assert prompts[f"killed {j}"] == 1, f"{where} the prompt of killed turn {j} is missing or doubled"
        self._check_answers(rows, where)
        self._check_tool_calls(rows, where)
        session = session_row(self.home, self.session_id)
        assert session["message_count"] == len(rows), f"{where} message_count is off"  # nothing is rewound here
        calls = sum(len(json.loads(r["tool_calls"])) for r in rows if r["tool_calls"] and r["role"] != "tool")
        assert session["tool_call_count"] == calls, f"{where} tool_call_count is off"
        if terminated:  # a SIGTERM after the session was closed normally leaves the normal reason
            reasons = {"sigterm", "cli_close"} if finished else {"sigterm"}
            assert session["end_reason"] in reasons, f"{where} end reason {session['end_reason']!r}"
        self.note_landing(k)

    def _check_answers(self, rows: list[dict[str, Any]], where: str) -> None:
        """Every assistant row is a completed answer, or (part of) what a killed turn streamed.

        A part is marked interrupted; a row that is not is a message the turn finished in full.
        """
        answers = {f"answer {j}" for j in self.completed}
        streamed = [text for turn in self.killed.values() for text in turn.texts]
        for row in rows:
            if row["role"] != "assistant" or row["content"] in answers:
                continue
            content = row["content"] or ""
            assert any(text.startswith(content) for text in streamed), f"{where} unexpected answer {content[:60]!r}"
            if row["finish_reason"] != "interrupted":
                assert content in streamed, f"{where} a partial answer not marked interrupted: {content[:60]!r}"

    def _check_tool_calls(self, rows: list[dict[str, Any]], where: str) -> None:
        results = Counter(r["tool_call_id"] for r in rows if r["role"] == "tool")
        for row in rows:
            for call in json.loads(row["tool_calls"]) if row["tool_calls"] and row["role"] == "assistant" else []:
                assert results[call["id"]] == 1, f"{where} tool call {call['id']} has {results[call['id']]} results"


def storm(root: Path, kind: str, kills: list[int], seed: int, forks: ForkServer) -> Home:
    rng = random.Random(seed)
    (root / "project").mkdir(parents=True)
    with FakeLLMServer() as server:
        home = Home(root, kind, kills, seed, server, forks)
        home.complete_turn(0)
        for k, signum in enumerate(kills, start=1):
            home.kill_turn(k, signum, rng)
            home.complete_turn(k)
        # The last word goes to a fresh `python -m hermes_tui` process, not a fork.
        server.clear()
        server.enqueue(Reply(text="still here"))
        final = run_cli(home.home, server.base_url_openai, "final", "--resume", home.session_id, cwd=home.project)
        assert final.returncode == 0 and "still here" in final.stdout, f"{home.where(len(kills))} {final.stderr}"
    return home


def test_kills_at_random_points_lose_nothing(tmp_path: Path) -> None:
    base_seed = int(os.environ.get("CRASH_SEED", str(time.time_ns() % 1_000_000_007)))
    plan: list[tuple[str, list[int]]] = []
    for kind in ("stream", "tool"):
        kills = [signal.SIGKILL] * KILLS_PER_KIND + [signal.SIGTERM] * KILLS_PER_KIND
        random.Random(f"{base_seed}-{kind}").shuffle(kills)
        share = len(kills) // HOMES_PER_TURN_KIND
        plan += [(kind, kills[i * share : (i + 1) * share]) for i in range(HOMES_PER_TURN_KIND)]
    forks = ForkServer()
    try:
        with ThreadPoolExecutor(max_workers=len(plan)) as pool:
            futures = [
                pool.submit(storm, tmp_path / f"{kind}{i}", kind, kills, base_seed + i, forks)
                for i, (kind, kills) in enumerate(plan)
            ]
            homes = [future.result() for future in futures]
    finally:
        forks.close()
    for kind in ("stream", "tool"):
        landed = sum((home.landed for home in homes if home.kind == kind), Counter())
        assert landed["mid-answer"] >= MIN_MID_ANSWER_KILLS, f"{kind} kills rarely hit a saved answer: {landed}"
    done = Counter((home.kind, signum) for home in homes for signum in home.kills)
    assert done == {
        ("stream", signal.SIGKILL): KILLS_PER_KIND,
        ("stream", signal.SIGTERM): KILLS_PER_KIND,
        ("tool", signal.SIGKILL): KILLS_PER_KIND,
        ("tool", signal.SIGTERM): KILLS_PER_KIND,
    }
