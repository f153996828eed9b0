"""Shell text split into commands whose words remember where each of their characters came from.

Owns: the quote-aware lexer and parser the risk check (`danger.py`) reads commands with. Words
have shell quoting and escapes removed, but keep for every character its offset in the original
command, so a rule that flags a word, part of a word, or a command nested inside a quoted word
(`bash -c '...'`, `python -c "..."`) can name the exact characters it means. Newlines and
backticks separate commands, `#` at the start of a word begins a comment, and the body of a
here-document (`<<EOF` ... `EOF`) or a here-string (`<<< text`) is the command's input text, not
more commands. Pure functions over `str`; never raises on odd input (unterminated quotes end at
the end of the text).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

_OPERATOR_CHARS = frozenset("();<>|&")
_SPECIAL = frozenset(" \t\r\n`#();<>|&\\'\"")  # characters that end a plain run of word characters
_INPUT_REDIRECTS = frozenset({"<", "<<", "<<-", "<<<"})
_PIPES = frozenset({"|", "|&"})
WORD, OPERATOR, HEREDOC = "word", "operator", "heredoc"


@dataclass(frozen=True)
class Source:
    """Text to read commands from, and where each of its characters sits in the original command."""

    text: str
    at: Sequence[int] | None = None  # offset of each character in the original command; None: the same

    def offset(self, index: int) -> int:
        """The original offset of `text[index]` (one past the last character for the end)."""
        if self.at is None:
            return index
        if not self.at:
            return 0
        if index >= len(self.at):
            return self.at[-1] + 1
        return self.at[max(index, 0)]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original (start, end) of `text[start:end]`."""
        if end <= start:
            first = self.offset(start)
            return first, first
        return self.offset(start), self.offset(end - 1) + 1


@dataclass
class Token:
    """A word (quotes removed), an operator run such as `&&` or `>`, or a here-document body."""

    text: str
    kind: str
    start: int  # the token's span in the original command, quotes included
    end: int
    at: list[int] = field(default_factory=list)  # original offset of each character of `text` (words, bodies)

    @property
    def is_operator(self) -> bool:
        return self.kind == OPERATOR

    def source(self) -> Source:
        """The word's text as a source of its own (for a command nested inside it)."""
        return Source(self.text, self.at)


@dataclass
class Command:
    """One simple command: its words and the input text fed to it (here-documents, here-strings)."""

    argv: list[Token] = field(default_factory=list)
    stdin: list[Token] = field(default_factory=list)


@dataclass
class Script:
    """Pipelines of commands, and each output redirection as (operator, target)."""

    pipelines: list[list[Command]]
    redirects: list[tuple[Token, Token]]


def span_of(words: Sequence[Token]) -> tuple[int, int]:
    """From the first word's start to the last word's end."""
    if not words:
        return 0, 0
    return min(word.start for word in words), max(word.end for word in words)


