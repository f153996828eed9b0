"""Context windows of well-known models, and the minimum window the agent accepts.

Owns `context_window(model, override=0) -> (tokens, known)`: an explicit override wins, then the
built-in catalogue (Anthropic, OpenAI, Google and the common open-weight families, the offline demo
model); anything else is assumed to have 128,000 tokens and is reported as unknown so the UI can say
the gauge is a guess. What a local server reports for its model comes first when there is a report
(`window_probe.py`); an open-weight family's entry here is its published window, which a local
server may run smaller.
"""

from __future__ import annotations

import re

MINIMUM_CONTEXT_LENGTH = 64_000
DEFAULT_CONTEXT_WINDOW = 128_000

# (pattern on the normalised model name, window). First match wins, so specific names come first.
_WINDOWS: tuple[tuple[re.Pattern[str], int], ...] = tuple(
    (re.compile(pattern), tokens)
    for pattern, tokens in (
        (r"^demo\b", 128_000),
        # Anthropic: 200K for every Claude model; the 1M variants only when the name says so.
        (r"^claude.*(\[1m\]|-1m\b)", 1_000_000),
        (r"^(claude|sonnet|opus|haiku)\b", 200_000),
        # OpenAI
        (r"^gpt-4\.1\b", 1_047_576),
        (r"^gpt-5\b", 400_000),
        (r"^(gpt-4o|chatgpt-4o)\b", 128_000),
        (r"^gpt-4-(turbo|1106|0125)\b", 128_000),
        (r"^gpt-4-32k\b", 32_768),
        (r"^gpt-4(-0613|-0314)?$", 8_192),
        (r"^gpt-3\.5-turbo\b", 16_385),
        (r"^o1-(mini|preview)\b", 128_000),
        (r"^(o1|o3|o3-mini|o3-pro|o4-mini)\b", 200_000),
        # Google
        (r"^gemini\b", 1_048_576),
        (r"^gemma-?3\b", 131_072),
        # Open-weight families (their published windows)
        (r"^deepseek-v4\b", 1_000_000),
        (r"^deepseek", 128_000),
        (r"^qwen3-coder\b", 262_144),
        (r"^qwen", 131_072),
        (r"^(meta-)?llama", 131_072),
        (r"^kimi", 262_144),
        (r"^glm", 202_752),
        (r"^minimax", 204_800),
        (r"^nemotron", 131_072),
    )
)


def normalise_model_name(model: str) -> str:
    """Lower-case model name without a router prefix ("openrouter/anthropic/claude-x" -> "claude-x")."""
    name = (model or "").strip().lower()
    return name.rsplit("/", 1)[-1]


def context_window(model: str, override: int = 0) -> tuple[int, bool]:
    """The model's context window in tokens and whether it is known (override or built-in table)."""
    if override and override > 0:
        return int(override), True
    name = normalise_model_name(model)
    for pattern, tokens in _WINDOWS:
        if pattern.search(name):
            return tokens, True
    return DEFAULT_CONTEXT_WINDOW, False
