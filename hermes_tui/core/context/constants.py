"""Numeric constants of the context engine (reference §1.1), in one place.

Owns the compressor's budgets, limits, cooldowns and thresholds, as Hermes defines them (a7ef17da7;
the trigger rule itself is in `threshold.py`). Marker strings live in `markers.py`; model windows in `windows.py`.
"""

from __future__ import annotations

# -- trigger and budgets ------------------------------------------------------------------------
DEFAULT_THRESHOLD_PERCENT = 0.50  # the configured default; threshold.py raises it under 512K
DEFAULT_PROTECT_FIRST_N = 3
DEFAULT_PROTECT_LAST_N = 20
DEFAULT_SUMMARY_TARGET_RATIO = 0.20
SUMMARY_TARGET_RATIO_MIN = 0.10
SUMMARY_TARGET_RATIO_MAX = 0.80

SUMMARY_TOKENS_CEILING = 10_000
MIN_SUMMARY_TOKENS = 2000
SUMMARY_RATIO = 0.20  # summary budget = 20 % of the rough tokens being summarised
SUMMARY_CONTEXT_SHARE = 0.05  # max_summary_tokens = 5 % of the window (capped by the ceiling)
SUMMARY_MAX_TOKENS_FACTOR = 1.3  # the summary call's max_tokens = int(budget * 1.3)

# -- budgeting by characters ---------------------------------------------------------------------
CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 10
IMAGE_TOKEN_ESTIMATE = 1600
IMAGE_CHAR_ESTIMATE = IMAGE_TOKEN_ESTIMATE * CHARS_PER_TOKEN  # 6400 "chars" per image part
ROUGH_IMAGE_PART_TOKENS = 1500  # estimate_messages_tokens_rough adds this per image part

# -- summary failures ----------------------------------------------------------------------------
SUMMARY_FAILURE_COOLDOWN_SECONDS = 600  # no summary provider configured
TRANSIENT_SUMMARY_COOLDOWN_SECONDS = 60
QUICK_RETRY_SUMMARY_COOLDOWN_SECONDS = 30  # JSON-decode or stream-closed errors

# -- deterministic fallback handoff --------------------------------------------------------------
FALLBACK_SUMMARY_MAX_CHARS = 8000
FALLBACK_TURN_MAX_CHARS = 700
FALLBACK_USER_ASK_MAX_CHARS = 600
FALLBACK_USER_ASK_HEAD = 420
FALLBACK_USER_ASK_TAIL = 160
FALLBACK_BLOCKER_MAX_CHARS = 500
FALLBACK_MAX_ACTIONS = 12
FALLBACK_MAX_BLOCKERS = 5
FALLBACK_MAX_FILES = 12
FALLBACK_MAX_DROPPED_TURNS = 8

# -- serializer limits (per message fed to the summariser) ---------------------------------------
CONTENT_MAX = 6000
CONTENT_HEAD = 4000
CONTENT_TAIL = 1500
TOOL_ARGS_MAX = 1500
TOOL_ARGS_HEAD = 1200

# -- prune pass ----------------------------------------------------------------------------------
DEDUP_MIN_CHARS = 200  # tool content >= this is a dedup candidate
SUMMARIZE_MIN_CHARS = 200  # tool content > this becomes a one-liner
ARGS_TRUNCATE_TRIGGER = 500  # function.arguments longer than this get their string leaves cut
ARGS_LEAF_MAX = 200

# -- tail cut ------------------------------------------------------------------------------------
TAIL_MIN_MESSAGES = 3
TAIL_SOFT_CEILING_FACTOR = 1.5

# -- effectiveness and preflight -----------------------------------------------------------------
MAX_INEFFECTIVE_COMPRESSIONS = 2  # compressions in a row that left the prompt over the threshold
MAX_FALLBACK_COMPRESSIONS = 2  # compressions in a row that had to use the fallback summary
PREFLIGHT_DEFER_MIN_TOLERANCE = 4096
PREFLIGHT_DEFER_TOLERANCE_SHARE = 0.05
