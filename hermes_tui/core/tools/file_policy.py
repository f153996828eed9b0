"""Which paths the file tools may touch freely, and why the others need the user's approval.

Owns the rules, as pure functions over path text plus a few file-system look-ups (`realpath`,
`stat`): `assess_path(raw, access, ...)` turns the path a model gave into a `PathVerdict` — the
path as written (`~` expanded, made absolute) and as it really is (symlinks and `..` resolved), what
is there now (`TargetInfo`), and the plain-language `reasons` it needs approval (empty = free).

Free: paths whose resolved form lies inside the working folder or a folder the user listed in
`[tools] allow_paths`. Always asked, even there: shell start-up files and history, SSH keys,
credential files (.aws, .netrc, .git-credentials, .pgpass, docker and kube configs, gcloud, .env
files, private keys ...), /etc and /boot, hermes's own home (state.db, config.toml), files that
run code when written (git hooks, .git/config, .envrc), and names with control or invisible
characters; and (`hard_link_reason`, which the file tools add once they have opened the file) a
regular file with more than one name, which may be an outside file's other name. Never touched at
all: the kernel's live files under /proc, /sys and /dev (`pseudo_filesystem_reason`): a read there
can block forever, even in a worker thread.

`visible_path` shows a path with every control, invisible and undecodable character escaped, so a
request or an error says exactly which path is meant. Blocking (it calls realpath and stat): run
`assess_path` in a worker thread. Imports nothing but the standard library.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Access = Literal["read", "write", "search"]

OUTSIDE = "outside the working folder"
OUTSIDE_ALLOWED = "outside the working folder and the folders in [tools] allow_paths"
SYMLINK_OUT = "a symbolic link inside the working folder that points outside it"
HARD_LINK = "a hard link: the file has other names, and they may be outside the working folder"
SHELL_STARTUP = "a shell start-up file: what is written there runs in every new shell, and it often holds tokens"
SHELL_HISTORY = "a shell or REPL history file, which often holds passwords typed on the command line"
SSH = "SSH keys and configuration (.ssh)"
GNUPG = "GnuPG private keys (.gnupg)"
CREDENTIALS = "a credentials file"
ENV_FILE = "an environment (.env) file, which usually holds secrets"
PRIVATE_KEY = "a private key or certificate store"
SYSTEM_CONFIG = "system configuration (/etc, /boot)"
HERMES_HOME = "hermes's own home: every conversation (state.db) and settings with API keys (config.toml)"
RUNS_CODE = "runs code automatically later (git hooks, .git/config, direnv .envrc)"
ODD_NAME = "the path contains control, invisible or undecodable characters, so it may not be what it looks like"

PSEUDO_FILESYSTEMS = ("/proc", "/sys", "/dev")
SYSTEM_FOLDERS = ("/etc", "/boot")
DEFAULT_HERMES_HOMES = ("~/.hermes-tui", "~/.hermes")
HERMES_HOME_ENV = "HERMES_TUI_HOME"

_SHELL_STARTUP_NAMES = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".bash_aliases",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".zlogout",
        ".cshrc",
        ".tcshrc",
        ".login",
        ".logout",
        ".kshrc",
        ".mkshrc",
        ".xprofile",
        ".xinitrc",
        ".xsession",
        "bash.bashrc",
        "config.fish",
    }
)
_SHELL_CONFIG_FOLDERS = (("~", ".config", "fish"), ("~", ".config", "nushell"), ("~", ".oh-my-zsh"))
_HISTORY = re.compile(r"^\.(\w+_)?history$|^fish_history$|^\.zhistory$|^\.lesshst$")
_CREDENTIAL_NAMES = frozenset(
    {
        ".netrc",
        "_netrc",
        ".git-credentials",
        ".pgpass",
        ".my.cnf",
        ".npmrc",
        ".pypirc",
        ".vault-token",
        ".htpasswd",
        ".boto",
        ".s3cfg",
        ".terraformrc",
        "credentials.json",
        "client_secret.json",
    }
)
# (consecutive folder names, file name inside them or None for anything inside)
_CREDENTIAL_FOLDERS: tuple[tuple[tuple[str, ...], str | None], ...] = (
    ((".aws",), None),
    ((".azure",), None),
    ((".config", "gcloud"), None),
    ((".config", "gh"), None),
    ((".config", "hub"), None),
    ((".kube",), "config"),
    ((".docker",), "config.json"),
    ((".cargo",), "credentials"),
    ((".cargo",), "credentials.toml"),
    ((".gem",), "credentials"),
    ((".password-store",), None),
    ((".local", "share", "keyrings"), None),
)
_ENV_FILE = re.compile(r"^\.env(\..+)?$")
_ENV_TEMPLATES = frozenset({"example", "sample", "template", "dist", "defaults"})
_KEY_NAME = re.compile(r"^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$")
_KEY_SUFFIXES = frozenset({".pem", ".key", ".p12", ".pfx", ".ppk", ".jks", ".keystore", ".kdbx"})
_VISIBLE_SEPARATORS = frozenset({" "})


class UnusablePath(ValueError):
    """A path no file can have (a NUL byte, a lone surrogate), or one that changed while it was being
    resolved; the message is one line."""


@dataclass(frozen=True)
class TargetInfo:
    """What is at a resolved path now: "missing", "file", "folder", "fifo", "device", "socket" or "other"."""

    kind: str
    size: int = 0
    error: str = ""  # why stat failed, other than "not there" (e.g. permission denied, a loop)


@dataclass(frozen=True)
class PathVerdict:
    """One path a tool was asked to use, judged for one kind of access."""

    requested: str  # the text the model gave
    written: Path  # ~ expanded, absolute, ".." folded (no symlinks followed): what it looks like
    resolved: Path  # symlinks and ".." resolved: what it really is; the tools act on this
    target: TargetInfo
    access: Access
    reasons: tuple[str, ...]  # why the user must approve; empty = free
    roots: tuple[Path, ...] = ()  # the free folders (resolved) it was judged against; the walk starts at one

    @property
    def needs_approval(self) -> bool:
        return bool(self.reasons)

    @property
    def shown(self) -> str:
        """The resolved path, safe and exact for a message."""
        return visible_path(str(self.resolved))

    @property
    def via_link(self) -> bool:
        """The path given is not the one acted on (a symbolic link somewhere along it)."""
        return self.written != self.resolved


# --------------------------------------------------------------------------- showing a path


def _needs_escape(char: str) -> bool:
    category = unicodedata.category(char)
    if category[0] == "C":  # Cc control, Cf format (bidi, zero-width), Cs surrogate, Co, Cn
        return True
    return category in ("Zl", "Zp") or (category == "Zs" and char not in _VISIBLE_SEPARATORS)


def _escape(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, carried by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def has_odd_characters(text: str) -> bool:
    """Control, invisible (format, odd spaces) or undecodable characters anywhere in `text`."""
    return any(_needs_escape(char) for char in text)


def visible_path(text: str) -> str:
    """`text` with backslashes doubled and every control, invisible or undecodable character escaped."""
    return "".join("\\\\" if char == "\\" else _escape(char) if _needs_escape(char) else char for char in text)


# --------------------------------------------------------------------------- the rules


def _within(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """`path` is `folder` or lies below it (both absolute and normalised; plain text, no file system)."""
    path_text, folder_text = os.fspath(path), os.fspath(folder)
    return path_text == folder_text or path_text.startswith(folder_text.rstrip("/") + "/")


def pseudo_filesystem_reason(path: Path) -> str | None:
    """Why a resolved path is never read or written by the file tools, or None."""
    for root in PSEUDO_FILESYSTEMS:
        if _within(path, Path(root)):
            return (
                f"{visible_path(str(path))} is under {root}, the kernel's live files and devices: reading them "
                "can block forever, so the file tools never touch them (the terminal tool, which has a "
                "timeout, can)"
            )
    return None


def hermes_homes(home: Path | None, env: Mapping[str, str] | None = None) -> list[Path]:
    """hermes's home folders: the live one (when known), $HERMES_TUI_HOME and the default locations."""
    env = os.environ if env is None else env
    raw = [str(home)] if home is not None else []
    raw += [env.get(HERMES_HOME_ENV, ""), *DEFAULT_HERMES_HOMES]
    return [Path(os.path.realpath(os.path.expanduser(text))) for text in raw if text]


