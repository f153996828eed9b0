"""Why a shell command is risky, and where: `find_risks(command)` -> every flagged span as
`Risk(start, end, reason)`, `assess_command(command)` -> the plain-language reasons alone.

Owns: the rule table over commands read by `shell_words` (words vs operators, so `echo "rm -rf /"`
is not a delete): wrapper unwrapping (sudo, env, nice, xargs, timeout, ...), variables assigned a
command name and expanded in command position (`x=rm; $x -rf /`), commands nested in `sh -c`,
`su -c`, `eval`, `find -exec` and here-documents fed to a shell, inline scripts
(`danger_scripts`), and the rules: recursive deletes, root privileges, raw disk writes,
formatting, recursive permission changes, downloads piped into a shell, history-rewriting git
commands, writes to block devices and system files, fork bombs, shutdowns, mass kills,
destructive SQL, emptying files (truncate -s 0), moving a critical path or onto /dev/null,
kubectl delete, docker prune. Every line of the command is read, and a span is offsets into the
original text (a nested command's span points into the quoted word it came from). Pure
functions; the terminal tool puts the reasons into `ApprovalRequest.reasons` and the approval
screen highlights the spans. Empty means nothing was flagged.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hermes_tui.core.tools import danger_scripts
from hermes_tui.core.tools.danger_scripts import SCRIPT_DELETE as SCRIPT_DELETE
from hermes_tui.core.tools.shell_words import Command, Source, Token, parse, span_of

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
TRUNCATE_EMPTIES = "empties files (truncate -s 0)"
MOVE_CRITICAL = "moves a critical path away (/, ~, $HOME or a system folder)"
MOVE_TO_NULL = "moves files onto /dev/null (their contents are lost)"
KUBECTL_DELETE = "deletes Kubernetes resources (kubectl delete)"
DOCKER_PRUNE = "removes Docker data for good (docker ... prune)"
DOCKER_VOLUME_RM = "deletes Docker volumes and their data"
VARIABLE_COMMAND = "runs a command named by a variable (x=rm; $x ...)"

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


_RESERVED = frozenset({"if", "then", "else", "elif", "while", "until", "do", "{", "!"})
_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
_VARIABLE = re.compile(r"^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$")
_MOVE_CRITICAL_TARGETS = _CRITICAL_RM_TARGETS - {"*", ".", "./", "..", "../"}
_ZERO_SIZE = re.compile(r"^0+([KMGTPEZY](i?B)?|B)?$", re.IGNORECASE)
_KUBECTL_VALUE_OPTIONS = frozenset(
    {"-n", "--namespace", "--context", "--kubeconfig", "-s", "--server", "--cluster", "--user", "--token", "--as"}
)
_DOCKER_VALUE_OPTIONS = frozenset({"-H", "--host", "-c", "--context", "--config", "-l", "--log-level"})
_MAX_SUBSTITUTIONS = 8

Hit = tuple[str, int, int]  # (reason, start, end) while assessing
Variables = dict[str, str]  # shell variables assigned so far: name -> value


@dataclass(frozen=True)
class Risk:
    """One flagged stretch of a command: the characters `command[start:end]`, and why."""

    start: int
    end: int
    reason: str


# --------------------------------------------------------------------------- rules


def _short_flags(args: Iterable[str]) -> str:
    """All letters of single-dash option clusters (`-rf -v` -> "rfv")."""
    return "".join(arg[1:] for arg in args if arg.startswith("-") and not arg.startswith("--"))


def _substitute(word: Token, variables: Variables) -> list[Token] | None:
    """`$x` / `${x}` of a variable assigned earlier, as the words of its value (spanning `$x`)."""
    match = _VARIABLE.match(word.text)
    name = (match.group(1) or match.group(2)) if match else None
    if name is None or name not in variables:
        return None
    return [Token(piece, "word", word.start, word.end, [word.start] * len(piece)) for piece in variables[name].split()]


def _unwrap(argv: Sequence[Token], variables: Variables, found: list[Hit]) -> tuple[list[Token], Token | None]:
    """The real command under sudo/env/nice/xargs/..., reserved words and leading VAR=value assignments,
    with a variable in command position replaced by its value; and the variable's word, if one was."""
    argv = list(argv)
    via: Token | None = None
    substitutions = 0
    while argv:
        first = argv[0]
        expanded = _substitute(first, variables) if substitutions < _MAX_SUBSTITUTIONS else None
        if expanded is not None:
            argv[0:1] = expanded
            via = via or first
            substitutions += 1
            continue
        if _ASSIGNMENT.match(first.text) or first.text in _RESERVED:
            argv.pop(0)
            continue
        name = os.path.basename(first.text)
        if name not in _WRAPPERS:
            break
        if name in _ROOT_WRAPPERS:
            found.append((ROOT_PRIVILEGES, first.start, first.end))
        takes_value = _WRAPPERS[name]
        argv.pop(0)
        while argv and (argv[0].text.startswith("-") or (name == "env" and _ASSIGNMENT.match(argv[0].text))):
            option = argv.pop(0).text
            if option == "--":
                break
            if option in takes_value and argv:
                argv.pop(0)
        if name == "timeout" and argv:
            argv.pop(0)  # the duration
    return argv, via


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
    paths = [_normal_path(arg) for arg in operands]
    if "--no-preserve-root" in args or (recursive and any(path in _CRITICAL_RM_TARGETS for path in paths)):
        reasons.append(RM_CRITICAL_PATH)
    return reasons


