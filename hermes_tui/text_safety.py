"""Untrusted text made safe: valid Unicode on arrival, and inert on its way to a terminal.

Two jobs, both pure functions over `str` (no Textual, no Rich; the core, the UI and the headless
commands all use them):

* On arrival — `valid_unicode` replaces lone surrogates (what a JSON `"\\ud800"` escape decodes
  to, or a file name Python decoded with `surrogateescape`) with U+FFFD, joining a split pair
  into its character, so every string can be encoded, stored in state.db and sent back to a
  provider. `SurrogateMender` does the same for a stream of deltas, where a pair may be split
  between two deltas.
* On the way to a terminal — `visible` shows every character that would act on the terminal
  instead of being printed: C0 controls (except newline and tab), DEL, C1 controls
  (U+0080–U+009F), bidirectional overrides, embeddings, isolates and marks, and lone
  surrogates. Each becomes its escape as literal text (ESC -> `\\x1b`, CR -> `\\r`, U+202E ->
  `\\u202e`), so `\\x1b[2K`, an OSC 52 clipboard write or a title-setting OSC are read, never
  obeyed. The mapping is per character, hence `visible(a + b) == visible(a) + visible(b)`: a
  sequence split across two streamed deltas can never be completed by the second one.
  `approval_view` is the strict form for a command the user is asked to approve: every control
  and format character is shown, the caller is told which were found, and where each escape
  sits (`view_offset` maps an offset in the command to one in the shown text, so a span the
  risk check flagged can be highlighted in place).
* `json_for_terminal` makes already-dumped JSON (`ensure_ascii=False`) printable the same way,
  writing the few characters `json.dumps` leaves raw (DEL, C1, bidi controls, line and paragraph
  separators, lone surrogates) as `\\uXXXX` escapes: the same JSON value, nothing live.
"""

from __future__ import annotations

import bisect
import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

REPLACEMENT = "\ufffd"

# Bidirectional formatting characters: marks, embeddings/overrides, isolates.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# What `visible` escapes: C0 but tab and newline, DEL and C1, bidi controls, surrogates.
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_HIGH_SURROGATE = re.compile("[\ud800-\udbff]")
# What `json.dumps(..., ensure_ascii=False)` leaves raw that a terminal (or a JS reader) acts on.
_JSON_UNSAFE = re.compile(f"[\x7f-\x9f{_BIDI}\u2028\u2029\ud800-\udfff]")
# A JSON `\uXXXX` escape of a surrogate, inside JSON text (tool arguments arrive as JSON text).
_JSON_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
# Categories `approval_view` also shows: other controls, format characters (zero-width and
# bidi included), surrogates, line and paragraph separators.
_STRICT_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_CONTROL_NAMES = {
    0x00: "NUL",
    0x07: "BEL",
    0x08: "BS",
    0x0B: "VT",
    0x0C: "FF",
    0x0D: "CR",
    0x1B: "ESC",
    0x7F: "DEL",
    0x9B: "CSI",
    0x9D: "OSC",
    0x90: "DCS",
}


def escape_char(ch: str) -> str:
    """The literal-text form of one character: `\\r`, `\\x1b`, `\\x9b`, `\\u202e`."""
    code = ord(ch)
    if ch == "\r":
        return "\\r"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def _escape_match(match: re.Match[str]) -> str:
    return escape_char(match.group())


# --------------------------------------------------------------------------- on the way to a terminal


def visible(text: str) -> str:
    """`text` with every terminal-active character shown as its escape; newline and tab kept.

    Fast when there is nothing to do (one regex scan, the same string back).
    """
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escape_match, text)


def without_controls(text: str) -> tuple[str, int]:
    """`text` with the characters a terminal would act on removed (tabs become spaces), and how many.

    For text the user types or pastes into the prompt: what they send is what they see."""
    text = text.replace("\t", " ")
    cleaned, count = _UNSAFE.subn("", text)
    return cleaned, count


