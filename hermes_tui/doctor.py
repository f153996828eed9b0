"""`hermes-tui doctor`: a health report of a home folder, and exit code 0 (healthy) or 1 (problems).

Owns the file-mode checks (the home and memories folders 0700; state.db, its -wal and -shm and
every memory file 0600; config.toml, which may hold API keys, 0600 as a warning, and so Hermes's
config.yaml and .env), whether config.toml loads (a FIFO or device there, a file over 1 MB, bad
TOML or a bad value) and whether config.yaml/.env do, and the report: one line per finding, then
a count. In a Hermes home (one with config.yaml or .env) Hermes leaves state.db and the memory
files 0644 — readable by others, writable only by their owner — so there a 0644 file is a note
with its `chmod 600` fix, not a problem; a file others may write stays a problem.
The database checks themselves (full integrity_check,
schema version, both FTS indexes) live in `hermes_tui.store.check`; nothing here changes a file.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TextIO

from hermes_tui import exit_codes
from hermes_tui.config import ConfigError, Home, load_hermes_files, load_settings
from hermes_tui.hermes_config import CONFIG_YAML, DOTENV
from hermes_tui.store.check import NOTE, OK, PROBLEM, WARNING, Finding, inspect_database
from hermes_tui.store.file_modes import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, looser_than, permission_bits

_LABELS = {OK: "ok", NOTE: "note", WARNING: "WARNING", PROBLEM: "PROBLEM"}
HERMES_FILE_MODE = 0o644  # how Hermes leaves state.db and the memory files (SQLite's and Python's default)


def is_hermes_home(home: Home) -> bool:
    """A home Hermes set up: its own config.yaml or .env is there."""
    return any(os.path.lexists(home.root / name) for name in (CONFIG_YAML, DOTENV))


def _printable(text: str) -> str:
    """File names and SQLite messages are data: control characters never reach the terminal."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def _mode_finding(
    name: str, path: Path, wanted: int, status_if_loose: str = PROBLEM, *, hermes_default: bool = False
) -> Finding | None:
    """`hermes_default`: a file Hermes itself leaves 0644 — at most that loose, it is a note."""
    try:
        mode = permission_bits(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return Finding(name, PROBLEM, f"cannot stat {path}: {exc.strerror or exc}")
    if looser_than(mode, wanted):
        fix = f"chmod {wanted:o} {path}"
        if hermes_default and not looser_than(mode, HERMES_FILE_MODE):
            return Finding(
                name, NOTE, f"{mode:04o}, as Hermes leaves it: other users can read it; `{fix}` makes it private"
            )
        return Finding(name, status_if_loose, f"{mode:04o}, other users can read it; `{fix}` makes it {wanted:04o}")
    return Finding(name, OK, f"{mode:04o} {path}")


def mode_findings(home: Home) -> list[Finding]:
    """The file-mode findings for `home` (missing optional files are skipped)."""
    hermes = is_hermes_home(home)
    checks: list[tuple[str, Path, int, str, bool]] = [
        ("home folder", home.root, PRIVATE_DIR_MODE, PROBLEM, False),
        ("state.db mode", home.state_db, PRIVATE_FILE_MODE, PROBLEM, hermes),
        ("state.db-wal mode", home.state_db.with_name("state.db-wal"), PRIVATE_FILE_MODE, PROBLEM, hermes),
        ("state.db-shm mode", home.state_db.with_name("state.db-shm"), PRIVATE_FILE_MODE, PROBLEM, hermes),
        ("memories folder", home.memories, PRIVATE_DIR_MODE, PROBLEM, False),
        ("config.toml mode", home.config_file, PRIVATE_FILE_MODE, WARNING, False),
        ("config.yaml mode", home.root / CONFIG_YAML, PRIVATE_FILE_MODE, WARNING, False),
        (".env mode", home.root / DOTENV, PRIVATE_FILE_MODE, WARNING, False),
    ]
    if home.memories.is_dir():
        for path in sorted(home.memories.rglob("*")):
            folder = path.is_dir()
            wanted = PRIVATE_DIR_MODE if folder else PRIVATE_FILE_MODE
            checks.append((f"memory {path.relative_to(home.memories)}", path, wanted, PROBLEM, hermes and not folder))
    findings = []
    for name, path, wanted, status, hermes_default in checks:
        finding = _mode_finding(name, path, wanted, status, hermes_default=hermes_default)
        if finding is not None:
            findings.append(finding)
    return findings


def config_finding(home: Home) -> Finding:
    """Whether config.toml loads as every command loads it (a FIFO, a device, a huge or unparsable
    file, a bad value: the same one line the commands stop with)."""
    if not os.path.lexists(home.config_file):
        return Finding("config.toml", OK, "none (the defaults apply)")
    try:
        load_settings(home, env={}, hermes_files=False)
    except ConfigError as exc:
        return Finding("config.toml", PROBLEM, str(exc))
    return Finding("config.toml", OK, "loads and every value is valid")


def hermes_config_finding(home: Home) -> Finding | None:
    """Whether Hermes's config.yaml and .env load and translate as every command reads them."""
    if not is_hermes_home(home):
        return None
    try:
        load_hermes_files(home, {})
        load_settings(home, env={})
    except ConfigError as exc:
        return Finding("config.yaml", PROBLEM, str(exc))
    return Finding("config.yaml", OK, "Hermes's settings load; the ones hermes-tui has apply (config.toml wins)")


def diagnose(home: Home) -> list[Finding]:
    """Every finding for `home`: file modes, config.toml, then the database checks."""
    findings = mode_findings(home)
    findings.append(config_finding(home))
    hermes = hermes_config_finding(home)
    if hermes is not None:
        findings.append(hermes)
    if not home.state_db.exists():
        findings.append(Finding("state.db", OK, "none yet (created on the first run)"))
        return findings
    started = time.perf_counter()
    findings.extend(inspect_database(home.state_db))
    findings.append(Finding("time", OK, f"database checks took {time.perf_counter() - started:.1f} s"))
    return findings


def render(home: Home, findings: list[Finding]) -> str:
    width = max((len(f.name) for f in findings), default=0)
    lines = [f"hermes-tui doctor: {_printable(str(home.root))}"]
    for f in findings:
        lines.append(f"  {_LABELS[f.status]:<8} {_printable(f.name):<{width}}  {_printable(f.detail)}")
    problems = sum(f.status == PROBLEM for f in findings)
    warnings = sum(f.status == WARNING for f in findings)
    notes = sum(f.status == NOTE for f in findings)
    extra = ", ".join(
        part for part in (f"{warnings} warning(s)" if warnings else "", f"{notes} note(s)" if notes else "") if part
    )
    if problems:
        summary = f"{problems} problem(s)" + (f", {extra}" if extra else "") + "."
    else:
        summary = "No problems found" + (f" ({extra})." if extra else ".")
    lines.append(summary)
    return "\n".join(lines) + "\n"


def run_doctor(home: Home, out: TextIO, *, as_json: bool = False) -> int:
    """Print the report for `home`; exit_codes.OK when there is no problem, FAILED otherwise."""
    findings = diagnose(home)
    healthy = not any(f.status == PROBLEM for f in findings)
    if as_json:
        payload = {
            "home": str(home.root),
            "ok": healthy,
            "findings": [{"name": f.name, "status": f.status, "detail": f.detail} for f in findings],
        }
        out.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(render(home, findings))
    return exit_codes.OK if healthy else exit_codes.FAILED
