"""Phase 2: the tail cut by token budget, alignment of tool groups and the last-user anchor
(§4.2 phase 2, §11 cases 10, 11, 12)."""

from __future__ import annotations

from hermes_tui.core.context.boundaries import (
    align_boundary_backward,
    compute_boundaries,
    ensure_last_user_message_in_tail,
    find_tail_cut_by_tokens,
    head_size,
)

from .helpers import assistant, call, result, system, user


def pairs(count: int, output_chars: int) -> list[dict]:
    messages = [system(), user("start")]
    for i in range(count):
        messages += [assistant(None, call(f"c{i}", "read_file", path=f"f{i}")), result(f"c{i}", "o" * output_chars)]
    return messages


def test_head_size_counts_the_system_message_separately() -> None:
    assert head_size([system(), user("a")], 3) == 4
    assert head_size([user("a")], 3) == 3


def test_tail_is_under_twenty_messages_and_at_least_three() -> None:
    messages = pairs(10, 5_000)
    cut = find_tail_cut_by_tokens(messages, head_end=2, tail_token_budget=20_000)
    assert 3 <= len(messages) - cut < 20


def test_tiny_budget_still_keeps_three_messages() -> None:
    messages = pairs(10, 5_000)
    cut = find_tail_cut_by_tokens(messages, head_end=2, tail_token_budget=10)
    assert len(messages) - cut >= 3
    assert messages[cut]["role"] == "assistant"  # a whole call+result group


def test_soft_ceiling_allows_one_oversized_message() -> None:
    big = 1_400 * 4  # 1,410 tokens with overhead: over the 1,000 budget, under the 1.5x ceiling
    messages = [system(), user("a"), assistant("b"), user("c"), assistant("d"), user("e"), assistant("x" * big)]
    kept = [m["content"] for m in messages[find_tail_cut_by_tokens(messages, 2, tail_token_budget=1_000) :]]
    assert "x" * big in kept


def test_small_conversation_still_compresses() -> None:
    messages = [system(), user("a"), assistant("b"), user("c"), assistant("d"), user("e"), assistant("f")]
    cut = find_tail_cut_by_tokens(messages, head_end=2, tail_token_budget=100_000)
    assert 2 < cut < len(messages)


class TestAlignment:
    def test_cut_after_a_clean_user_message_is_unchanged(self) -> None:
        messages = [
            system(),
            user("a"),
            assistant("b"),
            user("c"),
            assistant("d"),
            user("e"),
            assistant("f"),
            user("g"),
            assistant("h"),
        ]
        assert align_boundary_backward(messages, 7) == 7

    def test_cut_right_after_a_tool_calling_assistant_moves_to_it(self) -> None:
        messages = [
            system(),
            user("a"),
            assistant("b"),
            assistant(None, call("c1", "todo")),
            result("c1", "r"),
            assistant("done"),
        ]
        assert align_boundary_backward(messages, 4) == 3

    def test_cut_inside_parallel_results_moves_to_the_owner(self) -> None:
        messages = [
            system(),
            user("a"),
            assistant(None, call("c1", "todo"), call("c2", "todo"), call("c3", "todo")),
            result("c1", "1"),
            result("c2", "2"),
            result("c3", "3"),
            assistant("done"),
        ]
        assert align_boundary_backward(messages, 4) == 2
        assert align_boundary_backward(messages, 5) == 2


def test_last_user_message_is_pulled_into_the_tail() -> None:
    messages = [
        system(),
        user("a"),
        assistant("b"),
        user("c"),
        assistant("d"),
        user("LAST"),
        assistant(None, call("c1", "todo")),
        result("c1", "r"),
        assistant("done"),
    ]
    assert ensure_last_user_message_in_tail(messages, cut=6, head_end=2) == 5
    assert ensure_last_user_message_in_tail(messages, cut=4, head_end=2) == 4  # already in the tail
    only_head_user = [system(), user("only"), assistant("a"), assistant("b")]
    assert ensure_last_user_message_in_tail(only_head_user, cut=3, head_end=1) == 2  # never before head_end+1


def test_compute_boundaries_keeps_tool_results_with_the_head() -> None:
    messages = [
        system(),
        user("a"),
        assistant(None, call("c1", "todo")),
        result("c1", "r1"),
        assistant("x"),
        user("b"),
        assistant("y"),
        user("c"),
        assistant("z"),
    ]
    bounds = compute_boundaries(messages, protect_first_n=2, tail_token_budget=10)
    assert bounds.start == 4  # aligned forward past the result of the head's tool call
    assert bounds.end > bounds.start
