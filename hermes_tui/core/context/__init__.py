"""The context engine: token accounting, compression, summary prompts, secret redaction.

Public entry points (each module says what it owns): `ContextCompressor` (compressor.py),
`count_tokens` / `TokenLedger` / the rough estimators / `build_context_budget` (tokens.py),
`context_window` (windows.py), `redact_sensitive_text` (redact.py) and
`strip_trailing_scaffolding` (scaffolding.py). Importing this package loads no tokenizer.
"""

from hermes_tui.core.context.compressor import ContextCompressor
from hermes_tui.core.context.failures import SummaryProviderUnavailable
from hermes_tui.core.context.markers import SUMMARY_END_MARKER, SUMMARY_PREFIX, with_summary_prefix
from hermes_tui.core.context.redact import redact_sensitive_text
from hermes_tui.core.context.scaffolding import strip_trailing_scaffolding
from hermes_tui.core.context.tokens import (
    TokenLedger,
    build_context_budget,
    count_tokens,
    encoding_for_model,
    estimate_messages_tokens_rough,
    estimate_request_tokens_rough,
    estimate_tokens_rough,
)
from hermes_tui.core.context.windows import MINIMUM_CONTEXT_LENGTH, context_window

__all__ = [
    "MINIMUM_CONTEXT_LENGTH",
    "SUMMARY_END_MARKER",
    "SUMMARY_PREFIX",
    "ContextCompressor",
    "SummaryProviderUnavailable",
    "TokenLedger",
    "build_context_budget",
    "context_window",
    "count_tokens",
    "encoding_for_model",
    "estimate_messages_tokens_rough",
    "estimate_request_tokens_rough",
    "estimate_tokens_rough",
    "redact_sensitive_text",
    "strip_trailing_scaffolding",
    "with_summary_prefix",
]