def _home_folder() -> str | None:
    home = os.path.expanduser("~")
    return home if home != "~" else None


def _is_env_file(name: str) -> bool:
    match = _ENV_FILE.match(name)
    if not match:
        return False
    suffix = (match.group(1) or "").lstrip(".").lower()
    return suffix not in _ENV_TEMPLATES


def _find_run(parts: Sequence[str], run: Sequence[str]) -> int:
    """Index just past the last occurrence of the consecutive names `run` in `parts`, or -1."""
    width = len(run)
    for start in range(len(parts) - width, -1, -1):
        if tuple(parts[start : start + width]) == tuple(run):
            return start + width
    return -1


def _credential_reason(parts: Sequence[str], folders: set[str]) -> str | None:
    name = parts[-1] if parts else ""
    if name in _CREDENTIAL_NAMES:
        return f"{CREDENTIALS} ({name})"
    for run, file_name in _CREDENTIAL_FOLDERS:
        if run[0] not in folders:
            continue
        end = _find_run(parts[:-1], run)
        if end < 0:
            continue
        inside = tuple(parts[end:])
        if file_name is None or inside == (file_name,):
            return f"{CREDENTIALS} ({'/'.join(run)}/{file_name or '...'})"
    return None


def _key_reason(name: str) -> str | None:
    if _KEY_NAME.match(name) or name.lower().endswith(("_rsa", "_ed25519", "_ecdsa")):
        return f"{PRIVATE_KEY} ({name})"
    suffix = os.path.splitext(name)[1].lower()
    if suffix in _KEY_SUFFIXES:
        return f"{PRIVATE_KEY} ({suffix} file)"
    return None


