"""HTTP error answers through a real turn: which are retried, which fail at once, and what the user reads."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime

import pytest

from hermes_tui.core import events as ev
from hermes_tui.core.agent import TurnResult
from hermes_tui.store.db import SessionDB
from tests.core.helpers import wait_until
from tests.fake_llm import Fail, Raw, Reply
from tests.faults.helpers import BOTH, PROMPT, Harness
from tests.waits import guard

# (status, message, words the user must read in the error) for answers that must not be retried
FATAL = [
    (400, "Unrecognized request argument supplied: frobnicate", ["format_error", "frobnicate"]),
    (401, "Incorrect API key provided", ["auth", "check the API key"]),
    (402, "Insufficient credits on this account", ["billing", "credits"]),
    (403, "Your organisation may not use this model", ["auth", "may not use this model"]),
    (
        404,
        "The model `gpt-nine` does not exist or you do not have access to it.",
        ["model_not_found", "check the model name"],
    ),
]


@pytest.mark.parametrize("protocol", BOTH)
@pytest.mark.parametrize(("status", "message", "words"), FATAL, ids=[str(case[0]) for case in FATAL])
async def test_client_errors_fail_at_once_and_name_the_cause(
    harness: Harness, protocol: str, status: int, message: str, words: list[str]
) -> None:
    run = await harness.run(protocol, Fail(status, message), Reply(text="never reached"))
    run.assert_failed(*words)
    assert len(run.requests) == 1, "a client error is not retried"
    assert run.roles == ["user"]


@pytest.mark.parametrize("protocol", BOTH)
@pytest.mark.parametrize("status", [408, 500, 502, 503, 504, 529])
async def test_transient_statuses_are_retried_until_the_answer_comes(
    harness: Harness, protocol: str, status: int
) -> None:
    run = await harness.run(protocol, Fail(status, "upstream trouble"), Reply(text="Here it is."))
    run.assert_answered("Here it is.")
    assert len(run.requests) == 2 and len(run.retries) == 1
    assert run.roles == ["user", "assistant"]


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_server_error_on_every_attempt_fails_after_the_retries(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, *[Fail(500, "database on fire")] * 4)
    run.assert_failed("after 3 retries", "database on fire")
    assert len(run.requests) == 3 and len(run.retries) == 2


HTML_502 = (
    b"<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n"
    b"<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n"
)


@pytest.mark.parametrize("protocol", BOTH)
async def test_an_html_error_page_is_retried_and_reported_by_its_title(harness: Harness, protocol: str) -> None:
    page = Raw(502, {"Content-Type": "text/html"}, HTML_502)
    run = await harness.run(protocol, page, page, page)
    run.assert_failed("after 3 retries", "502 Bad Gateway")
    assert "<" not in run.result.error, "no markup reaches the user"
    assert len(run.requests) == 3


# --------------------------------------------------------------------------- 413 and 429


@pytest.mark.parametrize("protocol", BOTH)
async def test_payload_too_large_on_a_tiny_conversation_fails_without_looping(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, *[Fail(413, "Request Entity Too Large")] * 5)
    run.assert_failed("too large")
    assert len(run.requests) <= 4, "compression cannot help here: it must stop, not loop"


def rate_limited(retry_after: str) -> Fail:
    return Fail(
        429, "Rate limit reached for requests", code="rate_limit_exceeded", headers={"Retry-After": retry_after}
    )


@pytest.mark.parametrize("protocol", BOTH)
async def test_retry_after_in_seconds_is_honoured(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, rate_limited("1"), Reply(text="After the pause."))
    run.assert_answered("After the pause.")
    assert run.retries and "retrying in 1.0s" in run.retries[0]


def announced_wait(notice: str) -> float:
    """The seconds a retry notice ("… retrying in 1.5s (1/3)") says the turn waits."""
    return float(notice.split("retrying in ")[1].split("s")[0])


async def first_retry_notice(
    harness: Harness, protocol: str, retry_after: str
) -> tuple[str, asyncio.Task[TurnResult], SessionDB]:
    """Start a turn whose first answer is a 429 with `retry_after`: (its retry notice once shown, the
    turn's task, the session database)."""
    harness.server.enqueue(rate_limited(retry_after))
    agent, db, log = await harness.agent(protocol)
    task = asyncio.create_task(agent.run_conversation(PROMPT))
    await wait_until(lambda: any("retrying" in s.text for s in log.of(ev.Status)), what="the retry notice")
    return next(s.text for s in log.of(ev.Status) if "retrying" in s.text), task, db


async def cancelled(task: asyncio.Task[TurnResult]) -> TurnResult:
    """Cancel a waiting turn: its result, which must say it was interrupted."""
    task.cancel()
    result = await asyncio.wait_for(task, guard(5))
    assert result.interrupted and not result.completed
    return result


@pytest.mark.parametrize("protocol", BOTH)
async def test_retry_after_as_an_http_date_is_honoured(harness: Harness, protocol: str) -> None:
    # A date a minute ahead: the wait announced is that date less the moment the error was read,
    # which lies between the turn's start and the moment the notice was seen. The bracket is read
    # from the clock but holds on any machine, however slow; the normal back-off (under a second)
    # falls far outside it. The turn is then cancelled instead of waiting the minute out.
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=60), usegmt=True)
    date = parsedate_to_datetime(when)
    started = datetime.now(UTC)
    notice, task, _db = await first_retry_notice(harness, protocol, when)
    seen = datetime.now(UTC)
    rounding = 0.05  # the notice shows one decimal
    latest, earliest = (date - started).total_seconds(), (date - seen).total_seconds()
    assert earliest - rounding <= announced_wait(notice) <= latest + rounding, f"the date was not obeyed: {notice}"
    await cancelled(task)


@pytest.mark.parametrize("protocol", BOTH)
@pytest.mark.parametrize("value", ["-30", "soon", "nan", "Thu, 99 Foo 2024 99:99:99 GMT", ""])
async def test_absurd_retry_after_falls_back_to_the_normal_backoff(harness: Harness, protocol: str, value: str) -> None:
    run = await harness.run(protocol, rate_limited(value), Reply(text="Backed off."))
    run.assert_answered("Backed off.")
    assert announced_wait(run.retries[0]) < 1.0, f"Retry-After {value!r} must not be obeyed: {run.retries}"


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_huge_retry_after_is_capped_and_the_wait_can_be_interrupted(harness: Harness, protocol: str) -> None:
    notice, task, db = await first_retry_notice(harness, protocol, "999999")
    assert "retrying in 120.0s" in notice, "a day-long Retry-After is capped at two minutes"
    result = await cancelled(task)
    stored = await db.get_messages(result.session_id)
    assert [(r["role"], r["content"]) for r in stored] == [("user", PROMPT)]


@pytest.mark.parametrize("protocol", BOTH)
async def test_rate_limit_on_every_attempt_fails_naming_the_rate_limit(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, *[rate_limited("0")] * 3)
    run.assert_failed("after 3 retries", "rate limit")
    assert len(run.requests) == 3
