"""Turning what a user typed into a safe FTS5 query, and choosing the CJK strategy (reference §2.6).

`sanitize_fts5_query` runs Hermes's six steps in order: protect balanced "phrases"; replace
stray `+ { } ( ) " ^` with spaces; collapse `**...` to `*` and drop leading `*`; remove a
dangling AND/OR/NOT at either end; quote dotted/hyphenated/underscored terms (`chat-send`,
`P2.2`, `my_app.config`); restore the phrases. `quote_all_terms` is the last-resort form used
when SQLite still rejects the sanitised query.

CJK: when the query has >= 3 CJK characters and every non-operator CJK token has >= 3 of them,
the trigram index is used (each token quoted, operators kept); otherwise a LIKE fallback with
one clause per token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPERATORS = frozenset({"AND", "OR", "NOT"})

_PHRASE = re.compile(r'"[^"]*"')
_STRAY = re.compile(r'[+{}()"^]')
_STARS = re.compile(r"\*{2,}")
_LEADING_STAR = re.compile(r"(^|\s)\*+")
_LEADING_OPERATOR = re.compile(r"^\s*(?:AND|OR|NOT)\b\s*")
_TRAILING_OPERATOR = re.compile(r"\s*\b(?:AND|OR|NOT)\s*$")
_COMPOUND_TERM = re.compile(r"\b(\w+(?:[._-]\w+)+)\b")
_PLACEHOLDER = "\x01{}\x01"
_PLACEHOLDER_RE = re.compile("\x01(\\d+)\x01")
_CJK = re.compile("[\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_WORD = re.compile(r'"[^"]*"|\S+')


def sanitize_fts5_query(query: str) -> str:
    """The FTS5 MATCH expression for `query` ("" when nothing searchable is left)."""
    phrases: list[str] = []

    def protect(match: re.Match[str]) -> str:
        phrases.append(match.group(0))
        return _PLACEHOLDER.format(len(phrases) - 1)

    text = _PHRASE.sub(protect, query)
    text = _STRAY.sub(" ", text)
    text = _STARS.sub("*", text)
    text = _LEADING_STAR.sub(r"\1", text)
    previous = None
    while previous != text:
        previous = text
        text = _LEADING_OPERATOR.sub("", text)
        text = _TRAILING_OPERATOR.sub("", text)
    text = _COMPOUND_TERM.sub(r'"\1"', text)
    text = _PLACEHOLDER_RE.sub(lambda m: phrases[int(m.group(1))], text)
    text = re.sub(r"\s+", " ", text).strip()
    return "" if text in ('""', "*") else text


def quote_all_terms(query: str) -> str:
    """Every word as a quoted phrase, operators dropped: a query FTS5 always accepts."""
    words = [w.replace('"', " ").strip() for w in re.split(r"\s+", query) if w and w not in OPERATORS]
    return " ".join(f'"{w}"' for w in words if w.strip("* "))


def cjk_count(text: str) -> int:
    return len(_CJK.findall(text))


def query_tokens(query: str) -> list[str]:
    """Whitespace-separated tokens, keeping "quoted phrases" whole (quotes removed)."""
    tokens = []
    for token in _WORD.findall(query):
        token = token.strip('"') if token.startswith('"') and token.endswith('"') and len(token) > 1 else token
        if token:
            tokens.append(token)
    return tokens


@dataclass(frozen=True)
class CjkPlan:
    """How to run a CJK query: `trigram` MATCH text, or LIKE `terms` joined by `connectors`."""

    use_trigram: bool
    trigram_query: str
    terms: tuple[str, ...]
    connectors: tuple[str, ...]  # connector before terms[1:], each "AND", "OR" or "AND NOT"


def plan_cjk_query(query: str) -> CjkPlan | None:
    """A CJK plan for queries containing CJK text, else None (use the normal FTS path)."""
    if not cjk_count(query):
        return None
    tokens = query_tokens(query)
    words = [t for t in tokens if t not in OPERATORS]
    cjk_words = [t for t in words if cjk_count(t)]
    use_trigram = cjk_count(query) >= 3 and all(cjk_count(t) >= 3 for t in cjk_words)
    trigram_parts = [t if t in OPERATORS else '"' + t.replace('"', '""') + '"' for t in tokens]
    while trigram_parts and trigram_parts[0] in OPERATORS:
        trigram_parts.pop(0)
    while trigram_parts and trigram_parts[-1] in OPERATORS:
        trigram_parts.pop()

    terms: list[str] = []
    connectors: list[str] = []
    pending = "AND"
    for token in tokens:
        if token in OPERATORS:
            pending = "AND NOT" if token == "NOT" else token
            continue
        if terms:
            connectors.append(pending)
        terms.append(token)
        pending = "AND"
    return CjkPlan(use_trigram, " ".join(trigram_parts), tuple(terms), tuple(connectors))
