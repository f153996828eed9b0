"""The store bench's generated sessions all lie in the past, at every size it is run with."""

from __future__ import annotations

import random

import pytest

from bench import store_bench


@pytest.mark.parametrize("sessions", [10_000, 20_000])
def test_every_written_timestamp_is_before_now(sessions: int) -> None:
    now = 1_800_000_000.0
    plan = store_bench._plan_sessions(random.Random(store_bench.SEED), sessions, 1_000_000, now=now)
    assert len(plan) == sessions
    assert max(store_bench.last_moment(row) for row in plan) <= now - store_bench.LATEST_AGO_S
    first_gap_s = 3000  # the largest gap before a session
    assert min(row["started_at"] for row in plan) <= now - store_bench.PLAN_START_AGO_S + first_gap_s


def test_ids_carry_their_start_date_and_parents_follow_them() -> None:
    plan = store_bench._plan_sessions(random.Random(store_bench.SEED), 2_000, 100_000, now=1_800_000_000.0)
    ids = {row["id"] for row in plan}
    assert all(row["parent"] in ids for row in plan if row["parent"] is not None)
    assert all(row["id"][:8].isdigit() and row["id"][15] == "_" for row in plan)
