"""GcPacer: full garbage collections wait for a pause in typing, but never forever."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from hermes_tui.gc_pacer import NEVER, GcPacer


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def pacer(clock: Clock) -> Iterator[GcPacer]:
    # due_after=0: a full collection is always due, so only the timing rules decide
    pacer = GcPacer(quiet_s=0.5, max_delay_s=5.0, due_after=0, clock=clock)
    pacer.start()
    try:
        yield pacer
    finally:
        pacer.stop()


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_start_freezes_what_is_alive_and_takes_over_full_collections(pacer: GcPacer) -> None:
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[2] == NEVER
    pacer.stop()
    assert gc.get_freeze_count() == 0 and gc.get_threshold()[2] != NEVER


def test_a_due_collection_waits_while_the_user_types_and_runs_in_a_pause(pacer: GcPacer, clock: Clock) -> None:
    pacer.note_input()
    clock.now += 0.2
    assert not pacer.tick()
    pacer.note_input()
    clock.now += 0.4
    assert not pacer.tick() and pacer.collections == 0
    first, second = Node(), Node()
    first.other, second.other = second, first
    probe = weakref.ref(first)
    del first, second
    assert probe() is not None  # a cycle: reference counting alone never frees it
    clock.now += 0.2  # 0.6 s since the last key
    assert pacer.tick() and pacer.collections == 1
    assert probe() is None  # the cycle was collected


def test_a_collection_runs_anyway_once_it_waited_the_longest_delay(pacer: GcPacer, clock: Clock) -> None:
    for _ in range(49):  # keys every 0.1 s for 4.9 s
        pacer.note_input()
        assert not pacer.tick()
        clock.now += 0.1
    clock.now += 0.2
    pacer.note_input()
    assert pacer.tick()
    assert pacer.collections == 1 and pacer.longest_s >= 0.0


def test_nothing_happens_before_start(clock: Clock) -> None:
    pacer = GcPacer(quiet_s=0.0, due_after=0, clock=clock)
    threshold = gc.get_threshold()
    assert not pacer.tick()
    pacer.stop()
    assert gc.get_threshold() == threshold


def test_a_due_collection_runs_right_after_a_key_is_drawn_even_while_typing(pacer: GcPacer, clock: Clock) -> None:
    pacer.note_input()  # the user is typing: no pause, and nowhere near the longest delay
    assert not pacer.tick()
    first, second = Node(), Node()
    first.other, second.other = second, first
    probe = weakref.ref(first)
    del first, second
    assert pacer.after_echo() and pacer.collections == 1
    assert probe() is None


def test_after_echo_leaves_the_collection_to_the_next_key_when_one_came_meanwhile(pacer: GcPacer) -> None:
    pacer.note_input()
    echoed = pacer.inputs  # the key whose echo was just drawn
    pacer.note_input()  # the next key, typed while that frame was drawn, is waiting
    assert not pacer.after_echo(echoed) and pacer.collections == 0
    assert pacer.after_echo(pacer.inputs) and pacer.collections == 1  # the next key's echo collects


def test_after_echo_does_nothing_when_no_collection_is_due(clock: Clock) -> None:
    pacer = GcPacer(quiet_s=0.5, max_delay_s=5.0, due_after=NEVER, clock=clock)
    assert not pacer.after_echo()  # not started
    pacer.start()
    try:
        assert not pacer.after_echo() and pacer.collections == 0
    finally:
        pacer.stop()


def test_hold_turns_full_collections_off_until_stop_even_without_start(clock: Clock) -> None:
    threshold = gc.get_threshold()
    pacer = GcPacer(clock=clock)
    pacer.hold()
    assert gc.get_threshold()[2] == NEVER and gc.get_freeze_count() == 0  # nothing frozen yet
    pacer.start()
    assert gc.get_freeze_count() > 0
    pacer.stop()
    assert gc.get_threshold() == threshold and gc.get_freeze_count() == 0
    pacer.hold()
    pacer.stop()  # held, never started
    assert gc.get_threshold() == threshold