def _runs_code(parts: Sequence[str], folders: set[str]) -> bool:
    if parts and parts[-1] == ".envrc":
        return True
    if ".git" not in folders:
        return False
    end = _find_run(parts, (".git",))
    if end < 0:
        return False
    inside = tuple(parts[end:])
    return inside == ("config",) or (len(inside) >= 2 and inside[0] == "hooks")


def _shell_config_folder(path: str, home: str | None) -> bool:
    if home is None:
        return False
    return any(_within(path, "/".join((home.rstrip("/"), *parts[1:]))) for parts in _SHELL_CONFIG_FOLDERS)


def sensitive_reasons(
    path: str | os.PathLike[str], access: Access, hermes_home_folders: Iterable[str | os.PathLike[str]] = ()
) -> list[str]:
    """Why `path` (absolute, normalised) always needs approval, wherever it is; [] when nothing applies.

    Plain text work (no file system), cheap enough to run for every file a search walks.
    """
    text = os.fspath(path)
    parts = [part for part in text.split("/") if part]
    name = parts[-1] if parts else ""
    folders = set(parts[:-1])
    reasons: list[str] = []
    if any(_within(text, folder) for folder in SYSTEM_FOLDERS):
        reasons.append(SYSTEM_CONFIG)
    if any(_within(text, folder) for folder in hermes_home_folders):
        reasons.append(HERMES_HOME)
    if name in _SHELL_STARTUP_NAMES or _shell_config_folder(text, _home_folder()):
        reasons.append(SHELL_STARTUP)
    if _HISTORY.match(name):
        reasons.append(SHELL_HISTORY)
    if ".ssh" in folders or name == ".ssh":
        reasons.append(SSH)
    if ".gnupg" in folders or name == ".gnupg":
        reasons.append(GNUPG)
    credential = _credential_reason(parts, folders)
    if credential:
        reasons.append(credential)
    if _is_env_file(name):
        reasons.append(ENV_FILE)
    key = _key_reason(name)
    if key and SSH not in reasons:
        reasons.append(key)
    if access == "write" and _runs_code(parts, folders):
        reasons.append(RUNS_CODE)
    return reasons