def _normal_path(arg: str) -> str:
    return (arg.rstrip("/") or "/") if arg.startswith("/") else arg


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


def _truncate_reasons(args: list[str]) -> list[str]:
    """`truncate -s 0`, `-s0`, `--size=0`, `--size 0` (also `0K`...): the files end up empty."""
    for index, arg in enumerate(args):
        size: str | None = None
        if arg in ("-s", "--size") and index + 1 < len(args):
            size = args[index + 1]
        elif arg.startswith("--size="):
            size = arg[len("--size=") :]
        elif arg.startswith("-s") and not arg.startswith("--"):
            size = arg[2:]
        if size is not None and _ZERO_SIZE.match(size):
            return [TRUNCATE_EMPTIES]
    return []


def _mv_reasons(args: list[str]) -> list[str]:
    operands = [_normal_path(arg) for arg in args if not arg.startswith("-")]
    reasons: list[str] = []
    if len(operands) >= 2 and any(path in _MOVE_CRITICAL_TARGETS for path in operands[:-1]):
        reasons.append(MOVE_CRITICAL)
    if len(operands) >= 2 and "/dev/null" in operands:
        reasons.append(MOVE_TO_NULL)
    return reasons


def _kubectl_reasons(args: list[str]) -> list[str]:
    rest = list(args)
    while rest and rest[0].startswith("-"):
        if rest.pop(0) in _KUBECTL_VALUE_OPTIONS and rest:
            rest.pop(0)
    return [KUBECTL_DELETE] if rest[:1] == ["delete"] else []


def _docker_reasons(name: str, args: list[str]) -> list[str]:
    rest = list(args)
    while rest and rest[0].startswith("-"):
        if rest.pop(0) in _DOCKER_VALUE_OPTIONS and rest:
            rest.pop(0)
    words = [arg for arg in rest if not arg.startswith("-")]
    if name == "docker-compose":
        words = ["compose", *words]
    if words[:1] == ["compose"] and "down" in words and ("-v" in rest or "--volumes" in rest):
        return [DOCKER_VOLUME_RM]
    if "prune" in words[:2]:
        return [DOCKER_PRUNE]
    if words[:1] == ["volume"] and words[1:2] in (["rm"], ["remove"]):
        return [DOCKER_VOLUME_RM]
    return []


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


