"""What the search box says: words to find and `key:value` filters, parsed without Textual.

`parse_search(text, now)` splits a search line into the words to find and its filters:

    role:user,assistant   only these roles (user, assistant, tool, system)
    source:cli,tui        only sessions started from these sources
    since:7d  until:2026-11-26   dates (YYYY-MM-DD, YYYY-MM-DDTHH:MM, today, yesterday) or a
                          time ago (30m, 12h, 7d, 2w); `until` a date means up to the end of that day

Only these four keys are filters; any other `word:word` is searched as typed. A bad filter gives
the request an `error` (one line) instead of raising. Searching as you type, the last word is
also matched as a prefix once it has three characters (`pars` finds "parser"), unless the line
ends with a space. `marked_pieces` splits a snippet from the store (`store.search_lineages`) into
plain and matched pieces for highlighting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from hermes_tui.store.fts_query import OPERATORS, cjk_count
from hermes_tui.store.models import MARK_END, MARK_START

ROLES = ("user", "assistant", "tool", "system")
FILTER_KEYS = ("role", "source", "since", "until")
PREFIX_MIN_CHARS = 3
DATE_HINT = "a date (2026-11-26, 2026-11-26T14:30, today, yesterday) or a time ago (30m, 12h, 7d, 2w)"

_FILTER = re.compile(r"(?<!\S)(role|source|since|until):(\S*)", re.IGNORECASE)
_AGO = re.compile(r"^(\d{1,5})([mhdw])$")
_AGO_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_PLAIN_LAST_WORD = re.compile(r"(?:^|\s)(\w{" + str(PREFIX_MIN_CHARS) + r",})$")


@dataclass(frozen=True)
class SearchRequest:
    """A parsed search line: `query` goes to the store; the rest are its filters."""

    words: str = ""  # the words as typed, filters removed
    query: str = ""  # what the store searches (the last word as a prefix when typing)
    roles: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    since: float | None = None
    until: float | None = None
    error: str = ""
    filters: tuple[str, ...] = field(default=())  # the filters as typed, for the status line

    @property
    def searchable(self) -> bool:
        return bool(self.query) and not self.error


def _point_in_time(value: str, now: datetime, *, end_of_day: bool) -> float | None:
    """Epoch seconds for a filter value, or None when it is not a date or a time ago."""
    lowered = value.lower()
    ago = _AGO.match(lowered)
    if ago:
        return (now - timedelta(**{_AGO_UNITS[ago.group(2)]: int(ago.group(1))})).timestamp()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    named = {"today": midnight, "yesterday": midnight - timedelta(days=1)}
    if lowered in named:
        day = named[lowered]
    else:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return None
        if "T" in value or " " in value:
            return moment.timestamp()
        day = moment
    return (day + timedelta(days=1) if end_of_day else day).timestamp()


def _as_prefix(words: str) -> str:
    """`words` with the last plain word as a prefix query (`pars` -> `pars*`) when it is long enough."""
    match = _PLAIN_LAST_WORD.search(words)
    if match is None or match.group(1) in OPERATORS or cjk_count(match.group(1)):
        return words
    return words + "*"


def parse_search(text: str, now: datetime, *, as_you_type: bool = True) -> SearchRequest:
    """The request a search line makes (module docstring); `now` anchors relative dates."""
    roles: list[str] = []
    sources: list[str] = []
    bounds: dict[str, float] = {}
    errors: list[str] = []
    filters: list[str] = []

    def take(match: re.Match[str]) -> str:
        key, value = match.group(1).lower(), match.group(2)
        filters.append(f"{key}:{value}")
        if not value:
            errors.append(f"{key}: needs a value")
        elif key == "role":
            for role in (part.strip().lower() for part in value.split(",") if part.strip()):
                if role in ROLES:
                    roles.append(role)
                else:
                    errors.append(f"role: '{role}' is not a role ({', '.join(ROLES)})")
        elif key == "source":
            sources.extend(part.strip() for part in value.split(",") if part.strip())
        else:
            moment = _point_in_time(value, now, end_of_day=key == "until")
            if moment is None:
                errors.append(f"{key}: '{value}' is not {DATE_HINT}")
            else:
                bounds[key] = moment
        return " "

    words = " ".join(_FILTER.sub(take, text).split())
    since, until = bounds.get("since"), bounds.get("until")
    if since is not None and until is not None and since >= until:
        errors.append("since: comes after until")
    ends_open = as_you_type and not text[-1:].isspace()
    query = _as_prefix(words) if ends_open and words else words
    return SearchRequest(
        words=words,
        query=query,
        roles=tuple(dict.fromkeys(roles)),
        sources=tuple(dict.fromkeys(sources)),
        since=since,
        until=until,
        error=errors[0] if errors else "",
        filters=tuple(filters),
    )


def marked_pieces(snippet: str) -> list[tuple[str, bool]]:
    """`snippet` as (text, matched) pieces; unbalanced marks are dropped, never shown."""
    pieces: list[tuple[str, bool]] = []
    matched = False
    for part in re.split(f"([{MARK_START}{MARK_END}])", snippet):
        if part == MARK_START:
            matched = True
        elif part == MARK_END:
            matched = False
        elif part:
            pieces.append((part, matched))
    return pieces