def hard_link_reason(links: int) -> str:
    """Why a regular file with `links` names (st_nlink > 1) needs approval wherever it is."""
    return f"{HARD_LINK} ({links} names)"


# --------------------------------------------------------------------------- judging one path


def target_info(path: Path) -> TargetInfo:
    """What is at `path` now (following symlinks)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return TargetInfo("missing")
    except NotADirectoryError:
        return TargetInfo("missing", error="a file is in the way of a folder on this path")
    except OSError as exc:
        return TargetInfo("other", error=exc.strerror or str(exc))
    mode = info.st_mode
    if stat.S_ISREG(mode):
        return TargetInfo("file", info.st_size)
    if stat.S_ISDIR(mode):
        return TargetInfo("folder")
    if stat.S_ISFIFO(mode):
        return TargetInfo("fifo")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return TargetInfo("device")
    if stat.S_ISSOCK(mode):
        return TargetInfo("socket")
    return TargetInfo("other")


def check_path_text(raw: str) -> None:
    """Raise UnusablePath when no file could have this name."""
    if "\0" in raw:
        raise UnusablePath(f"the path {visible_path(raw)} contains a NUL byte, which no file name can hold")
    try:
        os.fsencode(raw)
    except UnicodeEncodeError as exc:
        bad = visible_path(raw[exc.start : exc.end])
        raise UnusablePath(
            f"the path {visible_path(raw)} contains {bad}, a lone surrogate that no file name can hold"
        ) from None


def free_roots(cwd: Path, allow_paths: Iterable[str]) -> list[Path]:
    """The resolved working folder and allowed folders (relative or empty entries are ignored)."""
    roots = [Path(os.path.realpath(cwd))]
    for entry in allow_paths:
        expanded = os.path.expanduser(entry) if entry else ""
        if expanded.startswith("/") and "\0" not in expanded:
            roots.append(Path(os.path.realpath(expanded)))
    return roots


def _beyond_roots(path: Path, roots: Sequence[Path]) -> str:
    """The part of `path` below the free folder holding it (the whole path when none does)."""
    for root in roots:
        if _within(path, root):
            return str(path.relative_to(root))
    return str(path)


def _resolve(absolute: str, raw: str) -> Path:
    """realpath, which raises (readlink: EINVAL) when a link is swapped for a folder while it looks."""
    try:
        return Path(os.path.realpath(absolute))
    except OSError:
        raise UnusablePath(
            f"the path {visible_path(raw)} changed while it was being looked up (a symbolic link on it was "
            "replaced); try again"
        ) from None


def assess_path(
    raw: str,
    access: Access,
    *,
    cwd: Path,
    allow_paths: Sequence[str] = (),
    home: Path | None = None,
) -> PathVerdict:
    """Judge the path `raw` (as a model wrote it) for `access`; raises UnusablePath. Blocking."""
    check_path_text(raw)
    absolute = os.path.join(cwd, os.path.expanduser(raw))
    written = Path(os.path.normpath(absolute))
    resolved = _resolve(absolute, raw)
    roots = free_roots(cwd, allow_paths)
    reasons: list[str] = []
    if not any(_within(resolved, root) for root in roots):
        if any(_within(written, root) for root in roots):
            reasons.append(f"{SYMLINK_OUT} (to {visible_path(str(resolved))})")
        else:
            reasons.append(OUTSIDE_ALLOWED if len(roots) > 1 else OUTSIDE)
    homes = hermes_homes(home)
    for candidate in dict.fromkeys((written, resolved)):
        reasons.extend(sensitive_reasons(candidate, access, homes))
    if has_odd_characters(raw) or has_odd_characters(_beyond_roots(resolved, roots)):
        reasons.append(ODD_NAME)
    return PathVerdict(
        requested=raw,
        written=written,
        resolved=resolved,
        target=target_info(resolved),
        access=access,
        reasons=tuple(dict.fromkeys(reasons)),
        roots=tuple(roots),
    )