def _simple_reasons(name: str, args: list[str]) -> list[str]:
    """The rules that need only the command's name and its arguments' text."""
    if name == "rm":
        return _rm_reasons(args)
    if name == "shred":
        return [SHRED]
    if name == "dd":
        outputs = [arg[3:] for arg in args if arg.startswith("of=")]
        reasons = [DD_WRITE] if outputs else []
        if any(_BLOCK_DEVICE.match(path) for path in outputs):
            reasons.append(BLOCK_DEVICE_WRITE)
        return reasons
    if name.startswith("mkfs") or name in _DISK_TOOLS:
        return [DISK_FORMAT]
    if name in ("chmod", "chown", "chgrp"):
        return _chmod_reasons(name, args)
    if name == "git":
        return _git_reasons(args)
    if _is_power_command(name, args):
        return [SHUTDOWN]
    if name == "kill":
        return _kill_reasons(args)
    if name == "killall5":
        return [KILL_ALL]
    if name in ("pkill", "killall"):
        return [KILL_BY_NAME]
    if name == "crontab" and "r" in _short_flags(args):
        return [CRONTAB_REMOVE]
    if name == "tee":
        return _target_reasons(arg for arg in args if not arg.startswith("-"))
    if name == "truncate":
        return _truncate_reasons(args)
    if name == "mv":
        return _mv_reasons(args)
    if name == "kubectl":
        return _kubectl_reasons(args)
    if name in ("docker", "podman", "docker-compose"):
        return _docker_reasons(name, args)
    return []


def _find_hits(args: list[Token], depth: int, variables: Variables) -> list[Hit]:
    texts = [arg.text for arg in args]
    whole = span_of(args)
    found: list[Hit] = []
    if "-delete" in texts:
        found.append((FIND_DELETE, *whole))
    for index, arg in enumerate(texts):
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            nested: list[Token] = []
            for item in args[index + 1 :]:
                if item.text in (";", "+"):
                    break
                nested.append(item)
            if nested and os.path.basename(nested[0].text) in ("rm", "shred", "unlink"):
                found.append((FIND_DELETE, *whole))
            found.extend(_command_hits(nested, (), depth + 1, variables))
    return found


def _nested_hits(name: str, args: list[Token], stdin: Sequence[Token], depth: int, variables: Variables) -> list[Hit]:
    """Commands inside this one: `sh -c`, `su -c`, `eval`, a script fed to a shell, inline scripts."""
    texts = [arg.text for arg in args]
    code_after_c = args[texts.index("-c") + 1] if "-c" in texts and texts.index("-c") + 1 < len(args) else None
    if name == "su":
        return _assess(code_after_c.source(), depth + 1, variables) if code_after_c is not None else []
    if name in _SHELLS:
        if code_after_c is not None:
            return _assess(code_after_c.source(), depth + 1, variables)
        found: list[Hit] = []
        for body in stdin:  # bash <<EOF ... EOF, bash <<< "..."
            found.extend(_assess(body.source(), depth + 1, variables))
        return found
    if name == "eval":
        return _assess(_joined(args), depth + 1, variables)
    language = danger_scripts.language_of(name)
    if language is None:
        return []
    found = []
    for code in [*danger_scripts.inline_code(language, args), *(body.source() for body in stdin)]:
        deletes, shell_commands = danger_scripts.script_risks(language, code)
        found.extend(deletes)
        for shell in shell_commands:
            found.extend(_assess(shell, depth + 1, variables))
    return found


def _joined(words: Sequence[Token]) -> Source:
    """Words joined with spaces, each character still pointing into the original command."""
    text: list[str] = []
    at: list[int] = []
    for word in words:
        if text:
            text.append(" ")
            at.append(word.start)
        text.append(word.text)
        at.extend(word.at)
    return Source("".join(text), at)


def _command_hits(argv: Sequence[Token], stdin: Sequence[Token], depth: int, variables: Variables) -> list[Hit]:
    found: list[Hit] = []
    words, via = _unwrap(argv, variables, found)
    if not words:
        return found
    name, args = os.path.basename(words[0].text), words[1:]
    texts = [arg.text for arg in args]
    whole = span_of(words)
    before = len(found)
    if name == "su":
        found.append((ROOT_PRIVILEGES, words[0].start, words[0].end))
    found.extend((reason, *whole) for reason in _simple_reasons(name, texts))
    if name == "find":
        found.extend(_find_hits(args, depth, variables))
    found.extend(_nested_hits(name, args, stdin, depth, variables))
    if via is not None and len(found) > before:
        found.append((VARIABLE_COMMAND, via.start, via.end))
    return found