class _Lexer:
    """One pass over a `Source`, producing tokens (see `lex`)."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.text = source.text
        self.identity = source.at is None
        self.tokens: list[Token] = []
        self.chars: list[str] = []
        self.at: list[int] = []
        self.word_from = -1  # index where the current word began, -1: no word
        self.delimiter_next: bool | None = None  # after << (False) or <<- (True): the next word is a delimiter
        self.pending: list[tuple[str, bool]] = []  # here-documents whose bodies start after the next newline

    def add(self, index: int, ch: str | None = None) -> None:
        if self.word_from < 0:
            self.word_from = index
        if ch is not None:
            self.chars.append(ch)
            self.at.append(index if self.identity else self.source.offset(index))

    def flush(self, end: int) -> None:
        if self.word_from < 0:
            return
        start, stop = self.source.span(self.word_from, end)
        self.tokens.append(Token("".join(self.chars), WORD, start, stop, self.at))
        self.chars, self.at, self.word_from = [], [], -1
        if self.delimiter_next is not None:
            self.pending.append((self.tokens[-1].text, self.delimiter_next))
            self.delimiter_next = None

    def operator(self, start: int, end: int, text: str) -> None:
        first, stop = self.source.span(start, end)
        self.tokens.append(Token(text, OPERATOR, first, stop))

    def bodies(self, newline: int) -> int:
        """Read the pending here-document bodies after the newline at `newline`; where lexing goes on."""
        text, position = self.text, newline + 1
        for delimiter, strip_tabs in self.pending:
            body_start, cursor = position, position
            while True:
                if cursor > len(text):
                    body_end = position = len(text)
                    break
                line_end = text.find("\n", cursor)
                line_end = len(text) if line_end < 0 else line_end
                line = text[cursor:line_end]
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    body_end, position = cursor, line_end
                    break
                cursor = line_end + 1
            start, stop = self.source.span(body_start, body_end)
            at = [self.source.offset(index) for index in range(body_start, body_end)]
            self.tokens.append(Token(text[body_start:body_end], HEREDOC, start, stop, at))
        self.pending = []
        return position

    def run(self) -> list[Token]:
        text = self.text
        i, n = 0, len(text)
        while i < n:
            ch = text[i]
            if ch in " \t\r":
                self.flush(i)
                i += 1
            elif ch in "\n`":
                self.flush(i)
                self.operator(i, i + 1, ";")
                if ch == "\n" and self.pending:
                    i = self.bodies(i)
                    continue
                i += 1
            elif ch == "#" and self.word_from < 0:
                end = text.find("\n", i)
                i = n if end < 0 else end
            elif ch in _OPERATOR_CHARS:
                self.flush(i)
                j = i
                while j < n and text[j] in _OPERATOR_CHARS:
                    j += 1
                run = text[i:j]
                if run == "<<" and text[j : j + 1] == "-":
                    run, j = "<<-", j + 1
                self.operator(i, j, run)
                if run in ("<<", "<<-"):
                    self.delimiter_next = run == "<<-"
                i = j
            elif ch == "\\":
                if text[i + 1 : i + 2] == "\n":  # a line continuation
                    i += 2
                    continue
                self.add(i)
                if i + 1 < n:
                    self.add(i + 1, text[i + 1])
                i += 2
            elif ch == "'":
                self.add(i)
                end = text.find("'", i + 1)
                end = n if end < 0 else end
                for index in range(i + 1, end):
                    self.add(index, text[index])
                i = end + 1
            elif ch == '"':
                self.add(i)
                j = i + 1
                while j < n and text[j] != '"':
                    if text[j] == "\\" and j + 1 < n and text[j + 1] in '"\\$`':
                        j += 1
                    self.add(j, text[j])
                    j += 1
                i = j + 1
            else:
                j = i + 1
                while j < n and text[j] not in _SPECIAL:
                    j += 1
                if self.word_from < 0:
                    self.word_from = i
                self.chars.append(text[i:j])
                self.at.extend(range(i, j) if self.identity else (self.source.offset(k) for k in range(i, j)))
                i = j
        self.flush(min(i, n))
        return self.tokens


def lex(source: Source | str) -> list[Token]:
    """Tokens of `source`: words (quotes removed), operator runs (`;` for a newline or backtick),
    here-document bodies (after the newline that ends their command line)."""
    return _Lexer(source if isinstance(source, Source) else Source(source)).run()


def _is_output_redirect(op: str) -> bool:
    return ">" in op and "(" not in op


def parse(source: Source | str) -> Script:
    """Pipelines of commands and the output redirections of `source`."""
    pipelines: list[list[Command]] = [[Command()]]
    redirects: list[tuple[Token, Token]] = []
    awaiting_body: list[Command] = []  # commands whose here-document bodies are still to come
    expect: str | None = None  # what the next word is: "target", "source", "delimiter" or "herestring"
    pending_op: Token | None = None
    for token in lex(source):
        command = pipelines[-1][-1]
        if token.kind == HEREDOC:
            if awaiting_body:
                awaiting_body.pop(0).stdin.append(token)
            continue
        if token.kind == WORD:
            if expect == "target" and pending_op is not None:
                redirects.append((pending_op, token))
            elif expect == "herestring":
                command.stdin.append(token)
            elif expect is None:
                command.argv.append(token)
            expect, pending_op = None, None
            continue
        expect, pending_op = None, None
        op = token.text
        if _is_output_redirect(op):
            expect, pending_op = "target", token
        elif op in _INPUT_REDIRECTS:
            expect = {"<<": "delimiter", "<<-": "delimiter", "<<<": "herestring"}.get(op, "source")
            if expect == "delimiter":
                awaiting_body.append(command)
        elif op in _PIPES:
            pipelines[-1].append(Command())
        else:
            pipelines.append([Command()])
    cleaned = [[command for command in pipeline if command.argv or command.stdin] for pipeline in pipelines]
    return Script([pipeline for pipeline in cleaned if pipeline], redirects)
