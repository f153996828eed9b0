"""The environment a tool subprocess gets: ours, minus the credentials the agent itself runs on.

A shell command the model writes must not be able to read the agent's provider keys
(`printenv OPENAI_API_KEY` would put the key into the conversation and into state.db). Owns the
rule for which variable names are credentials and `tool_subprocess_env`, the one place every
tool spawn gets its environment from. Removed:

- every `*_API_KEY` and `*_API_KEYS` (any prefix: one key or a comma-separated pool);
- tokens, keys, secrets and base URLs of known model providers — a name that starts with a
  provider's prefix (`ANTHROPIC_`, `OPENAI_`, `OPENROUTER_`, `HF_`, `GROQ_`, `GITHUB_COPILOT_` …)
  and ends in `_TOKEN`, `_KEY`, `_KEYS`, `_SECRET`, `_CREDENTIALS`, `_BASE_URL` or `_API_BASE`
  (base URLs may carry a key as user:password or in the query);
- our own such variables (`HERMES_TUI_BASE_URL`, any `HERMES_TUI_*_KEY`/`_TOKEN`/`_SECRET`);
- a few exact names providers read (`GH_TOKEN` and `GITHUB_TOKEN` for Copilot, `OPENAI_ORG_ID` …).

`[tools] env_passthrough` names variables kept even though they match, `[tools] env_strip`
extra names removed. Everything else passes (PATH, HOME, LANG, the user's own variables), and the
terminal adds its pager settings on top. Pure: no I/O, nothing imported beyond the standard library.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# Whatever the prefix: the key (or comma-separated keys) of some API.
_ANY_API_KEY_SUFFIXES = ("_API_KEY", "_API_KEYS")

# Model providers (and gateways in front of them) whose credentials and endpoints the agent may run on.
PROVIDER_PREFIXES = (
    "AI21",
    "ANTHROPIC",
    "AZURE_OPENAI",
    "BEDROCK",
    "CEREBRAS",
    "COHERE",
    "COPILOT",
    "DASHSCOPE",
    "DEEPSEEK",
    "FIREWORKS",
    "GEMINI",
    "GITHUB_COPILOT",
    "GLM",
    "GOOGLE",
    "GROQ",
    "HELICONE",
    "HERMES",  # Hermes's and our own (HERMES_TUI_BASE_URL …)
    "HF",
    "HUGGINGFACE",
    "HUGGING_FACE_HUB",
    "KIMI",
    "LITELLM",
    "MINIMAX",
    "MISTRAL",
    "MOONSHOT",
    "NOUS",
    "NVIDIA",
    "OLLAMA",
    "OPENAI",
    "OPENROUTER",
    "PERPLEXITY",
    "PORTKEY",
    "QWEN",
    "REPLICATE",
    "TOGETHER",
    "VERTEX",
    "VOYAGE",
    "XAI",
    "ZAI",
)
# What, after a provider's prefix, makes a name a credential or an endpoint that may embed one.
PROVIDER_SECRET_SUFFIXES = ("_TOKEN", "_KEY", "_KEYS", "_SECRET", "_CREDENTIALS", "_BASE_URL", "_API_BASE")

# Exact names providers read that the two rules above do not reach.
CREDENTIAL_NAMES = frozenset(
    {
        "GH_TOKEN",  # GitHub Copilot's token, as Hermes strips it
        "GITHUB_TOKEN",
        "OPENAI_ORG_ID",
        "OPENAI_ORGANIZATION",
        "OPENAI_PROJECT",
        "AWS_BEARER_TOKEN_BEDROCK",
        "GOOGLE_APPLICATION_CREDENTIALS",
    }
)


def is_credential_name(name: str) -> bool:
    """True when `name` (any case) is a variable the agent's credentials may live in."""
    upper = name.upper()
    if upper in CREDENTIAL_NAMES or upper.endswith(_ANY_API_KEY_SUFFIXES):
        return True
    if not upper.endswith(PROVIDER_SECRET_SUFFIXES):
        return False
    return any(upper.startswith(prefix + "_") for prefix in PROVIDER_PREFIXES)


def tool_subprocess_env(
    base: Mapping[str, str],
    *,
    passthrough: Iterable[str] = (),
    strip: Iterable[str] = (),
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """`base` without its credential variables, then `extra` on top (never a credential either).

    `passthrough`: names kept although they look like credentials. `strip`: names always removed.
    """
    keep = frozenset(passthrough)
    drop = frozenset(strip)

    def allowed(name: str) -> bool:
        if name in drop:
            return False
        return name in keep or not is_credential_name(name)

    env = {name: value for name, value in base.items() if allowed(name)}
    for name, value in (extra or {}).items():
        if allowed(name):
            env[name] = value
    return env
