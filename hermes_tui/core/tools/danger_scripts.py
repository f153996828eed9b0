"""Inline scripts that delete files: the code handed to `python -c`, `node -e`, `perl -e`, `ruby -e`.

Owns: which interpreter speaks which language, which of its words are inline code (or the input
text a here-document feeds it), the delete calls of each language (`shutil.rmtree`, `os.remove`,
`fs.rmSync`, `unlink`, `FileUtils.rm_rf` ...), and the shell commands such code runs through
`os.system`/`subprocess`/`execSync`/`system` (its string literals, a list of literals joined into
one command). `danger.py` assesses those as shell commands; this module does not lex shell.
Pure functions; spans are offsets in the original command.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from hermes_tui.core.tools.shell_words import Source, Token

SCRIPT_DELETE = "an inline script deletes files (rmtree, unlink, rm_rf)"

PYTHON, NODE, PERL, RUBY = "python", "node", "perl", "ruby"
_PYTHON_NAME = re.compile(r"^(python|pypy)(\d+(\.\d+)?)?$")
_NAMES = {"node": NODE, "nodejs": NODE, "bun": NODE, "perl": PERL, "ruby": RUBY}
# options whose next word is the code to run
_CODE_OPTION = {
    PYTHON: re.compile(r"^-[A-Za-z]*c$"),
    NODE: re.compile(r"^(-e|-p|-pe|--eval|--print)$"),
    PERL: re.compile(r"^-[A-Za-z]*[eE]$"),
    RUBY: re.compile(r"^-[A-Za-z]*e$"),
}
_INLINE_EVAL = re.compile(r"^--(eval|print)=")  # node --eval=CODE
_DELETE_CALLS = {
    PYTHON: re.compile(
        r"\bshutil\s*\.\s*rmtree\b|\bos\s*\.\s*(remove|unlink|rmdir|removedirs)\b|\brmtree\s*\("
        r"|\.\s*(unlink|rmdir)\s*\("
    ),
    NODE: re.compile(
        r"\b(fs|fsp|fse|promises)\s*\.\s*(rm|rmSync|rmdir|rmdirSync|unlink|unlinkSync|remove|removeSync"
        r"|emptyDir|emptyDirSync)\b|\b(rmSync|rmdirSync|unlinkSync|rimraf)\b|\)\s*\.\s*(rm|unlink|rmdir)\s*\("
    ),
    PERL: re.compile(r"\b(unlink|rmtree|remove_tree|rmdir)\b"),
    RUBY: re.compile(
        r"\bFileUtils\s*\.\s*(rm|rm_r|rm_rf|rm_f|rmtree|remove|remove_dir|remove_entry|remove_entry_secure|rmdir)\b"
        r"|\b(File|Dir)\s*\.\s*(delete|unlink|rmdir)\b|\brm_rf\b"
    ),
}
_SHELL_OUTS = {
    PYTHON: re.compile(r"\bos\s*\.\s*(system|popen|exec\w*|spawn\w*)\s*\(|\bsubprocess\s*\.\s*\w+\s*\("),
    NODE: re.compile(r"\b(exec|execSync|spawn|spawnSync|execFile|execFileSync)\s*\("),
    PERL: re.compile(r"\b(system|exec|qx)\b|`"),
    RUBY: re.compile(r"\b(system|exec|spawn)\b|`|%x"),
}
_STRING = re.compile(r"'((?:[^'\\\n]|\\.)*)'|\"((?:[^\"\\\n]|\\.)*)\"")
_LIST_OF_STRINGS = re.compile(
    r"\[\s*(?:'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")(?:\s*,\s*(?:'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"))*\s*,?\s*\]"
)


def language_of(command_name: str) -> str | None:
    """The script language an interpreter runs (`python3.12` -> "python"), None for anything else."""
    name = os.path.basename(command_name)
    if _PYTHON_NAME.match(name):
        return PYTHON
    return _NAMES.get(name)


def inline_code(language: str, args: Sequence[Token]) -> list[Source]:
    """The code an interpreter is given on its command line (`-c CODE`, `-e CODE`, `--eval=CODE`)."""
    option = _CODE_OPTION[language]
    code: list[Source] = []
    index = 0
    while index < len(args):
        word = args[index].text
        if option.match(word) and index + 1 < len(args):
            code.append(args[index + 1].source())
            index += 2
            if language == PYTHON:
                break  # the rest are the script's own arguments
            continue
        if language == NODE and _INLINE_EVAL.match(word):
            prefix = word.index("=") + 1
            code.append(Source(word[prefix:], args[index].at[prefix:]))
        elif not word.startswith("-"):
            break  # a script file: its own arguments follow
        index += 1
    return code


def _literal_sources(code: Source) -> list[Source]:
    """The string literals of `code` as shell text, a list of literals joined with spaces."""
    sources: list[Source] = []
    in_lists: set[int] = set()
    for match in _LIST_OF_STRINGS.finditer(code.text):
        text: list[str] = []
        at: list[int] = []
        for literal in _STRING.finditer(code.text, match.start(), match.end()):
            group = 1 if literal.group(1) is not None else 2
            if text:
                text.append(" ")
                at.append(at[-1] + 1 if at else code.offset(literal.start()))
            text.append(literal.group(group))
            at.extend(code.offset(index) for index in range(literal.start(group), literal.end(group)))
            in_lists.add(literal.start())
        sources.append(Source("".join(text), at))
    for literal in _STRING.finditer(code.text):
        if literal.start() in in_lists:
            continue
        group = 1 if literal.group(1) is not None else 2
        at = [code.offset(index) for index in range(literal.start(group), literal.end(group))]
        sources.append(Source(literal.group(group), at))
    return sources


def script_risks(language: str, code: Source) -> tuple[list[tuple[str, int, int]], list[Source]]:
    """(delete calls found as (reason, start, end), shell commands the code runs, for the caller to assess)."""
    matches = _DELETE_CALLS[language].finditer(code.text)
    hits = [(SCRIPT_DELETE, *code.span(match.start(), match.end())) for match in matches]
    shells = _literal_sources(code) if _SHELL_OUTS[language].search(code.text) else []
    return hits, shells
