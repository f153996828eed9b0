"""Finding the text a patch replaces, forgiving the ways models misquote a file (as Hermes's patch does).

Owns `find_and_replace(content, old, new, replace_all)`: the first of nine ways of looking that
finds `old` decides where it is — exact text; then whole lines compared with their ends trimmed;
runs of spaces and tabs collapsed; indentation ignored; `\\n`/`\\t` typed as escapes (then the
replacement's escapes are read too); only the first and last line trimmed; typographic quotes,
dashes and spaces read as ASCII; a block known by its first and last line with a similar middle;
and, last, a block where at least half the lines are nearly the same (only for three lines or more:
unlike Hermes, a line or two is never replaced for being merely similar). More than one match
without `replace_all` is an error (how many, and to add context); no match is an error with the
lines that look most like the first line of `old` ("Did you mean one of these sections?"). After a
loose match the replacement is adjusted to the file: re-indented by the difference in indentation,
`\\t`/`\\r` escapes turned into the tab or CR the file has there, typographic characters the file
had kept where the edit did not touch them, and a backslash before a quote that neither the file nor
the edit meant refused. The error texts are Hermes's where a model recognises them. Pure: text in,
text out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

Span = tuple[int, int]

NOT_FOUND = "Could not find a match for old_string in the file"
DID_YOU_MEAN = "Did you mean one of these sections?"
_TYPOGRAPHIC = {
    "\u201c": '"',
    "\u201d": '"',
    "\u2018": "'",
    "\u2019": "'",
    "\u2014": "--",
    "\u2013": "-",
    "\u2026": "...",
    "\u00a0": " ",
}
_BLANKS = re.compile(r"[ \t]+")
_SIMILAR_LINE = 0.80
_MIN_SIMILAR_BLOCK = 3  # lines; Hermes also matches single lines by similarity
_MAX_SIMILARITY_PAIRS = 200_000  # line comparisons the last, loosest search may make on one file
_HINT_LINE_CHARS = 240
_HINT_SIMILARITY = 0.3
_HINT_PATTERN_LINES = 12


@dataclass(frozen=True)
class Replaced:
    """`old` was found `count` times (by `strategy`) and replaced; `content` is the new text."""

    content: str
    count: int
    strategy: str


@dataclass(frozen=True)
class NoMatch:
    """Nothing was replaced; `error` says why (a not-found error ends with the closest lines)."""

    error: str


# --------------------------------------------------------------------------- text with a map back


@dataclass(frozen=True)
class _Mapped:
    """A normalised copy of a text; character k of it came from original[starts[k]:ends[k]]."""

    text: str
    starts: list[int]
    ends: list[int]

    def back(self, spans: Sequence[Span]) -> list[Span]:
        return [(self.starts[a], self.ends[b - 1]) for a, b in spans if b > a]


def _collapse_blanks(text: str) -> _Mapped:
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    position = 0
    for match in _BLANKS.finditer(text):
        for index in range(position, match.start()):
            out.append(text[index])
            starts.append(index)
            ends.append(index + 1)
        out.append(" ")
        starts.append(match.start())
        ends.append(match.end())
        position = match.end()
    for index in range(position, len(text)):
        out.append(text[index])
        starts.append(index)
        ends.append(index + 1)
    return _Mapped("".join(out), starts, ends)


def _plain(text: str) -> str:
    for fancy, ascii_form in _TYPOGRAPHIC.items():
        text = text.replace(fancy, ascii_form)
    return text


def _plain_mapped(text: str) -> _Mapped:
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for index, char in enumerate(text):
        replacement = _TYPOGRAPHIC.get(char, char)
        out.append(replacement)
        starts.extend([index] * len(replacement))
        ends.extend([index + 1] * len(replacement))
    return _Mapped("".join(out), starts, ends)


# --------------------------------------------------------------------------- ways of looking


def _exact(content: str, pattern: str) -> list[Span]:
    """Every non-overlapping occurrence, left to right (as str.replace counts them)."""
    spans: list[Span] = []
    start = content.find(pattern)
    while start != -1 and pattern:
        spans.append((start, start + len(pattern)))
        start = content.find(pattern, start + len(pattern))
    return spans


def _line_offsets(lines: Sequence[str]) -> list[int]:
    offsets, position = [], 0
    for line in lines:
        offsets.append(position)
        position += len(line) + 1
    return offsets


def _block_span(lines: Sequence[str], offsets: Sequence[int], first: int, count: int) -> Span:
    """Lines first..first+count-1 as a span, without the newline after the last one."""
    last = first + count - 1
    return offsets[first], offsets[last] + len(lines[last])


def _non_overlapping(spans: list[Span]) -> list[Span]:
    kept: list[Span] = []
    for span in spans:
        if not kept or span[0] >= kept[-1][1]:
            kept.append(span)
    return kept


def _line_blocks(content: str, pattern: str, same: Callable[[int, str, str], bool]) -> list[Span]:
    """Blocks of whole lines of `content` matching the lines of `pattern` one for one under `same`
    (called with the pattern line's index, the pattern line and the content line)."""
    lines = content.split("\n")
    wanted = pattern.split("\n")
    offsets = _line_offsets(lines)
    spans = []
    for first in range(len(lines) - len(wanted) + 1):
        if all(same(k, wanted[k], lines[first + k]) for k in range(len(wanted))):
            spans.append(_block_span(lines, offsets, first, len(wanted)))
    return _non_overlapping(spans)


def _line_trimmed(content: str, pattern: str) -> list[Span]:
    return _line_blocks(content, pattern, lambda _k, want, have: want.strip() == have.strip())


def _blanks_collapsed(content: str, pattern: str) -> list[Span]:
    mapped = _collapse_blanks(content)
    return mapped.back(_exact(mapped.text, _BLANKS.sub(" ", pattern)))


def _indentation_ignored(content: str, pattern: str) -> list[Span]:
    return _line_blocks(content, pattern, lambda _k, want, have: want.lstrip() == have.lstrip())


def _unescape(text: str) -> str:
    return text.replace("\\n", "\n").replace("\\t", "\t").replace("\\r", "\r")


def _escapes_read(content: str, pattern: str) -> list[Span]:
    unescaped = _unescape(pattern)
    return [] if unescaped == pattern else _exact(content, unescaped)


def _ends_trimmed(content: str, pattern: str) -> list[Span]:
    last = pattern.count("\n")

    def same(k: int, want: str, have: str) -> bool:
        return want.strip() == have.strip() if k in (0, last) else want == have

    return _line_blocks(content, pattern, same)


def _has_typography(text: str) -> bool:
    return any(fancy in text for fancy in _TYPOGRAPHIC)


def _typography_read(content: str, pattern: str) -> list[Span]:
    plain_pattern = _plain(pattern)
    if not _has_typography(content):  # only the pattern has them: no map back needed
        if plain_pattern == pattern:
            return []
        return _exact(content, plain_pattern) or _line_trimmed(content, plain_pattern)
    mapped = _plain_mapped(content)
    return mapped.back(_exact(mapped.text, plain_pattern) or _line_trimmed(mapped.text, plain_pattern))


def _matcher(fixed: str) -> SequenceMatcher[str]:
    """A matcher comparing many strings against `fixed` (its index is built once)."""
    matcher: SequenceMatcher[str] = SequenceMatcher(None)
    matcher.set_seq2(fixed)
    return matcher


def _similar(matcher: SequenceMatcher[str], text: str, threshold: float) -> float | None:
    """The similarity of `text` to the matcher's fixed string when it reaches `threshold`, else None."""
    matcher.set_seq1(text)
    if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
        return None
    ratio = matcher.ratio()
    return ratio if ratio >= threshold else None


def _anchored_block(content: str, pattern: str) -> list[Span]:
    """First and last line equal (trimmed, typography read as ASCII), the middle similar enough."""
    wanted = _plain(pattern).split("\n")
    if len(wanted) < 2:
        return []
    lines = content.split("\n")
    plain_lines = [_plain(line).strip() for line in lines]
    size = len(wanted)
    first_line, last_line = wanted[0].strip(), wanted[-1].strip()
    candidates = [
        first
        for first in range(len(lines) - size + 1)
        if plain_lines[first] == first_line and plain_lines[first + size - 1] == last_line
    ]
    threshold = 0.50 if len(candidates) == 1 else 0.70
    middle = "\n".join(wanted[1:-1])
    offsets = _line_offsets(lines)
    spans = []
    for first in candidates:
        if size > 2:
            have = "\n".join(_plain(line) for line in lines[first + 1 : first + size - 1])
            if SequenceMatcher(None, have, middle).ratio() < threshold:
                continue
        spans.append(_block_span(lines, offsets, first, size))
    return _non_overlapping(spans)


def _mostly_similar(content: str, pattern: str) -> list[Span]:
    """Blocks where at least half the lines are nearly the same as the pattern's (trimmed).

    Only for a pattern of three lines or more: a line or two that is merely similar to the file's
    (`def h():` against `def f():`) is not the text the model meant.
    """
    wanted = [line.strip() for line in pattern.split("\n")]
    lines = content.split("\n")
    if len(wanted) < _MIN_SIMILAR_BLOCK or len(wanted) * len(lines) > _MAX_SIMILARITY_PAIRS:
        return []
    trimmed = [line.strip() for line in lines]
    matchers = [_matcher(want) for want in wanted]
    needed = len(wanted) * 0.5
    offsets = _line_offsets(lines)
    spans = []
    for first in range(len(lines) - len(wanted) + 1):
        similar = 0
        for k, matcher in enumerate(matchers):
            if _similar(matcher, trimmed[first + k], _SIMILAR_LINE) is not None:
                similar += 1
            elif similar + (len(wanted) - k - 1) < needed:
                break  # the rest cannot reach half
        if similar >= needed:
            spans.append(_block_span(lines, offsets, first, len(wanted)))
    return _non_overlapping(spans)


STRATEGIES: tuple[tuple[str, Callable[[str, str], list[Span]]], ...] = (
    ("exact", _exact),
    ("line_trimmed", _line_trimmed),
    ("whitespace_normalized", _blanks_collapsed),
    ("indentation_flexible", _indentation_ignored),
    ("escape_normalized", _escapes_read),
    ("trimmed_boundary", _ends_trimmed),
    ("unicode_normalized", _typography_read),
    ("block_anchor", _anchored_block),
    ("context_aware", _mostly_similar),
)


def find(content: str, pattern: str) -> tuple[str, list[Span]] | None:
    """(strategy name, spans) of the first way of looking that finds `pattern`, or None."""
    for name, look in STRATEGIES:
        spans = look(content, pattern)
        if spans:
            return name, spans
    return None


def whole_lines(content: str, pattern: str) -> list[Span]:
    """`pattern` as a block of complete lines of `content` (V4A hunks are whole lines)."""
    return _line_blocks(content, pattern, lambda _k, want, have: want == have)


# --------------------------------------------------------------------------- fitting the replacement


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _first_text_line(text: str) -> str | None:
    return next((line for line in text.split("\n") if line.strip()), None)


def _reindent(region: str, old: str, new: str) -> str:
    """`new` moved from the indentation `old` was written at to the one the file has at `region`."""
    old_first, region_first = _first_text_line(old), _first_text_line(region)
    if not new or old_first is None or region_first is None:
        return new
    written, actual = _indent(old_first), _indent(region_first)
    if written == actual:
        return new
    fitted = []
    for line in new.split("\n"):
        if not line.strip():
            fitted.append(line)
        elif line.startswith(written):
            fitted.append(actual + line[len(written) :])
        else:
            fitted.append(actual + line.lstrip(" \t"))
    return "\n".join(fitted)


def _control_escapes(new: str, regions: str) -> str:
    """`\\t` / `\\r` typed as escapes become the real character when the replaced text has one."""
    if "\t" in regions:
        new = new.replace("\\t", "\t")
    if "\r" in regions:
        new = new.replace("\\r", "\r")
    return new


def _escape_drift(old: str, new: str, regions: str) -> str | None:
    for escaped in ("\\'", '\\"'):
        if escaped in new and escaped in old and escaped not in regions:
            return (
                f"old_string and new_string both hold {escaped!r}, but the matched text of the file has no "
                f"backslash before that quote: the backslash was probably added on the way (escape drift). "
                f"Read the file again and send old_string and new_string without escaping {escaped[1]!r}."
            )
    return None


def _keep_typography(region: str, old: str, new: str) -> str:
    """The edit old -> new applied to `region` (the file's text, with typographic characters where
    `old` has ASCII), so the characters the edit does not touch stay as the file had them."""
    mapped = _plain_mapped(region)
    plain_old = _plain(old)
    if mapped.text != plain_old:
        return new
    pieces = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, plain_old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            pieces.append(new[j1:j2])
        elif i2 > i1:
            start, end = mapped.starts[i1], mapped.ends[i2 - 1]
            whole = (i1 == 0 or mapped.starts[i1 - 1] != start) and (i2 == len(mapped.starts) or mapped.ends[i2] != end)
            pieces.append(region[start:end] if whole else new[j1:j2])
    return "".join(pieces)


def _splice(content: str, spans: Sequence[Span], fitted: Callable[[str], str]) -> str:
    out, position = [], 0
    for start, end in spans:
        out.append(content[position:start])
        out.append(fitted(content[start:end]))
        position = end
    out.append(content[position:])
    return "".join(out)


def find_and_replace(content: str, old: str, new: str, replace_all: bool = False) -> Replaced | NoMatch:
    """Replace `old` by `new` in `content` (every match with `replace_all`, else the only one)."""
    if not old:
        return NoMatch("old_string cannot be empty")
    if old == new:
        return NoMatch("old_string and new_string are identical")
    found = find(content, old)
    if found is None:
        return NoMatch(NOT_FOUND + closest_lines_hint(old, content))
    strategy, spans = found
    if len(spans) > 1 and not replace_all:
        return NoMatch(
            f"Found {len(spans)} matches for old_string. Provide more context to make it unique, "
            "or use replace_all=True."
        )
    regions = "".join(content[start:end] for start, end in spans)
    if strategy != "exact":
        drift = _escape_drift(old, new, regions)
        if drift:
            return NoMatch(drift)
    # old found only once its escapes were read: so are new's
    replacement = _unescape(new) if strategy == "escape_normalized" else _control_escapes(new, regions)

    def fitted(region: str) -> str:
        if strategy == "exact":
            return replacement
        text = _keep_typography(region, old, replacement) if strategy == "unicode_normalized" else replacement
        return _reindent(region, old, text)

    return Replaced(_splice(content, spans, fitted), len(spans), strategy)


# --------------------------------------------------------------------------- the "did you mean" hint


def _shown_line(number: int, line: str) -> str:
    if len(line) > _HINT_LINE_CHARS:
        line = line[:_HINT_LINE_CHARS] + "…"
    return f"{number:4d}| {line}"


def closest_lines(old: str, content: str, context: int = 2, most: int = 3) -> str:
    """Up to `most` numbered snippets of `content` around the lines most like `old`'s first line."""
    anchor = _first_text_line(old)
    lines = content.split("\n")
    if anchor is None or not content:
        return ""
    anchor = anchor.strip()
    scored = []
    matcher = _matcher(anchor)
    for index, line in enumerate(lines):
        text = line.strip()
        if text and (ratio := _similar(matcher, text, _HINT_SIMILARITY)) is not None:
            scored.append((-ratio, index))
    span = min(len(old.split("\n")), _HINT_PATTERN_LINES)
    snippets, seen = [], set()
    for _score, index in sorted(scored)[:most]:
        first, last = max(0, index - context), min(len(lines), index + span + context)
        if (first, last) in seen:
            continue
        seen.add((first, last))
        snippets.append("\n".join(_shown_line(number + 1, lines[number]) for number in range(first, last)))
    return "\n---\n".join(snippets)


def closest_lines_hint(old: str, content: str) -> str:
    """ "\\n\\nDid you mean one of these sections?\\n…" for a not-found error, or "" when nothing is close."""
    snippets = closest_lines(old, content)
    return f"\n\n{DID_YOU_MEAN}\n{snippets}" if snippets else ""
