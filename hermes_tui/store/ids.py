"""Session ids in Hermes's format: `YYYYMMDD_HHMMSS_<6 hex>` (local time + 24 random bits)."""

from __future__ import annotations

import re
import uuid
from datetime import datetime

SESSION_ID_PATTERN = re.compile(r"^\d{8}_\d{6}_[0-9a-f]{6}$")


def new_session_id(now: datetime | None = None) -> str:
    """A fresh session id, e.g. `20260603_142501_a1b2c3`."""
    stamp = (now or datetime.now()).strftime("%Y%m%d_%H%M%S")
    return f"{stamp}_{uuid.uuid4().hex[:6]}"


def looks_like_session_id(text: str) -> bool:
    """True when `text` has the full id shape (it may still not exist)."""
    return bool(SESSION_ID_PATTERN.match(text))