def visible_in(value: Any) -> Any:
    """`value` with `visible` applied to every string inside it (dicts, lists and tuples walked).

    Containers holding nothing to escape are returned as they are, not copied.
    """
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        cleaned = {key: visible_in(item) for key, item in value.items()}
        return value if all(cleaned[key] is value[key] for key in value) else cleaned
    if isinstance(value, (list, tuple)):
        items = [visible_in(item) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    return value


def control_name(ch: str) -> str:
    """A short name for a hidden character: "ESC", "CR", "U+202E RIGHT-TO-LEFT OVERRIDE"."""
    code = ord(ch)
    if code in _CONTROL_NAMES:
        return _CONTROL_NAMES[code]
    name = unicodedata.name(ch, "")
    return f"U+{code:04X} {name}" if name else f"U+{code:04X}"


@dataclass(frozen=True)
class ApprovalView:
    """A command as an approval prompt shows it."""

    text: str  # every control and format character shown as its escape
    hidden: tuple[tuple[str, int], ...]  # (name, count) of each kind found, in order of first appearance
    escapes: tuple[tuple[int, int, int], ...] = ()  # (offset in the command, offset in `text`, length) of each escape

    @property
    def has_hidden(self) -> bool:
        return bool(self.hidden)

    def view_offset(self, offset: int) -> int:
        """Where character `offset` of the command is in `text` (an escape is longer than what it stands for)."""
        index = bisect.bisect_left(self.escapes, (offset,))
        if index == 0:
            return offset
        before, shown, length = self.escapes[index - 1]
        return shown + length + (offset - before - 1)

    def warning(self) -> str:
        """The flag line, or "" when the command is plain text."""
        if not self.hidden:
            return ""
        found = ", ".join(name if count == 1 else f"{name} ×{count}" for name, count in self.hidden)
        return (
            f"this command contains hidden control characters ({found}); "
            "they are shown as \\x.. / \\u.... escapes — check what it really does"
        )


def _hidden_in_approval(ch: str) -> bool:
    if ch in "\n\t":
        return False
    return unicodedata.category(ch) in _STRICT_CATEGORIES or _UNSAFE.match(ch) is not None


def approval_view(command: str) -> ApprovalView:
    """The strict form of `command` for an approval prompt, and which hidden characters it holds.

    Every control character (but newline and tab), every format character (zero-width ones,
    bidi controls), line/paragraph separators and lone surrogates are shown as escapes.
    """
    counts: dict[str, int] = {}
    parts: list[str] = []
    escapes: list[tuple[int, int, int]] = []
    shown = 0  # length of the text so far
    for offset, ch in enumerate(command):
        if ch.isprintable() or not _hidden_in_approval(ch):
            parts.append(ch)
            shown += 1
            continue
        name = control_name(ch)
        counts[name] = counts.get(name, 0) + 1
        escaped = escape_char(ch)
        parts.append(escaped)
        escapes.append((offset, shown, len(escaped)))
        shown += len(escaped)
    return ApprovalView("".join(parts), tuple(counts.items()), tuple(escapes))


def json_for_terminal(dumped: str) -> str:
    """Already-dumped JSON with DEL, C1, bidi controls, U+2028/9 and lone surrogates as `\\uXXXX`.

    Outside its strings JSON text is ASCII, so every such character sits inside a string and the
    escape decodes to the same value: the output is the same JSON, safe to print.
    """
    if _JSON_UNSAFE.search(dumped) is None:
        return dumped
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", dumped)


def dumps_for_terminal(value: Any, **kwargs: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, **kwargs)`, safe to print (see `json_for_terminal`)."""
    return json_for_terminal(json.dumps(value, ensure_ascii=False, **kwargs))


# --------------------------------------------------------------------------- on arrival


def valid_unicode(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (a high+low pair becomes its character)."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def valid_unicode_in(value: Any) -> Any:
    """`value` with `valid_unicode` applied to every string (and dict key) inside it."""
    if isinstance(value, str):
        return valid_unicode(value)
    if isinstance(value, dict):
        return {valid_unicode_in(key): valid_unicode_in(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        items = [valid_unicode_in(item) for item in value]
        return type(value)(items) if isinstance(value, tuple) else items
    return value


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return valid_unicode(value) != value
    if isinstance(value, dict):
        return any(_has_lone_surrogate(key) or _has_lone_surrogate(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(item) for item in value)
    return False


def valid_json_text(text: str) -> str:
    """JSON text (e.g. tool arguments) made valid, including lone surrogates written as `\\ud800`.

    Raw lone surrogates are replaced like anywhere else. Escaped ones are valid JSON syntax but
    decode to an invalid string, so when the text parses and holds one, it is dumped again with
    U+FFFD in its place. Text that does not parse, or holds none, is kept as it was.
    """
    text = valid_unicode(text)
    if _JSON_SURROGATE_ESCAPE.search(text) is None:
        return text
    try:
        parsed = json.loads(text)
    except ValueError:
        return text
    if not _has_lone_surrogate(parsed):
        return text  # only well-formed pairs (an escaped emoji)
    return json.dumps(valid_unicode_in(parsed), ensure_ascii=False)


class SurrogateMender:
    """`valid_unicode` for a stream of deltas: a pair split between two deltas is joined.

    `feed` returns the valid text of a delta, holding back a trailing high surrogate until the
    next delta shows whether its low half follows. `pending` is what the held character stands
    for so far (U+FFFD, or ""); `flush` hands it over and forgets it.
    """

    def __init__(self) -> None:
        self._held = ""

    def feed(self, delta: str) -> str:
        text = self._held + delta
        self._held = ""
        if _SURROGATE.search(text) is None:
            return text
        if _HIGH_SURROGATE.match(text[-1]):
            text, self._held = text[:-1], text[-1]
        return valid_unicode(text)

    @property
    def pending(self) -> str:
        return REPLACEMENT if self._held else ""

    def flush(self) -> str:
        pending = self.pending
        self._held = ""
        return pending
