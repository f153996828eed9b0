"""`hermes-tui doctor`: a health report of a home folder, and exit code 0 (healthy) or 1 (problems).

Owns the file-mode checks (the home and memories folders 0700; state.db, its -wal and -shm and
every memory file 0600; config.toml, which may hold API keys, 0600 as a warning), whether
config.toml loads (a FIFO or device there, a file over 1 MB, bad TOML or a bad value), and the report:
one line per finding, then a count. The database checks themselves (full integrity_check,
schema version, both FTS indexes) live in `hermes_tui.store.check`; nothing here changes a file.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TextIO

from hermes_tui import exit_codes
from hermes_tui.config import ConfigError, Home, load_settings
from hermes_tui.store.check import OK, PROBLEM, WARNING, Finding, inspect_database
from hermes_tui.store.file_modes import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, looser_than, permission_bits

_LABELS = {OK: "ok", WARNING: "WARNING", PROBLEM: "PROBLEM"}


def _printable(text: str) -> str:
    """File names and SQLite messages are data: control characters never reach the terminal."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def _mode_finding(name: str, path: Path, wanted: int, status_if_loose: str = PROBLEM) -> Finding | None:
    try:
        mode = permission_bits(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return Finding(name, PROBLEM, f"cannot stat {path}: {exc.strerror or exc}")
    if looser_than(mode, wanted):
        fix = f"chmod {wanted:o} {path}"
        return Finding(name, status_if_loose, f"{mode:04o}, other users can read it; `{fix}` makes it {wanted:04o}")
    return Finding(name, OK, f"{mode:04o} {path}")


def mode_findings(home: Home) -> list[Finding]:
    """The file-mode findings for `home` (missing optional files are skipped)."""
    checks: list[tuple[str, Path, int, str]] = [
        ("home folder", home.root, PRIVATE_DIR_MODE, PROBLEM),
        ("state.db mode", home.state_db, PRIVATE_FILE_MODE, PROBLEM),
        ("state.db-wal mode", home.state_db.with_name("state.db-wal"), PRIVATE_FILE_MODE, PROBLEM),
        ("state.db-shm mode", home.state_db.with_name("state.db-shm"), PRIVATE_FILE_MODE, PROBLEM),
        ("memories folder", home.memories, PRIVATE_DIR_MODE, PROBLEM),
        ("config.toml mode", home.config_file, PRIVATE_FILE_MODE, WARNING),
    ]
    if home.memories.is_dir():
        for path in sorted(home.memories.rglob("*")):
            wanted = PRIVATE_DIR_MODE if path.is_dir() else PRIVATE_FILE_MODE
            checks.append((f"memory {path.relative_to(home.memories)}", path, wanted, PROBLEM))
    findings = []
    for name, path, wanted, status in checks:
        finding = _mode_finding(name, path, wanted, status)
        if finding is not None:
            findings.append(finding)
    return findings


def config_finding(home: Home) -> Finding:
    """Whether config.toml loads as every command loads it (a FIFO, a device, a huge or unparsable
    file, a bad value: the same one line the commands stop with)."""
    if not os.path.lexists(home.config_file):
        return Finding("config.toml", OK, "none (the defaults apply)")
    try:
        load_settings(home, env={})
    except ConfigError as exc:
        return Finding("config.toml", PROBLEM, str(exc))
    return Finding("config.toml", OK, "loads and every value is valid")


def diagnose(home: Home) -> list[Finding]:
    """Every finding for `home`: file modes, config.toml, then the database checks."""
    findings = mode_findings(home)
    findings.append(config_finding(home))
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
    if problems:
        summary = f"{problems} problem(s)" + (f", {warnings} warning(s)" if warnings else "") + "."
    else:
        summary = "No problems found" + (f" ({warnings} warning(s))." if warnings else ".")
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
