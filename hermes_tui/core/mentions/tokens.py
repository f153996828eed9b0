"""Where the @-mentions of a prompt are: the finished ones (to attach) and the one under the cursor (to complete).

A mention starts with "@" at the start of the text or after whitespace (so "me@example.com" is
none) and runs to the next whitespace: `@src/app.py`, `@docs/` (a folder), `@session:e87044`. A
path or title with spaces is quoted: `@"my notes.txt"`, `@session:"Read README.md"`. What follows
the "@" is the mention's `target`; `kind` is "session" for `session:` targets, else "path".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SESSION_PREFIX = "session:"
_MENTION = re.compile(r'(?<!\S)@(?P<body>session:"[^"\n]*"|"[^"\n]+"|[^\s"][^\s]*)')
_TRAILING_PUNCTUATION = ".,;:!?)]}'"


@dataclass(frozen=True)
class Mention:
    """One @-mention: where it is in the text, and what it names."""

    start: int
    end: int
    kind: str  # "path" or "session"
    target: str  # the path, or the session reference, without quotes

    @property
    def loose_target(self) -> str:
        """The target without the punctuation a sentence may have put after it ("see @a.py." -> "a.py")."""
        return self.target.rstrip(_TRAILING_PUNCTUATION)


def _unquote(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


def _mention(start: int, end: int, body: str) -> Mention:
    if body.startswith(SESSION_PREFIX):
        return Mention(start, end, "session", _unquote(body[len(SESSION_PREFIX) :]).strip())
    return Mention(start, end, "path", _unquote(body))


def find_mentions(text: str) -> list[Mention]:
    """Every mention in `text`, in order (empty targets left out)."""
    found = (_mention(match.start(), match.end(), match.group("body")) for match in _MENTION.finditer(text))
    return [mention for mention in found if mention.target]


def has_mentions(text: str) -> bool:
    """A cheap test first: most prompts hold no "@" at all."""
    return "@" in text and bool(find_mentions(text))


@dataclass(frozen=True)
class TypedMention:
    """The mention the cursor is at the end of, while it is being typed: `text[start:end]` is "@…"."""

    start: int
    end: int
    kind: str  # "path" or "session"
    query: str  # what was typed after "@" (after "session:" for a session)


def mention_at(line: str, column: int) -> TypedMention | None:
    """The mention being typed when the cursor is at `column` of `line` (it must be at the token's end)."""
    if column != len(line) and not line[column].isspace():
        return None
    start = column
    while start > 0 and not line[start - 1].isspace():
        start -= 1
    token = line[start:column]
    if not token.startswith("@") or '"' in token:
        return None
    body = token[1:]
    if body.startswith(SESSION_PREFIX):
        return TypedMention(start, column, "session", body[len(SESSION_PREFIX) :])
    return TypedMention(start, column, "path", body)


def path_mention(path: str) -> str:
    """How a completion writes a path: `@path`, quoted when it holds a space."""
    return f'@"{path}"' if any(char.isspace() for char in path) else f"@{path}"


def session_mention(reference: str) -> str:
    """How a completion writes a session: `@session:ref`, the reference quoted when it holds a space."""
    if any(char.isspace() for char in reference) or '"' in reference:
        return f'@{SESSION_PREFIX}"{reference.replace(chr(34), "")}"'
    return f"@{SESSION_PREFIX}{reference}"
