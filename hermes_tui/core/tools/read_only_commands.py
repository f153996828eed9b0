"""Whether a shell command clearly changes no files: `is_read_only(command) -> bool`.

The checkpoint hook asks this before a terminal call: a command that only looks (ls, cat, grep,
git status, find without -delete ...) needs no snapshot of the working folder first; anything
else does. The test is deliberately narrow: every simple command of the line (wrappers such as
env or xargs unwrapped, `$(...)` and backticks judged as commands of their own, by
`danger.simple_commands`) must be a known reader used without its writing options, and output
may only be redirected to /dev/null or another descriptor. A command it does not know counts as
one that may change files — the cost of that mistake is one snapshot, never a lost change.
"""

from __future__ import annotations

import os

from hermes_tui.core.tools.danger import simple_commands

# Programs that only read files and print (with the writing options below excluded).
READERS = frozenset(
    {
        "[",
        "basename",
        "cat",
        "cd",
        "cmp",
        "column",
        "comm",
        "cut",
        "date",
        "df",
        "diff",
        "dirname",
        "du",
        "echo",
        "egrep",
        "false",
        "fgrep",
        "file",
        "find",
        "free",
        "git",
        "grep",
        "head",
        "hexdump",
        "hostname",
        "id",
        "jq",
        "less",
        "ls",
        "md5sum",
        "more",
        "nl",
        "nproc",
        "od",
        "printenv",
        "printf",
        "ps",
        "pwd",
        "readlink",
        "realpath",
        "rg",
        "sed",
        "seq",
        "sha1sum",
        "sha256sum",
        "sort",
        "stat",
        "tail",
        "test",
        "tr",
        "tree",
        "true",
        "type",
        "uname",
        "uniq",
        "uptime",
        "wc",
        "whereis",
        "which",
        "whoami",
        "xxd",
    }
)
# git subcommands that never write the work tree (the user's repo may still change in .git: not our business).
GIT_READERS = frozenset(
    {
        "blame",
        "cat-file",
        "describe",
        "diff",
        "grep",
        "log",
        "ls-files",
        "ls-tree",
        "rev-parse",
        "shortlog",
        "show",
        "status",
    }
)
_GIT_OPTIONS_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
_FIND_WRITERS = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"})
_SUBSTITUTIONS = ("$(", "`", "<(", ">(")
_SAFE_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


def _git_reads(args: list[str]) -> bool:
    rest = list(args)
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        if option in _GIT_OPTIONS_WITH_VALUE and rest:
            rest.pop(0)
    if not rest or rest[0] not in GIT_READERS:
        return False
    return not any(arg == "--output" or arg.startswith("--output=") for arg in rest[1:])


def _sed_reads(args: list[str]) -> bool:
    for arg in args:
        if arg.startswith("--in-place") or (arg.startswith("-") and not arg.startswith("--") and "i" in arg[1:]):
            return False
    return True


def _sort_reads(args: list[str]) -> bool:
    return not any(arg.startswith("--output") or (arg.startswith("-o") and not arg.startswith("--")) for arg in args)


def _reads_only(argv: list[str]) -> bool:
    name = os.path.basename(argv[0])
    args = argv[1:]
    if name not in READERS:
        return False
    if name == "git":
        return _git_reads(args)
    if name == "find":
        return not _FIND_WRITERS.intersection(args)
    if name == "sed":
        return _sed_reads(args)
    if name == "sort":
        return _sort_reads(args)
    return True


def _safe_target(target: str) -> bool:
    """/dev/null and descriptor duplications (`2>&1` leaves the target "1")."""
    return target in _SAFE_TARGETS or target.lstrip("&").isdigit() or target == "-"


def is_read_only(command: str) -> bool:
    """True only when every part of `command` is a known reader and nothing is redirected into a file."""
    if not isinstance(command, str):
        return False
    if any(mark in command for mark in _SUBSTITUTIONS):
        return False  # a substitution inside quotes is not split out by the lexer: judge it as unknown
    argvs, targets = simple_commands(command)
    if not all(_safe_target(target) for target in targets):
        return False
    return all(_reads_only(argv) for argv in argvs)
