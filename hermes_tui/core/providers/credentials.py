"""A credential pool: several API keys for one provider, rotated when a key is throttled or refused.

Keys are used in order ("fill first"): the first key that is not cooling down is current. `rotate`
benches the current key for a cool-down (rate limits: the provider's reset time, else an hour;
billing and auth: a day, as Hermes does) and moves to the next usable key. Nothing here ever
renders a key: `describe` gives its last four characters at most, and the pool's repr shows only
counts. State lives in memory for the life of the process; keys are never written anywhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

RATE_LIMIT_COOLDOWN_S = 60 * 60
DEFAULT_COOLDOWN_S = 24 * 60 * 60


def key_suffix(key: str) -> str:
    """The most of a key that may be shown: its last four characters (nothing for short keys)."""
    return f"…{key[-4:]}" if len(key) > 8 else "…"


def cooldown_for(reason: str, retry_after: float | None = None) -> float:
    """How long a key rests after failing with `reason` (the provider's own reset time wins for rate limits)."""
    if reason == "rate_limit":
        return retry_after if retry_after and retry_after > 0 else RATE_LIMIT_COOLDOWN_S
    return DEFAULT_COOLDOWN_S


class CredentialPool:
    """The keys of one provider and when each may be used again."""

    def __init__(self, keys: Sequence[str], *, clock: Callable[[], float] = time.monotonic) -> None:
        unique = [key for key in dict.fromkeys(keys) if key]
        if not unique:
            raise ValueError("a credential pool needs at least one key")
        self._keys = unique
        self._resting_until: dict[int, float] = {}
        self._index = 0
        self._clock = clock

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"CredentialPool({len(self._keys)} keys, {self.resting} resting)"

    @property
    def current(self) -> str:
        return self._keys[self._index]

    @property
    def current_suffix(self) -> str:
        return key_suffix(self.current)

    @property
    def position(self) -> int:
        """1-based position of the current key, for messages ("key 2/3")."""
        return self._index + 1

    @property
    def resting(self) -> int:
        now = self._clock()
        return sum(1 for until in self._resting_until.values() if until > now)

    def _usable(self, index: int) -> bool:
        return self._resting_until.get(index, 0.0) <= self._clock()

    def can_rotate(self) -> bool:
        """True when another key than the current one may be used now."""
        return any(self._usable(i) for i in range(len(self._keys)) if i != self._index)

    def rotate(self, cooldown: float) -> bool:
        """Bench the current key for `cooldown` seconds and move to the next usable one; False if none."""
        self._resting_until[self._index] = self._clock() + max(0.0, cooldown)
        for step in range(1, len(self._keys)):
            candidate = (self._index + step) % len(self._keys)
            if self._usable(candidate):
                self._index = candidate
                return True
        return False

    def refresh(self) -> bool:
        """Go back to the first key that has rested enough (fill first); True when the key changed."""
        for index in range(len(self._keys)):
            if self._usable(index):
                changed = index != self._index
                self._index = index
                return changed
        return False