def _pipeline_hits(pipeline: list[Command], variables: Variables) -> list[Hit]:
    """Downloads or text piped into a shell: `curl ... | sh`, `... | sudo bash -s`."""
    found: list[Hit] = []
    commands = [_unwrap(command.argv, variables, [])[0] for command in pipeline]
    names = [os.path.basename(command[0].text) if command else "" for command in commands]
    start = span_of(pipeline[0].argv)[0] if pipeline[0].argv else 0
    for position in range(1, len(commands)):
        name, command = names[position], commands[position]
        if not command:
            continue
        end = span_of(command)[1]
        if (name in _SHELLS or danger_scripts.language_of(name)) and _DOWNLOADERS.intersection(names[:position]):
            found.append((DOWNLOAD_TO_SHELL, start, end))
        elif name in _SHELLS and "-c" not in [word.text for word in command[1:]]:
            found.append((PIPE_TO_SHELL, start, end))
    return found


def _remember_assignments(command: Command, variables: Variables) -> bool:
    """`x=rm`, `export x=rm`, `unset x`: note what the variables hold now. False for any other command."""
    words = [word.text for word in command.argv]
    if words and words[0] == "unset":
        for name in words[1:]:
            variables.pop(name, None)
        return True
    if words and words[0] in _DECLARERS:
        words = [word for word in words[1:] if not word.startswith("-")]
        if not words:
            return True
    if not words or not all(_ASSIGNMENT.match(word) for word in words):
        return False
    for word in words:
        name, _, value = word.partition("=")
        variables[name] = value
    return True


def _assess(source: Source, depth: int, variables: Variables) -> list[Hit]:
    if depth > _MAX_DEPTH or not source.text.strip():
        return []
    found: list[Hit] = []
    for pattern, reason in (
        (_FORK_BOMB, FORK_BOMB),
        (_SHELL_READS_DOWNLOAD, DOWNLOAD_TO_SHELL),
        (_DESTRUCTIVE_SQL, DESTRUCTIVE_SQL),
    ):
        found.extend((reason, *source.span(match.start(), match.end())) for match in pattern.finditer(source.text))
    script = parse(source)
    for operator, target in script.redirects:
        found.extend((reason, operator.start, target.end) for reason in _target_reasons([target.text]))
    for pipeline in script.pipelines:
        for command in pipeline:
            if not command.stdin and _remember_assignments(command, variables):
                continue
            found.extend(_command_hits(command.argv, command.stdin, depth, variables))
        found.extend(_pipeline_hits(pipeline, variables))
    return found


def _hits(command: object) -> list[Hit]:
    if not isinstance(command, str):
        return []
    return _assess(Source(command), 0, {})


def find_risks(command: str) -> tuple[Risk, ...]:
    """Every flagged span of `command` across all its lines, by position; each (span, reason) once."""
    unique = dict.fromkeys(Risk(start, end, reason) for reason, start, end in _hits(command))
    return tuple(sorted(unique, key=lambda risk: (risk.start, risk.end)))


def assess_command(command: str) -> tuple[str, ...]:
    """Reasons `command` is risky, most specific first per command, without duplicates."""
    return tuple(dict.fromkeys(reason for reason, _, _ in _hits(command)))


def simple_commands(command: str) -> tuple[list[list[str]], list[str]]:
    """Every simple command in `command` as its argv with wrappers (sudo, env, xargs ...) unwrapped,
    and the targets of its output redirections. For callers that judge commands by what they run
    (the checkpoint hook's read-only test); an empty argv list means nothing runs."""
    if not isinstance(command, str):
        return [], []
    script = parse(Source(command))
    argvs: list[list[str]] = []
    for pipeline in script.pipelines:
        for simple in pipeline:
            words, _ = _unwrap(simple.argv, {}, [])
            if words:
                argvs.append([word.text for word in words])
    return argvs, [target.text for _, target in script.redirects]
