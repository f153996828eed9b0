"""Context windows of known models, the unknown-model default and the override (brief §2)."""

from __future__ import annotations

import pytest

from hermes_tui.core.context import MINIMUM_CONTEXT_LENGTH, context_window


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("claude-3-5-sonnet-20241022", 200_000),
        ("claude-3-haiku-20240307", 200_000),
        ("claude-sonnet-4-5", 200_000),
        ("claude-opus-4-1", 200_000),
        ("anthropic/claude-haiku-4-5", 200_000),
        ("claude-sonnet-4[1m]", 1_000_000),
        ("gpt-4o", 128_000),
        ("gpt-4o-mini", 128_000),
        ("gpt-4.1", 1_047_576),
        ("gpt-4.1-mini", 1_047_576),
        ("gpt-5", 400_000),
        ("gpt-5-nano", 400_000),
        ("o1", 200_000),
        ("o3", 200_000),
        ("o4-mini", 200_000),
        ("gpt-4-turbo", 128_000),
        ("gpt-3.5-turbo", 16_385),
        ("demo", 128_000),
        ("gemini-2.5-pro", 1_048_576),
        ("llama3.1:8b", 131_072),
        ("meta-llama/Llama-3.3-70B-Instruct", 131_072),
        ("qwen3-coder:30b", 262_144),
        ("deepseek-v4-flash", 1_000_000),
    ],
)
def test_known_windows(model: str, window: int) -> None:
    assert context_window(model) == (window, True)


def test_unknown_model_defaults_to_128k_and_says_so() -> None:
    assert context_window("my-local-llama") == (128_000, False)
    assert context_window("") == (128_000, False)


def test_override_wins() -> None:
    assert context_window("gpt-4o", override=32_768) == (32_768, True)
    assert context_window("mystery", override=0) == (128_000, False)


def test_minimum_context_length() -> None:
    assert MINIMUM_CONTEXT_LENGTH == 64_000
