"""Huge pastes in the prompt: shown as one token, "[pasted 1,234 lines]", sent whole.

A text of more than `HUGE_LINES` lines or `HUGE_BYTES` bytes would fill the prompt and slow every
keystroke, so the prompt shows a token in its place and `PastedBlocks` keeps the text behind it.
`expand(shown)` puts every token still in the prompt back to its text (what Enter sends);
`span_at(line, column)` says where a token touching the cursor is, so Backspace and Delete remove
it whole. A token edited by hand is no token any more: it is sent as the characters it shows.
Plain data: no Textual.
"""

from __future__ import annotations

import re

HUGE_LINES = 200
HUGE_BYTES = 20 * 1024
_TOKEN = re.compile(r"\[pasted [\d,]+ lines?(?: #\d+)?\]|\[pasted [\d,]+ KB(?: #\d+)?\]")


def is_huge(text: str) -> bool:
    """Whether `text` is shown as a token rather than as itself."""
    return text.count("\n") + 1 > HUGE_LINES or len(text.encode("utf-8", "replace")) > HUGE_BYTES


def describe(text: str) -> str:
    """What a token says about its text: "1,234 lines", or the size of a long single line."""
    lines = text.count("\n") + 1
    if lines > 1:
        return f"{lines:,} lines"
    return f"{len(text.encode('utf-8', 'replace')) // 1024:,} KB"


class PastedBlocks:
    """The texts behind the tokens of one prompt."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}

    def __bool__(self) -> bool:
        return bool(self._texts)

    def token_for(self, text: str) -> str:
        """A new token standing for `text` (numbered when the same words are already in use)."""
        base = f"[pasted {describe(text)}]"
        token, number = base, 1
        while token in self._texts:
            number += 1
            token = f"{base[:-1]} #{number}]"
        self._texts[token] = text
        return token

    def expand(self, shown: str) -> str:
        """`shown` with each token this prompt made replaced by its text."""
        if not self._texts:
            return shown
        return _TOKEN.sub(lambda match: self._texts.get(match.group(0), match.group(0)), shown)

    def span_at(self, line: str, column: int, *, before: bool) -> tuple[int, int] | None:
        """The (start, end) columns of a token of ours that ends at `column` (`before`: Backspace) or
        starts there (Delete), or that holds the column inside it; None when there is none."""
        for match in _TOKEN.finditer(line):
            if match.group(0) not in self._texts:
                continue
            start, end = match.span()
            if start < column < end or (before and end == column) or (not before and start == column):
                return start, end
        return None

    def keep_only(self, shown: str) -> None:
        """Forget the texts whose tokens are gone from the prompt."""
        present = set(_TOKEN.findall(shown))
        self._texts = {token: text for token, text in self._texts.items() if token in present}

    def clear(self) -> None:
        self._texts.clear()
