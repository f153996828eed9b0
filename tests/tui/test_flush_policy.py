"""FlushPolicy and PendingText: streaming flushes give way to a late loop and to keys, and lose no text."""

from __future__ import annotations

import random

from hermes_tui.widgets.flush_policy import FlushPolicy, PendingText


class Clocks:
    """Wall time and the loop thread's CPU time, moved by hand."""

    def __init__(self) -> None:
        self.wall = 50.0
        self.cpu = 3.0

    def run(self, wall: float, busy: float) -> None:
        """`wall` seconds pass, the loop's thread busy for `busy` of them."""
        self.wall += wall
        self.cpu += wall * busy


def policy(clocks: Clocks, **kwargs: float) -> FlushPolicy:
    return FlushPolicy(clock=lambda: clocks.wall, cpu_clock=lambda: clocks.cpu, **kwargs)


def flush_on_time(p: FlushPolicy, clocks: Clocks, busy: float, late: float = 0.0) -> None:
    """One period: the timer set for `delay_s` fires `late` seconds late, then the flush starts."""
    due = clocks.wall + p.delay_s
    clocks.run(p.delay_s + late, busy)
    assert p.when_due(due) == 0.0
    p.flushed()


def test_a_late_loop_widens_the_interval_up_to_the_slowest_rate() -> None:
    clocks = Clocks()
    p = policy(clocks, min_interval_s=0.03, max_interval_s=0.5, late_s=0.02)
    flush_on_time(p, clocks, busy=0.1)
    assert p.interval_s == 0.03
    intervals = []
    for _ in range(12):
        flush_on_time(p, clocks, busy=0.1, late=0.1)  # the machine is busy elsewhere: timers fire late
        intervals.append(p.interval_s)
    assert intervals == sorted(intervals) and intervals[0] > 0.03
    assert intervals[-1] == 0.5 and p.widened >= 6


def test_a_busy_loop_widens_the_interval_and_a_quiet_one_narrows_it_back() -> None:
    clocks = Clocks()
    p = policy(clocks, min_interval_s=0.03, max_interval_s=0.5, busy_share=0.5)
    flush_on_time(p, clocks, busy=0.2)
    for _ in range(5):
        flush_on_time(p, clocks, busy=0.9)  # rendering and reading take the whole loop
    wide = p.interval_s
    assert wide > 0.1
    for _ in range(40):
        flush_on_time(p, clocks, busy=0.1)
    assert p.interval_s == 0.03 < wide


def test_a_key_waiting_defers_the_flush_for_its_frame_and_keeps_the_interval_from_narrowing() -> None:
    clocks = Clocks()
    p = policy(clocks, min_interval_s=0.03, key_frame_s=0.01)
    flush_on_time(p, clocks, busy=0.9)
    flush_on_time(p, clocks, busy=0.9)
    widened = p.interval_s
    due = clocks.wall + p.delay_s
    clocks.run(p.delay_s, 0.1)
    p.note_key()
    assert p.when_due(due) == 0.01 and p.deferred == 1  # the key's frame first
    clocks.run(0.01, 0.1)
    assert p.when_due(due + 0.01) == 0.0  # then the flush
    p.flushed()
    assert p.interval_s == widened  # quiet, but the user types: no faster flushes


def test_an_expensive_flush_spaces_the_next_by_its_cost() -> None:
    clocks = Clocks()
    p = policy(clocks, min_interval_s=0.03, render_share=0.25)
    p.note_cost(0.05)
    assert p.delay_s == 0.2
    p.note_cost(0.001)
    assert p.delay_s == 0.03


def test_a_new_answer_starts_at_the_fastest_rate() -> None:
    clocks = Clocks()
    p = policy(clocks, min_interval_s=0.03)
    flush_on_time(p, clocks, busy=0.1)
    for _ in range(5):
        flush_on_time(p, clocks, busy=0.1, late=0.2)
    assert p.interval_s > 0.03
    p.restart()
    assert p.interval_s == 0.03


def test_coarsened_flushes_hand_over_every_delta_in_order() -> None:
    """A simulated stream: deltas every millisecond, the loop late and keys arriving at random;
    what the flushes hand over, joined, is exactly what was streamed."""
    rng = random.Random(23)
    clocks = Clocks()
    p = policy(clocks)
    pending = PendingText()
    streamed, shown = [], []
    due = clocks.wall + p.delay_s
    for index in range(20_000):
        delta = f"<{index}>" if index % 7 else ""  # empty deltas too
        streamed.append(delta)
        pending.add(delta)
        clocks.run(0.001, rng.random())
        if rng.random() < 0.01:
            p.note_key()
        if clocks.wall >= due:
            clocks.run(rng.choice([0.0, 0.0, 0.05, 0.3]), 0.5)  # sometimes the timer fires late
            wait = p.when_due(due)
            if wait:
                due = clocks.wall + wait
                continue
            p.flushed()
            shown.append(pending.take())
            assert not pending
            due = clocks.wall + p.delay_s
    shown.append(pending.take())  # the answer ends: what is left goes too
    assert "".join(shown) == "".join(streamed)
    assert p.widened > 0 and p.deferred > 0
    assert len(shown) < 20_000 / 30  # coarser than one flush per 30 deltas
