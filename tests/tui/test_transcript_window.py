"""TranscriptWindow on its own: which items are shown as the conversation grows, pages and rebuilds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_tui.widgets.transcript import KIND_ASSISTANT, KIND_TOOL, KIND_USER, TranscriptItem
from hermes_tui.widgets.transcript_window import TranscriptWindow


def users(count: int, start: int = 0) -> list[TranscriptItem]:
    return [TranscriptItem(kind=KIND_USER, text=f"message {index}") for index in range(start, start + count)]


def texts(items: list[TranscriptItem]) -> list[str]:
    return [item.text for item in items]


def window_with(count: int, *, window_size: int = 10, history_window: int = 4, page_size: int = 3) -> TranscriptWindow:
    window = TranscriptWindow(window_size=window_size, history_window=history_window, page_size=page_size)
    window.replace(users(count))
    window.reset_to_latest()
    return window


def test_sizes_are_clamped_to_sensible_bounds() -> None:
    window = TranscriptWindow(window_size=0, history_window=50, page_size=0)
    assert (window.window_size, window.history_window, window.page_size) == (2, 2, 1)


def test_new_items_join_while_following_and_the_oldest_leave_past_the_window_size() -> None:
    window = TranscriptWindow(window_size=3, history_window=3, page_size=2)
    for item in users(3):
        assert window.append(item, following=True)
        assert window.trim_top() == []
    fourth = users(1, start=3)[0]
    assert window.append(fourth, following=True)
    left = window.trim_top()
    assert texts(left) == ["message 0"]
    assert texts(window.shown) == ["message 1", "message 2", "message 3"]
    assert (window.earlier_count, window.later_count, window.at_latest) == (1, 0, True)


def test_a_full_window_read_from_above_keeps_new_items_as_data() -> None:
    window = TranscriptWindow(window_size=3, history_window=3, page_size=2)
    for item in users(3):
        window.append(item, following=True)
    extra = users(1, start=3)[0]
    assert not window.append(extra, following=False)
    assert texts(window.shown) == ["message 0", "message 1", "message 2"]
    assert window.later_count == 1 and not window.at_latest
    assert window.items[-1] is extra


def test_a_window_with_room_takes_new_items_even_when_not_following() -> None:
    window = TranscriptWindow(window_size=3, history_window=3, page_size=2)
    first, second = users(2)
    window.append(first, following=True)
    assert window.append(second, following=False)
    assert window.shown == [first, second]


def test_items_arriving_during_a_rebuild_wait_as_data() -> None:
    window = window_with(6)
    window.rebuilding = True
    assert not window.append(users(1, start=6)[0], following=True)
    assert window.later_count == 1
    window.rebuilding = False
    assert texts(window.reset_to_latest()) == ["message 3", "message 4", "message 5", "message 6"]
    assert window.at_latest


def test_reset_shows_only_the_last_history_window_items() -> None:
    window = window_with(20)
    assert texts(window.shown) == ["message 16", "message 17", "message 18", "message 19"]
    assert (window.earlier_count, window.later_count) == (16, 0)
    short = window_with(2)
    assert texts(short.shown) == ["message 0", "message 1"] and short.earlier_count == 0


def test_paging_earlier_reaches_the_first_message_and_trims_the_bottom_to_the_window() -> None:
    window = window_with(20)  # shows 16..19, window 10, page 3
    seen: list[str] = []
    while window.earlier_count:
        top_before = window.first_shown
        joined = window.page_earlier()
        assert joined and joined[-1] is not top_before
        assert window.items[window.first + len(joined)] is top_before
        window.trim_bottom()
        assert window.size <= window.window_size
        seen = texts(joined) + seen
    assert window.first == 0 and window.first_shown is window.items[0]
    assert seen == [f"message {index}" for index in range(16)]
    assert window.later_count == 10 and not window.at_latest


def test_appending_while_browsing_back_keeps_the_item_as_data() -> None:
    window = window_with(20)  # shows 16..19; three pages of 3 push 17..19 out of a window of 10
    for _ in range(3):
        window.page_earlier()
        dropped = window.trim_bottom()
    assert texts(dropped) == ["message 17", "message 18", "message 19"]
    assert texts(window.shown) == [f"message {index}" for index in range(7, 17)] and not window.at_latest
    later_before = window.later_count
    assert not window.append(users(1, start=20)[0], following=True)
    assert window.later_count == later_before + 1


def test_paging_later_commits_only_on_extend_and_drops_from_the_top() -> None:
    window = window_with(30, window_size=6, history_window=4, page_size=4)
    for _ in range(4):
        window.page_earlier()
        window.trim_bottom()
    assert texts(window.shown)[0] == "message 10" and window.size == 6
    end, page = window.next_later_page()
    assert texts(page) == ["message 16", "message 17", "message 18", "message 19"]
    assert window.end == 16  # not part of the window until extend_to
    appended = users(1, start=30)[0]
    window.append(appended, following=True)  # arrives mid-mount: stays data
    gone = window.extend_to(end)
    assert texts(gone) == ["message 10", "message 11", "message 12", "message 13"]
    assert texts(window.shown) == [f"message {index}" for index in range(14, 20)]
    while not window.at_latest:
        end, _page = window.next_later_page()
        window.extend_to(end)
        assert window.size <= window.window_size
    assert window.last_shown is appended


def test_grow_upward_fills_room_without_passing_the_window_size() -> None:
    window = window_with(20, window_size=6, history_window=2, page_size=3)
    assert texts(window.grow_upward()) == ["message 15", "message 16", "message 17"]
    assert texts(window.grow_upward()) == ["message 14"]  # only one row of room left
    assert window.size == 6 and not window.can_grow_upward
    assert window.grow_upward() == []


def test_removing_an_item_keeps_the_window_on_the_same_items() -> None:
    window = window_with(10)  # shows 6..9
    shown_before = window.shown
    above = window.items[2]
    assert window.remove(above) is False
    assert window.shown == shown_before and window.earlier_count == 5
    inside = shown_before[1]
    assert window.remove(inside) is True
    assert window.shown == [shown_before[0], *shown_before[2:]]


def test_tool_items_are_found_by_call_id_until_replaced_or_removed() -> None:
    window = TranscriptWindow(window_size=5, history_window=5, page_size=5)
    card = TranscriptItem(kind=KIND_TOOL, call_id="call_1", name="terminal")
    window.append(card, following=True)
    window.append(TranscriptItem(kind=KIND_ASSISTANT, text="done"), following=True)
    assert window.tool("call_1") is card and window.tool("call_2") is None
    window.remove(card)
    assert window.tool("call_1") is None
    replacement = TranscriptItem(kind=KIND_TOOL, call_id="call_2", name="read_file")
    window.replace([replacement])
    assert window.tool("call_2") is replacement


OPERATIONS = st.lists(
    st.sampled_from(["append", "append_reading", "earlier", "later", "grow", "reset", "remove"]), max_size=60
)


def move(window: TranscriptWindow, operation: str) -> None:
    """What the user does to the window other than a new message arriving."""
    if operation == "earlier":
        window.page_earlier()
        window.trim_bottom()
    elif operation == "later":
        end, _page = window.next_later_page()
        window.extend_to(end)
    elif operation == "grow":
        window.grow_upward()
    elif operation == "reset":
        window.reset_to_latest()
    elif operation == "remove" and window.items:
        window.remove(window.items[len(window.items) // 2])


@settings(max_examples=200, deadline=None)
@given(
    operations=OPERATIONS,
    window_size=st.integers(2, 8),
    history_window=st.integers(1, 8),
    page_size=st.integers(1, 8),
    initial=st.integers(0, 30),
)
def test_the_window_stays_a_bounded_slice_whatever_the_user_does(
    operations: list[str], window_size: int, history_window: int, page_size: int, initial: int
) -> None:
    window = TranscriptWindow(window_size=window_size, history_window=history_window, page_size=page_size)
    window.replace(users(initial))
    window.reset_to_latest()
    counter = initial
    for operation in operations:
        if operation in ("append", "append_reading"):
            following = operation == "append"
            size_before = window.size
            joined = window.append(users(1, start=counter)[0], following=following)
            counter += 1
            if joined and following:
                window.trim_top()
            if joined and not following:
                assert size_before < window.window_size
        else:
            move(window, operation)
        assert 0 <= window.first <= window.end <= len(window.items)
        assert window.size <= window.window_size
        assert window.earlier_count + window.size + window.later_count == len(window.items)


def sized(sizes: list[int]) -> list[TranscriptItem]:
    return [TranscriptItem(kind=KIND_USER, text=f"{index}:" + "x" * size) for index, size in enumerate(sizes)]


def weighted_window(sizes: list[int], budget: int = 100) -> TranscriptWindow:
    window = TranscriptWindow(
        window_size=50, history_window=20, page_size=10, weight_budget=budget, weigh=lambda item: len(item.text)
    )
    window.replace(sized(sizes))
    window.reset_to_latest()
    return window


def test_a_rebuild_shows_the_latest_items_within_half_the_weight_budget() -> None:
    window = weighted_window([10] * 30 + [20, 20])  # weights 13 each, then 23 and 23
    assert window.size == 2 and window.weight(window.first, window.end) == 46  # a third row would pass 50
    huge = weighted_window([10, 10, 5_000])
    assert huge.shown == [huge.items[-1]]  # at least the newest, however heavy
    assert huge.earlier_count == 2


def test_paging_earlier_and_later_stop_at_the_page_budget_and_the_window_at_the_budget() -> None:
    window = weighted_window([20] * 40)  # 22 each: two rows per rebuild (44 <= 50)
    assert window.size == 2
    joined = window.page_earlier()
    assert len(joined) == 2  # a page of 10 rows would weigh 220
    window.trim_bottom()
    assert window.weight(window.first, window.end) <= 100
    for _ in range(3):
        window.page_earlier()
        window.trim_bottom()
    assert window.weight(window.first, window.end) <= 100 and not window.at_latest
    end, page = window.next_later_page()
    assert len(page) == 2 and end == window.end + 2


def test_following_the_bottom_drops_the_oldest_rows_past_the_weight_budget() -> None:
    window = weighted_window([20] * 4)  # 2 shown, 44
    for item in sized([20, 20, 20]):
        assert window.append(item, following=True)
        window.trim_top()
    assert window.size == 4 and window.weight(window.first, window.end) == 88
    heavy = sized([500])[0]
    assert window.append(heavy, following=True)
    window.trim_top()
    assert window.shown == [heavy]


@settings(max_examples=150, deadline=None)
@given(
    operations=OPERATIONS,
    sizes=st.lists(st.integers(0, 80), min_size=0, max_size=40),
    budget=st.integers(20, 200),
)
def test_the_window_stays_within_its_weight_budget_whatever_the_user_does(
    operations: list[str], sizes: list[int], budget: int
) -> None:
    window = weighted_window(sizes, budget)
    heaviest = 82
    counter = len(sizes)
    for operation in operations:
        if operation in ("append", "append_reading"):
            joined = window.append(sized([counter % 80])[0], following=operation == "append")
            counter += 1
            if joined and operation == "append":
                window.trim_top()
        else:
            move(window, operation)
        assert window.earlier_count + window.size + window.later_count == len(window.items)
        # one row may pass the budget on its own, or join a window that still had room
        assert window.size <= 1 or window.weight(window.first, window.end) <= budget + heaviest
