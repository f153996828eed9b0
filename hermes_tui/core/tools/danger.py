"""Why a shell command is risky: `assess_command(command) -> tuple[str, ...]` of plain-language reasons.

Owns: a small quote-aware shell lexer (words vs operators, so `echo "rm -rf /"` is not a delete),
wrapper unwrapping (sudo, env, nice, xargs, timeout, ...), and the rule table: recursive deletes,
root privileges, raw disk writes, formatting, recursive permission changes, downloads piped into a
shell, history-rewriting git commands, writes to block devices and system files, fork bombs,
shutdowns, mass kills, destructive SQL. Pure functions; the terminal tool puts the reasons into
`ApprovalRequest.reasons` and the UI highlights them. An empty tuple means nothing was flagged.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

RM_RECURSIVE_FORCE = "recursive forced delete (rm -rf)"
RM_RECURSIVE = "recursive delete (rm -r)"
RM_CRITICAL_PATH = "deletes a critical path (/, ~, *, . or a system folder)"
SHRED = "irreversibly destroys file contents (shred)"
ROOT_PRIVILEGES = "runs with root privileges (sudo/su)"
DD_WRITE = "raw copy with dd can overwrite disks or files (dd of=)"
DISK_FORMAT = "formats or partitions a disk (mkfs/fdisk/wipefs)"
RECURSIVE_PERMISSIONS = "recursive permission or owner change (chmod/chown -R)"
WORLD_WRITABLE = "makes files writable by everyone (chmod 777)"
DOWNLOAD_TO_SHELL = "runs a downloaded script (curl | sh)"
PIPE_TO_SHELL = "pipes text into a shell interpreter (| sh)"
GIT_FORCE_PUSH = "force push rewrites remote history (git push --force)"
GIT_RESET_HARD = "discards uncommitted changes (git reset --hard)"
GIT_CLEAN = "deletes untracked files (git clean -f)"
BLOCK_DEVICE_WRITE = "writes directly to a disk device (/dev/sd*)"
SYSTEM_FILE_WRITE = "overwrites a system file (/etc, /boot, /usr ...)"
FORK_BOMB = "fork bomb: spawns processes until the machine hangs"
SHUTDOWN = "shuts down or reboots the machine"
KILL_ALL = "kills every process you own (kill -1 / killall5)"
KILL_BY_NAME = "kills every process matching a name (pkill/killall)"
FIND_DELETE = "bulk delete through find (-delete / -exec rm)"
CRONTAB_REMOVE = "removes all cron jobs (crontab -r)"
DESTRUCTIVE_SQL = "destructive SQL (DROP / TRUNCATE)"

_OPERATOR_CHARS = frozenset("();<>|&")
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh"})
_INTERPRETERS = _SHELLS | {"python", "python3", "perl", "ruby", "node"}
_DOWNLOADERS = frozenset({"curl", "wget", "fetch"})
_DISK_TOOLS = frozenset({"mke2fs", "mkswap", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "wipefs"})
_POWER_COMMANDS = frozenset({"shutdown", "reboot", "halt", "poweroff"})
_CRITICAL_RM_TARGETS = frozenset(
    {
        "/",
        "/*",
        "~",
        "~/",
        "~/*",
        "$HOME",
        "$HOME/",
        "$HOME/*",
        "${HOME}",
        "*",
        ".",
        "./",
        "..",
        "../",
        "/home",
        "/etc",
        "/usr",
        "/var",
        "/boot",
        "/bin",
        "/sbin",
        "/lib",
        "/lib64",
        "/opt",
        "/root",
        "/srv",
        "/sys",
        "/proc",
        "/dev",
    }
)
# wrapper -> options of that wrapper which take a separate value
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S"}),
    "nice": frozenset({"-n"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "-o"}),
    "command": frozenset(),
    "exec": frozenset({"-a"}),
    "builtin": frozenset(),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "timeout": frozenset({"-s", "-k"}),
    "xargs": frozenset({"-n", "-I", "-P", "-d", "-L", "-s", "-E", "-a"}),
}
_ROOT_WRAPPERS = frozenset({"sudo", "doas"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_BLOCK_DEVICE = re.compile(r"^/dev/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|md\d|dm-\d|mapper/)")
_SYSTEM_PATH = re.compile(r"^/(etc|boot|usr|bin|sbin|lib|lib64|sys|proc/sys)(/|$)")
_WORLD_WRITABLE_OCTAL = re.compile(r"^0*[0-7]?[0-7][0-7][2367]$")
_WORLD_WRITABLE_SYMBOLIC = re.compile(r"(^|,)[ugo]*[ao][ugoa]*[+=][rwxXst]*w")
_FORK_BOMB = re.compile(r"([\w:.]+)\s*\(\s*\)\s*\{[^{}]*?\1\s*\|\s*\1\s*&")
_DESTRUCTIVE_SQL = re.compile(r"\b(drop\s+(table|database|schema)|truncate\s+table)\b", re.IGNORECASE)
_SHELL_READS_DOWNLOAD = re.compile(
    r"(\b(ba|z|da|k|fi)?sh|\bsource|(^|\s)\.)\s+<\(\s*(curl|wget)\b"
    r"|\b((ba|z|da|k)?sh\s+-c|eval)\s+[\"']?\$\(\s*(curl|wget)\b"
)
_MAX_DEPTH = 3


# --------------------------------------------------------------------------- lexing


def _lex(text: str) -> list[tuple[str, bool]]:
    """(token, is_operator) pairs, with shell quoting and escapes removed from words.

    Newlines and backticks become ";" separators so each line and each `...` substitution is
    assessed as its own command; `#` at the start of a word begins a comment.
    """
    tokens: list[tuple[str, bool]] = []
    word: list[str] = []
    in_word = False
    i, n = 0, len(text)

    def flush() -> None:
        nonlocal in_word
        if in_word:
            tokens.append(("".join(word), False))
            word.clear()
            in_word = False

    while i < n:
        ch = text[i]
        if ch in " \t\r":
            flush()
            i += 1
        elif ch in "\n`":
            flush()
            tokens.append((";", True))
            i += 1
        elif ch == "#" and not in_word:
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif ch in _OPERATOR_CHARS:
            flush()
            j = i
            while j < n and text[j] in _OPERATOR_CHARS:
                j += 1
            tokens.append((text[i:j], True))
            i = j
        elif ch == "\\":
            if text[i + 1 : i + 2] != "\n":  # backslash-newline is a line continuation
                word.append(text[i + 1 : i + 2])
                in_word = True
            i += 2
        elif ch == "'":
            end = text.find("'", i + 1)
            end = n if end < 0 else end
            word.append(text[i + 1 : end])
            in_word = True
            i = end + 1
        elif ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n and text[j + 1] in '"\\$`':
                    j += 1
                word.append(text[j])
                j += 1
            in_word = True
            i = j + 1
        else:
            word.append(ch)
            in_word = True
            i += 1
    flush()
    return tokens


def _is_output_redirect(op: str) -> bool:
    return ">" in op and "(" not in op


def _parse(text: str) -> tuple[list[list[list[str]]], list[str]]:
    """Pipelines (lists of argv lists) and the targets of output redirections."""
    pipelines: list[list[list[str]]] = [[[]]]
    targets: list[str] = []
    expect: str | None = None  # "target" after an output redirect, "source" after an input one
    for token, is_operator in _lex(text):
        if not is_operator:
            if expect == "target":
                targets.append(token)
            elif expect is None:
                pipelines[-1][-1].append(token)
            expect = None
            continue
        expect = None
        if _is_output_redirect(token):
            expect = "target"
        elif token in ("<", "<<", "<<<", "<<-"):
            expect = "source"
        elif token in ("|", "|&"):
            pipelines[-1].append([])
        else:
            pipelines.append([[]])
    cleaned = [[argv for argv in pipeline if argv] for pipeline in pipelines]
    return [pipeline for pipeline in cleaned if pipeline], targets


# --------------------------------------------------------------------------- rules


def _short_flags(args: Iterable[str]) -> str:
    """All letters of single-dash option clusters (`-rf -v` -> "rfv")."""
    return "".join(arg[1:] for arg in args if arg.startswith("-") and not arg.startswith("--"))


def _unwrap(argv: list[str], found: list[str]) -> list[str]:
    """The real command under sudo/env/nice/xargs/... and leading VAR=value assignments."""
    argv = list(argv)
    while argv:
        if _ASSIGNMENT.match(argv[0]):
            argv.pop(0)
            continue
        name = os.path.basename(argv[0])
        if name not in _WRAPPERS:
            break
        if name in _ROOT_WRAPPERS:
            found.append(ROOT_PRIVILEGES)
        takes_value = _WRAPPERS[name]
        argv.pop(0)
        while argv and (argv[0].startswith("-") or (name == "env" and _ASSIGNMENT.match(argv[0]))):
            option = argv.pop(0)
            if option == "--":
                break
            if option in takes_value and argv:
                argv.pop(0)
        if name == "timeout" and argv:
            argv.pop(0)  # the duration
    return argv


def _rm_reasons(args: list[str]) -> list[str]:
    flags = _short_flags(args)
    recursive = "r" in flags or "R" in flags or "--recursive" in args
    force = "f" in flags or "--force" in args
    reasons: list[str] = []
    if recursive and force:
        reasons.append(RM_RECURSIVE_FORCE)
    elif recursive:
        reasons.append(RM_RECURSIVE)
    operands = [arg for arg in args if not arg.startswith("-")]
    paths = [(arg.rstrip("/") or "/") if arg.startswith("/") else arg for arg in operands]
    if "--no-preserve-root" in args or (recursive and any(path in _CRITICAL_RM_TARGETS for path in paths)):
        reasons.append(RM_CRITICAL_PATH)
    return reasons


def _chmod_reasons(name: str, args: list[str]) -> list[str]:
    reasons: list[str] = []
    if "R" in _short_flags(args) or "--recursive" in args:
        reasons.append(RECURSIVE_PERMISSIONS)
    if name == "chmod" and any(
        _WORLD_WRITABLE_OCTAL.match(arg) or _WORLD_WRITABLE_SYMBOLIC.search(arg) for arg in args
    ):
        reasons.append(WORLD_WRITABLE)
    return reasons


def _git_reasons(args: list[str]) -> list[str]:
    rest = list(args)
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        if option in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") and rest:
            rest.pop(0)
    if not rest:
        return []
    sub, sub_args = rest[0], rest[1:]
    flags = _short_flags(sub_args)
    if sub == "push" and (
        "f" in flags
        or any(arg == "--force" or arg.startswith("--force-with-lease") for arg in sub_args)
        or any(arg.startswith("+") for arg in sub_args)
    ):
        return [GIT_FORCE_PUSH]
    if sub == "reset" and "--hard" in sub_args:
        return [GIT_RESET_HARD]
    if sub == "clean" and ("f" in flags or "--force" in sub_args):
        return [GIT_CLEAN]
    return []


def _kill_reasons(args: list[str]) -> list[str]:
    targets = list(args)
    if targets and targets[0] in ("-s", "-n") and len(targets) > 1:
        targets = targets[2:]
    elif targets and targets[0].startswith("-") and targets[0] != "--":
        targets = targets[1:]  # the signal, e.g. -9, -KILL or -1 (SIGHUP)
    if targets and targets[0] == "--":
        targets = targets[1:]
    return [KILL_ALL] if "-1" in targets else []


def _find_reasons(args: list[str], depth: int) -> list[str]:
    reasons: list[str] = []
    if "-delete" in args:
        reasons.append(FIND_DELETE)
    for index, arg in enumerate(args):
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            nested: list[str] = []
            for item in args[index + 1 :]:
                if item in (";", "+"):
                    break
                nested.append(item)
            if nested and os.path.basename(nested[0]) in ("rm", "shred", "unlink"):
                reasons.append(FIND_DELETE)
            reasons.extend(_command_reasons(nested, depth + 1))
    return reasons


def _command_reasons(argv: list[str], depth: int) -> list[str]:
    found: list[str] = []
    argv = _unwrap(argv, found)
    if not argv:
        return found
    name, args = os.path.basename(argv[0]), argv[1:]
    if name == "rm":
        found.extend(_rm_reasons(args))
    elif name == "shred":
        found.append(SHRED)
    elif name == "su":
        found.append(ROOT_PRIVILEGES)
        if "-c" in args and args.index("-c") + 1 < len(args):
            found.extend(_assess(args[args.index("-c") + 1], depth + 1))
    elif name == "dd":
        outputs = [arg[3:] for arg in args if arg.startswith("of=")]
        if outputs:
            found.append(DD_WRITE)
        if any(_BLOCK_DEVICE.match(path) for path in outputs):
            found.append(BLOCK_DEVICE_WRITE)
    elif name.startswith("mkfs") or name in _DISK_TOOLS:
        found.append(DISK_FORMAT)
    elif name in ("chmod", "chown", "chgrp"):
        found.extend(_chmod_reasons(name, args))
    elif name == "git":
        found.extend(_git_reasons(args))
    elif _is_power_command(name, args):
        found.append(SHUTDOWN)
    elif name == "kill":
        found.extend(_kill_reasons(args))
    elif name == "killall5":
        found.append(KILL_ALL)
    elif name in ("pkill", "killall"):
        found.append(KILL_BY_NAME)
    elif name == "find":
        found.extend(_find_reasons(args, depth))
    elif name == "crontab" and "r" in _short_flags(args):
        found.append(CRONTAB_REMOVE)
    elif name == "tee":
        found.extend(_target_reasons(arg for arg in args if not arg.startswith("-")))
    elif name in _SHELLS and "-c" in args and args.index("-c") + 1 < len(args):
        found.extend(_assess(args[args.index("-c") + 1], depth + 1))
    elif name == "eval":
        found.extend(_assess(" ".join(args), depth + 1))
    return found


def _is_power_command(name: str, args: list[str]) -> bool:
    if name in _POWER_COMMANDS:
        return True
    if name in ("init", "telinit"):
        return args[:1] in (["0"], ["6"])
    return name == "systemctl" and any(arg in ("poweroff", "reboot", "halt", "kexec") for arg in args)


def _target_reasons(targets: Iterable[str]) -> list[str]:
    reasons: list[str] = []
    for target in targets:
        if _BLOCK_DEVICE.match(target):
            reasons.append(BLOCK_DEVICE_WRITE)
        elif _SYSTEM_PATH.match(target):
            reasons.append(SYSTEM_FILE_WRITE)
    return reasons


def _pipeline_reasons(pipeline: list[list[str]]) -> list[str]:
    """Downloads or text piped into a shell: `curl ... | sh`, `... | sudo bash -s`."""
    reasons: list[str] = []
    commands = [_unwrap(argv, []) for argv in pipeline]
    names = [os.path.basename(command[0]) if command else "" for command in commands]
    for position in range(1, len(commands)):
        name = names[position]
        if name in _INTERPRETERS and _DOWNLOADERS.intersection(names[:position]):
            reasons.append(DOWNLOAD_TO_SHELL)
        elif name in _SHELLS and "-c" not in commands[position][1:]:
            reasons.append(PIPE_TO_SHELL)
    return reasons


def _assess(command: str, depth: int) -> list[str]:
    if depth > _MAX_DEPTH or not command.strip():
        return []
    found: list[str] = []
    if _FORK_BOMB.search(command):
        found.append(FORK_BOMB)
    if _SHELL_READS_DOWNLOAD.search(command):
        found.append(DOWNLOAD_TO_SHELL)
    if _DESTRUCTIVE_SQL.search(command):
        found.append(DESTRUCTIVE_SQL)
    pipelines, targets = _parse(command)
    found.extend(_target_reasons(targets))
    for pipeline in pipelines:
        for argv in pipeline:
            found.extend(_command_reasons(argv, depth))
        found.extend(_pipeline_reasons(pipeline))
    return found


def assess_command(command: str) -> tuple[str, ...]:
    """Reasons `command` is risky, most specific first per command, without duplicates."""
    if not isinstance(command, str):
        return ()
    return tuple(dict.fromkeys(_assess(command, 0)))


def simple_commands(command: str) -> tuple[list[list[str]], list[str]]:
    """Every simple command in `command` as its argv with wrappers (sudo, env, xargs ...) unwrapped,
    and the targets of its output redirections. For callers that judge commands by what they run
    (the checkpoint hook's read-only test); an empty argv list means nothing runs."""
    if not isinstance(command, str):
        return [], []
    pipelines, targets = _parse(command)
    argvs = [_unwrap(argv, []) for pipeline in pipelines for argv in pipeline]
    return [argv for argv in argvs if argv], targets
