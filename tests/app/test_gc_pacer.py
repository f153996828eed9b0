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
    for _ in range(49):  # keys every 0.1 s for 4.9 s, each drawn
        pacer.note_input()
        pacer.note_echo(pacer.keys)
        assert not pacer.tick()
        clock.now += 0.1
    clock.now += 0.2
    pacer.note_input()
    pacer.note_echo(pacer.keys)
    assert pacer.tick()
    assert pacer.collections == 1 and pacer.longest_s >= 0.0


class FullCollectionCounter:
    """Counts the full collections the interpreter runs (gc.callbacks), whoever starts them."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info.get("generation") == 2:
            self.count += 1

    def __enter__(self) -> FullCollectionCounter:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)


def test_no_collection_runs_between_a_key_and_its_frame_even_past_the_longest_delay(
    pacer: GcPacer, clock: Clock
) -> None:
    with FullCollectionCounter() as full:
        for _ in range(60):  # keys every 0.1 s for 6 s (past max_delay_s), none drawn yet
            pacer.note_input()
            assert not pacer.tick()
            clock.now += 0.1
        assert full.count == 0 and pacer.held_for_input > 0
        pacer.note_echo(pacer.keys)  # the frame showing them is drawn
        assert pacer.tick()
        assert full.count == 1 and pacer.collections == 1


@pytest.fixture
def patient(clock: Clock) -> Iterator[GcPacer]:
    pacer = GcPacer(quiet_s=0.5, max_delay_s=5.0, echo_wait_s=1.0, due_after=0, clock=clock)
    pacer.start()
    try:
        yield pacer
    finally:
        pacer.stop()


def test_a_key_that_never_echoes_stops_holding_collections_back(patient: GcPacer, clock: Clock) -> None:
    patient.note_input()  # an arrow key: no text changes, no echo is reported
    clock.now += 0.6  # a pause in typing, but the key may still be on its way
    assert not patient.tick() and patient.held_for_input == 1
    clock.now += 0.5  # past echo_wait_s
    assert patient.tick() and patient.collections == 1


def test_mouse_input_does_not_hold_collections_back(patient: GcPacer, clock: Clock) -> None:
    patient.note_input(is_key=False)
    clock.now += 0.6
    assert not patient.input_pending
    assert patient.tick() and patient.collections == 1


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


def test_the_heap_is_trimmed_once_start_up_settled_and_never_in_front_of_a_key(clock: Clock) -> None:
    trims: list[float] = []
    pacer = GcPacer(
        quiet_s=0.5,
        echo_wait_s=1.0,
        due_after=NEVER,
        clock=clock,
        trim=lambda: trims.append(clock.now),
        trim_after_start_s=2.0,
    )
    pacer.tick()
    assert trims == []  # not started: start-up is still allocating
    pacer.start()
    try:
        clock.now += 1.0
        pacer.tick()
        assert trims == []  # quiet, but the reads that follow start-up may still run
        clock.now += 1.0
        pacer.note_input()  # a key, its frame not drawn yet
        clock.now += 0.2
        pacer.tick()
        assert trims == []  # typing: not now
        clock.now += 0.4  # quiet for 0.6 s, but the key still waits for its frame
        pacer.tick()
        assert trims == []
        pacer.note_echo(pacer.keys)
        pacer.tick()
        assert trims == [clock.now] and pacer.trims == 1
        clock.now += 60
        pacer.tick()
        assert pacer.trims == 1  # once after start, then only after paced collections
    finally:
        pacer.stop()


def test_a_paced_collection_makes_a_trim_due_at_most_every_trim_every_s(clock: Clock) -> None:
    pacer = GcPacer(quiet_s=0.5, due_after=0, clock=clock, trim=lambda: None, trim_every_s=30.0, trim_after_start_s=0.0)
    pacer.start()
    try:
        clock.now += 1
        assert pacer.tick()  # the collection (always due here)
        pacer.due_after = NEVER
        pacer.tick()
        assert pacer.trims == 1  # the start-up trim, at the tick after the collection
        pacer.due_after = 0
        clock.now += 1
        assert pacer.tick()
        pacer.due_after = NEVER
        pacer.tick()
        assert pacer.trims == 1  # 1 s after the last trim: not again yet
        pacer.due_after = 0
        clock.now += 30
        assert pacer.tick()
        pacer.due_after = NEVER
        pacer.tick()
        assert pacer.trims == 2
    finally:
        pacer.stop()


def test_trim_heap_hands_freed_pages_back_on_linux() -> None:
    import sys

    from hermes_tui.heap_trim import trim_heap

    def rss_kb() -> int:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))

    if not sys.platform.startswith("linux"):
        assert trim_heap() is False
        return
    blocks = [bytearray(100_000) for _ in range(400)]  # 40 MB in blocks malloc keeps in its heap
    for block in blocks[:-1]:
        block[0] = 1
    del blocks[:-1]  # freed, but the last block keeps the heap's top where it was
    before = rss_kb()
    assert trim_heap() is True
    assert rss_kb() < before - 20_000  # most of the 40 MB went back to the system
    del blocks


def test_a_trim_that_says_not_now_stays_due_until_it_can_run(clock: Clock) -> None:
    busy = [True]
    pacer = GcPacer(quiet_s=0.5, due_after=NEVER, clock=clock, trim=lambda: not busy[0], trim_after_start_s=0.0)
    pacer.start()
    try:
        clock.now += 1
        pacer.tick()
        assert pacer.trims == 0  # a turn runs: not now
        busy[0] = False
        clock.now += 1
        pacer.tick()
        assert pacer.trims == 1
    finally:
        pacer.stop()
